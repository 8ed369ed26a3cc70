"""Figure 3 of Hu, Sanyal, Schölkopf (2024) and its extensions: private logistic regression after (a) non-private
PCA rank reduction with the Table-2 budget adjustment, (b) DP-PCA with half the budget, (c) no pre-processing.

Learner: full-batch DP-GD of :mod:`dplab.learning.engine` (clip C = L = 1, never binding on the unit ball; noise
σ = L√T/(ε₀n) on the mean gradient; projection onto ‖θ‖ ≤ R; average iterate; θ₀ = 0), accounted with Table 1's
DP-GD row (RDP 2αε₀²). Calibration to the overall (ε, δ) (spec §3):
(c) min_α 2αε₀² + log(1/δ)/(α−1) = ε; (a) min_{α≥11} 1.05αε₀²(4 + 12.2²/δ_k²) + log(1/δ)/(α−1) = ε, δ_k the
dataset's eigen-gap (a conditional guarantee); (b) DP-PCA at (ε/2, δ/2) and DP-GD calibrated like (c) at (ε/2, δ/2).
Excess empirical risk: ℓ̂ on π(S) at θ̂ minus ℓ̂ on S at θ* = argmin over ‖θ‖ ≤ R (accelerated projected GD).
Variants of (a) (spec §3, review R4; ``fig3.variants``): ``nonprivate_pca_unconstrained``, the unconstrained DP-GD
of Song et al. (2021) that Prop. 8 invokes (θ₀ = 0, no projection; only A_kᵀθ matters on π(S), so the noise is
effectively k-dimensional), with the (a) budget; ``nonprivate_pca_dim``, the dimension-reduction ablation (DP-GD
in ℝ^k on A_kᵀx, projected onto ‖θ‖ ≤ R) with τ_dim = 2τ_rank, i.e. 24.4/δ_k in the Table-2 form.
Hyper-parameters (T, lr): one stated rule for every method — for each method and ε, the grid point with the smallest
mean excess risk over seeds (non-private selection, as is common in papers; stated on the figure).
"""

from __future__ import annotations

import math
from collections.abc import Mapping
from pathlib import Path
from typing import Any

import numpy as np
import pandas as pd
import torch

from dplab.data.preprocessing_datasets import LowRankDataset
from dplab.learning.dp_pca import dp_pca_subspaces
from dplab.learning.engine import NoisyGradientConfig, run_noisy_gradient
from dplab.learning.losses import LogisticLoss
from dplab.learning.projections import Ball, NoProjection
from dplab.mechanisms.propose_test_release import (
    ptr_distance_statistic,
    ptr_pca_dp_gd,
    ptr_refusal_probability,
    ptr_threshold,
)
from dplab.numerics import project_l2_ball
from dplab.preprocessing import pca_rank_reduce
from dplab.seeding import derive_seed
from dplab.studies.preprocessing.pipeline import load_low_rank, load_preprocessed
from dplab.theory import smooth_rdp as s

__all__ = [
    "METHODS",
    "VARIANTS",
    "calibrate_eps0",
    "dp_gd",
    "logistic_risk",
    "constrained_minimiser",
    "fig3_frame",
    "fig3_points",
    "fig3_point",
    "regime_points",
    "regime_point",
    "compute_ext_ptr",
]

METHODS = ("nonprivate_pca", "dp_pca", "no_preprocessing")
VARIANTS = ("nonprivate_pca_unconstrained", "nonprivate_pca_dim")


def calibrate_eps0(method: str, epsilon: float, delta: float, gap: float | None = None) -> float:
    """The DP-GD privacy parameter ε₀ for the overall (ε, δ) of ``method`` (module docstring)."""
    if method == "no_preprocessing":
        return math.sqrt(s.linear_rdp_coefficient_for_epsilon(epsilon, delta) / 2)
    if method == "dp_pca":
        return math.sqrt(s.linear_rdp_coefficient_for_epsilon(epsilon / 2, delta / 2) / 2)
    if method in ("nonprivate_pca", "nonprivate_pca_unconstrained", "nonprivate_pca_dim"):
        tau = (2 if method == "nonprivate_pca_dim" else 1) * s.PCA_TAU_CONSTANT / float(gap)
        factor = 1.05 * (4 + tau**2)
        return math.sqrt(s.linear_rdp_coefficient_for_epsilon(epsilon, delta, alpha_min=11.0) / factor)
    raise ValueError(f"method={method!r} must be one of {METHODS + VARIANTS}")


def logistic_risk(theta: np.ndarray, X: np.ndarray, y: np.ndarray) -> np.ndarray:
    """ℓ̂_S(θ) = mean log(1 + exp(−y⟨θ, x⟩)) for each row of θ (runs, d)."""
    return np.logaddexp(0.0, -(np.atleast_2d(theta) @ X.T) * y).mean(-1)


