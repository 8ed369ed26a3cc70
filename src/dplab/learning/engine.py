"""One noisy-gradient engine, many independent runs at once.

Every iterative private learner of dplab is a configuration of a single update (one step of every run, all runs
advanced together as the rows of a ``(runs, d)`` tensor):

    w ← Π_𝕂( w − lr·(ḡ + Z) ),   ḡ = (1/batch_size)·Σ_{j ∈ batch} clip_C(∇_w ℓ(w; x_j, y_j)),

with Z i.i.d. per run and per coordinate: Gaussian N(0, σ²) (``noise_scale`` = σ), Laplace 𝓛(0, v) with density
e^{−|z|/v}/(2v) (``noise_scale`` = v), or absent. As in Algorithm 1 of Asoodeh, Diaz, Calmon (2020), the noise is
added to the gradient, so the iterate receives −lr·Z: per-step std lr·σ (Laplace scale lr·v).

How each method is configured (:class:`NoisyGradientConfig` fields):

- **PNSGD** (Asoodeh, Diaz, Calmon 2020, Algorithm 1): ``sampling="single_pass"`` (sample t at step t, in the data's fixed order, batch
  size 1, ``steps`` = n), ``noise="gaussian"`` (Theorem 4) or ``"laplace"`` (Theorem 3, 1-D), ``projection`` =
  :class:`~dplab.learning.projections.Interval` or :class:`~dplab.learning.projections.Ball`, no clipping.
  ``stopping="uniform_random"`` is the randomly stopped variant of Theorem 5 (T ~ Unif{1..steps}, output Y_T,
  drawn independently per run).
- **DP-SGD** (Abadi et al. 2016): the noisy sum Σ clip_C(∇ℓ_j) + N(0, σ²C²I), divided by the batch size B, equals
  ḡ + Z with Z of std σ·C/B; so ``clip_norm=C``, ``noise_scale=dp_sgd_noise_scale(σ, C, B)``, and
  ``sampling="poisson"`` with ``batch_size`` = the expected batch size q·n (the normaliser is fixed, as the
  add/remove-neighbour accounting of Poisson sampling assumes).
- **DP-GD**: ``sampling="full_batch"`` (normaliser ``batch_size`` = n unless given), noise std σ·C/n.
- **SGLD**: the Langevin step w − lr·∇F̂(w) + √(2·lr/β_inv_temp)·ξ is lr·Z with Z of std √(2/(lr·β_inv_temp)):
  ``noise_scale=sgld_noise_scale(lr, inverse_temperature)``. He, Wang, Tao's SGLD (their Algorithm 1) writes
  w − η[(1/τ)Σ∇ℓ + g], g ~ N(0, σ²I): that is ``noise_scale=σ``, ``sampling="without_replacement"``,
  ``batch_size=τ``.
- **Laplace noisy GD** (Lin et al., purification paper, Lemma 19): ``sampling="full_batch"``, ``noise="laplace"``.

Sampling modes:

- ``"single_pass"``: Algorithm 1 of Asoodeh et al., sample t at step t in the data's fixed order (``steps`` < n uses the
  first ``steps`` samples);
- ``"full_batch"``: all n samples every step;
- ``"poisson"``: each sample joins each run's batch independently with probability q = batch_size/n, fresh every
  step;
- ``"shuffled"``: each run draws a fresh permutation every epoch and takes n // batch_size consecutive batches of
  exactly batch_size samples (the remainder is dropped);
- ``"without_replacement"``: each step, each run draws a fresh uniformly random subset of exactly batch_size samples.

``steps=None`` means one epoch: n steps for single_pass, 1 for full_batch, n // batch_size otherwise.

Randomness comes only from the ``torch.Generator`` passed in, in a fixed order (stopping times, then per step: the
batch, then the noise), so the same seed reproduces the output bit for bit on the same machine and thread count.
Since no draw depends on the iterates, the engine draws a block of steps ahead, in that order, one generator call
per step and tensor, and processes the block at once (subsets screened, Poisson gaps summed, noise scaled):
the values are those of a step-by-step loop bit for bit (tested): batches as drawn step by step, Gaussian noise
within 4 ulp of ``torch.randn`` (float64: drawn from its uniforms, transformed by vectorised functions), Laplace
noise from one uniform a number (``_NoiseDraws``), at a fraction of the per-step cost
(:func:`noise_steps` and :func:`subset_and_noise_steps` expose the same draws to loops outside the engine).
A step size may follow a schedule (``lr`` a sequence, one per step), so a decreasing step is one call per run.

Performance: losses that offer ``factored_gradients`` (generalised linear losses and the two-layer network of
:mod:`dplab.learning.losses`) never form the (R, B, d) per-sample gradients: the clip factors come from per-sample
norms written through small factors and the clipped sum is one matrix product, so a private step costs about as
much as a non-private one; the records' squared norms ‖x_j‖² those factors use are computed once per call and
gathered with each step's batch (for losses whose ``factored_gradients`` accept ``squared_features``). Other
losses take the general path: gradients are ``torch.func.vmap`` (over runs) of ``vmap`` (over the batch) of
``grad``; the cost of a step is a few tensor operations over all runs, with no Python loop over runs (the Python
loop is over steps). The vmap/grad call overhead is constant, ≈0.3–0.5 ms per step whatever the number of runs.
Measured for the Monte-Carlo audit shape (runs = 2·10⁶, d = 1, n = 40 steps, Gaussian noise, Interval, float64):
≈2.0–2.3 s per call after the first (≈3.3 s cold), of which ≈1.4 s was ``torch.randn`` in float64 (≈34 ms per
2·10⁶ draws; about half since the noise is transformed vectorised, ``_NoiseDraws``) and ≈0.23 s the gradients;
Laplace noise (one uniform a number, about 12 ns) slightly more. On a loaded machine ``torch.set_num_threads(1)``
is faster than 2 threads (the benchmarks measured 2-thread torch ops up to 30× slower than 1-thread ones when other
processes hold a core).
Per step, the (R, B, d) per-sample gradients are scaled by (clip factor × Poisson weight) in one in-place pass and
summed; the step arithmetic is in place. Losses of a flat parameter vector (e.g. a small network) should unpack it
with ``torch.split``, not slicing or indexing: under vmap each slice's backward materialises a zero-filled (R, B, d)
tensor (for a 32k-parameter MLP at B = 1024 a step took ≈1 s with slices and ≈0.3 s with split, 1 thread).
``python -m benchmarks`` compares a step with Opacus and with a non-private torch step (``results/performance/``),
and times the pipeline's kernels against a matmul with the floors that bound them (``kernels.csv``): on tiny
problems (d = 2, 10 runs) a step is about 50 torch calls, so its cost is their dispatch, not arithmetic.
"""

from __future__ import annotations

import inspect
import math
from collections.abc import Callable, Iterator
from dataclasses import dataclass, field
from typing import Any

import numpy as np
import torch
from torch import Tensor
from torch.func import grad, vmap
from tqdm import tqdm

from dplab.checks import (
    as_real_tensor,
    choice,
    finite_tensor,
    fits_in_memory,
    floating_tensor,
    labels_in,
    matching_length,
    non_negative_finite,
    positive_finite,
    probability,
    whole_number,
)
from dplab.learning.losses import squared_feature_norms
from dplab.learning.projections import NoProjection, Projection

__all__ = [
    "Loss",
    "NOISE_KINDS",
    "SAMPLING_MODES",
    "STOPPING_RULES",
    "GRADIENT_METHODS",
    "NoisyGradientConfig",
    "per_sample_gradients",
    "uniform_subsets",
    "noise_steps",
    "poisson_batches",
    "subset_and_noise_steps",
    "clip_by_norm",
    "run_noisy_gradient",
    "dp_sgd_noise_scale",
    "sgld_noise_scale",
]

