"""Compare a fresh results folder with the committed one: nothing may appear, vanish, flip or move beyond round-off.

Usage, from the repository's root::

    python -m dplab.verify --run                    # a fresh full run in a temporary folder, compared with results/
    python -m dplab.verify --run --cores 8 --keep fresh-run   # keep the fresh run's folders under fresh-run/ (new)
    python -m dplab.verify FRESH COMMITTED          # two existing results folders
    python -m dplab.verify FRESH COMMITTED --rtol 1e-6 --atol 1e-12 --allow-config-change

``--run`` runs the whole workflow (``snakemake --cores N --config results=<tmp>/results work=<tmp>/work``) with the
repository's ``config.yaml``, so nothing of the committed ``results/`` or ``work/`` is reused or touched, then compares.
Exit status: 0 when every rule below holds, 1 when one is broken (every difference is printed), 2 for a usage
error (a missing folder, a bad tolerance).

Files. Every file under the two folders is listed, except ``performance/`` (machine-dependent timings) and hidden
names (``.…``: temporaries of interrupted writes). A file present in only one folder fails, whatever its kind (CSV,
figure, markdown, JSON). CSVs are compared cell by cell; figures and markdown are checked for presence only (they
are drawn or rendered from the CSVs checked here). A file that cannot be read as UTF-8 CSV (0 bytes, an unterminated
quote, a NUL byte, a line with the wrong number of fields, duplicate column names, a folder where a file is expected,
no read permission) is a failure naming the file.

Tables (every CSV but ``claims.csv``). Same columns in the same order and the same number of rows, else it fails.
Cells are compared column by column, with a rule chosen by the column's cells and name (name tokens: the name split
at ``_``):

- whole numbers in both files (every cell written without a decimal point or exponent): exactly equal;
- numbers (NaN and an empty cell match each other, ``inf`` matches an ``inf`` of the same sign, nothing else matches
  NaN or infinity; ``0`` matches only ``0`` or ``-0``, so a sign or an exact zero is never lost):

  * log columns (a token ``log``, ``ln``, ``log2`` or ``log10``: log-probabilities and other log-space values):
    ``|fresh - committed| <= log_b(1 + rtol) + r * max|.|``, the log-space form of a relative change ``rtol`` of
    the quantity itself, whatever its size (``log10_delta = -300`` may move by 4.3e-7, i.e. delta by 1e-6 relative);
  * every other column: ``|fresh - committed| <= (rtol + r) * max(|fresh|, |committed|) + floor``, relative however
    small the value (a delta of 2.1e-17 may move by 2.1e-23, not to 2.1e-14);

  ``r`` = 1e-11 is the resolution of the CSVs (12 significant digits, ``dplab.report.io.CSV_FLOAT_FORMAT``): one unit
  in the last printed digit is round-off. ``floor`` is 0 except for *difference* columns: a token among
  ``residual error se sd sem std gap minus diff difference change margin excess``, values that are legitimately zero
  up to round-off by cancellation (a KKT residual, |closed form - quadrature|, a standard error of identical runs, a
  difference of two bounds). Their round-off is absolute, not relative, so
  ``floor = atol * max(1, largest |committed| of the column)``. A *probability* column (a token ``p``, ``q``,
  ``alpha``, ``beta``, ``omega``, ``rate``, ``coverage``, ``failure``, ``success`` or ``refusal``, or one starting
  with ``delta`` or ``prob``) never gets a floor, even if it also names a difference (``delta_gap``);
- other cells (text, booleans): equal as text.

Results trained in float32 (torch; the files of :data:`FLOAT32_ARTIFACTS`) are compared with ``rtol`` and ``atol`` at
least :data:`FLOAT32_RTOL` = 1e-4 and :data:`FLOAT32_ATOL` = 1e-6: across CPUs they move far beyond float64 round-off.

With the defaults rtol = 1e-6 and atol = 1e-12, a fresh run on another CPU passes and a change of 1e-5 relative
fails. Measured on the quick configuration, numpy's, torch's and OpenBLAS's AVX-512 kernels against their baseline
ones (``NPY_DISABLE_CPU_FEATURES``, ``ATEN_CPU_CAPABILITY=default``, ``OPENBLAS_CORETYPE``), in 57 CSVs: every
float64 number agreed within 5.4e-8 relative (an optimised Renyi order; all others within 7.6e-11), except KKT
residuals of ~1e-17 (relative change 1: round-off, under the floor); the float32 files moved by up to 7.2e-5
relative (a gap of 2e-4), 5.7e-8 absolute in difference columns and 4.9e-6 relative elsewhere.

Claims (``<study>/claims.csv``). Every column present in either file is compared (``claim_id, source, statement,
verdict, severity, kind, evidence, artifact``): a column, a claim id or a claim present in only one file fails, a
``claim_id`` that appears twice in a file fails, and so does any change of a claim's verdict, statement, source,
severity, kind or artifact. A changed evidence text is printed, not failing (its numbers are checked in the CSVs it
quotes; some are computed in the claims code, where round-off can break a tie: measured across CPUs, an evidence
named another argmax of equal ratios), in one of three categories: ``evidence reworded`` (the texts differ in more
than their numbers), ``evidence digits`` (each quoted number agrees within rtol and the printed precision: half a
unit of the last printed digit of each, so ``0.608 -> 0.609``) and ``evidence numbers moved`` (``0.608 -> 0.700``,
named in the note).

Provenance (``provenance.json``). Compared first, and warned about before any other output: a different
configuration (the recorded ``config`` without the keys ``results, work, threads, resources, shards, job_server``, which
choose where and how the workflow runs, not what it computes) fails unless ``--allow-config-change`` is given, and
the keys that differ are named; different package or Python versions are a warning only (the numbers decide).

Verification passes only when at least one CSV was compared: two empty folders fail. The summary gives, per study,
the number of files, cells and claims compared, and the number of differences (failing) and notes per category.
"""

