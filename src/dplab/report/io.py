"""Atomic writing, and the records that let a reader check a product.

Every output is written to a temporary name beside its target, then renamed. A job that fails half-way therefore
never leaves a partial file under an output's name. A job killed hard (SIGKILL) cannot remove its temporary file; the
next write of the same target removes it (the temporary names follow one pattern, ``.<name>.<random>.tmp<suffix>``).
Files get the permissions the umask allows (``0644`` under umask ``022``), as ``open`` would give them, not the
``0600`` of :func:`tempfile.mkstemp`.

A *product* is a file that one job writes and another reads. Once it is in place, its writer adds a *record*
(:func:`write_record`, a small JSON file written atomically after the product): its size and SHA-256, and for a CSV
its columns and number of data rows, for an ``.npz`` its arrays' dtypes and shapes. A reader compares the product
with its record (:func:`check_product`), so a file cut by a line, truncated or overwritten is refused before it is
used, whatever its modification time. A product without a record (written before
records existed, or a committed ``results/`` file in a fresh clone) gets the checks its format allows: a CSV ends
with a newline and every row has the header's number of fields, an ``.npz`` opens and every member passes its CRC,
a pickle ends with its STOP opcode. A record is never a claim about an unfinished product: the product is complete
when it is renamed into place, and the record is written after that.
"""

from __future__ import annotations

import contextlib
import csv
import hashlib
import io
import json
import os
import subprocess
import tempfile
import zipfile
import zlib
from collections.abc import Iterator, Mapping
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:  # numpy and pandas are imported by the functions that use them: a job that only checks its
    import numpy as np  # inputs does not pay for them
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
    "ProductError",
    "describe_product",
    "write_record",
    "ProductCheck",
    "is_git_version",
    "check_product",
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
    import pandas as pd

    text = frame.to_csv(index=False, float_format=CSV_FLOAT_FORMAT, lineterminator="\n")
    return pd.read_csv(io.StringIO(text))


def write_text(text: str, path: str | os.PathLike[str]) -> None:
    """Write ``text`` atomically (UTF-8)."""
    with atomic_path(path) as temporary:
        temporary.write_text(text, encoding="utf-8")


def save_arrays(arrays: Mapping[str, np.ndarray], path: str | os.PathLike[str]) -> None:
    """Write ``arrays`` to an ``.npz`` file atomically (temporary name, then rename)."""
    import numpy as np

    with atomic_path(path) as temporary:
        with open(temporary, "wb") as handle:
            np.savez(handle, **arrays)


def load_arrays(path: str | os.PathLike[str]) -> dict[str, np.ndarray]:
    """Every array of an ``.npz`` file, by name (read into memory, the file closed)."""
    import numpy as np

    with np.load(path) as data:
        return {key: data[key] for key in data.files}


# Products and their records (module docstring).


class ProductError(RuntimeError):
    """A product is damaged or incomplete; the message names the file, what is wrong with it and how to rebuild it."""


def _sha256(data: bytes) -> str:
    return hashlib.sha256(data).hexdigest()


def _csv_rows(data: bytes) -> tuple[list[str], list[int]]:
    """The header of a CSV and the field count of each data row (quoted fields may hold commas and newlines)."""
    reader = csv.reader(io.StringIO(data.decode("utf-8"), newline=""))
    header = next(reader, [])
    return header, [len(row) for row in reader]


def _npz_arrays(path: Path) -> dict[str, list[Any]]:
    """{name: [dtype, shape]} of every array of an ``.npz`` file."""
    return {name: [array.dtype.str, list(array.shape)] for name, array in load_arrays(path).items()}


def describe_product(path: str | os.PathLike[str]) -> dict[str, Any]:
    """What a record holds about the file at ``path``: ``bytes``, ``sha256``, and for a CSV its ``columns`` and
    number of data ``rows``, for an ``.npz`` its ``arrays`` ({name: [dtype, shape]}). Not its modification time:
    Snakemake touches a job's outputs after the job, and damage may keep the time."""
    path = Path(path)
    data = path.read_bytes()
    record: dict[str, Any] = {"bytes": len(data), "sha256": _sha256(data)}
    if path.suffix == ".csv":
        header, rows = _csv_rows(data)
        record |= {"columns": header, "rows": len(rows)}
    elif path.suffix == ".npz":
        record["arrays"] = _npz_arrays(path)
    return record


def write_record(path: str | os.PathLike[str], record_path: str | os.PathLike[str], **about: Any) -> dict[str, Any]:
    """Write the record of the complete product at ``path`` (:func:`describe_product`, with ``about``, e.g. the rule
    that wrote it) to ``record_path`` as JSON, atomically; returns it. Call it once the product is in place."""
    record = {"product": str(path), **about, **describe_product(path)}
    write_text(json.dumps(record, indent=1, sort_keys=True) + "\n", record_path)
    return record


