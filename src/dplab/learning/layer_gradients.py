"""Per-example gradients of the layer types the ghost path supports, in factored form: for each trainable parameter θ
of a layer, ‖∇_θ ℓ_i‖² per example and the clipped sum Σ_i c_i ∇_θ ℓ_i, from what one forward and one backward pass
of the whole batch leave behind: each call's input and the gradient g = ∂(Σ_i ℓ_i)/∂z at its output z (row i of g is
∂ℓ_i/∂z_i, since z_i depends on example i alone).

- nn.Linear (z = a Wᵀ + b on T positions of an example: a_i is T × d, g_i is T × p): ∇_W ℓ_i = g_iᵀa_i,
  ∇_b ℓ_i = Σ_t g_it. ‖g_iᵀa_i‖²_F = ⟨a_i a_iᵀ, g_i g_iᵀ⟩ (the "ghost norm": Goodfellow 2015, "Efficient
  per-example gradient computations"; Li, Tramèr, Liang, Hashimoto 2022, "Large language models can be strong
  differentially private learners"), = ‖a_i‖²‖g_i‖² when T = 1. The T × T Gram matrices are used when
  they cost at most the book-keeping product (T·(p + d) ≤ p·d), else the p × d gradients are formed.
- nn.Conv1d / nn.Conv2d: a convolution is a Linear layer per group j on the unfolded input (im2col): a_ij is L × d
  (L output positions, d = C_in/groups · kernel size; padding, stride and dilation enter through the unfolding) and
  g_ij is L × p (p = C_out/groups), so ∇_{W_j} ℓ_i = g_ijᵀa_ij and ‖∇_W ℓ_i‖² = Σ_j ⟨a_ij a_ijᵀ, g_ij g_ijᵀ⟩;
  ∇_b ℓ_i = Σ_l g_il.
- nn.Embedding (row z_it = E[k_it] for token ids k_i1…k_iT): ∇_E ℓ_i = Σ_t e_{k_it} g_itᵀ, so the rows of repeated
  ids add up: ‖∇_E ℓ_i‖² = Σ_{t,s: k_it = k_is} ⟨g_it, g_is⟩ (not Σ_t ‖g_it‖²). Positions holding ``padding_idx``
  get no gradient (PyTorch leaves that row untouched), so their g_it are zeroed first.
- nn.LayerNorm / nn.GroupNorm (z = x̂ ⊙ γ + β, x̂ the normalised input): ∇_γ ℓ_i = Σ_positions x̂_i ⊙ g_i and
  ∇_β ℓ_i = Σ_positions g_i, formed directly (B × the parameter's size; x̂ recomputed from the input).

Clipped sums (c_i = min(1, C/‖∇ℓ_i‖) over all layers) are then one contraction of the stored factors, Σ_i c_i g_iᵀa_i
(the "book-keeping" of Bu, Wang, Zha, Karypis 2023, "Differentially private optimization on large model at small
cost"): no second backward pass. A layer called k times in one forward pass (shared weights) has the sum of the k
calls' gradients per example: its calls are concatenated along the positions (Linear, Conv, Embedding), which keeps
the cross terms in the norm, or their formed gradients added (normalisation layers).
"""

from __future__ import annotations

import math
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from typing import Protocol

import torch
from torch import Tensor, nn
from torch.nn import functional as F

__all__ = ["LAYER_GRADIENTS", "Call", "GhostClippingUnsupported", "ParameterGradients", "layer_refusal"]


class GhostClippingUnsupported(ValueError):
    """The module's forward pass does something the ghost path cannot factor (the message says what)."""


@dataclass(frozen=True)
class Call:
    """One call of a layer in the forward pass: its positional input and ∂(Σ_i ℓ_i)/∂output."""

    input: Tensor
    output_gradient: Tensor


class ParameterGradients(Protocol):
    """The per-example gradients of one parameter, in whatever form is cheapest."""

    def squared_norms(self) -> Tensor:
        """‖∇_θ ℓ_i‖², shape (B,)."""

    def clipped_sum(self, c: Tensor) -> Tensor:
        """Σ_i c_i ∇_θ ℓ_i, the parameter's shape."""


def _squared_norms(tensor: Tensor) -> Tensor:
    """‖t_i‖² over every axis but the first (vector_norm: one pass, no squared copy)."""
    return torch.linalg.vector_norm(tensor.flatten(1), dim=1).square()


@dataclass(frozen=True)
class FormedGradients:
    """Per-example gradients formed, (B, *shape)."""

    gradients: Tensor

    def squared_norms(self) -> Tensor:
        return _squared_norms(self.gradients)

    def clipped_sum(self, c: Tensor) -> Tensor:
        return (c @ self.gradients.flatten(1)).view(self.gradients.shape[1:])


