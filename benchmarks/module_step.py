"""(1b) DP-SGD on an ``nn.Module``, one row per layer type: ``dplab.train_dpsgd`` against Opacus's ghost clipping and
default hooks, and against a non-private step, on the same module, batches and hyper-parameters (issues 15 and 27).

The models (:data:`benchmarks.models.MODULE_MODELS`): an MLP of Linear layers, Embedding + LayerNorm + Linear on
token sequences, a small CNN (Conv2d + GroupNorm) and a Conv1d model (see :mod:`benchmarks.models`). Every
implementation trains its own copy of the same module (same initial weights) on Poisson batches (rate B/n): the
indices of the records whose uniform draw falls below B/n, gathered with ``index_select``, the way ``train_dpsgd``
draws and gathers its own batches (:func:`benchmarks.dp_step.index_batches`, as in section (1)). One measurement
is ``settings.steps`` steps, divided by ``settings.steps``:

- ``dplab_module``: one call ``train_dpsgd(..., steps=settings.steps, batched_loss=True)`` (ghost norms and
  book-keeping; the loss returns per-sample losses). Its accountant result is cached after the warm-up call
  (dp_accounting's RDP accountant takes ≈40 ms per configuration, paid once per training run);
- ``dplab_module_vmap_loss``: the same with ``batched_loss=False`` (the per-example loss is vmapped);
- ``dplab_module_vmap``: ``gradient_method="vmap"`` (per-sample gradients by ``torch.func``);
- ``opacus_ghost``: ``PrivacyEngine.make_private(..., grad_sample_mode="ghost", criterion=...)``, its fastest
  documented setting, the loop a user writes (forward, the wrapped criterion's ``backward`` — two backward
  passes — ``optimizer.step``, ``zero_grad``);
- ``opacus``: ``grad_sample_mode="hooks"`` (Opacus's default: per-sample gradients materialised), same loop with
  the mean loss;
- ``torch_nonprivate``: forward, mean loss, ``backward``, ``SGD.step``.
"""

from __future__ import annotations

import functools
import warnings
from collections.abc import Callable
from typing import Any

import torch
from torch.utils.data import DataLoader, TensorDataset

from benchmarks.dp_step import DTYPE, index_batches, training_steps
from benchmarks.models import LogisticCriterion, logistic_losses, make_module_data, make_module_model
from benchmarks.records import timing_rows
from benchmarks.settings import Settings
from benchmarks.timing import time_side_by_side
from dplab.train import train_dpsgd

__all__ = [
    "MODULE_IMPLEMENTATIONS",
    "MODULE_TARGETS",
    "dplab_module_steps",
    "module_step_rows",
    "opacus_module_steps",
    "nonprivate_module_steps",
]

MODULE_IMPLEMENTATIONS: tuple[str, ...] = (
    "dplab_module",
    "dplab_module_vmap_loss",
    "dplab_module_vmap",
    "opacus_ghost",
    "opacus",
    "torch_nonprivate",
)

#: Per model: (most ``dplab_module`` / ``opacus_ghost``, most ``dplab_module`` / ``torch_nonprivate``). Issue 15
#: for the MLP; issue 27 for the others (at most Opacus ghost's time on every layer type, 0.7 of it on the CNN, at
#: most 3 non-private steps).
MODULE_TARGETS: dict[str, tuple[float, float]] = {
    "mlp": (0.5, 2.0),
    "embedding": (1.0, 3.0),
    "cnn": (0.7, 3.0),
    "conv1d": (1.0, 3.0),
}

ModuleFactory = Callable[[], torch.nn.Module]


def dplab_module_steps(
    settings: Settings, module: torch.nn.Module, X: torch.Tensor, y: torch.Tensor, batch_size: int, **options: Any
) -> Callable[[], object]:
    """``settings.steps`` steps of ``train_dpsgd`` (one call) on ``module``, continuing from its current weights."""
    return lambda: train_dpsgd(
        module,
        logistic_losses,
        X,
        y,
        noise_multiplier=settings.noise_multiplier,
        clip=settings.clip_norm,
        batch_size=batch_size,
        steps=settings.steps,
        lr=settings.lr,
        delta=1e-5,
        seed=settings.seed,
        **options,
    )