from __future__ import annotations

import argparse
import csv
import io
import json
import math
import re
import subprocess
import sys
import tempfile
from collections import Counter
from collections.abc import Callable, Iterator, Mapping, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import numpy as np

from dplab.checks import not_boolean, whole_number
from dplab.report.io import CSV_FLOAT_FORMAT

__all__ = [
    "DEFAULT_RTOL",
    "DEFAULT_ATOL",
    "CSV_RESOLUTION",
    "EXECUTION_KEYS",
    "FLOAT32_ARTIFACTS",
    "FLOAT32_RTOL",
    "FLOAT32_ATOL",
    "Finding",
    "Tally",
    "Comparison",
    "column_rule",
    "evidence_numbers_moved",
    "compare_results",
    "fresh_run_command",
    "main",
]

DEFAULT_RTOL = 1e-6
DEFAULT_ATOL = 1e-12
#: One unit in the last significant digit that the results CSVs print, relative to the value (1e-11 for ``%.12g``).
CSV_RESOLUTION = 10.0 ** (1 - int(CSV_FLOAT_FORMAT.strip("%.g")))
#: Configuration keys that choose where and how the workflow runs, not what it computes (see the module docstring).
EXECUTION_KEYS = ("results", "work", "threads", "resources", "shards", "job_server")
#: Results computed in float32 (torch training; DESIGN.md allows it in training), compared with at least these
#: tolerances: measured across CPUs (module docstring), they move by up to 7.2e-5 relative and 5.7e-8 absolute.
FLOAT32_ARTIFACTS = ("generalization/data/f8.csv", "generalization/tables/t4.csv")
FLOAT32_RTOL = 1e-4
FLOAT32_ATOL = 1e-6
SKIPPED_FOLDERS = ("performance",)
CLAIMS = "claims.csv"
PROVENANCE = "provenance.json"

LOG_BASES = {"log": math.e, "ln": math.e, "log2": 2.0, "log10": 10.0}
PROBABILITY_TOKENS = frozenset(
    {"p", "q", "alpha", "beta", "omega", "rate", "coverage", "failure", "success", "refusal"}
)
PROBABILITY_PREFIXES = ("delta", "prob")
DIFFERENCE_TOKENS = frozenset(
    {"residual", "error", "se", "sd", "sem", "std", "gap", "minus", "diff", "difference", "change", "margin", "excess"}
)
LISTED_PER_COLUMN = 5
_WHOLE_NUMBER = re.compile(r"[-+]?\d+")
#: A number in running text: not part of a word (``G1``, ``fig2``) and not a fraction's tail.
_NUMBER_IN_TEXT = re.compile(r"(?<![\w.])[-+]?(?:\d+(?:\.\d*)?|\.\d+)(?:[eE][-+]?\d+)?(?!\w)")


# --------------------------------------------------------------------------------------------------------------------
# What a comparison found
# --------------------------------------------------------------------------------------------------------------------
@dataclass(frozen=True)
class Finding:
    """One difference: its ``category`` (for the summary), the ``message`` printed, and how many cells, claims or
    files it stands for (a line "N more cells moved" stands for N)."""

    category: str
    message: str
    count: int = 1

    def __str__(self) -> str:
        return self.message


@dataclass
class Tally:
    """What was compared in one study folder: CSV files, cells of the data and table CSVs, claims."""

    files: int = 0
    cells: int = 0
    claims: int = 0


