"""Shared test helper: an independent, plain-numpy simulator of 1-D projected noisy SGD."""

from __future__ import annotations

from collections.abc import Callable

import numpy as np
import pytest


def _simulate_pnsgd(
    rng: np.random.Generator,
    *,
    y0: float,
    data: np.ndarray,
    lr: float,
    scale: float,
    noise: str,
    a: float,
    b: float,
    m: int,
    random_stop: bool = False,
) -> np.ndarray:
    """m independent final iterates of Y_{t+1} = clip(Y_t − lr·x_{t+1} + lr·scale·Z, a, b), Y_0 = y0.

    With random_stop, each run returns Y_T for its own T ~ Unif{1..n}.
    """
    draw = {"gaussian": rng.standard_normal, "laplace": lambda size: rng.laplace(0.0, 1.0, size)}[noise]
    y = np.full(m, float(y0))
    stop = rng.integers(1, len(data) + 1, size=m) if random_stop else np.full(m, len(data))
    out = np.empty(m)
    for t, x in enumerate(data, start=1):
        y = np.clip(y - lr * x + lr * scale * draw(m), a, b)
        out = np.where(stop == t, y, out)
    return out


@pytest.fixture
def simulate_pnsgd() -> Callable[..., np.ndarray]:
    return _simulate_pnsgd
