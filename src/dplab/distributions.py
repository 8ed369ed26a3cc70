"""Noise distributions, each supplying its density, tails and quantiles once, accurate in both tails.

Modelled on dp_accounting's ``pld/privacy_loss_mechanism.py``: a noise class states its own tails; everything built
on them (hockey-stick divergences, selection probabilities, inverse-CDF sampling) is written once above them.

:class:`Laplace` is Lap(loc, scale), density e^{−|x − loc|/b}/(2b) with b = scale: the distribution of the Laplace
mechanism (Dwork, McSherry, Nissim, Smith 2006, Example 1; Dwork and Roth 2014, Definition 3.3).  With
z = (x − loc)/b its CDF is F(x) = ½eᶻ for z < 0 and 1 − ½e^{−z} for z ≥ 0, and its survival function
S(x) = F(2 loc − x); each is evaluated from the small half-tail ½e^{−|z|}, so neither loses digits in its own tail.
Scalar arguments give Python floats, arrays give arrays.
"""

from __future__ import annotations

import math
from dataclasses import dataclass

import numpy as np

_LOG_HALF = math.log(0.5)


def _as_output(values: np.ndarray) -> np.ndarray | float:
    return float(values) if values.ndim == 0 else values


@dataclass(frozen=True)
class Laplace:
    """Lap(loc, scale): density e^{−|x − loc|/scale}/(2 scale) (module docstring)."""

    scale: float
    loc: float = 0.0

    def __post_init__(self) -> None:
        if not (math.isfinite(self.scale) and self.scale > 0):
            raise ValueError(f"scale={self.scale!r} is invalid; allowed: a finite number > 0")
        if not math.isfinite(self.loc):
            raise ValueError(f"loc={self.loc!r} is invalid; allowed: a finite number")

    def _standardised(self, x: np.ndarray | float) -> np.ndarray:
        return (np.asarray(x, dtype=float) - self.loc) / self.scale

    def log_pdf(self, x: np.ndarray | float) -> np.ndarray | float:
        """log f(x) = −|x − loc|/scale − log(2 scale)."""
        return _as_output(-np.abs(self._standardised(x)) - math.log(2.0 * self.scale))

    def cdf(self, x: np.ndarray | float) -> np.ndarray | float:
        """F(x) = ½eᶻ (z < 0), 1 − ½e^{−z} (z ≥ 0), z = (x − loc)/scale."""
        z = self._standardised(x)
        half_tail = 0.5 * np.exp(-np.abs(z))
        return _as_output(np.where(z < 0, half_tail, 1.0 - half_tail))

    def sf(self, x: np.ndarray | float) -> np.ndarray | float:
        """S(x) = 1 − F(x) = 1 − ½eᶻ (z < 0), ½e^{−z} (z ≥ 0), z = (x − loc)/scale."""
        z = self._standardised(x)
        half_tail = 0.5 * np.exp(-np.abs(z))
        return _as_output(np.where(z < 0, 1.0 - half_tail, half_tail))

    def log_cdf(self, x: np.ndarray | float) -> np.ndarray | float:
        """log F(x) = log ½ + z (z < 0), log1p(−½e^{−z}) (z ≥ 0), z = (x − loc)/scale."""
        z = self._standardised(x)
        return _as_output(np.where(z < 0, _LOG_HALF + z, np.log1p(-0.5 * np.exp(-np.abs(z)))))

    def log_sf(self, x: np.ndarray | float) -> np.ndarray | float:
        """log S(x) = log1p(−½eᶻ) (z < 0), log ½ − z (z ≥ 0), z = (x − loc)/scale."""
        z = self._standardised(x)
        return _as_output(np.where(z < 0, np.log1p(-0.5 * np.exp(-np.abs(z))), _LOG_HALF - z))

    def quantile(self, u: np.ndarray | float) -> np.ndarray | float:
        """F⁻¹(u) = loc + scale·log(2u) (u < ½), loc − scale·log(2(1 − u)) (u ≥ ½), for 0 ≤ u ≤ 1."""
        u = np.asarray(u, dtype=float)
        with np.errstate(divide="ignore"):
            standard = np.where(u < 0.5, np.log(2 * u), -np.log(2 * (1 - u)))
        return _as_output(self.loc + self.scale * standard)

    def inverse_sf(self, tail: np.ndarray | float) -> np.ndarray | float:
        """S⁻¹(t) = loc − scale·log(2t) (t ≤ ½), loc + scale·log(2(1 − t)) (t > ½): exact for a tiny tail t."""
        tail = np.asarray(tail, dtype=float)
        with np.errstate(divide="ignore"):
            standard = np.where(tail <= 0.5, -np.log(2.0 * tail), np.log(2.0 * (1.0 - tail)))
        return _as_output(self.loc + self.scale * standard)

    def max_of_from_uniforms(self, m: np.ndarray | float, u: np.ndarray | float) -> np.ndarray | float:
        """The maximum of m i.i.d. draws from uniforms u ∈ (0, 1]: F⁻¹(u^{1/m}) = S⁻¹(1 − u^{1/m}), with the tail
        1 − u^{1/m} = −expm1(log(u)/m) computed without cancellation (the CDF of the maximum is Fᵐ)."""
        return self.inverse_sf(-np.expm1(np.log(np.asarray(u, dtype=float)) / np.asarray(m, dtype=float)))

    def sample(self, rng: np.random.Generator, size: int | tuple[int, ...] | None = None) -> np.ndarray | float:
        """``size`` draws with ``rng.laplace(loc, scale, size)`` (the same stream as a direct call)."""
        return rng.laplace(self.loc, self.scale, size=size)
