"""Auditing 1-D projected noisy gradient descent (PNSGD) against the bounds of Asoodeh, Diaz, Calmon, *Privacy
Amplification of Iterative Algorithms via Contraction Coefficients* (Theorems 3-5, Proposition 1): our audit design,
the paper has none.

- :func:`simulated_pnsgd_bin_counts`: exact continuous PNSGD outputs on the audit's linear loss (the torch
  noisy-gradient engine's runs, bit for bit, in a loop that skips its loss-generic work), counted in the bins of a
  :class:`~dplab.audit.grid.UniformGrid`;
- :func:`grid_event_lower_bound`: the Clopper-Pearson lower bound max(0, P_lo − e^ε Q_hi) ≤ E_{e^ε}(P‖Q) (eq. (7))
  on the events A_ε = {k : p_k > e^ε q_k} of the grid laws, fixed before the counted samples were drawn;
- :func:`first_of_largest` / :func:`worst_instances`: the worst neighbouring instance, with ties among mirror-image
  instances (equal up to rounding) broken by name, so the choice does not depend on the machine;
- :func:`bound_violations`: the rows where a measured δ exceeds a theorem's bound (a bug or a finding).
"""

from __future__ import annotations

from collections.abc import Iterable

import numpy as np
import pandas as pd
import torch

from dplab.audit.grid import UniformGrid, bin_index
from dplab.audit.montecarlo import HockeyStickLowerBound, event_from_laws, hockey_stick_lower_bound_from_counts
from dplab.checks import (
    as_finite_array,
    as_integer_array,
    as_non_negative_array,
    choice,
    finite,
    positive_finite,
    size_that_fits,
    whole_number,
)
from dplab.learning.engine import noise_steps
from dplab.learning.projections import Interval

__all__ = [
    "BOUND_TOLERANCE",
    "TIE_RTOL",
    "AuditViolation",
    "simulated_pnsgd_bin_counts",
    "grid_event_lower_bound",
    "first_of_largest",
    "worst_instances",
    "bound_violations",
]

#: Numerical slack allowed when comparing an exact (grid) value with a closed-form bound.
BOUND_TOLERANCE = 1e-9
#: Grid deltas this close to the largest are ties (mirror-image instances, equal up to rounding).
TIE_RTOL = 1e-9


class AuditViolation(RuntimeError):
    """A measured privacy loss exceeds a theorem's upper bound."""


def simulated_pnsgd_bin_counts(
    grid: UniformGrid,
    y0: float,
    data: np.ndarray,
    *,
    lr: float,
    noise: str,
    scale: float,
    interval: tuple[float, float],
    L: float,
    samples: int,
    chunk: int,
    generator: torch.Generator,
) -> np.ndarray:
    """Bin counts of ``samples`` exact PNSGD outputs on ``data`` (one pass, batch 1, no clipping, projection onto
    ``interval`` = [a, b], the linear loss ⟨x, w⟩ + L·max(|a|, |b|) of :class:`~dplab.learning.losses.LinearLoss`,
    start ``y0``), simulated in chunks of at most ``chunk`` runs.

    The linear loss's gradient is the record itself, so a step is Y_t = Π_[a,b](Y_{t−1} − lr·(x_t + Z_t)): the loop
    runs just that, in place, on the noise of :func:`~dplab.learning.engine.noise_steps`; its outputs are those of
    :func:`~dplab.learning.engine.run_noisy_gradient` on this configuration bit for bit (tested), without the
    engine's loss-generic work (per-sample norms and a weighted sum that here only reproduce x_t)."""
    y0, data = finite("y0", y0), as_finite_array(data, "data")
    lr, scale, L = positive_finite("lr", lr), positive_finite("scale", scale), positive_finite("L", L)
    samples = whole_number("samples", samples)
    chunk = size_that_fits("chunk", chunk, 64, "the iterates, noise and bin indices per run of a chunk")
    choice("noise", noise, ("gaussian", "laplace"))
    projection = Interval(*interval)
    a, b = float(projection.a), float(projection.b)
    records = [float(x) for x in np.asarray(data, dtype=np.float64)]
    counts = np.zeros(grid.size, dtype=np.int64)
    remaining = samples
    while remaining > 0:
        runs = min(chunk, remaining)
        w = torch.full((runs, 1), y0, dtype=torch.float64)
        for x, z in zip(records, noise_steps(noise, scale, (runs, 1), len(records), generator)):
            w.sub_(z.add_(x).mul_(lr)).clamp_(min=a, max=b)
        counts += np.bincount(bin_index(w[:, 0].numpy(), grid), minlength=grid.size)
        remaining -= runs
    return counts


def grid_event_lower_bound(
    p: np.ndarray,
    q: np.ndarray,
    counts_p: np.ndarray,
    counts_q: np.ndarray,
    samples: int,
    epsilon: np.ndarray,
    alpha: float,
) -> HockeyStickLowerBound:
    """(1 − α)-confidence lower bounds on E_{e^ε}(P‖Q) at every ε: the events A_ε = {k : p_k > e^ε q_k} of the grid
    laws p, q (eq. (7) of Asoodeh et al.), the bin counts of ``samples`` draws from each side counted in them."""
    p, q = as_non_negative_array(p, "p"), as_non_negative_array(q, "q")
    counts_p, counts_q = as_integer_array(counts_p, "counts_p", 0), as_integer_array(counts_q, "counts_q", 0)
    samples = whole_number("samples", samples)
    events = event_from_laws(p, q, epsilon).astype(np.int64)  # (n_epsilon, bins), fixed before sampling
    return hockey_stick_lower_bound_from_counts(
        events @ counts_p, samples, events @ counts_q, samples, epsilon=epsilon, alpha=alpha
    )


def first_of_largest(frame: pd.DataFrame, by: list[str]) -> pd.DataFrame:
    """Per group of ``by``, the row with the largest ``delta_grid``; among the rows within TIE_RTOL of it, the first
    by ``instance`` name, so that mirror-image instances (``A`` and ``A_swapped``), whose deltas are equal up to
    rounding, give the same row on every machine."""
    largest = frame.groupby(by)["delta_grid"].transform("max")
    ties = frame[frame["delta_grid"] >= largest * (1.0 - TIE_RTOL)]
    return ties.sort_values([*by, "instance"]).groupby(by, sort=True).head(1)


def worst_instances(grid_frame: pd.DataFrame) -> dict[int, str]:
    """For each position ``i``, the instance with the largest grid delta summed over the epsilon sweep.

    The Monte-Carlo audit simulates this instance only (one simulation serves every epsilon).
    """
    totals = grid_frame.groupby(["i", "instance"], sort=True)["delta_grid"].sum().reset_index()
    best = first_of_largest(totals, ["i"])
    return dict(zip(best["i"].astype(int), best["instance"], strict=True))


def bound_violations(frame: pd.DataFrame, measured: Iterable[str], bounds: Iterable[str]) -> pd.DataFrame:
    """Rows where a measured column exceeds a bound column (beyond :data:`BOUND_TOLERANCE`).

    Returns a long frame ``measured, bound, excess`` plus the identifying columns; empty when every bound holds.
    """
    rows = []
    for m in measured:
        for b in bounds:
            excess = frame[m] - frame[b]
            bad = frame[excess > BOUND_TOLERANCE].assign(measured=m, bound=b, excess=excess[excess > BOUND_TOLERANCE])
            rows.append(bad)
    return pd.concat(rows, ignore_index=True)
