"""Sizes and repeat counts of the quick and full runs."""

from __future__ import annotations

from dataclasses import dataclass

__all__ = ["Settings", "full_settings", "quick_settings"]


@dataclass(frozen=True)
class Settings:
    """Everything that sets the size of a benchmark run (see ``python -m benchmarks --help``)."""

    threads: int = 2
    seed: int = 0
    # (1)-(2) one DP-SGD step against Opacus and against a non-private step
    n: int = 8192
    inputs: int = 1000
    hidden: int = 32
    batch_sizes: tuple[int, ...] = (64, 256, 1024)
    models: tuple[str, ...] = ("logistic", "mlp")
    noise_multiplier: float = 1.0
    clip_norm: float = 1.0
    lr: float = 0.1
    steps: int = 10
    repeats: int = 7
    # (1b) DP-SGD on an nn.Module (train_dpsgd) against Opacus ghost clipping and a non-private step, one model per
    # layer type (benchmarks.models.MODULE_MODELS)
    module_models: tuple[str, ...] = ("mlp", "embedding", "cnn", "conv1d")
    module_batch_size: int = 256
    module_repeats: int = 21
    # (3) S seeds at once against S sequential runs
    seed_counts: tuple[int, ...] = (8, 32)
    seeds_n: int = 2048
    seeds_inputs: int = 100
    seeds_batch_size: int = 64
    seeds_steps: int = 20
    seeds_repeats: int = 5
    # (4) Monte-Carlo audit sampler and accounting curves
    audit_samples: int = 500_000
    audit_n: int = 40
    audit_repeats: int = 5
    curve_points: int = 1000
    curve_repeats: int = 5
    # (5) the reproduction: snakemake dry-run timings (0 = skip)
    dry_run_repeats: int = 3
    # (6) the pipeline's kernels: the fraction of a point's steps timed, and repeats
    kernel_fraction: float = 0.1
    kernel_repeats: int = 5


def full_settings() -> Settings:
    """The default run (about 10 minutes on 2 cores)."""
    return Settings()


def quick_settings() -> Settings:
    """About a minute: fewer repeats and steps, the largest batch size dropped, smaller audit and curves."""
    return Settings(
        batch_sizes=(64, 256),
        steps=5,
        repeats=3,
        module_repeats=5,
        seed_counts=(8,),
        seeds_steps=10,
        seeds_repeats=3,
        audit_samples=100_000,
        audit_repeats=3,
        curve_points=200,
        curve_repeats=3,
        dry_run_repeats=1,
        kernel_fraction=0.02,
        kernel_repeats=2,
    )
