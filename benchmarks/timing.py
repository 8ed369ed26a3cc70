"""Side-by-side timing: medians and inter-quartile ranges over interleaved repeats, warm-up excluded."""

from __future__ import annotations

import time
from collections.abc import Callable, Mapping
from dataclasses import dataclass

import numpy as np

__all__ = ["Timing", "time_side_by_side"]


@dataclass(frozen=True)
class Timing:
    """Seconds per unit of work (per step, per call, …) of one implementation over ``repeats`` measurements."""

    seconds: tuple[float, ...]

    @property
    def median(self) -> float:
        return float(np.median(self.seconds))

    @property
    def iqr(self) -> float:
        q1, q3 = np.percentile(self.seconds, [25, 75])
        return float(q3 - q1)

    @property
    def repeats(self) -> int:
        return len(self.seconds)


def time_side_by_side(
    functions: Mapping[str, Callable[[], object]], *, repeats: int, units: int = 1, warmup: int = 1
) -> dict[str, Timing]:
    """Time every function ``warmup + repeats`` times, alternating between them within each repeat.

    Each call is divided by ``units`` (e.g. the number of steps it performs). The first ``warmup`` rounds are
    discarded (they include lazy initialisation, allocator growth and caches).
    """
    if repeats < 1 or units < 1 or warmup < 0:
        raise ValueError(f"repeats={repeats}, units={units} must be >= 1 and warmup={warmup} >= 0")
    samples: dict[str, list[float]] = {name: [] for name in functions}
    for round_ in range(warmup + repeats):
        for name, function in functions.items():
            start = time.perf_counter()
            function()
            elapsed = time.perf_counter() - start
            if round_ >= warmup:
                samples[name].append(elapsed / units)
    return {name: Timing(tuple(values)) for name, values in samples.items()}
