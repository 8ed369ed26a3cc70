"""Σ_i clip_C(∇ℓ_i(θ)) for a ``torch.nn.Module``: ghost norms and book-keeping on the layer types of
:mod:`dplab.learning.layer_gradients` (nn.Linear, nn.Conv1d, nn.Conv2d, nn.Embedding, nn.LayerNorm, nn.GroupNorm),
``torch.func`` per-example gradients for any other module.

DP-SGD (Abadi et al. 2016, Algorithm 1) adds noise to the sum of the per-example gradients, each clipped to ℓ2 norm
C: clip_C(g) = g·min(1, C/‖g‖). Two ways to compute that sum, equal up to the order of floating-point summation:

- ``"ghost"`` (every trainable parameter in a supported layer). One forward pass of the batch with hooks recording
  each call of a supported layer (its input and output z), then one backward pass of Σ_i ℓ_i to the layer outputs
  only (no parameter gradient is formed), giving g = ∂(Σ_i ℓ_i)/∂z, whose row i is ∂ℓ_i/∂z_i. From these factors
  each layer gives ‖∇_θ ℓ_i‖² per example (ghost norms: Goodfellow 2015; Li, Tramèr, Liang, Hashimoto 2022) and,
  with c_i = min(1, C/‖∇ℓ_i‖) over all layers, Σ_i c_i ∇_θ ℓ_i (book-keeping: Bu, Wang, Zha, Karypis 2023): no
  second backward pass; per-example gradients are formed only where that is cheaper (formulas in
  :mod:`dplab.learning.layer_gradients`). A layer called several times per forward pass (shared weights) is
  handled: its calls' gradients add up per example.
- ``"vmap"`` (any module): ``torch.func.vmap(torch.func.grad(ℓ))`` over ``torch.func.functional_call``, the module
  called on one example at a time (with a batch axis of 1).

The ghost path calls the module once on the whole batch, so the module must treat the rows of a batch independently
(what per-example clipping presupposes). :func:`ghost_unsupported` refuses batch normalisation (it mixes the examples
of a batch), the owners of trainable parameters outside the supported layers (recurrent layers, attention,
parameters registered on a custom module, ...) and parameters shared between modules (tied weights, e.g. an
embedding and an output layer: the cross term of their per-example gradients is not factored). On each batch,
:func:`ghost_clipped_sum` refuses (:class:`GhostClippingUnsupported`) a layer called with its input as a keyword or
on an input whose first axis is not the batch, and a parameter used outside its layer's forward (the loss's autograd
graph reaches it by more edges than the layer calls the loss depends on); a layer output modified in place afterwards
(``ReLU(inplace=True)``) is detected and the outputs are then copied. "auto" takes the vmap path for any refusal.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass

import torch
from torch import Tensor, nn
from torch.func import functional_call, grad, vmap
from torch.nn.modules.batchnorm import _BatchNorm

from dplab.checks import choice, positive_finite, require
from dplab.learning.layer_gradients import LAYER_GRADIENTS, Call, GhostClippingUnsupported, layer_refusal

__all__ = ["GRADIENT_METHODS", "GhostClippingUnsupported", "ModuleGradientClipper", "ghost_unsupported"]

GRADIENT_METHODS: tuple[str, ...] = ("auto", "ghost", "vmap")

LossFunction = Callable[[Tensor, Tensor], Tensor]


class _OutputModifiedInPlace(GhostClippingUnsupported):
    """A recorded layer output was modified in place after the layer (its gradient would be the modified value's)."""


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
    :func:`~dplab.learning.layer_gradients.layer_refusal` refuses (types other than the supported layers, Embedding
    with ``scale_grad_by_freq`` or ``max_norm``), modules sharing a parameter with another module (tied weights), and
    batch normalisation (it mixes the examples of a batch). Empty when the path applies."""
    owners: dict[int, int] = {}
    for module in model.modules():
        for p in module.parameters(recurse=False):
            owners[id(p)] = owners.get(id(p), 0) + 1
    return [
        f"{name or '<root>'} ({type(module).__name__})"
        for name, module in model.named_modules()
        if (_owns_trainable_parameters(module) and layer_refusal(module) is not None)
        or _shares_a_parameter(module, owners)
        or isinstance(module, _BatchNorm)
    ]


def _trainable_layers(model: nn.Module) -> dict[str, nn.Module]:
    return {
        name: module
        for name, module in model.named_modules()
        if type(module) in LAYER_GRADIENTS and _owns_trainable_parameters(module)
    }


def _parameter_name(layer_name: str, parameter_name: str) -> str:
    return f"{layer_name}.{parameter_name}" if layer_name else parameter_name


@dataclass(frozen=True)
class _Record:
    """One call of a layer seen by its forward hook: the positional input, the output and the output's version
    counter then (it moves if the output is later modified in place)."""

    input: object
    output: object
    version: int


def _record_calls(
    model: nn.Module, layers: dict[str, nn.Module], x: Tensor, copy_outputs: bool
) -> tuple[Tensor, dict[str, list[_Record]]]:
    """``model(x)`` with every call of the ``layers`` recorded by forward hooks (removed afterwards); with
    ``copy_outputs`` the model continues on a copy of each output, so that in-place changes leave the recorded one."""
    calls: dict[str, list[_Record]] = {name: [] for name in layers}

    def recorder(records: list[_Record]) -> Callable:
        def hook(_module: nn.Module, args: tuple, output: object) -> Tensor | None:
            is_tensor = isinstance(output, Tensor)
            records.append(_Record(args[0] if args else None, output, output._version if is_tensor else 0))
            return output.clone() if copy_outputs and is_tensor else None

        return hook

    handles = [layer.register_forward_hook(recorder(calls[name])) for name, layer in layers.items()]
    try:
        return model(x), calls
    finally:
        for handle in handles:
            handle.remove()


def _check_record(name: str, record: _Record) -> None:
    """Refuse a call whose input or output is not a tensor, or whose output was modified in place since."""
    if not isinstance(record.input, Tensor):
        raise GhostClippingUnsupported(
            f"layer {name!r} was called without a tensor as its first positional argument (a keyword input?)"
        )
    if not isinstance(record.output, Tensor):
        raise GhostClippingUnsupported(f"layer {name!r} returned a {type(record.output).__name__}, not a tensor")
    if record.output._version != record.version:
        raise _OutputModifiedInPlace(f"the output of layer {name!r} was modified in place")


def _graph_uses(root: torch.autograd.graph.Node | None) -> tuple[set, dict[int, int]]:
    """The nodes of the autograd graph below ``root``, and how many of its edges end at each leaf tensor (by id)."""
    uses: dict[int, int] = {}
    seen: set = set()
    stack = [root]
    while stack:
        node = stack.pop()
        if node is None or node in seen:
            continue
        seen.add(node)
        for child, _ in node.next_functions:
            if child is not None and hasattr(child, "variable"):
                uses[id(child.variable)] = uses.get(id(child.variable), 0) + 1
            stack.append(child)
    return seen, uses


def _check_parameters_used_in_calls_only(
    total: Tensor, layers: dict[str, nn.Module], used: dict[str, list[_Record]]
) -> None:
    """Each call of a supported layer that the loss depends on puts one edge to each of the layer's parameters into
    the graph; more edges mean the parameter is also used outside the layer's forward, whose gradient the recorded
    calls miss."""
    nodes, uses = _graph_uses(total.grad_fn)
    for name, layer in layers.items():
        calls = sum(record.output.grad_fn in nodes for record in used[name])
        for parameter_name, p in layer.named_parameters(recurse=False):
            if p.requires_grad and uses.get(id(p), 0) != calls:
                raise GhostClippingUnsupported(
                    f"parameter {_parameter_name(name, parameter_name)!r} enters the graph {uses.get(id(p), 0)} "
                    f"times but its layer's output does {calls} times (used outside the layer's forward)"
                )


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
    model: nn.Module,
    loss_fn: LossFunction,
    x: Tensor,
    y: Tensor,
    clip: float,
    batched_loss: bool = False,
    copy_outputs: bool = False,
) -> dict[str, Tensor]:
    """Σ_i clip_C(∇ℓ_i) per trainable parameter name by ghost norms and book-keeping (module docstring);
    ℓ = :func:`per_example_losses` of ``model(x)``. Raises :class:`GhostClippingUnsupported` for what the module
    docstring lists; the caller checks :func:`ghost_unsupported` first. ``copy_outputs``: see :func:`_record_calls`."""
    layers = _trainable_layers(model)
    if not layers:  # nothing to train
        return {}
    outputs, records = _record_calls(model, layers, x, copy_outputs)
    losses = per_example_losses(loss_fn, outputs, y, batched_loss)
    for name, calls in records.items():
        for record in calls:
            _check_record(name, record)
    used = {name: [record for record in calls if record.output.requires_grad] for name, calls in records.items()}
    flat = [(name, record) for name, calls in used.items() for record in calls]
    batch = len(x)
    gradients: dict[str, dict] = {}
    if flat:
        total = losses.sum()
        _check_parameters_used_in_calls_only(total, layers, used)
        output_gradients = torch.autograd.grad(total, [record.output for _, record in flat], allow_unused=True)
        calls: dict[str, list[Call]] = {}
        for (name, record), gradient in zip(flat, output_gradients):
            gradient = torch.zeros_like(record.output) if gradient is None else gradient
            calls.setdefault(name, []).append(Call(record.input.detach(), gradient))
        gradients = {
            name: LAYER_GRADIENTS[type(layers[name])](name, layers[name], c, batch) for name, c in calls.items()
        }
    squared_norms = torch.zeros(batch, dtype=outputs.dtype, device=outputs.device)
    for layer_gradients in gradients.values():
        for parameter_gradients in layer_gradients.values():
            squared_norms = squared_norms + parameter_gradients.squared_norms()
    c = clip_factors(squared_norms, clip)
    sums: dict[str, Tensor] = {}
    for name, layer in layers.items():
        for parameter_name, parameter in layer.named_parameters(recurse=False):
            if parameter.requires_grad:
                parameter_gradients = gradients.get(name, {}).get(parameter_name)
                total_gradient = (
                    torch.zeros_like(parameter) if parameter_gradients is None else parameter_gradients.clipped_sum(c)
                )
                sums[_parameter_name(name, parameter_name)] = total_gradient.detach()
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

    "auto" also moves to the vmap path for good when a forward pass turns out unsupported (module docstring);
    "ghost" raises ValueError instead. A layer output modified in place is not a refusal: that batch is recomputed
    and from then on every recorded output is copied. ``self.method`` is the path in use ("ghost" or "vmap").
    ``batched_loss``: ``loss_fn(predictions, targets)`` returns the per-example losses of a batch
    (:func:`per_example_losses`).
    """

    def __init__(
        self, model: nn.Module, loss_fn: LossFunction, clip: float, method: str = "auto", batched_loss: bool = False
    ) -> None:
        choice("gradient_method", method, GRADIENT_METHODS)
        unsupported = ghost_unsupported(model)
        supported = ", ".join(sorted(t.__name__ for t in LAYER_GRADIENTS))
        require(
            method != "ghost" or not unsupported,
            "gradient_method",
            method,
            f"'auto' or 'vmap' for this model (the ghost path supports {supported}, no batch normalisation and no "
            f"parameter shared between modules; unsupported: {unsupported})",
        )
        self.clip = positive_finite("clip", clip)
        self.model, self.loss_fn, self.requested, self.batched_loss = model, loss_fn, method, batched_loss
        self.method = "vmap" if method == "vmap" or unsupported else "ghost"
        self.names = [name for name, p in model.named_parameters() if p.requires_grad]
        self.copy_outputs = False

    def _ghost(self, x: Tensor, y: Tensor) -> dict[str, Tensor]:
        try:
            return ghost_clipped_sum(self.model, self.loss_fn, x, y, self.clip, self.batched_loss, self.copy_outputs)
        except _OutputModifiedInPlace:
            self.copy_outputs = True
            return ghost_clipped_sum(self.model, self.loss_fn, x, y, self.clip, self.batched_loss, True)

    def __call__(self, x: Tensor, y: Tensor) -> dict[str, Tensor]:
        if not len(x):
            return {name: torch.zeros_like(p) for name, p in self.model.named_parameters() if name in self.names}
        if self.method == "ghost":
            try:
                return self._ghost(x, y)
            except GhostClippingUnsupported:
                if self.requested == "ghost":
                    raise
                self.method = "vmap"
        return vmap_clipped_sum(self.model, self.loss_fn, x, y, self.clip, self.names, self.batched_loss)
