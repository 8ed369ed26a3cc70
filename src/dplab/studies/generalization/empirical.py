"""E1 (spec §4): SGLD exactly as Algorithm 1 of He-Wang-Tao on synthetic logistic regression, with the exact risk.

Data: teacher w* ~ N(0, I_d) normalised; features uniform on the unit sphere (‖x‖ = 1); labels sign(w*ᵀx) (ties
→ +1) flipped with probability ρ. Model h_θ(x) = sign(θᵀx); training loss log(1 + e^{−yθᵀx}), whose per-example
gradient −y·sigmoid(−yθᵀx)·x has norm ≤ ‖x‖ = 1, so L = 1 with no clipping. Evaluation is the 0-1 error (in
[0, 1], as Theorem 1 needs; a post-processing of the DP output). Exact risk, by rotation invariance of x:

    R(θ) = ρ + (1 − 2ρ)·arccos(θᵀw*/‖θ‖)/π.

SGLD (Algorithm 1): θ_0 ~ N(0, init_std²I), each step a uniform batch of τ without replacement, then
θ ← θ − η[(1/τ)Σ_B ∇ℓ + g], g ~ N(0, σ²I): :func:`dplab.learning.engine.run_noisy_gradient` with
``sampling="without_replacement"``, ``batch_size=τ``, ``noise_scale=σ`` (r ≡ 0). Independent SGLD seeds are the
``runs`` of one engine call; each dataset replicate is its own call. Every checkpoint of one run is recorded (the
prefix of a run is distributed exactly like a shorter run).
"""

from __future__ import annotations

from collections.abc import Callable, Iterable, Mapping
from typing import Any

import numpy as np
import pandas as pd
import torch
from scipy import stats

from dplab.learning import LogisticLoss, NoisyGradientConfig, run_noisy_gradient
from dplab.seeding import derive_seed
from dplab.studies.generalization.curves import sgld_bound_columns

__all__ = [
    "grid_points",
    "make_data",
    "exact_risk",
    "zero_one_error",
    "sgld_runs",
    "e1_cells",
    "e1_cell_records",
    "e1_summary",
    "compute_table_empirical",
]

Progress = Callable[[Iterable[Any]], Iterable[Any]]


def grid_points(params: Mapping[str, Any]) -> list[tuple[int, float]]:
    """The (N, σ) pairs of the configuration's ``grid`` blocks (each block: the product of its sizes and sigmas)."""
    return [(int(n), float(s)) for block in params["grid"] for n in block["sizes"] for s in block["sigmas"]]


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
    """Mean 0-1 error of sign(θᵀx) (ties +1) for each row θ of ``theta``."""
    predictions = np.where(X @ np.atleast_2d(theta).T >= 0, 1.0, -1.0)
    return np.mean(predictions != y[:, None], axis=0)


def sgld_runs(
    X: np.ndarray, y: np.ndarray, sigma: float, params: Mapping[str, Any], runs: int, generator: torch.Generator
) -> dict[int, np.ndarray]:
    """θ at every checkpoint of ``runs`` independent SGLD runs (Algorithm 1), as {T: (runs, d)} float64 arrays."""
    checkpoints = sorted(int(t) for t in params["checkpoints"])
    config = NoisyGradientConfig(
        lr=params["lr"],
        noise="gaussian" if sigma > 0 else "none",
        noise_scale=sigma if sigma > 0 else None,
        sampling="without_replacement",
        batch_size=params["tau"],
        steps=checkpoints[-1],
    )
    recorded: dict[int, np.ndarray] = {}
    wanted = set(checkpoints)

    def record(t: int, w: torch.Tensor) -> None:
        if t in wanted:
            recorded[t] = w.detach().to(torch.float64).numpy().copy()

    w0 = params["init_std"] * torch.randn((runs, X.shape[1]), generator=generator, dtype=torch.float64)
    run_noisy_gradient(
        config,
        LogisticLoss(),
        torch.as_tensor(X, dtype=torch.float32),
        torch.as_tensor(y, dtype=torch.float32),
        w0.to(torch.float32),
        runs=runs,
        generator=generator,
        dtype=torch.float32,
        progress=False,
        on_step=record,
    )
    return recorded


