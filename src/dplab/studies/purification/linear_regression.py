"""Linear regression with purified AdaSSP (Algorithm 13, Theorem 7/12 of Lin, Wang, Ma, Wang):
artifact ``ext_linear_regression``, config section ``linear_regression``.

Data (per replicate and (n, d)): z ~ N(0, Σ), Σ = Q·diag(linspace(eig_min, eig_max, d))·Qᵀ with a random rotation Q;
x = z/max(1, ‖z‖₂) (so ‖𝒳‖ = 1); θ* uniform on the unit sphere; y = clip(⟨x, θ*⟩ + noise_sd·N(0, 1), −1, 1) (‖𝒴‖ =
1).  Adjacency: add/remove one record.  Methods at the final level ε_tot (``method``):

- ``pure_adassp``: Algorithm 13 with ε = ε′ = ε_tot/2, ω = 1/n², r̃ = (1 + nε/d) (constant 1: our choice);
- ``adassp_at_purification_delta``: its projected AdaSSP output before Algorithm 1 ((ε_tot/2, δ)-DP, not pure);
- ``adassp_reference``: AdaSSP at (ε_tot, 1/n²), not pure;
- ``laplace_ssp``: pure ε_tot-DP Laplace sufficient-statistics perturbation (our baseline).

Metric: excess empirical MSE over OLS, MSE(θ) = ‖Y − Xθ‖²/(2n), averaged over ``draws`` runs per replicate (one row
per method, (n, d, ε_tot) and replicate).  Also recorded: λ_min(XᵀX/n), the exact δ of AdaSSP's composed Gaussian
releases (and of one release alone, against δ/3), and Table 1's rates before/after purification (constants dropped).

A sweep (:class:`dplab.workflow.registry.Artifact`): one point per (n, d) and replicate index, whose dataset and
noise derive from ``seed`` and those values only, so the shards of a run may split the points any way.
"""

from __future__ import annotations

import functools
import math
from collections.abc import Callable, Iterable, Mapping
from types import MappingProxyType
from typing import Any

import numpy as np
import pandas as pd

from dplab.data.synthetic import linear_regression_dataset
from dplab.mechanisms.adassp import (
    SufficientStatistics,
    adassp,
    adassp_log_delta_composed,
    adassp_log_delta_per_release,
    adassp_noise_multiplier,
    excess_mse,
    laplace_ssp,
    laplace_ssp_ridge,
    pure_adassp,
    pure_adassp_parameters,
    sufficient_statistics,
    table1_linear_regression_rates,
)
from dplab.seeding import derive_seed

__all__ = [
    "ADJACENCY",
    "regression_point",
]

ADJACENCY = "add_remove"
BOUND_X = 1.0
BOUND_Y = 1.0  # |y| <= 1 in dplab.data.synthetic.linear_regression_dataset


#: The columns of the artifact, in order; a method leaves the ones that do not apply to it empty.
COLUMNS = (
    "method",
    "pure",
    "adjacency",
    "n",
    "d",
    "epsilon_total",
    "replicate",
    "lambda_min",
    "theta_star_excess_mse",
    "rate_before",
    "rate_after",
    "draws",
    "epsilon",
    "log_delta",
    "omega",
    "epsilon_prime",
    "laplace_scale",
    "radius",
    "ridge_mean",
    "noise_multiplier",
    "log_delta_composed_exact",
    "log_delta_per_release_exact",
    "log_delta_per_release_target",
    "excess_mse_mean",
    "excess_mse_median",
    "excess_mse_sem_draws",
    "in_domain",
)

#: A method's rows: each a row's bookkeeping and the estimates θ (draws, d) whose excess MSE the row summarises.
MethodOutputs = list[tuple[dict[str, Any], np.ndarray]]


def _summaries(excess: np.ndarray) -> list[dict[str, float]]:
    """Mean, median and standard error over the draws (last axis) of each row of ``excess`` (outputs, draws)."""
    draws = excess.shape[1]
    mean, median = excess.mean(axis=1), np.median(excess, axis=1)
    sem = excess.std(axis=1, ddof=1) / math.sqrt(draws) if draws > 1 else np.full(len(excess), np.nan)
    return [
        {"excess_mse_mean": float(a), "excess_mse_median": float(b), "excess_mse_sem_draws": float(c)}
        for a, b, c in zip(mean, median, sem)
    ]


@functools.cache
def _accounting(epsilon: float, log_delta: float) -> Mapping[str, float]:
    """AdaSSP's noise and exact δ at (ε, log δ), computed once per process for every replicate that shares them
    (read-only: the cache hands the same mapping to every caller)."""
    return MappingProxyType(
        {
            "noise_multiplier": adassp_noise_multiplier(epsilon, log_delta),
            "log_delta_composed_exact": adassp_log_delta_composed(epsilon, log_delta),
            "log_delta_per_release_exact": adassp_log_delta_per_release(epsilon, log_delta),
            "log_delta_per_release_target": log_delta - math.log(3.0),
        }
    )


