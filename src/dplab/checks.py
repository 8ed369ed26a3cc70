"""Argument checks shared by the library: a bad value raises ValueError naming the argument, the value and what
is allowed, before any work starts."""

from __future__ import annotations

import math

__all__ = ["positive_finite"]


def positive_finite(name: str, value: float) -> float:
    """``value`` as a float after checking 0 < value < ∞."""
    number = float(value)
    if not (math.isfinite(number) and number > 0):
        raise ValueError(f"{name}={value!r} is invalid; allowed: a finite number > 0")
    return number
