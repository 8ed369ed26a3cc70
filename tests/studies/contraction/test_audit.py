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


def _audit_inputs(tmp_path, names):
    """The pipeline products of rule contraction_audit_grid for ``names``, written as the rule writes them."""
    from dplab.report.io import write_csv

    inputs = {}
    for name in names:
        grid, laws = grid_audit(AUDIT, SWEEP_AUDIT["configs"][name], AUDIT["instances"], AUDIT["positions"])
        inputs[f"{name}_grid"], inputs[f"{name}_laws"] = tmp_path / f"{name}_grid.csv", tmp_path / f"{name}_laws.npz"
        write_csv(grid, inputs[f"{name}_grid"])
        np.savez_compressed(inputs[f"{name}_laws"], **laws)
    return inputs


SWEEP_AUDIT = {**AUDIT, "run": ["G1", "L1", "G2"], "configs": {"G1": G1, "L1": L1, "G2": {**G1, "scale": 3.0}}}


def test_the_audit_sweep_gives_the_rows_of_the_layout_with_one_job_per_position_whatever_the_sharding(tmp_path):
    """Independent reference: the former jobs, one Monte-Carlo CSV per (configuration, position) seeded from the base
    seed, the rule name and the configuration, merged from the files. The sweep must give the same CSV bytes."""
    from dplab.report.io import write_csv
    from dplab.seeding import derive_seed
    from dplab.studies.contraction import STUDY
    from dplab.workflow.registry import combine_shards, compute_shard, shard_points

    inputs = _audit_inputs(tmp_path, ["G1", "G2"])
    artifact = STUDY.artifact("ext_audit_gaussian")
    points = artifact.sweep(SWEEP_AUDIT)
    assert points == [{"config": c, "i": i} for c in ("G1", "G2") for i in (5, 6)]
    base = 20200114
    grids, mcs = {}, {}
    for name in ("G1", "G2"):
        grids[name] = pd.read_csv(inputs[f"{name}_grid"])
        with np.load(inputs[f"{name}_laws"]) as archive:
            laws = {key: archive[key] for key in archive.files}
        seed = derive_seed(base, "contraction_audit_mc", name)
        files = []
        for i in sorted(AUDIT["positions"]):
            files.append(tmp_path / f"mc_{name}_{i}.csv")
            write_csv(
                monte_carlo_audit(AUDIT, SWEEP_AUDIT["configs"][name], grids[name], laws, seed=seed, positions=[i]),
                files[-1],
            )
        mcs[name] = pd.concat([pd.read_csv(f) for f in files], ignore_index=True)
    settings = {name: SWEEP_AUDIT["configs"][name] for name in ("G1", "G2")}
    write_csv(merge_audit(AUDIT, settings, grids, mcs), tmp_path / "reference.csv")
    seed = artifact.seed(base, "contraction")
    for shards in (1, 3):
        parts = [
            compute_shard(artifact, SWEEP_AUDIT, seed, shard_points(4, shards, s), inputs=inputs) for s in range(shards)
        ]
        write_csv(combine_shards(artifact, parts, SWEEP_AUDIT), tmp_path / f"sweep_{shards}.csv")
        assert (tmp_path / f"sweep_{shards}.csv").read_bytes() == (tmp_path / "reference.csv").read_bytes()


def test_the_audit_combine_stops_on_a_measurement_above_a_bound(tmp_path):
    from dplab.studies.contraction import STUDY
    from dplab.studies.contraction.audit import AuditViolation, combine_audit
    from dplab.workflow.registry import compute_shard

    artifact = STUDY.artifact("ext_audit_laplace")
    inputs = _audit_inputs(tmp_path, ["L1"])
    rows = compute_shard(artifact, SWEEP_AUDIT, 1, [0, 1], inputs=inputs).drop(columns="_point")
    assert combine_audit(rows, SWEEP_AUDIT)["bound_prop1"].isna().all()
    lowered = rows.assign(bound_theorem=rows["bound_theorem"].where(rows["mc_lower"] <= 0, 0.0))
    with pytest.raises(AuditViolation, match="measurements exceed a theorem's bound"):
        combine_audit(lowered, SWEEP_AUDIT)


def test_the_random_stopping_artifact_stops_above_theorem5(monkeypatch):
    from dplab.studies.contraction import audit
    from dplab.studies.contraction.audit import AuditViolation, compute_random_stopping

    stopping = {"config": "G1", "instances": ["A", "B"], "positions": [1, 6], "epsilon_max": 1.0, "n_epsilon": 3}
    params = {"audit": SWEEP_AUDIT, "random_stopping": stopping}
    frame = compute_random_stopping(params, 0, iter)
    pd.testing.assert_frame_equal(frame, random_stopping_audit(AUDIT, stopping, G1))
    monkeypatch.setattr(audit, "log_delta_thm5", lambda eps, **kwargs: np.full_like(np.asarray(eps, float), -50.0))
    with pytest.raises(AuditViolation, match="grid values exceed Theorem 5"):
        compute_random_stopping(params, 0, iter)


def test_an_audit_of_a_noise_no_audited_configuration_uses_is_not_declared():
    from dplab.studies.contraction import STUDY

    study_config = {"audit": {**SWEEP_AUDIT, "run": ["G1", "G2"]}, "utility": {"noise_types": ["gaussian"]}}
    assert "ext_audit_laplace" not in STUDY.ids("figure", study_config)
    assert "ext_audit_gaussian" in STUDY.ids("figure", study_config)
    assert STUDY.artifact("ext_audit_laplace").sweep(study_config["audit"]) == []


def test_mirror_image_ties_pick_the_first_instance_by_name():
    """A_swapped's delta exceeds A's by rounding only: both choices (per point and for the Monte-Carlo audit) name A;
    a real gap still decides."""
    from dplab.studies.contraction.audit import worst_instance_per_point, worst_instances

    frame = pd.DataFrame(
        {
            "i": [1, 1, 1, 2, 2],
            "epsilon": [0.0, 0.0, 0.0, 0.0, 0.0],
            "instance": ["A", "A_swapped", "B", "A", "B"],
            "delta_grid": [0.3, 0.3 * (1 + 1e-15), 0.1, 0.2, 0.25],
        }
    )
    per_point = worst_instance_per_point(frame)
    assert per_point["instance"].tolist() == ["A", "B"]
    assert worst_instances(frame) == {1: "A", 2: "B"}
