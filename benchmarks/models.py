"""The two benchmark models, written twice with the same weights: as a pure loss of a flat parameter vector (what
dplab's engine differentiates) and as a ``torch.nn.Module`` (what Opacus and plain torch train).

Both use the logistic loss ℓ = log(1 + exp(−y·f(x))) with labels y ∈ {−1, +1}:

- ``logistic``: f(x) = ⟨w, x⟩, no bias (d parameters; the engine uses :class:`dplab.learning.losses.LogisticLoss`);
- ``mlp``: f(x) = w₂ᵀ tanh(W₁x + b₁) + b₂, a two-layer network with ``hidden`` tanh units
  (:class:`dplab.learning.losses.TwoLayerLogisticLoss`).
"""

from __future__ import annotations

from dataclasses import dataclass

import torch
from torch import Tensor, nn

from dplab.learning.losses import LogisticLoss, TwoLayerLogisticLoss

__all__ = [
    "MODELS",
    "LogisticCriterion",
    "ModelSpec",
    "logistic_losses",
    "make_data",
    "make_module",
    "flat_parameters",
    "model_spec",
    "module_loss",
]

MODELS: tuple[str, ...] = ("logistic", "mlp")


@dataclass(frozen=True)
class ModelSpec:
    """A benchmark model: its name, input dimension, the engine's loss and the parameter count."""

    name: str
    inputs: int
    hidden: int
    loss: object
    parameters: int


def model_spec(name: str, inputs: int, hidden: int) -> ModelSpec:
    """The ``logistic`` (``hidden`` ignored) or ``mlp`` model on ``inputs`` features."""
    if name == "logistic":
        return ModelSpec(name, inputs, 0, LogisticLoss(), inputs)
    if name == "mlp":
        loss = TwoLayerLogisticLoss(inputs, hidden)
        return ModelSpec(name, inputs, hidden, loss, loss.parameters)
    raise ValueError(f"model={name!r} is not allowed; choose one of {MODELS}")


def make_module(spec: ModelSpec, seed: int, dtype: torch.dtype) -> nn.Module:
    """The nn.Module version of ``spec`` with weights from ``seed`` (PyTorch's default initialisation)."""
    torch.manual_seed(seed)
    if spec.name == "logistic":
        module: nn.Module = nn.Linear(spec.inputs, 1, bias=False)
    else:
        module = nn.Sequential(nn.Linear(spec.inputs, spec.hidden), nn.Tanh(), nn.Linear(spec.hidden, 1))
    return module.to(dtype)


def flat_parameters(module: nn.Module) -> Tensor:
    """θ: the module's parameters flattened in registration order (the layout :class:`TwoLayerLogisticLoss` reads)."""
    return torch.cat([p.detach().reshape(-1) for p in module.parameters()]).clone()


def logistic_losses(outputs: Tensor, y: Tensor) -> Tensor:
    """log(1 + exp(−y·f)) per sample from the module's outputs f, (B, 1) → (B,); one sample (1,) → a scalar."""
    negative_margin = -y * outputs.squeeze(-1)
    return torch.logaddexp(torch.zeros_like(negative_margin), negative_margin)


def module_loss(module: nn.Module, x: Tensor, y: Tensor, reduction: str = "mean") -> Tensor:
    """The logistic loss of the module's output on a batch (mean or sum over samples)."""
    losses = logistic_losses(module(x), y)
    return losses.mean() if reduction == "mean" else losses.sum()


class LogisticCriterion(nn.Module):
    """:func:`logistic_losses` as a loss module with a ``reduction`` ("mean", "sum", "none"), the form Opacus's
    ghost clipping wraps (it switches the reduction to "none" to get the per-sample losses)."""

    def __init__(self, reduction: str = "mean") -> None:
        super().__init__()
        self.reduction = reduction

    def forward(self, outputs: Tensor, y: Tensor) -> Tensor:
        losses = logistic_losses(outputs, y)
        if self.reduction == "none":
            return losses
        return losses.mean() if self.reduction == "mean" else losses.sum()


def make_data(n: int, inputs: int, seed: int, dtype: torch.dtype) -> tuple[Tensor, Tensor]:
    """Synthetic features x ~ N(0, I/inputs) (so ‖x‖ ≈ 1) and labels y = sign(⟨w*, x⟩ + noise) ∈ {−1, +1}."""
    generator = torch.Generator().manual_seed(seed)
    X = torch.randn(n, inputs, generator=generator, dtype=torch.float64) / inputs**0.5
    truth = torch.randn(inputs, generator=generator, dtype=torch.float64)
    noise = 0.5 * torch.randn(n, generator=generator, dtype=torch.float64)
    y = torch.where(X @ truth + noise >= 0, 1.0, -1.0)
    return X.to(dtype), y.to(dtype)
