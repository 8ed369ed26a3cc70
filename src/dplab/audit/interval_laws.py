"""Exact pure ε of pairs of laws on an interval Θ = [lo, hi], before and after the two steps of purification
(Algorithm 1 of Lin, Wang, Ma, Wang, "Purifying Approximate Differential Privacy with Randomized Post-processing":
mixing with Unif(Θ), then adding Laplace(b) noise).

A law on [lo, hi] (:class:`Law1D`) is a mixture of atoms, a restricted Gaussian density (the interior of a
projected Gaussian) and a uniform density.  Convolved with Laplace(b) every part has a closed form, evaluated in
log-space:

- atom a, weight w: w·e^{−|x−a|/b}/(2b) (the Laplace density, :class:`dplab.distributions.Laplace`);
- uniform on [lo, hi]: for lo ≤ x ≤ hi, [1 − ½e^{−(x−lo)/b} − ½e^{(x−hi)/b}]/(hi−lo); outside, ½e^{−dist/b}(1 −
  e^{−(hi−lo)/b})/(hi−lo);
- N(μ, σ²) restricted to [lo, hi]: using φ_σ(t−μ)e^{±t/b} = e^{±μ/b+σ²/(2b²)}φ_σ(t−μ∓σ²/b),
  e^{−(x−μ)/b+σ²/(2b²)}/(2b)·[Φ((u−μ−σ²/b)/σ) − Φ((lo−μ−σ²/b)/σ)] + e^{(x−μ)/b+σ²/(2b²)}/(2b)·[Φ((hi−μ+σ²/b)/σ)
  − Φ((v−μ+σ²/b)/σ)] with u = min(x, hi), v = max(x, lo), evaluated through G(a) = log Φ(a) + a²/2 (erfcx) so
  that σ/b of 10^15 (the analytic Gaussian mechanism at ε = 0 and tiny δ) loses no precision.

The exact pure ε of a pair is ε∞ = max(D∞(P‖Q), D∞(Q‖P)) (:mod:`dplab.audit.pure_epsilon`).  Outside [lo, hi]
every convolved part is proportional to e^{∓x/b}, so the density ratio is constant there and the sup over ℝ is the
sup over [lo, hi]: it is taken on a grid of [lo, hi] refined to spacing b/20 within ±60b of every atom and boundary.
Without Laplace noise the laws have atoms and densities (mutually singular parts): ε∞ is the larger of the atom
log-ratios and the density log-ratios, and ∞ as soon as one law charges a point or region the other does not.  In
2-D, laws are products of 1-D laws on the square [lo, hi]², mixed with the uniform law on the square: ε∞ of
products is the sum of the coordinate sups, and the mixed/purified densities are evaluated on the product grid.
"""

from __future__ import annotations

import math
from dataclasses import dataclass, replace

import numpy as np
from numpy.typing import ArrayLike
from scipy.special import erfcx, log_ndtr, logsumexp

from dplab.audit.pure_epsilon import directional_log_ratio_sups
from dplab.checks import as_float_array, choice, finite, non_negative_finite, positive_finite, probability, whole_number
from dplab.distributions import Laplace
from dplab.numerics import log1mexp, logsubexp

__all__ = [
    "TREATMENTS",
    "Law1D",
    "log_uniform_convolved",
    "log_gaussian_convolved",
    "projected_gaussian_law",
    "epsilon_inf_1d",
    "epsilon_inf_2d_product",
]

#: none; mixing only (Algorithm 1, line 2); Laplace noise only (line 3); full purification (both).
TREATMENTS: tuple[str, ...] = ("none", "mixing_only", "laplace_only", "full")
_MARGIN_IN_SCALES = 60.0
_LOCAL_POINTS = 2401
_LOCAL_POINTS_2D = 241


