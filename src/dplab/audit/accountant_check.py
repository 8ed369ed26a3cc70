"""Check a DP-SGD accountant against the sampler that actually ran: upper bounds, a Monte-Carlo lower bound, a verdict.

Upper bounds. dp_accounting's RDP and PLD accountants for ``steps`` Poisson-subsampled Gaussian steps (rate q,
noise multiplier σ, add/remove adjacency): the DP-SGD accounting of Abadi et al. (2016), which assumes Poisson
subsampling whatever sampler was used.

Per-user contraction bound (Asoodeh, Diaz, Calmon 2020, Theorems 3-5, :mod:`dplab.account`): it needs projected
noisy SGD on a bounded convex set, a single pass in which each record is used once at a known position, and a
smooth Lipschitz loss.  DP-SGD with Poisson, shuffled or without-replacement batches and no projection meets none
of these, so :func:`check_dpsgd_accountant` reports it as not applicable, with that reason;
:func:`check_pnsgd_accountant` checks single-pass projected noisy SGD, where Theorem 4 applies, with the same
verdict rule (its instance is described there).

Lower bound: the worst-case 1-D instance, run by the engine's own sampler.  One record has gradient −C (after
clipping to norm C) and every other record gradient 0; its neighbour (the record removed, equivalently replaced by
a zero-gradient record, since the gradient sum is normalised by the fixed batch size B) has every gradient 0.
:func:`dplab.learning.engine.run_noisy_gradient` runs DP-SGD (w0 = 0, lr = 1, no projection, noise std σC/B on the
mean gradient) with the configured sampler, so the final iterate times B/C is

    s = Σ_{t=1..T} b_t + N(0, T σ²)    on D,        s = N(0, T σ²)    on D′,

where b_t ∈ {0, 1} says whether the record was in step t's batch: i.i.d. Bernoulli(q) for Poisson sampling, once
per epoch for shuffled batches.  s is the sum of the noisy clipped gradients over the steps (in units of C), a
post-processing of the released trajectory, so any (ε, δ) lower bound for s is one for DP-SGD.  Only the
record's inclusion pattern matters, and its law depends on (B, n) only through B/n and n // B, both unchanged when
B and n are divided by gcd(B, n); the engine runs the reduced pair (exactly the same law of s, cheaper).
:func:`dplab.audit.audit_samplers` turns samples of s on D and D′ into a (1 − alpha)-confidence lower bound on ε at
``audit_delta``.

Verdict at ``audit_delta`` (default 1e-3), with ε_UB = the smaller of the RDP and PLD bounds and ε_LB the
Monte-Carlo bound:

- "violated": ε_LB > ε_UB.  ε_LB holds with probability ≥ 1 − alpha, so a correct accountant is called violated
  with probability at most alpha: the accountant (or the σ, q, T it was given) is wrong for the sampler that ran.
- "loose": ε_UB > LOOSE_FACTOR · ε_LB (LOOSE_FACTOR = 2).  On the one instance where s is the optimal test and the
  accountant is exact (one full-batch Gaussian step, q = 1, T = 1), 10⁵ samples per side give ε_UB/ε_LB between
  1.06 and 1.58 for σ ∈ [0.5, 4] at δ = 1e-3 (measured; a test checks σ = 1); a ratio above 2 is more than the
  auditor's own shortfall.  "loose" says the accountant claims more than this audit can demonstrate: either the
  accountant is loose or the sum statistic is a weak attack (it discards which step the record joined), as for
  small q and many steps.
- "consistent": otherwise.

``audit_delta`` is not the user's δ: with m held-out samples per side the auditor cannot certify an event of
probability below about 3/m under D′, so at δ ≪ 1/m its bound no longer grows while the accountant's ε does
(10⁵ samples, σ = 2, q = T = 1: ε_UB/ε_LB = 2.9 at δ = 1e-5 against 1.06 at δ = 1e-3).  The upper bounds are also
reported at the user's ``delta``.

Sampler mismatch: the accountant assumes Poisson subsampling; for shuffled or without-replacement batches the
check sets ``sampler_mismatch`` and says so in the verdict and the evidence, whatever the numbers.  The sum
statistic may not expose the mismatch (one epoch of shuffled batches releases s ~ N(1, Tσ²), a Gaussian
mechanism), so "consistent" with a mismatch means only that this audit found no violation, not that the Poisson
accounting is valid for that sampler.
"""

