"""Algorithm 11's Laplace step for d > 1 (Lin et al., Definition 33 and the proof of Theorem 11): the exact pure
epsilon against references computed here without the module's closed form."""

from __future__ import annotations

import math
from pathlib import Path

import numpy as np
import pytest
from scipy.stats import laplace

from dplab.audit.alg11_laplace_step import (
    alg11_noise_scale,
    beta_hat_mass_below_over_delta,
    laplace_step_delta_bracket,
    laplace_step_epsilon,
    laplace_step_epsilon_grid,
    laplace_step_hockey_stick,
    worst_pair_difference,
)
from dplab.studies.purification.alg11_dimension import alg11_dimension_table

PARAMS = {
    "dimensions": [1, 2, 4, 8, 16],
    "epsilon": 0.7,
    "local_sensitivities": [2.5],
    "diameter": 100.0,
    "n_beta": 3,
    "n_grid": 2001,
}


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
    frame = alg11_dimension_table(PARAMS)
    assert len(frame) == 10
    assert (frame["delta_ratio_lower"] <= frame["delta_ratio_upper"]).all()
    assert (frame["delta_ratio_upper"] <= frame["event_bound_ratio"] * (1 + 1e-12)).all()
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
        (lambda: laplace_step_delta_bracket(1.0, 1.0, 2, "as_printed", -5.0, 0), "n_beta"),
        (lambda: beta_hat_mass_below_over_delta(1.0, 1.0, -1.0, -5.0), "epsilon"),
    ],
)
def test_bad_arguments_are_named(call, name):
    with pytest.raises(ValueError, match=name):
        call()


def test_summary_has_one_row_per_d_with_the_printed_and_corrected_steps():
    from dplab.studies.purification.tables import summarise_alg11_dimension

    summary = summarise_alg11_dimension(alg11_dimension_table(PARAMS), PARAMS)
    assert list(summary["d"]) == PARAMS["dimensions"]
    printed = summary["pure ε of the step, Lap(β̂/ε) (printed)"].to_numpy()
    corrected = summary["pure ε, Lap(√d β̂/ε) (corrected)"].to_numpy()
    assert np.allclose(printed, 0.7 * np.sqrt(PARAMS["dimensions"]), rtol=1e-12)
    assert np.allclose(corrected, 0.7, rtol=1e-12)
    assert np.allclose(summary["ε + step + ε′ (printed; upper bound)"], 1.4 + printed, rtol=1e-12)


def test_beta_hat_mass_is_the_laplace_cdf_over_delta():
    eps, ls, log_delta = 0.8, 2.0, math.log(1e-3)
    centre = ls + (math.log(2.0) - log_delta) / eps
    for beta in (0.5, 3.0, centre - 0.1, centre + 0.7, centre + 20.0):
        reference = laplace.cdf(beta, loc=centre, scale=1 / eps) / 1e-3
        assert beta_hat_mass_below_over_delta(beta, ls, eps, log_delta) == pytest.approx(reference, rel=1e-10)
    assert beta_hat_mass_below_over_delta(ls, ls, eps, log_delta) == pytest.approx(0.25, rel=1e-12)


def test_hockey_stick_brackets_the_one_dimensional_closed_form():
    """d = 1, shift s = Delta eps/beta_hat > eps: H_eps = 1 - exp((eps - s)/2) for the Laplace pair."""
    eps, ls, beta = 1.0, 3.0, 1.5
    s = ls * eps / beta
    exact = 1 - math.exp((eps - s) / 2)
    upper = laplace_step_hockey_stick(beta, ls, eps, 1, "as_printed", pessimistic=True)
    lower = laplace_step_hockey_stick(beta, ls, eps, 1, "as_printed", pessimistic=False)
    assert lower <= exact + 1e-12 <= upper + 2e-12
    assert upper - lower < 0.02


def test_hockey_stick_brackets_a_monte_carlo_estimate_at_d4():
    """H_eps = E_P[(1 - exp(eps - L))_+], L the privacy loss of the product Laplace pair: 400k draws, 5 sigma."""
    eps, ls, beta, d = 1.0, 1.0, 0.8, 4
    scale, v = alg11_noise_scale(beta, eps, d, "as_printed"), worst_pair_difference(d, ls)
    y = np.random.default_rng(40).laplace(0.0, scale, size=(400_000, d))
    loss = (np.abs(y + v) - np.abs(y)).sum(axis=1) / scale
    terms = np.maximum(1 - np.exp(eps - loss), 0.0)
    half_width = 5 * terms.std() / math.sqrt(terms.size)
    upper = laplace_step_hockey_stick(beta, ls, eps, d, "as_printed", pessimistic=True)
    lower = laplace_step_hockey_stick(beta, ls, eps, d, "as_printed", pessimistic=False)
    assert lower - half_width <= terms.mean() <= upper + half_width


def test_finer_beta_grid_brackets_nest_inside_coarser_ones():
    log_delta = math.log(1e-20)
    coarse = laplace_step_delta_bracket(3.0, 1.0, 4, "as_printed", log_delta, 3)
    fine = laplace_step_delta_bracket(3.0, 1.0, 4, "as_printed", log_delta, 12)
    assert coarse[0] <= fine[0] * (1 + 1e-9) <= fine[1] * (1 + 1e-9) <= coarse[1] * (1 + 1e-9)
    assert fine[2] == coarse[2] == pytest.approx(math.exp(1.0 * (2 * 3.0 - 3.0)) / 4, rel=1e-12)
    corrected = laplace_step_delta_bracket(3.0, 1.0, 4, "corrected", log_delta, 3)
    assert corrected[1] <= corrected[2] == pytest.approx(0.25, rel=1e-12)


def test_hockey_stick_stays_a_probability_for_huge_shifts():
    """At beta_hat = 1e-3 the shift is ~700 scales: the pessimistic PLD alone would return far more than 1."""
    for pessimistic in (True, False):
        value = laplace_step_hockey_stick(1e-3, 1.0, 1.0, 2, "as_printed", pessimistic=pessimistic)
        assert 0.99 <= value <= 1.0


def test_configured_points_keep_beta_star_below_the_centre_of_beta_hat():
    """The pair reading of the bracket (beta_hat's density ratio exactly e^eps) needs beta* = sqrt(d) Delta below
    Delta + log(2/delta)/eps, with the proof's delta, at every point of config.yaml."""
    from dplab.mechanisms.local_sensitivity import alg11_parameters
    from dplab.workflow.config import load_config

    section = load_config(Path(__file__).resolve().parents[3] / "config.yaml")["purification"]["alg11_dimension"]
    eps = section["epsilon"]
    for ls in section["local_sensitivities"]:
        for d in section["dimensions"]:
            log_delta = alg11_parameters(section["diameter"], eps, d).log_delta
            assert math.sqrt(d) * ls < ls + (math.log(2.0) - log_delta) / eps
