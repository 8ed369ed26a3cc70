"""Exact numerical law of a projected 1-D noisy chain on [a, b] (our audit design: a near-exact reference for
the bounds of Asoodeh, Diaz, Calmon 2020; the paper has no such computation).

In one dimension the output of projected noisy SGD (PNSGD, Algorithm 1 of Asoodeh, Diaz, Calmon 2020)
Y_{t+1} = Π_[a,b](ψ_{x_{t+1}}(Y_t) + lr·scale·Z_{t+1}) has a law made of an atom at a, a density on (a, b)
and an atom at b. We bin it on a uniform grid as a probability vector

    [atom_a, cell_1, ..., cell_N, atom_b]        (length N + 2),

and propagate it with row-stochastic kernel matrices whose rows are the exact binned laws of one step
started from a representative input point (a, the cell centres, b).  Two approximations remain:
mass inside a cell is moved as if it sat at the cell centre, and the final output is binned.  Both vanish as
N grows; with an exact first step from a point mass, a one-step chain is exact whenever the likelihood-ratio
level sets are unions of cells (e.g. n = i = 1, [a, b] = [0, 40], y0 = 20, x = ±0.5, unit noise scale and N a
multiple of 40 give θ_{e^ε}(1) of the paper's eq. (10) exactly: 0.382925 at ε = 0, 0.126937 at ε = 1).

The paper's randomly stopped variant (Theorem 5) outputs Y_T with T ~ Unif{1..n}; its law is the uniform
mixture (1/n) Σ_{t=1..n} law(Y_t) (proof of Theorem 5), which ``pnsgd_output_laws(..., random_stop=True)``
returns.
"""

from __future__ import annotations

from collections.abc import Callable, Iterator, Sequence
from dataclasses import dataclass
from functools import cached_property

import numpy as np
import scipy.special

from dplab.checks import (
    as_finite_array,
    as_float_array,
    as_non_negative_array,
    positive_finite,
    real_number,
    whole_number,
)
from dplab.distributions import Laplace

__all__ = [
    "NOISE_NAMES",
    "UniformGrid",
    "bin_index",
    "kernel_matrix",
    "linear_loss_psi",
    "pnsgd_output_laws",
    "point_mass",
    "privacy_loss_bound",
    "propagate",
    "strongly_convex_loss_psi",
]

GradientStep = Callable[[np.ndarray, float], np.ndarray]
_STANDARD_LAPLACE = Laplace(scale=1.0)