from __future__ import annotations

import math
from dataclasses import dataclass
from fractions import Fraction

import dp_accounting
import numpy as np
import torch
from dp_accounting import pld, rdp
from dp_accounting.pld import common, privacy_loss_distribution
from numpy.typing import ArrayLike
from scipy import fft

from dplab.account import PNSGDCurve, pnsgd_curve
from dplab.accounting.calibration import RDP_ORDERS
from dplab.audit.auditor import AuditResult, Sampler, audit_samplers, checked_audit_samples
from dplab.audit.instances import audit_instance
from dplab.audit.montecarlo import clopper_pearson
from dplab.checks import (
    as_non_negative_array,
    fits_in_memory,
    positive_finite,
    probability,
    require,
    whole_number,
)
from dplab.learning.engine import NoisyGradientConfig, dp_sgd_noise_scale, run_noisy_gradient
from dplab.learning.losses import LinearLoss
from dplab.learning.projections import Interval

__all__ = [
    "LOOSE_FACTOR",
    "AccountantCheck",
    "check_dpsgd_accountant",
    "check_pnsgd_accountant",
    "dpsgd_event",
    "monte_carlo_delta_band",
    "plot_accountant_check",
]

LOOSE_FACTOR = 2.0
_SAMPLERS = {
    "poisson": "poisson",
    "shuffled": "shuffled",
    "shuffle": "shuffled",
    "without_replacement": "without_replacement",
}
_ACCOUNTED_SAMPLING = "poisson"
_PLD_DISCRETIZATION = 1e-3
#: float64 values per record of check_pnsgd_accountant's instance: its two datasets and the engine's feature tensor
#: of each (8 bytes x 4).
_INSTANCE_BYTES_PER_RECORD = 32
_PLD_TAIL_MASS = 1e-15  # dp_accounting's default tail_mass_truncation of a self-composition
#: Peak bytes of the PLD self-composition per entry of its FFT buffers (common.self_convolve: the zero-padded input,
#: its transform, the power and the inverse transform; measured 20-25 bytes per entry summed over the two PMFs).
_PLD_BYTES_PER_ENTRY = 40
_MAX_DRAWS_PER_STEP = 2**25
_CONTRACTION_NOT_APPLICABLE = (
    "not applicable: the contraction bound (Asoodeh, Diaz, Calmon 2020, Theorems 3-5) needs projected noisy SGD "
    "on a bounded convex set with each record used once at a known position; DP-SGD with {sampling} batches and no "
    "projection visits records at random steps on an unbounded domain (check_pnsgd_accountant checks the single-pass "
    "projected case)"
)


@dataclass(frozen=True)
class AccountantCheck:
    """Result of :func:`check_dpsgd_accountant` or :func:`check_pnsgd_accountant`: what was run, what was accounted,
    the bounds and the verdict.

    ``accounted_event`` is the dp_accounting event the accountants were given; ``contraction_curve`` the per-user
    curve of Theorem 4 (Asoodeh, Diaz, Calmon 2020) where it applies, else None, and ``contraction`` says which
    (with the reason when not applicable).  ``epsilon_upper`` maps "rdp", "pld" (and "contraction") to ε at
    ``delta``; ``audit_epsilon_upper`` to ε at ``audit_delta``; ``audit`` is the Monte-Carlo lower bound at
    ``audit_delta``.  ``verdict`` is "consistent", "loose" or "violated" (module docstring).
    """

    noise_multiplier: float
    accounted_noise_multiplier: float
    sampling_rate: float
    steps: int
    sampling: str
    accounted_sampling: str
    accounted_event: dp_accounting.DpEvent
    delta: float
    audit_delta: float
    epsilon_upper: dict[str, float]
    audit_epsilon_upper: dict[str, float]
    contraction: str
    audit: AuditResult
    verdict: str
    evidence: str
    contraction_curve: PNSGDCurve | None = None

    @property
    def sampler_mismatch(self) -> bool:
        """True when the sampler that ran is not the one the accountant assumes (shuffled batches accounted as
        Poisson)."""
        return self.sampling != self.accounted_sampling

    def delta_upper(self, epsilon: ArrayLike) -> dict[str, np.ndarray]:
        """δ(ε) of the RDP and PLD accountants of ``accounted_event`` (and of the contraction curve where it
        applies), one value per entry of ``epsilon``."""
        values = np.atleast_1d(as_non_negative_array(epsilon, "epsilon"))
        deltas = {
            name: np.array([accountant.get_delta(value) for value in values])
            for name, accountant in _accountants(self.accounted_event).items()
        }
        if self.contraction_curve is not None:
            deltas["contraction"] = np.minimum(1.0, np.asarray(self.contraction_curve.delta(values), dtype=float))
        return deltas


