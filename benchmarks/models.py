"""The benchmark models. Every one uses the logistic loss ℓ = log(1 + exp(−y·f(x))) with labels y ∈ {−1, +1}.

The two of the engine benchmark, written twice with the same weights: as a pure loss of a flat parameter vector (what
dplab's engine differentiates) and as a ``torch.nn.Module`` (what Opacus and plain torch train):

- ``logistic``: f(x) = ⟨w, x⟩, no bias (d parameters; the engine uses :class:`dplab.learning.losses.LogisticLoss`);
- ``mlp``: f(x) = w₂ᵀ tanh(W₁x + b₁) + b₂, a two-layer network with ``hidden`` tanh units
  (:class:`dplab.learning.losses.TwoLayerLogisticLoss`).

The layer-type table of section (1b) (:data:`MODULE_MODELS`, ``torch.nn.Module`` only): ``mlp`` (Linear), and

- ``embedding``: token ids (T = 32 from a vocabulary of 1000) → Embedding(1000, 64) → LayerNorm(64) → Linear(64, 1)
  at every position → mean over positions;
- ``cnn``: images 3 × 16 × 16 → Conv2d(3, 16, 3, padding 1) → GroupNorm(4, 16) → ReLU → AvgPool2d(2) →
  Conv2d(16, 32, 3, padding 1) → GroupNorm(4, 32) → ReLU → global average → Linear(32, 1);
- ``conv1d``: signals 4 × 64 → Conv1d(4, 16, 5, padding 2) → ReLU → Conv1d(16, 32, 3, stride 2, padding 1) → ReLU →
  global average → Linear(32, 1).

Their data are synthetic, labelled by a random linear teacher on the input (on the ids: a random score per token,
summed over positions).
"""

from __future__ import annotations

from dataclasses import dataclass

import torch
from torch import Tensor, nn

from dplab.learning.losses import LogisticLoss, TwoLayerLogisticLoss

__all__ = [
    "MODELS",
    "MODULE_MODELS",
    "MeanOverPositions",
    "LogisticCriterion",
    "ModelSpec",
    "logistic_losses",
    "make_data",
    "make_module",
    "make_module_data",
    "make_module_model",
    "flat_parameters",
    "model_spec",
    "module_loss",
]

MODELS: tuple[str, ...] = ("logistic", "mlp")
MODULE_MODELS: tuple[str, ...] = ("mlp", "embedding", "cnn", "conv1d")
VOCABULARY, EMBEDDING_DIMENSION, SEQUENCE_LENGTH = 1000, 64, 32
IMAGE_SHAPE, SIGNAL_SHAPE = (3, 16, 16), (4, 64)


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


class MeanOverPositions(nn.Module):
    """(B, T, k) → (B, k): the mean over the positions of a sequence."""

    def forward(self, x: Tensor) -> Tensor:
        return x.mean(1)


def _layer_stack(name: str) -> nn.Module:
    if name == "embedding":
        return nn.Sequential(
            nn.Embedding(VOCABULARY, EMBEDDING_DIMENSION),
            nn.LayerNorm(EMBEDDING_DIMENSION),
            nn.Linear(EMBEDDING_DIMENSION, 1),
            MeanOverPositions(),
        )
    if name == "cnn":
        return nn.Sequential(
            nn.Conv2d(IMAGE_SHAPE[0], 16, 3, padding=1),
            nn.GroupNorm(4, 16),
            nn.ReLU(),
            nn.AvgPool2d(2),
            nn.Conv2d(16, 32, 3, padding=1),
            nn.GroupNorm(4, 32),
            nn.ReLU(),
            nn.AdaptiveAvgPool2d(1),
            nn.Flatten(),
            nn.Linear(32, 1),
        )
    if name == "conv1d":
        return nn.Sequential(
            nn.Conv1d(SIGNAL_SHAPE[0], 16, 5, padding=2),
            nn.ReLU(),
            nn.Conv1d(16, 32, 3, stride=2, padding=1),
            nn.ReLU(),
            nn.AdaptiveAvgPool1d(1),
            nn.Flatten(),
            nn.Linear(32, 1),
        )
    raise ValueError(f"model={name!r} is not allowed; choose one of {MODULE_MODELS}")


def make_module_model(name: str, inputs: int, hidden: int, seed: int, dtype: torch.dtype) -> nn.Module:
    """A model of the layer-type table with weights from ``seed`` (``inputs`` and ``hidden`` size the ``mlp``)."""
    if name == "mlp":
        return make_module(model_spec(name, inputs, hidden), seed, dtype)
    torch.manual_seed(seed)
    return _layer_stack(name).to(dtype)


def _teacher_labels(scores: Tensor, generator: torch.Generator) -> Tensor:
    """y = sign(s / sd(s) + 0.5·noise) ∈ {−1, +1} from the teacher's scores s."""
    noise = 0.5 * torch.randn(len(scores), generator=generator, dtype=torch.float64)
    return torch.where(scores / scores.std() + noise >= 0, 1.0, -1.0)


def make_module_data(name: str, n: int, inputs: int, seed: int, dtype: torch.dtype) -> tuple[Tensor, Tensor]:
    """n synthetic examples of a model of the layer-type table: features (token ids are int64) and labels ±1."""
    if name == "mlp":
        return make_data(n, inputs, seed, dtype)
    generator = torch.Generator().manual_seed(seed)
    if name == "embedding":
        ids = torch.randint(0, VOCABULARY, (n, SEQUENCE_LENGTH), generator=generator)
        token_scores = torch.randn(VOCABULARY, generator=generator, dtype=torch.float64)
        return ids, _teacher_labels(token_scores[ids].sum(1), generator).to(dtype)
    if name not in MODULE_MODELS:
        raise ValueError(f"model={name!r} is not allowed; choose one of {MODULE_MODELS}")
    X = torch.randn(n, *(IMAGE_SHAPE if name == "cnn" else SIGNAL_SHAPE), generator=generator, dtype=torch.float64)
    truth = torch.randn(X[0].numel(), generator=generator, dtype=torch.float64)
    return X.to(dtype), _teacher_labels(X.flatten(1) @ truth, generator).to(dtype)