def _pure_adassp(
    stats: SufficientStatistics, epsilon_total: float, params: Mapping[str, Any], rng: np.random.Generator
) -> MethodOutputs:
    """Algorithm 13 at ε = ε′ = ε_tot/2 ((ε_tot, 0)-DP, Theorem 7), and its projected AdaSSP output before
    Algorithm 1 ((ε_tot/2, δ)-DP); ``in_domain`` checks that output lies in the ball of radius r̃."""
    half = epsilon_total / 2.0
    par = pure_adassp_parameters(stats.n, stats.d, half, half, BOUND_X, BOUND_Y)
    out = pure_adassp(stats, half, half, BOUND_X, BOUND_Y, float(params["zeta"]), int(params["draws"]), rng)
    purified = {
        "epsilon": half,
        "log_delta": par.log_delta,
        "omega": math.exp(par.log_omega),
        "epsilon_prime": half,
        "laplace_scale": par.laplace_scale,
        "radius": par.radius,
        "ridge_mean": float(out["ridge"].mean()),
        **_accounting(half, par.log_delta),
    }
    in_domain = bool(np.all(np.linalg.norm(out["theta_apx"], axis=1) <= par.radius * (1 + 1e-12)))
    return [
        ({"method": "pure_adassp", "pure": True, **purified, "in_domain": in_domain}, out["theta"]),
        (
            {
                "method": "adassp_at_purification_delta",
                "pure": False,
                **purified,
                "epsilon_prime": 0.0,
                "laplace_scale": 0.0,
                "in_domain": True,
            },
            out["theta_apx"],
        ),
    ]


def _adassp_reference(
    stats: SufficientStatistics, epsilon_total: float, params: Mapping[str, Any], rng: np.random.Generator
) -> MethodOutputs:
    """AdaSSP at (ε_tot, δ = 1/n²): not pure."""
    log_delta = -2.0 * math.log(stats.n)
    out = adassp(stats, epsilon_total, log_delta, BOUND_X, BOUND_Y, float(params["zeta"]), int(params["draws"]), rng)
    row = {
        "method": "adassp_reference",
        "pure": False,
        "epsilon": epsilon_total,
        "log_delta": log_delta,
        "ridge_mean": float(out["ridge"].mean()),
        **_accounting(epsilon_total, log_delta),
        "in_domain": True,
    }
    return [(row, out["theta"])]


def _laplace_ssp(
    stats: SufficientStatistics, epsilon_total: float, params: Mapping[str, Any], rng: np.random.Generator
) -> MethodOutputs:
    """Pure ε_tot-DP Laplace sufficient-statistics perturbation (our baseline)."""
    zeta = float(params["zeta"])
    out = laplace_ssp(stats, epsilon_total, BOUND_X, BOUND_Y, zeta, int(params["draws"]), rng)
    row = {
        "method": "laplace_ssp",
        "pure": True,
        "epsilon": epsilon_total,
        "log_delta": -np.inf,
        "ridge_mean": laplace_ssp_ridge(stats.d, epsilon_total, BOUND_X, zeta),
        "in_domain": True,
    }
    return [(row, out["theta"])]


#: The methods in the order they draw from a point's generator (and of the rows); each maps (statistics, ε_tot,
#: section, generator) to its rows and estimates.
METHODS: dict[str, Callable[[SufficientStatistics, float, Mapping[str, Any], np.random.Generator], MethodOutputs]] = {
    "pure_adassp": _pure_adassp,
    "adassp_reference": _adassp_reference,
    "laplace_ssp": _laplace_ssp,
}


def _method_outputs(
    stats: SufficientStatistics, epsilon_total: float, params: Mapping[str, Any], rng: np.random.Generator
) -> MethodOutputs:
    """Every method's rows and estimates (:data:`METHODS`) at one ε_tot."""
    return [output for method in METHODS.values() for output in method(stats, epsilon_total, params, rng)]


def _table1_rates(n: int, d: int, epsilon_total: float, lambda_min: float, log_delta: float) -> dict[str, float]:
    """Table 1's rates at a row's δ: ``rate_before`` is NaN for a pure method (log δ = −∞)."""
    finite = math.isfinite(log_delta)
    before, after = table1_linear_regression_rates(n, d, epsilon_total, lambda_min, -log_delta if finite else 1.0)
    return {"rate_before": before if finite else np.nan, "rate_after": after}


def regression_point(
    params: Mapping[str, Any], seed: int, progress: Callable[[Iterable[Any]], Iterable[Any]], point: Mapping[str, Any]
) -> pd.DataFrame:
    """The rows of one point (:func:`dplab.studies.purification.plan.regression_points`) of ``ext_linear_regression``
    (module docstring): one row per method and ε_tot on the point's dataset; the data and every ε's noise derive from
    ``seed`` and (n, d, replicate).  The excess MSE of θ* and of every estimate of every ε is one batched
    :func:`dplab.mechanisms.adassp.excess_mse` (one OLS solve a point)."""
    n, d, s = point["n"], point["d"], point["replicate"]
    x, y, theta_star = linear_regression_dataset(
        n,
        d,
        params["eig_min"],
        params["eig_max"],
        params["noise_sd"],
        np.random.default_rng(derive_seed(seed, "data", n, d, s)),
    )
    stats = sufficient_statistics(x, y)
    lambda_min = stats.lambda_min / n
    draws = int(params["draws"])
    rows, estimates = [], [theta_star[None, :]]
    for eps in params["epsilons"]:
        rng = np.random.default_rng(derive_seed(seed, "noise", n, d, eps, s))
        for row, theta in _method_outputs(stats, float(eps), params, rng):
            rows.append(
                {**row, "epsilon_total": float(eps), **_table1_rates(n, d, float(eps), lambda_min, row["log_delta"])}
            )
            estimates.append(theta)
    excess = excess_mse(np.concatenate(estimates), stats)
    common = {
        "adjacency": ADJACENCY,
        "n": n,
        "d": d,
        "replicate": s,
        "lambda_min": lambda_min,
        "theta_star_excess_mse": float(excess[0]),
        "draws": draws,
    }
    summaries = _summaries(excess[1:].reshape(len(rows), draws))
    return pd.DataFrame([{**common, **row, **summary} for row, summary in zip(rows, summaries)], columns=COLUMNS)
