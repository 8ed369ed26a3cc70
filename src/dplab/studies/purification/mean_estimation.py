"""Mean estimation with purification (Section 7 and Theorem 9 of Lin, Wang, Ma, Wang): artifact
``ext_mean_estimation``, config section ``mean_estimation``.

Data: n records x_i ∈ {±1/√d}^d, each coordinate +1/√d with probability ``p_plus``; only the mean D̄ enters, drawn
exactly as (2·Binomial(n, p_plus)/n − 1)/√d per coordinate.  Adjacency: replace one record (ℓ2 sensitivity of D̄:
Δ₂ = 2/n; ℓ1: 2√d/n).  Methods at the final pure level ε_tot (``method`` column):

- ``purified_gaussian``: the analytic Gaussian mechanism (AGM) at ε = ε_tot/2 and δ = 2ω/(32dn²)^d, ω = 1/n²,
  projected onto the cube Θ = [−1/√d, 1/√d]^d (q = ∞, ℓ∞ diameter R = 2/√d), then Algorithm 1 with ε′ = ε_tot/2
  (Δ = 1/(8√d n²)): (ε_tot, 0)-DP by Theorem 1;
- ``gaussian_at_purification_delta``: the same projected AGM draws before Algorithm 1 ((ε_tot/2, δ)-DP, not pure);
- ``laplace``: Laplace^{⊗d}(2√d/(nε_tot));
- ``l2_knorm``: density ∝ exp(−ε_tot‖z‖₂/Δ₂) (the ℓ2 K-norm mechanism);
- ``gaussian_reference``: AGM at (ε_tot, ``reference_delta``), not pure.

Panels (``panel`` column): ``dimension`` (d × ε_tot sweep, one row per method, point and replicate with the mean
error over ``draws`` noise draws); ``delta`` (Section 7 picture at one (d, ε_tot): the purified Gaussian with upstream
δ swept, the unpurified AGM at (ε_tot, δ), Theorem 9's lower bound where its δ-range holds); ``audit`` (exact pure ε
of the purified output in d = 1, through :mod:`dplab.audit.interval_laws`).

Reference values (``expected_error``, :mod:`dplab.mechanisms.noise_norms`): E‖N(0, σ²I_d)‖₂ = σ√2Γ((d+1)/2)/Γ(d/2)
(chi mean), E‖Lap^{⊗d}(b)‖₂ by numerical integration, E‖z‖ = dΔ₂/ε for the K-norm mechanism (Gamma(d, Δ₂/ε)
radius).  For the purified and projected Gaussian the chi mean ignores the projection and the purification noise
(both O(1/n²)).
"""

from __future__ import annotations

import math
from collections.abc import Callable, Iterable, Mapping
from dataclasses import dataclass
from functools import partial
from typing import Any

import numpy as np
import pandas as pd

from dplab.audit.purification_pairs import mean_estimation_audit_1d
from dplab.mechanisms.gaussian import agm_sigma
from dplab.mechanisms.mean_release import mean_baseline_errors
from dplab.mechanisms.noise_norms import chi_mean
from dplab.mechanisms.purification import cube_purification_parameters, projected_purified_gaussian, sign_cube
from dplab.seeding import derive_seed
from dplab.theory.mean_estimation import (
    mean_estimation_log_delta,
    sample_data_mean,
    theorem9_columns,
)
from dplab.workflow.registry import no_progress

__all__ = [
    "mean_estimation_errors",
    "ADJACENCY",
    "compute",
]

ADJACENCY = "replace_one"


def _norms(out: np.ndarray, mean: np.ndarray) -> np.ndarray:
    return np.linalg.norm(out - mean, axis=1)


def _error_summary(errors: np.ndarray, draws: int) -> dict[str, float]:
    """Mean ℓ2 error over the draws and its standard error (NaN for one draw)."""
    return {
        "error_mean": float(errors.mean()),
        "error_sem_draws": float(errors.std(ddof=1) / math.sqrt(draws)) if draws > 1 else np.nan,
    }


@dataclass(frozen=True)
class _Setting:
    """One release setting of the dimension panel: D̄, n, ε_tot, the reference δ and the number of draws."""

    mean: np.ndarray
    n: int
    epsilon_total: float
    reference_log_delta: float
    draws: int

    @property
    def d(self) -> int:
        return self.mean.shape[0]


@dataclass(frozen=True)
class _MeanRelease:
    """One method's ℓ2 errors over the draws, its privacy and noise columns and its reference error."""

    method: str
    pure: bool
    errors: np.ndarray
    columns: Mapping[str, float]
    expected_error: float
    in_domain: bool = True


