"""Algorithm 11's Laplace step for d > 1 (Lin et al., Definition 33 and the proof of Theorem 11): the exact pure
epsilon against references computed here without the module's closed form."""

from __future__ import annotations

import math
import time

import numpy as np
import pytest
from scipy.stats import laplace

from dplab.studies.purification.alg11_dimension import (
    alg11_dimension_table,
    alg11_noise_scale,
    laplace_step_epsilon,
    laplace_step_epsilon_grid,
    worst_pair_difference,
)

PARAMS = {"dimensions": [1, 2, 4, 8, 16], "epsilon": 0.7, "local_sensitivity": 2.5, "n_grid": 2001}


def test_worst_pair_has_l2_norm_delta_and_l1_norm_sqrt_d_delta():
    for d in (1, 2, 4, 8, 16):
        v = worst_pair_difference(d, 2.5)
        assert np.linalg.norm(v, 2) == pytest.approx(2.5, rel=1e-14)
        assert np.linalg.norm(v, 1) == pytest.approx(math.sqrt(d) * 2.5, rel=1e-14)


def test_two_dimensional_grid_sup_of_the_joint_log_ratio_is_sqrt2_eps():
    """A full 2-D grid (no use of separability): sup log p(y)/p'(y) of the product Laplace densities at scale
    Delta/eps, means differing by (Delta/sqrt 2)(1, 1)."""
    eps, delta = 0.7, 2.5
    scale, v = delta / eps, worst_pair_difference(2, delta)
    axis = np.linspace(-15 * scale, 15 * scale, 601)
    y1, y2 = np.meshgrid(axis, axis)
    log_ratio = (
        laplace.logpdf(y1, 0.0, scale)
        + laplace.logpdf(y2, 0.0, scale)
        - laplace.logpdf(y1, -v[0], scale)
        - laplace.logpdf(y2, -v[1], scale)
    )
    assert log_ratio.max() == pytest.approx(math.sqrt(2) * eps, rel=1e-12)
    assert laplace_step_epsilon(v, scale) == pytest.approx(math.sqrt(2) * eps, rel=1e-14)


def test_grid_reference_matches_closed_form_for_uneven_differences():
    v = np.array([0.3, -1.2, 0.0, 2.0])
    assert laplace_step_epsilon_grid(v, 0.9, 4001) == pytest.approx(3.5 / 0.9, rel=1e-12)
    assert laplace_step_epsilon(v, 0.9) == pytest.approx(3.5 / 0.9, rel=1e-14)


def test_table_is_sqrt_d_eps_as_printed_and_eps_corrected():
    start = time.perf_counter()
    frame = alg11_dimension_table(PARAMS)
    assert time.perf_counter() - start < 5.0
    assert len(frame) == 10
    for d, rule, step, grid, composition in frame[
        ["d", "rule", "epsilon_step", "epsilon_step_grid", "composition_bound"]
    ].itertuples(index=False):
        expected = 0.7 * (math.sqrt(d) if rule == "as_printed" else 1.0)
        assert step == pytest.approx(expected, rel=1e-12)
        assert grid == pytest.approx(expected, rel=1e-9)
        assert composition == pytest.approx(2 * 0.7 + expected, rel=1e-12)
    assert np.allclose(frame["theorem5_claimed"], 2.1, rtol=1e-12)


def test_monte_carlo_privacy_loss_reaches_sqrt_d_eps():
    """The privacy loss L(y) = log p(y)/p'(y) of y ~ p at d = 4: its largest draw is the closed-form sup, and its
    mean is the KL divergence sum_j (|v_j|/b + exp(-|v_j|/b) - 1), checked with a 5-sigma interval."""
    eps, delta, d = 1.0, 1.0, 4
    scale, v = delta / eps, worst_pair_difference(d, delta)
    rng = np.random.default_rng(17)
    y = rng.laplace(0.0, scale, size=(200_000, d))
    loss = (np.abs(y + v) - np.abs(y)).sum(axis=1) / scale
    assert loss.max() == pytest.approx(laplace_step_epsilon(v, scale), rel=1e-12)
    kl = float(np.sum(np.abs(v) / scale + np.exp(-np.abs(v) / scale) - 1.0))
    assert abs(loss.mean() - kl) < 5 * loss.std() / math.sqrt(loss.size)


@pytest.mark.parametrize(
    ("call", "name"),
    [
        (lambda: alg11_noise_scale(1.0, 1.0, 2, "l3"), "rule"),
        (lambda: alg11_noise_scale(-1.0, 1.0, 2, "as_printed"), "beta_hat"),
        (lambda: alg11_noise_scale(1.0, 0.0, 2, "as_printed"), "epsilon"),
        (lambda: worst_pair_difference(0, 1.0), "d"),
        (lambda: worst_pair_difference(2, math.nan), "local_sensitivity"),
        (lambda: laplace_step_epsilon(np.ones(2), 0.0), "scale"),
        (lambda: laplace_step_epsilon_grid(np.ones(2), 1.0, 2), "n_grid"),
    ],
)
def test_bad_arguments_are_named(call, name):
    with pytest.raises(ValueError, match=name):
        call()


def test_summary_has_one_row_per_d_with_the_printed_and_corrected_steps():
    from dplab.studies.purification.tables import summarise_alg11_dimension

    summary = summarise_alg11_dimension(alg11_dimension_table(PARAMS), PARAMS)
    assert list(summary["d"]) == PARAMS["dimensions"]
    printed = summary["exact ε of the step, Lap(β̂/ε) (printed)"].to_numpy()
    corrected = summary["exact ε of the step, Lap(√d β̂/ε) (corrected)"].to_numpy()
    assert np.allclose(printed, 0.7 * np.sqrt(PARAMS["dimensions"]), rtol=1e-12)
    assert np.allclose(corrected, 0.7, rtol=1e-12)
    assert np.allclose(summary["ε + step + ε′ (printed; upper bound)"], 1.4 + printed, rtol=1e-12)
