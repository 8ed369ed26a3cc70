"""Closed-form privacy curves of PNSGD: Figures 2-3 (Theorem 4 vs Proposition 1), Theorem 3, and the regime map.

All deltas are computed as natural logs and reported both as ``delta`` and as ``log10_delta`` (which stays
finite where ``delta`` underflows to 0 in double precision).
"""

from __future__ import annotations

from collections.abc import Callable, Iterable, Mapping
from typing import Any

import numpy as np
import pandas as pd

from dplab.theory.contraction import (
    contraction_modulus,
    epsilon_prop1,
    epsilon_thm4,
    kappa_prop1,
    log_delta_prop1,
    log_delta_thm3,
    log_delta_thm4,
    pure_dp_threshold_thm3,
    pure_dp_threshold_thm3_as_printed,
    thm4_prop1_crossover_diameter,
)

__all__ = [
    "epsilon_grid",
    "delta_columns",
    "gaussian_setting",
    "figure_curves",
    "laplace_curves",
    "regime_map",
    "thm4_crossover_diameter",
    "compute_figure_curves",
    "compute_laplace_curves",
    "compute_regime_map",
]

Progress = Callable[[Iterable[Any]], Iterable[Any]]

LN10 = np.log(10.0)


def epsilon_grid(epsilon_max: float, n_epsilon: int) -> np.ndarray:
    """``n_epsilon`` equally spaced privacy levels on [0, epsilon_max], rounded to 12 digits for stable files."""
    return np.round(np.linspace(0.0, epsilon_max, n_epsilon), 12)


def delta_columns(log_delta: np.ndarray) -> dict[str, np.ndarray]:
    """``delta`` and ``log10_delta`` from natural-log deltas (``-inf`` where delta is exactly 0)."""
    log_delta = np.asarray(log_delta, dtype=float)
    return {"delta": np.exp(log_delta), "log10_delta": log_delta / LN10}


def gaussian_setting(curve: Mapping[str, Any]) -> dict[str, float]:
    M = contraction_modulus(lr=curve["lr"], beta_smooth=curve["beta_smooth"], rho=curve["rho"])
    return {"L": curve["L"], "sigma": curve["sigma"], "M": M, "lr": curve["lr"], "n": curve["n"]}


def figure_curves(curve: Mapping[str, Any]) -> pd.DataFrame:
    """Theorem 4 (``thm4``) and Proposition 1 (``prop1``) for each position i: columns
    ``i, epsilon, method, delta, log10_delta`` (Figures 2 and 3 of the paper)."""
    setting = gaussian_setting(curve)
    eps = epsilon_grid(curve["epsilon_max"], curve["n_epsilon"])
    frames = []
    for i in curve["positions"]:
        thm4 = log_delta_thm4(eps, diameter=curve["diameter"], i=i, **setting)
        kappa = kappa_prop1(L=setting["L"], sigma=setting["sigma"], M=setting["M"], n=setting["n"], i=i)
        prop1 = log_delta_prop1(eps, kappa=kappa)
        for method, log_delta in (("thm4", thm4), ("prop1", prop1)):
            frames.append(pd.DataFrame({"i": i, "epsilon": eps, "method": method, **delta_columns(log_delta)}))
    return pd.concat(frames, ignore_index=True)


def laplace_curves(curve: Mapping[str, Any]) -> pd.DataFrame:
    """Theorem 3 for each step size and position i, with the pure-DP threshold the formula implies and the paper's
    corollary (``pure_dp_threshold_as_printed``, which is wrong for i = n when M(b-a)/(lr v) < 2L/v)."""
    a, b = curve["interval"]
    eps = epsilon_grid(curve["epsilon_max"], curve["n_epsilon"])
    frames = []
    for lr in curve["lrs"]:
        M = contraction_modulus(lr=lr, beta_smooth=curve["beta_smooth"], rho=curve["rho"])
        common = {"L": curve["L"], "v": curve["v"], "M": M, "diameter": b - a, "lr": lr}
        printed = pure_dp_threshold_thm3_as_printed(**common)
        for i in curve["positions"]:
            columns = {
                "lr": lr,
                "i": i,
                "epsilon": eps,
                "method": "thm3",
                **delta_columns(log_delta_thm3(eps, n=curve["n"], i=i, **common)),
                "pure_dp_threshold": pure_dp_threshold_thm3(n=curve["n"], i=i, **common),
                "pure_dp_threshold_as_printed": printed,
            }
            frames.append(pd.DataFrame(columns))
    return pd.concat(frames, ignore_index=True)