@dataclass
class Comparison:
    """What moved between two results folders: ``failures`` break verification, ``notes`` are printed only,
    ``warnings`` (provenance) are printed first; ``studies`` tallies what was compared, per study folder."""

    failures: list[Finding] = field(default_factory=list)
    notes: list[Finding] = field(default_factory=list)
    warnings: list[str] = field(default_factory=list)
    studies: dict[str, Tally] = field(default_factory=dict)
    presence_only: int = 0
    float32_files: list[str] = field(default_factory=list)

    @property
    def ok(self) -> bool:
        return not self.failures

    def fail(self, category: str, message: str, count: int = 1) -> None:
        self.failures.append(Finding(category, message, count))

    def note(self, category: str, message: str) -> None:
        self.notes.append(Finding(category, message))

    def tally(self, relative: Path) -> Tally:
        study = relative.parts[0] if len(relative.parts) > 1 else "(top level)"
        return self.studies.setdefault(study, Tally())

    @property
    def files_compared(self) -> int:
        return sum(t.files for t in self.studies.values())

    def differences(self, findings: Sequence[Finding] | None = None) -> Counter[str]:
        """Number of differing cells, claims or files per category of ``findings`` (default: the failures)."""
        counts: Counter[str] = Counter()
        for finding in self.failures if findings is None else findings:
            counts[finding.category] += finding.count
        return counts


# --------------------------------------------------------------------------------------------------------------------
# Reading: every damaged file is a finding, never a traceback
# --------------------------------------------------------------------------------------------------------------------
@dataclass(frozen=True)
class CsvFile:
    """A CSV as text cells: the header and the rows (each as long as the header)."""

    columns: list[str]
    rows: list[list[str]]

    def column(self, name: str) -> list[str]:
        index = self.columns.index(name)
        return [row[index] for row in self.rows]


class DamagedFile(Exception):
    """A file that cannot be read as what it should be; the message says why."""


NUL = b"\x00"


def _read_text(path: Path) -> str:
    """The file's text (UTF-8); :class:`DamagedFile` if it is a folder, unreadable, empty or not UTF-8."""
    if path.is_dir():
        raise DamagedFile("is a folder, expected a file")
    try:
        data = path.read_bytes()
    except OSError as error:
        raise DamagedFile(f"cannot be read ({error.strerror or error})") from None
    if not data:
        raise DamagedFile("is empty (0 bytes)")
    if NUL in data:
        raise DamagedFile(f"is not text (a NUL byte at offset {data.index(NUL)})")
    try:
        return data.decode("utf-8")
    except UnicodeDecodeError as error:
        raise DamagedFile(f"is not UTF-8 text (byte 0x{data[error.start]:02x} at offset {error.start})") from None


def read_csv(path: Path) -> CsvFile:
    """Parse a CSV strictly: :class:`DamagedFile` for a bad quote, a line with the wrong number of fields, an empty
    line or duplicate column names (pandas would pad, skip or rename them silently)."""
    reader = csv.reader(io.StringIO(_read_text(path), newline=""), strict=True)
    try:
        lines = list(reader)
    except csv.Error as error:
        raise DamagedFile(f"is not a valid CSV ({error}, line {reader.line_num})") from None
    if not lines or not lines[0]:
        raise DamagedFile("has no header line")
    columns, rows = lines[0], lines[1:]
    duplicated = sorted({c for c in columns if columns.count(c) > 1})
    if duplicated:
        raise DamagedFile(f"has duplicate column names {duplicated}")
    for number, row in enumerate(rows, start=2):
        if len(row) != len(columns):
            raise DamagedFile(f"line {number} has {len(row)} fields, the header {len(columns)}")
    return CsvFile(columns, rows)


def read_provenance(path: Path) -> Mapping[str, Any]:
    """A ``provenance.json`` record; :class:`DamagedFile` unless it is a JSON object."""
    try:
        record = json.loads(_read_text(path))
    except json.JSONDecodeError as error:
        raise DamagedFile(f"is not valid JSON ({error})") from None
    if not isinstance(record, Mapping):
        raise DamagedFile(f"is not a JSON object but {type(record).__name__}")
    return record


# --------------------------------------------------------------------------------------------------------------------
# Cells
# --------------------------------------------------------------------------------------------------------------------
def column_rule(name: str) -> tuple[str, float | None]:
    """How a numeric column is compared, from its name (module docstring): ``("log", base)``, ``("probability",
    None)``, ``("difference", None)`` or ``("relative", None)``."""
    tokens = name.lower().split("_")
    for token in tokens:
        if token in LOG_BASES:
            return "log", LOG_BASES[token]
    if any(t in PROBABILITY_TOKENS or t.startswith(PROBABILITY_PREFIXES) for t in tokens):
        return "probability", None
    if any(t in DIFFERENCE_TOKENS for t in tokens):
        return "difference", None
    return "relative", None


