"""ℓ1-constrained DP-ERM with the purified DP Frank-Wolfe method (Algorithm 7, Theorem 4 of Lin, Wang, Ma, Wang):
artifact ``ext_frank_wolfe``, config section ``frank_wolfe``.

Data (per (n, d)): x ~ Unif[−1, 1]^d; θ* with ``sparsity`` non-zeros ±1/sparsity (random support and signs, so
‖θ*‖₁ = 1); y = clip(⟨x, θ*⟩ + noise_sd·N(0, 1), −1, 1).  Loss ½(⟨x, θ⟩ − y)² on 𝒞 = 𝔹₁(1): ‖∇f‖_∞ ≤ 2 and
‖xxᵀv‖_∞ ≤ ‖v‖₁, so L₁ = 2, β = 1, ‖𝒞‖₁ = 1.  Methods at the final level ε_tot (``method``), each over
``replicates`` independent runs on the point's data set:

- ``purified_fw``: Algorithm 7 at ε = ε_tot/2 (2ε-pure = ε_tot), T and k with constants 1
  (:func:`dplab.theory.frank_wolfe.algorithm7_parameters`);
- ``dp_fw_before_purification``: its θ_FW, Algorithm 6 at (ε_tot/2, δ = 2ω/(nk)^k): not pure;
- ``dp_fw_reference``: Algorithm 6 at (ε_tot, 1/n²), T at ε_tot: not pure;
- ``pure_fw_basic``: report-noisy-min at ε_tot/T per step (basic composition), T at ε_tot: pure;
- ``nonprivate_fw``: Algorithm 5 with Algorithm 7's T.

Metric: excess empirical risk ℒ(θ) − ℒ* (ℒ* from :func:`dplab.mechanisms.frank_wolfe.l1_ball_minimiser`, its
duality-gap certificate in ``optimum_gap``); ``score_spread_at_zero`` = max − min of the 2d vertex scores at θ₀ = 0,
2‖𝒞‖₁‖∇ℒ(0)‖_∞, the signal the first noisy selection has to find.  The ``purified_fw`` rows also record ‖θ_pure-d − θ_FW‖₁, ℒ(θ_out) −
ℒ(θ_FW), the Laplace noise ‖z‖₁ against eq. (14)'s ξ (the observable part of the success event), the sparsity of
θ_FW and the bounds of Lemma 46 and eq. (15).

A sweep: one point per (n, d); its data and every run derive from ``seed`` and the point's values only.
"""

from __future__ import annotations

import math
from collections.abc import Callable, Iterable, Iterator, Mapping
from typing import Any

import numpy as np
import pandas as pd

from dplab.mechanisms.frank_wolfe import (
    QuadraticLoss,
    frank_wolfe_l1,
    gaussian_sketch,
    l1_ball_minimiser,
    least_squares_loss,
    purified_frank_wolfe,
)
from dplab.seeding import derive_seed
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
    theorem4_rate,
)

__all__ = [
    "LIPSCHITZ",
    "SMOOTHNESS",
    "L1_RADIUS",
    "sparse_regression_chunks",
    "frank_wolfe_point",
]

LIPSCHITZ = 2.0
SMOOTHNESS = 1.0
L1_RADIUS = 1.0
ADJACENCY = "add_remove"
_CHUNK_ROWS = 10_000


def sparse_regression_chunks(
    n: int, d: int, sparsity: int, noise_sd: float, rng: np.random.Generator
) -> Iterator[tuple[np.ndarray, np.ndarray]]:
    """The data set of the module docstring as (x, y) chunks of at most 10⁴ rows (θ* drawn first)."""
    theta = np.zeros(d)
    support = rng.choice(d, size=sparsity, replace=False)
    theta[support] = rng.choice([-1.0, 1.0], size=sparsity) / sparsity
    for start in range(0, n, _CHUNK_ROWS):
        rows = min(_CHUNK_ROWS, n - start)
        x = rng.uniform(-1.0, 1.0, size=(rows, d))
        yield x, np.clip(x @ theta + noise_sd * rng.standard_normal(rows), -1.0, 1.0)