def _purified_gaussian(setting: _Setting, rng: np.random.Generator) -> list[_MeanRelease]:
    """The projected AGM at ε_tot/2 and δ = 2ω/(32dn²)^d, purified by Algorithm 1 at ε′ = ε_tot/2 ((ε_tot, 0)-DP,
    Theorem 1), and the same draws before Algorithm 1 ((ε_tot/2, δ)-DP)."""
    d, half = setting.d, setting.epsilon_total / 2.0
    log_delta, log_omega = mean_estimation_log_delta(setting.n, d)
    sigma = float(agm_sigma(half, log_delta, 2.0 / setting.n))
    projected, purified = projected_purified_gaussian(
        setting.mean, sigma, half, log_delta, log_omega, setting.draws, rng
    )
    pur = {**cube_purification_parameters(d, half, log_delta, log_omega), "noise_scale": sigma}
    unpurified = {**pur, "epsilon_prime": 0.0, "laplace_scale": 0.0, "log10_laplace_scale": -np.inf}
    in_domain = bool(np.all(np.abs(projected) <= sign_cube(d).radius))
    expected = sigma * float(chi_mean(d))
    return [
        _MeanRelease("purified_gaussian", True, _norms(purified, setting.mean), pur, expected, in_domain),
        _MeanRelease(
            "gaussian_at_purification_delta", False, _norms(projected, setting.mean), unpurified, expected, in_domain
        ),
    ]


def _baseline(method: str, name: str, pure: bool, setting: _Setting, rng: np.random.Generator) -> list[_MeanRelease]:
    """A baseline of :func:`mean_baseline_errors` at ε_tot (the Gaussian at the reference δ, not pure)."""
    log_delta = setting.reference_log_delta
    errors, scale, expected = mean_baseline_errors(
        method, setting.mean, setting.n, setting.epsilon_total, log_delta, setting.draws, rng
    )
    columns = {"epsilon": setting.epsilon_total, "log_delta": log_delta if method == "gaussian" else -np.inf}
    return [_MeanRelease(name, pure, errors, {**columns, "noise_scale": scale}, expected)]


#: The methods of the dimension panel in the order they draw from the generator (and of the rows).
METHODS: dict[str, Callable[[_Setting, np.random.Generator], list[_MeanRelease]]] = {
    "purified_gaussian": _purified_gaussian,
    "laplace": partial(_baseline, "laplace", "laplace", True),
    "l2_knorm": partial(_baseline, "l2_knorm", "l2_knorm", True),
    "gaussian_reference": partial(_baseline, "gaussian", "gaussian_reference", False),
}

_NO_PRIVACY_COLUMNS = dict.fromkeys(
    ("epsilon", "log_delta", "omega", "epsilon_prime", "laplace_scale", "log10_laplace_scale"), np.nan
)


def _release_record(release: _MeanRelease, setting: _Setting) -> dict[str, Any]:
    """One method's record: setting, privacy columns (NaN where not applicable), error summary, reference error."""
    return {
        "n": setting.n,
        "d": setting.d,
        "epsilon_total": setting.epsilon_total,
        "adjacency": ADJACENCY,
        "draws": setting.draws,
        "method": release.method,
        "pure": release.pure,
        **_NO_PRIVACY_COLUMNS,
        **release.columns,
        **_error_summary(release.errors, setting.draws),
        "expected_error": release.expected_error,
        "in_domain": release.in_domain,
    }


def mean_estimation_errors(
    mean: np.ndarray, n: int, epsilon_total: float, reference_log_delta: float, draws: int, rng: np.random.Generator
) -> list[dict[str, Any]]:
    """One record per method (:data:`METHODS`): the ℓ2 errors of ``draws`` releases of D̄ = ``mean`` at ε_tot."""
    setting = _Setting(mean, n, epsilon_total, reference_log_delta, draws)
    return [_release_record(release, setting) for method in METHODS.values() for release in method(setting, rng)]


def _dimension_panel(params: Mapping[str, Any], seed: int, progress) -> list[dict[str, Any]]:
    records = []
    n, ref = int(params["n"]), math.log(params["reference_delta"])
    for d in progress(list(params["ds"])):
        for s in range(int(params["seeds"])):
            mean = sample_data_mean(n, int(d), params["p_plus"], np.random.default_rng(derive_seed(seed, "data", d, s)))
            for eps in params["epsilons"]:
                rng = np.random.default_rng(derive_seed(seed, "noise", d, eps, s))
                for row in mean_estimation_errors(mean, n, float(eps), ref, int(params["draws"]), rng):
                    records.append({"panel": "dimension", "replicate": s, **row})
    return records


def _delta_common(params: Mapping[str, Any], log_delta: float) -> dict[str, Any]:
    """The columns shared by a δ-panel point's rows: the point, Theorem 9's lower bound at δ and whether δ is in its
    range, the paper's δ of the experiment, and the pure rate 2d/(nε_tot)."""
    sweep = params["delta_sweep"]
    n, d, eps = int(params["n"]), int(sweep["d"]), float(sweep["epsilon"])
    return {
        "panel": "delta",
        "n": n,
        "d": d,
        "epsilon_total": eps,
        "adjacency": ADJACENCY,
        "draws": int(params["draws"]),
        "log_delta": log_delta,
        **theorem9_columns(n, d, eps, log_delta),
        "in_domain": True,
    }


