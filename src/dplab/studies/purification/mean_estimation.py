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

Panels (``panel`` column): ``dimension`` (d × ε_tot sweep, one row per method, point and seed with the mean error
over ``draws`` noise draws); ``delta`` (Section 7 picture at one (d, ε_tot): the purified Gaussian with upstream
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
from typing import Any

import numpy as np
import pandas as pd

from dplab.audit.interval_laws import TREATMENTS, epsilon_inf_1d
from dplab.mechanisms.gaussian import agm_sigma
from dplab.mechanisms.knorm import sample_l2_knorm
from dplab.mechanisms.noise_norms import chi_mean, laplace_l2_norm_mean
from dplab.mechanisms.purification import LqBall, purify
from dplab.seeding import derive_seed
from dplab.studies.purification.exact_audit import projected_gaussian_pair
from dplab.studies.registry import no_progress
from dplab.theory.purification import purification_laplace_scale, purification_shift

__all__ = [
    "mean_estimation_log_delta",
    "theorem9_log_delta_range",
    "theorem9_lower_bound",
    "sample_data_mean",
    "log10_purification_scale",
    "mean_estimation_errors",
    "ADJACENCY",
    "compute",
]

ADJACENCY = "replace_one"


def mean_estimation_log_delta(n: int, d: int) -> tuple[float, float]:
    """(log δ, log ω) of the mean-estimation experiment: ω = 1/n², δ = 2ω/(32dn²)^d, so that Δ = 2d(2/√d)(δ/2ω)^{1/d} =
    1/(8√d n²)."""
    log_omega = -2.0 * math.log(n)
    return math.log(2.0) + log_omega - d * math.log(32.0 * d * n**2), log_omega


def theorem9_log_delta_range(n: int, d: int) -> tuple[float, float]:
    """Theorem 9/14's range of log δ: (−4d log d log²(nd), −log(4n^d log^{2d}(8d))) (appendix upper limit, A7)."""
    lower = -4.0 * d * math.log(d) * math.log(n * d) ** 2
    upper = -(math.log(4.0) + d * math.log(n) + 2.0 * d * math.log(math.log(8.0 * d)))
    return lower, upper


def theorem9_lower_bound(n: int, d: int, epsilon: float, log_delta: np.ndarray) -> np.ndarray:
    """Theorem 9: any (ε, δ)-DP mean estimator on {±1/√d}^d errs by ≥ √(d log(1/δ))/(2nε log d log(nd)) with
    probability ≥ 1/4 on some data set (within the δ-range of :func:`theorem9_log_delta_range`)."""
    return np.sqrt(d * -np.asarray(log_delta, float)) / (2.0 * n * epsilon * math.log(d) * math.log(n * d))


def sample_data_mean(n: int, d: int, p_plus: float, rng: np.random.Generator) -> np.ndarray:
    """D̄ of n records in {±1/√d}^d with P(+1/√d) = p_plus per coordinate: (2·Bin(n, p)/n − 1)/√d."""
    return (2.0 * rng.binomial(n, p_plus, size=d) / n - 1.0) / math.sqrt(d)


def log10_purification_scale(
    d: int, diameter: float, log_delta: float, log_omega: float, epsilon_prime: float
) -> float:
    """log10 of b = 2Δ/ε′ with Δ = 2d·R·(δ/2ω)^{1/d} (q = ∞), in log-space (b underflows for log δ ≲ −7000d)."""
    log_b = math.log(4.0 * d * diameter / epsilon_prime) + (log_delta - math.log(2.0) - log_omega) / d
    return log_b / math.log(10.0)


def _cube(d: int) -> LqBall:
    return LqBall(tuple([0.0] * d), 2.0 / math.sqrt(d), math.inf)


def _norms(out: np.ndarray, mean: np.ndarray) -> np.ndarray:
    return np.linalg.norm(out - mean, axis=1)


def mean_estimation_errors(
    mean: np.ndarray, n: int, epsilon_total: float, reference_log_delta: float, draws: int, rng: np.random.Generator
) -> list[dict[str, Any]]:
    """One record per method: the ℓ2 errors of ``draws`` releases of D̄ = ``mean`` at ε_tot, with parameters."""
    d = mean.shape[0]
    sens2, sens1 = 2.0 / n, 2.0 * math.sqrt(d) / n
    log_delta, log_omega = mean_estimation_log_delta(n, d)
    half = epsilon_total / 2.0
    sigma = float(agm_sigma(half, log_delta, sens2))
    cube = _cube(d)
    projected = np.clip(mean + sigma * rng.standard_normal((draws, d)), -cube.radius, cube.radius)
    purified = purify(projected, cube, half, log_delta, log_omega, rng)
    b_pur = purification_laplace_scale(purification_shift(d, math.inf, cube.diameter, log_delta, log_omega), half)
    b_lap = sens1 / epsilon_total
    sigma_ref = float(agm_sigma(epsilon_total, reference_log_delta, sens2))
    common = {"n": n, "d": d, "epsilon_total": epsilon_total, "adjacency": ADJACENCY, "draws": draws}
    pur = {
        "epsilon": half,
        "log_delta": log_delta,
        "omega": math.exp(log_omega),
        "epsilon_prime": half,
        "laplace_scale": b_pur,
        "log10_laplace_scale": log10_purification_scale(d, cube.diameter, log_delta, log_omega, half),
        "noise_scale": sigma,
    }
    rows = [
        ("purified_gaussian", True, _norms(purified, mean), pur, sigma * float(chi_mean(d))),
        (
            "gaussian_at_purification_delta",
            False,
            _norms(projected, mean),
            {**pur, "epsilon_prime": 0.0, "laplace_scale": 0.0, "log10_laplace_scale": -np.inf},
            sigma * float(chi_mean(d)),
        ),
        (
            "laplace",
            True,
            _norms(mean + rng.laplace(scale=b_lap, size=(draws, d)), mean),
            {"epsilon": epsilon_total, "log_delta": -np.inf, "noise_scale": b_lap},
            laplace_l2_norm_mean(d, b_lap),
        ),
        (
            "l2_knorm",
            True,
            np.linalg.norm(sample_l2_knorm(d, sens2, epsilon_total, draws, rng), axis=1),
            {"epsilon": epsilon_total, "log_delta": -np.inf, "noise_scale": sens2 / epsilon_total},
            d * sens2 / epsilon_total,
        ),
        (
            "gaussian_reference",
            False,
            np.linalg.norm(sigma_ref * rng.standard_normal((draws, d)), axis=1),
            {"epsilon": epsilon_total, "log_delta": reference_log_delta, "noise_scale": sigma_ref},
            sigma_ref * float(chi_mean(d)),
        ),
    ]
    records = []
    for method, pure, errors, params, expected in rows:
        records.append(
            {
                **common,
                "method": method,
                "pure": pure,
                "epsilon": np.nan,
                "log_delta": np.nan,
                "omega": np.nan,
                "epsilon_prime": np.nan,
                "laplace_scale": np.nan,
                "log10_laplace_scale": np.nan,
                **params,
                "error_mean": float(errors.mean()),
                "error_sem_draws": float(errors.std(ddof=1) / math.sqrt(draws)) if draws > 1 else np.nan,
                "expected_error": expected,
                "in_domain": bool(np.all(np.abs(projected) <= cube.radius))
                if "gaussian_at" in method or method == "purified_gaussian"
                else True,
            }
        )
    return records


def _dimension_panel(params: Mapping[str, Any], seed: int, progress) -> list[dict[str, Any]]:
    records = []
    n, ref = int(params["n"]), math.log(params["reference_delta"])
    for d in progress(list(params["ds"])):
        for s in range(int(params["seeds"])):
            mean = sample_data_mean(n, int(d), params["p_plus"], np.random.default_rng(derive_seed(seed, "data", d, s)))
            for eps in params["epsilons"]:
                rng = np.random.default_rng(derive_seed(seed, "noise", d, eps, s))
                for row in mean_estimation_errors(mean, n, float(eps), ref, int(params["draws"]), rng):
                    records.append({"panel": "dimension", "seed": s, **row})
    return records


def _delta_panel(params: Mapping[str, Any], seed: int) -> list[dict[str, Any]]:
    sweep = params["delta_sweep"]
    n, d, eps, draws = int(params["n"]), int(sweep["d"]), float(sweep["epsilon"]), int(params["draws"])
    lo, hi = theorem9_log_delta_range(n, d)
    cube = _cube(d)
    log_omega = -2.0 * math.log(n)
    paper_log_delta = mean_estimation_log_delta(n, d)[0]
    records = []
    for log10_delta in sweep["log10_deltas"]:
        log_delta = float(log10_delta) * math.log(10.0)
        sigma_half = float(agm_sigma(eps / 2, log_delta, 2.0 / n))
        sigma_full = float(agm_sigma(eps, log_delta, 2.0 / n))
        b_pur = purification_laplace_scale(
            purification_shift(d, math.inf, cube.diameter, log_delta, log_omega), eps / 2
        )
        bound = float(theorem9_lower_bound(n, d, eps, log_delta))
        for s in range(int(params["seeds"])):
            mean = sample_data_mean(n, d, params["p_plus"], np.random.default_rng(derive_seed(seed, "data", d, s)))
            rng = np.random.default_rng(derive_seed(seed, "delta_sweep", log10_delta, s))
            projected = np.clip(mean + sigma_half * rng.standard_normal((draws, d)), -cube.radius, cube.radius)
            purified = _norms(purify(projected, cube, eps / 2, log_delta, log_omega, rng), mean)
            gaussian = np.linalg.norm(sigma_full * rng.standard_normal((draws, d)), axis=1)
            common = {
                "panel": "delta",
                "seed": s,
                "n": n,
                "d": d,
                "epsilon_total": eps,
                "adjacency": ADJACENCY,
                "draws": draws,
                "log_delta": log_delta,
                "theorem9_lower_bound": bound,
                "theorem9_valid": bool(lo < log_delta < hi),
                "theorem9_log_delta_min": lo,
                "theorem9_log_delta_max": hi,
                "paper_log_delta": paper_log_delta,
                "pure_rate": d * 2.0 / (n * eps),
                "in_domain": True,
            }
            records.append(
                {
                    **common,
                    "method": "purified_gaussian",
                    "pure": True,
                    "epsilon": eps / 2,
                    "omega": math.exp(log_omega),
                    "epsilon_prime": eps / 2,
                    "laplace_scale": b_pur,
                    "log10_laplace_scale": log10_purification_scale(d, cube.diameter, log_delta, log_omega, eps / 2),
                    "noise_scale": sigma_half,
                    "error_mean": float(purified.mean()),
                    "error_sem_draws": float(purified.std(ddof=1) / math.sqrt(draws)) if draws > 1 else np.nan,
                    "expected_error": sigma_half * float(chi_mean(d)),
                }
            )
            records.append(
                {
                    **common,
                    "method": "gaussian_at_delta",
                    "pure": False,
                    "epsilon": eps,
                    "omega": np.nan,
                    "epsilon_prime": np.nan,
                    "laplace_scale": np.nan,
                    "log10_laplace_scale": np.nan,
                    "noise_scale": sigma_full,
                    "error_mean": float(gaussian.mean()),
                    "error_sem_draws": float(gaussian.std(ddof=1) / math.sqrt(draws)) if draws > 1 else np.nan,
                    "expected_error": sigma_full * float(chi_mean(d)),
                }
            )
    return records


def _audit_panel(params: Mapping[str, Any]) -> list[dict[str, Any]]:
    """Exact ε∞ of the d = 1 purified Gaussian on neighbouring means (μ, μ + 2/n), each treatment of Algorithm 1."""
    audit = params["audit"]
    n = int(audit["n"])
    log_delta, log_omega = mean_estimation_log_delta(n, 1)
    omega = math.exp(log_omega)
    records = []
    for eps in audit["epsilons"]:
        half = float(eps) / 2
        p, q, sigma = projected_gaussian_pair(half, log_delta, 2.0 / n, (float(audit["mean"]), None))
        b = purification_laplace_scale(purification_shift(1, math.inf, 2.0, log_delta, log_omega), half)
        for treatment in TREATMENTS:
            value = epsilon_inf_1d(p, q, treatment, omega=omega, b=b, n_points=int(audit["n_points"]))
            records.append(
                {
                    "panel": "audit",
                    "method": "purified_gaussian",
                    "treatment": treatment,
                    "pure": treatment == "full",
                    "n": n,
                    "d": 1,
                    "epsilon_total": float(eps),
                    "epsilon": half,
                    "log_delta": log_delta,
                    "omega": omega,
                    "epsilon_prime": half,
                    "laplace_scale": b,
                    "log10_laplace_scale": math.log10(b),
                    "noise_scale": sigma,
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
    first = ["panel", "method", "pure", "adjacency", "n", "d", "epsilon_total", "seed"]
    return frame[first + [c for c in frame.columns if c not in first]]
