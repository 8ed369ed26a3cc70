"""Atomic writing: every output is written to a temporary name beside its target, then renamed.

A job that fails half-way therefore never leaves a partial file under an output's name. A job killed hard (SIGKILL)
cannot remove its temporary file; the next write of the same target removes it (the temporary names follow one
pattern, ``.<name>.<random>.tmp<suffix>``). Files get the permissions the umask allows (``0644`` under umask
``022``), as ``open`` would give them, not the ``0600`` of :func:`tempfile.mkstemp`.
"""

from __future__ import annotations

import contextlib
import io
import os
import tempfile
from collections.abc import Iterator, Mapping
from pathlib import Path

import numpy as np
import pandas as pd

__all__ = [
    "atomic_path",
    "write_csv",
    "as_written",
    "write_text",
    "CSV_FLOAT_FORMAT",
    "stale_temporaries",
    "save_arrays",
    "load_arrays",
]

#: Floats in CSVs: 12 significant digits, so reruns give byte-identical files and no ``0.30000000000000004``.
CSV_FLOAT_FORMAT = "%.12g"


def _umask() -> int:
    mask = os.umask(0o022)
    os.umask(mask)
    return mask


def stale_temporaries(path: str | os.PathLike[str]) -> list[Path]:
    """Temporary files that an interrupted write of ``path`` left beside it (see the module docstring)."""
    target = Path(path)
    return sorted(target.parent.glob(f".{_glob_escape(target.name)}.*.tmp{_glob_escape(target.suffix)}"))


def _glob_escape(text: str) -> str:
    """``text`` with the glob metacharacters ``*?[`` made literal."""
    return "".join(f"[{c}]" if c in "*?[" else c for c in text)


@contextlib.contextmanager
def atomic_path(path: str | os.PathLike[str]) -> Iterator[Path]:
    """Yield a temporary path in the target's folder; rename it to ``path`` only if the block succeeds.

    Temporaries left by an earlier, killed write of the same target are removed first.
    """
    target = Path(path)
    target.parent.mkdir(parents=True, exist_ok=True)
    for stale in stale_temporaries(target):
        stale.unlink(missing_ok=True)
    handle, temporary = tempfile.mkstemp(prefix=f".{target.name}.", suffix=f".tmp{target.suffix}", dir=target.parent)
    os.close(handle)
    os.chmod(temporary, 0o666 & ~_umask())
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


def as_written(frame: pd.DataFrame) -> pd.DataFrame:
    """``frame`` as :func:`write_csv` stores it and ``pandas.read_csv`` reads it back (floats at
    :data:`CSV_FLOAT_FORMAT` precision): what a job computes from an intermediate CSV of another job."""
    text = frame.to_csv(index=False, float_format=CSV_FLOAT_FORMAT, lineterminator="\n")
    return pd.read_csv(io.StringIO(text))


def write_text(text: str, path: str | os.PathLike[str]) -> None:
    """Write ``text`` atomically (UTF-8)."""
    with atomic_path(path) as temporary:
        temporary.write_text(text, encoding="utf-8")


def save_arrays(arrays: Mapping[str, np.ndarray], path: str | os.PathLike[str]) -> None:
    """Write ``arrays`` to an ``.npz`` file atomically (temporary name, then rename)."""
    with atomic_path(path) as temporary:
        with open(temporary, "wb") as handle:
            np.savez(handle, **arrays)


def load_arrays(path: str | os.PathLike[str]) -> dict[str, np.ndarray]:
    """Every array of an ``.npz`` file, by name (read into memory, the file closed)."""
    with np.load(path) as data:
        return {key: data[key] for key in data.files}