def _gaussian_cdf_sf(z: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """Standard normal cdf Φ(z) and survival function Q(z) = Φ(−z), each accurate in its own tail."""
    return scipy.special.ndtr(z), scipy.special.ndtr(-z)


def _laplace_cdf_sf(z: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """Standard Laplace (density e^{−|z|}/2) cdf and survival function, each accurate in its own tail."""
    return _STANDARD_LAPLACE.cdf(z), _STANDARD_LAPLACE.sf(z)


_NOISE_CDF_SF: dict[str, Callable[[np.ndarray], tuple[np.ndarray, np.ndarray]]] = {
    "gaussian": _gaussian_cdf_sf,
    "laplace": _laplace_cdf_sf,
}
NOISE_NAMES: tuple[str, ...] = tuple(_NOISE_CDF_SF)


def _noise_cdf_sf(noise: str) -> Callable[[np.ndarray], tuple[np.ndarray, np.ndarray]]:
    try:
        return _NOISE_CDF_SF[noise]
    except KeyError:
        raise ValueError(f"noise={noise!r} is not supported; allowed: {', '.join(NOISE_NAMES)}") from None


@dataclass(frozen=True)
class UniformGrid:
    """Uniform partition of [a, b] into ``n_cells`` cells, plus one atom at each end.

    State layout (length n_cells + 2): [atom at a, cell_1, ..., cell_N, atom at b].
    """

    a: float
    b: float
    n_cells: int

    def __post_init__(self) -> None:
        real_number("a", self.a), real_number("b", self.b)
        if not (np.isfinite(self.a) and np.isfinite(self.b) and self.a < self.b):
            raise ValueError(f"grid bounds a={self.a!r}, b={self.b!r} must be finite with a < b")
        whole_number("n_cells", self.n_cells)

    @cached_property
    def edges(self) -> np.ndarray:
        """Cell edges e_0 = a < e_1 < ... < e_N = b, shape (n_cells + 1,)."""
        return np.linspace(self.a, self.b, int(self.n_cells) + 1)

    @cached_property
    def points(self) -> np.ndarray:
        """Representative input points [a, cell centres..., b], shape (n_cells + 2,)."""
        centres = 0.5 * (self.edges[:-1] + self.edges[1:])
        return np.concatenate(([self.a], centres, [self.b]))

    @property
    def size(self) -> int:
        """Length of a state vector: n_cells + 2."""
        return int(self.n_cells) + 2


def bin_index(samples: np.ndarray, grid: UniformGrid) -> np.ndarray:
    """State index of each sample in the [atom_a, cells, atom_b] layout of ``grid``.

    Samples y <= a go to 0 (atom at a), y >= b to size − 1 (atom at b); an interior y goes to the cell
    [e_{j−1}, e_j) containing it, index j.  Projected samples (np.clip) land exactly on a and b.
    """
    samples = as_float_array(samples, "samples")
    index = np.searchsorted(grid.edges, samples, side="right")
    index = np.where(samples <= grid.a, 0, index)
    return np.where(samples >= grid.b, grid.size - 1, index)


def _validated_start(grid: UniformGrid, y0: float) -> float:
    y0 = real_number("y0", y0)
    if not grid.a <= y0 <= grid.b:
        raise ValueError(f"y0={y0!r} must lie in [a, b] = [{grid.a}, {grid.b}]")
    return y0


def point_mass(grid: UniformGrid, y0: float) -> np.ndarray:
    """Probability vector with mass 1 in the bin of y0 (an atom if y0 is a or b, else its cell)."""
    y0 = _validated_start(grid, y0)
    law = np.zeros(grid.size)
    law[bin_index(y0, grid)] = 1.0
    return law


def kernel_matrix(grid: UniformGrid, means: np.ndarray, *, scale: float, noise: str) -> np.ndarray:
    """Binned laws of Π_[a,b](m + scale·Z), one row per mean m.

    With F, sf the standard cdf / survival function of Z (noise "gaussian" or "laplace") and
    z_j = (e_j − m)/scale:
        atom_a = F(z_0),   cell_j = F(z_j) − F(z_{j−1}),   atom_b = sf(z_N).
    Cells lying entirely above the mean use sf(z_{j−1}) − sf(z_j) instead, which keeps relative accuracy in
    the upper tail.  Shape (len(means), grid.size); each row sums to 1 up to rounding.  Passing
    ``means = ψ_x(grid.points)`` gives the (size, size) transition matrix of one PNSGD step.
    """
    scale = positive_finite("scale", scale)
    cdf_sf = _noise_cdf_sf(noise)
    means = np.atleast_1d(as_finite_array(means, "means"))
    if means.ndim != 1:
        raise ValueError(f"means must be a finite 1-D array; got shape {means.shape}")
    z = (grid.edges[np.newaxis, :] - means[:, np.newaxis]) / scale
    cdf, sf = cdf_sf(z)
    upper_side = z[:, :-1] >= 0
    cells = np.where(upper_side, sf[:, :-1] - sf[:, 1:], cdf[:, 1:] - cdf[:, :-1])
    return np.concatenate((cdf[:, :1], cells, sf[:, -1:]), axis=1)


def _validated_law(grid: UniformGrid, law: np.ndarray, name: str) -> np.ndarray:
    law = as_non_negative_array(law, name)
    if law.shape != (grid.size,):
        raise ValueError(f"{name} must have shape ({grid.size},); got {law.shape}")
    return law


def _successive_laws(initial: np.ndarray, kernels: Sequence[np.ndarray]) -> Iterator[np.ndarray]:
    """Yield initial·K_1, initial·K_1·K_2, ... (one vector-matrix product per step)."""
    law = initial
    for kernel in kernels:
        law = law @ kernel
        yield law


def propagate(grid: UniformGrid, initial: np.ndarray, kernels: Sequence[np.ndarray]) -> np.ndarray:
    """Law after applying ``kernels`` in order to ``initial``: μ K_1 K_2 ... K_T."""
    law = _validated_law(grid, initial, "initial")
    for step, kernel in enumerate(kernels, start=1):
        if np.shape(kernel) != (grid.size, grid.size):
            raise ValueError(f"kernel {step} must have shape ({grid.size}, {grid.size}); got {np.shape(kernel)}")
    for law in _successive_laws(law, kernels):  # keep the last law
        pass
    return law


def linear_loss_psi(lr: float) -> GradientStep:
    """Gradient-step map of the linear audit loss ℓ(y, x) = x·y + const: ψ_x(y) = y − lr·x (the loss of
    our audit instances, :mod:`dplab.audit.instances`)."""
    lr = positive_finite("lr", lr)

    def psi(y: np.ndarray, x: float) -> np.ndarray:
        return np.asarray(y, dtype=np.float64) - lr * x

    return psi


def strongly_convex_loss_psi(lr: float, curvature: float) -> GradientStep:
    """Gradient-step map of the loss ℓ(y, x) = curvature·y²/2 + x·y: ψ_x(y) = (1 − lr·curvature)·y − lr·x.

    The loss is ρ-strongly convex and β-smooth with ρ = β = curvature, so the step is |1 − lr·curvature|-Lipschitz
    and Lemma 4 of Asoodeh et al. (2020) gives M = √(1 − lr·curvature); on [a, b] with |x| <= L_x its gradient is
    bounded by curvature·max(|a|, |b|) + L_x.  With the records of :mod:`dplab.audit.instances` (x ∈ {−L_x, 0, L_x})
    it audits Theorem 4 with M < 1.
    """
    lr = positive_finite("lr", lr)
    curvature = positive_finite("curvature", curvature)

    def psi(y: np.ndarray, x: float) -> np.ndarray:
        return (1.0 - lr * curvature) * np.asarray(y, dtype=np.float64) - lr * x

    return psi


def _validated_datasets(data: np.ndarray, data_prime: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    data = as_finite_array(data, "data")
    data_prime = as_finite_array(data_prime, "data_prime")
    if data.ndim != 1 or data.size < 1:
        raise ValueError(f"data must be a non-empty 1-D array; got shape {data.shape}")
    if data_prime.shape != data.shape:
        raise ValueError(f"data_prime must have the shape of data {data.shape}; got {data_prime.shape}")
    return data, data_prime


def pnsgd_output_laws(
    grid: UniformGrid,
    *,
    y0: float,
    data: np.ndarray,
    data_prime: np.ndarray,
    lr: float,
    scale: float,
    noise: str,
    psi: GradientStep,
    random_stop: bool = False,
    kernel_cache: dict[tuple, np.ndarray] | None = None,
) -> tuple[np.ndarray, np.ndarray]:
    """Binned laws (p, q) of the PNSGD output on ``data`` and ``data_prime``, started at the point mass y0.

    Y_{t+1} = Π_[a,b](ψ_{x_{t+1}}(Y_t) + lr·scale·Z_{t+1}), Algorithm 1 of Asoodeh et al. (2020); ``scale`` is
    σ (Gaussian) or the Laplace scale v of Z, so the added noise has scale lr·scale (Algorithm 1 adds η·Z).  The first
    step is exact (kernel row computed at y0 itself); later steps use the grid kernels
    K_x with means ψ_x(grid.points), built once per distinct x.  The datasets may differ anywhere.

    With ``random_stop=True`` the laws of the randomly stopped output Y_T, T ~ Unif{1..n}, are returned:
    (1/n) Σ_{t=1..n} law(Y_t) (Theorem 5 and its proof).

    ``kernel_cache``: a dict that keeps the kernels K_x across calls (keyed by grid, ψ, noise, step scale and x), so
    that the laws of every instance and position of an audit, whose records take a few values, build each kernel
    once (one (N+2)² matrix of cdf differences; it dominated an audit's time); None keeps them for this call only.
    """
    data, data_prime = _validated_datasets(data, data_prime)
    step_scale = positive_finite("lr", lr) * positive_finite("scale", scale)
    y0 = _validated_start(grid, y0)
    kernels = {} if kernel_cache is None else kernel_cache

    def kernel_for(x: float) -> np.ndarray:
        key = (grid, psi, noise, step_scale, x)
        if key not in kernels:
            kernels[key] = kernel_matrix(grid, psi(grid.points, x), scale=step_scale, noise=noise)
        return kernels[key]

    def output_law(xs: np.ndarray) -> np.ndarray:
        first = kernel_matrix(grid, psi(np.array([y0]), float(xs[0])), scale=step_scale, noise=noise)[0]
        later = [kernel_for(float(x)) for x in xs[1:]]
        if not random_stop:
            return propagate(grid, first, later)
        return (first + sum(_successive_laws(first, later))) / xs.size

    return output_law(data), output_law(data_prime)


def privacy_loss_bound(p: np.ndarray, q: np.ndarray) -> float:
    """Largest binned privacy loss max_{k: p_k > 0} log(p_k / q_k) (+inf if some q_k = 0 < p_k).

    Σ_k [p_k − e^ε q_k]_+ = 0 exactly for every ε at or above this value, so the grid δ_num(ε) of the
    binned laws vanishes there (e.g. 0.3616 for the audit configuration G1 of
    config.yaml, instance A, i = 39).
    Computed as a difference of logs, so tiny masses do not underflow the ratio.
    """
    p = as_non_negative_array(p, "p")
    q = as_non_negative_array(q, "q")
    if p.shape != q.shape or p.ndim != 1:
        raise ValueError(f"p and q must be 1-D arrays of equal shape; got {p.shape} and {q.shape}")
    support = p > 0
    if not np.any(support):
        raise ValueError("p has no positive mass")
    with np.errstate(divide="ignore"):
        return float(np.max(np.log(p[support]) - np.log(q[support])))