def _floats(cells: list[str]) -> np.ndarray | None:
    """The cells as floats (an empty cell is NaN), or None if one is not a number."""
    try:
        return np.array([float(cell) if cell else math.nan for cell in cells], dtype=float)
    except ValueError:
        return None


def allowed_difference(
    name: str, old: np.ndarray, new: np.ndarray, *, rtol: float, atol: float
) -> tuple[np.ndarray, str]:
    """The largest ``|new - old|`` each cell of the numeric column ``name`` may show, and its rule's name."""
    rule, base = column_rule(name)
    with np.errstate(invalid="ignore", over="ignore"):
        size = np.fmax(np.abs(old), np.abs(new))
        if rule == "log":
            label = "log" if base == math.e else f"log{base:g}"
            return math.log1p(rtol) / math.log(base) + CSV_RESOLUTION * size, label
        floor = 0.0
        if rule == "difference":
            finite = np.abs(old[np.isfinite(old)])
            floor = atol * max(1.0, float(finite.max()) if finite.size else 1.0)
        return (rtol + CSV_RESOLUTION) * size + floor, rule


def numbers_agree(old: np.ndarray, new: np.ndarray, allowed: np.ndarray) -> np.ndarray:
    """Cell-wise agreement: both NaN, equal (same infinity, 0 and -0), or finite and within ``allowed``."""
    with np.errstate(invalid="ignore", over="ignore"):
        within = np.isfinite(old) & np.isfinite(new) & (np.abs(new - old) <= allowed)
    return (np.isnan(old) & np.isnan(new)) | (old == new) | within


def _change(old: float, new: float, rule: str) -> str:
    if not (math.isfinite(old) and math.isfinite(new)):
        return "NaN or infinity on one side only"
    if rule.startswith("log"):
        return f"change {abs(new - old):.3g} in {rule} space"
    return f"relative change {abs(new - old) / max(abs(old), abs(new)):.3g}"


def compare_column(
    name: str, column: str, old: list[str], new: list[str], result: Comparison, *, rtol: float, atol: float
) -> None:
    """Compare one column cell by cell (rules: module docstring); list the first moved cells and count the rest."""
    old_numbers, new_numbers = _floats(old), _floats(new)
    if old_numbers is None or new_numbers is None:
        category, moved = "text", [row for row, (a, b) in enumerate(zip(old, new, strict=True)) if a != b]
        details = ["text must be equal"] * len(moved)
    elif all(_WHOLE_NUMBER.fullmatch(cell) for cell in (*old, *new)):
        category, moved = "integers", [row for row, (a, b) in enumerate(zip(old, new, strict=True)) if int(a) != int(b)]
        details = ["whole numbers must be equal"] * len(moved)
    else:
        allowed, rule = allowed_difference(column, old_numbers, new_numbers, rtol=rtol, atol=atol)
        category, moved = "numbers", np.flatnonzero(~numbers_agree(old_numbers, new_numbers, allowed)).tolist()
        details = [
            f"{_change(old_numbers[row], new_numbers[row], rule)}; the {rule} rule allows {allowed[row]:.3g}"
            for row in moved[:LISTED_PER_COLUMN]
        ]
    for row, detail in zip(moved[:LISTED_PER_COLUMN], details, strict=False):
        result.fail(category, f"{name}: row {row}, {column}: committed {old[row]!r}, fresh {new[row]!r} ({detail})")
    if len(moved) > LISTED_PER_COLUMN:
        extra = len(moved) - LISTED_PER_COLUMN
        result.fail(category, f"{name}: {column}: {extra} more cells moved", count=extra)


def compare_tables(
    fresh: CsvFile, committed: CsvFile, name: str, result: Comparison, *, rtol: float, atol: float
) -> int:
    """Same columns (and order) and row count, then every common column; returns the number of cells compared."""
    if fresh.columns != committed.columns:
        removed = [c for c in committed.columns if c not in fresh.columns]
        added = [c for c in fresh.columns if c not in committed.columns]
        change = f"missing from the fresh file {removed}, new in it {added}" if removed or added else "order changed"
        result.fail(
            "columns", f"{name}: columns differ ({change}): committed {committed.columns}, fresh {fresh.columns}"
        )
    if len(fresh.rows) != len(committed.rows):
        result.fail(
            "rows", f"{name}: {len(committed.rows)} rows committed, {len(fresh.rows)} fresh (cells not compared)"
        )
        return 0
    common = [c for c in committed.columns if c in fresh.columns]
    for column in common:
        compare_column(name, column, committed.column(column), fresh.column(column), result, rtol=rtol, atol=atol)
    return len(common) * len(committed.rows)


