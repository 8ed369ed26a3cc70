"""The generalization study's claim book (:class:`dplab.report.claims.ClaimBook`: every claim of He, Wang, Tao declared
once, by a decorator on its measure function in a ``claims_*`` module) and the helpers those modules share."""

from __future__ import annotations

import functools
from collections.abc import Mapping
from typing import Any

import numpy as np
import pandas as pd
from scipy import stats

from dplab.accounting.hockey_stick import gaussian_hockey_stick
from dplab.report.claims import ClaimBook
from dplab.studies.generalization import STUDY
from dplab.theory.generalization import sgld_linear_loss_delta

CLAIMS = ClaimBook(STUDY)
#: What a measure function reads: the study's frames by artifact id, and the study's configuration section.
Frames, Config = Mapping[str, pd.DataFrame], Mapping[str, Any]
#: How a ``source`` names the paper.
PAPER = "He, Wang, Tao (arXiv:2007.09371)"


def optional(template: str, values: Any) -> str:
    """``template`` filled with ``values`` (a tuple, or a mapping for named fields), or "" when a measure found no
    such values (None or empty)."""
    return "" if not values else template.format(**values) if isinstance(values, Mapping) else template.format(*values)


def as_bool(series: pd.Series) -> pd.Series:
    """A boolean column as written to CSV (True/False, 1/0) back to booleans."""
    return series.astype(str).str.lower().isin(["true", "1", "1.0"])


def standard_error(low: pd.Series, high: pd.Series, count: pd.Series, confidence: float) -> pd.Series:
    """The standard error behind a Student-t interval mean +- t_{(1+c)/2, k-1} s/sqrt(k) over k observations (the
    intervals of F8), so that Monte-Carlo comparisons use :func:`dplab.report.claims.clearly_less`'s margin."""
    return (high - low) / (2.0 * stats.t.ppf(0.5 + confidence / 2.0, count - 1))


def one_step_delta(eps: np.ndarray, q: np.ndarray, mu: np.ndarray) -> np.ndarray:
    """Exact delta(eps) of one step of the linear-loss pair, P = (1-q) N(0,1) + q N(mu,1) against Q = N(0,1), in both
    orders (a lower bound on the delta of T steps, whose trajectory contains the first step):
    delta_{P||Q} = q theta_{g}(mu) with g = 1 + (e^eps - 1)/q, and delta_{Q||P} = (1 - e^eps (1-q)) theta_{g'}(mu)
    with g' = e^eps q/(1 - e^eps (1-q)) while e^eps (1-q) < 1 (0 otherwise); theta is the Gaussian hockey-stick
    divergence (eq. (10) of Asoodeh et al., dplab.accounting.hockey_stick)."""
    eps, q, mu = np.broadcast_arrays(*(np.asarray(x, float) for x in (eps, q, mu)))
    forward = q * gaussian_hockey_stick(np.log1p(np.expm1(eps) / q), mu)
    rest = -np.expm1(eps + np.log1p(-q))  # 1 - e^eps (1-q): the backward order is 0 unless it is positive
    log_gamma = eps + np.log(q) - np.log(np.where(rest > 0, rest, np.exp(eps) * q))  # log g' where open, else 0
    return np.maximum(forward, np.where(rest > 0, rest * gaussian_hockey_stick(log_gamma, mu), 0.0))


@functools.cache
def exact_linear_delta(eps: float, *, N: float, tau: float, L: float, sigma: float, steps: int) -> float:
    """Exact delta(eps) of T steps of the linear-loss pair: :func:`one_step_delta` at T = 1, sgld_linear_loss_delta
    (dp_accounting's PLD) beyond; memoised (several claims and their flip tests evaluate the same few points)."""
    if steps == 1:
        return float(one_step_delta(eps, tau / N, 2 * L / (tau * sigma)))
    return sgld_linear_loss_delta(eps, N=N, tau=tau, L=L, sigma=sigma, steps=steps)