NOISE_KINDS: tuple[str, ...] = ("gaussian", "laplace", "none")
SAMPLING_MODES: tuple[str, ...] = ("single_pass", "poisson", "full_batch", "shuffled", "without_replacement")
STOPPING_RULES: tuple[str, ...] = ("final", "uniform_random", "average", "weighted_average")
GRADIENT_METHODS: tuple[str, ...] = ("auto", "factored", "vmap")

Loss = Callable[[Tensor, Tensor, Any], Tensor]


# ----------------------------------------------------------------------------------------------------------------
# Helpers for DP-SGD and SGLD noise scales
# ----------------------------------------------------------------------------------------------------------------


def dp_sgd_noise_scale(noise_multiplier: float, clip_norm: float, batch_size: int) -> float:
    """Per-coordinate std of Z for DP-SGD: σ·C/B (Abadi et al. 2016, Algorithm 1: (Σ clip_C(g_j) + N(0, σ²C²I))/B).

    ``noise_multiplier`` σ ≥ 0 is what accountants (dp_accounting, Opacus) calibrate; C = ``clip_norm`` > 0; B =
    ``batch_size`` ≥ 1 is the normaliser of the gradient sum (the expected batch size under Poisson sampling).
    """
    sigma = non_negative_finite("noise_multiplier", noise_multiplier)
    clip = positive_finite("clip_norm", clip_norm)
    return sigma * clip / whole_number("batch_size", batch_size)


def sgld_noise_scale(lr: float, inverse_temperature: float) -> float:
    """Per-coordinate std of Z for SGLD: √(2/(lr·β)), so that the iterate receives lr·Z ~ N(0, (2·lr/β)·I).

    This is the Euler–Maruyama step of the Langevin diffusion dW = −∇F dt + √(2/β) dB with step lr (Welling and Teh
    2011 use β = 1); β = ``inverse_temperature`` > 0.
    """
    step = positive_finite("lr", lr)
    beta = positive_finite("inverse_temperature", inverse_temperature)
    return math.sqrt(2.0 / (step * beta))


# ----------------------------------------------------------------------------------------------------------------
# Per-sample gradients and clipping
# ----------------------------------------------------------------------------------------------------------------


def per_sample_gradients(loss: Loss, w: Tensor, X: Tensor, Y: Tensor | None = None) -> Tensor:
    """Gradients ∇_w ℓ(w_r; x_j, y_j) of every run r at every sample j, shape ``(R, B, d)``.

    ``w``: ``(R, d)``, one parameter vector per run. ``X``: ``(B, dx)`` samples shared by all runs, or
    ``(R, B, dx)`` per-run samples (e.g. gathered Poisson batches). ``Y``: ``None`` (label-free losses such as
    :class:`~dplab.learning.losses.LinearLoss`), or labels of shape ``X.shape[:-1]``. All three are float32 or
    float64 tensors with finite entries (integer, boolean, complex and half-precision tensors are refused, never
    converted). Computed with ``torch.func``: vmap over runs of vmap over samples of grad (the Opacus "functorch"
    method).
    """
    floating_tensor("w", w)
    floating_tensor("X", X)
    if Y is not None:
        floating_tensor("Y", Y)
    if w.ndim != 2:
        raise ValueError(f"w has shape {tuple(w.shape)}; it must be (runs, d)")
    if X.ndim not in (2, 3):
        raise ValueError(f"X has shape {tuple(X.shape)}; it must be (batch, dx) or (runs, batch, dx)")
    per_run_samples = X.ndim == 3
    if per_run_samples and X.shape[0] != w.shape[0]:
        raise ValueError(f"X has {X.shape[0]} runs but w has {w.shape[0]}; per-run samples need one row per run")
    if Y is not None and tuple(Y.shape) != tuple(X.shape[:-1]):
        raise ValueError(f"Y has shape {tuple(Y.shape)}; it must be X.shape[:-1] = {tuple(X.shape[:-1])}")
    _check_labels(loss, Y)
    return _gradient_function(loss, per_run_samples, Y is not None)(w, X, Y)


def _gradient_function(loss: Loss, per_run_samples: bool, labelled: bool) -> Callable[..., Tensor]:
    """vmap over runs of vmap over samples of grad, as a function ``(w, X, Y) -> (R, B, d)`` (built once per run)."""
    sample_dim = 0 if per_run_samples else None
    if not labelled:
        gradient = grad(lambda params, x: loss(params, x, None))
        over_runs = vmap(vmap(gradient, in_dims=(None, 0)), in_dims=(0, sample_dim))
        return lambda w, X, Y: over_runs(w, X)
    gradient = grad(loss)
    return vmap(vmap(gradient, in_dims=(None, 0, 0)), in_dims=(0, sample_dim, sample_dim))


def clip_by_norm(g: Tensor, max_norm: float | None) -> Tensor:
    """Per-sample ℓ2 clipping along the last axis: g ↦ g·min(1, C/‖g‖); ``max_norm=None`` returns ``g`` itself."""
    if max_norm is None:
        return g
    return g * _clip_factors(g, positive_finite("max_norm", max_norm))


def _clip_factors(g: Tensor, clip: float) -> Tensor:
    """min(1, C/‖g‖) along the last axis, keeping it as a size-1 axis (C/0 = inf -> factor 1)."""
    return _factors_from_norms(torch.linalg.vector_norm(g, dim=-1, keepdim=True), clip)


def _factors_from_norms(norms: Tensor, clip: float) -> Tensor:
    """min(1, C/‖g‖) from the norms, in place: ``clip / norms`` is ``norms.reciprocal() * clip`` in torch (its
    ``__rdiv__``), written out to skip that Python-level wrapper in the step loop; the values are the same."""
    return norms.reciprocal_().mul_(clip).clamp_(max=1.0)


# ----------------------------------------------------------------------------------------------------------------
# Configuration
# ----------------------------------------------------------------------------------------------------------------