def dpsgd_event(noise_multiplier: float, sampling_rate: float, steps: int) -> dp_accounting.DpEvent:
    """``steps``-fold composition of the Poisson-subsampled Gaussian (rate q, noise multiplier σ)."""
    positive_finite("noise_multiplier", noise_multiplier)
    probability("sampling_rate", sampling_rate, allow_one=True)
    steps = whole_number("steps", steps)
    return dp_accounting.SelfComposedDpEvent(
        dp_accounting.PoissonSampledDpEvent(sampling_rate, dp_accounting.GaussianDpEvent(noise_multiplier)), steps
    )


def _accountants(event: dp_accounting.DpEvent) -> dict[str, dp_accounting.PrivacyAccountant]:
    """dp_accounting's RDP (orders RDP_ORDERS) and PLD (discretisation 1e-3, pessimistic) accountants of ``event``."""
    return {
        "rdp": rdp.RdpAccountant(list(RDP_ORDERS)).compose(event),
        "pld": pld.PLDAccountant(value_discretization_interval=_PLD_DISCRETIZATION).compose(event),
    }


def _pld_composition_bytes(noise_multiplier: float, sampling_rate: float, steps: int) -> int:
    """Bytes the PLD accountant allocates to compose ``steps`` Poisson-subsampled Gaussian steps, estimated before
    composing: per PMF of the one-step PLD (remove and add), ``common.self_convolve`` transforms a buffer of
    ``next_fast_len(upper − lower + 1)`` entries, the bounds those of ``common.compute_self_convolve_bounds`` (the
    Chernoff truncation dp_accounting applies), times :data:`_PLD_BYTES_PER_ENTRY`.  Reads the one-step PMFs'
    probabilities through dp_accounting's private fields (``_pmf_remove``, ``_pmf_add``, ``_probs``; version
    pinned, a test compares the estimate with the measured peak)."""
    one_step = privacy_loss_distribution.from_gaussian_mechanism(
        noise_multiplier, value_discretization_interval=_PLD_DISCRETIZATION, sampling_prob=sampling_rate
    )
    entries = 0
    for pmf in {id(pmf): pmf for pmf in (one_step._pmf_remove, one_step._pmf_add)}.values():
        probs = pmf.to_dense_pmf()._probs
        lower, upper = common.compute_self_convolve_bounds(probs, steps, _PLD_TAIL_MASS)
        entries += fft.next_fast_len(max(upper - lower + 1, len(probs)))
    return _PLD_BYTES_PER_ENTRY * entries


def _reduced_batch(sampling: str, sampling_rate: float | None, batch_size: int | None, n: int | None):
    """(B, n) divided by gcd(B, n), from ``batch_size`` and ``n`` or, for Poisson sampling, from ``sampling_rate``."""
    if batch_size is None and n is None:
        require(sampling_rate is not None, "sampling_rate", sampling_rate, "a rate in (0, 1], or batch_size and n")
        require(sampling == "poisson", "sampling_rate", sampling_rate, f"batch_size and n for sampling={sampling!r}")
        probability("sampling_rate", sampling_rate, allow_one=True)
        fraction = Fraction(sampling_rate).limit_denominator(10_000)
        require(
            math.isclose(float(fraction), sampling_rate, rel_tol=1e-12),
            "sampling_rate",
            sampling_rate,
            "a fraction B/n with n <= 10000 (or pass batch_size and n)",
        )
        return fraction.numerator, fraction.denominator
    require(sampling_rate is None, "sampling_rate", sampling_rate, "None when batch_size and n are given")
    n = whole_number("n", n)
    batch_size = whole_number("batch_size", batch_size, maximum=n)
    divisor = math.gcd(batch_size, n)
    return batch_size // divisor, n // divisor


