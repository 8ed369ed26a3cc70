"""E1 building blocks: synthetic data, the exact risk formula against Monte Carlo with a confidence interval, the
Lipschitz constant L = 1, the vectorised SGLD against the engine, byte-identical reruns and shardings, and the
coverage of the signed gap's interval over training sets."""

from __future__ import annotations

import numpy as np
import pandas as pd
import pytest
import torch
from scipy import stats

from dplab.learning import LogisticLoss, NoisyGradientConfig, per_sample_gradients, run_noisy_gradient
from dplab.learning.engine import uniform_subsets
from dplab.studies.generalization import STUDY
from dplab.studies.generalization.empirical import (
    e1_cell_records,
    e1_summary,
    exact_risk,
    make_data,
    sgld_runs,
    zero_one_error,
)
from dplab.studies.generalization.plan import e1_cells
from dplab.workflow.registry import combine_shards, compute_shard, no_progress, shard_points

PARAMS = dict(
    dims=[5],
    grid=[{"sizes": [300], "sigmas": [0.0, 1.0], "datasets": 3, "split_sigmas": True}],
    checkpoints=[3, 10],
    reference_t=10,
    runs=2,
    cell_records=600,
    tau=20,
    lr=0.05,
    rho=0.1,
    init_std=0.01,
    test_size=1000,
    L=1.0,
    delta=1e-6,
    delta_tilde=1e-6,
    confidence=0.95,
)
JOINT = {**PARAMS, "grid": [{**PARAMS["grid"][0], "split_sigmas": False}]}  # every σ in one point


def test_data_on_sphere_with_flip_rate():
    rng = np.random.default_rng(0)
    X, y, teacher = make_data(50000, 7, 0.1, rng)
    assert np.allclose(np.linalg.norm(X, axis=1), 1.0) and np.linalg.norm(teacher) == pytest.approx(1.0)
    clean = np.where(X @ teacher >= 0, 1.0, -1.0)
    flips = int(np.sum(clean != y))
    low, high = stats.binomtest(flips, 50000).proportion_ci(0.999)
    assert low <= 0.1 <= high


@pytest.mark.parametrize("d", [2, 10, 50])
def test_exact_risk_against_monte_carlo(d):
    rng = np.random.default_rng(d)
    _, _, teacher = make_data(1, d, 0.1, rng)
    theta = np.vstack([teacher + 0.8 * rng.standard_normal(d), -teacher, rng.standard_normal(d)])
    X, y, _ = make_data(200000, d, 0.1, rng, teacher)
    errors = zero_one_error(theta, X, y)
    for risk, error in zip(exact_risk(theta, teacher, 0.1), errors):
        low, high = stats.binomtest(int(round(error * 200000)), 200000).proportion_ci(0.999)
        assert low <= risk <= high
    assert exact_risk(np.zeros((1, d)), teacher, 0.1)[0] == 0.5
    assert exact_risk(teacher[None, :], teacher, 0.1)[0] == pytest.approx(0.1)


def test_logistic_gradients_are_1_lipschitz_on_the_data():
    rng = np.random.default_rng(1)
    X, y, _ = make_data(500, 10, 0.1, rng)
    w = torch.as_tensor(5 * rng.standard_normal((3, 10)))
    grads = per_sample_gradients(LogisticLoss(), w, torch.as_tensor(X), torch.as_tensor(y))
    assert float(torch.linalg.vector_norm(grads, dim=-1).max()) <= 1.0


def test_vectorised_sgld_is_the_engine_on_one_set():
    """One training set and one σ: the batched SGLD draws exactly what run_noisy_gradient draws (θ_0, then batches,
    then noise), so the iterates agree to float32 rounding; two sets at once give different, independent runs."""
    X, y, _ = make_data(300, 5, 0.1, np.random.default_rng(3))
    params = {**PARAMS, "checkpoints": [10, 40]}
    ours = sgld_runs(X[None], y[None], [0.5], params, 4, torch.Generator().manual_seed(11))
    generator = torch.Generator().manual_seed(11)
    w0 = params["init_std"] * torch.randn((4, 5), generator=generator, dtype=torch.float64)
    config = NoisyGradientConfig(
        lr=params["lr"],
        noise="gaussian",
        noise_scale=0.5,
        sampling="without_replacement",
        batch_size=params["tau"],
        steps=40,
    )
    engine = run_noisy_gradient(
        config,
        LogisticLoss(),
        torch.as_tensor(X, dtype=torch.float32),
        torch.as_tensor(y, dtype=torch.float32),
        w0.to(torch.float32),
        runs=4,
        generator=generator,
        dtype=torch.float32,
        progress=False,
    )
    assert ours[40].shape == (1, 1, 4, 5)
    np.testing.assert_allclose(ours[40][0, 0], engine.numpy(), rtol=0, atol=1e-5)
    assert not np.allclose(ours[10], ours[40])


