"""(3) Training S seeds at once (the engine's ``runs`` dimension) against S sequential single-run trainings.

Both train DP-SGD on logistic regression (Poisson sampling, clipping, Gaussian noise) for ``seeds_steps`` steps;
"batched" is one ``run_noisy_gradient(..., runs=S)`` call, "sequential" is S calls with ``runs=1``.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

import torch

from benchmarks.models import make_data
from benchmarks.records import timing_rows
from benchmarks.settings import Settings
from benchmarks.timing import time_side_by_side
from dplab.learning.engine import NoisyGradientConfig, dp_sgd_noise_scale, run_noisy_gradient
from dplab.learning.losses import LogisticLoss

__all__ = ["seed_rows"]

DTYPE = torch.float32


def _config(settings: Settings) -> NoisyGradientConfig:
    return NoisyGradientConfig(
        lr=settings.lr,
        noise="gaussian",
        noise_scale=dp_sgd_noise_scale(settings.noise_multiplier, settings.clip_norm, settings.seeds_batch_size),
        clip_norm=settings.clip_norm,
        sampling="poisson",
        batch_size=settings.seeds_batch_size,
        steps=settings.seeds_steps,
    )


def _train(settings: Settings, X, y, runs: int, calls: int) -> Callable[[], None]:
    config, start = _config(settings), torch.zeros(X.shape[1], dtype=DTYPE)
    generators = [torch.Generator().manual_seed(settings.seed + k) for k in range(calls)]

    def run() -> None:
        for generator in generators:
            run_noisy_gradient(
                config, LogisticLoss(), X, y, start, runs=runs, generator=generator, dtype=DTYPE, progress=False
            )

    return run


def seed_rows(settings: Settings, progress: Callable[[str], None] = print) -> list[dict[str, Any]]:
    """Rows of benchmark ``seeds``: seconds per full training of S seeds (reference: sequential)."""
    X, y = make_data(settings.seeds_n, settings.seeds_inputs, settings.seed, DTYPE)
    rows: list[dict[str, Any]] = []
    for seeds in settings.seed_counts:
        progress(f"seeds S={seeds}")
        functions = {"batched": _train(settings, X, y, seeds, 1), "sequential": _train(settings, X, y, 1, seeds)}
        timings = time_side_by_side(functions, repeats=settings.seeds_repeats)
        rows += timing_rows(
            "seeds",
            f"logistic_d{settings.seeds_inputs}_S{seeds}",
            timings,
            reference="sequential",
            unit="training of S seeds",
            model="logistic",
            batch_size=settings.seeds_batch_size,
            runs=seeds,
        )
    return rows