@dataclass(frozen=True)
class OuterProductGradients:
    """∇_W ℓ_i = g_i a_iᵀ (one position): inputs A (B, d) and output gradients G (B, p)."""

    inputs: Tensor
    output_gradients: Tensor

    def squared_norms(self) -> Tensor:
        """‖g_i a_iᵀ‖²_F = ‖a_i‖²‖g_i‖²."""
        return _squared_norms(self.inputs) * _squared_norms(self.output_gradients)

    def clipped_sum(self, c: Tensor) -> Tensor:
        """Σ_i c_i g_i a_iᵀ = (c ⊙ G)ᵀA, the weights applied to the smaller factor."""
        A, G = self.inputs, self.output_gradients
        if G.shape[1] <= A.shape[1]:
            return (c[:, None] * G).T @ A
        return G.T @ (c[:, None] * A)


@dataclass(frozen=True)
class ProductGradients:
    """∇_W ℓ_i = [G_ij A_ijᵀ]_j over groups j (W of shape (groups·p, d) up to a reshape to ``shape``), kept as its
    factors, positions last: inputs A (B, groups, d, T) and output gradients G (B, groups, p, T)."""

    inputs: Tensor
    output_gradients: Tensor
    shape: torch.Size

    def squared_norms(self) -> Tensor:
        """Σ_j ⟨A_ijᵀA_ij, G_ijᵀG_ij⟩ (T × T Gram matrices)."""
        A, G = self.inputs, self.output_gradients
        return (A.transpose(2, 3) @ A * (G.transpose(2, 3) @ G)).sum((1, 2, 3))

    def clipped_sum(self, c: Tensor) -> Tensor:
        """Σ_i c_i [G_ij A_ijᵀ]_j: one matrix product per group over all examples and positions, the weights c_i
        applied to the smaller factor."""
        A, G = self.inputs, self.output_gradients
        if G.shape[2] <= A.shape[2]:
            G = c[:, None, None, None] * G
        else:
            A = c[:, None, None, None] * A
        return torch.einsum("bgpt,bgdt->gpd", G, A).reshape(self.shape)


def product_gradients(inputs: Tensor, output_gradients: Tensor, shape: torch.Size) -> ParameterGradients:
    """The factors (A, G) = (B, groups, d, T), (B, groups, p, T) kept when the Gram matrices' B·T²·(p + d)
    multiplications are at most the B·T·p·d of the book-keeping product (T·(p + d) ≤ p·d, which also makes them
    smaller than the gradients: T² ≤ p·d); else the per-example gradients formed, (B, *shape): B·T·p·d
    multiplications once, and B·p·d numbers held."""
    d, T = inputs.shape[2:]
    p = output_gradients.shape[2]
    if T * (p + d) <= p * d:
        return ProductGradients(inputs, output_gradients, shape)
    return FormedGradients((output_gradients @ inputs.transpose(2, 3)).reshape(len(inputs), *shape))


@dataclass(frozen=True)
class EmbeddingGradients:
    """∇_E ℓ_i = Σ_t e_{k_it} g_itᵀ from ids K (B, T) and output gradients G (B, T, D) (padding positions zeroed)."""

    ids: Tensor
    output_gradients: Tensor
    num_embeddings: int

    def squared_norms(self) -> Tensor:
        """Σ_k ‖Σ_{t: k_it = k} g_it‖²: each example's rows added by distinct id (ids sorted within the example, each
        run of equal ids given one slot), then squared; B·T·D work for any T."""
        K, G = self.ids, self.output_gradients
        batch, T = K.shape
        ordered, order = K.sort(dim=1)
        starts = torch.ones_like(ordered, dtype=torch.bool)
        starts[:, 1:] = ordered[:, 1:] != ordered[:, :-1]
        slots = torch.empty_like(order).scatter_(1, order, starts.cumsum(1) - 1)
        slots += torch.arange(0, batch * T, T, device=K.device)[:, None]
        rows = G.new_zeros(batch * T, G.shape[2]).index_add_(0, slots.flatten(), G.flatten(0, 1))
        return _squared_norms(rows.view(batch, -1))

    def clipped_sum(self, c: Tensor) -> Tensor:
        """Σ_i c_i Σ_t e_{k_it} g_itᵀ: the weighted rows added into their ids' rows."""
        G = self.output_gradients
        total = G.new_zeros(self.num_embeddings, G.shape[2])
        return total.index_add_(0, self.ids.flatten(), (c[:, None, None] * G).flatten(0, 1))