@pytest.mark.parametrize("n", [400, 100, 30])  # sparse subsets (τ² <= n; τ² > n) and dense (top-k) subsets
def test_sgld_runs_equal_the_step_by_step_loop_bit_for_bit(n):
    """sgld_runs draws a block of steps ahead and skips the per-sample norms; its checkpoints equal, bit for bit, the
    step-by-step loop it replaced: per step uniform_subsets, LogisticLoss's factored gradients summed with unit
    weights, then σ-scaled float32 Gaussian noise."""
    sets, runs, d, sigmas, tau = 2, 3, 4, [0.0, 0.7], 20
    rng = np.random.default_rng(12)
    data = [make_data(n, d, 0.1, rng) for _ in range(sets)]
    X, y = np.stack([x for x, _, _ in data]), np.stack([labels for _, labels, _ in data])
    params = {**PARAMS, "checkpoints": [7, 25], "tau": tau}
    ours = sgld_runs(X, y, sigmas, params, runs, torch.Generator().manual_seed(13))
    generator, rows = torch.Generator().manual_seed(13), len(sigmas) * sets * runs
    features, labels = torch.as_tensor(X.reshape(-1, d), dtype=torch.float32), torch.as_tensor(y.reshape(-1))
    offset = (torch.arange(rows) % (sets * runs) // runs * n)[:, None]
    scale = torch.as_tensor(np.repeat(sigmas, sets * runs)[:, None], dtype=torch.float32)
    w = (params["init_std"] * torch.randn((rows, d), generator=generator, dtype=torch.float64)).to(torch.float32)
    for t in range(1, 26):
        index = uniform_subsets(rows, n, tau, generator) + offset
        batch_x, batch_y = features[index], labels.to(torch.float32)[index]
        gradient = LogisticLoss().factored_gradients(w, batch_x, batch_y).weighted_sum(torch.ones(rows, tau))
        noise = torch.randn((rows, d), generator=generator, dtype=torch.float32).mul_(scale)
        w = w - gradient.div_(tau).add_(noise).mul_(params["lr"])
        if t in (7, 25):
            np.testing.assert_array_equal(ours[t], w.to(torch.float64).numpy().reshape(len(sigmas), sets, runs, d))


def e1_records(params, seed):
    return pd.concat([e1_cell_records(params, seed, no_progress, cell) for cell in e1_cells(params)], ignore_index=True)


def test_records_reproducible_and_consistent():
    first = e1_records(PARAMS, 7)
    second = e1_records(PARAMS, 7)
    assert first.to_csv(index=False) == second.to_csv(index=False)
    assert len(first) == 2 * 3 * 2 * 2  # sigmas x datasets x runs x checkpoints
    assert sorted(first["dataset"].unique()) == [0, 1, 2]
    assert np.allclose(first["gap"], first["risk"] - first["train_error"])
    assert not first.equals(e1_records(PARAMS, 8))


def test_points_group_training_sets_by_cell_records():
    cells = e1_cells(PARAMS)  # one point per σ; 600 records per point: two sets of 300, then the third alone
    assert cells == [
        {"d": 5, "n": 300, "sigmas": [sigma], "first_dataset": first, "datasets": count}
        for sigma in (0.0, 1.0)
        for first, count in ((0, 2), (2, 1))
    ]
    assert len(e1_cells({**PARAMS, "cell_records": 1})) == 2 * 3  # at least one set per point
    assert e1_cells(JOINT) == [
        {"d": 5, "n": 300, "sigmas": [0.0, 1.0], "first_dataset": first, "datasets": count}
        for first, count in ((0, 2), (2, 1))
    ]


def test_training_sets_and_csv_independent_of_shards():
    """The sweep through the registry on six points (one σ and one training set each): 1 shard and 3 shards (given
    in another order) give a byte-identical CSV; every (σ, training set) pair has its runs."""
    params = {**PARAMS, "cell_records": 300}
    artifact = STUDY.artifact("f8")
    count = len(artifact.sweep(params))
    assert count == 6
    one = combine_shards(artifact, [compute_shard(artifact, params, 5, range(count))], params)
    three = combine_shards(
        artifact, [compute_shard(artifact, params, 5, range(s, count, 3)) for s in (2, 0, 1)], params
    )
    assert one.to_csv(index=False) == three.to_csv(index=False)
    assert (one["datasets"] == 3).all() and (one["replicates"] == 6).all()
    records = e1_records(params, 5)
    sets = records[records["t"] == 3].groupby(["sigma", "dataset"])["train_error"].size()
    assert sets.to_dict() == {(s, k): 2 for s in (0.0, 1.0) for k in range(3)}


#: The quick configuration's points (dims, blocks, σ, training sets, runs) trained for fewer steps, on a smaller test
#: set: which points exist and the streams each draws from its identity do not depend on the number of steps, so the
#: sharding property is the quick configuration's at a thirtieth of its cost.
FEWER_STEPS = {"checkpoints": [3, 10], "reference_t": 10, "test_size": 2000}


@pytest.fixture(scope="module")
def quick_f8(quick_section):
    """F8's artifact, the quick configuration's parameters (fewer steps), its seed, point count and 1-shard frame."""
    artifact = STUDY.artifact("f8")
    params, seed = {**artifact.params(quick_section), **FEWER_STEPS}, artifact.seed(20200114, "generalization")
    count = len(artifact.sweep(params))
    one = combine_shards(artifact, [compute_shard(artifact, params, seed, range(count))], params)
    return artifact, params, seed, count, one


def test_quick_f8_points_are_one_block_of_each_kind(quick_section):
    artifact = STUDY.artifact("f8")
    params = artifact.params(quick_section)
    blocks = {block["split_sigmas"]: block["sizes"] for block in params["grid"]}
    assert blocks == {True: [1000], False: [10000]}  # one block of each kind
    assert len(artifact.sweep(params)) == 2 * 3 + 2  # 2 dims x (3 σ of N = 1000 + all σ of N = 10^4), one group each
    assert artifact.sweep({**params, **FEWER_STEPS}) == artifact.sweep(params)  # the same points, fewer steps


@pytest.mark.parametrize("shards", [2, 5, 12])
def test_quick_f8_csv_is_byte_identical_for_any_number_of_shards(quick_f8, shards):
    """F8 on the quick configuration's points, as the workflow shards them (:func:`shard_points`): the CSV of 1 shard
    and of 2, 5 and 12 shards (one point each) combined in reverse order are the same bytes."""
    artifact, params, seed, count, one = quick_f8
    assert len(one) and one["t"].max() == 10
    parts = [compute_shard(artifact, params, seed, shard_points(count, shards, i)) for i in range(shards)]
    assert combine_shards(artifact, parts[::-1], params).to_csv(index=False) == one.to_csv(index=False)


def test_a_sigma_point_does_not_depend_on_the_other_sigmas_of_its_block():
    """A point's streams derive from its identity (d, N, σ, first training set): the σ = 1 rows are the same
    whether the block's other noise level is 0 or 0.5, and differ at another seed."""
    other = {**PARAMS, "grid": [{**PARAMS["grid"][0], "sigmas": [0.5, 1.0]}]}
    ones = [e1_records(p, 7).query("sigma == 1.0").reset_index(drop=True) for p in (PARAMS, other)]
    pd.testing.assert_frame_equal(ones[0], ones[1])
    assert not ones[0].equals(e1_records(PARAMS, 8).query("sigma == 1.0").reset_index(drop=True))


def test_a_block_without_split_sigmas_reproduces_the_rows_of_one_batch_of_every_sigma():
    """A block with split_sigmas false trains every σ in one batch from the generator of (d, N, first set): its rows
    are those of the code before the split per σ (the whole frame of ``JOINT`` at seed 7 was byte-identical to it;
    the risks below are its values at T = 10 for set 2 since issue 27 drew τ = 20 of N = 300 with the sparse subset
    sampler, whose stream differs from the top-k keys drawn before), and its σ = 1 rows differ from those of a split
    block."""
    joint = e1_records(JOINT, 7)
    risk = joint.query("t == 10 and dataset == 2")["risk"].to_numpy()
    assert risk.tolist() == [0.1361653293358716, 0.167599632088909, 0.5523391571668972, 0.5407660384328856]
    split = e1_records(PARAMS, 7)
    assert len(joint) == len(split)
    assert not np.array_equal(joint.query("sigma == 1.0")["risk"], split.query("sigma == 1.0")["risk"])


@pytest.fixture(scope="module")
def synthetic_summary():
    """Records with a known mean gap and a known paired change: 1500 independent experiments (one per 'T'), each 8
    training sets x 3 runs; gap = mu + b_set + e_run at σ = 0 and mu + change + b_set + e'_run at σ = 1 (b ~ N(0,
    0.01^2) shared by both σ, e ~ N(0, 0.003^2)), as measured at d = 50, N = 1000 (sets vary 3-4x more than runs)."""
    rng = np.random.default_rng(2026)
    experiments, sets, runs, mu, change = 1500, 8, 3, 0.028, -0.02
    t, dataset, run = (
        a.ravel() for a in np.meshgrid(np.arange(experiments), np.arange(sets), np.arange(runs), indexing="ij")
    )
    by_set = rng.normal(0, 0.01, (experiments, sets))[t, dataset]
    frames = []
    for sigma, mean in ((0.0, mu), (1.0, mu + change)):
        gap = mean + by_set + rng.normal(0, 0.003, t.size)
        frames.append(
            pd.DataFrame(
                {
                    "d": 50,
                    "n": 1000,
                    "sigma": sigma,
                    "dataset": dataset,
                    "replicate": run,
                    "t": t + 1,
                    "train_error": 0.1,
                    "risk": 0.1 + gap,
                    "test_error": 0.1 + gap,
                    "gap": gap,
                }
            )
        )
    records = pd.concat(frames, ignore_index=True)
    return records, e1_summary(records, {**PARAMS, "tau": 100}), mu, change, sets * runs


def _coverage_ci(hits: np.ndarray) -> tuple[float, float]:
    return stats.binomtest(int(hits.sum()), hits.size).proportion_ci(0.999)


def test_gap_interval_covers_the_true_mean_at_its_level(synthetic_summary):
    records, summary, mu, _, _ = synthetic_summary
    noiseless = summary[summary["sigma"] == 0]
    low, high = _coverage_ci((noiseless["gap_ci_low"] <= mu) & (mu <= noiseless["gap_ci_high"]))
    assert low <= 0.95 <= high
    # the old interval, with the 24 runs of an experiment taken as independent, is too narrow: it under-covers
    runs = records[records["sigma"] == 0].groupby("t")["gap"]
    naive_half = stats.t.ppf(0.975, 23) * runs.std(ddof=1) / np.sqrt(24)
    assert ((runs.mean() - mu).abs() <= naive_half).mean() < 0.85


def test_paired_change_interval_covers_the_true_change(synthetic_summary):
    _, summary, _, change, _ = synthetic_summary
    noisy = summary[summary["sigma"] == 1]
    low, high = _coverage_ci((noisy["gap_change_ci_low"] <= change) & (change <= noisy["gap_change_ci_high"]))
    assert low <= 0.95 <= high
    zero = summary[summary["sigma"] == 0]
    assert (zero["gap_change"] == 0).all() and (zero["gap_change_ci_low"] == 0).all()


def test_effective_sample_size_matches_the_design_effect(synthetic_summary):
    """ESS = runs / (1 + (R - 1) ICC) with ICC = 0.01^2 / (0.01^2 + 0.003^2): about 6.3 of 24 runs."""
    _, summary, _, _, replicates = synthetic_summary
    icc = 0.01**2 / (0.01**2 + 0.003**2)
    expected = replicates / (1 + 2 * icc)
    assert np.median(summary["effective_sample_size"]) == pytest.approx(expected, rel=0.15)
    assert (summary["effective_sample_size"] <= replicates).all()
