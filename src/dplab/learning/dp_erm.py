"""The DP-ERM learners of Lin, Wang, Ma, Wang (*Purifying Approximate DP with Randomized Post-processing*, Table 2)
as configurations of the noisy-gradient engine, and the exponential mechanism's grid of the unit disc.

- :func:`algorithm3_dpsgd`: Algorithm 3 (DP-SGD on the summed loss, sampling a γ-fraction, average of the
  iterates) with Lemma 25's constant step, or Lemma 26's decreasing step η_t = 2/(nλ(t + 1)) and weighted average
  for λ-strongly convex losses (one engine call with a step-size schedule).
- :func:`lemma19_laplace_gd`: Lemma 19's pure-DP full-batch gradient descent with Laplace noise.
- :func:`grid_in_disc`, :func:`summed_logistic_loss_on_grid`: the exponential mechanism's candidates in d = 2.
"""

from __future__ import annotations

import math
from typing import Any

import numpy as np
import torch

from dplab.checks import (
    choice,
    fits_in_memory,
    floating_tensor,
    matching_length,
    non_negative_finite,
    positive_finite,
    probability,
    whole_number,
)
from dplab.learning.engine import NoisyGradientConfig, run_noisy_gradient
from dplab.learning.erm import _data, _parameters
from dplab.learning.projections import Ball
from dplab.theory.purification import lemma19_parameters

__all__ = ["algorithm3_dpsgd", "grid_in_disc", "lemma19_laplace_gd", "summed_logistic_loss_on_grid"]

SAMPLINGS = ("without_replacement", "poisson")
#: Bytes per step of Lemma 26's step-size schedule: the Python floats of the tuple built here, and the engine's
#: float64 copy, tuple and per-step list of them.
_SCHEDULE_BYTES_PER_STEP = 80


def _engine(config: NoisyGradientConfig, loss, X, Y, runs: int, generator: torch.Generator) -> np.ndarray:
    w0 = torch.zeros(X.shape[1], dtype=torch.float64)
    return run_noisy_gradient(config, loss, X, Y, w0, runs=runs, generator=generator, progress=False).numpy()


def _check_common(X: Any, Y: Any, n: int, radius: float, runs: int) -> None:
    """Refuse features that are not a finite float32/float64 tensor, labels of another length, a fractional or
    non-positive n or runs, and a radius that is not > 0 (the labels' values are checked by the engine)."""
    floating_tensor("X", X)
    matching_length("X", X, "Y", Y)
    whole_number("n", n)
    positive_finite("radius", radius)
    whole_number("runs", runs)


def algorithm3_dpsgd(
    loss, X, Y, *, lam: float, n: int, steps: int, sampling: str, gamma: float, noise_std: float, eta: float,
    clip: float, radius: float, runs: int, generator: torch.Generator,
) -> np.ndarray:  # fmt: skip
    """Algorithm 3 in engine form: (1/γ)(Σ_{i∈S} g_i + σN) = n·(mean over B = γn + (σ/B)N), so lr = nη, noise σ/B;
    the average of the T projected iterates on the ball of ``radius`` (``lam`` = 0), or Lemma 26's decreasing step
    and weighted average (``lam`` > 0, ``eta`` unused).  Returns θ, shape (runs, d).

    ``noise_std`` is σ itself, the standard deviation of the noise on the summed clipped gradients: Lemma 25's σ
    (σ² = 416L² log(1/δ)/ε) already contains the clip L; a noise multiplier z of a calibration gives σ = zL.
    ``X`` is a float32/float64 tensor (never converted silently), ``Y`` its labels (same length)."""
    _check_common(X, Y, n, radius, runs)
    steps = whole_number("steps", steps)
    positive_finite("clip", clip)
    lam = non_negative_finite("lam", lam)
    if lam > 0:
        fits_in_memory({"steps": steps}, _SCHEDULE_BYTES_PER_STEP * steps, f"a step-size schedule of {steps} steps")
    choice("sampling", sampling, SAMPLINGS)
    probability("gamma", gamma, allow_one=True)
    non_negative_finite("noise_std", noise_std)
    positive_finite("eta", eta)
    batch = max(1, int(round(gamma * n)))
    if lam > 0:  # Lemma 26: η_t = 2/(nλ(t+1)) on the summed gradient (engine step nη_t), weighted average
        schedule, stopping = tuple(2.0 / (lam * (t + 1)) for t in range(1, steps + 1)), "weighted_average"
    else:
        schedule, stopping = n * eta, "average"
    config = NoisyGradientConfig(
        lr=schedule, noise="gaussian", noise_scale=noise_std / batch, clip_norm=clip, projection=Ball(radius=radius),
        sampling=sampling, batch_size=batch, steps=steps, stopping=stopping,
    )  # fmt: skip
    return _engine(config, loss, X, Y, runs, generator)


