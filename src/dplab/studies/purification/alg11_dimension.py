"""The table of Algorithm 11's Laplace release step for d > 1 (Lin, Wang, Ma, Wang, App. J.2, Theorem 5 / Theorem
11): exact pure ε as printed and corrected, and the step's δ relative to the proof's δ.  The analysis (why the printed
per-coordinate scale gives √d·ε, and how δ_step is bracketed) is in :mod:`dplab.audit.alg11_laplace_step`."""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

import numpy as np
import pandas as pd

from dplab.audit.alg11_laplace_step import (
    NOISE_RULES,
    alg11_noise_scale,
    laplace_step_delta_bracket,
    laplace_step_epsilon,
    laplace_step_epsilon_grid,
    worst_pair_difference,
)
from dplab.checks import positive_finite
from dplab.mechanisms.local_sensitivity import alg11_parameters

__all__ = ["alg11_dimension_table"]


def alg11_dimension_table(params: Mapping[str, Any], seed: int = 0, progress=None) -> pd.DataFrame:
    """For each local sensitivity Δ (``local_sensitivities``), d (``dimensions``) and noise rule: the exact pure ε of
    Algorithm 11's Laplace step on the worst pair at the edge of the proof's event (β̂ = Δ), its grid reference, the
    claimed ε, the composition bound ε + ε_step + ε′ (ε′ = ε, proof of Theorem 11) against Theorem 5's 3ε, and the
    step's δ(ε) relative to the proof's δ (for Θ of ℓ2 diameter ``diameter``): the bracket of
    :func:`laplace_step_delta_bracket` and the event bound.  Columns ``local_sensitivity, d, rule, epsilon, scale,
    l1_difference, epsilon_step, epsilon_step_grid, claimed_step, step_over_claimed, composition_bound,
    theorem5_claimed, log_delta, delta_ratio_lower, delta_ratio_upper, event_bound_ratio``."""
    epsilon = positive_finite("epsilon", params["epsilon"])
    rows = []
    for delta_local in params["local_sensitivities"]:
        delta_local = positive_finite("local_sensitivity", delta_local)
        for d in params["dimensions"]:
            difference = worst_pair_difference(d, delta_local)
            log_delta = alg11_parameters(params["diameter"], epsilon, d).log_delta
            for rule in NOISE_RULES:
                scale = alg11_noise_scale(delta_local, epsilon, d, rule)
                step = laplace_step_epsilon(difference, scale)
                grid = laplace_step_epsilon_grid(difference, scale, params["n_grid"])
                bracket = laplace_step_delta_bracket(delta_local, epsilon, d, rule, log_delta, params["n_beta"])
                l1 = float(np.abs(difference).sum())
                rows.append((delta_local, int(d), rule, epsilon, scale, l1, step, grid, log_delta, *bracket))
    columns = ["local_sensitivity", "d", "rule", "epsilon", "scale", "l1_difference", "epsilon_step"]
    columns += ["epsilon_step_grid", "log_delta", "delta_ratio_lower", "delta_ratio_upper", "event_bound_ratio"]
    frame = pd.DataFrame(rows, columns=columns)
    return frame.assign(
        claimed_step=epsilon,
        step_over_claimed=frame["epsilon_step"] / epsilon,
        composition_bound=2.0 * epsilon + frame["epsilon_step"],
        theorem5_claimed=3.0 * epsilon,
    )
