"""E1 (our empirical companion): SGLD exactly as Algorithm 1 of He-Wang-Tao on synthetic logistic regression, with the exact risk.

Data: teacher w* ~ N(0, I_d) normalised (one per d); features uniform on the unit sphere (‖x‖ = 1); labels
sign(w*ᵀx) (ties → +1) flipped with probability ρ. Model h_θ(x) = sign(θᵀx); training loss log(1 + e^{−yθᵀx}), whose
per-example gradient −y·sigmoid(−yθᵀx)·x has norm ≤ ‖x‖ = 1, so L = 1 with no clipping. Evaluation is the 0-1 error
(in [0, 1], as Theorem 1 needs; a post-processing of the DP output). Exact risk, by rotation invariance of x:

    R(θ) = ρ + (1 − 2ρ)·arccos(θᵀw*/‖θ‖)/π.

SGLD (Algorithm 1): θ_0 ~ N(0, init_std²I), each step a uniform batch of τ without replacement, then
θ ← θ − η[(1/τ)Σ_B ∇ℓ + g], g ~ N(0, σ²I). The quantity judged is the signed gap R − R̂ and its expectation over
training sets, E_S[R(A(S)) − R̂_S(A(S))], the left side of Theorem 2's on-average bound.

Replication is at the level of training sets: each (d, N) block of the grid has ``datasets`` independent training
sets (each its own derived seed from (d, N, dataset index); the teacher, hence the population, is shared: by
rotation invariance of x, θ_0 and g the law of the gap does not depend on which unit teacher is drawn), and
``runs`` SGLD runs on each at every σ of the block. One observation is a training set's mean gap over its runs;
intervals are Student-t over the training sets. A sweep point is one (d, N), up to ``cell_records`` training records
and, if its block sets ``split_sigmas``, one σ of the block (otherwise every σ of the block); it trains all its sets,
σs and runs as the rows of one torch batch (:func:`sgld_runs`) from its own generator, derived from (d, N, σ, first
training set), or from (d, N, first training set) for a point of every σ. Every checkpoint of one run is recorded (the prefix of a run is
distributed exactly like a shorter run).
"""

from __future__ import annotations

import functools
from collections.abc import Callable, Iterable, Mapping, Sequence
from typing import Any

import numpy as np
import pandas as pd
import torch
from scipy import stats

from dplab.learning.engine import subset_and_noise_steps
from dplab.learning.losses import linear_margins
from dplab.seeding import derive_seed
from dplab.studies.generalization.curves import sgld_bound_columns
from dplab.studies.generalization.plan import block_of

__all__ = [
    "make_data",
    "exact_risk",
    "zero_one_error",
    "sgld_runs",
    "t_interval",
    "e1_cell_records",
    "e1_summary",
    "compute_table_empirical",
]

Progress = Callable[[Iterable[Any]], Iterable[Any]]


def make_data(
    n: int, d: int, rho: float, rng: np.random.Generator, teacher: np.ndarray | None = None
) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """(X, y, w*): n points uniform on the unit sphere of R^d, labels sign(w*ᵀx) (ties +1) flipped w.p. ρ."""
    if teacher is None:
        teacher = rng.standard_normal(d)
        teacher /= np.linalg.norm(teacher)
    g = rng.standard_normal((n, d))
    X = g / np.linalg.norm(g, axis=1, keepdims=True)
    clean = np.where(X @ teacher >= 0, 1.0, -1.0)
    flip = rng.random(n) < rho
    return X, np.where(flip, -clean, clean), teacher


def exact_risk(theta: np.ndarray, teacher: np.ndarray, rho: float) -> np.ndarray:
    """R(θ) = ρ + (1−2ρ)·arccos(θᵀw*/‖θ‖)/π for each row θ of ``theta`` (‖w*‖ = 1); 1/2 for θ = 0 (always +1)."""
    theta = np.atleast_2d(theta)
    norms = np.linalg.norm(theta, axis=1)
    cosine = np.clip(theta @ teacher / np.where(norms > 0, norms, 1.0), -1.0, 1.0)
    return np.where(norms > 0, rho + (1 - 2 * rho) * np.arccos(cosine) / np.pi, 0.5)


