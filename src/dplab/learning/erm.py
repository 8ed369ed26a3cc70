"""Empirical risk and its non-private constrained minimiser (the reference point of excess-risk curves).

Our utility experiment for PNSGD (Asoodeh, Diaz, Calmon 2020 report none): excess empirical risk
F(Y_n) − min_{w∈𝕂} F(w) with F(w) = (1/n)·Σ_j ℓ(w; x_j, y_j), the minimiser computed by 3000 projected full-batch
gradient steps at lr = 1.
"""

from __future__ import annotations

from typing import Any

import torch
from torch import Tensor
from torch.func import vmap

from dplab.checks import finite_tensor
from dplab.learning.engine import Loss, NoisyGradientConfig, check_data, run_noisy_gradient
from dplab.learning.projections import Projection

__all__ = ["empirical_risk", "projected_gradient_descent_minimiser"]

_MAX_ELEMENTS_PER_CHUNK = 1 << 22  # runs × samples evaluated at once, to bound memory for many runs


def empirical_risk(loss: Loss, W: Any, X: Any, Y: Any = None) -> Tensor:
    """F(w_r) = (1/n)·Σ_j ℓ(w_r; x_j, y_j) for every run r: ``W`` ``(R, d)`` -> ``(R,)`` (or ``(d,)`` -> 0-dim).

    ``X``: ``(n, dx)``; ``Y``: ``(n,)`` or None. Evaluated with vmap over runs of vmap over samples, in chunks of runs.
    """
    weights = torch.as_tensor(W, dtype=torch.float64)
    single = weights.ndim == 1
    weights = weights.unsqueeze(0) if single else weights
    if weights.ndim != 2:
        raise ValueError(f"W has shape {tuple(torch.as_tensor(W).shape)}; it must be (runs, d) or (d,)")
    features = torch.as_tensor(X, dtype=torch.float64)
    if features.ndim != 2 or features.shape[0] == 0:
        raise ValueError(f"X has shape {tuple(features.shape)}; it must be (n, dx) with n >= 1")
    n = features.shape[0]
    labels = None if Y is None else torch.as_tensor(Y, dtype=torch.float64)
    if labels is not None and tuple(labels.shape) != (n,):
        raise ValueError(f"Y has shape {tuple(labels.shape)}; it must be (n,) = ({n},) or None")
    finite_tensor("W", weights)
    check_data(loss, features, labels)

    def risk_of_run(w: Tensor) -> Tensor:
        if labels is None:
            return vmap(lambda x: loss(w, x, None))(features).mean()
        return vmap(lambda x, y: loss(w, x, y))(features, labels).mean()

    risks = vmap(risk_of_run, chunk_size=max(1, _MAX_ELEMENTS_PER_CHUNK // n))(weights)
    return risks[0] if single else risks


def projected_gradient_descent_minimiser(
    loss: Loss,
    X: Any,
    Y: Any,
    projection: Projection,
    *,
    lr: float = 1.0,
    steps: int = 3000,
    w0: Any = None,
) -> Tensor:
    """argmin_{w∈𝕂} F(w) by projected full-batch gradient descent w ← Π_𝕂(w − lr·∇F(w)), shape ``(d,)``.

    The noise-free, clipping-free, full-batch configuration of :func:`~dplab.learning.engine.run_noisy_gradient`
    (one run). For a convex β-smooth F and lr ≤ 1/β the error in F after k steps is ≤ β‖w0 − w*‖²/(2k)
    (Bubeck 2015, Theorem 3.7); the logistic loss with ‖x‖ ≤ 1 has β = 1/4, so lr = 1 is admissible.
    ``w0`` defaults to the origin of ℝ^dx (so it assumes d = dx, true for linear and logistic losses).
    """
    features = torch.as_tensor(X, dtype=torch.float64)
    if features.ndim != 2:
        raise ValueError(f"X has shape {tuple(features.shape)}; it must be (n, dx)")
    start = torch.zeros(features.shape[1], dtype=torch.float64) if w0 is None else w0
    config = NoisyGradientConfig(lr=lr, noise="none", projection=projection, sampling="full_batch", steps=steps)
    no_randomness_needed = torch.Generator().manual_seed(0)
    return run_noisy_gradient(config, loss, features, Y, start, runs=1, generator=no_randomness_needed)[0]