# --------------------------------------------------------------------------------------------------------------------
# Claims
# --------------------------------------------------------------------------------------------------------------------
def _printed_numbers(text: str) -> tuple[str, list[tuple[str, float, float]]]:
    """``text`` with each number replaced by ``#``, and each number as (text, value, half a unit of its last digit)."""
    numbers = []
    for match in _NUMBER_IN_TEXT.finditer(text):
        mantissa, _, exponent = match.group().lower().partition("e")
        decimals = len(mantissa.partition(".")[2])
        numbers.append((match.group(), float(match.group()), 0.5 * 10.0 ** (int(exponent or 0) - decimals)))
    return _NUMBER_IN_TEXT.sub("#", text), numbers


def evidence_numbers_moved(old: str, new: str, rtol: float) -> list[str] | None:
    """The numbers of ``new`` that moved from those of ``old`` by more than rtol plus the printed precision of both
    (as ``"a -> b"``), or None when the texts differ in more than their numbers (reworded: not comparable)."""
    old_skeleton, old_numbers = _printed_numbers(old)
    new_skeleton, new_numbers = _printed_numbers(new)
    _check_tolerances(rtol, 0.0)
    if old_skeleton != new_skeleton:
        return None
    return [
        f"{old_text} -> {new_text}"
        for (old_text, a, half_a), (new_text, b, half_b) in zip(old_numbers, new_numbers, strict=True)
        if abs(a - b) > half_a + half_b + rtol * max(abs(a), abs(b))
    ]


def _claims_by_id(claims: CsvFile, name: str, side: str, result: Comparison) -> dict[str, dict[str, str]]:
    """Each claim as ``{column: cell}``, by id; an id that appears more than once is a failure and left out."""
    ids = claims.column("claim_id")
    counts = Counter(ids)
    for claim in (claim for claim, count in counts.items() if count > 1):
        lines = [line for line, other in enumerate(ids, start=2) if other == claim]
        message = f"{name}: claim_id {claim!r} appears {counts[claim]} times in the {side} file (lines {lines})"
        result.fail("claims: duplicate id", message)
    return {
        claim: dict(zip(claims.columns, row, strict=True))
        for claim, row in zip(ids, claims.rows, strict=True)
        if counts[claim] == 1
    }


def compare_claims(fresh: CsvFile, committed: CsvFile, name: str, result: Comparison, *, rtol: float) -> int:
    """Every column of every claim (rules: module docstring); returns the number of claims compared."""
    for side, claims in (("committed", committed), ("fresh", fresh)):
        if "claim_id" not in claims.columns:
            result.fail("claims: columns", f"{name}: the {side} file has no claim_id column ({claims.columns})")
            return 0
    for column in [c for c in committed.columns if c not in fresh.columns]:
        result.fail("claims: columns", f"{name}: column {column!r} is missing from the fresh file")
    for column in [c for c in fresh.columns if c not in committed.columns]:
        result.fail("claims: columns", f"{name}: column {column!r} is new in the fresh file")
    old, new = _claims_by_id(committed, name, "committed", result), _claims_by_id(fresh, name, "fresh", result)
    for claim in sorted(old.keys() - new.keys()):
        result.fail("claims: missing", f"{name}: claim {claim!r} missing from the fresh run")
    for claim in sorted(new.keys() - old.keys()):
        result.fail(
            "claims: new", f"{name}: new claim {claim!r} ({new[claim].get('verdict')}) not in the committed run"
        )
    common = [claim for claim in old if claim in new]
    columns = [c for c in committed.columns if c in fresh.columns and c != "claim_id"]
    for claim in common:
        for column in columns:
            before, after = old[claim][column], new[claim][column]
            if before == after:
                continue
            if column == "verdict":
                result.fail("claims: verdict", f"{name}: verdict of {claim!r} flipped: {before} -> {after}")
            elif column == "evidence":
                _compare_evidence(before, after, f"{name}: evidence of {claim!r}", result, rtol=rtol)
            else:
                result.fail(f"claims: {column}", f"{name}: {column} of {claim!r} changed: {before!r} -> {after!r}")
    return len(common)


