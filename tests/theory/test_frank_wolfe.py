"""Theory of the purified DP Frank-Wolfe method (Algorithm 7, Theorem 4): Algorithm 7's check values, the scales,
and the bounds written out by hand."""

import math

import pytest

from dplab.theory.frank_wolfe import (
    algorithm6_laplace_scale,
    algorithm7_parameters,
    frank_wolfe_steps,
    lemma28_bound,
    lemma30_lower_bound,
    lemma46_recovery_bound,
    pure_frank_wolfe_laplace_scale,
    purification_term_as_printed,
    purification_term_corrected,
    sketch_dimension,
    theorem4_rate,
)


def test_algorithm7_check_values_at_n_1e4_d_1000():
    """n = 1e4, d = 1000, eps = 1, ||C||_1 = beta = L1 = 1: T = 100, k = 240, log(1/delta) = 3534.35, Delta =
    5.16398e-5 = 8/(n sqrt k), xi = 0.0514767, Algorithm 6's scale 0.168151."""
    p = algorithm7_parameters(10**4, 1000, 1.0, 1.0, 1.0, 1.0)
    assert (p.steps, p.sketch_dim) == (100, 240)
    assert -p.log_delta == pytest.approx(3534.35, abs=0.005)
    assert p.shift == pytest.approx(5.16398e-5, rel=1e-5)
    assert p.shift == pytest.approx(8.0 / (1e4 * math.sqrt(240)), rel=1e-12)
    assert p.tolerance == pytest.approx(0.0514767, rel=1e-6)
    assert p.fw_scale == pytest.approx(0.168151, rel=1e-5)
    assert p.purification_scale == pytest.approx(2 * p.shift, rel=1e-15)


def test_log_inv_delta_is_k_log_nk_plus_log_n_over_2():
    p = algorithm7_parameters(5000, 300, 0.5, 2.0, 1.0, 1.0)
    assert -p.log_delta == pytest.approx(p.sketch_dim * math.log(5000 * p.sketch_dim) + math.log(5000 / 2), rel=1e-14)


def test_steps_and_sketch_dimension():
    assert frank_wolfe_steps(10**4, 0.5, 2.0, 1.0, 1.0) == 50  # sqrt(1e4 * 0.5 / 2) = 50
    assert frank_wolfe_steps(101, 1.0, 1.0, 1.0, 1.0) == 11
    assert sketch_dimension(10**4, 1000, 50) == math.ceil(50 * math.log(20) + math.log(1e4))
    assert sketch_dimension(10**4, 30, 40) == 30  # T >= d: k = d
    assert sketch_dimension(10**4, 100, 10) == min(100, math.ceil(10 * math.log(10) + math.log(1e4)))


def test_scales():
    assert algorithm6_laplace_scale(100, 2.0, 8, 10.0, 3.0, 0.5) == pytest.approx(3 * 0.5 * math.sqrt(640) / 200)
    assert pure_frank_wolfe_laplace_scale(100, 2.0, 8, 3.0, 0.5) == pytest.approx(2 * (3 * 0.5 / 100) * 8 / 2.0)


def test_eq15_middle_line_is_4_sqrt_t_over_k_times_the_printed_line():
    n, k, steps = 10**4, 240, 100
    printed = purification_term_as_printed(n, k, 1.0, 2.0, 1.0)
    assert printed == pytest.approx(64 / math.sqrt(3) * 2 * (k + math.log(n)) / n, rel=1e-14)
    corrected = purification_term_corrected(n, k, steps, 1.0, 2.0, 1.0)
    assert corrected == pytest.approx(256 / math.sqrt(3) * math.sqrt(steps / k) * 2 * (k + math.log(n)) / n)
    assert purification_term_corrected(n, 16 * steps, steps, 1.0, 2.0, 1.0) == pytest.approx(
        purification_term_as_printed(n, 16 * steps, 1.0, 2.0, 1.0), rel=1e-12
    )


def test_lemma46_and_rates():
    assert lemma46_recovery_bound(9, 0.1) == pytest.approx(4 * 3 * 0.1 / math.sqrt(0.75))
    assert theorem4_rate(100, 4.0, 2.0, 1.0, 1.0) == pytest.approx(math.sqrt(2 / 400))
    assert lemma30_lower_bound(10, 10, 0.01) == 1.0  # log 11 > 0.1 + log 4
    assert lemma30_lower_bound(10**4, 99, 1.0) == pytest.approx(math.sqrt(math.log(100) / (1e4 + math.log(4))))
    assert lemma28_bound(100, 5, 1.0, 4, 10.0, 1.0, 2.0, 1.0) == pytest.approx(
        2 / 4 + math.sqrt(8 * 4 * 10) / 100 * math.log(4 * 10)
    )
