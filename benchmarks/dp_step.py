"""(1) One DP-SGD step: dplab's engine against Opacus 1.6; (2) the same step without privacy (plain torch).

See the package docstring for the definition of "one step" shared by every implementation. Like for like:
``opacus_tensor_batches`` and ``torch_nonprivate`` draw their Poisson batches as ``train_dpsgd`` does and gather them
with ``index_select`` (:func:`index_batches`, the batches of section (1b)), as dplab's engine gathers its own;
``opacus`` uses Opacus's own DP data loader (what an Opacus user runs).
"""

from __future__ import annotations

import warnings
from collections.abc import Callable, Iterator
from typing import Any

import torch
from torch.utils.data import DataLoader, TensorDataset

from benchmarks.models import flat_parameters, make_data, make_module, model_spec, module_loss
from benchmarks.records import timing_rows
from benchmarks.settings import Settings
from benchmarks.timing import time_side_by_side
from dplab.learning.engine import NoisyGradientConfig, dp_sgd_noise_scale, poisson_batches, run_noisy_gradient

__all__ = [
    "DTYPE",
    "dplab_steps",
    "index_batches",
    "opacus_private",
    "opacus_steps",
    "nonprivate_steps",
    "dp_step_rows",
    "training_steps",
]

DTYPE = torch.float32
#: Poisson batches drawn per call of :func:`~dplab.learning.engine.poisson_batches` (the same stream as one call).
_BATCHES_PER_CALL = 256


def dplab_steps(
    settings: Settings, spec: Any, X: torch.Tensor, y: torch.Tensor, batch_size: int
) -> Callable[[], object]:
    """``settings.steps`` DP-SGD steps of dplab's engine from the module's initial weights (one call)."""
    theta = flat_parameters(make_module(spec, settings.seed, DTYPE))
    config = NoisyGradientConfig(
        lr=settings.lr,
        noise="gaussian",
        noise_scale=dp_sgd_noise_scale(settings.noise_multiplier, settings.clip_norm, batch_size),
        clip_norm=settings.clip_norm,
        sampling="poisson",
        batch_size=batch_size,
        steps=settings.steps,
    )
    generator = torch.Generator().manual_seed(settings.seed)
    return lambda: run_noisy_gradient(
        config, spec.loss, X, y, theta, runs=1, generator=generator, dtype=DTYPE, progress=False
    )


def opacus_private(settings: Settings, spec: Any, X: torch.Tensor, y: torch.Tensor, batch_size: int):
    """Opacus's private (module, optimizer, Poisson data loader) for the same model, σ, C and expected batch size."""
    from opacus import PrivacyEngine

    module = make_module(spec, settings.seed, DTYPE)
    optimizer = torch.optim.SGD(module.parameters(), lr=settings.lr)
    loader = DataLoader(TensorDataset(X, y), batch_size=batch_size)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")  # "secure_mode=False" / full-backward-hook notices
        return PrivacyEngine().make_private(
            module=module,
            optimizer=optimizer,
            data_loader=loader,
            noise_multiplier=settings.noise_multiplier,
            max_grad_norm=settings.clip_norm,
            poisson_sampling=True,
        )


def index_batches(
    X: torch.Tensor, y: torch.Tensor, batch_size: int, seed: int
) -> Iterator[tuple[torch.Tensor, torch.Tensor]]:
    """Endless Poisson batches (q = batch_size/n) drawn and gathered as ``train_dpsgd`` does: the indices of
    :func:`dplab.learning.engine.poisson_batches`, then ``index_select`` (a boolean-mask gather ``X[mask]`` costs
    about twice as much), so that every implementation pays the same for its batch."""
    generator = torch.Generator().manual_seed(seed)
    while True:  # a block of draws at a time, in one stream
        for index in poisson_batches(X.shape[0], batch_size / X.shape[0], _BATCHES_PER_CALL, generator):
            yield X.index_select(0, index), y.index_select(0, index)


def _loader_batches(loader):
    while True:
        yield from loader


def training_steps(module, optimizer, batches, steps: int) -> Callable[[], None]:
    """``steps`` plain training steps on the next batches: zero_grad, mean loss, backward, optimizer step."""

    def run() -> None:
        for _ in range(steps):
            xb, yb = next(batches)
            optimizer.zero_grad(set_to_none=True)
            module_loss(module, xb, yb).backward()
            optimizer.step()

    return run


def opacus_steps(settings: Settings, spec: Any, X, y, batch_size: int, *, tensor_batches: bool) -> Callable[[], None]:
    """``settings.steps`` Opacus steps, batches from its DP data loader or (``tensor_batches``) from
    :func:`index_batches`."""
    module, optimizer, loader = opacus_private(settings, spec, X, y, batch_size)
    batches = index_batches(X, y, batch_size, settings.seed) if tensor_batches else _loader_batches(loader)
    return training_steps(module, optimizer, batches, settings.steps)


def nonprivate_steps(settings: Settings, spec: Any, X, y, batch_size: int) -> Callable[[], None]:
    """``settings.steps`` plain torch steps: Poisson batch (:func:`index_batches`), mean loss, autograd backward, SGD
    update."""
    module = make_module(spec, settings.seed, DTYPE)
    optimizer = torch.optim.SGD(module.parameters(), lr=settings.lr)
    return training_steps(module, optimizer, index_batches(X, y, batch_size, settings.seed), settings.steps)


def dp_step_rows(settings: Settings, progress: Callable[[str], None] = print) -> list[dict[str, Any]]:
    """Rows of benchmark ``dp_step`` (reference: Opacus) and ``nonprivate_step`` (reference: plain torch)."""
    X, y = make_data(settings.n, settings.inputs, settings.seed, DTYPE)
    rows: list[dict[str, Any]] = []
    for name in settings.models:
        spec = model_spec(name, settings.inputs, settings.hidden)
        for batch_size in settings.batch_sizes:
            case = f"{name}_b{batch_size}"
            progress(f"dp_step {case}")
            functions = {
                "dplab": dplab_steps(settings, spec, X, y, batch_size),
                "opacus": opacus_steps(settings, spec, X, y, batch_size, tensor_batches=False),
                "opacus_tensor_batches": opacus_steps(settings, spec, X, y, batch_size, tensor_batches=True),
                "torch_nonprivate": nonprivate_steps(settings, spec, X, y, batch_size),
            }
            timings = time_side_by_side(functions, repeats=settings.repeats, units=settings.steps)
            common = {"unit": "step", "model": name, "batch_size": batch_size, "runs": 1}
            rows += timing_rows(
                "dp_step",
                case,
                timings,
                reference="opacus",
                implementations=("dplab", "opacus", "opacus_tensor_batches"),
                **common,
            )
            rows += timing_rows(
                "nonprivate_step",
                case,
                timings,
                reference="torch_nonprivate",
                implementations=("torch_nonprivate", "dplab", "opacus"),
                **common,
            )
    return rows