@dataclass(frozen=True)
class NoisyGradientConfig:
    """Hyper-parameters of one noisy-gradient method (see the module docstring for PNSGD, DP-SGD, SGLD, …).

    - ``lr``: the step size η > 0 of every step, or a schedule (η_1, …, η_T) of T positive step sizes, one per
      step (a decreasing step size, e.g. Lemma 26 of Lin et al.), which fixes the number of steps T.
    - ``noise`` ∈ {"gaussian", "laplace", "none"}; ``noise_scale``: σ (Gaussian std) or v (Laplace scale) of Z,
      required (≥ 0) for "gaussian"/"laplace", must be None or 0 for "none".
    - ``clip_norm``: per-sample ℓ2 clipping bound C > 0, or None for no clipping.
    - ``projection``: Π_𝕂 (Interval, Ball, NoProjection, or any callable with a ``diameter``).
    - ``sampling`` ∈ SAMPLING_MODES; ``batch_size``: the normaliser of the gradient sum (and the expected batch size
      for "poisson"); must be None or 1 for "single_pass", None (= n) or an integer for "full_batch", an integer
      for the other modes.
    - ``steps``: number of updates, or None for one epoch (n for single_pass, 1 for full_batch, n // batch_size).
    - ``stopping`` ∈ {"final", "uniform_random", "average", "weighted_average"}: output Y_steps; Y_T with
      T ~ Unif{1..steps} per run (Theorem 5 of Asoodeh et al.); the average (1/steps)·Σ_t Y_t of the iterates; or
      the weighted average (2/(T(T+1)))·Σ_t t·Y_t (Lemma 26 of Lin et al.; Lacoste-Julien, Schmidt, Bach 2012).
    """

    lr: float | tuple[float, ...]
    noise: str
    noise_scale: float | None = None
    clip_norm: float | None = None
    projection: Projection = field(default_factory=NoProjection)
    sampling: str = "single_pass"
    batch_size: int | None = None
    steps: int | None = None
    stopping: str = "final"

    def __post_init__(self) -> None:
        if isinstance(self.lr, (str, bytes)) or np.ndim(self.lr) > 1:
            raise ValueError(f"lr={self.lr!r} must be a number > 0 or a sequence of numbers > 0 (one per step)")
        if np.ndim(self.lr) == 1:
            schedule = np.asarray(self.lr, dtype=np.float64)
            bad = ~(np.isfinite(schedule) & (schedule > 0))
            if schedule.size == 0 or bad.any():
                where = (
                    "is empty" if schedule.size == 0 else f"has {float(schedule[bad][0])} at step {np.argmax(bad) + 1}"
                )
                raise ValueError(f"lr (a schedule) {where}; every step size must be a finite number > 0")
            object.__setattr__(self, "lr", tuple(float(v) for v in self.lr))
        else:
            positive_finite("lr", self.lr)
        choice("noise", self.noise, NOISE_KINDS)
        if self.noise == "none":
            if self.noise_scale not in (None, 0, 0.0):
                raise ValueError(f"noise_scale={self.noise_scale!r} must be None or 0 when noise='none'")
        else:
            if self.noise_scale is None:
                raise ValueError(
                    f"noise_scale=None is invalid; allowed: a finite number >= 0 when noise={self.noise!r}"
                )
            non_negative_finite("noise_scale", self.noise_scale)
        if self.clip_norm is not None:
            positive_finite("clip_norm", self.clip_norm)
        if not (callable(self.projection) and hasattr(self.projection, "diameter")):
            raise ValueError(
                f"projection={self.projection!r} must be a projection: Interval, Ball, NoProjection, "
                "or a callable with a .diameter"
            )
        choice("sampling", self.sampling, SAMPLING_MODES)
        if self.sampling == "single_pass":
            if self.batch_size not in (None, 1) or isinstance(self.batch_size, bool):
                raise ValueError(f"batch_size={self.batch_size!r} must be None or 1 when sampling='single_pass'")
        elif self.batch_size is not None or self.sampling != "full_batch":
            if self.batch_size is None:
                raise ValueError(
                    f"batch_size=None is invalid; allowed: a whole number >= 1 when sampling={self.sampling!r}"
                )
            object.__setattr__(self, "batch_size", whole_number("batch_size", self.batch_size))
        if self.steps is not None:
            object.__setattr__(self, "steps", whole_number("steps", self.steps))
            if isinstance(self.lr, tuple) and self.steps != len(self.lr):
                raise ValueError(f"steps={self.steps} must be None or the schedule's length {len(self.lr)}")
        choice("stopping", self.stopping, STOPPING_RULES)

    def batch_size_for(self, n: int) -> int:
        """The normaliser B of the gradient sum for a dataset of n samples (q = B/n for Poisson sampling)."""
        if self.sampling == "single_pass":
            return 1
        if self.sampling == "full_batch":
            return n if self.batch_size is None else int(self.batch_size)
        if self.batch_size > n:
            raise ValueError(f"batch_size={self.batch_size} must be <= n={n} when sampling={self.sampling!r}")
        return int(self.batch_size)

    def steps_for(self, n: int) -> int:
        """Number of updates for a dataset of n samples (a schedule's length); a single pass cannot take more than
        n steps."""
        steps = len(self.lr) if isinstance(self.lr, tuple) else self.steps
        if steps is None:
            if self.sampling == "full_batch":
                return 1
            return n // self.batch_size_for(n)
        if self.sampling == "single_pass" and steps > n:
            raise ValueError(f"steps={steps} must be <= n={n} when sampling='single_pass' (one pass)")
        return int(steps)

    def step_sizes(self, steps: int) -> list[float]:
        """η_1, …, η_steps: the schedule, or ``lr`` at every step."""
        return list(self.lr) if isinstance(self.lr, tuple) else [self.lr] * steps


# ----------------------------------------------------------------------------------------------------------------
# Batches and noise
# ----------------------------------------------------------------------------------------------------------------


@dataclass(frozen=True)
class _Batch:
    """Samples of one step: shared ``(B, dx)`` or per-run ``(R, B, dx)``, with optional 0/1 weights ``(R, B)``;
    ``rows``: which records they are, None (all), a slice of the data (shared) or an (R, B) index (per run)."""

    X: Tensor
    Y: Tensor | None
    weights: Tensor | None = None
    rows: Tensor | slice | None = None


def _rows(values: Tensor, index: Tensor) -> Tensor:
    """``values[index]`` for an integer ``index`` of shape (R, B), as one contiguous row copy (index_select is
    several times faster than advanced indexing on CPU; the values are the same)."""
    picked = torch.index_select(values, 0, index.reshape(-1))
    return picked.view(*index.shape, *values.shape[1:])


def _take(X: Tensor, Y: Tensor | None, index: Tensor, weights: Tensor | None = None) -> _Batch:
    return _Batch(_rows(X, index), None if Y is None else _rows(Y, index), weights, index)


def _batch_values(values: Tensor, batch: _Batch) -> Tensor:
    """The entries of a per-record tensor ``values`` (n, ...) that belong to ``batch``'s records (as its X rows)."""
    if batch.rows is None:
        return values
    return values[batch.rows] if isinstance(batch.rows, slice) else _rows(values, batch.rows)


def _first_distinct(draws: Tensor, size: int, n: int) -> tuple[Tensor, Tensor]:
    """Per row of ``draws`` (R, m) of integers in [0, n): the first ``size`` distinct values in draw order (R, size),
    and whether the row had that many (the values of a short row are unspecified).

    The keys value·2^s + position (2^s ≥ m; int32 when n·2^s ≤ 2^31, twice as fast to sort as int64) are distinct,
    so numpy's row sort (SIMD quicksort, about 15x faster than a stable torch.sort of rows of ~100) orders them as a
    stable sort by value would. A draw repeats an earlier one iff its key follows a key of the same value in the
    sorted row; only these repeats (about m²/(2n) a row) are then located, and each row keeps the first ``size`` of
    its remaining, distinct, values in draw order."""
    values = draws.numpy()
    rows, m = values.shape
    shift = (m - 1).bit_length()
    dtype = np.int32 if n << shift <= 1 << 31 else np.int64
    keys = values.astype(dtype)
    keys <<= shift
    keys |= np.arange(m, dtype=dtype)
    keys.sort(axis=1)
    flat_keys = keys.reshape(-1)
    sorted_values = flat_keys >> shift
    repeats = np.flatnonzero(sorted_values[1:] == sorted_values[:-1]) + 1
    repeats = repeats[repeats % m != 0]  # not the first key of a row compared with the last of the row before
    row_of_repeat = repeats // m
    first = np.ones(rows * m, dtype=bool)
    first[row_of_repeat * m + (flat_keys[repeats] & ((1 << shift) - 1))] = False
    counts = m - np.bincount(row_of_repeat, minlength=rows)
    enough = counts >= size
    starts = np.cumsum(counts) - counts
    subsets = np.zeros((rows, size), dtype=np.int64)
    subsets[enough] = values.reshape(-1)[first][starts[enough, None] + np.arange(size)]
    return torch.from_numpy(subsets), torch.from_numpy(enough)