def opacus_module_steps(
    settings: Settings, factory: ModuleFactory, X: torch.Tensor, y: torch.Tensor, batch_size: int, mode: str
) -> Callable[[], None]:
    """``settings.steps`` Opacus steps with ``grad_sample_mode=mode`` ("ghost": the wrapped criterion does both
    backward passes; "hooks": per-sample gradients by module hooks)."""
    from opacus import PrivacyEngine

    module = factory()
    optimizer = torch.optim.SGD(module.parameters(), lr=settings.lr)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")  # "secure_mode=False" notice
        private = PrivacyEngine().make_private(
            module=module,
            optimizer=optimizer,
            data_loader=DataLoader(TensorDataset(X, y), batch_size=batch_size),
            criterion=LogisticCriterion(),
            noise_multiplier=settings.noise_multiplier,
            max_grad_norm=settings.clip_norm,
            poisson_sampling=True,
            grad_sample_mode=mode,
        )
    module, optimizer = private[0], private[1]
    loss = private[2] if mode == "ghost" else LogisticCriterion()
    batches = index_batches(X, y, batch_size, settings.seed)

    def run() -> None:
        for _ in range(settings.steps):
            xb, yb = next(batches)
            optimizer.zero_grad(set_to_none=True)
            loss(module(xb), yb).backward()
            optimizer.step()

    return run


def nonprivate_module_steps(
    settings: Settings, factory: ModuleFactory, X: torch.Tensor, y: torch.Tensor, batch_size: int
) -> Callable[[], None]:
    """``settings.steps`` plain torch steps on the same batches: forward, mean loss, backward, SGD update."""
    module = factory()
    optimizer = torch.optim.SGD(module.parameters(), lr=settings.lr)
    return training_steps(module, optimizer, index_batches(X, y, batch_size, settings.seed), settings.steps)


def module_step_rows(settings: Settings, progress: Callable[[str], None] = print) -> list[dict[str, Any]]:
    """Rows of benchmark ``module_step`` (reference: opacus_ghost) and ``module_nonprivate_step`` (reference:
    torch_nonprivate), one case per model in ``settings.module_models`` at batch ``settings.module_batch_size``."""
    batch_size = settings.module_batch_size
    rows: list[dict[str, Any]] = []
    for name in settings.module_models:
        X, y = make_module_data(name, settings.n, settings.inputs, settings.seed, DTYPE)
        factory = functools.partial(make_module_model, name, settings.inputs, settings.hidden, settings.seed, DTYPE)
        case = f"{name}_b{batch_size}"
        progress(f"module_step {case}")
        functions = {
            "dplab_module": dplab_module_steps(settings, factory(), X, y, batch_size, batched_loss=True),
            "dplab_module_vmap_loss": dplab_module_steps(settings, factory(), X, y, batch_size),
            "dplab_module_vmap": dplab_module_steps(settings, factory(), X, y, batch_size, gradient_method="vmap"),
            "opacus_ghost": opacus_module_steps(settings, factory, X, y, batch_size, "ghost"),
            "opacus": opacus_module_steps(settings, factory, X, y, batch_size, "hooks"),
            "torch_nonprivate": nonprivate_module_steps(settings, factory, X, y, batch_size),
        }
        timings = time_side_by_side(functions, repeats=settings.module_repeats, units=settings.steps)
        common = {"unit": "step", "model": name, "batch_size": batch_size, "runs": 1}
        rows += timing_rows("module_step", case, timings, reference="opacus_ghost", **common)
        rows += timing_rows("module_nonprivate_step", case, timings, reference="torch_nonprivate", **common)
    return rows