def _interval(lo: float, hi: float) -> tuple[float, float]:
    """(lo, hi) as floats after checking both are finite and lo < hi."""
    lo, hi = finite("lo", lo), finite("hi", hi)
    if not lo < hi:
        raise ValueError(f"lo={lo!r} and hi={hi!r} are invalid; allowed: finite numbers with lo < hi")
    return lo, hi


@dataclass(frozen=True)
class Law1D:
    """A law on [lo, hi]: atoms (locations, weights) + gauss_weight·N(μ, σ²) density restricted to [lo, hi]
    (not renormalised) + uniform_weight·Unif[lo, hi]."""

    atoms: tuple[float, ...] = ()
    weights: tuple[float, ...] = ()
    gauss_weight: float = 0.0
    gauss_mean: float = 0.0
    gauss_sigma: float = 1.0
    uniform_weight: float = 0.0
    lo: float = -1.0
    hi: float = 1.0

    def __post_init__(self) -> None:
        lo, hi = _interval(self.lo, self.hi)
        if len(self.atoms) != len(self.weights):
            raise ValueError(
                f"atoms has {len(self.atoms)} entries and weights has {len(self.weights)}; allowed: the same number"
            )
        for location in self.atoms:
            if not lo <= finite("atoms", location) <= hi:
                raise ValueError(f"atoms={location!r} is invalid; allowed: locations in [lo, hi] = [{lo}, {hi}]")
        for weight in self.weights:
            non_negative_finite("weights", weight)
        non_negative_finite("gauss_weight", self.gauss_weight)
        finite("gauss_mean", self.gauss_mean)
        positive_finite("gauss_sigma", self.gauss_sigma)
        non_negative_finite("uniform_weight", self.uniform_weight)

    def mixed(self, omega: float) -> Law1D:
        """(1 − ω)·law + ω·Unif[lo, hi] (Algorithm 1, line 2)."""
        omega = probability("omega", omega)
        return replace(
            self,
            weights=tuple((1 - omega) * w for w in self.weights),
            gauss_weight=(1 - omega) * self.gauss_weight,
            uniform_weight=(1 - omega) * self.uniform_weight + omega,
        )

    def atom_mass(self, location: float) -> float:
        """The total weight of the atoms at ``location`` (0 if there is none)."""
        return float(sum(w for a, w in zip(self.atoms, self.weights) if a == location))

    def log_density(self, x: ArrayLike) -> np.ndarray:
        """log of the absolutely continuous part's density on [lo, hi] (−inf where it vanishes)."""
        x = as_float_array(x, "x")
        terms = [np.full_like(x, -np.inf)]
        if self.gauss_weight > 0:
            z = (x - self.gauss_mean) / self.gauss_sigma
            terms.append(math.log(self.gauss_weight) - 0.5 * z**2 - math.log(self.gauss_sigma * math.sqrt(2 * math.pi)))
        if self.uniform_weight > 0:
            terms.append(np.full_like(x, math.log(self.uniform_weight / (self.hi - self.lo))))
        return logsumexp(np.stack(terms), axis=0)

    def log_density_convolved(self, x: ArrayLike, b: float) -> np.ndarray:
        """log of the density of law ⊛ Laplace(b) at x (closed forms, module docstring)."""
        x = as_float_array(x, "x")
        b = positive_finite("b", b)
        terms = [np.full_like(x, -np.inf)]
        for a, w in zip(self.atoms, self.weights):
            if w > 0:
                terms.append(math.log(w) + Laplace(b, a).log_pdf(x))
        if self.gauss_weight > 0:
            terms.append(
                math.log(self.gauss_weight)
                + log_gaussian_convolved(x, self.gauss_mean, self.gauss_sigma, b, self.lo, self.hi)
            )
        if self.uniform_weight > 0:
            terms.append(math.log(self.uniform_weight) + log_uniform_convolved(x, self.lo, self.hi, b))
        return logsumexp(np.stack(terms), axis=0)