def zero_one_error(theta: np.ndarray, X: np.ndarray, y: np.ndarray) -> np.ndarray:
    """Mean 0-1 error of sign(θᵀx) (ties +1) for each row θ of ``theta``: the share of records where θᵀx ≥ 0 and
    y > 0 disagree (a count of booleans, not an array of ±1 predictions)."""
    positive = X @ np.atleast_2d(theta).T >= 0
    return np.count_nonzero(positive != (y > 0)[:, None], axis=0) / len(y)


@torch.inference_mode()  # no autograd: skips its per-operation bookkeeping (the same values, about 10 % faster)
def sgld_runs(
    X: np.ndarray,
    y: np.ndarray,
    sigmas: Sequence[float],
    params: Mapping[str, Any],
    runs: int,
    generator: torch.Generator,
) -> dict[int, np.ndarray]:
    """θ at every checkpoint of ``runs`` independent SGLD runs (Algorithm 1) at each noise level of ``sigmas`` on
    each of the training sets ``X`` (D, n, d), ``y`` (D, n), as {T: (len(sigmas), D, runs, d)} float64 arrays.

    All S·D·runs runs advance together as the rows of one (S·D·runs, d) float32 tensor, ordered (σ, set, run): each
    step every row draws its own uniform τ-subset of its own set (:func:`dplab.learning.engine.uniform_subsets`),
    takes the mean logistic gradient (1/τ)Σ_B φ′_j x_j with φ′ = −y·sigmoid(−y⟨θ, x⟩) (the gradient of
    :class:`dplab.learning.LogisticLoss`; no per-sample norms, since nothing is clipped: ‖∇ℓ‖ ≤ ‖x‖ = 1) and adds
    g ~ N(0, σ²I) with its row's σ: θ ← θ − η[(1/τ)Σ_B ∇ℓ + g]. This is :func:`dplab.learning.run_noisy_gradient`
    with ``sampling="without_replacement"``, ``batch_size=τ`` and ``noise_scale=σ``, except that the engine shares
    one data set and one σ across its runs. The draws come in the engine's order (θ_0, then per step the batches,
    then the noise; no noise is drawn when every σ is 0), a block of steps ahead
    (:func:`dplab.learning.engine.subset_and_noise_steps`), so for one set and one σ the runs are the engine's
    (tested)."""
    D, n, d = X.shape
    per_sigma = D * runs
    rows, tau, lr = len(sigmas) * per_sigma, int(params["tau"]), float(params["lr"])
    checkpoints = sorted(int(t) for t in params["checkpoints"])
    features = torch.as_tensor(X.reshape(D * n, d), dtype=torch.float32)
    negative_labels = -torch.as_tensor(y.reshape(D * n), dtype=torch.float32)
    first_record_of_set = (torch.arange(rows) % per_sigma // runs * n)[:, None]
    noise_scale = torch.as_tensor(np.repeat(np.asarray(sigmas, dtype=float), per_sigma)[:, None], dtype=torch.float32)
    noisy = bool(np.any(np.asarray(sigmas) > 0))
    w = (params["init_std"] * torch.randn((rows, d), generator=generator, dtype=torch.float64)).to(torch.float32)
    draws = subset_and_noise_steps(
        rows, n, tau, checkpoints[-1], generator, noise_scale=noise_scale if noisy else None, noise_shape=(rows, d),
        dtype=torch.float32,
    )  # fmt: skip
    batch_x, minus_y = torch.empty(rows, tau, d), torch.empty(rows, tau)  # each step's batch, gathered in place
    recorded: dict[int, np.ndarray] = {}
    for t, (subsets, noise) in enumerate(draws, start=1):
        index = (subsets + first_record_of_set).view(-1)
        torch.index_select(features, 0, index, out=batch_x.view(rows * tau, d))
        torch.index_select(negative_labels, 0, index, out=minus_y.view(-1))
        derivative = minus_y * torch.sigmoid(minus_y * linear_margins(w, batch_x))
        step = torch.bmm(derivative.unsqueeze(1), batch_x).squeeze(1).div_(tau)
        if noise is not None:
            step.add_(noise)
        w = w - step.mul_(lr)
        if t in checkpoints:
            recorded[t] = w.to(torch.float64).numpy().reshape(len(sigmas), D, runs, d).copy()
    return recorded


def t_interval(values: np.ndarray, confidence: float) -> tuple[float, float, float]:
    """(mean, low, high): the Student-t interval mean ± t_{(1+c)/2, k−1}·s/√k of k independent observations
    (sample standard deviation s); NaN limits for k < 2."""
    values = np.asarray(values, dtype=float)
    k, mean = values.size, float(np.mean(values))
    if k < 2:
        return mean, float("nan"), float("nan")
    half = float(stats.t.ppf(0.5 + confidence / 2, k - 1) * np.std(values, ddof=1) / np.sqrt(k))
    return mean, mean - half, mean + half


def _teacher(seed: int, d: int) -> np.ndarray:
    """w* of dimension d (unit norm), shared by every training set of that d: one population per d."""
    teacher = np.random.default_rng(derive_seed(seed, "e1-teacher", d)).standard_normal(d)
    return teacher / np.linalg.norm(teacher)


def _training_set(params: Mapping[str, Any], seed: int, teacher: np.ndarray, n: int, dataset: int):
    """(X, y) of training set ``dataset`` of size n, from its own seed (d, n, dataset index)."""
    d = teacher.size
    X, y, _ = make_data(
        n, d, params["rho"], np.random.default_rng(derive_seed(seed, "e1-data", d, n, dataset)), teacher
    )
    if np.max(np.linalg.norm(X, axis=1)) > 1 + 1e-9:
        raise AssertionError("features must have norm <= 1 so that the logistic loss is 1-Lipschitz (L = 1)")
    return X, y


@functools.lru_cache(maxsize=2)
def _held_out_set(seed: int, d: int, n: int, first: int, size: int, rho: float) -> tuple[np.ndarray, np.ndarray]:
    """The held-out set of the points of (d, N, first training set), from its own seed: the same for every σ of a
    block that splits σs, so it is drawn once per process for them (read-only arrays)."""
    held_out = np.random.default_rng(derive_seed(seed, "e1-test", d, n, first))
    X_test, y_test, _ = make_data(size, d, rho, held_out, _teacher(seed, d))
    X_test.setflags(write=False)
    y_test.setflags(write=False)
    return X_test, y_test


def _sgld_seed(params: Mapping[str, Any], seed: int, cell: Mapping[str, Any]) -> int:
    """The seed of a point's SGLD generator: from (d, N, σ, first set) in a block that sets ``split_sigmas``, from
    (d, N, first set) in a block whose points train every σ."""
    d, n, first = (int(cell[k]) for k in ("d", "n", "first_dataset"))
    if block_of(params, n)["split_sigmas"]:
        return derive_seed(seed, "e1-sgld", d, n, float(cell["sigmas"][0]), first)
    return derive_seed(seed, "e1-sgld", d, n, first)


def e1_cell_records(params: Mapping[str, Any], seed: int, progress: Progress, cell: Mapping[str, Any]) -> pd.DataFrame:
    """One row per (σ, dataset, replicate, T) of one point (:func:`dplab.studies.generalization.plan.e1_cells`): train 0-1 error, exact risk, held-out
    error and gap = R − R̂. A training set depends only on (d, n, dataset index), so every σ sees the same sets (the
    σ comparison is paired); the point's SGLD generator (:func:`_sgld_seed`) draws all its σs' runs in one batch and
    does not depend on the sharding. The held-out error only checks the exact-risk formula: it is measured for the
    runs of the point's first set (NaN for the others), so that a point's cost does not grow with test_size × its
    number of sets."""
    d, n, first, count = (int(cell[k]) for k in ("d", "n", "first_dataset", "datasets"))
    teacher = _teacher(seed, d)
    sets = [_training_set(params, seed, teacher, n, first + j) for j in range(count)]
    X, y = np.stack([s[0] for s in sets]), np.stack([s[1] for s in sets])
    X_test, y_test = _held_out_set(seed, d, n, first, int(params["test_size"]), float(params["rho"]))
    runs, sigmas = int(params["runs"]), [float(s) for s in cell["sigmas"]]
    index = pd.MultiIndex.from_product(
        [sigmas, first + np.arange(count), np.arange(runs)], names=["sigma", "dataset", "replicate"]
    )
    checked = index.get_level_values("dataset") == first  # the first set's runs at every σ: the exact-risk check
    generator = torch.Generator().manual_seed(_sgld_seed(params, seed, cell))
    frames = []
    for t, theta in sgld_runs(X, y, sigmas, params, runs, generator).items():
        flat = theta.reshape(-1, d)
        by_set = [zero_one_error(theta[:, k].reshape(-1, d), X[k], y[k]) for k in range(count)]
        # each (σ·run,) in σ-major order; reordered to the (σ, set, run) rows of ``flat``
        train = np.stack(by_set, axis=1).reshape(len(sigmas), runs, count).transpose(0, 2, 1).reshape(-1)
        risk = exact_risk(flat, teacher, params["rho"])
        test_error = np.full(flat.shape[0], np.nan)
        test_error[checked] = zero_one_error(flat[checked], X_test, y_test)
        frame = pd.DataFrame(
            {"train_error": train, "risk": risk, "test_error": test_error, "gap": risk - train}, index=index
        ).reset_index()
        frames.append(frame.assign(d=d, n=n, t=t))
    columns = ["d", "n", "sigma", "dataset", "replicate", "t", "train_error", "risk", "test_error", "gap"]
    return pd.concat(frames, ignore_index=True)[columns].sort_values(
        ["sigma", "dataset", "replicate", "t"], kind="stable", ignore_index=True
    )


_BOUND_FIELDS = (
    "eps_prime",
    "delta_prime",
    "hp_bound",
    "failure_probability",
    "hp_vacuous",
    "on_average",
    "on_average_vacuous",
)
BOUND_COLUMNS = [f"{field}_{variant}" for variant in ("as_printed", "valid") for field in _BOUND_FIELDS]


def _bounds(params: Mapping[str, Any], n: int, sigma: float, steps: np.ndarray) -> pd.DataFrame:
    """Variant P and V bounds side by side, one row per T (columns suffixed _as_printed / _valid)."""
    parts = []
    for variant in ("as_printed", "valid"):
        columns = sgld_bound_columns(
            n, params["tau"], steps, sigma, params["L"], params["delta"], params["delta_tilde"], variant
        )
        parts.append(columns[list(_BOUND_FIELDS)].add_suffix(f"_{variant}"))
    return pd.concat(parts, axis=1)


def _summarise(group: pd.DataFrame, confidence: float) -> pd.Series:
    """One (d, N, σ, T): errors, the signed gap over training sets (each set's mean over its runs is one
    observation, :func:`t_interval`), the effective sample size, and |gap| statistics over all runs for the
    high-probability bound."""
    gaps = group["gap"].to_numpy()
    per_set = group.groupby("dataset")["gap"].mean().to_numpy()
    mean, low, high = t_interval(per_set, confidence)
    variance_of_mean = np.var(per_set, ddof=1) / per_set.size if per_set.size > 1 else np.nan
    return pd.Series(
        {
            "datasets": per_set.size,
            "replicates": gaps.size,
            "train_error": group["train_error"].mean(),
            "risk": group["risk"].mean(),
            "test_error": group["test_error"].mean(),
            "max_abs_risk_minus_test": np.max(np.abs(group["risk"] - group["test_error"])),
            "mean_gap": mean,
            "gap_ci_low": low,
            "gap_ci_high": high,
            # independent runs that would estimate the mean gap as precisely: Var(one run's gap) / Var(mean), at
            # most the number of runs (the estimate exceeds it only by chance, when the sets' means agree closely)
            "effective_sample_size": min(np.var(gaps, ddof=1) / variance_of_mean, gaps.size)
            if variance_of_mean > 0
            else np.nan,
            "mean_abs_gap": np.abs(gaps).mean(),
            "std_abs_gap": np.abs(gaps).std(ddof=1) if gaps.size > 1 else np.nan,
            "max_abs_gap": np.abs(gaps).max(),
        }
    )


def _paired_change(records: pd.DataFrame, confidence: float) -> pd.DataFrame:
    """Per (d, N, σ, T): the change of the mean gap from the smallest σ of (d, N) to σ, paired over the training
    sets (every σ trains on the same sets): each set's mean gap at σ minus its mean gap at the smallest σ is one
    observation, with :func:`t_interval` (0 with a zero-width interval at the smallest σ itself)."""
    per_set = records.groupby(["d", "n", "sigma", "t", "dataset"])["gap"].mean().reset_index()
    reference = per_set.loc[per_set.groupby(["d", "n"])["sigma"].transform("min") == per_set["sigma"]]
    paired = per_set.merge(
        reference.drop(columns="sigma").rename(columns={"gap": "reference_gap"}), on=["d", "n", "t", "dataset"]
    )
    paired["change"] = paired["gap"] - paired["reference_gap"]
    rows = []
    for (d, n, sigma, t), part in paired.groupby(["d", "n", "sigma", "t"]):
        mean, low, high = t_interval(part["change"].to_numpy(), confidence)
        if np.all(part["change"].to_numpy() == 0):
            low = high = 0.0
        rows.append(
            {
                "d": d,
                "n": n,
                "sigma": sigma,
                "t": t,
                "gap_change": mean,
                "gap_change_ci_low": low,
                "gap_change_ci_high": high,
            }
        )
    return pd.DataFrame(rows)


def e1_summary(records: pd.DataFrame, params: Mapping[str, Any]) -> pd.DataFrame:
    """F8's data from the records of every point: per (d, N, σ, T) the means, the signed gap E[R − R̂] with its
    t interval over training sets and the effective sample size, the paired change of the gap from the smallest σ,
    |gap| statistics, both variants' HP (Thm 1) and on-average (Thm 2) bounds with vacuous flags, looseness =
    bound/mean|gap|, and coverage = fraction of runs with |gap| < HP bound."""
    keys = ["d", "n", "sigma", "t"]
    summary = records.groupby(keys).apply(_summarise, params["confidence"], include_groups=False).reset_index()
    summary = summary.astype({"datasets": int, "replicates": int})
    summary = summary.merge(_paired_change(records, params["confidence"]), on=keys)
    frames = []
    for (n, sigma), part in summary.groupby(["n", "sigma"], sort=False):
        part = part.reset_index(drop=True)
        if sigma > 0:
            bounds = _bounds(params, int(n), float(sigma), part["t"].to_numpy(dtype=np.int64))
        else:  # no noise: ε′ = ∞, so no bound (NaN, flagged vacuous); shown only as the gap reference
            bounds = pd.DataFrame({c: (True if "vacuous" in c else np.nan) for c in BOUND_COLUMNS}, index=part.index)
        frames.append(pd.concat([part, bounds], axis=1))
    out = pd.concat(frames, ignore_index=True).sort_values(keys, ignore_index=True)
    for variant in ("as_printed", "valid"):
        bound = out[f"hp_bound_{variant}"]
        out[f"looseness_{variant}"] = bound / out["mean_abs_gap"]
    cover = records.merge(out[keys + ["hp_bound_valid", "hp_bound_as_printed"]], on=keys)
    coverage = (
        cover.assign(
            covered_valid=np.abs(cover["gap"]) < cover["hp_bound_valid"],
            covered_as_printed=np.abs(cover["gap"]) < cover["hp_bound_as_printed"],
        )
        .groupby(keys)[["covered_valid", "covered_as_printed"]]
        .mean()
        .reset_index()
    )
    out = out.merge(
        coverage.rename(columns={"covered_valid": "coverage_valid", "covered_as_printed": "coverage_as_printed"}),
        on=keys,
    )
    for variant in ("as_printed", "valid"):
        out.loc[out["sigma"] == 0, [f"coverage_{variant}"]] = np.nan
        bound = out[f"on_average_{variant}"]  # violated: the whole CI of the mean gap lies outside [−bound, bound]
        out[f"on_average_violated_{variant}"] = (out["gap_ci_low"] > bound) | (out["gap_ci_high"] < -bound)
        out[f"mean_gap_within_on_average_{variant}"] = np.abs(out["mean_gap"]) <= bound
        out.loc[out["sigma"] == 0, [f"on_average_violated_{variant}", f"mean_gap_within_on_average_{variant}"]] = False
    return out


def compute_table_empirical(summary: pd.DataFrame, params: Mapping[str, Any]) -> pd.DataFrame:
    """T4, derived from F8's data (the same runs): the E1 results per (d, N, σ, T): training sets, runs and the
    effective sample size, errors, the signed gap with its t interval over training sets and its paired change from
    the smallest σ, max |gap|, both bounds, vacuous flags, looseness and coverage."""
    columns = [
        "d",
        "n",
        "sigma",
        "t",
        "datasets",
        "replicates",
        "effective_sample_size",
        "train_error",
        "risk",
        "test_error",
        "mean_gap",
        "gap_ci_low",
        "gap_ci_high",
        "gap_change",
        "gap_change_ci_low",
        "gap_change_ci_high",
        "mean_abs_gap",
        "max_abs_gap",
        "hp_bound_as_printed",
        "hp_vacuous_as_printed",
        "hp_bound_valid",
        "hp_vacuous_valid",
        "failure_probability_valid",
        "on_average_valid",
        "on_average_vacuous_valid",
        "on_average_violated_valid",
        "looseness_valid",
        "coverage_valid",
        "coverage_as_printed",
    ]
    return summary[columns]