def _uniform_subsets(runs: int, n: int, size: int, generator: torch.Generator) -> Tensor:
    """:func:`uniform_subsets` without the argument checks (the engine checks once per call)."""
    width = _sparse_width(n, size)
    if width is None:
        keys = torch.rand(runs, n, generator=generator, dtype=torch.float64)
        return torch.topk(keys, size, dim=1, sorted=False).indices
    out = torch.empty(runs, size, dtype=torch.int64)
    pending = torch.arange(runs)
    while pending.numel():
        draws = torch.randint(n, (pending.numel(), width), generator=generator)
        subsets, enough = _first_distinct(draws, size, n)
        out[pending[enough]] = subsets[enough]
        pending = pending[~enough]
    return out


def uniform_subsets(runs: int, n: int, size: int, generator: torch.Generator) -> Tensor:
    """``runs`` independent uniformly random ``size``-subsets of {0, …, n−1}, as rows of indices (R, size).

    Sparse case (:func:`_sparse_width`: size² ≤ n, or size + ⌈4·size²/n⌉ ≤ n/2): the first ``size`` distinct values
    of i.i.d. uniform draws, i.e. sequential sampling without replacement, in O(size) per row; the few rows whose
    draws hold fewer distinct values are drawn again (an event invariant under relabelling {0, …, n−1}, so the
    subsets stay uniform). Dense case: the ``size`` largest of n i.i.d. uniform keys, O(n) per row.
    """
    subsets = _checked_subsets(runs, n, size)
    return _uniform_subsets(subsets.runs, subsets.n, subsets.size, generator)


def _checked_subsets(runs: int, n: int, size: int) -> _SubsetDraws:
    """The subset sampler after checking ``runs``, ``n`` and ``size`` <= n (whole numbers >= 1) and that a step's
    draws fit in memory."""
    n = whole_number("n", n)
    subsets = _SubsetDraws(whole_number("runs", runs), n, whole_number("size", size, maximum=n))
    fits_in_memory({"runs": runs, "n": n, "size": size}, subsets.step_bytes, f"{runs} subsets of size {size}")
    return subsets


# Nothing a step draws depends on the iterate, so the engine draws the randomness of a block of steps before
# running them: per step, in the order of a step-by-step loop (the batch, then the noise), one generator call per
# tensor, written into the block's buffers; then the block is processed at once (subsets picked, Poisson batches
# ordered, noise transformed and scaled) instead of with dozens of small tensor operations per step. The values are
# those of the step-by-step loop bit for bit, float64 noise within 4 ulp (tests/learning/test_engine.py compares them
# with such a loop).

#: Random numbers a block of steps holds at most (1 MiB of float64), and the most steps in a block.
_BLOCK_NUMBERS = 1 << 17
_BLOCK_STEPS = 256
#: Extra draws of the sparse subset sampler (:func:`uniform_subsets`), at least: size + 8 draws per row and step.
_SPARE_DRAWS = 8