def _compare_evidence(before: str, after: str, where: str, result: Comparison, *, rtol: float) -> None:
    texts = f"\n  committed: {before}\n  fresh:     {after}"
    moved = evidence_numbers_moved(before, after, rtol)
    if moved is None:
        result.note("evidence reworded", f"{where} reworded:{texts}")
    elif moved:
        result.note("evidence numbers moved", f"{where}: quoted numbers moved ({'; '.join(moved)}):{texts}")
    else:
        result.note("evidence digits", f"{where}: digits changed within the printed precision:{texts}")


# --------------------------------------------------------------------------------------------------------------------
# Provenance
# --------------------------------------------------------------------------------------------------------------------
def _flatten(mapping: Any, prefix: str = "") -> dict[str, Any]:
    """Nested mapping as ``{"a.b.c": value}`` (a non-mapping is one entry)."""
    if not isinstance(mapping, Mapping):
        return {prefix: mapping}
    flat: dict[str, Any] = {}
    for key, value in mapping.items():
        flat.update(_flatten(value, f"{prefix}.{key}" if prefix else str(key)))
    return flat


def _differing(old: Mapping[str, Any], new: Mapping[str, Any]) -> list[str]:
    flat_old, flat_new = _flatten(old), _flatten(new)
    return sorted(
        k for k in flat_old.keys() | flat_new.keys() if flat_old.get(k, "<absent>") != flat_new.get(k, "<absent>")
    )


def _listed(keys: list[str], limit: int = 10) -> str:
    return ", ".join(keys[:limit]) + (f" and {len(keys) - limit} more" if len(keys) > limit else "")


def _without(config: Mapping[str, Any], keys: Sequence[str]) -> dict[str, Any]:
    return {key: value for key, value in config.items() if key not in keys}


def _only(config: Mapping[str, Any], keys: Sequence[str]) -> dict[str, Any]:
    return {key: config.get(key) for key in keys}


def _versions(record: Mapping[str, Any]) -> dict[str, Any]:
    """Package and Python versions of a provenance record (a damaged ``packages`` entry is one value)."""
    packages = record.get("packages", {})
    return {**(packages if isinstance(packages, Mapping) else {"packages": packages}), "python": record.get("python")}


def compare_provenance(
    fresh: Mapping[str, Any], committed: Mapping[str, Any], result: Comparison, *, allow_config_change: bool
) -> None:
    """Warn when the runs' configurations (without :data:`EXECUTION_KEYS`), execution settings (but the folders)
    or package versions differ; a different configuration fails unless ``allow_config_change``."""
    old_config, new_config = committed.get("config"), fresh.get("config")
    recorded = isinstance(old_config, Mapping) and isinstance(new_config, Mapping)
    if recorded:
        keys = _differing(_without(old_config, EXECUTION_KEYS), _without(new_config, EXECUTION_KEYS))
    elif committed.get("config_sha256") != fresh.get("config_sha256"):
        keys = ["(not recorded: the provenance holds no configuration)"]
    else:
        keys = []
    if keys:
        result.warnings.append(
            f"the runs used different configurations (config_sha256 {committed.get('config_sha256')} committed, "
            f"{fresh.get('config_sha256')} fresh); keys that differ: {_listed(keys)}"
        )
        if not allow_config_change:
            message = f"the runs used different configurations ({_listed(keys)}); --allow-config-change compares them"
            result.fail("configuration", f"{PROVENANCE}: {message}")
    settings = [key for key in EXECUTION_KEYS if key not in ("results", "work")]  # the folders always differ
    execution = _differing(_only(old_config, settings), _only(new_config, settings)) if recorded else []
    if execution:
        result.warnings.append(
            f"execution settings differ ({_listed(execution)}): they choose how the jobs run, and change numbers by "
            "round-off at most"
        )
    old_versions, new_versions = _versions(committed), _versions(fresh)
    moved = [f"{p} {old_versions.get(p)} -> {new_versions.get(p)}" for p in _differing(old_versions, new_versions)]
    if moved:
        result.warnings.append(f"package versions differ (committed -> fresh): {_listed(moved)}")


# --------------------------------------------------------------------------------------------------------------------
# Folders
# --------------------------------------------------------------------------------------------------------------------
def _listed_files(root: Path) -> set[Path]:
    """Files under ``root``, relative to it, outside the skipped folders and without hidden names."""
    return {
        path.relative_to(root)
        for path in root.rglob("*")
        if path.is_file()
        and path.relative_to(root).parts[0] not in SKIPPED_FOLDERS
        and not any(part.startswith(".") for part in path.relative_to(root).parts)
    }


