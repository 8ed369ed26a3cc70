"""Privacy audits of purification (Theorem 1, Algorithm 1): the exact pure-ε table (``ext_exact_audit``) and black-box
Monte-Carlo lower bounds from samples (``ext_mc_audit``)."""

from __future__ import annotations

import math
from collections.abc import Callable, Iterable, Mapping
from typing import Any

import numpy as np
import pandas as pd

from dplab.audit.interval_laws import Law1D, epsilon_inf_1d, epsilon_inf_2d_product
from dplab.audit.purification_pairs import (
    canonical_pair,
    example17_pair,
    projected_gaussian_pair,
    purification_scale_1d,
)
from dplab.audit.threshold import pure_epsilon_lower_bound
from dplab.purify import purify_continuous
from dplab.seeding import derive_seed
from dplab.theory.purification import purification_laplace_scale, purification_shift
from dplab.workflow.registry import no_progress

__all__ = ["EXACT_AUDIT_COLUMNS", "MECHANISMS", "mechanism_pair", "exact_audit_table", "mc_audit"]

EXACT_AUDIT_COLUMNS = ["mechanism", "treatment", "epsilon", "delta", "omega", "epsilon_prime", "epsilon_inf", "bound"]


def _product_gaussian_pair(epsilon: float, delta: float, sensitivity: float) -> tuple[tuple, tuple]:
    """M4: the AGM at ℓ2 sensitivity s on [−1, 1]², means (0, 0) and (s/√2, s/√2), as pairs of coordinate laws."""
    shift = sensitivity / math.sqrt(2.0)
    p1, q1, _ = projected_gaussian_pair(epsilon, math.log(delta), sensitivity, (0.0, shift))
    return (p1, p1), (q1, q1)


#: Each audited mechanism's neighbouring pair as a function of (ε, δ, sensitivity): M1 worst-case pair, M2 Example
#: 17, M3 projected Gaussian (1-D), M4 projected Gaussian on [−1, 1]² (q = ∞).
_PAIRS: dict[str, Callable[[float, float, float], tuple]] = {
    "M1": lambda epsilon, delta, sensitivity: canonical_pair(epsilon, delta),
    "M2": lambda epsilon, delta, sensitivity: example17_pair(delta),
    "M3": lambda epsilon, delta, sensitivity: projected_gaussian_pair(epsilon, math.log(delta), sensitivity)[:2],
    "M4": _product_gaussian_pair,
}
MECHANISMS = tuple(_PAIRS)


def mechanism_pair(name: str, epsilon: float, delta: float, sensitivity: float):
    """The neighbouring output laws of mechanism ``name`` calibrated to (ε, δ): a pair of :class:`Law1D` (M1–M3) or
    a pair of coordinate tuples (M4: AGM at ℓ2 sensitivity s, means (0, 0) and (s/√2, s/√2))."""
    if name not in _PAIRS:
        raise ValueError(f"mechanism={name!r} is not allowed; choose one of {MECHANISMS}")
    return _PAIRS[name](epsilon, delta, sensitivity)


def _dimension(name: str) -> int:
    return 2 if name == "M4" else 1


def _laplace_scale(name: str, delta: float, omega: float, epsilon_prime: float) -> float:
    """b = 2Δ/ε′ on Θ = [−1, 1] (d = 1, R = 2) or Θ = [−1, 1]² as an ℓ∞ ball (d = 2, q = ∞, R = 2)."""
    if _dimension(name) == 1:
        return purification_scale_1d(math.log(delta), omega, epsilon_prime)
    return purification_laplace_scale(
        purification_shift(2, math.inf, 2.0, math.log(delta), math.log(omega)), epsilon_prime
    )


def _epsilon_inf(name: str, pair, treatment: str, omega: float | None, b: float | None, params) -> float:
    if _dimension(name) == 1:
        return epsilon_inf_1d(*pair, treatment, omega=omega, b=b, n_points=params["n_points_1d"])
    return epsilon_inf_2d_product(*pair, treatment, omega=omega, b=b, n_points=params["n_points_2d"])