def _sum_statistic_sampler(noise_multiplier: float, batch_size: int, n: int, steps: int, sampling: str, one: bool):
    """Sampler of s (module docstring) on D (``one``: one record with gradient −1, C = 1) or on D′ (all zero)."""
    config = NoisyGradientConfig(
        lr=1.0,
        noise="gaussian",
        noise_scale=dp_sgd_noise_scale(noise_multiplier, 1.0, batch_size),
        clip_norm=1.0,
        sampling=sampling,
        batch_size=batch_size,
        steps=steps,
    )
    features = torch.zeros(n, 1, dtype=torch.float64)
    features[0, 0] = -1.0 if one else 0.0

    def sample(size: int, rng: np.random.Generator) -> np.ndarray:
        generator = torch.Generator().manual_seed(int(rng.integers(2**62)))
        final = run_noisy_gradient(
            config, LinearLoss(), features, None, torch.zeros(1), runs=size, generator=generator, progress=False
        )
        return final[:, 0].numpy() * batch_size

    return sample


def _verdict(audit_lower: float, upper: float) -> str:
    if audit_lower > upper:
        return "violated"
    if upper > LOOSE_FACTOR * audit_lower:
        return "loose"
    return "consistent"


def _evidence(verdict: str, audit: AuditResult, upper: dict[str, float], sampling: str, accounted: str) -> str:
    bounds = ", ".join(f"{name.upper()} {value:.4g}" for name, value in upper.items())
    text = (
        f"{verdict}: Monte-Carlo lower bound eps >= {audit.epsilon_lower_bound:.4g} at delta={audit.delta:g} "
        f"({audit.confidence:.0%} confidence, {audit.counts[1]} held-out samples per side) against upper bounds "
        f"{bounds} (loose above {LOOSE_FACTOR:g}x the lower bound)"
    )
    if sampling != accounted:
        text += (
            f"; SAMPLER MISMATCH: the accountant assumes {accounted!r} sampling but the sampler was {sampling!r}, "
            "so its bounds are not proved for this run"
        )
    return text


def _checked(
    accounted: dict,
    event: dp_accounting.DpEvent,
    curve: PNSGDCurve | None,
    contraction: str,
    samplers: tuple[Sampler, Sampler],
    *,
    delta: float,
    audit_delta: float,
    samples: int,
    alpha: float,
    seed: int,
) -> AccountantCheck:
    """Upper bounds of ``event`` (and ``curve``) at ``delta`` and ``audit_delta``, the audit of ``samplers`` and the
    verdict; ``accounted`` holds the record's description fields."""
    accountants = _accountants(event)

    def epsilons(target: float) -> dict[str, float]:
        found = {name: float(accountant.get_epsilon(target)) for name, accountant in accountants.items()}
        return found if curve is None else {**found, "contraction": float(curve.epsilon(target))}

    audit = audit_samplers(*samplers, delta=audit_delta, samples=samples, alpha=alpha, rng=seed)
    audit_upper = epsilons(audit_delta)
    verdict = _verdict(audit.epsilon_lower_bound, min(audit_upper.values()))
    return AccountantCheck(
        **accounted,
        accounted_event=event,
        delta=float(delta),
        audit_delta=float(audit_delta),
        epsilon_upper=epsilons(delta),
        audit_epsilon_upper=audit_upper,
        contraction=contraction,
        audit=audit,
        verdict=verdict,
        evidence=_evidence(verdict, audit, audit_upper, accounted["sampling"], accounted["accounted_sampling"]),
        contraction_curve=curve,
    )