def log_uniform_convolved(x: ArrayLike, lo: float, hi: float, b: float) -> np.ndarray:
    """log density of Unif[lo, hi] ⊛ Laplace(b) at x: log[1 − ½e^{−(x−lo)/b} − ½e^{−(hi−x)/b}] − log(hi − lo)
    inside [lo, hi], log ½ − dist(x, [lo, hi])/b + log(1 − e^{−(hi−lo)/b}) − log(hi − lo) outside."""
    x = as_float_array(x, "x")
    lo, hi = _interval(lo, hi)
    b = positive_finite("b", b)
    width = hi - lo
    outside = np.log(0.5) - np.maximum(lo - x, x - hi) / b + log1mexp(-width / b)
    inside = np.log1p(-0.5 * np.exp(-np.clip(x - lo, 0, None) / b) - 0.5 * np.exp(-np.clip(hi - x, 0, None) / b))
    return np.where((x < lo) | (x > hi), outside, inside) - math.log(width)


def _log_ndtr_plus_half_square(a: np.ndarray) -> np.ndarray:
    """G(a) = log Φ(a) + a²/2, stable for very negative a: log(erfcx(−a/√2)/2) (Φ(a) = erfcx(−a/√2)e^{−a²/2}/2)."""
    a = np.asarray(a, float)
    with np.errstate(over="ignore"):
        tail = np.log(erfcx(-np.minimum(a, 0.0) / math.sqrt(2.0)) / 2.0)
    return np.where(a < 0, tail, log_ndtr(np.maximum(a, 0.0)) + 0.5 * np.maximum(a, 0.0) ** 2)


def log_gaussian_convolved(x: ArrayLike, mean: float, sigma: float, b: float, lo: float, hi: float) -> np.ndarray:
    """log ∫_lo^hi φ_σ(t − μ)·e^{−|x−t|/b}/(2b) dt in closed form, stable for σ/b up to 1e300.

    Left part (t < x): (1/2b)·Σ_{y ∈ {u, lo}} ± exp(−(x − y)/b − ((y − μ)/σ)²/2 + G((y − μ)/σ − σ/b)), u = min(x, hi);
    right part (t > x): (1/2b)·Σ_{y ∈ {v, hi}} ± exp(−(y − x)/b − ((y − μ)/σ)²/2 + G(−(y − μ)/σ − σ/b)), v = max(x, lo);
    with G(a) = log Φ(a) + a²/2 (the e^{σ²/(2b²)} factors cancel analytically, so nothing overflows).
    """
    x = as_float_array(x, "x")
    mean = finite("mean", mean)
    sigma, b = positive_finite("sigma", sigma), positive_finite("b", b)
    lo, hi = _interval(lo, hi)
    ratio = sigma / b

    def left_term(y):
        return -(x - y) / b - 0.5 * ((y - mean) / sigma) ** 2 + _log_ndtr_plus_half_square((y - mean) / sigma - ratio)

    def right_term(y):
        return -(y - x) / b - 0.5 * ((y - mean) / sigma) ** 2 + _log_ndtr_plus_half_square(-(y - mean) / sigma - ratio)

    u, v = np.minimum(x, hi), np.maximum(x, lo)
    with np.errstate(divide="ignore", invalid="ignore"):
        left = np.where(x > lo, logsubexp(left_term(u), left_term(np.full_like(x, lo))), -np.inf)
        right = np.where(x < hi, logsubexp(right_term(v), right_term(np.full_like(x, hi))), -np.inf)
    return np.logaddexp(left, right) - math.log(2 * b)


def projected_gaussian_law(mean: float, sigma: float, lo: float = -1.0, hi: float = 1.0) -> Law1D:
    """Proj_[lo, hi](N(mean, σ²)): atoms Φ((lo − μ)/σ) at lo and 1 − Φ((hi − μ)/σ) at hi, density inside."""
    mean, sigma = finite("mean", mean), positive_finite("sigma", sigma)
    lo, hi = _interval(lo, hi)
    return Law1D(
        (lo, hi),
        (math.exp(log_ndtr((lo - mean) / sigma)), math.exp(log_ndtr((mean - hi) / sigma))),
        gauss_weight=1.0,
        gauss_mean=mean,
        gauss_sigma=sigma,
        lo=lo,
        hi=hi,
    )


