"""What the purification study's claims modules share: where an artifact lands, and the log-log rate fit."""

from __future__ import annotations

import numpy as np

from dplab.studies.purification.sections import NAME

__all__ = ["artifact_path", "loglog_slope"]


def artifact_path(artifact: str, kind: str = "figures") -> str:
    """Path of an artifact under ``results/``: ``purification/figures/<id>.png`` or ``purification/tables/<id>.csv``."""
    return f"{NAME}/{kind}/{artifact}.{'png' if kind == 'figures' else 'csv'}"


def loglog_slope(x: np.ndarray, y: np.ndarray) -> float:
    """Least-squares slope of log y against log x over the points with x, y > 0 finite (nan with fewer than 2
    distinct x)."""
    x, y = np.asarray(x, float), np.asarray(y, float)
    keep = (x > 0) & (y > 0) & np.isfinite(x) & np.isfinite(y)
    if len(np.unique(x[keep])) < 2:
        return float("nan")
    return float(np.polyfit(np.log(x[keep]), np.log(y[keep]), 1)[0])
