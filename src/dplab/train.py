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

import warnings
from collections.abc import Callable
from dataclasses import dataclass

import torch

from dplab.accounting.calibration import dpsgd_epsilon
from dplab.checks import (
    available_device,
    choice,
    finite_tensor,
    fits_in_memory,
    floating_tensor,
    matching_length,
    positive_finite,
    probability,
    whole_number,
)
from dplab.learning.engine import poisson_batches
from dplab.learning.module_clipping import GRADIENT_METHODS, ModuleGradientClipper
from dplab.learning.module_validation import validate_private_module
from dplab.purify import PureRelease, purify_continuous

__all__ = ["DPSGDReport", "dpsgd_epsilon", "train_dpsgd", "train_pure_dp"]

_SAMPLINGS = ("poisson", "shuffle")
_SEEDS = (-(2**63), 2**64 - 2)  # torch.Generator.manual_seed's range, less one for the noise generator's seed + 1
_VMAP_COPIES = 3  # per-example gradients, their clipped copy and the summation buffer (vmap path)


@dataclass(frozen=True)
class DPSGDReport:
    """What was run and what it spent: ε at ``delta`` and the assumptions under which it holds.

    ``accountant``: dp_accounting's RDP accountant ("rdp") of ``steps`` Poisson-subsampled Gaussian mechanisms with
    rate ``sampling_rate`` and noise multiplier ``noise_multiplier``; ``adjacency``: neighbouring datasets differ by
    adding or removing one record ("add_or_remove_one"); ``accounted_sampling``: the sampler the accountant assumes
    ("poisson"), against ``sampling``, the one that ran (:attr:`sampler_matches_accountant`).  :meth:`summary` (also
    ``str(report)``) states all of them next to ε."""

    epsilon: float
    delta: float
    noise_multiplier: float
    sampling_rate: float
    steps: int
    sampling: str
    accounted_sampling: str = "poisson"
    gradient_method: str = "vmap"
    accountant: str = "rdp"
    adjacency: str = "add_or_remove_one"

    @property
    def sampler_matches_accountant(self) -> bool:
        return self.sampling == self.accounted_sampling

    def summary(self) -> str:
        """ε and δ with the accountant's assumptions, in words; says so when the sampler that ran is not the one the
        accountant assumes (then ε is not proved for this run)."""
        text = (
            f"(epsilon={self.epsilon:.6g}, delta={self.delta:.3g})-DP under {self.adjacency.replace('_', ' ')} "
            f"adjacency, by dp_accounting's {self.accountant.upper()} accountant of {self.steps} "
            f"{self.accounted_sampling}-subsampled Gaussian steps (noise multiplier {self.noise_multiplier:g}, "
            f"sampling rate {self.sampling_rate:.6g}); sampler that ran: {self.sampling}; per-example gradients: "
            f"{self.gradient_method}"
        )
        if not self.sampler_matches_accountant:
            text += (
                f". WARNING: the accountant assumes {self.accounted_sampling} sampling, not {self.sampling}: this "
                "epsilon is not proved for the run"
            )
        return text

    def __str__(self) -> str:
        return self.summary()