def constrained_minimiser(X: np.ndarray, y: np.ndarray, radius: float, steps: int = 3000) -> np.ndarray:
    """θ* = argmin_{‖θ‖≤R} ℓ̂_S(θ) by accelerated projected gradient descent (step 4 = 1/β, β = 1/4)."""
    theta = previous = np.zeros(X.shape[1])
    for t in range(1, steps + 1):
        v = theta + (t - 2) / (t + 1) * (theta - previous)
        gradient = -(X.T @ (y / (1 + np.exp(y * (X @ v))))) / X.shape[0]
        w = v - 4.0 * gradient
        previous, theta = theta, project_l2_ball(w, radius)
    return theta


def dp_gd(
    X: np.ndarray,
    y: np.ndarray,
    eps0: float,
    steps: int,
    lr: float,
    radius: float | None,
    runs: int,
    generator: torch.Generator,
) -> np.ndarray:
    """``runs`` DP-GD outputs (runs, d) with σ = √T/(ε₀n) (Table 1 DP-GD row, L = 1), projected onto ‖θ‖ ≤ radius
    (``radius=None``: unconstrained)."""
    sigma = math.sqrt(steps) / (eps0 * X.shape[0])
    projection = NoProjection() if radius is None else Ball(radius)
    config = NoisyGradientConfig(
        lr=lr,
        noise="gaussian",
        noise_scale=sigma,
        clip_norm=1.0,
        projection=projection,
        sampling="full_batch",
        steps=steps,
        stopping="average",
    )
    return run_noisy_gradient(
        config, LogisticLoss(), X, y, np.zeros(X.shape[1]), runs=runs, generator=generator, progress=False
    ).numpy()


def fig3_frame(
    data: LowRankDataset,
    reduced: Mapping[str, np.ndarray],
    params: Mapping[str, Any],
    seed: int,
    progress,
    methods: tuple[str, ...] = METHODS,
) -> pd.DataFrame:
    """Excess risk of every method × ε × (T, lr) × seed on one dataset (``reduced``: its PCA ``"pca_rank"`` and,
    for the dimension-reduction variant, ``"pca_dim"`` reductions, from the ``preprocess`` rule), with the selected
    (T, lr) flagged."""
    delta, radius, seeds, k = float(params["delta"]), float(params["radius"]), int(params["seeds"]), data.k
    X, y = data.X, data.y
    best = float(logistic_risk(constrained_minimiser(X, y, radius), X, y)[0])
    rows = []
    for epsilon in progress(params["epsilons"]):
        rng = np.random.default_rng(derive_seed(seed, "dp_pca", epsilon))
        subspaces = dp_pca_subspaces(X, k, epsilon / 2, delta / 2, rng, runs=seeds)
        for steps in params["steps"]:
            for lr in params["lrs"]:
                for method in methods:
                    eps0 = calibrate_eps0(method, float(epsilon), delta, data.gap)
                    gen = torch.Generator().manual_seed(derive_seed(seed, method, epsilon, steps, lr) % 2**62)
                    if method == "dp_pca":
                        features = [X @ A @ A.T for A in subspaces]
                        thetas = np.vstack([dp_gd(F, y, eps0, steps, lr, radius, 1, gen) for F in features])
                        risks = np.array([logistic_risk(t, F, y)[0] for t, F in zip(thetas, features)])
                    else:
                        F = {"nonprivate_pca_dim": reduced.get("pca_dim"), "no_preprocessing": X}.get(
                            method, reduced["pca_rank"]
                        )
                        bound = None if method == "nonprivate_pca_unconstrained" else radius
                        risks = logistic_risk(dp_gd(F, y, eps0, steps, lr, bound, seeds, gen), F, y)
                    rows += [
                        {
                            "method": method,
                            "epsilon": float(epsilon),
                            "seed": r,
                            "excess_risk": float(v - best),
                            "steps": int(steps),
                            "lr": float(lr),
                            "eps0": eps0,
                            "sigma": math.sqrt(steps) / (eps0 * X.shape[0]),
                            "delta": delta,
                            "n": X.shape[0],
                            "d": X.shape[1],
                            "k": k,
                            "gap": data.gap,
                            "radius": radius,
                        }
                        for r, v in enumerate(risks)
                    ]
    frame = pd.DataFrame(rows)
    means = frame.groupby(["method", "epsilon", "steps", "lr"])["excess_risk"].mean().reset_index()
    chosen = means.loc[
        means.groupby(["method", "epsilon"])["excess_risk"].idxmin(), ["method", "epsilon", "steps", "lr"]
    ]
    chosen["selected"] = True
    frame = frame.merge(chosen, on=["method", "epsilon", "steps", "lr"], how="left")
    frame["selected"] = frame["selected"].fillna(False).astype(bool)
    return frame


