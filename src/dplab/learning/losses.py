"""Per-sample losses ℓ(w; x, y) with the constants the privacy theorems need.

Each loss is a small frozen dataclass whose ``__call__(w, x, y)`` evaluates the loss of ONE parameter vector ``w``
(shape ``(d,)``) at ONE sample ``x`` (shape ``(d,)``) with label ``y`` (a 0-dim tensor, or ``None`` when the loss
ignores labels). Written this way, ``torch.func.grad`` differentiates it and ``torch.func.vmap`` batches it over
samples and over independent runs (see :mod:`dplab.learning.engine`).

Constants (one design for every loss, matching the assumptions of Section IV-B of Asoodeh, Diaz, Calmon 2020,
"Privacy Amplification of Iterative Algorithms via Contraction Coefficients"):

- ``lipschitz(feature_bound)``: L with ‖∇_w ℓ(w; x, y)‖ ≤ L for all w and all ‖x‖ ≤ feature_bound;
- ``smoothness(feature_bound)``: β with ∇_w ℓ β-Lipschitz in w for all ‖x‖ ≤ feature_bound (the smallest such β;
  any larger β is also valid);
- ``strong_convexity``: ρ (a property, since it does not depend on the feature bound for these losses).

Any other callable ``loss(w, x, y) -> 0-dim tensor`` (for instance a small network written as a pure function of a
flat parameter vector) works with the engine too; only the constants are specific to these classes.
"""

from __future__ import annotations

import math
from dataclasses import dataclass

import torch
from torch import Tensor

__all__ = ["LinearLoss", "LogisticLoss"]


def _check_feature_bound(feature_bound: float) -> float:
    """Return ``feature_bound`` as a float after checking it is finite and > 0."""
    value = float(feature_bound)
    if not (math.isfinite(value) and value > 0.0):
        raise ValueError(f"feature_bound={feature_bound!r} must be a finite number > 0")
    return value


@dataclass(frozen=True)
class LinearLoss:
    """Linear loss ℓ(w; x) = ⟨x, w⟩ + offset; the label is ignored.

    The audit loss of spec §4.3 (paper B): ∇_w ℓ = x, so the gradient step ψ_x(w) = w − lr·x is a pure shift and
    the worst-case sensitivity 2·lr·L of Lemma 3/eq. (24) is attained with x = +L versus x' = −L. With
    offset = L·max(|a|, |b|) the loss is non-negative on 𝕂 = [a, b], as the paper's ℓ: 𝕂 × 𝒳 → ℝ_+ requires.
    Constants for ‖x‖ ≤ B: L = B, β = 0 (∇ℓ does not depend on w, so every β ≥ 0 is valid), ρ = 0.
    """

    offset: float = 0.0

    def __post_init__(self) -> None:
        if not math.isfinite(float(self.offset)):
            raise ValueError(f"offset={self.offset!r} must be a finite number")

    def __call__(self, w: Tensor, x: Tensor, y: Tensor | None = None) -> Tensor:
        return torch.dot(x, w) + self.offset

    def lipschitz(self, feature_bound: float) -> float:
        """L = sup ‖∇_w ℓ‖ = sup ‖x‖ = feature_bound."""
        return _check_feature_bound(feature_bound)

    def smoothness(self, feature_bound: float) -> float:
        """β = 0: the gradient x does not depend on w (so the loss is β-smooth for every β ≥ 0)."""
        _check_feature_bound(feature_bound)
        return 0.0

    @property
    def strong_convexity(self) -> float:
        """ρ = 0: a linear function is convex but not strongly convex."""
        return 0.0


@dataclass(frozen=True)
class LogisticLoss:
    """Logistic loss ℓ(w; x, y) = log(1 + exp(−y⟨w, x⟩)) for labels y ∈ {−1, +1} (spec §4.5 of paper B).

    Evaluated as logaddexp(0, −y⟨w, x⟩), which neither overflows for large margins nor loses the gradient at 0.
    ∇_w ℓ = −y·sigmoid(−y⟨w, x⟩)·x and ∇²_w ℓ = s(1−s)·x xᵀ with s ∈ (0, 1), so for ‖x‖ ≤ B:
    L = B, β = B²/4 (since s(1−s) ≤ 1/4), ρ = 0 (the Hessian is rank one). For B = 1: L = 1, β = 1/4, ρ = 0.
    """

    def __call__(self, w: Tensor, x: Tensor, y: Tensor) -> Tensor:
        negative_margin = -y * torch.dot(x, w)
        return torch.logaddexp(torch.zeros_like(negative_margin), negative_margin)

    def lipschitz(self, feature_bound: float) -> float:
        """L = feature_bound, since sigmoid(·) ≤ 1."""
        return _check_feature_bound(feature_bound)

    def smoothness(self, feature_bound: float) -> float:
        """β = feature_bound²/4, the largest eigenvalue bound of s(1−s)·x xᵀ."""
        return _check_feature_bound(feature_bound) ** 2 / 4.0

    @property
    def strong_convexity(self) -> float:
        """ρ = 0: the Hessian s(1−s)·x xᵀ is singular for d ≥ 2 and tends to 0 for large margins."""
        return 0.0
