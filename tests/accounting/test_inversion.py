"""Tests of dplab.accounting.inversion against dp_accounting's analytic Gaussian and closed-form inverses."""

from __future__ import annotations

import math

import pytest
from dp_accounting import get_epsilon_gaussian

from dplab.accounting.hockey_stick import log_gaussian_hockey_stick, log_laplace_hockey_stick
from dplab.accounting.inversion import epsilon_for_delta


@pytest.mark.parametrize(("sigma", "delta"), [(1.0, 1e-5), (0.5, 1e-5), (2.0, 1e-3), (3.0, 1e-10), (0.8, 1e-300)])
def test_gaussian_mechanism_matches_dp_accounting(sigma: float, delta: float) -> None:
    """Balle–Wang analytic Gaussian mechanism (sensitivity 1) as computed by dp_accounting."""
    eps = epsilon_for_delta(lambda e: log_gaussian_hockey_stick(e, 1.0 / sigma), delta, epsilon_max=1e4)
    assert eps == pytest.approx(get_epsilon_gaussian(sigma, delta), rel=1e-8, abs=1e-9)


def test_anchor_gaussian_value() -> None:
    """dp_accounting's get_epsilon_gaussian(1, 1e-5) = 4.3772 is also Theorem 4 at i = n for Fig. 2 (Asoodeh, Diaz,
    Calmon 2020: one Gaussian step of noise ratio 2L/σ = 1)."""
    eps = epsilon_for_delta(lambda e: log_gaussian_hockey_stick(e, 1.0), 1e-5)
    assert eps == pytest.approx(4.37718, abs=1e-5)


@pytest.mark.parametrize("kappa", [0.0128205128, 0.025, 0.5, 1.52])
@pytest.mark.parametrize("delta", [1e-12, 1e-5, 0.01, 0.5])
def test_proposition_1_closed_form_inverse(kappa: float, delta: float) -> None:
    """δ̃(ε) = exp(−(ε−κ)²/(4κ)) for ε > κ is inverted by ε̃ = κ + 2√(κ log(1/δ))."""

    def log_delta(epsilon: float) -> float:
        return -((epsilon - kappa) ** 2) / (4 * kappa) if epsilon > kappa else 0.0

    expected = kappa + 2 * math.sqrt(kappa * math.log(1 / delta))
    assert epsilon_for_delta(log_delta, delta, tol=1e-12) == pytest.approx(expected, abs=1e-10)


@pytest.mark.parametrize(("shift", "scale", "delta"), [(1.0, 1.0, 0.1), (2.0, 0.5, 1e-9), (3.0, 2.0, 0.5)])
def test_laplace_closed_form_inverse(shift: float, scale: float, delta: float) -> None:
    """Lemma 1: δ = 1 − exp(ε/2 − Δ/(2v)) ⇔ ε = Δ/v + 2 log(1 − δ)."""
    eps = epsilon_for_delta(lambda e: log_laplace_hockey_stick(e, shift=shift, scale=scale), delta, tol=1e-12)
    assert eps == pytest.approx(shift / scale + 2 * math.log1p(-delta), abs=1e-10)


def test_pure_dp_threshold_when_delta_is_zero() -> None:
    """log δ = −inf on the whole interval [Δ/v, ∞): the bisection finds the threshold Δ/v = 2 exactly."""
    eps = epsilon_for_delta(lambda e: log_laplace_hockey_stick(e, shift=2.0, scale=1.0), 0.0, tol=1e-12)
    assert eps == pytest.approx(2.0, abs=1e-11)
    assert eps >= 2.0  # the returned end of the bracket satisfies the target


def test_result_meets_target_and_is_tight() -> None:
    def log_delta(epsilon: float) -> float:
        return log_gaussian_hockey_stick(epsilon, 0.4) * 40  # a tiny δ: log δ ≈ −(hundreds)

    target = 1e-250
    tol = 1e-9
    eps = epsilon_for_delta(log_delta, target, tol=tol)
    assert log_delta(eps) <= math.log(target)
    assert log_delta(eps - 2 * tol) > math.log(target)


def test_trivial_and_unreachable_targets() -> None:
    assert epsilon_for_delta(lambda e: log_gaussian_hockey_stick(e, 1.0), 0.5) == 0.0  # θ_1(1) = 0.383 ≤ 0.5
    assert epsilon_for_delta(lambda e: log_gaussian_hockey_stick(e, 1.0), 1e-5, epsilon_max=2.0) == math.inf
    assert epsilon_for_delta(lambda e: log_gaussian_hockey_stick(e, 1.0), 1.0) == 0.0


@pytest.mark.parametrize(
    ("delta", "kwargs", "match"),
    [(1.5, {}, "delta"), (-0.1, {}, "delta"), (0.1, {"tol": 0.0}, "tol"), (0.1, {"epsilon_max": -1.0}, "epsilon_max")],
)
def test_bad_input_is_rejected(delta: float, kwargs: dict, match: str) -> None:
    with pytest.raises(ValueError, match=match):
        epsilon_for_delta(lambda e: -e, delta, **kwargs)


def test_nan_from_profile_is_rejected() -> None:
    with pytest.raises(ValueError, match="log_delta_fn"):
        epsilon_for_delta(lambda e: math.nan, 0.1)


@pytest.mark.parametrize("sigma", [0.05, 0.01])
def test_expanding_bracket_computes_epsilon_above_epsilon_max(sigma: float) -> None:
    """A finite ε above ``epsilon_max`` (284 and 1.9e3 for the Gaussian mechanism) is computed, not reported inf."""
    log_delta = lambda e: log_gaussian_hockey_stick(e, 1.0 / sigma)  # noqa: E731
    assert epsilon_for_delta(log_delta, 1e-5) == math.inf
    eps = epsilon_for_delta(log_delta, 1e-5, expand_to=1e9)
    assert eps > 100.0
    assert eps == pytest.approx(get_epsilon_gaussian(sigma, 1e-5), rel=1e-8)


def test_expanding_bracket_stops_at_its_limit() -> None:
    """Past ``expand_to`` the target is still missed: inf, and a limit below ``epsilon_max`` is rejected."""
    log_delta = lambda e: log_gaussian_hockey_stick(e, 100.0)  # noqa: E731
    assert epsilon_for_delta(log_delta, 1e-5, expand_to=1000.0) == math.inf
    with pytest.raises(ValueError, match="expand_to"):
        epsilon_for_delta(log_delta, 1e-5, epsilon_max=10.0, expand_to=5.0)