def fig3_points(params: Mapping[str, Any]) -> list[dict[str, float]]:
    """Figure 3's sweep points: one per overall ε (every (T, lr), method and seed of an ε is one point's work)."""
    return [{"epsilon": float(epsilon)} for epsilon in params["epsilons"]]


def fig3_point(
    params: Mapping[str, Any], seed: int, progress, point: Mapping[str, float], inputs: Mapping[str, Path]
) -> pd.DataFrame:
    """Figure 3 at one ε on the workflow's approximately low-rank dataset ``fig3`` and its PCA rank reduction (each
    ε's streams derive from ``seed`` and ε, and (T, lr) is selected per ε, so an ε is computed on its own)."""
    reduced = {step: load_preprocessed(inputs[step]).values for step in ("pca_rank", "pca_dim")}
    methods = METHODS + VARIANTS if params["variants"] else METHODS
    at_epsilon = {**params, "epsilons": [point["epsilon"]]}
    return fig3_frame(load_low_rank(inputs["data"]), reduced, at_epsilon, seed, progress, methods)


def regime_points(params: Mapping[str, Any]) -> list[dict[str, int]]:
    """The regime sweep's points: one per regime (n, d, k, scale)."""
    return [{"regime": index} for index in range(len(params["regimes"]))]


def regime_point(
    params: Mapping[str, Any], seed: int, progress, point: Mapping[str, int], inputs: Mapping[str, Path]
) -> pd.DataFrame:
    """The Fig. 3 comparison in one regime (n, d, k, scale → eigen-gap); selected (T, lr) rows only."""
    index = int(point["regime"])
    data = load_low_rank(inputs[f"data_regime{index}"])
    reduced = {"pca_rank": load_preprocessed(inputs[f"pca_rank_regime{index}"]).values}
    frame = fig3_frame(data, reduced, params, derive_seed(seed, "regime_run", index), progress)
    frame = frame[frame["selected"]].copy()
    frame["regime"] = index
    frame["d_over_n"] = data.X.shape[1] / data.X.shape[0]
    return frame.reset_index(drop=True)


def compute_ext_ptr(params: Mapping[str, Any], seed: int, progress, inputs: Mapping[str, Path]) -> pd.DataFrame:
    """Algorithm 1 on a large-gap and a small-gap dataset: refusal rate (empirical and exact), utility of released
    runs, and the unconditional (ε, δ) of Theorem 7 as printed and corrected."""
    eps, delta, beta, k = float(params["eps"]), float(params["delta"]), float(params["beta"]), int(params["k"])
    n, runs = int(params["n"]), int(params["runs"])
    accounting = s.theorem7_epsilon(eps, beta, delta)
    corrected = s.theorem7_epsilon_corrected(eps, beta, delta, n)
    rows = []
    for name in progress(("large_gap", "small_gap")):
        rng = np.random.default_rng(derive_seed(seed, "ptr", name))
        data = load_low_rank(inputs[f"ptr_{name}"])
        statistic = ptr_distance_statistic(data.X, k, beta)
        thetas = ptr_pca_dp_gd(
            data.X,
            data.y,
            k,
            beta,
            eps,
            delta,
            int(params["steps"]),
            float(params["lr"]),
            float(params["radius"]),
            rng,
            torch.Generator().manual_seed(derive_seed(seed, name) % 2**62),
            runs,
        )
        released = np.all(np.isfinite(thetas), axis=1)
        best = float(logistic_risk(constrained_minimiser(data.X, data.y, float(params["radius"])), data.X, data.y)[0])
        excess = (
            logistic_risk(thetas[released], pca_rank_reduce(data.X, k), data.y) - best
            if released.any()
            else np.array([np.nan])
        )
        rows.append(
            {
                "dataset": name,
                "gap": data.gap,
                "beta": beta,
                "eps": eps,
                "delta": delta,
                "n": n,
                "d": int(params["d"]),
                "runs": runs,
                "statistic": statistic,
                "threshold": ptr_threshold(eps, delta),
                "refusal_rate": float(1 - released.mean()),
                "refusal_probability_exact": ptr_refusal_probability(statistic, eps, delta),
                "excess_risk_mean": float(np.mean(excess)),
                "excess_risk_se": float(np.std(excess, ddof=1) / math.sqrt(excess.size)) if excess.size > 1 else np.nan,
                "epsilon_total_as_printed": accounting["total"],
                "epsilon_total_corrected": corrected["total"],
                "theorem7_alpha_as_printed": accounting["alpha"],
                "prop8_failure_probability": s.prop8_failure_probability(n, eps, delta, data.gap, beta)
                if data.gap > beta
                else np.nan,
            }
        )
    return pd.DataFrame(rows)
