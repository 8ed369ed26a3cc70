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

Factored per-sample gradients (the engine's fast path). A loss may also offer ``factored_gradients(w, X, Y)``,
returning a :class:`FactoredGradients`: every per-sample gradient written through small per-sample factors, so that
the squared norms ‖∇ℓ_j‖² and a weighted sum Σ_j c_j ∇ℓ_j cost one pass over the batch and one matrix product,
without the ``(runs, batch, parameters)`` tensor of per-sample gradients. The values equal the ``torch.func`` ones
up to the order of floating-point summation (tests compare both). Two structures are covered:

- generalised linear losses ℓ(w; x, y) = φ(⟨w, x⟩, y): ∇ℓ = φ′·x, so ‖∇ℓ‖² = φ′²‖x‖² and Σ c_j∇ℓ_j = Xᵀ(c ⊙ φ′)
  (:class:`LinearLoss`, :class:`LogisticLoss`);
- a two-layer network (:class:`TwoLayerLogisticLoss`): each layer's per-sample weight gradient is the rank-one
  outer product of the layer's output gradient and its input, so its squared norm is the product of two squared
  norms ("ghost clipping", Goodfellow 2015; Li et al. 2022) and the weighted sum is one batched matrix product.

Both need the records' squared norms ‖x_j‖², which do not depend on the parameters: a ``factored_gradients`` that
accepts the keyword ``squared_features`` (those of this module do) gets them from the engine, computed once per call
for all records and gathered with each batch, instead of recomputing them from the batch at every step (the same
values bit for bit). Losses without that keyword are called as ``factored_gradients(w, X, Y)``, as before.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from typing import ClassVar

import torch
from torch import Tensor

from dplab.checks import finite, non_negative_finite, positive_finite, whole_number

__all__ = [
    "FactoredGradients",
    "LinearLoss",
    "LogisticLoss",
    "RegularisedLogisticLoss",
    "TwoLayerLogisticLoss",
    "generalised_linear_gradients",
    "linear_margins",
    "squared_feature_norms",
]


def _sum_over_batch(coefficients: Tensor, X: Tensor) -> Tensor:
    """Σ_j c_rj x_j for shared ``X`` (B, dx) or per-run ``X`` (R, B, dx); coefficients (R, B) → (R, dx)."""
    if X.ndim == 2:
        return coefficients @ X
    return torch.bmm(coefficients.unsqueeze(1), X).squeeze(1)


def linear_margins(w: Tensor, X: Tensor) -> Tensor:
    """⟨w_r, x_j⟩ for every run and sample, (R, B)."""
    return w @ X.T if X.ndim == 2 else torch.bmm(X, w.unsqueeze(-1)).squeeze(-1)


@dataclass(frozen=True)
class FactoredGradients:
    """Per-sample gradients of every run and sample, kept as factors (module docstring).

    ``squared_norms`` (R, B) = ‖∇ℓ(w_r; x_j, y_j)‖²; ``weighted_sum(c)`` = Σ_j c_rj ∇ℓ(w_r; x_j, y_j), (R, d).
    """

    squared_norms: Tensor
    weighted_sum: Callable[[Tensor], Tensor]


def squared_feature_norms(X: Tensor) -> Tensor:
    """‖x_j‖² of every row of ``X`` (shape ``X.shape[:-1]``), each row's squares summed over its d entries: the same
    values bit for bit whether computed for a batch or for all records and then gathered (tests check it)."""
    return X.square().sum(-1)


def generalised_linear_gradients(
    derivative: Tensor, X: Tensor, squared_features: Tensor | None = None
) -> FactoredGradients:
    """∇ℓ_j = φ′_j·x_j: ‖∇ℓ_j‖² = φ′_j²‖x_j‖², Σ c_j∇ℓ_j = Σ (c_j φ′_j) x_j.

    ``squared_features``: ‖x_j‖² of the batch's rows (:func:`squared_feature_norms`), when the caller has them (the
    engine computes them once per call for all records and gathers them per step); None computes them from ``X``."""
    if squared_features is None:
        squared_features = squared_feature_norms(X)
    return FactoredGradients(derivative.square() * squared_features, lambda c: _sum_over_batch(c * derivative, X))


@dataclass(frozen=True)
class LinearLoss:
    """Linear loss ℓ(w; x) = ⟨x, w⟩ + offset; the label is ignored.

    The loss of our PNSGD audit instances (:mod:`dplab.audit.instances`): ∇_w ℓ = x, so the gradient step
    ψ_x(w) = w − lr·x is a pure shift and the worst-case sensitivity 2·lr·L of Asoodeh, Diaz, Calmon (2020),
    Lemma 3/eq. (24), is attained with x = +L versus x' = −L. With offset = L·max(|a|, |b|) the loss is
    non-negative on 𝕂 = [a, b], as the paper's ℓ: 𝕂 × 𝒳 → ℝ_+ requires.
    Constants for ‖x‖ ≤ B: L = B, β = 0 (∇ℓ does not depend on w, so every β ≥ 0 is valid), ρ = 0.
    """

    offset: float = 0.0

    def __post_init__(self) -> None:
        finite("offset", self.offset)

    def __call__(self, w: Tensor, x: Tensor, y: Tensor | None = None) -> Tensor:
        return torch.dot(x, w) + self.offset

    def factored_gradients(
        self, w: Tensor, X: Tensor, Y: Tensor | None = None, *, squared_features: Tensor | None = None
    ) -> FactoredGradients:
        """∇ℓ = x: φ′ = 1 for every run and sample (``squared_features``: see :func:`generalised_linear_gradients`)."""
        runs, batch = w.shape[0], X.shape[-2]
        return generalised_linear_gradients(torch.ones(runs, batch, dtype=w.dtype), X, squared_features)

    def lipschitz(self, feature_bound: float) -> float:
        """L = sup ‖∇_w ℓ‖ = sup ‖x‖ = feature_bound."""
        return positive_finite("feature_bound", feature_bound)

    def smoothness(self, feature_bound: float) -> float:
        """β = 0: the gradient x does not depend on w (so the loss is β-smooth for every β ≥ 0)."""
        positive_finite("feature_bound", feature_bound)
        return 0.0

    @property
    def strong_convexity(self) -> float:
        """ρ = 0: a linear function is convex but not strongly convex."""
        return 0.0


@dataclass(frozen=True)
class LogisticLoss:
    """Logistic loss ℓ(w; x, y) = log(1 + exp(−y⟨w, x⟩)) for labels y ∈ {−1, +1} (our PNSGD utility
    experiment; Asoodeh et al. 2020 run none).

    Evaluated as logaddexp(0, −y⟨w, x⟩), which neither overflows for large margins nor loses the gradient at 0.
    ∇_w ℓ = −y·sigmoid(−y⟨w, x⟩)·x and ∇²_w ℓ = s(1−s)·x xᵀ with s ∈ (0, 1), so for ‖x‖ ≤ B:
    L = B, β = B²/4 (since s(1−s) ≤ 1/4), ρ = 0 (the Hessian is rank one). For B = 1: L = 1, β = 1/4, ρ = 0.
    """

    #: The labels the loss is defined for; the engine and ``empirical_risk`` refuse others (e.g. a {0, 1} coding).
    label_set: ClassVar[tuple[float, ...]] = (-1.0, 1.0)

    def __call__(self, w: Tensor, x: Tensor, y: Tensor) -> Tensor:
        negative_margin = -y * torch.dot(x, w)
        return torch.logaddexp(torch.zeros_like(negative_margin), negative_margin)

    def factored_gradients(
        self, w: Tensor, X: Tensor, Y: Tensor, *, squared_features: Tensor | None = None
    ) -> FactoredGradients:
        """∇ℓ = φ′·x with φ′ = −y·sigmoid(−y⟨w, x⟩) (``squared_features``: see :func:`generalised_linear_gradients`)."""
        return generalised_linear_gradients(-Y * torch.sigmoid(-Y * linear_margins(w, X)), X, squared_features)

    def lipschitz(self, feature_bound: float) -> float:
        """L = feature_bound, since sigmoid(·) ≤ 1."""
        return positive_finite("feature_bound", feature_bound)

    def smoothness(self, feature_bound: float) -> float:
        """β = feature_bound²/4, the largest eigenvalue bound of s(1−s)·x xᵀ."""
        return positive_finite("feature_bound", feature_bound) ** 2 / 4.0

    @property
    def strong_convexity(self) -> float:
        """ρ = 0: the Hessian s(1−s)·x xᵀ is singular for d ≥ 2 and tends to 0 for large margins."""
        return 0.0


@dataclass(frozen=True)
class RegularisedLogisticLoss:
    """ℓ_λ(w; x, y) = log(1 + exp(−y⟨w, x⟩)) + (λ/2)‖w‖², λ ≥ 0, labels y ∈ {−1, +1} (the strongly convex DP-ERM
    problem of our purification experiment; its risk is :func:`dplab.learning.erm.logistic_risk` with ``lam``).

    ∇ℓ_λ = φ′x + λw with φ′ = −y·sigmoid(−y⟨w, x⟩): for ‖x‖ ≤ B and w in the ball 𝔹₂(R) it is (B + λR)-Lipschitz
    (no bound on all of ℝ^d, hence no ``lipschitz`` method), (B²/4 + λ)-smooth and λ-strongly convex.
    """

    lam: float
    label_set: ClassVar[tuple[float, ...]] = (-1.0, 1.0)

    def __post_init__(self) -> None:
        non_negative_finite("lam", self.lam)

    def __call__(self, w: Tensor, x: Tensor, y: Tensor) -> Tensor:
        return torch.nn.functional.softplus(-y * torch.dot(w, x)) + 0.5 * self.lam * torch.dot(w, w)

    def factored_gradients(
        self, w: Tensor, X: Tensor, Y: Tensor, *, squared_features: Tensor | None = None
    ) -> FactoredGradients:
        """‖∇ℓ_λ‖² = φ′²‖x‖² + 2λφ′⟨w, x⟩ + λ²‖w‖² and Σ_j c_j∇ℓ_λ,j = Σ_j c_jφ′_j x_j + λ(Σ_j c_j)w
        (``squared_features``: see :func:`generalised_linear_gradients`)."""
        margins = linear_margins(w, X)
        derivative = -Y * torch.sigmoid(-Y * margins)
        logistic = generalised_linear_gradients(derivative, X, squared_features)
        norms = (
            logistic.squared_norms
            + 2 * self.lam * derivative * margins
            + self.lam**2 * w.square().sum(-1, keepdim=True)
        )
        return FactoredGradients(norms, lambda c: logistic.weighted_sum(c) + self.lam * c.sum(1, keepdim=True) * w)

    def smoothness(self, feature_bound: float) -> float:
        """β = feature_bound²/4 + λ."""
        return positive_finite("feature_bound", feature_bound) ** 2 / 4.0 + self.lam

    @property
    def strong_convexity(self) -> float:
        """ρ = λ, from the (λ/2)‖w‖² term."""
        return self.lam


@dataclass(frozen=True)
class TwoLayerLogisticLoss:
    """ℓ(θ; x, y) = log(1 + exp(−y·f(x))) with f(x) = w₂ᵀ tanh(W₁x + b₁) + b₂, θ = (W₁ row-major, b₁, w₂, b₂).

    The layout is that of ``nn.Sequential(nn.Linear(inputs, hidden), nn.Tanh(), nn.Linear(hidden, 1))`` parameters
    flattened in order. With z = tanh(W₁x + b₁), s = ∂ℓ/∂f = −y·sigmoid(−y f) and g = s·w₂ ⊙ (1 − z²):
    ∇_{W₁} = g xᵀ, ∇_{b₁} = g, ∇_{w₂} = s z, ∇_{b₂} = s, so ‖∇ℓ‖² = ‖g‖²(‖x‖² + 1) + s²(‖z‖² + 1).
    No Lipschitz constants: used for speed comparisons (``python -m benchmarks``), not in a privacy theorem.
    """

    inputs: int
    hidden: int

    def __post_init__(self) -> None:
        whole_number("inputs", self.inputs)
        whole_number("hidden", self.hidden)

    @property
    def parameters(self) -> int:
        return self.hidden * self.inputs + 2 * self.hidden + 1

    def _split(self, theta: Tensor) -> tuple[Tensor, Tensor, Tensor, Tensor]:
        # torch.split, not slicing: under vmap every slice's backward would materialise a zero-filled
        # (batch, parameters) gradient, while the backward of one split is one concatenation.
        return theta.split([self.hidden * self.inputs, self.hidden, self.hidden, 1], dim=-1)

    def __call__(self, theta: Tensor, x: Tensor, y: Tensor) -> Tensor:
        first, bias, second, last = self._split(theta)
        output = second @ torch.tanh(first.view(self.hidden, self.inputs) @ x + bias) + last[0]
        negative_margin = -y * output
        return torch.logaddexp(torch.zeros_like(negative_margin), negative_margin)

    def factored_gradients(
        self, theta: Tensor, X: Tensor, Y: Tensor, *, squared_features: Tensor | None = None
    ) -> FactoredGradients:
        """The rank-one layer factors (class docstring), batched over runs (R) and samples (B); ``squared_features``
        ‖x_j‖² of the batch's rows when the caller has them (:func:`generalised_linear_gradients`)."""
        runs = theta.shape[0]
        first, bias, second, last = self._split(theta)
        W1 = first.view(runs, self.hidden, self.inputs)
        shared = X.ndim == 2
        pre = torch.matmul(X, W1.transpose(1, 2)) + bias.unsqueeze(1)  # (R, B, H), X shared or per run
        z = torch.tanh(pre)  # (R, B, H)
        output = torch.bmm(z, second.unsqueeze(-1)).squeeze(-1) + last  # (R, B)
        s = -Y * torch.sigmoid(-Y * output)  # (R, B)
        g = s.unsqueeze(-1) * second.unsqueeze(1) * (1 - z.square())  # (R, B, H)
        if squared_features is None:
            squared_features = squared_feature_norms(X)
        norms = g.square().sum(-1) * (squared_features + 1) + s.square() * (z.square().sum(-1) + 1)

        def weighted_sum(c: Tensor) -> Tensor:
            cg, cs = c.unsqueeze(-1) * g, c * s
            features = X if not shared else X.expand(runs, *X.shape)
            w1 = torch.bmm(cg.transpose(1, 2), features).reshape(runs, -1)  # Σ c g xᵀ, row-major (H, I)
            w2 = torch.bmm(cs.unsqueeze(1), z).squeeze(1)  # Σ c s z
            return torch.cat([w1, cg.sum(1), w2, cs.sum(1, keepdim=True)], dim=1)

        return FactoredGradients(norms, weighted_sum)