def _audit_grid(
    lo: float, hi: float, features: tuple[float, ...], b: float | None, n_points: int, local_points: int = _LOCAL_POINTS
) -> np.ndarray:
    """Sorted grid of [lo, hi]: ``n_points`` equally spaced, plus (if b is given) ``local_points`` equally spaced
    within ±60b of each feature (atoms and the boundary; spacing b/20 by default)."""
    parts = [np.linspace(lo, hi, n_points), np.asarray(features, float)]
    if b is not None:
        local = b * np.linspace(-_MARGIN_IN_SCALES, _MARGIN_IN_SCALES, local_points)
        parts += [f + local for f in (*features, lo, hi)]
    grid = np.concatenate(parts)
    return np.unique(grid[(grid >= lo) & (grid <= hi)])


def _directional_sups_raw(p: Law1D, q: Law1D, n_points: int) -> dict[str, tuple[float, float]]:
    """Directional sups of the atom part and of the density part of two laws without Laplace noise."""
    locations = np.array(sorted(set(p.atoms) | set(q.atoms)), float)
    with np.errstate(divide="ignore"):
        atoms = directional_log_ratio_sups(
            np.log([p.atom_mass(a) for a in locations]), np.log([q.atom_mass(a) for a in locations])
        )
    grid = np.linspace(p.lo, p.hi, n_points)
    return {"atoms": atoms, "density": directional_log_ratio_sups(p.log_density(grid), q.log_density(grid))}


def _directional_sups_convolved(p: Law1D, q: Law1D, b: float, n_points: int) -> tuple[float, float]:
    """(sup log p⊛ℓ_b / q⊛ℓ_b, sup of the reverse) over ℝ, evaluated on :func:`_audit_grid`."""
    grid = _audit_grid(p.lo, p.hi, tuple(sorted(set(p.atoms) | set(q.atoms))), b, n_points)
    return directional_log_ratio_sups(p.log_density_convolved(grid, b), q.log_density_convolved(grid, b))


def _combine(*pairs: tuple[float, float]) -> float:
    return float(max(max(pair) for pair in pairs))


def _checked_treatment(
    laws: tuple[Law1D, ...], treatment: str, omega: float | None, b: float | None, n_points: int
) -> tuple[float | None, float | None]:
    """Check the arguments of the ε∞ functions; (ω, b) as floats where the treatment uses them (None otherwise)."""
    choice("treatment", treatment, TREATMENTS)
    whole_number("n_points", n_points, minimum=2)
    for law in laws:
        if not isinstance(law, Law1D):
            raise TypeError(f"p and q must be made of Law1D laws; got {law!r}")
        if (law.lo, law.hi) != (laws[0].lo, laws[0].hi):
            raise ValueError(
                f"p and q are laws on [{laws[0].lo}, {laws[0].hi}] and [{law.lo}, {law.hi}]; allowed: one interval"
            )
    if treatment in ("mixing_only", "full"):
        omega = probability("omega", omega)
    if treatment in ("laplace_only", "full"):
        b = positive_finite("b", b)
    return omega, b


def epsilon_inf_1d(
    p: Law1D, q: Law1D, treatment: str, *, omega: float | None = None, b: float | None = None, n_points: int = 20001
) -> float:
    """ε∞ = max(D∞(P̃‖Q̃), D∞(Q̃‖P̃)) of the treated laws (``treatment`` ∈ TREATMENTS; ω for mixing, b for Laplace;
    ``n_points`` equally spaced points of [lo, hi], refined near atoms and the boundary when b is used)."""
    omega, b = _checked_treatment((p, q), treatment, omega, b, n_points)
    if treatment in ("mixing_only", "full"):
        p, q = p.mixed(omega), q.mixed(omega)
    if treatment in ("none", "mixing_only"):
        parts = _directional_sups_raw(p, q, n_points)
        return _combine(parts["atoms"], parts["density"])
    return _combine(_directional_sups_convolved(p, q, b, n_points))


