"""Quadrature references for the hockey-stick (E_γ) and Rényi divergences of 1-D laws: the definitions integrated
numerically, independent of the closed forms they check (Lemmas 1-2, Theorem 2 and eq. (3) of Asoodeh, Diaz,
Calmon 2020).
"""

from __future__ import annotations

import math
from collections.abc import Callable

import numpy as np
from scipy import integrate, stats

from dplab.checks import finite, in_range, non_negative_finite, positive_finite

__all__ = ["gaussian_renyi_quadrature", "hockey_stick_integral", "projected_gaussian_hockey_stick_quadrature"]

Density = Callable[[float], float]


def hockey_stick_integral(p: Density, q: Density, epsilon: float, support: tuple[float, float]) -> float:
    """∫ [p(t) − e^ε q(t)]_+ dt over ``support`` by adaptive quadrature (the definition of E_{e^ε}, eq. (6));
    ``p`` and ``q`` are densities, the point 0 is passed to the integrator as a break point."""
    gamma = np.exp(non_negative_finite("epsilon", epsilon))
    low, high = (finite("support", end) for end in support)
    value, _ = integrate.quad(lambda t: max(p(t) - gamma * q(t), 0.0), low, high, limit=400, points=[0.0])
    return value


def projected_gaussian_hockey_stick_quadrature(
    epsilon: float, y1: float, y2: float, *, diameter: float, scale: float
) -> float:
    """E_{e^ε}(K(y1) ‖ K(y2)) for K(y) = law of Π_[0,D](y + N(0, scale²)), y1, y2 ∈ [0, D]: the atoms at 0 and D
    from the normal cdf, plus the interior density difference integrated by quadrature (the kernel of Theorem 2's
    projected Gaussian example, computed without its closed form)."""
    gamma = np.exp(non_negative_finite("epsilon", epsilon))
    diameter = positive_finite("diameter", diameter)
    scale = positive_finite("scale", scale)
    y1, y2 = (in_range(name, y, 0.0, diameter) for name, y in (("y1", y1), ("y2", y2)))
    p_lo, q_lo = stats.norm.cdf(-y1 / scale), stats.norm.cdf(-y2 / scale)
    p_hi, q_hi = stats.norm.sf((diameter - y1) / scale), stats.norm.sf((diameter - y2) / scale)
    norm = 1.0 / (scale * math.sqrt(2.0 * math.pi))

    def excess(t: float) -> float:
        p = norm * math.exp(-0.5 * ((t - y1) / scale) ** 2)
        return max(p - gamma * norm * math.exp(-0.5 * ((t - y2) / scale) ** 2), 0.0)

    interior, _ = integrate.quad(excess, 0.0, diameter)
    return max(p_lo - gamma * q_lo, 0.0) + max(p_hi - gamma * q_hi, 0.0) + interior


def gaussian_renyi_quadrature(order: float, shift: float, scale: float) -> float:
    """D_α(N(shift, scale²) ‖ N(0, scale²)) = (1/(α − 1)) log ∫ p^α q^(1−α) by quadrature on
    [−60 scale, 60 scale + shift] (the closed form α shift²/(2 scale²) is what eq. (3) needs)."""
    order = in_range("order", order, 1.0, math.inf, low_open=True, high_open=True)
    shift = non_negative_finite("shift", shift)
    scale = positive_finite("scale", scale)
    p, q = stats.norm(loc=shift, scale=scale), stats.norm(loc=0.0, scale=scale)
    integral, _ = integrate.quad(
        lambda t: np.exp(order * p.logpdf(t) + (1 - order) * q.logpdf(t)),
        -60 * scale,
        60 * scale + shift,
        points=[0.0, shift],
        limit=400,
    )
    return float(np.log(integral) / (order - 1))