def _batch_first(name: str, tensor: Tensor, batch: int, minimum_dimensions: int) -> Tensor:
    """``tensor`` itself when its first axis is the batch and it has at least ``minimum_dimensions`` axes."""
    if tensor.ndim < minimum_dimensions or tensor.shape[0] != batch:
        raise GhostClippingUnsupported(
            f"layer {name!r} got an input of shape {tuple(tensor.shape)}; the ghost path needs the batch "
            f"(size {batch}) as the first of at least {minimum_dimensions} axes"
        )
    return tensor


def _trainable(parameter: Tensor | None) -> bool:
    return parameter is not None and parameter.requires_grad


def _joined(tensors: list[Tensor], axis: int) -> Tensor:
    """The calls' tensors concatenated along ``axis`` (no copy for a single call)."""
    return tensors[0] if len(tensors) == 1 else torch.cat(tensors, axis)


def linear_gradients(name: str, layer: nn.Linear, calls: Sequence[Call], batch: int) -> dict[str, ParameterGradients]:
    """nn.Linear on inputs (B, d) or (B, …, d): positions T = the product of the middle axes, over all calls."""
    G = _joined([call.output_gradient.reshape(batch, -1, layer.out_features) for call in calls], 1)
    gradients: dict[str, ParameterGradients] = {}
    if _trainable(layer.weight):
        inputs = [_batch_first(name, call.input, batch, 2).reshape(batch, -1, layer.in_features) for call in calls]
        A = _joined(inputs, 1)
        if A.shape[1] == 1:
            gradients["weight"] = OuterProductGradients(A.view(batch, -1), G.view(batch, -1))
        else:
            A, G_positions_last = A.transpose(1, 2)[:, None], G.transpose(1, 2)[:, None]
            gradients["weight"] = product_gradients(A, G_positions_last, layer.weight.shape)
    if _trainable(layer.bias):
        gradients["bias"] = FormedGradients(G.sum(1))
    return gradients


