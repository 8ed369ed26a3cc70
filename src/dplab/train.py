"""DP-SGD on a ``torch.nn.Module`` with an attached dp_accounting accountant, and a one-call pure-DP variant.

Each per-example gradient is clipped to ℓ2 norm ``clip`` and Gaussian noise N(0, (σ·clip)² I) is added to their sum
(Abadi et al. 2016, Algorithm 1). The clipped sum comes from
:class:`dplab.learning.module_clipping.ModuleGradientClipper`: ghost norms and book-keeping when every trainable
parameter is in an nn.Linear layer (no per-example gradient is formed), else ``torch.func.vmap(torch.func.grad(...))``
over ``torch.func.functional_call``. Sampling is Poisson (rate batch_size/n, what the accountant assumes) or shuffled
fixed-size batches; the shuffled case is still accounted as Poisson by dp_accounting's RDP accountant, and the report
says so (``accounted_sampling`` differs from ``sampling``, ``sampler_matches_accountant`` is False).
"""

from __future__ import annotations

import math
from collections.abc import Callable
from dataclasses import dataclass

import torch

from dplab.accounting.calibration import dpsgd_epsilon
from dplab.checks import require
from dplab.learning.module_clipping import ModuleGradientClipper
from dplab.purify import PureRelease, purify_continuous

__all__ = ["DPSGDReport", "dpsgd_epsilon", "train_dpsgd", "train_pure_dp"]

_SAMPLINGS = ("poisson", "shuffle")


@dataclass(frozen=True)
class DPSGDReport:
    """What was run and what it spent: ε at ``delta`` from dp_accounting's RDP accountant (Poisson-sampled
    Gaussian, add/remove adjacency), and whether the sampler matches the accountant's assumption."""

    epsilon: float
    delta: float
    noise_multiplier: float
    sampling_rate: float
    steps: int
    sampling: str
    accounted_sampling: str = "poisson"
    gradient_method: str = "vmap"

    @property
    def sampler_matches_accountant(self) -> bool:
        return self.sampling == self.accounted_sampling


def _batches(n: int, batch_size: int, steps: int, sampling: str, generator: torch.Generator):
    """Index tensors of each step: Poisson (each record independently with rate batch_size/n) or shuffled epochs."""
    if sampling == "poisson":
        for _ in range(steps):
            yield torch.nonzero(torch.rand(n, generator=generator) < batch_size / n).flatten()
        return
    order = torch.randperm(n, generator=generator)
    for step in range(steps):
        start = (step * batch_size) % n
        if start + batch_size > n:
            order = torch.randperm(n, generator=generator)
            start = 0
        yield order[start : start + batch_size]


def train_dpsgd(
    model: torch.nn.Module,
    loss_fn: Callable[[torch.Tensor, torch.Tensor], torch.Tensor],
    X: torch.Tensor,
    Y: torch.Tensor,
    *,
    noise_multiplier: float,
    clip: float,
    batch_size: int,
    steps: int,
    lr: float,
    delta: float,
    sampling: str = "poisson",
    device: str | torch.device = "cpu",
    seed: int = 0,
    gradient_method: str = "auto",
    batched_loss: bool = False,
) -> DPSGDReport:
    """Train ``model`` in place by DP-SGD on (X, Y); ``loss_fn(prediction, target)`` is the loss of one example, or
    with ``batched_loss=True`` the vector of per-example losses of a batch (``reduction="none"``; faster, since no
    ``vmap`` over the loss is needed).

    Step: θ ← θ − lr/B · (Σ_{i∈batch} clip_C(∇ℓ_i(θ)) + N(0, σ²C² I)), B = ``batch_size`` (the expected batch).
    ``gradient_method``: "auto" (ghost clipping when the model allows, else vmap), "ghost" or "vmap" (see
    :mod:`dplab.learning.module_clipping`; both give the same step up to floating-point summation order).
    Returns the :class:`DPSGDReport` with ε at ``delta`` and the gradient method used.
    """
    require(sampling in _SAMPLINGS, "sampling", sampling, f"one of {_SAMPLINGS}")
    require(0 < noise_multiplier < math.inf, "noise_multiplier", noise_multiplier, "0 < noise_multiplier < inf")
    require(0 < clip < math.inf, "clip", clip, "0 < clip < inf")
    require(1 <= batch_size <= len(X), "batch_size", batch_size, f"1 <= batch_size <= n={len(X)}")
    require(int(steps) == steps and steps >= 1, "steps", steps, "an integer >= 1")
    model.to(device)
    X, Y = X.to(device), Y.to(device)
    generator = torch.Generator().manual_seed(seed)
    noise_generator = torch.Generator(device=device).manual_seed(seed + 1)
    clipped_sum = ModuleGradientClipper(model, loss_fn, clip, gradient_method, batched_loss)
    for index in _batches(len(X), batch_size, int(steps), sampling, generator):
        sums = clipped_sum(X.index_select(0, index), Y.index_select(0, index))  # ~25x faster than X[index] on CPU
        with torch.no_grad():
            for name, p in model.named_parameters():
                if name in sums:
                    noise = torch.randn(p.shape, generator=noise_generator, device=p.device, dtype=p.dtype)
                    p -= lr / batch_size * noise.mul_(noise_multiplier * clip).add_(sums[name])
    rate = batch_size / len(X)
    epsilon = dpsgd_epsilon(noise_multiplier, rate, int(steps), delta)
    return DPSGDReport(epsilon, delta, noise_multiplier, rate, int(steps), sampling, gradient_method=clipped_sum.method)


def train_pure_dp(
    model: torch.nn.Module,
    loss_fn: Callable[[torch.Tensor, torch.Tensor], torch.Tensor],
    X: torch.Tensor,
    Y: torch.Tensor,
    *,
    radius: float,
    epsilon_prime: float,
    omega: float,
    seed: int = 0,
    **dpsgd_arguments,
) -> PureRelease:
    """:func:`train_dpsgd`, then Algorithm 1 of Lin, Wang, Ma, Wang (2025) on the flattened parameters, projected onto
    the ℓ2 ball of ``radius`` around 0; the purified parameters are loaded into ``model``.  Returns the
    :class:`PureRelease` (value: the parameter vector) whose ``epsilon`` = ε_DP-SGD + ε′ is the pure certificate
    (Theorem 1)."""
    report = train_dpsgd(model, loss_fn, X, Y, seed=seed, **dpsgd_arguments)
    vector = torch.nn.utils.parameters_to_vector(model.parameters())
    release = purify_continuous(
        vector.detach().cpu().double().numpy(),
        epsilon=report.epsilon,
        delta=report.delta,
        epsilon_prime=epsilon_prime,
        omega=omega,
        center=[0.0] * vector.numel(),
        diameter=2 * radius,
        rng=seed,
    )
    purified = torch.as_tensor(release.value, dtype=vector.dtype, device=vector.device)
    torch.nn.utils.vector_to_parameters(purified, model.parameters())
    return release