def _row(name, treatment, eps, delta, omega, eps_prime, value, bound) -> dict[str, Any]:
    return dict(zip(EXACT_AUDIT_COLUMNS, (name, treatment, eps, delta, omega, eps_prime, value, bound)))


def _audited_epsilons(name: str, params: Mapping[str, Any]) -> list[float]:
    """The ε grid of a mechanism: M2 is (0, δ)-DP, so it is audited at ε = 0 only."""
    return [0.0] if name == "M2" else params["epsilons"]


def _treatment_rows(name: str, pair, eps: float, delta: float, params: Mapping[str, Any]) -> list[dict[str, Any]]:
    """ε∞ of one (ε, δ) pair with no treatment, with mixing only (each ω), and with Laplace only and full
    purification (each ω, ε′; bound ε + ε′ of Theorem 1)."""
    rows = [
        _row(name, "none", eps, delta, np.nan, np.nan, _epsilon_inf(name, pair, "none", None, None, params), np.nan)
    ]
    for omega in params["omegas"]:
        mixed = _epsilon_inf(name, pair, "mixing_only", omega, None, params)
        rows.append(_row(name, "mixing_only", eps, delta, omega, np.nan, mixed, np.nan))
        for eps_prime in params["epsilon_primes"]:
            b = _laplace_scale(name, delta, omega, eps_prime)
            for treatment in ("laplace_only", "full"):
                value = _epsilon_inf(name, pair, treatment, omega, b, params)
                rows.append(_row(name, treatment, eps, delta, omega, eps_prime, value, eps + eps_prime))
    return rows


def _ablation_rows(params: Mapping[str, Any]) -> list[dict[str, Any]]:
    """Full purification of the ablation's pair with the Laplace scale f·b for f in (1, *factors)."""
    ablation = params["ablation"]
    name, eps, delta, omega, eps_prime = (
        ablation[key] for key in ("mechanism", "epsilon", "delta", "omega", "epsilon_prime")
    )
    pair = mechanism_pair(name, eps, delta, params["sensitivity"])
    b = _laplace_scale(name, delta, omega, eps_prime)
    return [
        _row(
            name,
            f"full_scale_x{factor:g}",
            eps,
            delta,
            omega,
            eps_prime,
            _epsilon_inf(name, pair, "full", omega, factor * b, params),
            eps + eps_prime,
        )
        for factor in [1.0, *ablation["factors"]]
    ]


def exact_audit_table(
    params: Mapping[str, Any], seed: int = 0, progress: Callable[[Iterable[Any]], Iterable[Any]] = no_progress
) -> pd.DataFrame:
    """``ext_exact_audit``: ε∞ of M1–M4 under none / mixing_only / laplace_only / full over the (ε, δ, ω, ε′) grid,
    with the bound ε + ε′ of Theorem 1 on the rows that add the prescribed Laplace noise (NaN where no pure bound
    is claimed), plus the ablation rows ``full_scale_x<f>`` whose Laplace scale is f·b.  M2 is (0, δ)-DP, so it is
    audited at ε = 0 only.  Deterministic (no sampling)."""
    rows = []
    for name in progress(params["mechanisms"]):
        for eps in _audited_epsilons(name, params):
            for delta in params["deltas"]:
                pair = mechanism_pair(name, eps, delta, params["sensitivity"])
                rows += _treatment_rows(name, pair, eps, delta, params)
    rows += _ablation_rows(params)
    return pd.DataFrame(rows, columns=EXACT_AUDIT_COLUMNS)