def lemma19_laplace_gd(
    loss, X, Y, *, n: int, d: int, epsilon: float, lipschitz: float, radius: float, runs: int,
    generator: torch.Generator,
) -> tuple[np.ndarray, int]:  # fmt: skip
    """Lemma 19: T = round(εn/d) ≥ 1 steps of full-batch GD on the ball of ``radius`` with Laplace(Δ₁T/ε) on the
    summed gradient (Δ₁ = √d·L), η = C/√(T(n²L² + 2d·scale²)), C = 2·radius; the average iterate and T. ``X`` is
    a float32/float64 tensor (never converted silently), ``Y`` its labels (same length)."""
    _check_common(X, Y, n, radius, runs)
    positive_finite("epsilon", epsilon)
    positive_finite("lipschitz", lipschitz)
    p = lemma19_parameters(n, d, epsilon, 2 * radius, lipschitz)
    steps = max(1, int(round(p["steps"])))
    scale = p["l1_sensitivity"] * steps / epsilon
    eta = 2 * radius / math.sqrt(steps * (n**2 * lipschitz**2 + 2 * d * scale**2))
    config = NoisyGradientConfig(
        lr=n * eta, noise="laplace", noise_scale=scale / n, clip_norm=lipschitz, projection=Ball(radius=radius),
        sampling="full_batch", steps=steps, stopping="average",
    )  # fmt: skip
    return _engine(config, loss, X, Y, runs, generator), steps


def grid_in_disc(spacing: float, radius: float) -> np.ndarray:
    """The points of the square lattice spacing·ℤ², axes from −radius, inside the disc ‖θ‖₂ ≤ radius: the
    exponential mechanism's candidates in d = 2, shape (G, 2)."""
    positive_finite("spacing", spacing)
    positive_finite("radius", radius)
    axis = np.arange(-radius, radius + spacing / 2, spacing)
    g = np.stack(np.meshgrid(axis, axis, indexing="ij"), axis=-1).reshape(-1, 2)
    return g[np.linalg.norm(g, axis=1) <= radius]


def summed_logistic_loss_on_grid(
    grid: np.ndarray, x: np.ndarray, y: np.ndarray, lam: float, chunk: int = 64
) -> np.ndarray:
    """Σᵢ f(θ; xᵢ, yᵢ) = Σᵢ log(1 + exp(−yᵢ⟨θ, xᵢ⟩)) + nλ‖θ‖²/2 = n·(empirical logistic risk + λ‖θ‖²/2) at every
    grid point θ, ``chunk`` grid points at a time. In torch float64 (log(1 + e^z) as logaddexp(0, z), summed over
    the records), about 5x faster than n·:func:`dplab.learning.erm.logistic_risk` (numpy) and equal to it to about
    1e-14 relative: the summation order differs, nothing else."""
    whole_number("chunk", chunk)
    lam = non_negative_finite("lam", lam)
    features, labels = _data(x, y, name="x")
    theta = torch.as_tensor(_parameters(grid, features.shape[1]))
    signed = torch.as_tensor(features * labels[:, None])  # yᵢxᵢ, exact for yᵢ = ±1
    total = torch.empty(theta.shape[0], dtype=torch.float64)
    zero = torch.zeros((), dtype=torch.float64)
    for start in range(0, theta.shape[0], chunk):
        negative_margins = (theta[start : start + chunk] @ signed.T).neg_()
        torch.sum(torch.logaddexp(zero, negative_margins), dim=1, out=total[start : start + chunk])
    return (total + (0.5 * lam * features.shape[0]) * theta.square().sum(dim=1)).numpy()
