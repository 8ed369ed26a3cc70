"""Figure 3 of Hu, Sanyal, Schölkopf (2024) and its extensions: private logistic regression after (a) non-private
PCA rank reduction with the Table-2 budget adjustment, (b) DP-PCA with half the budget, (c) no pre-processing.
The learners, the method variants (``fig3.variants``) and the calibration of ε₀ to the overall (ε, δ) under each
protocol (``fig3.protocols``, column ``protocol``; the paper's text says DP-SGD, Sec. 5) are
:mod:`dplab.learning.pca_logistic`.

Excess empirical risk: ℓ̂ on π(S) at θ̂ minus ℓ̂ on S at θ* = argmin over ‖θ‖ ≤ R
(:func:`dplab.learning.erm.constrained_minimiser`).
Hyper-parameters (T, lr): one stated rule for every method — for each protocol, method and ε, the grid point with
the smallest mean excess risk over seeds (non-private selection, as is common in papers; stated on the figure).

DP-SGD (``dp_sgd_poisson``, rate q = ``sgd_batch_size``/n): the noise multiplier is Theorem 13's σ at rate q,
z = q√(cT)/ε₀ with the "corrected" c = 4/(1−q) (the printed c = 2/(1−q) leaves eq. (18)'s factor 2 unpaid; its
z is reported as ``noise_multiplier_as_printed``; :func:`dplab.theory.smooth_rdp.dp_sgd_sampling_noise_multiplier`).
Theorem 13 rests on Lemma G, an asymptotic paraphrase of Abadi et al.'s Lemma 3 whose side conditions the paper
drops, so for every DP-SGD run without pre-processing (methods (c), and (b)'s learner) ``dp_accounting_epsilon``
is dp_accounting's RDP accountant's ε for the same (q, T, z) (Poisson-subsampled Gaussian, add/remove
neighbours, :func:`dplab.accounting.calibration.dpsgd_epsilon`), at δ (at δ/2 for (b)): the check that the paper's
row did not under-charge.
"""

from __future__ import annotations

import hashlib
import itertools
import math
from collections.abc import Mapping
from pathlib import Path
from typing import Any

import numpy as np
import pandas as pd
import torch

from dplab.accounting.calibration import dpsgd_epsilon
from dplab.data.preprocessing_datasets import LowRankDataset
from dplab.learning.dp_pca import dp_pca_subspaces
from dplab.learning.engine import dp_sgd_noise_scale
from dplab.learning.erm import constrained_minimiser, logistic_risk
from dplab.learning.pca_logistic import DP_GD, DP_SGD, METHODS, VARIANTS, calibrate_eps0, dp_gd, dp_sgd, sgd_budget
from dplab.mechanisms.propose_test_release import (
    ptr_distance_statistic,
    ptr_pca_dp_gd,
    ptr_refusal_probability,
    ptr_threshold,
)
from dplab.preprocessing import pca_rank_reduce
from dplab.seeding import derive_seed
from dplab.studies.preprocessing.pipeline import load_low_rank, load_preprocessed
from dplab.theory import smooth_rdp as s

__all__ = [
    "fig3_frame",
    "fig3_point",
    "regime_point",
    "compute_ext_ptr",
]

#: Columns only DP-SGD rows fill (NaN for full-batch DP-GD): module docstring.
SGD_COLUMNS = (
    "noise_multiplier",
    "noise_multiplier_as_printed",
    "alpha",
    "theorem13_alpha_max",
    "dp_accounting_epsilon",
)


def _features(method: str, X: np.ndarray, reduced: Mapping[str, np.ndarray]) -> np.ndarray:
    """The training features of a method without DP-PCA: X for (c), the PCA rank (or dimension) reduction for (a)."""
    return {"nonprivate_pca_dim": reduced.get("pca_dim"), "no_preprocessing": X}.get(method, reduced["pca_rank"])


