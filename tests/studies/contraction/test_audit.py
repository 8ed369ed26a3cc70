"""The audit glue: grid sweep, Monte-Carlo bounds from the torch engine, merge, and violation detection."""

import numpy as np
import pandas as pd
import pytest

from dplab.studies.contraction.audit import (
    bound_violations,
    grid_audit,
    merge_audit,
    monte_carlo_audit,
    random_stopping_audit,
    worst_instances,
)

AUDIT = {
    "n": 6,
    "L": 1.0,
    "lr": 0.5,
    "beta_smooth": 0.5,
    "positions": [6, 5],
    "epsilon_max": 1.0,
    "n_epsilon": 5,
    "grid_cells": 100,
    "instances": ["A", "B", "B_swapped"],
    "monte_carlo": {"samples": 40000, "chunk": 20000, "alpha": 0.01},
}
G1 = {"noise": "gaussian", "interval": [0.0, 1.0], "scale": 2.0}
L1 = {"noise": "laplace", "interval": [0.0, 1.0], "scale": 2.0}


@pytest.fixture(scope="module")
def gaussian_run():
    grid, laws = grid_audit(AUDIT, G1, AUDIT["instances"], AUDIT["positions"])
    mc = monte_carlo_audit(AUDIT, G1, grid, laws, seed=3)
    return grid, laws, mc


def test_grid_sweep_shape_and_reference(gaussian_run):
    grid, laws, _ = gaussian_run
    assert len(grid) == 3 * 2 * 5 and len(laws) == 3 * 2 * 2
    for law in laws.values():
        assert law.sum() == pytest.approx(1.0, abs=1e-12)
    # With n = i the last step is a single Gaussian step from a law on [0,1]: the TV (eps = 0) is at most theta_1(1).
    assert grid.query("i == 6 and epsilon == 0")["delta_grid"].max() <= 0.3829249225 + 1e-9


def test_worst_instance_is_per_position(gaussian_run):
    grid, _, _ = gaussian_run
    worst = worst_instances(grid)
    assert set(worst) == {5, 6}
    for i, name in worst.items():
        sums = grid[grid["i"] == i].groupby("instance")["delta_grid"].sum()
        assert sums[name] == sums.max()


def test_monte_carlo_estimate_agrees_with_grid(gaussian_run):
    _, _, mc = gaussian_run
    assert (mc["mc_lower"] <= mc["delta_grid"] + 1e-3).all()
    # point estimate within 5 standard errors of the grid value (binomial, two samples)
    se = np.sqrt(2 * 0.25 / AUDIT["monte_carlo"]["samples"]) * (1 + np.exp(mc["epsilon"]))
    assert (np.abs(mc["mc_estimate"] - mc["delta_grid"]) <= 5 * se).all()
    assert mc["mc_lower"].max() > 0.1  # the bound is informative


def test_monte_carlo_is_reproducible(gaussian_run):
    grid, laws, mc = gaussian_run
    pd.testing.assert_frame_equal(mc, monte_carlo_audit(AUDIT, G1, grid, laws, seed=3))


def test_merge_and_no_violation(gaussian_run):
    grid, _, mc = gaussian_run
    lap_grid, lap_laws = grid_audit(AUDIT, L1, AUDIT["instances"], AUDIT["positions"])
    lap_mc = monte_carlo_audit(AUDIT, L1, lap_grid, lap_laws, seed=4)
    merged = merge_audit(AUDIT, {"G1": G1, "L1": L1}, {"G1": grid, "L1": lap_grid}, {"G1": mc, "L1": lap_mc})
    assert len(merged) == 2 * 2 * 5
    assert set(merged["theorem"]) == {"thm4", "thm3"}
    assert merged.loc[merged["noise"] == "laplace", "bound_prop1"].isna().all()
    violations = bound_violations(merged, ["delta_grid", "mc_lower"], ["bound_theorem"])
    assert violations.empty


def test_violation_is_detected():
    frame = pd.DataFrame({"delta_grid": [0.1, 0.3], "mc_lower": [0.0, 0.0], "bound_theorem": [0.2, 0.2]})
    violations = bound_violations(frame, ["delta_grid", "mc_lower"], ["bound_theorem"])
    assert len(violations) == 1
    assert violations["excess"].iloc[0] == pytest.approx(0.1)


def test_random_stopping_below_theorem5():
    stopping = {"config": "G1", "instances": ["A", "B"], "positions": [1, 6], "epsilon_max": 1.0, "n_epsilon": 3}
    frame = random_stopping_audit(AUDIT, stopping, G1)
    assert (frame["delta_grid"] <= frame["bound_thm5_i"] + 1e-12).all()
    assert (frame["bound_thm5_i"] <= frame["bound_thm5"] + 1e-12).all()


def test_a_position_audited_alone_gives_the_rows_of_the_full_audit(gaussian_run):
    grid, laws, mc = gaussian_run
    alone = [monte_carlo_audit(AUDIT, G1, grid, laws, seed=3, positions=[i]) for i in sorted(mc["i"].unique())]
    pd.testing.assert_frame_equal(pd.concat(alone, ignore_index=True), mc)