def _sample_law(law: Law1D, mechanism: str, size: int, rng: np.random.Generator) -> np.ndarray:
    """``size`` draws of a 1-D mechanism's output: M1/M2 atoms (+ uniform part), M3 a projected Gaussian."""
    if mechanism == "M3":
        return np.clip(rng.normal(law.gauss_mean, law.gauss_sigma, size), law.lo, law.hi)
    weights = np.array([*law.weights, law.uniform_weight])
    choice = rng.choice(len(weights), size=size, p=weights / weights.sum())
    out = np.asarray(law.atoms + (0.0,), float)[choice]
    uniform = choice == len(law.atoms)
    out[uniform] = rng.uniform(law.lo, law.hi, int(uniform.sum()))
    return out


def _purify_on_interval(x: np.ndarray, params: Mapping[str, Any], rng: np.random.Generator) -> np.ndarray:
    """Algorithm 1 on Θ = [−1, 1] (d = 1, diameter 2) at the audit's (ε, δ, ω, ε′), by :func:`dplab.purify_continuous`
    (its projection leaves these samples, which lie in Θ, unchanged)."""
    release = purify_continuous(
        x[:, None],
        epsilon=params["epsilon"],
        delta=params["delta"],
        epsilon_prime=params["epsilon_prime"],
        omega=params["omega"],
        center=(0.0,),
        diameter=2.0,
        rng=rng,
    )
    return release.value[:, 0]


def mc_audit(
    params: Mapping[str, Any], seed: int, progress: Callable[[Iterable[Any]], Iterable[Any]] = no_progress
) -> pd.DataFrame:
    """``ext_mc_audit``: Monte-Carlo lower bounds on the pure ε of unpurified (``none``) and purified (``full``)
    outputs of 1-D mechanisms, from N samples of each neighbour.  Events, fixed before sampling: {x < t} and
    {x > t} for ``n_thresholds`` equally spaced t in [−1 − 10b, 1 + 10b] and {x = a} for each atom, in both
    directions; ε_LB = max over events of log(P_lo/Q_hi) with one-sided Clopper–Pearson bounds at level
    α/(number of events) each (Bonferroni: the maximum is a (1 − α) lower bound).  ``epsilon_exact`` is the exact
    ε∞ of the same pair (:mod:`dplab.audit.interval_laws`)."""
    rows = []
    for mechanism in params["mechanisms"]:
        eps, delta, omega, eps_prime = (params[k] for k in ("epsilon", "delta", "omega", "epsilon_prime"))
        p_law, q_law = mechanism_pair(mechanism, eps, delta, params["sensitivity"])
        b = purification_scale_1d(math.log(delta), omega, eps_prime)
        thresholds = np.linspace(-1 - 10 * b, 1 + 10 * b, params["n_thresholds"])
        atoms = np.array(sorted(set(p_law.atoms) | set(q_law.atoms)), float)
        exact = {t: epsilon_inf_1d(p_law, q_law, t, omega=omega, b=b, n_points=20001) for t in ("none", "full")}
        for n_samples in progress(params["sample_sizes"]):
            for treatment in ("none", "full"):
                rng = np.random.default_rng(derive_seed(seed, "mc_audit", mechanism, treatment, n_samples))
                samples = []
                for law in (p_law, q_law):
                    x = _sample_law(law, mechanism, int(n_samples), rng)
                    samples.append(_purify_on_interval(x, params, rng) if treatment == "full" else x)
                lower = pure_epsilon_lower_bound(*samples, thresholds, atoms, alpha=params["alpha"])
                rows.append(
                    {
                        "mechanism": mechanism,
                        "treatment": treatment,
                        "n_samples": int(n_samples),
                        "epsilon_lb": lower.epsilon_lb,
                        "epsilon_exact": exact[treatment],
                        "n_events": lower.n_events,
                        "alpha": params["alpha"],
                        "epsilon": eps,
                        "delta": delta,
                        "omega": omega,
                        "epsilon_prime": eps_prime,
                        "laplace_scale": b,
                    }
                )
    return pd.DataFrame(rows)
