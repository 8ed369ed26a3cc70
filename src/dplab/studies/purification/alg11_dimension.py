"""Algorithm 11 of Lin, Wang, Ma, Wang (App. J.2, Theorem 5 / Theorem 11) for d > 1: the exact pure ε of its
Laplace release step on the worst neighbouring pair, as printed and corrected.

Definition 33 measures the local sensitivity in ℓ2, Δ_Local = max_{X′≃X} ‖q(X) − q(X′)‖₂, but line 2 of
Algorithm 11 adds per-coordinate noise Lap^{⊗d}(β̂/ε), and the proof of Theorem 11 asserts that on the event
β̂ > Δ_Local "q(D) + Lap^{⊗d}(β̂/ε) satisfies (ε, δ)-probabilistic DP".  For the product Laplace density with scale
b the log density ratio of two means differing by v is Σ_j (|y_j − q′_j| − |y_j − q_j|)/b, whose supremum over y
is ‖v‖₁/b (each term is at most |v_j|/b, with equality for y_j beyond both means).  The worst pair of ℓ2 distance Δ
spreads it evenly, v = (Δ/√d)·1 with ‖v‖₁ = √d·Δ, so at the edge of the proof's event (β̂ = Δ_Local = Δ, b = Δ/ε)
the step is exactly √d·ε-DP, not ε.  Corrected: the scale √d·β̂/ε (an ℓ1 bound, since ‖v‖₁ ≤ √d‖v‖₂), or Δ_Local
measured in ℓ1, gives ε for every d.

Only the Laplace step is computed exactly.  The purified output (Algorithm 1 after Proj_Θ) does not factorise over
coordinates: the projection onto the ℓ2 ball Θ and the uniform mixing (which replaces the whole vector) couple
them, and β̂ is shared.  The table states the composition bound the proof of Theorem 11 gives with the exact step,
ε (for β̂) + ε_step + ε′ (Theorem 1), against the printed 3ε: an upper bound on the true ε of the output, not its
exact value.
"""

from __future__ import annotations

import math
from collections.abc import Mapping
from typing import Any

import numpy as np
import pandas as pd
from scipy.stats import laplace

from dplab.checks import choice, positive_finite, whole_number

__all__ = [
    "NOISE_RULES",
    "worst_pair_difference",
    "alg11_noise_scale",
    "laplace_step_epsilon",
    "laplace_step_epsilon_grid",
    "alg11_dimension_table",
]

#: "as_printed": Lap(β̂/ε) per coordinate (Algorithm 11, line 2); "corrected": Lap(√d·β̂/ε) (an ℓ1 bound).
NOISE_RULES = ("as_printed", "corrected")
#: The grid of :func:`laplace_step_epsilon_grid` spans this many noise scales beyond both means.
GRID_HALF_WIDTH_SCALES = 20.0


def worst_pair_difference(d: int, local_sensitivity: float) -> np.ndarray:
    """v = (Δ/√d)·(1, …, 1): the difference q(X) − q(X′) of ℓ2 norm Δ (Definition 33) with the largest ℓ1 norm
    √d·Δ."""
    d = whole_number("d", d)
    return np.full(d, positive_finite("local_sensitivity", local_sensitivity) / math.sqrt(d))


def alg11_noise_scale(beta_hat: float, epsilon: float, d: int, rule: str) -> float:
    """Per-coordinate Laplace scale of Algorithm 11's line 2: β̂/ε as printed, √d·β̂/ε corrected."""
    d = whole_number("d", d)
    choice("rule", rule, NOISE_RULES)
    scale = positive_finite("beta_hat", beta_hat) / positive_finite("epsilon", epsilon)
    return math.sqrt(d) * scale if rule == "corrected" else scale


def laplace_step_epsilon(difference: np.ndarray, scale: float) -> float:
    """Exact pure ε of y ↦ q + Lap^{⊗d}(b) between means q and q′ = q − v: sup_y log p_q(y)/p_q′(y) = ‖v‖₁/b."""
    return float(np.sum(np.abs(np.asarray(difference, float)))) / positive_finite("scale", scale)


def laplace_step_epsilon_grid(difference: np.ndarray, scale: float, n_grid: int) -> float:
    """Numerical reference for :func:`laplace_step_epsilon`: the maximum over a product grid of the log ratio of
    the product Laplace densities (scipy's 1-D log densities), centred means 0 and −v.  The log ratio of a product
    density is the sum of the coordinates' log ratios, so its maximum over a product grid is the sum of the
    coordinates' maxima over their 1-D grids (``n_grid`` points spanning GRID_HALF_WIDTH_SCALES scales beyond both
    means)."""
    whole_number("n_grid", n_grid, minimum=3)
    scale = positive_finite("scale", scale)
    total = 0.0
    for v in np.asarray(difference, float):
        half_width = abs(v) + GRID_HALF_WIDTH_SCALES * scale
        y = np.linspace(-half_width, half_width, int(n_grid))
        total += float(np.max(laplace.logpdf(y, loc=0.0, scale=scale) - laplace.logpdf(y, loc=-v, scale=scale)))
    return total


def alg11_dimension_table(params: Mapping[str, Any], seed: int = 0, progress=None) -> pd.DataFrame:
    """For each d in ``params['dimensions']`` and each noise rule, the exact ε of Algorithm 11's Laplace step on
    the worst pair at the edge of the proof's event β̂ = Δ_Local (``local_sensitivity``), its grid reference, the
    claimed ε, and the composition bound ε + ε_step + ε′ (ε′ = ε, proof of Theorem 11) against Theorem 5's 3ε.
    Columns ``d, rule, epsilon, local_sensitivity, scale, l1_difference, epsilon_step, epsilon_step_grid,
    claimed_step, step_over_claimed, composition_bound, theorem5_claimed``."""
    epsilon = positive_finite("epsilon", params["epsilon"])
    delta_local = positive_finite("local_sensitivity", params["local_sensitivity"])
    rows = []
    for d in params["dimensions"]:
        difference = worst_pair_difference(d, delta_local)
        for rule in NOISE_RULES:
            scale = alg11_noise_scale(delta_local, epsilon, d, rule)
            step = laplace_step_epsilon(difference, scale)
            grid = laplace_step_epsilon_grid(difference, scale, params["n_grid"])
            rows.append((int(d), rule, epsilon, delta_local, scale, float(np.abs(difference).sum()), step, grid))
    columns = ["d", "rule", "epsilon", "local_sensitivity", "scale", "l1_difference", "epsilon_step"]
    frame = pd.DataFrame(rows, columns=[*columns, "epsilon_step_grid"])
    return frame.assign(
        claimed_step=epsilon,
        step_over_claimed=frame["epsilon_step"] / epsilon,
        composition_bound=2.0 * epsilon + frame["epsilon_step"],
        theorem5_claimed=3.0 * epsilon,
    )