def check_dpsgd_accountant(
    *,
    noise_multiplier: float,
    steps: int,
    sampling: str = "poisson",
    sampling_rate: float | None = None,
    batch_size: int | None = None,
    n: int | None = None,
    delta: float = 1e-5,
    audit_delta: float = 1e-3,
    accounted_noise_multiplier: float | None = None,
    samples: int = 100_000,
    alpha: float = 0.05,
    seed: int = 0,
) -> AccountantCheck:
    """Check dp_accounting's DP-SGD accountant for a configuration against the engine's own sampler.

    The configuration: noise multiplier σ (``noise_multiplier``, the one used), ``steps`` T, the sampler
    (``sampling``: "poisson", "shuffled" (alias "shuffle", :func:`dplab.train.train_dpsgd`'s name) or
    "without_replacement"), and ``batch_size`` B with ``n`` (q = B/n), or ``sampling_rate`` q alone for Poisson
    sampling.  ``accounted_noise_multiplier`` is the σ the accountant was told (default: σ); a larger value
    simulates an accountant that under-reports ε.  ``samples`` per side of the Monte-Carlo audit (half select the
    event, half give the bound), ``alpha`` its failure probability; the engine's cost is about samples·n·T/gcd(B, n)
    random draws.  Returns the :class:`AccountantCheck`; the bounds, the lower-bound instance and the verdict rule
    are derived in the module docstring.

    Every argument is checked before any work (booleans are not numbers; ``0 < delta, audit_delta, alpha < 1``);
    sizes are refused when the audit (:func:`dplab.audit.auditor.checked_audit_samples`), one step of the engine or
    the PLD composition of ``steps`` steps (:func:`_pld_composition_bytes`) cannot fit in memory.
    """
    require(sampling in _SAMPLERS, "sampling", sampling, f"one of {sorted(_SAMPLERS)}")
    sampling = _SAMPLERS[sampling]
    positive_finite("noise_multiplier", noise_multiplier)
    claimed = noise_multiplier if accounted_noise_multiplier is None else accounted_noise_multiplier
    positive_finite("accounted_noise_multiplier", claimed)
    steps = whole_number("steps", steps)
    probability("delta", delta)
    probability("audit_delta", audit_delta)
    probability("alpha", alpha)
    samples = checked_audit_samples(samples)
    seed = whole_number("seed", seed, minimum=0)
    reduced_batch, reduced_n = _reduced_batch(sampling, sampling_rate, batch_size, n)
    require(
        samples * reduced_n <= _MAX_DRAWS_PER_STEP,
        "samples",
        samples,
        f"samples * n / gcd(batch_size, n) = samples * {reduced_n} <= {_MAX_DRAWS_PER_STEP} (memory of one step)",
    )
    rate = reduced_batch / reduced_n
    fits_in_memory(
        {"steps": steps, "noise_multiplier": noise_multiplier},
        _pld_composition_bytes(claimed, rate, steps),
        f"dp_accounting's PLD composition of {steps} steps (sampling rate {rate:.6g})",
    )
    return _checked(
        {
            "noise_multiplier": float(noise_multiplier),
            "accounted_noise_multiplier": float(claimed),
            "sampling_rate": rate,
            "steps": steps,
            "sampling": sampling,
            "accounted_sampling": _ACCOUNTED_SAMPLING,
        },
        dpsgd_event(claimed, rate, steps),
        None,
        _CONTRACTION_NOT_APPLICABLE.format(sampling=sampling),
        tuple(
            _sum_statistic_sampler(noise_multiplier, reduced_batch, reduced_n, steps, sampling, one) for one in (1, 0)
        ),
        delta=delta,
        audit_delta=audit_delta,
        samples=samples,
        alpha=alpha,
        seed=seed,
    )


def _final_iterate_sampler(noise: float, lr: float, diameter: float, records: np.ndarray, start: float) -> Sampler:
    """Sampler of the final iterate of single-pass projected noisy SGD on [−D/2, D/2] with the linear loss (gradient
    x_t at step t, ``records`` x_1..x_n), start ``start``, noise lr·N(0, ``noise``²), run by the engine."""
    config = NoisyGradientConfig(
        lr=lr,
        noise="gaussian",
        noise_scale=noise,
        projection=Interval(-diameter / 2, diameter / 2),
        sampling="single_pass",
    )
    features = torch.tensor(np.array(records), dtype=torch.float64).reshape(-1, 1)

    def sample(size: int, rng: np.random.Generator) -> np.ndarray:
        generator = torch.Generator().manual_seed(int(rng.integers(2**62)))
        final = run_noisy_gradient(
            config, LinearLoss(), features, None, torch.tensor([start]), runs=size, generator=generator, progress=False
        )
        return final[:, 0].numpy()

    return sample