def _check_tolerances(rtol: float, atol: float) -> None:
    not_boolean("rtol", rtol), not_boolean("atol", atol)
    if not (isinstance(rtol, int | float) and 0 <= rtol < 1):
        raise ValueError(f"rtol={rtol!r} is invalid; allowed: 0 <= rtol < 1 (a relative change)")
    if not (isinstance(atol, int | float) and 0 <= atol < math.inf):
        raise ValueError(f"atol={atol!r} is invalid; allowed: a finite number >= 0")


def check_folder(folder: str | Path, label: str) -> Path:
    """``folder`` as a Path; ValueError naming it unless it is an existing folder."""
    path = Path(folder)
    if not path.is_dir():
        what = "is not a folder" if path.exists() else "does not exist"
        raise ValueError(f"{label} results folder {str(path)!r} {what}")
    return path


def _compared_pairs(fresh: Path, committed: Path, result: Comparison) -> Iterator[Path]:
    """Paths present in both folders (as files); a path present in one only is a failure."""
    old, new = _listed_files(committed), _listed_files(fresh)
    for relative in sorted(old | new):
        name = relative.as_posix()
        if relative not in new:
            state = "is a folder in" if (fresh / relative).is_dir() else "missing from"
            result.fail("missing file", f"{name}: {state} the fresh run ({fresh / relative})")
        elif relative not in old:
            state = "is a folder in" if (committed / relative).is_dir() else "not in"
            result.fail("new file", f"{name}: present in the fresh run only ({state} the committed run)")
        else:
            yield relative


def compare_results(
    fresh: str | Path,
    committed: str | Path,
    *,
    rtol: float = DEFAULT_RTOL,
    atol: float = DEFAULT_ATOL,
    allow_config_change: bool = False,
) -> Comparison:
    """Compare every file of ``fresh`` and ``committed`` (rules: module docstring); ValueError for a folder that does
    not exist or a tolerance outside its range."""
    fresh, committed = check_folder(fresh, "fresh"), check_folder(committed, "committed")
    _check_tolerances(rtol, atol)
    result = Comparison()
    for relative in _compared_pairs(fresh, committed, result):
        name = relative.as_posix()
        try:
            if relative.suffix == ".csv":
                old, new = _read_pair(fresh, committed, relative, read_csv)
                tally = result.tally(relative)
                tally.files += 1
                if relative.name == CLAIMS:
                    tally.claims += compare_claims(new, old, name, result, rtol=rtol)
                elif name in FLOAT32_ARTIFACTS:
                    result.float32_files.append(name)
                    tolerance = {"rtol": max(rtol, FLOAT32_RTOL), "atol": max(atol, FLOAT32_ATOL)}
                    tally.cells += compare_tables(new, old, name, result, **tolerance)
                else:
                    tally.cells += compare_tables(new, old, name, result, rtol=rtol, atol=atol)
            elif relative == Path(PROVENANCE):
                old, new = _read_pair(fresh, committed, relative, read_provenance)
                compare_provenance(new, old, result, allow_config_change=allow_config_change)
            else:
                result.presence_only += 1
        except DamagedFile as error:
            result.fail("unreadable", f"{name}: {error}")
    if result.files_compared == 0:
        where = f"fresh {fresh}, committed {committed}: a results folder holds <study>/claims.csv, <study>/data/*.csv"
        result.fail("nothing compared", f"no CSV file was compared ({where})")
    return result


def _read_pair(fresh: Path, committed: Path, relative: Path, reader: Callable[[Path], Any]) -> tuple[Any, Any]:
    """``reader`` of the committed and the fresh file; one :class:`DamagedFile` naming every damaged one."""
    read, damaged = [], []
    for root in (committed, fresh):
        try:
            read.append(reader(root / relative))
        except DamagedFile as error:
            damaged.append(f"the file {root / relative} {error}")
    if damaged:
        raise DamagedFile("; ".join(damaged))
    return read[0], read[1]


# --------------------------------------------------------------------------------------------------------------------
# Command line
# --------------------------------------------------------------------------------------------------------------------
def fresh_run_command(folder: Path, cores: int) -> list[str]:
    """The Snakemake call of ``--run``: the whole workflow with results and intermediate files under ``folder``."""
    cores = whole_number("cores", cores)
    return [
        sys.executable, "-m", "snakemake", "--cores", str(cores),
        "--config", f"results={folder / 'results'}", f"work={folder / 'work'}",
    ]  # fmt: skip


def _fresh_run(folder: Path, cores: int) -> Path:
    """Run the workflow into ``folder`` (from the current directory, which holds the Snakefile)."""
    command = fresh_run_command(folder, cores)
    print("verify: fresh run:", " ".join(command), flush=True)
    if subprocess.run(command).returncode != 0:
        raise SystemExit(f"verify --run: the fresh run failed (logs under {folder / 'work'})")
    return folder / "results"