def _log_outer(a: np.ndarray, c: np.ndarray) -> np.ndarray:
    return a[:, None] + c[None, :]


def epsilon_inf_2d_product(
    p: tuple[Law1D, Law1D],
    q: tuple[Law1D, Law1D],
    treatment: str,
    *,
    omega: float | None = None,
    b: float | None = None,
    n_points: int = 2001,
) -> float:
    """ε∞ of product laws P1×P2 vs Q1×Q2 on the square [lo, hi]², treated as in Algorithm 1 with the uniform law on
    the square.  Products without mixing: directional sups add.  Mixing only: corners and edges keep their
    (1 − ω)-scaled ratios, the interior density (1 − ω)f1f2 + ω/W² is evaluated on the product grid.  Full: the
    purified density (1 − ω)(P1⊛ℓ)(P2⊛ℓ) + ω(U⊛ℓ)(U⊛ℓ) on the product grid."""
    if len(p) != 2 or len(q) != 2:
        raise ValueError(f"p has {len(p)} and q has {len(q)} coordinate laws; allowed: 2 each")
    omega, b = _checked_treatment((*p, *q), treatment, omega, b, n_points)
    if treatment == "laplace_only":
        sups = [_directional_sups_convolved(pi, qi, b, n_points) for pi, qi in zip(p, q)]
        return float(max(sups[0][0] + sups[1][0], sups[0][1] + sups[1][1]))
    if treatment in ("none", "mixing_only"):
        raw = [_directional_sups_raw(pi, qi, n_points) for pi, qi in zip(p, q)]
        pieces = [
            (
                raw[0]["atoms"][k] + raw[1]["atoms"][k],
                raw[0]["atoms"][k] + raw[1]["density"][k],
                raw[0]["density"][k] + raw[1]["atoms"][k],
            )
            for k in (0, 1)
        ]
        corners_edges = max(max(pieces[0]), max(pieces[1]))
        if treatment == "none":
            interior = max(raw[0]["density"][0] + raw[1]["density"][0], raw[0]["density"][1] + raw[1]["density"][1])
            return float(max(corners_edges, interior))
        grid = np.linspace(p[0].lo, p[0].hi, n_points)
        log_uniform = math.log(omega / (p[0].hi - p[0].lo) ** 2)

        def interior_log_density(law: tuple[Law1D, Law1D]) -> np.ndarray:
            dens = _log_outer(law[0].log_density(grid), law[1].log_density(grid))
            return np.logaddexp(math.log1p(-omega) + dens, log_uniform)

        interior = directional_log_ratio_sups(interior_log_density(p).ravel(), interior_log_density(q).ravel())
        return float(max(corners_edges, *interior))
    features = tuple(sorted(set(p[0].atoms) | set(q[0].atoms) | set(p[1].atoms) | set(q[1].atoms)))
    grid = _audit_grid(p[0].lo, p[0].hi, features, b, n_points, local_points=_LOCAL_POINTS_2D)
    log_u = log_uniform_convolved(grid, p[0].lo, p[0].hi, b)
    log_mix_uniform = math.log(omega) + _log_outer(log_u, log_u)

    def purified(law: tuple[Law1D, Law1D]) -> np.ndarray:
        upstream = _log_outer(law[0].log_density_convolved(grid, b), law[1].log_density_convolved(grid, b))
        return np.logaddexp(math.log1p(-omega) + upstream, log_mix_uniform)

    return _combine(directional_log_ratio_sups(purified(p).ravel(), purified(q).ravel()))