def check_pnsgd_accountant(
    *,
    noise_multiplier: float,
    lr: float,
    diameter: float,
    steps: int,
    position: int | None = None,
    delta: float = 1e-5,
    audit_delta: float = 1e-3,
    accounted_noise_multiplier: float | None = None,
    samples: int = 100_000,
    alpha: float = 0.05,
    seed: int = 0,
) -> AccountantCheck:
    """Check the accountants of single-pass projected noisy SGD (Algorithm 1 of Asoodeh, Diaz, Calmon 2020), where
    the per-user contraction bound applies, against the engine's own single-pass sampler.

    Units of the gradient bound L (the clipping norm or Lipschitz constant; L = 1): the gradient noise is
    N(0, σ² I) with σ = ``noise_multiplier``, the step w ← Π_𝕂(w − lr·(∇ℓ + Z)), 𝕂 of diameter ``diameter``, one
    record per step for ``steps`` = n steps; the user's record is used at step ``position`` i (default n, the
    worst user).  Neighbours differ in that record (replace-one, gradients +L and −L: sensitivity 2L).

    Upper bounds: dp_accounting's RDP and PLD accountants of the Gaussian mechanism with noise multiplier σ/2 (the
    record enters one step with sensitivity 2L; later steps are post-processing), and Theorem 4's per-user bound
    (:func:`dplab.account.pnsgd_curve`, M = 1: a convex loss with lr ≤ 2/β; a strongly convex loss's smaller M is
    not checked by this instance).  Lower bound: instance D of :func:`dplab.audit.audit_instance` (x_i = ±L, every
    other record −L, start at the top b = D/2 of 𝕂 = [−D/2, D/2], so that the iterate is held near b before step i;
    of the instances A-D it gave the largest lower bounds in trials at D ∈ {1, 2, 20}), the final iterate drawn by
    :func:`dplab.learning.engine.run_noisy_gradient`.  Only the final iterate is released, so the noise of the other
    steps hides the record too and "loose" is the common verdict for i < n or wide domains.  ``accounted_noise_multiplier`` (default σ) is the σ the
    accountants were told.  Verdict and factor as in :func:`check_dpsgd_accountant`; arguments are checked before
    any work as there (the instance's ``steps`` records and the audit's ``samples`` must fit in memory).
    """
    positive_finite("noise_multiplier", noise_multiplier)
    claimed = noise_multiplier if accounted_noise_multiplier is None else accounted_noise_multiplier
    positive_finite("accounted_noise_multiplier", claimed)
    positive_finite("lr", lr)
    positive_finite("diameter", diameter)
    steps = whole_number("steps", steps)
    position = steps if position is None else whole_number("position", position, maximum=steps)
    probability("delta", delta)
    probability("audit_delta", audit_delta)
    probability("alpha", alpha)
    samples = checked_audit_samples(samples)
    seed = whole_number("seed", seed, minimum=0)
    fits_in_memory(
        {"steps": steps},
        _INSTANCE_BYTES_PER_RECORD * steps,
        f"the audit instance's two datasets of {steps} records and their tensors",
    )
    curve = pnsgd_curve(
        theorem=4,
        noise=claimed,
        lipschitz=1.0,
        contraction_gap=1.0,
        diameter=diameter,
        lr=lr,
        steps=steps,
        position=position,
    )
    instance = audit_instance("D", n=steps, i=position, a=-diameter / 2, b=diameter / 2, L=1.0)
    return _checked(
        {
            "noise_multiplier": float(noise_multiplier),
            "accounted_noise_multiplier": float(claimed),
            "sampling_rate": 1.0,
            "steps": steps,
            "sampling": "single_pass",
            "accounted_sampling": "single_pass",
        },
        dp_accounting.GaussianDpEvent(claimed / 2),
        curve,
        f"applicable: Theorem 4 of Asoodeh, Diaz, Calmon (2020) for the user at position {position} of {steps}",
        tuple(
            _final_iterate_sampler(noise_multiplier, lr, diameter, records, instance.y0)
            for records in (instance.data, instance.data_prime)
        ),
        delta=delta,
        audit_delta=audit_delta,
        samples=samples,
        alpha=alpha,
        seed=seed,
    )


