"""Expected ℓ2 norms of the noise vectors of the Gaussian and Laplace mechanisms: the expected ℓ2 error of a
d-dimensional release x + z, used as reference values next to measured errors.

- Gaussian, z ~ N(0, σ²I_d): E‖z‖₂ = σ·χ̄_d with the chi mean χ̄_d = √2·Γ((d+1)/2)/Γ(d/2).
- Laplace, z ~ Lap(b)^{⊗d} (Dwork, McSherry, Nissim, Smith 2006): no closed form for d ≥ 2; from the identity
  √s = (1/(2√π))∫₀^∞ (1 − e^{−ts})t^{−3/2}dt (s ≥ 0) applied to s = ‖z‖₂² and the independence of the coordinates,
  E‖z‖₂ = (b/(2√π))∫₀^∞ (1 − M(t)^d)t^{−3/2}dt, where M(t) = E e^{−tZ²} = ½√(π/t)·erfcx(1/(2√t)) for Z ~ Lap(1)
  (∫₀^∞ e^{−tz² − z}dz = ½√(π/t)e^{1/(4t)}erfc(1/(2√t))); the integral is taken by adaptive quadrature.
"""

from __future__ import annotations

import math

import numpy as np
from numpy.typing import ArrayLike
from scipy import integrate
from scipy.special import erfcx, gammaln

from dplab.checks import as_integer_array, positive_finite, whole_number

__all__ = ["chi_mean", "laplace_l2_norm_mean"]

#: Breakpoints of the quadrature of E‖Lap(1)^{⊗d}‖₂ over t ∈ (0, ∞): the integrand changes scale near t = 0
#: (1 − M(t)^d ≈ 2dt) and decays as t^{−3/2} for large t.
_QUADRATURE_PIECES = ((0.0, 1e-3), (1e-3, 1.0), (1.0, 1e3), (1e3, np.inf))


def chi_mean(d: ArrayLike) -> np.ndarray:
    """E‖N(0, I_d)‖₂ = √2·Γ((d+1)/2)/Γ(d/2) (mean of the chi distribution with d degrees of freedom), for whole
    numbers d ≥ 1 (arrays allowed)."""
    d = as_integer_array(d, "d", minimum=1).astype(float)
    return math.sqrt(2.0) * np.exp(gammaln((d + 1) / 2) - gammaln(d / 2))


def laplace_l2_norm_mean(d: int, scale: float = 1.0) -> float:
    """E‖Lap(b)^{⊗d}‖₂ with b = ``scale``: (b/(2√π))∫₀^∞ (1 − M(t)^d)t^{−3/2}dt, M(t) = ½√(π/t)·erfcx(1/(2√t))
    (module docstring), by adaptive quadrature (relative tolerance 1e-11 on each piece)."""
    d = whole_number("d", d)
    scale = positive_finite("scale", scale)

    def integrand(t: float) -> float:
        m = 0.5 * math.sqrt(math.pi / t) * erfcx(0.5 / math.sqrt(t))
        return -math.expm1(d * math.log(m)) * t**-1.5

    total = sum(integrate.quad(integrand, a, b, limit=200, epsrel=1e-11)[0] for a, b in _QUADRATURE_PIECES)
    return scale * total / (2.0 * math.sqrt(math.pi))
