"""Σ_i clip_C(∇ℓ_i(θ)) for a ``torch.nn.Module``: ghost norms and book-keeping on nn.Linear layers, ``torch.func``
per-example gradients for any other module.

DP-SGD (Abadi et al. 2016, Algorithm 1) adds noise to the sum of the per-example gradients, each clipped to ℓ2 norm
C: clip_C(g) = g·min(1, C/‖g‖). Two ways to compute that sum, equal up to the order of floating-point summation:

- ``"ghost"`` (every trainable parameter in an nn.Linear layer). One forward pass of the batch with hooks recording
  each Linear layer's input a_i (T × d per example; T = 1 for a (B, d) input, T = the product of the middle axes for
  (B, …, d)) and output z_i, then one backward pass of Σ_i ℓ_i to the layer outputs only (no parameter gradient is
  formed), giving g_i = ∂ℓ_i/∂z_i (T × p). The per-example weight gradient is g_iᵀa_i, so
  ‖∇_W ℓ_i‖²_F = ⟨a_i a_iᵀ, g_i g_iᵀ⟩ (the "ghost norm": Goodfellow 2015, "Efficient per-example gradient
  computations"; Li, Tramèr, Liang, Hashimoto 2022, "ghost clipping"), = ‖a_i‖²‖g_i‖² when T = 1, and
  ‖∇_b ℓ_i‖² = ‖Σ_t g_it‖². With c_i = min(1, C/‖∇ℓ_i‖) over all layers, the clipped sum of a layer is
  Σ_i c_i g_iᵀa_i, one matrix product of the stored factors (the "book-keeping" trick of Bu, Wang, Zha, Karypis 2023,
  "Differentially private optimization on large model at small cost"): no second backward pass and no (B × p × d)
  tensor. For T > 1 the per-example weight gradients are formed instead when that is cheaper (p·d < T²).
- ``"vmap"`` (any module): ``torch.func.vmap(torch.func.grad(ℓ))`` over ``torch.func.functional_call``, the module
  called on one example at a time (with a batch axis of 1).

The ghost path calls the module once on the whole batch, so the module must treat the rows of a batch independently
(what per-example clipping presupposes); :func:`ghost_unsupported` refuses the modules that own trainable parameters
and are not nn.Linear (convolutions, embeddings, normalisation layers, recurrent layers, parameters registered on a
custom module), modules sharing a parameter (tied weights) and batch normalisation, and :func:`ghost_clipped_sum`
refuses a Linear layer called more than once per forward pass (shared weights), called with its input as a keyword, or
on an input whose first axis is not the batch; "auto" then takes the vmap path.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass

import torch
from torch import Tensor, nn
from torch.func import functional_call, grad, vmap
from torch.nn.modules.batchnorm import _BatchNorm

from dplab.checks import choice, positive_finite, require

__all__ = ["GRADIENT_METHODS", "GhostClippingUnsupported", "ModuleGradientClipper", "ghost_unsupported"]

GRADIENT_METHODS: tuple[str, ...] = ("auto", "ghost", "vmap")

LossFunction = Callable[[Tensor, Tensor], Tensor]


class GhostClippingUnsupported(ValueError):
    """The module's forward pass does something the ghost path cannot factor (the message says what)."""


def clip_factors(squared_norms: Tensor, clip: float) -> Tensor:
    """c_i = min(1, C/‖∇ℓ_i‖) from the squared norms (a zero gradient gets c_i = 1)."""
    return (clip / squared_norms.sqrt().clamp_min(1e-12)).clamp(max=1.0)


def _owns_trainable_parameters(module: nn.Module) -> bool:
    return any(p.requires_grad for p in module.parameters(recurse=False))


def _shares_a_parameter(module: nn.Module, owners: dict[int, int]) -> bool:
    """Whether one of ``module``'s own parameters is also owned by another module (``owners``: id -> count)."""
    return any(owners[id(p)] > 1 for p in module.parameters(recurse=False))


def ghost_unsupported(model: nn.Module) -> list[str]:
    """The submodules (``"name (Type)"``) that keep ``model`` off the ghost path: owners of trainable parameters that
    are not nn.Linear, modules sharing a parameter with another module (tied weights: the per-example gradient is the
    sum of both uses), and batch normalisation (it mixes the examples of a batch). Empty when the path applies."""
    owners: dict[int, int] = {}
    for module in model.modules():
        for p in module.parameters(recurse=False):
            owners[id(p)] = owners.get(id(p), 0) + 1
    return [
        f"{name or '<root>'} ({type(module).__name__})"
        for name, module in model.named_modules()
        if (_owns_trainable_parameters(module) and not isinstance(module, nn.Linear))
        or _shares_a_parameter(module, owners)
        or isinstance(module, _BatchNorm)
    ]