def _sparse_width(n: int, size: int) -> int | None:
    """Draws per row of the sparse subset sampler, size + max(8, ⌈4·size²/n⌉), or None where the dense sampler is
    used: when size² > n and these draws exceed n/2.

    Among m i.i.d. uniform draws from n values about m²/(2n) repeat, so the spare draws keep short rows (redrawn)
    rare; at most n/2 draws of about 25 ns each (the screen's row sort included) cost less than the dense sampler's
    n keys and top-k (about 16 ns a key). For size² ≤ n the width is size + 8 (4·size²/n ≤ 4), as it always was: the
    random streams of those draws did not change when the sparse case was extended to size² > n (issue 27: at
    n = 1000, size = 100, 140 draws a row instead of 1000 keys and a top-k, 5x faster per step).
    """
    width = size + max(_SPARE_DRAWS, -(-4 * size * size // n))
    return width if size * size <= n or 2 * width <= n else None


class _StepDraws:
    """The randomness of one kind (batches or noise) of the steps of a block, drawn step by step into buffers.

    ``numbers``: random numbers per step (sizes the block); ``copies``: arrays of that size a step holds while its
    draws are processed (``step_bytes`` = 8·copies·numbers, the memory estimate). ``allocate(capacity)``: buffers
    for a block.
    ``draw(k, t, generator)``: draw step t (0-based) into slot k, as a step-by-step loop does. ``first_redo(count)``:
    the first slot whose draw must be redone step by step, or None. ``redo(k, t, generator)``: that exact draw.
    ``finish(count)``: process the block's first ``count`` slots at once."""

    numbers = 0
    copies = 1
    may_redo = False

    @property
    def step_bytes(self) -> int:
        return 8 * self.copies * self.numbers

    def allocate(self, capacity: int) -> None:
        pass

    def draw(self, k: int, t: int, generator: torch.Generator) -> None:
        pass

    def first_redo(self, count: int) -> int | None:
        return None

    def redo(self, k: int, t: int, generator: torch.Generator) -> None:
        self.draw(k, t, generator)

    def finish(self, count: int) -> None:
        pass


class _SharedBatches(_StepDraws):
    """``single_pass`` (sample t at step t) and ``full_batch`` (every sample every step): nothing to draw."""

    def __init__(self, single_pass: bool) -> None:
        self.single_pass = single_pass

    def batch(self, k: int, t: int, X: Tensor, Y: Tensor | None) -> _Batch:
        if not self.single_pass:
            return _Batch(X, Y)
        rows = slice(t, t + 1)
        return _Batch(X[rows], None if Y is None else Y[rows], rows=rows)


class _SubsetDraws(_StepDraws):
    """``without_replacement``: :func:`uniform_subsets` per step. Sparse case: the raw draws of a block are screened
    at once by :func:`_first_distinct`; a step with a short row (rare: fewer than ``size`` distinct values in its
    draws) is redone step by step, since its redraws come before that step's noise. Dense case: one ``topk`` over
    the keys of every run and step of the block (row by row, as per step)."""

    #: the raw draws, the screen's sort keys, sorted values, cumulative count and masks, and the subsets
    copies = 6

    def __init__(self, runs: int, n: int, size: int) -> None:
        self.runs, self.n, self.size = runs, n, size
        width = _sparse_width(n, size)
        self.sparse = width is not None
        self.width = n if width is None else width
        self.numbers = runs * self.width
        self.may_redo = self.sparse

    def allocate(self, capacity: int) -> None:
        dtype = torch.int64 if self.sparse else torch.float64
        self.raw = torch.empty(capacity, self.runs, self.width, dtype=dtype)

    def draw(self, k: int, t: int, generator: torch.Generator) -> None:
        if self.sparse:
            torch.randint(self.n, (self.runs, self.width), generator=generator, out=self.raw[k])
        else:
            torch.rand((self.runs, self.n), generator=generator, out=self.raw[k])

    def first_redo(self, count: int) -> int | None:
        if not self.sparse:
            return None
        subsets, enough = _first_distinct(self.raw[:count].view(count * self.runs, self.width), self.size, self.n)
        self.index = subsets.view(count, self.runs, self.size)
        short = torch.nonzero(~enough.view(count, self.runs).all(dim=1))
        return int(short[0, 0]) if short.numel() else None

    def redo(self, k: int, t: int, generator: torch.Generator) -> None:
        self.index[k] = _uniform_subsets(self.runs, self.n, self.size, generator)

    def finish(self, count: int) -> None:
        if not self.sparse:
            keys = self.raw[:count].view(count * self.runs, self.n)
            self.index = torch.topk(keys, self.size, dim=1, sorted=False).indices.view(count, self.runs, self.size)

    def batch(self, k: int, t: int, X: Tensor, Y: Tensor | None) -> _Batch:
        return _take(X, Y, self.index[k])


class _PoissonDraws(_StepDraws):
    """``poisson``: each sample joins each run's batch with probability q, fresh every step, drawn as the gaps
    between included samples: the included positions of a run are p_j = G_1 + … + G_j − 1 < n with G_i i.i.d.
    Geometric(q) on {1, 2, …}, G = 1 + ⌊log(1 − U)/log(1 − q)⌋ for U uniform on [0, 1) (P(G > k) = (1 − q)^k), the
    sequence of Bernoulli(q) trials read from one success to the next. A step draws ``width`` uniforms a run
    (:func:`_poisson_width`: the expected count qn plus 6 standard deviations and 8, at most n + 1), about qn
    instead of the n uniforms of one trial per sample (at n = 4000, q = 0.005: 55 instead of 4000). A run whose
    ``width`` gaps end inside the data (its count reached ``width``, probability below 1e-9) continues with one
    Bernoulli(q) trial (a uniform) per sample after its last included one; such a step is redone step by step
    (``redo``). The batch is the included samples in increasing order, padded to the step's largest batch with
    weight-0 copies of sample 0."""

    #: the uniforms, the gaps, the positions and the batch order
    copies = 4

    def __init__(self, runs: int, n: int, q: float) -> None:
        self.runs, self.n, self.q = runs, n, q
        self.width = _poisson_width(n, q)
        self.numbers = runs * self.width
        self.may_redo = True

    def allocate(self, capacity: int) -> None:
        self.raw = torch.empty(capacity, self.runs, self.width, dtype=torch.float64)
        self.redone: dict[int, tuple[Tensor, Tensor]] = {}

    def draw(self, k: int, t: int, generator: torch.Generator) -> None:
        torch.rand((self.runs, self.width), generator=generator, out=self.raw[k])

    def first_redo(self, count: int) -> int | None:
        self.positions = _included_positions(self.raw[:count].numpy(), self.q, self.n)
        short = np.flatnonzero((self.positions[:, :, -1] < self.n).any(axis=1))
        return int(short[0]) if short.size else None

    def redo(self, k: int, t: int, generator: torch.Generator) -> None:
        self.draw(k, t, generator)
        positions = _included_positions(self.raw[k].numpy(), self.q, self.n)
        rows = []
        for row in positions:
            if row[-1] < self.n:  # every gap ended inside the data: one trial a sample after the last included one
                trials = torch.rand(self.n - 1 - int(row[-1]), generator=generator, dtype=torch.float64).numpy()
                row = np.concatenate([row, row[-1] + 1 + np.flatnonzero(trials < self.q)])
            rows.append(row[row < self.n])
        self.redone[k] = _padded_batches(rows)

    def finish(self, count: int) -> None:
        included = self.positions[:count] < self.n
        sizes = included.sum(axis=2)
        self.largest = sizes.max(axis=1, initial=0).tolist()
        self.order = torch.from_numpy(np.where(included, self.positions[:count], 0))
        self.chosen = torch.from_numpy(included)

    def slot(self, k: int) -> tuple[Tensor, Tensor]:
        """Step slot k's batch: the included samples of each run, padded with 0 (R, m), and their membership."""
        if k in self.redone:
            return self.redone.pop(k)
        largest = self.largest[k]
        return self.order[k][:, :largest], self.chosen[k][:, :largest]

    def batch(self, k: int, t: int, X: Tensor, Y: Tensor | None) -> _Batch:
        order, chosen = self.slot(k)
        return _take(X, Y, order, chosen.to(X.dtype))


def _poisson_width(n: int, q: float) -> int:
    """Gaps a run draws per Poisson step: ⌈qn + 6·√(qn(1 − q))⌉ + 8, at most n + 1 (n + 1 gaps always reach past
    the data). A step is redone when a run includes ``width`` or more samples, P(Binomial(n, q) ≥ width) < 1e-9."""
    mean = q * n
    return min(n + 1, math.ceil(mean + 6.0 * math.sqrt(mean * (1.0 - q))) + 8)


def _included_positions(uniforms: np.ndarray, q: float, n: int) -> np.ndarray:
    """The positions p_j = G_1 + … + G_j − 1 (last axis) of the gaps G = 1 + ⌊log(1 − U)/log(1 − q)⌋ drawn from
    ``uniforms`` (0 < q <= 1: every position for q = 1). A gap is capped at n + 1 (any gap that long ends past the
    data), so that the sums stay exact integers below n and never overflow."""
    if q == 1.0:
        return np.broadcast_to(np.arange(uniforms.shape[-1], dtype=np.int64), uniforms.shape)
    gaps = np.floor(np.log1p(-uniforms) / math.log1p(-q))
    np.minimum(gaps, float(n), out=gaps)
    gaps += 1.0
    return np.cumsum(gaps, axis=-1).astype(np.int64) - 1


def _padded_batches(rows: list[np.ndarray]) -> tuple[Tensor, Tensor]:
    """Rows of sample indices of different lengths as (R, m) indices padded with 0 and their 0/1 membership."""
    largest = max((row.size for row in rows), default=0)
    order = np.zeros((len(rows), largest), dtype=np.int64)
    chosen = np.arange(largest) < np.array([row.size for row in rows])[:, None]
    order[chosen] = np.concatenate(rows) if rows else []
    return torch.from_numpy(order), torch.from_numpy(chosen)


class _ShuffledDraws(_StepDraws):
    """``shuffled``: a fresh permutation per run at the first step of every epoch, then consecutive batches."""

    #: the keys and the permutation
    copies = 2

    def __init__(self, runs: int, n: int, size: int) -> None:
        self.runs, self.n, self.size = runs, n, size
        self.per_epoch = n // size
        self.numbers = runs * n // self.per_epoch

    def allocate(self, capacity: int) -> None:
        self.keys: dict[int, Tensor] = {}

    def draw(self, k: int, t: int, generator: torch.Generator) -> None:
        if t % self.per_epoch == 0:
            self.keys[k] = torch.rand(self.runs, self.n, generator=generator, dtype=torch.float64)

    def batch(self, k: int, t: int, X: Tensor, Y: Tensor | None) -> _Batch:
        position = t % self.per_epoch
        if position == 0:
            self.permutation = torch.argsort(self.keys.pop(k), dim=1)
        return _take(X, Y, self.permutation[:, position * self.size : (position + 1) * self.size])


def _batch_draws(config: NoisyGradientConfig, runs: int, n: int) -> _StepDraws:
    """The batch sampler of ``config.sampling`` for n samples and ``runs`` runs."""
    if config.sampling in ("single_pass", "full_batch"):
        return _SharedBatches(config.sampling == "single_pass")
    batch_size = config.batch_size_for(n)
    if config.sampling == "poisson":
        return _PoissonDraws(runs, n, batch_size / n)
    if config.sampling == "shuffled":
        return _ShuffledDraws(runs, n, batch_size)
    return _SubsetDraws(runs, n, batch_size)


#: torch's Box–Muller for float64 tensors of at least this many entries works on chunks of this many uniforms.
_BOX_MULLER_CHUNK = 16


def _box_muller_chunks(uniforms: Tensor) -> None:
    """Turn ``uniforms`` (..., 2, 8) of [0, 1) into standard normals in place, as ``torch.randn`` does for a float64
    tensor of 16 entries or more (``normal_fill_16`` of ATen's CPU kernel): per chunk of 16, with u₁ the first 8 and
    u₂ the last 8, z₁ = √(−2 log(1 − u₁))·cos(2π u₂) and z₂ = √(−2 log(1 − u₁))·sin(2π u₂) (Box & Muller 1958).

    ATen evaluates each entry with scalar libm calls (about 20 ns a number here); these are torch's vectorised
    log/cos/sin, about twice as fast, whose results differ from libm's by at most 4 ulp in about 1 % of the entries
    (tests/learning/test_engine.py: the same generator stream, values within 4 ulp of ``torch.randn``'s).
    """
    first, second = uniforms[..., 0, :], uniforms[..., 1, :]
    radius = first.neg().add_(1.0).log_().mul_(-2.0).sqrt_()
    angle = second.mul(2.0 * math.pi)
    torch.mul(radius, torch.cos(angle), out=first)
    torch.mul(radius, angle.sin_(), out=second)


def _laplace_from_uniforms(uniforms: Tensor) -> None:
    """Turn ``uniforms`` u of [0, 1) into standard Laplace numbers in place, one uniform each: the sign is that of
    u − ½, the magnitude E = −log(1 − r) with r = frac(2u) = 2u − [u ≥ ½], which is uniform on [0, 1) and
    independent of the sign (2u and 2u − 1 are exact), so E ~ Exp(1) and sign·E ~ Laplace(0, 1); r < 1 keeps E
    finite (at most 37). ``copysign`` takes the magnitude |log(1 − r)| = E."""
    centred = uniforms - 0.5
    log_survival = uniforms.mul_(2.0).frac_().neg_().log1p_()
    torch.copysign(log_survival, centred, out=log_survival)


class _NoiseDraws(_StepDraws):
    """Z i.i.d. per entry: N(0, scale²), or Laplace(0, scale) = (random sign)·scale·Exp(1); ``scale`` a number or a
    tensor that broadcasts against ``shape`` (e.g. one σ per run, shape (R, 1)).

    Per step only uniforms are drawn where that is the stream, in one ``rand`` call. Gaussian: the stream of
    ``torch.randn``; a float64 step of N ≥ 16 entries draws the N uniforms of ``torch.randn`` (then, when 16 does not
    divide N, the 16 with which it redoes the last 16 entries), transformed per block by :func:`_box_muller_chunks`,
    within 4 ulp of torch's scalar kernel (issue 27: 20.8 -> 9.2 ns a number); other Gaussian steps (float32, or
    fewer than 16 entries) call ``torch.randn`` (its float32 kernel is vectorised already). Laplace: one uniform a
    number, transformed per block by :func:`_laplace_from_uniforms` (issue 27: instead of ``exponential_`` and a
    uniform for the sign, half the draws; 16.7 -> 11.9 ns a float64 number at 10⁵ a step). The scaling is done
    once per block."""

    def __init__(self, kind: str, scale: float | Tensor, shape: tuple[int, ...], dtype: torch.dtype) -> None:
        self.kind, self.scale, self.shape, self.dtype = kind, scale, shape, dtype
        self.size = size = math.prod(shape)
        self.box_muller = kind == "gaussian" and dtype == torch.float64 and size >= _BOX_MULLER_CHUNK
        self.from_uniforms = self.box_muller or kind == "laplace"
        self.redone = size % _BOX_MULLER_CHUNK if self.box_muller else 0  # torch redraws the last 16 entries
        self.numbers = size + (_BOX_MULLER_CHUNK if self.redone else 0)
        self.copies = 3 if self.from_uniforms else 1  # the uniforms, then Box–Muller's or the sign's temporaries

    def allocate(self, capacity: int) -> None:
        if self.from_uniforms:  # a step's uniforms, in the order they are drawn
            self.uniforms = torch.empty(capacity, self.numbers, dtype=self.dtype)
            self.values = self.uniforms[:, : self.size].view(capacity, *self.shape)
        else:
            self.values = torch.empty(capacity, *self.shape, dtype=self.dtype)

    def draw(self, k: int, t: int, generator: torch.Generator) -> None:
        if self.from_uniforms:
            torch.rand(self.numbers, generator=generator, out=self.uniforms[k])
        else:
            torch.randn(self.shape, generator=generator, out=self.values[k])

    def finish(self, count: int) -> None:
        values = self.values[:count]
        if self.box_muller:
            raw, chunk = self.uniforms[:count], _BOX_MULLER_CHUNK
            _box_muller_chunks(raw[:, : self.size - self.redone].view(count, -1, 2, chunk // 2))
            if self.redone:  # the last 16 entries: the 16 uniforms drawn after the step's N
                last = raw[:, self.size :]
                _box_muller_chunks(last.view(count, 2, chunk // 2))
                raw[:, self.size - chunk : self.size] = last
        elif self.kind == "laplace":
            _laplace_from_uniforms(values)
        values.mul_(self.scale)


def _drawn_ahead(steps: int, draws: list[_StepDraws], generator: torch.Generator) -> Iterator[int]:
    """For steps 0..steps−1 in order, the step's slot in its block, once the block's randomness (every sampler of
    ``draws``, in list order within a step) is drawn and processed. A block whose step k must be redrawn step by step
    (``first_redo``) is cut after k: the generator goes back to the block's start, steps before k are drawn again
    (the same values) and step k is drawn exactly as a step-by-step loop would."""
    numbers = sum(d.numbers for d in draws)
    capacity = max(1, min(_BLOCK_STEPS, steps, _BLOCK_NUMBERS // max(numbers, 1)))
    for d in draws:
        d.allocate(capacity)
    may_redo = any(d.may_redo for d in draws)
    done = 0
    while done < steps:
        count = min(capacity, steps - done)
        start = generator.get_state() if may_redo else None
        for k in range(count):
            for d in draws:
                d.draw(k, done + k, generator)
        redo = min((k for d in draws if (k := d.first_redo(count)) is not None), default=None)
        if redo is not None:
            generator.set_state(start)
            for k in range(redo):
                for d in draws:
                    d.draw(k, done + k, generator)
            for d in draws:
                d.redo(redo, done + redo, generator)
            count = redo + 1
        for d in draws:
            d.finish(count)
        yield from range(count)
        done += count


def _checked_noise(kind: str, scale: float | Tensor, shape: tuple[int, ...], dtype: torch.dtype) -> _NoiseDraws:
    """The noise sampler after checking ``kind``, the scale (a number or a tensor, finite and >= 0) and ``shape``."""
    choice("noise", kind, ("gaussian", "laplace"))
    if isinstance(scale, Tensor):
        finite_tensor("noise_scale", scale)
        if bool((scale < 0).any()):
            raise ValueError(f"noise_scale has negative entries {scale[scale < 0].tolist()[:3]}; allowed: >= 0")
    else:
        non_negative_finite("noise_scale", scale)
    shape = tuple(whole_number("noise_shape", size) for size in shape)
    noise = _NoiseDraws(kind, scale, shape, dtype)
    fits_in_memory({"noise_shape": shape}, noise.step_bytes, f"noise of shape {shape}")
    return noise


def noise_steps(
    kind: str,
    noise_scale: float | Tensor,
    noise_shape: tuple[int, ...],
    steps: int,
    generator: torch.Generator,
    *,
    dtype: torch.dtype = torch.float64,
) -> Iterator[Tensor]:
    """Z_1, …, Z_steps, each of ``noise_shape``, i.i.d. N(0, scale²) (``kind="gaussian"``) or Laplace(0, scale)
    (``"laplace"``) per entry (``noise_scale`` a number or a tensor that broadcasts against the shape): the noise
    :func:`run_noisy_gradient` adds at each step of a sampling mode that draws no batches (``single_pass``,
    ``full_batch``), the same values bit for bit, drawn a block of steps ahead (Gaussian: within 4 ulp of
    ``torch.randn`` called step by step; Laplace: one uniform a number, ``_NoiseDraws``). The tensors yielded are
    views of block buffers: use each before requesting the next (it may be updated in place)."""
    noise = _checked_noise(kind, noise_scale, noise_shape, dtype)
    steps = whole_number("steps", steps)
    return (noise.values[k] for k in _drawn_ahead(steps, [noise], generator))


def poisson_batches(n: int, rate: float, steps: int, generator: torch.Generator) -> Iterator[Tensor]:
    """For each of ``steps`` steps, a Poisson-subsampled batch of n records at ``rate`` q (each record independently
    with probability q, 0 < q ≤ 1): the indices of its records in increasing order (int64, possibly none), drawn as
    the engine's ``poisson`` sampling draws one run's (from the gaps between included records, about qn uniforms a
    step, a block of steps ahead: ``_PoissonDraws``)."""
    n, steps = whole_number("n", n), whole_number("steps", steps)
    sampler = _PoissonDraws(1, n, probability("rate", rate, allow_one=True))
    fits_in_memory({"n": n, "rate": rate}, sampler.step_bytes, f"Poisson batches of {n} records at rate {rate}")
    return (_included(*sampler.slot(k)) for k in _drawn_ahead(steps, [sampler], generator))


def _included(order: Tensor, chosen: Tensor) -> Tensor:
    """The included indices of the single run of a Poisson slot (its included samples come first)."""
    return order[0, : int(chosen[0].sum())]


def subset_and_noise_steps(
    runs: int,
    n: int,
    size: int,
    steps: int,
    generator: torch.Generator,
    *,
    noise_scale: float | Tensor | None = None,
    noise_shape: tuple[int, ...] = (),
    dtype: torch.dtype = torch.float64,
) -> Iterator[tuple[Tensor, Tensor | None]]:
    """For each of ``steps`` steps, what a step-by-step loop draws from ``generator`` in this order:
    ``uniform_subsets(runs, n, size, generator)`` (R, size), then, if ``noise_scale`` is given,
    ``torch.randn(noise_shape, generator=generator, dtype=dtype).mul_(noise_scale)`` (else None); the same values bit
    for bit (float64 noise: within 4 ulp, ``_NoiseDraws``), drawn a block of steps ahead (the engine's
    ``without_replacement`` sampling with Gaussian noise). The tensors yielded are views of block buffers, valid
    until the next step is requested."""
    subsets = _checked_subsets(runs, n, size)
    steps = whole_number("steps", steps)
    if noise_scale is None:
        return ((subsets.index[k], None) for k in _drawn_ahead(steps, [subsets], generator))
    noise = _checked_noise("gaussian", noise_scale, noise_shape, dtype)
    return ((subsets.index[k], noise.values[k]) for k in _drawn_ahead(steps, [subsets, noise], generator))


def _scale_rows(gradients: Tensor, factors: Tensor, batch: _Batch, w: Tensor) -> Tensor:
    """gradients·factors, in place when ``gradients`` is a fresh tensor owned by nobody else (saves one (R, B, d)
    allocation and its page faults); the values are those of the out-of-place product either way."""
    fresh = gradients._base is None and gradients.is_contiguous()
    storage = gradients.untyped_storage().data_ptr()
    shared = any(
        t is not None and t.untyped_storage().data_ptr() == storage for t in (batch.X, batch.Y, batch.weights, w)
    )
    return gradients.mul_(factors) if fresh and not shared else gradients * factors


def _vmap_clipped_sum(gradient_function: Callable[..., Tensor]) -> Callable[[Tensor, _Batch, float | None], Tensor]:
    """Σ_j weight_j·clip(∇ℓ(w; x_j, y_j)) from the ``(R, B, d)`` per-sample gradients of ``torch.func``.

    The clipping factor min(1, C/‖g_j‖) and the 0/1 Poisson weight are multiplied first and applied to the (R, B, d)
    gradients in one pass: g·(c·w) equals (g·c)·w bit for bit when w ∈ {0, 1}.
    """

    def clipped_sum(w: Tensor, batch: _Batch, clip_norm: float | None) -> Tensor:
        gradients = gradient_function(w, batch.X, batch.Y)
        factors = None if clip_norm is None else _clip_factors(gradients, clip_norm)
        if batch.weights is not None:
            weights = batch.weights.unsqueeze(-1)
            factors = weights if factors is None else factors * weights
        if factors is not None:
            gradients = _scale_rows(gradients, factors, batch, w)
        return gradients.sum(dim=1)

    return clipped_sum


def _takes_keyword(function: Callable[..., Any], name: str) -> bool:
    """Whether ``function`` has a parameter called ``name`` (False when Python cannot read its signature)."""
    try:
        return name in inspect.signature(function).parameters
    except (TypeError, ValueError):
        return False


def _factored_clipped_sum(loss: Loss, features: Tensor) -> Callable[[Tensor, _Batch, float | None], Tensor]:
    """Σ_j weight_j·clip(∇ℓ(w; x_j, y_j)) from the loss's factored gradients (:mod:`dplab.learning.losses`): the
    per-sample norms give the clip factors c_j = min(1, C/‖∇ℓ_j‖), and one weighted sum Σ_j c_j·weight_j·∇ℓ_j.
    A loss whose ``factored_gradients`` accepts ``squared_features`` gets the batch's ‖x_j‖², gathered from those of
    all records, computed here once (:func:`~dplab.learning.losses.squared_feature_norms`)."""
    record_norms = (
        squared_feature_norms(features) if _takes_keyword(loss.factored_gradients, "squared_features") else None
    )

    def clipped_sum(w: Tensor, batch: _Batch, clip_norm: float | None) -> Tensor:
        if record_norms is None:
            factored = loss.factored_gradients(w, batch.X, batch.Y)
        else:
            factored = loss.factored_gradients(w, batch.X, batch.Y, squared_features=_batch_values(record_norms, batch))
        if clip_norm is None:  # 1·weight = weight exactly
            return factored.weighted_sum(
                torch.ones_like(factored.squared_norms) if batch.weights is None else batch.weights
            )
        factors = _factors_from_norms(factored.squared_norms.sqrt(), clip_norm)
        if batch.weights is not None:
            factors = factors * batch.weights
        return factored.weighted_sum(factors)

    return clipped_sum


def _clipped_sum_function(loss: Loss, features: Tensor, per_run_samples: bool, labelled: bool, factored: bool):
    """The clipped-sum function of a step over the records ``features``: the loss's factored gradients when
    ``factored`` (:func:`_uses_factored_gradients`), else ``torch.func`` per-sample gradients."""
    if factored:
        return _factored_clipped_sum(loss, features)
    return _vmap_clipped_sum(_gradient_function(loss, per_run_samples, labelled))


def _uses_factored_gradients(loss: Loss, method: str) -> bool:
    """Whether a step takes the loss's factored gradients (``method`` "auto" or "factored" and the loss offers
    them) rather than ``torch.func`` per-sample gradients."""
    choice("gradients", method, GRADIENT_METHODS)
    factored = hasattr(loss, "factored_gradients")
    if method == "factored" and not factored:
        raise ValueError(f"gradients='factored' needs a loss with factored_gradients; {type(loss).__name__} has none")
    return factored and method != "vmap"


def _mean_clipped_gradient(
    clipped_sum: Callable[[Tensor, _Batch, float | None], Tensor],
    w: Tensor,
    batch: _Batch,
    clip_norm: float | None,
    batch_size: int,
) -> Tensor:
    """ḡ = (1/batch_size)·Σ_j weight_j·clip(∇ℓ(w; x_j, y_j)), shape (R, d)."""
    if batch.X.shape[-2] == 0:  # an empty Poisson step in every run
        return torch.zeros_like(w)
    total = clipped_sum(w, batch, clip_norm)
    return total if batch_size == 1 else total.div_(batch_size)  # x/1 = x: skip the pass


# ----------------------------------------------------------------------------------------------------------------
# The engine
# ----------------------------------------------------------------------------------------------------------------


def _checked_start(w0: Any, runs: int, dtype: torch.dtype) -> Tensor:
    """``w0`` as a finite (d,) or (runs, d) tensor of ``dtype`` (not yet copied per run)."""
    start = finite_tensor("w0", as_real_tensor(w0, "w0", dtype))
    if start.ndim == 1 or (start.ndim == 2 and start.shape[0] == runs):
        return start
    raise ValueError(f"w0 has shape {tuple(start.shape)}; it must be (d,) or (runs, d) = ({runs}, d)")


def _initial_iterates(start: Tensor, runs: int) -> Tensor:
    return start.expand(runs, -1).clone() if start.ndim == 1 else start.clone()


def _checked_data(loss: Loss, X: Any, Y: Any, dtype: torch.dtype) -> tuple[Tensor, Tensor | None]:
    """``X`` (n, dx) and ``Y`` (n,) or None as finite tensors of ``dtype`` (real numbers converted, booleans and
    complex numbers refused), of one length, ``Y`` holding labels the loss is defined for."""
    features = as_real_tensor(X, "X", dtype)
    if features.ndim != 2 or features.shape[0] == 0:
        raise ValueError(f"X has shape {tuple(features.shape)}; it must be (n, dx) with n >= 1 (use reshape(-1, 1))")
    finite_tensor("X", features)
    if Y is None:
        return features, None
    labels = as_real_tensor(Y, "Y", dtype)
    matching_length("X", features, "Y", labels)
    if labels.ndim != 1:
        raise ValueError(f"Y has shape {tuple(labels.shape)}; it must be (n,) = ({features.shape[0]},) or None")
    finite_tensor("Y", labels)
    _check_labels(loss, labels)
    return features, labels


def _check_labels(loss: Loss, Y: Tensor | None) -> None:
    """Check that ``Y`` holds labels the loss is defined for (``loss.label_set`` when the loss declares one, e.g.
    {−1, +1} for the logistic loss)."""
    allowed = None if Y is None else getattr(loss, "label_set", None)
    if allowed is not None:
        labels_in("Y", Y.detach().cpu().numpy(), allowed)


def _check_run_fits(
    config: NoisyGradientConfig, draws: list[_StepDraws], runs: int, n: int, dx: int, d: int, steps: int
) -> None:
    """Refuse, before allocating, a run whose arrays cannot fit in memory (:func:`dplab.checks.fits_in_memory`): one
    step's random draws and the arrays that process them (a block holds at least one step), per run the iterates,
    output, step and stopping time, the batch's rows (per-run samples) and per-sample gradients, and the step-size
    list; 8 bytes a number."""
    batch = 1 if config.sampling == "single_pass" else config.batch_size_for(n)
    gathered = batch * (dx + 1) if config.sampling in ("poisson", "shuffled", "without_replacement") else 0
    per_run = 4 * d + 1 + batch * d + gathered
    n_bytes = sum(draw.step_bytes for draw in draws) + 8 * (runs * per_run + steps)
    fits_in_memory({"runs": runs, "steps": steps}, n_bytes, f"{runs} runs of {steps} steps in dimension {d}")


def _progress_bar(steps: int, progress: bool | None) -> Iterator[int]:
    """tqdm over steps 1..steps; progress=None lets tqdm decide (shown only on a terminal)."""
    disable = None if progress is None else not progress
    return iter(tqdm(range(1, steps + 1), desc="noisy gradient", unit="step", disable=disable))


def run_noisy_gradient(
    config: NoisyGradientConfig,
    loss: Loss,
    X: Any,
    Y: Any,
    w0: Any,
    *,
    runs: int,
    generator: torch.Generator,
    dtype: torch.dtype = torch.float64,
    progress: bool | None = None,
    on_step: Callable[[int, Tensor], None] | None = None,
    gradients: str = "auto",
) -> Tensor:
    """Run ``runs`` independent copies of the noisy-gradient method; returns the outputs, shape ``(runs, d)``.

    Each step: w ← Π(w − lr·(ḡ + Z)) with ḡ the clipped batch-mean gradient and Z i.i.d. noise per run and
    coordinate (module docstring). ``X``: ``(n, dx)``; ``Y``: ``(n,)`` labels or None; ``w0``: ``(d,)`` (the same
    start for every run, μ_0 = δ_{w0}) or ``(runs, d)``. ``progress``: True/False shows/hides a tqdm bar over
    steps, None shows it only on a terminal. ``on_step(t, w)`` is called after step t = 1..steps with the iterates
    ``w`` (runs, d) (read them, e.g. to record a trajectory; do not modify them in place; with factored gradients
    they are inference tensors: clone one to use it with autograd). ``gradients``: "auto"
    (factored per-sample gradients when the loss offers ``factored_gradients``, else ``torch.func``), "factored" or
    "vmap" (force one; the two agree up to floating-point summation order).

    ``X``, ``Y`` and ``w0`` may be torch tensors, numpy arrays or sequences of real numbers: they are converted to
    ``dtype`` (float64 or float32; integer and half-precision entries included, as ``torch.as_tensor`` converts
    them); booleans and complex numbers are refused, never converted. Every argument, and an estimate of the
    memory the run needs against this machine's, is checked once, before anything is allocated or drawn.
    """
    runs = whole_number("runs", runs)
    if not isinstance(generator, torch.Generator):
        raise ValueError(f"generator={generator!r} must be a torch.Generator")
    choice("dtype", dtype, (torch.float64, torch.float32))
    features, labels = _checked_data(loss, X, Y, dtype)
    n = features.shape[0]
    steps = config.steps_for(n)
    batch_size = config.batch_size_for(n)
    start = _checked_start(w0, runs, dtype)
    clip_norm = None if config.clip_norm is None else float(config.clip_norm)
    per_run_samples = config.sampling in ("poisson", "shuffled", "without_replacement")
    factored = _uses_factored_gradients(loss, gradients)
    clipped_sum = _clipped_sum_function(loss, features, per_run_samples, labels is not None, factored)
    batches = _batch_draws(config, runs, n)
    shape = (runs, start.shape[-1])
    noise = None if config.noise == "none" else _NoiseDraws(config.noise, config.noise_scale, shape, dtype)
    draws = [batches] if noise is None else [batches, noise]
    _check_run_fits(config, draws, runs, n, features.shape[1], shape[1], steps)
    w = _initial_iterates(start, runs)

    step_sizes = config.step_sizes(steps)
    stopping_time = None
    if config.stopping == "uniform_random":
        stopping_time = torch.randint(1, steps + 1, (runs, 1), generator=generator)
    output = torch.zeros_like(w) if config.stopping in ("average", "weighted_average") else w
    # Factored gradients need no autograd: inference mode skips its per-operation bookkeeping (the same values,
    # about 20 % less time a step where the tensors are tiny, e.g. DP-ERM at d = 2).
    with torch.inference_mode(factored):
        for t, k in zip(_progress_bar(steps, progress), _drawn_ahead(steps, draws, generator)):
            batch = batches.batch(k, t - 1, features, labels)
            step = _mean_clipped_gradient(clipped_sum, w, batch, clip_norm, batch_size)
            # ``step`` is a fresh tensor: update it in place (same values as out of place, fewer allocations).
            if noise is not None:
                step.add_(noise.values[k])
            w = config.projection(w - step.mul_(step_sizes[t - 1]))
            if config.stopping == "final":
                output = w
            elif config.stopping == "uniform_random":
                output = torch.where(stopping_time == t, w, output)
            elif config.stopping == "average":
                output = output + w / steps
            else:
                output.add_((2.0 * t / (steps * (steps + 1))) * w)
            if on_step is not None:
                on_step(t, w)
    return output.clone() if output.is_inference() else output  # a normal tensor, usable with autograd