def _format_problem(path: Path, data: bytes) -> str | None:
    """What the format of a product without a usable record shows to be wrong with it (None if nothing)."""
    if path.suffix == ".csv":
        if not data.endswith(b"\n"):
            return "its last line is cut (the file does not end with a newline)"
        try:
            header, rows = _csv_rows(data)
        except (UnicodeDecodeError, csv.Error) as error:
            return f"it is not a readable CSV ({type(error).__name__}: {error})"
        if not header:
            return "it has no header line"
        short = next((i for i, fields in enumerate(rows) if fields != len(header)), None)
        if short is not None:
            return f"data row {short + 1} has {rows[short]} fields, the header {len(header)}"
    elif path.suffix == ".npz":
        try:
            with zipfile.ZipFile(path) as archive:
                bad = archive.testzip()
        except (zipfile.BadZipFile, EOFError, OSError, zlib.error) as error:
            return f"it is not a readable .npz archive ({type(error).__name__}: {error})"
        if bad is not None:
            return f"its member {bad} fails its CRC check"
    elif path.suffix == ".pkl" and not (data.startswith(b"\x80") and data.endswith(b".")):
        return "it is not a complete pickle (it must start with the PROTO opcode and end with STOP)"
    return None


def _differences(path: Path, record: Mapping[str, Any]) -> str:
    """How the product at ``path`` differs from its ``record``, in the terms a reader checks."""
    try:
        now = describe_product(path)
    except (ValueError, OSError, EOFError, csv.Error, zipfile.BadZipFile, zlib.error) as error:
        size = path.stat().st_size
        sizes = f"; bytes {size} where its record says {record['bytes']}" if size != record["bytes"] else ""
        return f"it cannot be read ({type(error).__name__}: {error}){sizes}"
    shown = [key for key in ("rows", "columns", "arrays") if key in record and now.get(key) != record[key]]
    shown.append("bytes" if now["bytes"] != record["bytes"] else "sha256")
    return ", ".join(f"{key} {now.get(key)!r} where its record says {record[key]!r}" for key in shown)


@dataclass(frozen=True)
class ProductCheck:
    """The outcome of :func:`check_product`: ``problem`` (None if the product can be used), the ``record`` held
    against it (None when there is none or it was set aside) and what was ``checked``, in words for a log."""

    problem: str | None
    record: Mapping[str, Any] | None
    checked: str


def is_git_version(path: str | os.PathLike[str]) -> bool:
    """Whether the file at ``path`` holds exactly the content that git's index of its repository holds for it (a
    checked-out or staged file): its git blob hash (SHA-1, or SHA-256 in a repository of that object format)
    compared with ``git ls-files --stage``. False outside a repository, for an untracked file, or without git."""
    path = Path(path).absolute()
    try:
        listed = subprocess.run(
            ["git", "-C", str(path.parent), "ls-files", "--stage", "--", path.name],
            capture_output=True,
            text=True,
            timeout=60,
        )
    except (OSError, subprocess.SubprocessError):
        return False
    fields = listed.stdout.split()
    if listed.returncode != 0 or len(fields) < 2:
        return False
    data = path.read_bytes()
    blob = hashlib.new("sha1" if len(fields[1]) == 40 else "sha256", b"blob %d\0" % len(data) + data)
    return blob.hexdigest() == fields[1]


def check_product(
    path: str | os.PathLike[str], record_path: str | os.PathLike[str] | None, *, versioned: bool = False
) -> ProductCheck:
    """Check the product at ``path`` against its record at ``record_path`` (if there is one), or its format.

    With a record, the product must have the recorded size and SHA-256. ``versioned`` marks a file that git may
    replace after its record was written (a committed ``results/`` file after a ``git pull``): when it differs from
    its record but holds the version git has for it (:func:`is_git_version`), the record describes another run and
    is set aside. Without a usable record the product gets the checks of its format (module docstring).
    """
    path = Path(path)
    if not path.is_file():
        return ProductCheck(f"{path} does not exist or is not a file", None, "existence")
    record = None
    if record_path is not None and Path(record_path).is_file():
        try:
            record = json.loads(Path(record_path).read_text(encoding="utf-8"))
        except (UnicodeDecodeError, json.JSONDecodeError) as error:
            return ProductCheck(f"its record {record_path} is unreadable ({type(error).__name__}: {error})", None, "")
        if not isinstance(record, dict) or not {"bytes", "sha256"} <= record.keys():
            return ProductCheck(f"its record {record_path} is unreadable (no bytes and sha256)", None, "")
    data = path.read_bytes()
    if record is not None:
        if len(data) == record["bytes"] and _sha256(data) == record["sha256"]:
            return ProductCheck(None, record, f"size and SHA-256 against its record {record_path}")
        if not (versioned and is_git_version(path)):
            return ProductCheck(f"it is not what its writer recorded: {_differences(path, record)}", record, "")
        why = f"it is the version git has for it, not the one its record {record_path} describes"
    else:
        why = "it has no record" + (f" {record_path}" if record_path is not None else "")
    return ProductCheck(_format_problem(path, data), None, f"its format only: {why}")