def _explicit_padding(layer: nn.Conv1d | nn.Conv2d) -> list[int]:
    """(left, right) padding of each spatial axis, last axis first (``F.pad``'s order); "same" pads
    dilation·(k − 1) in total, the odd one on the right (as PyTorch does)."""
    if layer.padding == "valid":
        pairs = [(0, 0)] * len(layer.kernel_size)
    elif layer.padding == "same":
        totals = [dilation * (k - 1) for dilation, k in zip(layer.dilation, layer.kernel_size)]
        pairs = [(total // 2, total - total // 2) for total in totals]
    else:
        pairs = [(p, p) for p in layer.padding]
    return [side for pair in reversed(pairs) for side in pair]


def _unfolded(layer: nn.Conv1d | nn.Conv2d, x: Tensor) -> Tensor:
    """im2col: (B, C_in, *spatial) → (B, C_in·∏kernel, L), the columns a convolution multiplies by its weight: the
    padded input's windows as views (``Tensor.unfold`` with the stride, every dilation-th element), copied once."""
    padding = _explicit_padding(layer)
    if any(padding):
        x = F.pad(x, padding, mode="constant" if layer.padding_mode == "zeros" else layer.padding_mode)
    spatial = len(layer.kernel_size)
    for axis, (size, stride, dilation) in enumerate(zip(layer.kernel_size, layer.stride, layer.dilation)):
        x = x.unfold(2 + axis, dilation * (size - 1) + 1, stride)[..., ::dilation]
    kernel_axes = range(2 + spatial, 2 + 2 * spatial)
    return x.permute(0, 1, *kernel_axes, *range(2, 2 + spatial)).reshape(
        len(x), -1, math.prod(x.shape[2 : 2 + spatial])
    )


def convolution_gradients(
    name: str, layer: nn.Conv1d | nn.Conv2d, calls: Sequence[Call], batch: int
) -> dict[str, ParameterGradients]:
    """nn.Conv1d / nn.Conv2d on batched inputs (B, C_in, *spatial), as a grouped Linear layer on the unfolded input."""
    groups, spatial = layer.groups, len(layer.kernel_size)
    G = _joined([call.output_gradient.reshape(batch, groups, layer.out_channels // groups, -1) for call in calls], 3)
    gradients: dict[str, ParameterGradients] = {}
    if _trainable(layer.weight):
        columns = [_unfolded(layer, _batch_first(name, call.input, batch, spatial + 2)) for call in calls]
        A = _joined([column.reshape(batch, groups, -1, column.shape[2]) for column in columns], 3)
        gradients["weight"] = product_gradients(A, G, layer.weight.shape)
    if _trainable(layer.bias):
        gradients["bias"] = FormedGradients(G.sum(3).flatten(1))
    return gradients


def embedding_gradients(
    name: str, layer: nn.Embedding, calls: Sequence[Call], batch: int
) -> dict[str, ParameterGradients]:
    """nn.Embedding on ids (B, …): positions T = the product of the other axes, over all calls."""
    if not _trainable(layer.weight):
        return {}
    ids = _joined([_batch_first(name, call.input, batch, 1).reshape(batch, -1) for call in calls], 1)
    G = _joined([call.output_gradient.reshape(batch, -1, layer.embedding_dim) for call in calls], 1)
    if layer.padding_idx is not None:
        G = G.masked_fill((ids == layer.padding_idx)[:, :, None], 0.0)
    return {"weight": EmbeddingGradients(ids, G, layer.num_embeddings)}


def _normalisation_gradients(
    calls: Sequence[Call],
    layer: nn.LayerNorm | nn.GroupNorm,
    normalise: Callable[[Tensor], Tensor],
    per_example: Callable[[Tensor], Tensor],
) -> dict[str, ParameterGradients]:
    """γ and β of z = x̂ ⊙ γ + β: Σ over positions (and calls) of x̂ ⊙ g and of g, ``per_example`` summing a
    (B, …) tensor to (B, *parameter shape)."""
    gradients: dict[str, ParameterGradients] = {}
    if _trainable(layer.weight):
        formed = sum(per_example(normalise(call.input) * call.output_gradient) for call in calls)
        gradients["weight"] = FormedGradients(formed)
    if _trainable(layer.bias):
        gradients["bias"] = FormedGradients(sum(per_example(call.output_gradient) for call in calls))
    return gradients


def layer_norm_gradients(
    name: str, layer: nn.LayerNorm, calls: Sequence[Call], batch: int
) -> dict[str, ParameterGradients]:
    """nn.LayerNorm on inputs (B, …, *normalized_shape). x̂ is recomputed as layer_norm(x) ⊙ 1 (exact): PyTorch's CPU
    kernel with a weight runs about twice as fast as the one without."""
    shape = layer.normalized_shape
    for call in calls:
        _batch_first(name, call.input, batch, len(shape) + 1)
    return _normalisation_gradients(
        calls,
        layer,
        lambda x: F.layer_norm(x, shape, torch.ones(shape, dtype=x.dtype, device=x.device), eps=layer.eps),
        lambda t: t.reshape(batch, -1, *shape).sum(1),
    )


def group_norm_gradients(
    name: str, layer: nn.GroupNorm, calls: Sequence[Call], batch: int
) -> dict[str, ParameterGradients]:
    """nn.GroupNorm on inputs (B, C, *spatial)."""
    for call in calls:
        _batch_first(name, call.input, batch, 2)
    return _normalisation_gradients(
        calls,
        layer,
        lambda x: F.group_norm(x, layer.num_groups, eps=layer.eps),
        lambda t: t.reshape(batch, layer.num_channels, -1).sum(2),
    )


LayerGradients = Callable[[str, nn.Module, Sequence[Call], int], dict[str, ParameterGradients]]

LAYER_GRADIENTS: dict[type[nn.Module], LayerGradients] = {
    nn.Linear: linear_gradients,
    nn.Conv1d: convolution_gradients,
    nn.Conv2d: convolution_gradients,
    nn.Embedding: embedding_gradients,
    nn.LayerNorm: layer_norm_gradients,
    nn.GroupNorm: group_norm_gradients,
}
"""The supported layer types (exact types: a subclass may compute something else in its forward)."""


def layer_refusal(module: nn.Module) -> str | None:
    """Why the ghost path cannot take ``module``'s own trainable parameters (None when it can): a type outside
    :data:`LAYER_GRADIENTS`, trainable parameters other than its weight and bias, or an Embedding whose gradient
    depends on the batch (``scale_grad_by_freq``: counts over the batch) or whose forward renormalises its weight in
    place (``max_norm``)."""
    if type(module) not in LAYER_GRADIENTS:
        return f"{type(module).__name__} is not one of {sorted(t.__name__ for t in LAYER_GRADIENTS)}"
    own = module.named_parameters(recurse=False)
    extra = [name for name, p in own if p.requires_grad and name not in ("weight", "bias")]
    if extra:
        return f"trainable parameters {extra} registered beside the layer's weight and bias"
    if isinstance(module, nn.Embedding) and (module.scale_grad_by_freq or module.max_norm is not None):
        return "Embedding with scale_grad_by_freq or max_norm"
    return None