def _protocol_run(
    protocol: str,
    method: str,
    epsilon: float,
    delta: float,
    gap: float,
    steps: int,
    batch_size: int,
    n: int,
) -> dict[str, Any]:
    """The privacy parameter and noise of one (protocol, method, ε, T): ε₀, the std σ of the noise on the normalised
    gradient, and for DP-SGD the noise multipliers (corrected, as printed), α*, Theorem 13's α range and, without
    pre-processing, dp_accounting's ε of the same noise (module docstring)."""
    if protocol == DP_GD:
        eps0 = calibrate_eps0(method, epsilon, delta, gap)
        return {"eps0": eps0, "sigma": math.sqrt(steps) / (eps0 * n)}
    rate = batch_size / n
    eps0, alpha = sgd_budget(method, epsilon, delta, gap)
    z = s.dp_sgd_sampling_noise_multiplier(eps0, steps, rate, "corrected")
    plain = {"no_preprocessing": delta, "dp_pca": delta / 2}.get(method)
    return {
        "eps0": eps0,
        "sigma": dp_sgd_noise_scale(z, 1.0, batch_size),
        "noise_multiplier": z,
        "noise_multiplier_as_printed": s.dp_sgd_sampling_noise_multiplier(eps0, steps, rate, "as_printed"),
        "alpha": alpha,
        "theorem13_alpha_max": s.theorem13_alpha_max(eps0, steps, n),
        "dp_accounting_epsilon": math.nan if plain is None else dpsgd_epsilon(z, rate, steps, plain),
    }


def _train(
    protocol: str,
    F: np.ndarray,
    y: np.ndarray,
    run: Mapping[str, Any],
    steps: int,
    lr: float,
    radius: float | None,
    batch_size: int,
    runs: int,
    generator: torch.Generator,
) -> np.ndarray:
    """The protocol's learner on features F with the noise of ``run`` (:func:`_protocol_run`)."""
    if protocol == DP_GD:
        return dp_gd(F, y, run["eps0"], steps, lr, radius, runs, generator)
    return dp_sgd(F, y, run["noise_multiplier"], steps, lr, radius, batch_size, runs, generator)


def _generator(seed: int, protocol: str, method: str, epsilon: float, steps: int, lr: float) -> torch.Generator:
    """The noise stream of one (protocol, method, ε, T, lr): full-batch DP-GD keeps its original derivation (its rows
    do not move when protocols are added); DP-SGD streams also derive from the protocol's name."""
    keys = (method, epsilon, steps, lr) if protocol == DP_GD else (protocol, method, epsilon, steps, lr)
    return torch.Generator().manual_seed(derive_seed(seed, *keys) % 2**62)


def _method_risks(
    protocol: str,
    method: str,
    run: Mapping[str, Any],
    data: LowRankDataset,
    reduced: Mapping[str, np.ndarray],
    projected: list[np.ndarray],
    steps: int,
    lr: float,
    params: Mapping[str, Any],
    batch_size: int,
    generator: torch.Generator,
) -> np.ndarray:
    """Empirical risks of one (protocol, method, ε, T, lr), one per seed: DP-PCA trains once on each of its features
    ``projected`` (X A Aᵀ, one per private subspace draw A), the other methods ``seeds`` runs on their fixed
    features."""
    X, y, radius, seeds = data.X, data.y, float(params["radius"]), int(params["seeds"])
    if method == "dp_pca":
        thetas = np.vstack(
            [_train(protocol, F, y, run, steps, lr, radius, batch_size, 1, generator) for F in projected]
        )
        return np.array([logistic_risk(t, F, y)[0] for t, F in zip(thetas, projected)])
    F = _features(method, X, reduced)
    bound = None if method == "nonprivate_pca_unconstrained" else radius
    return logistic_risk(_train(protocol, F, y, run, steps, lr, bound, batch_size, seeds, generator), F, y)


def _reference_risk(X: np.ndarray, y: np.ndarray, radius: float) -> float:
    """ℓ̂ on S = (X, y) at θ* = argmin over ‖θ‖ ≤ R (:func:`dplab.learning.erm.constrained_minimiser`)."""
    return float(logistic_risk(constrained_minimiser(X, y, radius).theta, X, y)[0])


#: :func:`_reference_risk` by (SHA-256 of the data's X and y, radius), computed once per process and data content.
_REFERENCE_RISKS: dict[tuple[str, float], float] = {}


