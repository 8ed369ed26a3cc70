"""(1b) DP-SGD on an ``nn.Module``: ``dplab.train_dpsgd`` against Opacus's ghost clipping and default hooks, and
against a non-private step, on the same module, batches and hyper-parameters (issue 15's speed target).

Every implementation trains its own copy of the same module (same initial weights) on Poisson batches (rate B/n)
drawn by a tensor mask (Opacus and torch) or by ``train_dpsgd``'s own sampler (the same draw). One measurement is
``settings.steps`` steps, divided by ``settings.steps``:

- ``dplab_module``: one call ``train_dpsgd(..., steps=settings.steps, batched_loss=True)`` (ghost norms and
  book-keeping; the loss returns per-sample losses). Its accountant result is cached after the warm-up call
  (dp_accounting's RDP accountant takes ≈40 ms per configuration, paid once per training run);
- ``dplab_module_vmap_loss``: the same with ``batched_loss=False`` (the per-example loss is vmapped);
- ``dplab_module_vmap``: ``gradient_method="vmap"`` (per-sample gradients by ``torch.func``; the implementation
  before ghost clipping);
- ``opacus_ghost``: ``PrivacyEngine.make_private(..., grad_sample_mode="ghost", criterion=...)``, the loop a user
  writes (forward, the wrapped criterion's ``backward`` — two backward passes — ``optimizer.step``, ``zero_grad``);
- ``opacus``: the same with ``grad_sample_mode="hooks"`` (Opacus's default: per-sample gradients materialised);
- ``torch_nonprivate``: forward, mean loss, ``backward``, ``SGD.step``.
"""

from __future__ import annotations

import functools
import warnings
from collections.abc import Callable
from typing import Any

import torch
from torch.utils.data import DataLoader, TensorDataset

from benchmarks.dp_step import DTYPE, _poisson_batches, nonprivate_steps, opacus_steps
from benchmarks.models import LogisticCriterion, logistic_losses, make_data, make_module, model_spec
from benchmarks.records import timing_rows
from benchmarks.settings import Settings
from benchmarks.timing import time_side_by_side
from dplab.train import train_dpsgd

__all__ = ["MODULE_IMPLEMENTATIONS", "dplab_module_steps", "opacus_ghost_steps", "module_step_rows"]

MODULE_IMPLEMENTATIONS: tuple[str, ...] = (
    "dplab_module",
    "dplab_module_vmap_loss",
    "dplab_module_vmap",
    "opacus_ghost",
    "opacus",
    "torch_nonprivate",
)


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


def opacus_ghost_steps(settings: Settings, spec: Any, X, y, batch_size: int) -> Callable[[], None]:
    """``settings.steps`` steps of Opacus's ghost clipping (its wrapped criterion does both backward passes)."""
    from opacus import PrivacyEngine

    module = make_module(spec, settings.seed, DTYPE)
    optimizer = torch.optim.SGD(module.parameters(), lr=settings.lr)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")  # "secure_mode=False" notice
        module, optimizer, criterion, _ = PrivacyEngine().make_private(
            module=module,
            optimizer=optimizer,
            data_loader=DataLoader(TensorDataset(X, y), batch_size=batch_size),
            criterion=LogisticCriterion(),
            noise_multiplier=settings.noise_multiplier,
            max_grad_norm=settings.clip_norm,
            poisson_sampling=True,
            grad_sample_mode="ghost",
        )
    batches = _poisson_batches(X, y, batch_size, settings.seed)

    def run() -> None:
        for _ in range(settings.steps):
            xb, yb = next(batches)
            optimizer.zero_grad(set_to_none=True)
            criterion(module(xb), yb).backward()
            optimizer.step()

    return run


def module_step_rows(settings: Settings, progress: Callable[[str], None] = print) -> list[dict[str, Any]]:
    """Rows of benchmark ``module_step`` (reference: opacus_ghost) and ``module_nonprivate_step`` (reference:
    torch_nonprivate), one case per model in ``settings.module_models`` at batch ``settings.module_batch_size``."""
    X, y = make_data(settings.n, settings.inputs, settings.seed, DTYPE)
    batch_size = settings.module_batch_size
    rows: list[dict[str, Any]] = []
    for name in settings.module_models:
        spec = model_spec(name, settings.inputs, settings.hidden)
        module = functools.partial(make_module, spec, settings.seed, DTYPE)
        case = f"{name}_b{batch_size}"
        progress(f"module_step {case}")
        functions = {
            "dplab_module": dplab_module_steps(settings, module(), X, y, batch_size, batched_loss=True),
            "dplab_module_vmap_loss": dplab_module_steps(settings, module(), X, y, batch_size),
            "dplab_module_vmap": dplab_module_steps(settings, module(), X, y, batch_size, gradient_method="vmap"),
            "opacus_ghost": opacus_ghost_steps(settings, spec, X, y, batch_size),
            "opacus": opacus_steps(settings, spec, X, y, batch_size, tensor_batches=True),
            "torch_nonprivate": nonprivate_steps(settings, spec, X, y, batch_size),
        }
        timings = time_side_by_side(functions, repeats=settings.module_repeats, units=settings.steps)
        common = {"unit": "step", "model": name, "batch_size": batch_size, "runs": 1}
        rows += timing_rows("module_step", case, timings, reference="opacus_ghost", **common)
        rows += timing_rows("module_nonprivate_step", case, timings, reference="torch_nonprivate", **common)
    return rows
