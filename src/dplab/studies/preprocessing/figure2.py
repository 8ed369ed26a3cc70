"""Figure 2 of Hu, Sanyal, Schölkopf (2024): overall (ε, δ) of the pre-processed Gaussian mechanism (Δ_f = L = 1,
ε = 1, δ = 1e-3), SRDP analysis (Table-2 Gaussian row, α ≥ 11, Lemma M) against group privacy (exact Gaussian group
bound, group size m = Δ_∞), with the optional optimised-Theorem-2 curves: p = q free (the paper's instantiation,
optimised) and, an extension, p and q optimised separately (each term of Theorem 2's max with its own exponent, as
its proof allows: :func:`dplab.theory.smooth_rdp.theorem2_rdp_separate_pq`), both over all α > 1.

A sweep (:class:`dplab.workflow.registry.Artifact`): each curve of a closed form is one point, and the p = q optimised
curve (a Nelder–Mead search per τ, nearly all of the time) is one point per τ, so the shards of a cluster run split
it evenly; the separately optimised curves come last, one point per setting, after every other point (so the rows
of the other curves keep their order). Nothing is random: ``seed`` is unused.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable, Mapping
from dataclasses import dataclass
from typing import Any

import numpy as np
import pandas as pd

from dplab.theory import smooth_rdp as s

__all__ = [
    "CLOSED_FORM_METHODS",
    "OPTIMISED_METHOD",
    "SEPARATE_PQ_METHOD",
    "Setting",
    "fig2_point",
    "fig2_points",
    "fig2_settings",
]

CLOSED_FORM_METHODS = ("srdp_table2", "group_privacy")
OPTIMISED_METHOD = "srdp_theorem2_optimised"
SEPARATE_PQ_METHOD = "srdp_theorem2_separate_pq"


@dataclass(frozen=True)
class Setting:
    """One curve family of a panel: its x axis, the SRDP parameter τ and the group size m at every x."""

    panel: str
    x_name: str
    x: np.ndarray
    setting: str
    tau: np.ndarray
    m: np.ndarray


def fig2_settings(params: Mapping[str, Any]) -> list[Setting]:
    """Panels (a) quantization over η (τ = ηp, m = p), (b) mean imputation over p/n (τ = 2p/(n−p), m = p),
    (c) PCA rank reduction over n (τ = 4(3n+2)/((n−1)δ) and the 12.2/δ form, m = n), in output order."""
    points = int(params["n_points"])
    eta = np.logspace(-3, 0, points)
    settings = [Setting("a", "eta", eta, f"p={p}", eta * p, np.full(points, float(p))) for p in params["quant_p"]]
    n = int(params["imputation_n"])
    missing = np.unique(np.clip(np.round(np.linspace(0.01, 0.99, points) * n), 1, n - 1)).astype(int)
    tau = 2 * missing / (n - missing)
    settings.append(Setting("b", "missing_fraction", missing / n, f"n={n}", tau, missing.astype(float)))
    sizes = np.unique(np.round(np.logspace(np.log10(101), np.log10(float(params["pca_n_max"])), points))).astype(int)
    for gap in params["pca_gaps"]:
        for label, form in (("tau=12.2/gap", "table2"), ("tau exact", "exact")):
            tau = s.pca_tau(sizes, gap, form)
            settings.append(Setting("c", "n", sizes, f"gap={gap:g}, {label}", tau, sizes.astype(float)))
    return settings


def fig2_points(params: Mapping[str, Any]) -> list[dict[str, Any]]:
    """The sweep's points in output order: per setting (:func:`fig2_settings`), one point per closed-form curve,
    then (with ``optimised_curve``) one point per τ of the p = q optimised curve; after all settings (with
    ``optimised_curve``), one point per setting of the separately optimised curve."""
    points: list[dict[str, Any]] = []
    settings = fig2_settings(params)
    for index, setting in enumerate(settings):
        points += [{"setting": index, "method": method} for method in CLOSED_FORM_METHODS]
        if params["optimised_curve"]:
            points += [{"setting": index, "method": OPTIMISED_METHOD, "at": i} for i in range(len(setting.tau))]
    if params["optimised_curve"]:
        points += [{"setting": index, "method": SEPARATE_PQ_METHOD} for index in range(len(settings))]
    return points


def _epsilon_dp(method: str, tau: np.ndarray, m: np.ndarray, eps: float, delta: float) -> np.ndarray:
    """Overall ε at δ of one curve: Table 2's Gaussian row, the Gaussian group bound, or Theorem 2 optimised over
    α and p = q, or over α with p and q separately (Lemma M)."""
    if method == "srdp_table2":
        return s.table2_gaussian_dp(tau, eps, delta)
    if method == "group_privacy":
        return s.group_privacy_gaussian_dp(m, eps, delta)
    mechanism = s.gaussian_mechanism(eps)
    if method == SEPARATE_PQ_METHOD:
        return np.array(
            [s.rdp_to_dp(lambda a, t=t: s.theorem2_rdp_separate_pq(mechanism, a, t), delta)[0] for t in tau]
        )
    return np.array([s.theorem2_dp_optimised(mechanism, float(t), delta)["epsilon"] for t in tau])


def fig2_point(
    params: Mapping[str, Any], seed: int, progress: Callable[[Iterable[Any]], Iterable[Any]], point: Mapping[str, Any]
) -> pd.DataFrame:
    """The rows of one point (:func:`fig2_points`): a whole closed-form curve, or the optimised curve at one τ."""
    setting = fig2_settings(params)[point["setting"]]
    at = slice(point["at"], point["at"] + 1) if "at" in point else slice(None)
    x, tau, m = setting.x[at], setting.tau[at], setting.m[at]
    eps, delta = float(params["eps"]), float(params["delta"])
    values = _epsilon_dp(point["method"], tau, m, eps, delta)
    return pd.DataFrame(
        {
            "panel": setting.panel,
            "x_name": setting.x_name,
            "x": x.astype(float),
            "setting": setting.setting,
            "method": point["method"],
            "epsilon_dp": values.astype(float),
            "tau": tau.astype(float),
            "group_size": m.astype(float),
            "eps": eps,
            "delta": delta,
        }
    )