def _shared_reference_risk(data: LowRankDataset, radius: float) -> float:
    """:func:`_reference_risk` of ``data``, once per process and data content: every ε point of a shard job shares
    it (other data, e.g. a file rewritten at the same path, is a new key)."""
    digest = hashlib.sha256()
    for values in (data.X, data.y):
        digest.update(np.ascontiguousarray(values).tobytes())
    key = (digest.hexdigest(), float(radius))
    if key not in _REFERENCE_RISKS:
        _REFERENCE_RISKS[key] = _reference_risk(data.X, data.y, radius)
    return _REFERENCE_RISKS[key]


def _select(frame: pd.DataFrame) -> pd.DataFrame:
    """Flag, per (protocol, method, ε), the (T, lr) with the smallest mean excess risk over seeds (``selected``)."""
    keys = ["protocol", "method", "epsilon", "steps", "lr"]
    means = frame.groupby(keys)["excess_risk"].mean().reset_index()
    chosen = means.loc[means.groupby(["protocol", "method", "epsilon"])["excess_risk"].idxmin(), keys]
    chosen["selected"] = True
    frame = frame.merge(chosen, on=keys, how="left")
    frame["selected"] = frame["selected"].fillna(False).astype(bool)
    return frame


def fig3_frame(
    data: LowRankDataset,
    reduced: Mapping[str, np.ndarray],
    params: Mapping[str, Any],
    seed: int,
    progress,
    methods: tuple[str, ...] = METHODS,
    protocols: tuple[str, ...] = (DP_GD,),
    best: float | None = None,
) -> pd.DataFrame:
    """Excess risk of every protocol × method × ε × (T, lr) × seed on one dataset (``reduced``: its PCA
    ``"pca_rank"`` and, for the dimension-reduction variant, ``"pca_dim"`` reductions, from the ``preprocess``
    rule), with the selected (T, lr) of each (protocol, method, ε) flagged. DP-SGD reads ``params["sgd_batch_size"]``.
    ``best``: ℓ̂ on S at θ* (:func:`_reference_risk`), computed here when None."""
    delta, radius, seeds, k = float(params["delta"]), float(params["radius"]), int(params["seeds"]), data.k
    X, y = data.X, data.y
    n = X.shape[0]
    batch_size = int(params["sgd_batch_size"]) if DP_SGD in protocols else n
    best = _reference_risk(X, y, radius) if best is None else best
    fixed = {"delta": delta, "n": n, "d": X.shape[1], "k": k, "gap": data.gap, "radius": radius}
    rows = []
    for epsilon in progress(params["epsilons"]):
        rng = np.random.default_rng(derive_seed(seed, "dp_pca", epsilon))
        subspaces = dp_pca_subspaces(X, k, epsilon / 2, delta / 2, rng, runs=seeds)
        projected = [X @ A @ A.T for A in subspaces] if "dp_pca" in methods else []  # shared by every (T, lr)
        for protocol, steps, lr, method in itertools.product(protocols, params["steps"], params["lrs"], methods):
            run = _protocol_run(protocol, method, float(epsilon), delta, data.gap, steps, batch_size, n)
            gen = _generator(seed, protocol, method, epsilon, steps, lr)
            risks = _method_risks(protocol, method, run, data, reduced, projected, steps, lr, params, batch_size, gen)
            rows += [
                {"method": method, "epsilon": float(epsilon), "replicate": r, "excess_risk": float(v - best),
                 "steps": int(steps), "lr": float(lr), "eps0": run["eps0"], "sigma": run["sigma"], **fixed,
                 "protocol": protocol, "sampling_rate": (batch_size if protocol == DP_SGD else n) / n,
                 **{key: run.get(key, math.nan) for key in SGD_COLUMNS}}
                for r, v in enumerate(risks)
            ]  # fmt: skip
    return _select(pd.DataFrame(rows))


