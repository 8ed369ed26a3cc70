"""Exact pure ε of a pair of log-pmfs: against a plain-Python enumeration of the definition (ε∞ = the smallest ε
with p(o) ≤ e^ε q(o) and q(o) ≤ e^ε p(o) for every output o), on small laws with zeros on either side."""

from __future__ import annotations

import math

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from dplab.audit.pure_epsilon import directional_log_ratio_sups, pure_epsilon_from_log_pmfs


def _smallest_epsilon_by_definition(p: list[float], q: list[float]) -> float:
    """Enumerate the outputs: the constraint of each output on ε, on the masses themselves (not their logs)."""
    needed = 0.0
    for p_o, q_o in zip(p, q):
        if p_o == 0 and q_o == 0:
            continue
        if p_o == 0 or q_o == 0:
            return math.inf
        needed = max(needed, math.log(max(p_o, q_o) / min(p_o, q_o)))
    return needed


def _log(masses: list[float]) -> np.ndarray:
    with np.errstate(divide="ignore"):
        return np.log(np.array(masses, dtype=float))


masses = st.lists(st.sampled_from([0.0, 0.05, 0.1, 0.2, 0.25, 0.4, 0.5]), min_size=1, max_size=6)


@settings(max_examples=200, deadline=None, derandomize=True)
@given(data=st.data())
def test_matches_the_definition_on_random_small_laws(data):
    p = data.draw(masses)
    q = data.draw(st.lists(st.sampled_from([0.0, 0.05, 0.1, 0.2, 0.25, 0.4, 0.5]), min_size=len(p), max_size=len(p)))
    assert pure_epsilon_from_log_pmfs(_log(p), _log(q)) == pytest.approx(_smallest_epsilon_by_definition(p, q))


def test_randomized_response_is_epsilon_dp():
    eps = 0.7
    keep = math.exp(eps) / (1 + math.exp(eps))
    p, q = _log([keep, 1 - keep]), _log([1 - keep, keep])
    assert pure_epsilon_from_log_pmfs(p, q) == pytest.approx(eps, rel=1e-14)
    assert directional_log_ratio_sups(p, q) == pytest.approx((eps, eps), rel=1e-14)


def test_infinities_both_zero_contributes_nothing_one_zero_is_infinite():
    assert pure_epsilon_from_log_pmfs(_log([0.0, 0.5, 0.5]), _log([0.0, 0.5, 0.5])) == 0.0
    assert pure_epsilon_from_log_pmfs(_log([0.0, 1.0]), _log([0.0, 1.0])) == 0.0
    assert pure_epsilon_from_log_pmfs(_log([0.5, 0.5]), _log([0.0, 1.0])) == math.inf
    assert directional_log_ratio_sups(_log([0.5, 0.5]), _log([0.0, 1.0])) == (math.inf, math.log(2.0))
    assert directional_log_ratio_sups(_log([0.0, 1.0]), _log([0.5, 0.5])) == (math.log(2.0), math.inf)
    assert pure_epsilon_from_log_pmfs(_log([0.0]), _log([0.0])) == 0.0
    assert directional_log_ratio_sups(_log([0.0]), _log([0.0])) == (-math.inf, -math.inf)  # empty sup


def _sups_over_charged_outputs(lp: np.ndarray, lq: np.ndarray) -> tuple[float, float]:
    """The definition entry by entry: both directions' sups over the outputs either law charges."""
    forward, backward = -math.inf, -math.inf
    for a, b in zip(lp.ravel().tolist(), lq.ravel().tolist()):
        if a > -math.inf or b > -math.inf:
            forward = max(forward, a - b if b > -math.inf else math.inf)
            backward = max(backward, b - a if a > -math.inf else math.inf)
    return forward, backward


@pytest.mark.parametrize("uncharged", [0.0, 0.1])
@pytest.mark.parametrize("seed", range(4))
def test_directional_sups_equal_the_definition_bit_for_bit_signed_zeros_included(seed, uncharged):
    """The finite case (one difference array, 0 − min for the backward sup) and the general case (outputs of mass
    0) against the sups taken entry by entry: equal floats with equal signs, also where the sup is a zero."""
    rng = np.random.default_rng(seed)
    lp = rng.normal(size=(30, 20)).round(1)  # rounded: many equal entries, so many zero differences
    lq = np.where(rng.random((30, 20)) < 0.5, lp, rng.normal(size=(30, 20)).round(1))
    lq[rng.random((30, 20)) < uncharged] = -math.inf
    for pair in ((lp, lq), (lq, lp), (lp, lp), (np.full(3, -0.0), np.zeros(3))):
        got, expected = directional_log_ratio_sups(*pair), _sups_over_charged_outputs(*pair)
        assert got == expected and [math.copysign(1, v) for v in got] == [math.copysign(1, v) for v in expected]


def test_log_densities_above_zero_and_two_dimensional_arrays_are_accepted():
    p = np.array([[2.0, 1.0], [0.5, -np.inf]])
    q = np.array([[1.5, 1.0], [0.0, -np.inf]])
    assert directional_log_ratio_sups(p, q) == pytest.approx((0.5, 0.0))


@pytest.mark.parametrize(
    ("log_p", "log_q", "message"),
    [
        ([np.nan, 0.0], [0.0, 0.0], "^log_p="),
        ([0.0, 0.0], [np.inf, 0.0], "^log_q="),
        ([0.0, 0.0], [0.0], "^log_p has shape"),
    ],
)
def test_bad_arguments_are_refused_naming_them(log_p, log_q, message):
    with pytest.raises(ValueError, match=message):
        pure_epsilon_from_log_pmfs(np.array(log_p), np.array(log_q))
