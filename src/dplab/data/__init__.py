"""Synthetic dataset generators (deterministic from a seed)."""

from __future__ import annotations

from dplab.data.synthetic import FEATURE_DISTRIBUTIONS, logistic_regression_dataset

__all__ = ["FEATURE_DISTRIBUTIONS", "logistic_regression_dataset"]
