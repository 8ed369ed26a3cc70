"""Shared by the purification tests: artifacts pass through CSV, as the workflow writes and reads them."""

from __future__ import annotations

import io
from collections.abc import Callable

import pandas as pd
import pytest


def _through_csv(frame: pd.DataFrame) -> pd.DataFrame:
    """``frame`` written as CSV (no index) and read back."""
    buffer = io.StringIO()
    frame.to_csv(buffer, index=False)
    buffer.seek(0)
    return pd.read_csv(buffer)


@pytest.fixture(scope="session")
def csv_roundtrip() -> Callable[[pd.DataFrame], pd.DataFrame]:
    return _through_csv