def _purified_rows(loss: QuadraticLoss, optimum: float, n: int, eps: float, rng: np.random.Generator) -> list[dict]:
    """Algorithm 7 at ε = ε_tot/2: the purified output's row and its θ_FW's row."""
    par = algorithm7_parameters(n, loss.d, eps / 2.0, LIPSCHITZ, SMOOTHNESS, L1_RADIUS)
    theta_fw = frank_wolfe_l1(loss, L1_RADIUS, par.steps, par.fw_scale, rng)
    phi = gaussian_sketch(par.sketch_dim, loss.d, rng)
    stages = purified_frank_wolfe(theta_fw, phi, L1_RADIUS, eps / 2.0, par.log_delta, par.log_omega, par.tolerance, rng)
    noise = float(np.abs(stages.purified_sketch - stages.clipped).sum())
    common = {"steps": par.steps, "sketch_dim": par.sketch_dim, "log_delta": par.log_delta}
    purified = {
        "method": "purified_fw",
        "pure": True,
        **common,
        "laplace_scale": par.purification_scale,
        "excess_risk": loss.value(stages.output) - optimum,
        "loss_gap": loss.value(stages.output) - loss.value(theta_fw),
        "recovery_l1_error": float(np.abs(stages.recovered - theta_fw).sum()),
        "output_l1_error": float(np.abs(stages.output - theta_fw).sum()),
        "noise_l1": noise,
        "tolerance": par.tolerance,
        "within_tolerance": noise <= par.tolerance,
        "clip_active": bool(np.linalg.norm(stages.sketched) > 2.0 * L1_RADIUS),
        "fw_sparsity": int(np.count_nonzero(theta_fw)),
        "lemma46_bound": lemma46_recovery_bound(par.steps, par.tolerance),
        "purification_bound_printed": purification_term_as_printed(n, par.sketch_dim, eps / 2.0, LIPSCHITZ, L1_RADIUS),
        "purification_bound_corrected": purification_term_corrected(
            n, par.sketch_dim, par.steps, eps / 2.0, LIPSCHITZ, L1_RADIUS
        ),
        "lemma28_bound": lemma28_bound(
            n, loss.d, eps / 2.0, par.steps, -par.log_delta, LIPSCHITZ, SMOOTHNESS, L1_RADIUS
        ),
    }
    before = {
        "method": "dp_fw_before_purification",
        "pure": False,
        **common,
        "laplace_scale": par.fw_scale,
        "excess_risk": loss.value(theta_fw) - optimum,
    }
    return [purified, before]


def _baseline_rows(loss: QuadraticLoss, optimum: float, n: int, eps: float, rng: np.random.Generator) -> list[dict]:
    """Algorithm 6 at (ε_tot, 1/n²), the pure basic-composition Frank-Wolfe at ε_tot and Algorithm 5 with
    Algorithm 7's T."""
    steps = frank_wolfe_steps(n, eps, LIPSCHITZ, SMOOTHNESS, L1_RADIUS)
    log_delta = -2.0 * math.log(n)
    scales = {
        "dp_fw_reference": (algorithm6_laplace_scale(n, eps, steps, -log_delta, LIPSCHITZ, L1_RADIUS), log_delta),
        "pure_fw_basic": (pure_frank_wolfe_laplace_scale(n, eps, steps, LIPSCHITZ, L1_RADIUS), -math.inf),
    }
    rows = []
    for method, (scale, log_d) in scales.items():
        theta = frank_wolfe_l1(loss, L1_RADIUS, steps, scale, rng)
        rows.append(
            {
                "method": method,
                "pure": not math.isfinite(log_d),
                "steps": steps,
                "log_delta": log_d,
                "laplace_scale": scale,
                "excess_risk": loss.value(theta) - optimum,
            }
        )
    steps_7 = frank_wolfe_steps(n, eps / 2.0, LIPSCHITZ, SMOOTHNESS, L1_RADIUS)
    theta = frank_wolfe_l1(loss, L1_RADIUS, steps_7, 0.0, rng)
    rows.append(
        {
            "method": "nonprivate_fw",
            "pure": True,
            "steps": steps_7,
            "log_delta": -math.inf,
            "laplace_scale": 0.0,
            "excess_risk": loss.value(theta) - optimum,
        }
    )
    return rows


def _point_columns(loss: QuadraticLoss, optimum: float, gap: float, n: int, eps: float) -> dict[str, Any]:
    return {
        "zero_excess_risk": loss.value(np.zeros(loss.d)) - optimum,
        "score_spread_at_zero": 2.0 * L1_RADIUS * float(np.max(np.abs(loss.linear))),
        "optimum_gap": gap,
        "theorem4_rate": theorem4_rate(n, eps, LIPSCHITZ, SMOOTHNESS, L1_RADIUS),
        "lemma30_lower_bound": lemma30_lower_bound(n, loss.d, eps),
    }


def frank_wolfe_point(
    params: Mapping[str, Any], seed: int, progress: Callable[[Iterable[Any]], Iterable[Any]], point: Mapping[str, Any]
) -> pd.DataFrame:
    """The rows of one point (:func:`dplab.studies.purification.plan.frank_wolfe_points`): every method, ε_tot and replicate on the point's data."""
    n, d = point["n"], point["d"]
    data_rng = np.random.default_rng(derive_seed(seed, "data", n, d))
    loss = least_squares_loss(sparse_regression_chunks(n, d, int(params["sparsity"]), params["noise_sd"], data_rng))
    theta_star, gap = l1_ball_minimiser(loss, L1_RADIUS)
    optimum = loss.value(theta_star)
    records = []
    runs = [(float(eps), r) for eps in params["epsilons_total"] for r in range(int(params["replicates"]))]
    for eps, r in progress(runs):
        rng = np.random.default_rng(derive_seed(seed, "runs", n, d, eps, r))
        head = {"n": n, "d": d, "epsilon_total": eps, "replicate": r, "adjacency": ADJACENCY}
        for row in _purified_rows(loss, optimum, n, eps, rng) + _baseline_rows(loss, optimum, n, eps, rng):
            records.append({**head, **_point_columns(loss, optimum, gap, n, eps), **row})
    frame = pd.DataFrame.from_records(records)
    first = ["method", "pure", "adjacency", "n", "d", "epsilon_total", "replicate"]
    return frame[first + [c for c in frame.columns if c not in first]]