def _dataset(params: Mapping[str, Any], seed: int, d: int, n: int, replicate: int) -> tuple[np.ndarray, ...]:
    """Training set, held-out set and teacher of one (d, n, replicate), from its own derived seed."""
    rng = np.random.default_rng(derive_seed(seed, "e1-data", d, n, replicate))
    X, y, teacher = make_data(n, d, params["rho"], rng)
    X_test, y_test, _ = make_data(params["test_size"], d, params["rho"], rng, teacher)
    if np.max(np.linalg.norm(X, axis=1)) > 1 + 1e-9:
        raise AssertionError("features must have norm <= 1 so that the logistic loss is 1-Lipschitz (L = 1)")
    return X, y, X_test, y_test, teacher


def e1_cells(params: Mapping[str, Any]) -> list[dict[str, int]]:
    """The sweep's points: every (d, N, dataset replicate); each cell trains SGLD at every σ of its N's block."""
    sizes = list(dict.fromkeys(n for n, _ in grid_points(params)))
    return [
        {"d": int(d), "n": n, "dataset": replicate}
        for d in params["dims"]
        for n in sizes
        for replicate in range(params["datasets"])
    ]


def e1_cell_records(params: Mapping[str, Any], seed: int, progress: Progress, cell: Mapping[str, int]) -> pd.DataFrame:
    """One row per (σ, run, T) of one cell (:func:`e1_cells`): train 0-1 error, exact risk, held-out error and
    gap = R − R̂. The dataset depends only on (d, n, replicate), so it is shared by every σ; each σ has its own SGLD
    seed."""
    d, n, dataset = int(cell["d"]), int(cell["n"]), int(cell["dataset"])
    X, y, X_test, y_test, teacher = _dataset(params, seed, d, n, dataset)
    rows = []
    for sigma in [s for size, s in grid_points(params) if size == n]:
        generator = torch.Generator().manual_seed(derive_seed(seed, "e1-sgld", d, n, sigma, dataset))
        thetas = sgld_runs(X, y, sigma, params, params["runs"], generator)
        for t, theta in thetas.items():
            train, risk = zero_one_error(theta, X, y), exact_risk(theta, teacher, params["rho"])
            test = zero_one_error(theta, X_test, y_test)
            for run in range(theta.shape[0]):
                rows.append(
                    {
                        "d": d,
                        "n": n,
                        "sigma": float(sigma),
                        "dataset": dataset,
                        "run": run,
                        "t": t,
                        "train_error": train[run],
                        "risk": risk[run],
                        "test_error": test[run],
                        "gap": risk[run] - train[run],
                    }
                )
    return pd.DataFrame(rows)


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
    gaps = group["gap"].to_numpy()
    k = gaps.size
    sem = gaps.std(ddof=1) / np.sqrt(k) if k > 1 else np.nan
    half = stats.t.ppf(0.5 + confidence / 2, k - 1) * sem if k > 1 else np.nan
    return pd.Series(
        {
            "replicates": k,
            "train_error": group["train_error"].mean(),
            "risk": group["risk"].mean(),
            "test_error": group["test_error"].mean(),
            "max_abs_risk_minus_test": np.max(np.abs(group["risk"] - group["test_error"])),
            "mean_gap": gaps.mean(),
            "gap_ci_low": gaps.mean() - half,
            "gap_ci_high": gaps.mean() + half,
            "mean_abs_gap": np.abs(gaps).mean(),
            "std_abs_gap": np.abs(gaps).std(ddof=1) if k > 1 else np.nan,
            "max_abs_gap": np.abs(gaps).max(),
        }
    )


def e1_summary(records: pd.DataFrame, params: Mapping[str, Any]) -> pd.DataFrame:
    """F8's data from the records of every cell: per (d, n, σ, T) the means over seeds, mean signed gap with its
    confidence interval, |gap| statistics, both variants' HP (Thm 1) and on-average (Thm 2) bounds with vacuous
    flags, looseness = bound/mean|gap|, and coverage = fraction of replicates with |gap| < HP bound."""
    keys = ["d", "n", "sigma", "t"]
    summary = records.groupby(keys).apply(_summarise, params["confidence"], include_groups=False).reset_index()
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
    """T4, derived from F8's data (the same runs): the E1 results per (d, N, σ, T): errors, mean signed gap ± CI,
    max |gap|, both bounds, vacuous flags, looseness and coverage."""
    columns = [
        "d",
        "n",
        "sigma",
        "t",
        "replicates",
        "train_error",
        "risk",
        "test_error",
        "mean_gap",
        "gap_ci_low",
        "gap_ci_high",
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
