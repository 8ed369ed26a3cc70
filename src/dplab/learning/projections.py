"""Euclidean projections Π_𝕂 onto the compact convex sets used by projected noisy gradient methods.

Asoodeh, Diaz, Calmon (2020) need 𝕂 compact and convex: their Theorems 3–5 contract only through the
projection, with the diameter D_𝕂 entering eqs. (20) and (23). In 1-D Π is ``clip(y, a, b)``; for the ball of
radius R it is ``w·min(1, R/‖w‖)``, so D_𝕂 = 2R.

Every projection is a frozen dataclass with ``__call__(w)`` acting on the last axis of a tensor ``w`` of shape
``(..., d)`` (so a batch of runs ``(R, d)`` is projected row by row) and a ``diameter`` attribute.
"""

from __future__ import annotations

import math
from dataclasses import dataclass
from typing import Protocol, runtime_checkable

import torch
from torch import Tensor

from dplab.checks import as_finite_array, finite, positive_finite

__all__ = ["Projection", "Interval", "Ball", "NoProjection"]


@runtime_checkable
class Projection(Protocol):
    """What the engine needs from a projection: a map on ``(..., d)`` tensors and the set's diameter."""

    @property
    def diameter(self) -> float: ...

    def __call__(self, w: Tensor) -> Tensor: ...


@dataclass(frozen=True)
class Interval:
    """Π onto [a, b]: each coordinate is clamped, so the boundary is hit exactly (atoms at a and b).

    Meant for d = 1 (Theorem 3 and the 1-D audits). For d > 1 it projects onto the box [a, b]^d, whose diameter
    is √d·(b − a); ``diameter`` is the 1-D value b − a.
    """

    a: float
    b: float

    def __post_init__(self) -> None:
        a, b = finite("a", self.a), finite("b", self.b)
        if not a < b:
            raise ValueError(f"Interval(a={self.a!r}, b={self.b!r}) needs finite a < b")

    @property
    def diameter(self) -> float:
        """D_𝕂 = b − a."""
        return float(self.b) - float(self.a)

    def __call__(self, w: Tensor) -> Tensor:
        return torch.clamp(w, min=float(self.a), max=float(self.b))


@dataclass(frozen=True)
class Ball:
    """Π onto the closed Euclidean ball {w : ‖w − c‖ ≤ R}: w ↦ c + (w − c)·min(1, R/‖w − c‖); D_𝕂 = 2R.

    ``center`` is a scalar (the point c·𝟙) or a sequence of d coordinates.
    """

    radius: float
    center: float | tuple[float, ...] = 0.0

    def __post_init__(self) -> None:
        positive_finite("radius", self.radius)
        as_finite_array(self.center, "center")
        if isinstance(self.center, list):
            object.__setattr__(self, "center", tuple(float(c) for c in self.center))

    @property
    def diameter(self) -> float:
        """D_𝕂 = 2R."""
        return 2.0 * float(self.radius)

    def __call__(self, w: Tensor) -> Tensor:
        # A scalar centre enters the arithmetic as a Python number (the same values as a 0-dim tensor of w's dtype,
        # without building one at every step of the engine).
        scalar = isinstance(self.center, (int, float))
        center = self.center if scalar else torch.as_tensor(self.center, dtype=w.dtype, device=w.device)
        offset = w - center
        norm = torch.linalg.vector_norm(offset, dim=-1, keepdim=True)
        # R/0 = inf, clamped to 1: the centre maps to itself. R/‖w − c‖ as torch computes it (``Tensor.__rdiv__``:
        # reciprocal, then times R), without that Python-level wrapper.
        shrink = norm.reciprocal_().mul_(float(self.radius)).clamp_(max=1.0)
        return center + offset * shrink


@dataclass(frozen=True)
class NoProjection:
    """The identity (𝕂 = ℝ^d, unbounded): diameter = inf. Asoodeh et al.'s contraction is trivial (η_γ = 1) here."""

    @property
    def diameter(self) -> float:
        return math.inf

    def __call__(self, w: Tensor) -> Tensor:
        return w
