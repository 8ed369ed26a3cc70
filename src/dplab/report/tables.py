"""Tables: a CSV (the numbers) and a Markdown rendering (for reading), written side by side.

A long or wide table gets a *summary* in its Markdown (rows and columns chosen by the study's summary function,
the way a paper prints a table) and a link to the full CSV, which always keeps every row and column. Missing values
(NaN: a quantity that does not apply to a row) are printed as an em dash, explained under the table, never as
``nan``.

Every Markdown table ends with a glossary: one line per column that is not self-explaining (:data:`SELF_EXPLAINING`),
with its meaning and unit, taken from the mapping declared with the table (``Artifact.glossary``). Column names
stay the CSV's (the output contract); the glossary is where a reader learns what they mean.
"""

from __future__ import annotations

import math
import os
from collections.abc import Iterable, Mapping
from pathlib import Path

import pandas as pd

from dplab.report.io import write_csv, write_text

__all__ = [
    "MISSING",
    "MISSING_NOTE",
    "SELF_EXPLAINING",
    "ANY_VALUE",
    "format_cell",
    "glossary_key",
    "glossary_lines",
    "unexplained_columns",
    "to_markdown",
    "table_markdown",
    "write_table",
]

#: How a missing value (NaN) is printed, and the note that explains it under every table that has one.
MISSING = "—"
MISSING_NOTE = f"{MISSING}: no value (the quantity does not apply to this row; the CSV cell is empty)."

#: Column names every reader of these papers understands without a glossary line: the sample size, the dimension
#: and the privacy parameters (a table may still explain them, e.g. to say which ε a column holds).
SELF_EXPLAINING = frozenset({"n", "N", "d", "epsilon", "eps", "ε", "delta", "δ", "alpha", "α"})


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


#: A glossary key ending in this explains every column that starts with the rest (columns named by a parameter's
#: values, e.g. ``"largest ε∞, |X| = …"`` for ``largest ε∞, |X| = 4``, ``… = 8``).
ANY_VALUE = "…"


def glossary_key(column: object, glossary: Mapping[str, str]) -> str | None:
    """The key of ``glossary`` that explains ``column``: its own name, else a key ``"<prefix>…"`` whose prefix it
    starts with (:data:`ANY_VALUE`); ``None`` when none does."""
    name = str(column)
    if name in glossary:
        return name
    return next((k for k in glossary if k.endswith(ANY_VALUE) and name.startswith(k.removesuffix(ANY_VALUE))), None)


def unexplained_columns(columns: Iterable[object], glossary: Mapping[str, str]) -> list[str]:
    """The ``columns`` that are neither self-explaining (:data:`SELF_EXPLAINING`) nor explained by ``glossary``."""
    return [str(c) for c in columns if str(c) not in SELF_EXPLAINING and glossary_key(c, glossary) is None]


def glossary_lines(columns: Iterable[object], glossary: Mapping[str, str]) -> list[str]:
    """The glossary under a table: ``"- `key`: meaning"`` for each key of ``glossary`` that explains one of
    ``columns`` (:func:`glossary_key`), once, in column order; none when it explains none."""
    keys = dict.fromkeys(k for k in (glossary_key(c, glossary) for c in columns) if k is not None)
    return ["Columns:", "", *(f"- `{k}`: {glossary[k]}" for k in keys)] if keys else []


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
    frame: pd.DataFrame,
    csv_name: str,
    *,
    caption: str | None = None,
    summary: pd.DataFrame | None = None,
    glossary: Mapping[str, str] | None = None,
) -> str:
    """The Markdown of a table: the whole ``frame``, or its ``summary`` when one is given (with the note a summary
    may carry in ``summary.attrs['note']``, e.g. what a mark in its cells means), then a link to the full CSV
    ``csv_name`` (a path relative to the Markdown file) with its size, then the :func:`glossary_lines` of the
    columns shown."""
    shown = frame if summary is None else summary
    size = f"[{csv_name}]({csv_name}) ({len(frame)} rows × {len(frame.columns)} columns)"
    link = f"Data: {size}." if summary is None else f"The table above is a summary; every row and column: {size}."
    note = shown.attrs.get("note")
    words = glossary_lines(shown.columns, glossary or {})
    tail = "\n" + "\n".join(words) + "\n" if words else ""
    return to_markdown(shown, caption=caption) + (f"\n{note}\n" if note else "") + "\n" + link + "\n" + tail


def write_table(
    frame: pd.DataFrame,
    stem: str | os.PathLike[str],
    *,
    caption: str | None = None,
    summary: pd.DataFrame | None = None,
    glossary: Mapping[str, str] | None = None,
) -> None:
    """Write ``stem.csv`` (all of ``frame``) and ``stem.md`` (:func:`table_markdown`: ``frame`` or its
    ``summary``, with a link to the CSV and the glossary of the columns shown)."""
    stem = Path(stem)
    write_csv(frame, stem.with_suffix(".csv"))
    markdown = table_markdown(frame, f"{stem.name}.csv", caption=caption, summary=summary, glossary=glossary)
    write_text(markdown, stem.with_suffix(".md"))
