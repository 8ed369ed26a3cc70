"""Tables: a CSV (the numbers) and a Markdown rendering (for reading), written side by side.

A long or wide table gets a *summary* in its Markdown (rows and columns chosen by the study's summary function,
the way a paper prints a table) and a link to the full CSV, which always keeps every row and column. Missing values
(NaN: a quantity that does not apply to a row) are printed as an em dash, explained under the table, never as
``nan``.
"""

from __future__ import annotations

import math
import os
from pathlib import Path

import pandas as pd

from dplab.report.io import write_csv, write_text

__all__ = ["MISSING", "MISSING_NOTE", "format_cell", "to_markdown", "table_markdown", "write_table"]

#: How a missing value (NaN) is printed, and the note that explains it under every table that has one.
MISSING = "—"
MISSING_NOTE = f"{MISSING}: no value (the quantity does not apply to this row; the CSV cell is empty)."


def format_cell(value: object, digits: int = 6) -> str:
    """Render one cell: floats with ``digits`` significant digits, ``inf`` spelled out, NaN as :data:`MISSING`,
    ``|`` escaped."""
    if isinstance(value, float):
        if math.isnan(value):
            return MISSING
        if math.isinf(value):
            return "inf" if value > 0 else "-inf"
        return f"{value:.{digits}g}"
    return str(value).replace("|", "\\|")


def _has_missing(frame: pd.DataFrame) -> bool:
    return bool(frame.isna().to_numpy().any())


def to_markdown(frame: pd.DataFrame, *, caption: str | None = None, digits: int = 6) -> str:
    """A GitHub-flavoured Markdown table of ``frame`` (with an optional caption line above it, and the note on
    missing values below it when it has any)."""
    header = "| " + " | ".join(format_cell(str(column)) for column in frame.columns) + " |"
    rule = "|" + "|".join("---" for _ in frame.columns) + "|"
    rows = ["| " + " | ".join(format_cell(v, digits) for v in row) + " |" for row in frame.itertuples(index=False)]
    lines = ([caption, ""] if caption else []) + [header, rule] + rows
    if _has_missing(frame):
        lines += ["", MISSING_NOTE]
    return "\n".join(lines) + "\n"


def table_markdown(
    frame: pd.DataFrame, csv_name: str, *, caption: str | None = None, summary: pd.DataFrame | None = None
) -> str:
    """The Markdown of a table: the whole ``frame``, or its ``summary`` when one is given (with the note a summary
    may carry in ``summary.attrs['note']``, e.g. what a mark in its cells means), then a link to the full CSV
    ``csv_name`` (a path relative to the Markdown file) with its size."""
    shown = frame if summary is None else summary
    size = f"[{csv_name}]({csv_name}) ({len(frame)} rows × {len(frame.columns)} columns)"
    link = f"Data: {size}." if summary is None else f"The table above is a summary; every row and column: {size}."
    note = shown.attrs.get("note")
    return to_markdown(shown, caption=caption) + (f"\n{note}\n" if note else "") + "\n" + link + "\n"


def write_table(
    frame: pd.DataFrame,
    stem: str | os.PathLike[str],
    *,
    caption: str | None = None,
    summary: pd.DataFrame | None = None,
) -> None:
    """Write ``stem.csv`` (all of ``frame``) and ``stem.md`` (:func:`table_markdown`: ``frame`` or its
    ``summary``, with a link to the CSV)."""
    stem = Path(stem)
    write_csv(frame, stem.with_suffix(".csv"))
    write_text(table_markdown(frame, f"{stem.name}.csv", caption=caption, summary=summary), stem.with_suffix(".md"))