def _squared_norms(tensor: Tensor) -> Tensor:
    """‖t_i‖² over every axis but the first (vector_norm: one pass, no squared copy)."""
    return torch.linalg.vector_norm(tensor.flatten(1), dim=1).square()


@dataclass(frozen=True)
class _LinearFactors:
    """One Linear layer's per-example factors: inputs A (B, T, d) and output gradients G (B, T, p)."""

    inputs: Tensor
    output_gradients: Tensor

    def weight_squared_norms(self) -> Tensor:
        """‖g_iᵀa_i‖²_F per example: ‖a_i‖²‖g_i‖² (T = 1), ⟨a_i a_iᵀ, g_i g_iᵀ⟩ or the formed gradient (T > 1)."""
        A, G = self.inputs, self.output_gradients
        T, d, p = A.shape[1], A.shape[2], G.shape[2]
        if T == 1:
            return _squared_norms(A) * _squared_norms(G)
        if T * T <= p * d:
            return (A @ A.transpose(1, 2) * (G @ G.transpose(1, 2))).sum((1, 2))
        return _squared_norms(torch.einsum("btp,btd->bpd", G, A))

    def bias_squared_norms(self) -> Tensor:
        """‖Σ_t g_it‖² per example."""
        return _squared_norms(self.output_gradients.sum(1))

    def weight_sum(self, c: Tensor) -> Tensor:
        """Σ_i c_i g_iᵀa_i, (p, d)."""
        weighted = c[:, None, None] * self.output_gradients
        return weighted.flatten(0, 1).T @ self.inputs.flatten(0, 1)

    def bias_sum(self, c: Tensor) -> Tensor:
        """Σ_i c_i Σ_t g_it, (p,)."""
        return c @ self.output_gradients.sum(1)


def _trainable_linear_layers(model: nn.Module) -> dict[str, nn.Linear]:
    return {
        name: module
        for name, module in model.named_modules()
        if isinstance(module, nn.Linear) and _owns_trainable_parameters(module)
    }


def _parameter_name(layer_name: str, parameter_name: str) -> str:
    return f"{layer_name}.{parameter_name}" if layer_name else parameter_name


def _record_calls(model: nn.Module, layers: dict[str, nn.Linear], x: Tensor) -> tuple[Tensor, dict[str, list]]:
    """``model(x)`` with every layer's (input, output) pairs recorded by forward hooks (removed afterwards)."""
    calls: dict[str, list] = {name: [] for name in layers}

    def recorder(record: list) -> Callable:
        def hook(_module: nn.Module, args: tuple, output: Tensor) -> None:
            record.append((args[0] if args else None, output))

        return hook

    handles = [layer.register_forward_hook(recorder(calls[name])) for name, layer in layers.items()]
    try:
        return model(x), calls
    finally:
        for handle in handles:
            handle.remove()


def _as_batch_of_sequences(name: str, tensor: Tensor | None, batch: int) -> Tensor:
    """(B, d) → (B, 1, d); (B, …, d) → (B, T, d); anything without the batch as its first axis is refused (so is an
    input passed by keyword, which the hook does not see: ``None``)."""
    if tensor is None:
        raise GhostClippingUnsupported(f"layer {name!r} was called with its input as a keyword argument")
    if tensor.ndim < 2 or tensor.shape[0] != batch:
        raise GhostClippingUnsupported(
            f"layer {name!r} got an input of shape {tuple(tensor.shape)}; the ghost path needs (batch={batch}, ..., d)"
        )
    return tensor.reshape(batch, -1, tensor.shape[-1])


def per_example_losses(loss_fn: LossFunction, predictions: Tensor, targets: Tensor, batched_loss: bool) -> Tensor:
    """(ℓ_1, …, ℓ_B): ``loss_fn(predictions, targets)`` itself when ``batched_loss`` (checked to have shape (B,)),
    else ``vmap(loss_fn)`` over the examples (general, but its backward costs ≈0.5 ms more per step on CPU)."""
    if not batched_loss:
        return vmap(loss_fn)(predictions, targets)
    losses = loss_fn(predictions, targets)
    if losses.shape != (len(predictions),):
        raise ValueError(
            f"loss_fn returned shape {tuple(losses.shape)} with batched_loss=True; allowed: the per-example losses, "
            f"shape ({len(predictions)},) (e.g. reduction='none')"
        )
    return losses


