"""dplab.account.PNSGDCurve against independent closed forms of Theorems 3-5 (Asoodeh, Diaz, Calmon 2020)."""

import math

import numpy as np
import pytest
from scipy.stats import norm

from dplab.account import PNSGDCurve, pnsgd_curve

PARAMS = {"noise": 2.0, "lipschitz": 1.0, "contraction_gap": 0.5, "diameter": 1.0, "lr": 0.5, "steps": 10}


def gaussian_theta(epsilon, r):
    """Hockey-stick divergence of N(r,1) vs N(0,1) by its textbook closed form (independent of dplab)."""
    return norm.cdf(r / 2 - epsilon / r) - math.exp(epsilon) * norm.cdf(-r / 2 - epsilon / r)


def test_theorem4_delta_matches_closed_form_per_position():
    first, contraction = 2 * 1.0 / 2.0, 0.5 * 1.0 / (0.5 * 2.0)
    for i in (1, 5, 10):
        curve = pnsgd_curve(theorem=4, position=i, **PARAMS)
        expected = gaussian_theta(1.0, first) * gaussian_theta(1.0, contraction) ** (10 - i)
        assert curve.delta(1.0) == pytest.approx(expected, rel=1e-9)


def test_theorem3_delta_matches_closed_form():
    curve = pnsgd_curve(theorem=3, position=4, **PARAMS)
    eps = 0.3
    first = max(0.0, 1 - math.exp(eps / 2 - 1.0 / 2.0))
    factor = max(0.0, 1 - math.exp(eps / 2 - 0.5 * 1.0 / (2 * 0.5 * 2.0)))
    assert curve.delta(eps) == pytest.approx(first * factor**6, rel=1e-9)


def test_theorem5_uniform_bound_matches_eq16():
    curve = pnsgd_curve(theorem=5, **PARAMS)
    expected = gaussian_theta(1.0, 1.0) / (10 * (1 - gaussian_theta(1.0, 0.5)))
    assert curve.delta(1.0) == pytest.approx(min(expected, 1.0), rel=1e-9)


def test_epsilon_inverts_delta_and_grows_with_position():
    curve = pnsgd_curve(theorem=4, **PARAMS)
    eps = curve.epsilon(1e-5)
    assert curve.delta(eps) <= 1e-5 < curve.delta(eps - 1e-6)
    per_position = curve.epsilon_per_position(1e-5)
    assert per_position.shape == (10,) and per_position[-1] == pytest.approx(eps)
    assert np.all(np.diff(per_position) >= 0) and per_position[0] < per_position[-1]


def test_to_pld_dominates_the_point_and_composes():
    curve = pnsgd_curve(theorem=4, **PARAMS)
    pld = curve.to_pld(2.0)
    assert pld.get_delta_for_epsilon(2.0) == pytest.approx(curve.delta(2.0), rel=1e-3, abs=1e-12)
    composed = pld.compose(pld)
    assert composed.get_delta_for_epsilon(4.0) >= pld.get_delta_for_epsilon(2.0)


@pytest.mark.parametrize(
    "bad, name",
    [({"theorem": 6}, "theorem"), ({"position": 11}, "position"), ({"theorem": 4, "position": None}, "position")],
)
def test_bad_input_names_the_argument(bad, name):
    kwargs = {**PARAMS, "theorem": 4, "position": 3, **bad}
    with pytest.raises(ValueError, match=name):
        PNSGDCurve(**kwargs)


def test_bad_noise_is_rejected():
    with pytest.raises(ValueError, match="noise=-1.0 is invalid"):
        pnsgd_curve(theorem=4, **{**PARAMS, "noise": -1.0})