def fig3_point(
    params: Mapping[str, Any], seed: int, progress, point: Mapping[str, float], inputs: Mapping[str, Path]
) -> pd.DataFrame:
    """Figure 3 at one ε on the workflow's approximately low-rank dataset ``fig3`` and its PCA rank reduction (each
    ε's streams derive from ``seed`` and ε, and (T, lr) is selected per ε, so an ε is computed on its own)."""
    reduced = {step: load_preprocessed(inputs[step]).values for step in ("pca_rank", "pca_dim")}
    methods = METHODS + VARIANTS if params["variants"] else METHODS
    at_epsilon = {**params, "epsilons": [point["epsilon"]]}
    protocols = tuple(params["protocols"])
    data = load_low_rank(inputs["data"])
    best = _shared_reference_risk(data, float(params["radius"]))
    return fig3_frame(data, reduced, at_epsilon, seed, progress, methods, protocols, best)


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


def _ptr_released_risks(
    data: LowRankDataset, params: Mapping[str, Any], seed: int, name: str
) -> tuple[np.ndarray, float]:
    """Algorithm 1 run ``runs`` times on one dataset: the excess risks of the released runs (on the PCA rank
    reduction, against the R-ball minimiser on the raw data; [nan] if none is released) and the refusal rate."""
    eps, delta, beta, k = float(params["eps"]), float(params["delta"]), float(params["beta"]), int(params["k"])
    rng = np.random.default_rng(derive_seed(seed, "ptr", name))
    gen = torch.Generator().manual_seed(derive_seed(seed, name) % 2**62)
    radius, runs = float(params["radius"]), int(params["runs"])
    thetas = ptr_pca_dp_gd(
        data.X, data.y, k, beta, eps, delta, int(params["steps"]), float(params["lr"]), radius, rng, gen, runs
    )
    released = np.all(np.isfinite(thetas), axis=1)
    best = float(logistic_risk(constrained_minimiser(data.X, data.y, radius).theta, data.X, data.y)[0])
    if not released.any():
        return np.array([np.nan]), float(1 - released.mean())
    return logistic_risk(thetas[released], pca_rank_reduce(data.X, k), data.y) - best, float(1 - released.mean())


def compute_ext_ptr(params: Mapping[str, Any], seed: int, progress, inputs: Mapping[str, Path]) -> pd.DataFrame:
    """Algorithm 1 on a large-gap and a small-gap dataset: refusal rate (empirical and exact), utility of released
    runs, the unconditional (ε, δ) of Theorem 7 as printed and corrected, and Λ = Σ_{i>k} λ_i of (1/n)XᵀX (Prop. 8)."""
    eps, delta, beta, k = float(params["eps"]), float(params["delta"]), float(params["beta"]), int(params["k"])
    n, runs = int(params["n"]), int(params["runs"])
    accounting = s.theorem7_epsilon(eps, beta, delta)
    corrected = s.theorem7_epsilon_corrected(eps, beta, delta, n)
    rows = []
    for name in progress(("large_gap", "small_gap")):
        data = load_low_rank(inputs[f"ptr_{name}"])
        statistic = ptr_distance_statistic(data.X, k, beta)
        excess, refusal = _ptr_released_risks(data, params, seed, name)
        rows.append(
            {"dataset": name, "gap": data.gap, "beta": beta, "eps": eps, "delta": delta, "n": n,
             "d": int(params["d"]), "runs": runs, "statistic": statistic, "threshold": ptr_threshold(eps, delta),
             "refusal_rate": refusal, "refusal_probability_exact": ptr_refusal_probability(statistic, eps, delta),
             "excess_risk_mean": float(np.mean(excess)),
             "excess_risk_se": float(np.std(excess, ddof=1) / math.sqrt(excess.size)) if excess.size > 1 else np.nan,
             "epsilon_total_as_printed": accounting["total"], "epsilon_total_corrected": corrected["total"],
             "theorem7_alpha_as_printed": accounting["alpha"],
             "prop8_failure_probability": s.prop8_failure_probability(n, eps, delta, data.gap, beta)
             if data.gap > beta else np.nan,
             "tail_eigenvalue_sum": float(np.sum(data.eigenvalues[k:]))}
        )  # fmt: skip
    return pd.DataFrame(rows)