def _report(result: Comparison, rtol: float, atol: float) -> int:
    for warning in result.warnings:
        print(f"WARNING: {warning}")
    for note in result.notes:
        print(f"moved (not failing) [{note.category}]: {note}")
    for failure in result.failures:
        print(f"FAIL [{failure.category}]: {failure}")
    tallies = result.studies
    print(
        f"verify: compared {result.files_compared} CSV files ({sum(t.cells for t in tallies.values())} cells, "
        f"{sum(t.claims for t in tallies.values())} claims); {result.presence_only} other files checked for presence"
    )
    for study, tally in sorted(tallies.items()):
        print(f"  {study}: {tally.files} files, {tally.cells} cells, {tally.claims} claims")
    if result.float32_files:
        print(
            f"  float32 tolerance (rtol >= {FLOAT32_RTOL:g}, atol >= {FLOAT32_ATOL:g}): {', '.join(result.float32_files)}"
        )
    for label, findings in (("differences", result.failures), ("notes", result.notes)):
        counts = sorted(result.differences(findings).items())
        print(f"verify: {label} by category: {', '.join(f'{c} {n}' for c, n in counts) or 'none'}")
    verdict = "passed" if result.ok else "failed"
    print(
        f"verify: {verdict} ({len(result.failures)} failures, {len(result.notes)} notes, {len(result.warnings)} "
        f"warnings; rtol {rtol:g}, atol {atol:g})"
    )
    return 0 if result.ok else 1


def _parser() -> argparse.ArgumentParser:
    parser = argparse.ArgumentParser(
        prog="python -m dplab.verify", description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter
    )
    parser.add_argument("folders", nargs="*", help="FRESH COMMITTED (two results folders), or with --run: [COMMITTED]")
    parser.add_argument("--run", action="store_true", help="make the fresh results with a full run first")
    parser.add_argument("--cores", type=int, default=2, help="cores of the fresh run (2)")
    parser.add_argument("--keep", help="new or empty folder for the fresh run (default: a temporary folder, removed)")
    parser.add_argument(
        "--rtol", type=float, default=DEFAULT_RTOL, help=f"relative tolerance of every number ({DEFAULT_RTOL:g})"
    )
    parser.add_argument(
        "--atol",
        type=float,
        default=DEFAULT_ATOL,
        help=f"absolute floor of difference columns only, times max(1, column's largest |value|) ({DEFAULT_ATOL:g})",
    )
    parser.add_argument(
        "--allow-config-change",
        action="store_true",
        help="compare runs whose provenance records different configurations (warned about, not failing)",
    )
    return parser


def _new_or_empty_folder(path: Path) -> bool:
    """Whether a fresh run may write into ``path`` (elsewhere Snakemake would reuse what it holds)."""
    return not path.exists() or (path.is_dir() and not any(path.iterdir()))


def main(argv: Sequence[str] | None = None) -> int:
    parser = _parser()
    args = parser.parse_args(argv)
    wanted = "at most one folder (COMMITTED)" if args.run else "two folders, FRESH and COMMITTED"
    if len(args.folders) > (1 if args.run else 2) or (not args.run and len(args.folders) != 2):
        parser.error(f"got {len(args.folders)} folders {args.folders}; allowed: {wanted}")
    try:
        _check_tolerances(args.rtol, args.atol)
        committed = check_folder(args.folders[-1] if args.folders else "results", "committed")
        if not args.run:
            fresh = check_folder(args.folders[0], "fresh")
        elif args.cores < 1:
            raise ValueError(f"--cores {args.cores} is invalid; allowed: a whole number >= 1")
        elif not Path("Snakefile").is_file():
            raise ValueError("--run: run it from the repository's root (no Snakefile in the current folder)")
        elif args.keep and not _new_or_empty_folder(Path(args.keep)):
            raise ValueError(f"--keep {args.keep!r} exists and is not an empty folder; allowed: a new or empty folder")
    except (ValueError, OSError) as error:
        parser.error(str(error))

    def compared(fresh: Path) -> int:
        options = {"rtol": args.rtol, "atol": args.atol}
        result = compare_results(fresh, committed, allow_config_change=args.allow_config_change, **options)
        return _report(result, **options)

    if not args.run:
        return compared(fresh)
    if args.keep:
        return compared(_fresh_run(Path(args.keep).resolve(), args.cores))
    with tempfile.TemporaryDirectory(prefix="dplab-verify-") as folder:
        return compared(_fresh_run(Path(folder), args.cores))


if __name__ == "__main__":
    sys.exit(main())
