"""Section 7 of Lin, Wang, Ma, Wang (mean estimation): Theorem 9's columns and Algorithm 1's parameters on the cube,
against the formulas written out here."""

from __future__ import annotations

import math

import pytest

from dplab.mechanisms.purification import cube_purification_parameters
from dplab.theory.mean_estimation import theorem9_columns


@pytest.mark.parametrize(("n", "d", "epsilon", "log_delta"), [(1000, 4, 1.0, -60.0), (100, 2, 0.5, -5.0)])
def test_theorem9_columns_written_out(n, d, epsilon, log_delta):
    out = theorem9_columns(n, d, epsilon, log_delta)
    bound = math.sqrt(d * -log_delta) / (2 * n * epsilon * math.log(d) * math.log(n * d))
    lo = -4 * d * math.log(d) * math.log(n * d) ** 2
    hi = -math.log(4 * n**d * math.log(8 * d) ** (2 * d))
    assert out["theorem9_lower_bound"] == pytest.approx(bound, rel=1e-12)
    assert (out["theorem9_log_delta_min"], out["theorem9_log_delta_max"]) == pytest.approx((lo, hi), rel=1e-12)
    assert out["theorem9_valid"] == (lo < log_delta < hi)
    assert out["paper_log_delta"] == pytest.approx(math.log(2 / n**2 / (32 * d * n**2) ** d), rel=1e-12)
    assert out["pure_rate"] == pytest.approx(2 * d / (n * epsilon))


@pytest.mark.parametrize(("d", "epsilon", "log_delta", "log_omega"), [(1, 0.5, -20.0, -4.0), (3, 1.0, -40.0, -2.0)])
def test_cube_purification_parameters_written_out(d, epsilon, log_delta, log_omega):
    out = cube_purification_parameters(d, epsilon, log_delta, log_omega)
    diameter = 2 / math.sqrt(d)  # the l_inf diameter of [-1/sqrt(d), 1/sqrt(d)]^d
    shift = 2 * d * diameter * (math.exp(log_delta) / (2 * math.exp(log_omega))) ** (1 / d)  # Theorem 1, q = inf
    assert out["laplace_scale"] == pytest.approx(2 * shift / epsilon, rel=1e-10)
    assert 10 ** out["log10_laplace_scale"] == pytest.approx(out["laplace_scale"], rel=1e-10)
    assert (out["epsilon"], out["epsilon_prime"], out["log_delta"]) == (epsilon, epsilon, log_delta)
    assert out["omega"] == pytest.approx(math.exp(log_omega))
