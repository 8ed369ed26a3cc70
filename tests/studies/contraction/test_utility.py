"""Certified epsilons of the contraction utility table: finite whenever there is noise (issue 17)."""

from __future__ import annotations

import math

import pytest
from dp_accounting import get_epsilon_gaussian

from dplab.studies.contraction.utility import certified_epsilons


@pytest.mark.parametrize(("lr", "sigma"), [(0.1, 0.1), (0.5, 0.1), (0.1, 0.3)])
def test_small_noise_epsilons_are_finite_and_match_the_first_step_gaussian(lr: float, sigma: float) -> None:
    """At sigma = 0.1 Theorem 4 certifies about 284 (above the old cap of 100, once reported inf): its first-step
    factor theta(2L/sigma) alone is the Gaussian mechanism of sensitivity 2L = 2, and the contraction factor is ~1."""
    eps = certified_epsilons("gaussian", n=1000, radius=2.0, lr=lr, scale=sigma, delta=1e-5)
    assert all(math.isfinite(v) for v in eps.values()), eps
    assert eps["epsilon_thm_first"] == pytest.approx(get_epsilon_gaussian(sigma / 2.0, 1e-5), rel=1e-8)
    assert eps["epsilon_thm5"] >= eps["epsilon_thm_last"]


def test_no_noise_is_infinite() -> None:
    eps = certified_epsilons("gaussian", n=1000, radius=2.0, lr=0.1, scale=0.0, delta=1e-5)
    assert all(v == math.inf for v in eps.values())