def _delta_records(
    common: Mapping[str, Any], mean: np.ndarray, log_omega: float, rng: np.random.Generator
) -> list[dict[str, Any]]:
    """At one upstream δ: the projected AGM at (ε_tot/2, δ) purified by Algorithm 1 at ε′ = ε_tot/2, and the
    unpurified AGM at (ε_tot, δ)."""
    n, d, eps, draws, log_delta = (common[key] for key in ("n", "d", "epsilon_total", "draws", "log_delta"))
    sigma_half = float(agm_sigma(eps / 2, log_delta, 2.0 / n))
    sigma_full = float(agm_sigma(eps, log_delta, 2.0 / n))
    _, purified = projected_purified_gaussian(mean, sigma_half, eps / 2, log_delta, log_omega, draws, rng)
    purified_errors = _norms(purified, mean)
    gaussian_errors = np.linalg.norm(sigma_full * rng.standard_normal((draws, d)), axis=1)
    purification = cube_purification_parameters(d, eps / 2, log_delta, log_omega)
    return [
        {
            **common,
            "method": "purified_gaussian",
            "pure": True,
            **{key: value for key, value in purification.items() if key != "log_delta"},
            "noise_scale": sigma_half,
            **_error_summary(purified_errors, draws),
            "expected_error": sigma_half * float(chi_mean(d)),
        },
        {
            **common,
            "method": "gaussian_at_delta",
            "pure": False,
            **{key: np.nan for key in purification if key != "log_delta"},
            "epsilon": eps,
            "noise_scale": sigma_full,
            **_error_summary(gaussian_errors, draws),
            "expected_error": sigma_full * float(chi_mean(d)),
        },
    ]


def _delta_panel(params: Mapping[str, Any], seed: int) -> list[dict[str, Any]]:
    """Section 7's picture at one (d, ε_tot): the purified Gaussian with the upstream δ swept, the unpurified AGM at
    (ε_tot, δ), and Theorem 9's lower bound; one pair of rows per (δ, replicate)."""
    n, d = int(params["n"]), int(params["delta_sweep"]["d"])
    log_omega = -2.0 * math.log(n)
    records = []
    for log10_delta in params["delta_sweep"]["log10_deltas"]:
        common = _delta_common(params, float(log10_delta) * math.log(10.0))
        for s in range(int(params["seeds"])):
            mean = sample_data_mean(n, d, params["p_plus"], np.random.default_rng(derive_seed(seed, "data", d, s)))
            rng = np.random.default_rng(derive_seed(seed, "delta_sweep", log10_delta, s))
            records += _delta_records({**common, "replicate": s}, mean, log_omega, rng)
    return records


def _audit_panel(params: Mapping[str, Any]) -> list[dict[str, Any]]:
    """Exact ε∞ of the d = 1 purified Gaussian on neighbouring means (μ, μ + 2/n), each treatment of Algorithm 1."""
    audit = params["audit"]
    n = int(audit["n"])
    records = []
    for eps in audit["epsilons"]:
        result = mean_estimation_audit_1d(float(eps), n, float(audit["mean"]), int(audit["n_points"]))
        for treatment, value in result["epsilon_inf"].items():
            records.append(
                {
                    "panel": "audit",
                    "method": "purified_gaussian",
                    "treatment": treatment,
                    "pure": treatment == "full",
                    "n": n,
                    "d": 1,
                    "epsilon_total": float(eps),
                    "epsilon": float(eps) / 2,
                    "log_delta": result["log_delta"],
                    "omega": result["omega"],
                    "epsilon_prime": float(eps) / 2,
                    "laplace_scale": result["laplace_scale"],
                    "log10_laplace_scale": math.log10(result["laplace_scale"]),
                    "noise_scale": result["sigma"],
                    "adjacency": ADJACENCY,
                    "epsilon_inf": value,
                    "bound": float(eps),
                    "in_domain": True,
                }
            )
    return records


def compute(
    params: Mapping[str, Any], seed: int, progress: Callable[[Iterable[Any]], Iterable[Any]] = no_progress
) -> pd.DataFrame:
    """The ``ext_mean_estimation`` frame: panels ``dimension``, ``delta`` and ``audit`` (module docstring)."""
    records = _dimension_panel(params, seed, progress) + _delta_panel(params, seed) + _audit_panel(params)
    frame = pd.DataFrame.from_records(records)
    first = ["panel", "method", "pure", "adjacency", "n", "d", "epsilon_total", "replicate"]
    frame = frame.astype({"replicate": "Int64"})  # an integer index, empty in the audit panel's rows
    return frame[first + [c for c in frame.columns if c not in first]]