def _batches(n: int, batch_size: int, steps: int, sampling: str, generator: torch.Generator):
    """Index tensors of each step: Poisson (each record independently with rate batch_size/n) or shuffled epochs."""
    if sampling == "poisson":
        yield from poisson_batches(n, batch_size / n, steps, generator)
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
    Returns the :class:`DPSGDReport` with ε at ``delta``, the accountant's assumptions and the gradient method used.

    Arguments are checked before any work (``ValueError``/``TypeError`` naming the argument): ``model`` must have a
    trainable parameter and no batch-statistics module (:mod:`dplab.learning.module_validation`: use GroupNorm or
    LayerNorm instead of BatchNorm); ``X`` a finite floating tensor with the dtype of the model's parameters
    (float32 or float64; integer, boolean, complex and float16 X are refused, not converted: pass
    ``X.to(dtype)``); ``Y`` real targets (integer labels or finite floats) of the same length as ``X``;
    ``noise_multiplier``, ``clip``, ``lr`` finite and > 0; ``1 <= batch_size <= len(X)``; ``steps`` a whole
    number >= 1; ``0 < delta < 1`` (the rule of :func:`dplab.calibrate.dpsgd_noise_multiplier`); ``device`` one
    this machine has; booleans are not numbers.  A run whose parameters end non-finite (a non-finite gradient at
    any step) raises ``FloatingPointError`` instead of returning a report.
    """
    device, steps, seed = _checked_arguments(
        model,
        loss_fn,
        X,
        Y,
        noise_multiplier=noise_multiplier,
        clip=clip,
        batch_size=batch_size,
        steps=steps,
        lr=lr,
        delta=delta,
        sampling=sampling,
        device=device,
        seed=seed,
        gradient_method=gradient_method,
        batched_loss=batched_loss,
    )
    model.to(device)
    X, Y = X.to(device), Y.to(device)
    generator = torch.Generator().manual_seed(seed)
    noise_generator = torch.Generator(device=device).manual_seed(seed + 1)
    clipped_sum = ModuleGradientClipper(model, loss_fn, clip, gradient_method, batched_loss)
    if clipped_sum.method == "vmap":
        _check_per_example_memory(model, batch_size)
    for index in _batches(len(X), batch_size, steps, sampling, generator):
        sums = clipped_sum(X.index_select(0, index), Y.index_select(0, index))  # ~25x faster than X[index] on CPU
        with torch.no_grad():
            for name, p in model.named_parameters():
                if name in sums:
                    noise = torch.randn(p.shape, generator=noise_generator, device=p.device, dtype=p.dtype)
                    p -= lr / batch_size * noise.mul_(noise_multiplier * clip).add_(sums[name])
    _check_finite_result(model, lr)
    rate = batch_size / len(X)
    epsilon = dpsgd_epsilon(noise_multiplier, rate, steps, delta)
    return DPSGDReport(epsilon, delta, noise_multiplier, rate, steps, sampling, gradient_method=clipped_sum.method)


def _checked_arguments(
    model: torch.nn.Module,
    loss_fn: Callable,
    X: torch.Tensor,
    Y: torch.Tensor,
    *,
    noise_multiplier: float,
    clip: float,
    batch_size: int,
    steps: int,
    lr: float,
    delta: float,
    sampling: str,
    device: str | torch.device,
    seed: int,
    gradient_method: str,
    batched_loss: bool,
) -> tuple[torch.device, int, int]:
    """Every argument of :func:`train_dpsgd` checked before any work (its docstring states the rules); returns the
    device, ``steps`` and ``seed`` as a torch.device and ints."""
    validate_private_module(model)
    if not callable(loss_fn):
        raise TypeError(f"loss_fn={loss_fn!r} is invalid; allowed: a callable loss_fn(prediction, target)")
    _check_inputs(model, X)
    if X.ndim == 0 or len(X) == 0:
        raise ValueError(f"X has shape {tuple(X.shape)}; allowed: at least one example along the first axis")
    _check_targets(Y)
    matching_length("X", X, "Y", Y)
    positive_finite("noise_multiplier", noise_multiplier)
    positive_finite("clip", clip)
    positive_finite("lr", lr)
    whole_number("batch_size", batch_size, maximum=len(X))
    probability("delta", delta)
    choice("sampling", sampling, _SAMPLINGS)
    choice("gradient_method", gradient_method, GRADIENT_METHODS)
    if not isinstance(batched_loss, bool):
        raise TypeError(f"batched_loss={batched_loss!r} is invalid; allowed: True or False")
    checked_device = available_device("device", device)
    return (
        checked_device,
        whole_number("steps", steps),
        whole_number("seed", seed, minimum=_SEEDS[0], maximum=_SEEDS[1]),
    )


def _check_inputs(model: torch.nn.Module, X: torch.Tensor) -> None:
    """X: token indices (an int32/int64 tensor of non-negative entries) for a model with an embedding layer, else a
    floating tensor of the trainable parameters' dtype with finite entries (never converted silently)."""
    embeds = any(isinstance(m, torch.nn.Embedding | torch.nn.EmbeddingBag) for m in model.modules())
    if embeds and isinstance(X, torch.Tensor) and X.dtype in (torch.int32, torch.int64):
        if X.numel() and int(X.min()) < 0:
            raise ValueError(f"X has a negative entry {int(X.min())}; allowed: token indices >= 0 for an embedding")
        return
    trainable = next(p for p in model.parameters() if p.requires_grad)
    floating_tensor("X", X, trainable.dtype)


