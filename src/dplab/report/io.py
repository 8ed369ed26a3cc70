"""Atomic writing: every output is written to a temporary name beside its target, then renamed.

A job that fails half-way therefore never leaves a partial file under an output's name.
"""

from __future__ import annotations

import contextlib
import os
import tempfile
from collections.abc import Iterator
from pathlib import Path

import pandas as pd

__all__ = ["atomic_path", "write_csv", "write_text", "CSV_FLOAT_FORMAT"]

#: Floats in CSVs: 12 significant digits, so reruns give byte-identical files and no ``0.30000000000000004``.
CSV_FLOAT_FORMAT = "%.12g"


@contextlib.contextmanager
def atomic_path(path: str | os.PathLike[str]) -> Iterator[Path]:
    """Yield a temporary path in the target's folder; rename it to ``path`` only if the block succeeds."""
    target = Path(path)
    target.parent.mkdir(parents=True, exist_ok=True)
    handle, temporary = tempfile.mkstemp(prefix=f".{target.stem}.", suffix=target.suffix, dir=target.parent)
    os.close(handle)
    try:
        yield Path(temporary)
        os.replace(temporary, target)
    finally:
        if os.path.exists(temporary):
            os.remove(temporary)


def write_csv(frame: pd.DataFrame, path: str | os.PathLike[str]) -> None:
    """Write a tidy CSV (no index column, deterministic float format) atomically."""
    with atomic_path(path) as temporary:
        frame.to_csv(temporary, index=False, float_format=CSV_FLOAT_FORMAT, lineterminator="\n")


def write_text(text: str, path: str | os.PathLike[str]) -> None:
    """Write ``text`` atomically (UTF-8)."""
    with atomic_path(path) as temporary:
        temporary.write_text(text, encoding="utf-8")
