"""Purification of a user's (ε, δ)-DP output into pure DP (Lin, Wang, Ma, Wang, NeurIPS 2025, Algorithms 1 and 2).

:func:`purify_continuous` projects the output onto the declared domain (post-processing, so the (ε, δ) guarantee is
kept), then runs Algorithm 1 (:func:`dplab.mechanisms.purification.purify`); :func:`purify_integer` runs
Algorithm 2 (:func:`dplab.mechanisms.purification.purify_discrete`).  Both return a :class:`PureRelease` carrying
the released value and its pure guarantee (Theorem 1: ε + ε′; Theorem 2: 2ε).
"""

from __future__ import annotations

import math
from dataclasses import dataclass

import numpy as np
from numpy.typing import ArrayLike

from dplab.checks import require
from dplab.mechanisms.purification import LqBall, purify, purify_discrete
from dplab.theory.purification import (
    purification_laplace_scale,
    purification_shift,
    purified_epsilon,
)

__all__ = ["PureRelease", "project_onto_ball", "purify_continuous", "purify_integer"]


@dataclass(frozen=True)
class PureRelease:
    """A released value with its pure-DP certificate (``epsilon``, 0)."""

    value: np.ndarray
    epsilon: float
    delta: float = 0.0


def project_onto_ball(x: ArrayLike, domain: LqBall) -> np.ndarray:
    """Radial retraction of each row of ``x`` onto Θ = centre + 𝔹_q(R): rows outside are scaled towards the centre
    onto the sphere, rows inside are unchanged.  For q = 2 this is the Euclidean projection; for any q it is a
    post-processing map into Θ, which is all Algorithm 1 needs (Assumption 1)."""
    points = np.atleast_2d(np.asarray(x, dtype=float))
    require(points.shape[-1] == domain.d, "x", points.shape, f"rows of length d={domain.d}")
    offset = points - np.asarray(domain.center)
    norms = np.linalg.norm(offset, ord=domain.q, axis=1)
    factor = np.minimum(1.0, domain.radius / np.where(norms > 0, norms, 1.0))
    projected = np.asarray(domain.center) + offset * factor[:, None]
    return projected.reshape(np.shape(x))


def _log_probability(value: float, name: str) -> float:
    require(0 < value < 1, name, value, f"0 < {name} < 1")
    return math.log(value)


def purify_continuous(
    output: ArrayLike,
    *,
    epsilon: float,
    delta: float,
    epsilon_prime: float,
    omega: float,
    center: ArrayLike,
    diameter: float,
    q: float = 2.0,
    rng: np.random.Generator | int | None = None,
) -> PureRelease:
    """Algorithm 1 on an (``epsilon``, ``delta``)-DP ``output`` (a vector, or rows of vectors) after projection onto
    the ℓ_q ball of ``diameter`` around ``center``; the release is (ε + ε′, 0)-DP (Theorem 1), ε + ε′ computed as
    ε + 2Δ/b with Δ, b of Algorithm 1 lines 1 and 3."""
    require(0 <= epsilon < math.inf, "epsilon", epsilon, "0 <= epsilon < inf")
    log_delta, log_omega = _log_probability(delta, "delta"), _log_probability(omega, "omega")
    domain = LqBall(center=tuple(np.atleast_1d(np.asarray(center, dtype=float))), diameter=diameter, q=q)
    value = purify(
        project_onto_ball(output, domain), domain, epsilon_prime, log_delta, log_omega, np.random.default_rng(rng)
    )
    shift = purification_shift(domain.d, domain.q, domain.diameter, log_delta, log_omega)
    return PureRelease(value, purified_epsilon(epsilon, shift, purification_laplace_scale(shift, epsilon_prime)))


def purify_integer(
    output: ArrayLike, *, epsilon: float, delta: float, n_bits: int, rng: np.random.Generator | int | None = None
) -> PureRelease:
    """Algorithm 2 on an (``epsilon``, ``delta``)-DP integer ``output`` in {0, ..., 2^n_bits − 1} (values outside are
    clipped into the range first, a post-processing); the release is (2ε, 0)-DP (Theorem 2)."""
    require(0 < epsilon < math.inf, "epsilon", epsilon, "0 < epsilon < inf")
    require(int(n_bits) == n_bits and 1 <= n_bits <= 62, "n_bits", n_bits, "an integer in [1, 62]")
    clipped = np.clip(np.asarray(output, dtype=np.int64), 0, 2 ** int(n_bits) - 1)
    value = purify_discrete(clipped, int(n_bits), epsilon, _log_probability(delta, "delta"), np.random.default_rng(rng))
    return PureRelease(value, 2.0 * epsilon)