def monte_carlo_delta_band(check: AccountantCheck, epsilon: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """Two-sided (1 − alpha) band on P(A) − e^ε Q(A) for the audit's held-out event A, for every ε at once.

    With P ∈ [P_lo, P_hi] and Q ∈ [Q_lo, Q_hi] (Clopper–Pearson, alpha/2 each), the lower edge
    max(0, P_lo − e^ε Q_hi) is a lower bound on δ(ε) of the mechanism (eq. (5) of Asoodeh, Diaz, Calmon 2020) for all
    ε simultaneously; the upper edge P_hi − e^ε Q_lo bounds the event's own hockey-stick value from above.
    """
    epsilon = as_non_negative_array(epsilon, "epsilon")
    k_p, m_p, k_q, m_q = check.audit.counts
    alpha = 1.0 - check.audit.confidence
    p_low, p_high = clopper_pearson(np.array(k_p), np.array(m_p), alpha=alpha / 2)
    q_low, q_high = clopper_pearson(np.array(k_q), np.array(m_q), alpha=alpha / 2)
    growth = np.exp(epsilon)
    return np.maximum(0.0, p_low - growth * q_high), np.maximum(0.0, p_high - growth * q_low)


def plot_accountant_check(check: AccountantCheck, *, epsilon_max: float | None = None, points: int = 60):
    """The δ(ε) figure of a check: RDP and PLD upper bounds, the contraction bound where it applies (else the legend
    says it does not), the Monte-Carlo lower bound of the held-out event with its estimate and two-sided band
    (:func:`monte_carlo_delta_band`), the ε lower bound at ``audit_delta``, and the verdict in the title.
    Returns the matplotlib figure (save it with :func:`dplab.report.style.save_figure`)."""
    from dplab.report.style import figure, legend_below

    top = max(*check.epsilon_upper.values(), check.audit.epsilon_lower_bound) * 1.2
    top = top if epsilon_max is None else positive_finite("epsilon_max", epsilon_max)
    epsilon = np.linspace(0.0, top, whole_number("points", points, minimum=2))
    fig, axes = figure(width=4.4, height=3.0)
    ax = axes[0, 0]
    names = {"rdp": "RDP upper bound (dp_accounting)", "pld": "PLD upper bound (dp_accounting)"}
    for name, delta in check.delta_upper(epsilon).items():
        ax.plot(epsilon, delta, label=names.get(name, "contraction bound (Theorem 4)"))
    lower, upper = monte_carlo_delta_band(check, epsilon)
    ax.fill_between(epsilon, lower, upper, color="0.8", label=f"Monte-Carlo {check.audit.confidence:.0%} band")
    ax.plot(epsilon, lower, color="black", label="Monte-Carlo lower bound")
    k_p, m_p, k_q, m_q = check.audit.counts
    ax.plot(epsilon, k_p / m_p - np.exp(epsilon) * k_q / m_q, color="black", linestyle=":", label="its estimate")
    ax.plot(
        [check.audit.epsilon_lower_bound], [check.audit_delta], "kv", label=f"ε lower bound at δ={check.audit_delta:g}"
    )
    if check.contraction_curve is None:
        ax.plot([], [], " ", label=f"contraction bound: {check.contraction.split(':')[0]}")
    ax.set_yscale("log")
    ax.set_ylim(max(1e-8, min(check.delta, check.audit_delta) / 10), 1.0)
    ax.set_xlabel("ε")
    ax.set_ylabel("δ(ε)")
    mismatch = ", sampler mismatch" if check.sampler_mismatch else ""
    ax.set_title(
        f"σ={check.noise_multiplier:g}, q={check.sampling_rate:.3g}, T={check.steps}, {check.sampling}: "
        f"{check.verdict}{mismatch}"
    )
    legend_below(ax, ncols=2)
    return fig