def ghost_clipped_sum(
    model: nn.Module, loss_fn: LossFunction, x: Tensor, y: Tensor, clip: float, batched_loss: bool = False
) -> dict[str, Tensor]:
    """Σ_i clip_C(∇ℓ_i) per trainable parameter name by ghost norms and book-keeping (module docstring);
    ℓ = :func:`per_example_losses` of ``model(x)``. Raises :class:`GhostClippingUnsupported` for a layer called twice or on an
    input without the batch axis first; the caller checks :func:`ghost_unsupported` first."""
    layers = _trainable_linear_layers(model)
    if not layers:  # nothing to train
        return {}
    outputs, calls = _record_calls(model, layers, x)
    shared = [name for name, records in calls.items() if len(records) > 1]
    if shared:
        raise GhostClippingUnsupported(f"layers {shared} are called more than once per forward pass (shared weights)")
    used = {name: records[0] for name, records in calls.items() if records}
    losses = per_example_losses(loss_fn, outputs, y, batched_loss)
    output_gradients = torch.autograd.grad(losses.sum(), [output for _, output in used.values()], allow_unused=True)
    batch = len(x)
    factors = {
        name: _LinearFactors(
            _as_batch_of_sequences(name, None if inputs is None else inputs.detach(), batch),
            _as_batch_of_sequences(name, torch.zeros_like(output) if gradient is None else gradient, batch),
        )
        for (name, (inputs, output)), gradient in zip(used.items(), output_gradients)
    }
    squared_norms = torch.zeros(batch, dtype=outputs.dtype, device=outputs.device)
    for name, factor in factors.items():
        if layers[name].weight.requires_grad:
            squared_norms = squared_norms + factor.weight_squared_norms()
        if layers[name].bias is not None and layers[name].bias.requires_grad:
            squared_norms = squared_norms + factor.bias_squared_norms()
    c = clip_factors(squared_norms, clip)
    sums: dict[str, Tensor] = {}
    for name, layer in layers.items():
        for parameter_name, parameter in layer.named_parameters(recurse=False):
            if not parameter.requires_grad:
                continue
            if name not in factors:
                total = torch.zeros_like(parameter)
            else:
                total = factors[name].weight_sum(c) if parameter_name == "weight" else factors[name].bias_sum(c)
            sums[_parameter_name(name, parameter_name)] = total.detach()
    return sums


def vmap_clipped_sum(
    model: nn.Module,
    loss_fn: LossFunction,
    x: Tensor,
    y: Tensor,
    clip: float,
    names: list[str],
    batched_loss: bool = False,
) -> dict[str, Tensor]:
    """Σ_i clip_C(∇ℓ_i) for the parameters ``names`` from per-example gradients ``vmap(grad(ℓ))`` over
    ``functional_call(model, θ, (x_i[None],))`` (any module); a batched loss gets batches of one."""

    def example_loss(params: dict, example: Tensor, target: Tensor) -> Tensor:
        prediction = functional_call(model, params, (example.unsqueeze(0),))
        if batched_loss:
            return per_example_losses(loss_fn, prediction, target.unsqueeze(0), True)[0]
        return loss_fn(prediction.squeeze(0), target)

    params = {name: p.detach() for name, p in model.named_parameters() if name in names}
    grads = vmap(grad(example_loss), in_dims=(None, 0, 0))(params, x, y)
    c = clip_factors(sum(g.flatten(1).square().sum(1) for g in grads.values()), clip)
    return {name: torch.einsum("b,b...->...", c, g) for name, g in grads.items()}


class ModuleGradientClipper:
    """``clipper(x, y)`` = Σ_i clip_C(∇ℓ_i) per trainable parameter name of ``model``, by the ghost path when
    ``method`` is "ghost", or "auto" and :func:`ghost_unsupported` finds nothing, else by the vmap path.

    "auto" also moves to the vmap path for good when a forward pass turns out unsupported (a shared layer);
    "ghost" raises ValueError instead. ``self.method`` is the path in use ("ghost" or "vmap"). ``batched_loss``:
    ``loss_fn(predictions, targets)`` returns the per-example losses of a batch (:func:`per_example_losses`).
    """

    def __init__(
        self, model: nn.Module, loss_fn: LossFunction, clip: float, method: str = "auto", batched_loss: bool = False
    ) -> None:
        choice("gradient_method", method, GRADIENT_METHODS)
        unsupported = ghost_unsupported(model)
        require(
            method != "ghost" or not unsupported,
            "gradient_method",
            method,
            f"'auto' or 'vmap' for this model (the ghost path supports nn.Linear only; unsupported: {unsupported})",
        )
        self.clip = positive_finite("clip", clip)
        self.model, self.loss_fn, self.requested, self.batched_loss = model, loss_fn, method, batched_loss
        self.method = "vmap" if method == "vmap" or unsupported else "ghost"
        self.names = [name for name, p in model.named_parameters() if p.requires_grad]

    def __call__(self, x: Tensor, y: Tensor) -> dict[str, Tensor]:
        if not len(x):
            return {name: torch.zeros_like(p) for name, p in self.model.named_parameters() if name in self.names}
        if self.method == "ghost":
            try:
                return ghost_clipped_sum(self.model, self.loss_fn, x, y, self.clip, self.batched_loss)
            except GhostClippingUnsupported:
                if self.requested == "ghost":
                    raise
                self.method = "vmap"
        return vmap_clipped_sum(self.model, self.loss_fn, x, y, self.clip, self.names, self.batched_loss)