def regime_map(regime: Mapping[str, Any]) -> pd.DataFrame:
    """Epsilon certified at ``delta`` by Theorem 4 and Proposition 1 against the domain diameter D, per position i.

    Proposition 1 does not depend on D; Theorem 4's contraction factor tends to 1 as D/(lr sigma) grows.
    Columns: ``diameter, ratio, i, method, epsilon, delta, thm4_worse_from_diameter``.
    """
    setting = gaussian_setting(regime)
    delta = regime["delta"]
    diameters = np.round(np.geomspace(regime["diameter_min"], regime["diameter_max"], regime["n_diameter"]), 10)
    rows = []
    for i in regime["positions"]:
        kappa = kappa_prop1(L=setting["L"], sigma=setting["sigma"], M=setting["M"], n=setting["n"], i=i)
        eps_prop1 = float(epsilon_prop1(delta, kappa=kappa))
        for diameter in diameters:
            eps_thm4 = epsilon_thm4(delta, diameter=diameter, i=i, **setting)
            ratio = setting["M"] * diameter / (setting["lr"] * setting["sigma"])
            rows.append({"diameter": diameter, "ratio": ratio, "i": i, "method": "thm4", "epsilon": eps_thm4})
            rows.append({"diameter": diameter, "ratio": ratio, "i": i, "method": "prop1", "epsilon": eps_prop1})
    frame = pd.DataFrame(rows)
    frame["delta"] = delta
    crossings = {i: thm4_crossover_diameter(regime, i, part) for i, part in frame.groupby("i")}
    frame["thm4_worse_from_diameter"] = frame["i"].map(crossings)
    return frame


def thm4_crossover_diameter(regime: Mapping[str, Any], i: int, part: pd.DataFrame) -> float:
    """The diameter above which Theorem 4 certifies a larger epsilon than Proposition 1 (nan if none on the sweep).

    Bracketed by the first sign change of eps_thm4 - eps_prop1 on the sweep, then refined by Brent's method
    (:func:`dplab.theory.contraction.thm4_prop1_crossover_diameter`).
    """
    setting = gaussian_setting(regime)
    wide = part.pivot_table(index="diameter", columns="method", values="epsilon").sort_index()
    gap = (wide["thm4"] - wide["prop1"]).to_numpy()
    change = np.flatnonzero((gap[:-1] <= 0) & (gap[1:] > 0))
    if change.size == 0:
        return float("nan")
    lo, hi = wide.index[change[0]], wide.index[change[0] + 1]
    return thm4_prop1_crossover_diameter(lo, hi, regime["delta"], i=i, **setting)


# The registry's calling convention (dplab.workflow.registry): compute(params, seed, progress). These closed forms
# draw nothing and take no time worth a progress bar.


def compute_figure_curves(params: Mapping[str, Any], seed: int, progress: Progress) -> pd.DataFrame:
    """Figure 2 or 3 of Asoodeh et al. (2020) from its section ``figures.<fig>`` (:func:`figure_curves`)."""
    return figure_curves(params)


def compute_laplace_curves(params: Mapping[str, Any], seed: int, progress: Progress) -> pd.DataFrame:
    """Theorem 3 of Asoodeh et al. (2020) from the ``laplace`` section (:func:`laplace_curves`)."""
    return laplace_curves(params)


def compute_regime_map(params: Mapping[str, Any], seed: int, progress: Progress) -> pd.DataFrame:
    """The Theorem 4 against Proposition 1 regime map from the ``regime`` section (:func:`regime_map`)."""
    return regime_map(params)
