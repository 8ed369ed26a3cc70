"""Noisy-gradient learning: per-sample losses, projections, one engine for PNSGD / DP-SGD / DP-GD / SGLD, and the
logistic empirical risk with its constrained minimiser (ERM)."""

from __future__ import annotations

from dplab.learning.engine import (
    NOISE_KINDS,
    SAMPLING_MODES,
    STOPPING_RULES,
    NoisyGradientConfig,
    clip_by_norm,
    dp_sgd_noise_scale,
    per_sample_gradients,
    run_noisy_gradient,
    sgld_noise_scale,
)
from dplab.learning.erm import ConstrainedMinimum, constrained_minimiser, logistic_risk
from dplab.learning.losses import LinearLoss, LogisticLoss
from dplab.learning.projections import Ball, Interval, NoProjection, Projection

__all__ = [
    "NOISE_KINDS",
    "SAMPLING_MODES",
    "STOPPING_RULES",
    "NoisyGradientConfig",
    "clip_by_norm",
    "dp_sgd_noise_scale",
    "per_sample_gradients",
    "run_noisy_gradient",
    "sgld_noise_scale",
    "ConstrainedMinimum",
    "constrained_minimiser",
    "logistic_risk",
    "LinearLoss",
    "LogisticLoss",
    "Ball",
    "Interval",
    "NoProjection",
    "Projection",
]