def _check_targets(Y: torch.Tensor) -> None:
    """Y: a tensor of real targets, integer (class labels) or floating point with finite entries."""
    if not isinstance(Y, torch.Tensor):
        raise TypeError(f"Y is a {type(Y).__name__}; allowed: a torch.Tensor")
    if Y.is_complex() or Y.dtype == torch.bool:
        raise TypeError(f"Y has dtype {Y.dtype}; allowed: real targets (integer class labels or floating point)")
    if Y.is_floating_point():
        finite_tensor("Y", Y)


def _check_per_example_memory(model: torch.nn.Module, batch_size: int) -> None:
    """The vmap path holds (batch, parameters) per-example gradients: refuse a batch whose copies cannot fit in this
    machine's memory (on a CUDA device, whose memory is usually smaller, passing is necessary, not sufficient)."""
    per_example = sum(p.numel() * p.element_size() for p in model.parameters() if p.requires_grad)
    fits_in_memory(
        {"batch_size": batch_size},
        _VMAP_COPIES * batch_size * per_example,
        f"{batch_size} per-example gradients of {per_example} bytes each (vmap path)",
    )


def _check_finite_result(model: torch.nn.Module, lr: float) -> None:
    """Refuse to report on a run whose parameters are not finite. A non-finite loss gradient (or an overflowing
    step) at any step makes a parameter NaN or ±inf (its clipped sum is NaN: inf·0 or NaN·c), and a non-finite
    parameter stays non-finite under θ ← θ − lr·(…), so checking once after the last step catches every step."""
    bad = [name for name, p in model.named_parameters() if p.requires_grad and not bool(torch.isfinite(p).all())]
    if bad:
        raise FloatingPointError(
            f"training diverged: parameters {bad} are not finite after the run (a non-finite loss gradient or an "
            f"overflowing step, lr={lr!r}); no privacy report is returned for a run that cannot be certified. "
            "Allowed: a run whose every step is finite (smaller lr, a loss with finite gradients)"
        )


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
    (Theorem 1).  ``radius``, ``epsilon_prime`` (finite, > 0) and ``omega`` (in (0, 1)) are checked before
    training, the DP-SGD arguments as in :func:`train_dpsgd`."""
    positive_finite("radius", radius)
    positive_finite("epsilon_prime", epsilon_prime)
    probability("omega", omega)
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
    _warn_if_mostly_noise(
        float(torch.linalg.vector_norm(purified - vector.detach())), radius, vector.numel(), epsilon_prime
    )
    torch.nn.utils.vector_to_parameters(purified, model.parameters())
    return release


def _warn_if_mostly_noise(moved: float, radius: float, d: int, epsilon_prime: float) -> None:
    """A UserWarning when purification moved the parameters farther than the ball's radius: the released model is
    then mostly noise (Algorithm 1's noise scales as diameter·d/ε′, so its ratio to the radius grows with d/ε′)."""
    if moved > radius:
        warnings.warn(
            f"train_pure_dp: purification moved the parameters by {moved:.3g}, more than the ball's radius {radius:g}: "
            f"the released model is mostly noise (the noise grows with the parameter count d = {d} over "
            f"epsilon_prime = {epsilon_prime:g}); use a model with fewer parameters or a larger epsilon_prime",
            UserWarning,
            stacklevel=3,
        )
