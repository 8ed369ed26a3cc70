"""Tables: a CSV (the numbers) and a Markdown rendering (for reading), written side by side."""

from __future__ import annotations

import math
import os
from pathlib import Path

import pandas as pd

from dplab.report.io import write_csv, write_text

__all__ = ["format_cell", "to_markdown", "write_table"]


def format_cell(value: object, digits: int = 6) -> str:
    """Render one cell: floats with ``digits`` significant digits, ``inf``/``nan`` spelled out, ``|`` escaped."""
    if isinstance(value, float):
        if math.isnan(value):
            return "nan"
        if math.isinf(value):
            return "inf" if value > 0 else "-inf"
        return f"{value:.{digits}g}"
    return str(value).replace("|", "\\|")


def to_markdown(frame: pd.DataFrame, *, caption: str | None = None, digits: int = 6) -> str:
    """A GitHub-flavoured Markdown table of ``frame`` (with an optional caption line above it)."""
    header = "| " + " | ".join(map(str, frame.columns)) + " |"
    rule = "|" + "|".join("---" for _ in frame.columns) + "|"
    rows = ["| " + " | ".join(format_cell(v, digits) for v in row) + " |" for row in frame.itertuples(index=False)]
    lines = ([caption, ""] if caption else []) + [header, rule] + rows
    return "\n".join(lines) + "\n"


def write_table(frame: pd.DataFrame, stem: str | os.PathLike[str], *, caption: str | None = None) -> None:
    """Write ``stem.csv`` and ``stem.md``."""
    stem = Path(stem)
    write_csv(frame, stem.with_suffix(".csv"))
    write_text(to_markdown(frame, caption=caption), stem.with_suffix(".md"))
