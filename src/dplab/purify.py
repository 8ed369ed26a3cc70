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

from dplab.checks import (
    as_finite_array,
    as_integer_array,
    fits_in_memory,
    non_negative_finite,
    positive_finite,
    probability,
    require,
    whole_number,
)
from dplab.mechanisms.purification import LqBall, purify, purify_discrete
from dplab.theory.purification import (
    purification_laplace_scale,
    purification_shift,
    purified_epsilon,
)

__all__ = ["PureRelease", "project_onto_ball", "purify_continuous", "purify_integer"]

#: Bytes per coordinate of the domain: its centre as a tuple of Python floats (8-byte pointer + 24-byte float) and as
#: a float64 array.
_DOMAIN_BYTES = 32 + 8
#: float64 copies of the output held at once: the projected copy, the offset, the Laplace noise and the release.
_OUTPUT_COPIES = 4
#: int64 values per integer output in Algorithm 2: the value, its n_bits bits, the mixed uniforms and the noisy bits.
_BITS_COPIES = 3


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
    points = np.atleast_2d(as_finite_array(x, "x"))
    require(points.shape[-1] == domain.d, "x", points.shape, f"rows of length d={domain.d}")
    offset = points - np.asarray(domain.center)
    norms = np.linalg.norm(offset, ord=domain.q, axis=1)
    factor = np.minimum(1.0, domain.radius / np.where(norms > 0, norms, 1.0))
    projected = np.asarray(domain.center) + offset * factor[:, None]
    return projected.reshape(np.shape(x))


def _check_continuous_sizes(output: ArrayLike, center: ArrayLike) -> tuple[int, int]:
    """(rows, d) of ``output`` against the centre's d, refused before anything of size d is built when they disagree
    or when the domain and the output copies cannot fit in memory."""
    d, shape = int(np.size(center)), np.shape(output)
    require(np.ndim(center) <= 1 and d >= 1, "center", np.shape(center), "a vector with at least one coordinate")
    if len(shape) > 2 or (shape[-1] if shape else 1) != d:
        raise ValueError(f"output has shape {shape} and center has shape ({d},); allowed: a vector or rows of length d")
    rows = shape[0] if len(shape) == 2 else 1
    fits_in_memory(
        {"center (d)": d, "output rows": rows},
        _DOMAIN_BYTES * d + _OUTPUT_COPIES * 8 * rows * d,
        f"the domain of d={d} coordinates and {_OUTPUT_COPIES} float64 copies of the {rows} x {d} output",
    )
    return rows, d


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
    ε + 2Δ/b with Δ, b of Algorithm 1 lines 1 and 3.

    Checked before any work: ``output`` real and finite (a complex output is refused, never truncated to its real
    part) with rows of the centre's length; ``0 <= epsilon < inf``, ``0 < delta, omega < 1``, ``epsilon_prime`` and
    ``diameter`` finite and > 0; the domain and the output's copies must fit in memory."""
    _check_continuous_sizes(output, center)
    non_negative_finite("epsilon", epsilon)
    log_delta, log_omega = math.log(probability("delta", delta)), math.log(probability("omega", omega))
    positive_finite("epsilon_prime", epsilon_prime)
    values = as_finite_array(output, "output")
    domain = LqBall(
        center=tuple(np.atleast_1d(as_finite_array(center, "center"))),
        diameter=positive_finite("diameter", diameter),
        q=q,
    )
    value = purify(
        project_onto_ball(values, domain), domain, epsilon_prime, log_delta, log_omega, np.random.default_rng(rng)
    )
    shift = purification_shift(domain.d, domain.q, domain.diameter, log_delta, log_omega)
    return PureRelease(value, purified_epsilon(epsilon, shift, purification_laplace_scale(shift, epsilon_prime)))


def purify_integer(
    output: ArrayLike, *, epsilon: float, delta: float, n_bits: int, rng: np.random.Generator | int | None = None
) -> PureRelease:
    """Algorithm 2 on an (``epsilon``, ``delta``)-DP integer ``output`` in {0, ..., 2^n_bits − 1} (values outside are
    clipped into the range first, a post-processing); the release is (2ε, 0)-DP (Theorem 2).

    ``output`` must hold whole numbers (42.0 is accepted as 42; 42.5, NaN, booleans and complex values are refused,
    never rounded); ``0 < epsilon < inf``, ``0 < delta < 1``, ``n_bits`` a whole number in [1, 62]."""
    n_bits = whole_number("n_bits", n_bits, maximum=62)
    fits_in_memory(
        {"output (size)": int(np.size(output)), "n_bits": n_bits},
        _BITS_COPIES * 8 * int(np.size(output)) * (n_bits + 1),
        f"{_BITS_COPIES} int64 arrays of the output's {n_bits} bits",
    )
    values = as_integer_array(output, "output")
    positive_finite("epsilon", epsilon)
    log_delta = math.log(probability("delta", delta))
    clipped = np.clip(values, 0, 2**n_bits - 1)
    value = purify_discrete(clipped, n_bits, epsilon, log_delta, np.random.default_rng(rng))
    return PureRelease(value, 2.0 * epsilon)
