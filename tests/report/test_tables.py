"""Markdown tables render every cell, with special values spelled out."""

import math

import pandas as pd

from dplab.report.tables import (
    MISSING,
    MISSING_NOTE,
    format_cell,
    glossary_key,
    table_markdown,
    to_markdown,
    unexplained_columns,
    write_table,
)


def test_format_cell():
    assert format_cell(math.inf) == "inf"
    assert format_cell(-math.inf) == "-inf"
    assert format_cell(math.nan) == MISSING == "—"
    assert format_cell(0.123456789) == "0.123457"
    assert format_cell("a|b") == "a\\|b"


def test_markdown_shape_and_caption():
    frame = pd.DataFrame({"a": [1, 2], "b": [0.5, math.inf]})
    text = to_markdown(frame, caption="Caption.")
    lines = text.strip().splitlines()
    assert lines[0] == "Caption."
    assert lines[2] == "| a | b |"
    assert lines[3] == "|---|---|"
    assert lines[5] == "| 2 | inf |"


def test_write_table_writes_both(tmp_path):
    write_table(pd.DataFrame({"a": [1]}), tmp_path / "t")
    assert (tmp_path / "t.csv").read_text() == "a\n1\n"
    text = (tmp_path / "t.md").read_text()
    assert "| a |" in text
    assert "Data: [t.csv](t.csv) (1 rows × 1 columns)." in text


def test_missing_values_are_a_dash_with_a_note_never_nan():
    text = to_markdown(pd.DataFrame({"a": [1.0, math.nan], "b": ["x", "y"]}))
    assert "nan" not in text.lower()
    assert "| — | y |" in text
    assert text.rstrip().endswith(MISSING_NOTE)
    assert MISSING_NOTE not in to_markdown(pd.DataFrame({"a": [1.0]}))


def test_summary_replaces_the_rows_and_links_the_full_csv(tmp_path):
    frame = pd.DataFrame({"a": range(100), "b": [0.5] * 100})
    summary = pd.DataFrame({"rows": [100], "b": [0.5]})
    text = table_markdown(frame, "big.csv", caption="Cap.", summary=summary)
    assert text.count("\n| ") == 2  # header and one summary row
    assert "summary; every row and column: [big.csv](big.csv) (100 rows × 2 columns)" in text
    write_table(frame, tmp_path / "big", summary=summary)
    assert len(pd.read_csv(tmp_path / "big.csv")) == 100  # the CSV keeps everything


def test_pipes_in_column_names_are_escaped():
    text = to_markdown(pd.DataFrame({"eps, |X| = 4": [1.0]}))
    assert "| eps, \\|X\\| = 4 |" in text


def test_glossary_ends_the_markdown_and_skips_self_explaining_columns():
    frame = pd.DataFrame({"n": [1], "closed_form": [2.0], "largest, |X| = 4": [1.0], "largest, |X| = 8": [2.0]})
    glossary = {"closed_form": "the closed form (nats)", "largest, |X| = …": "the largest value (count)"}
    assert unexplained_columns(frame.columns, {}) == ["closed_form", "largest, |X| = 4", "largest, |X| = 8"]
    assert unexplained_columns(frame.columns, glossary) == []
    assert glossary_key("largest, |X| = 16", glossary) == "largest, |X| = …"
    assert glossary_key("largest", glossary) is None
    text = table_markdown(frame, "t.csv", glossary=glossary)
    assert text.endswith(
        "Data: [t.csv](t.csv) (1 rows × 4 columns).\n\nColumns:\n\n"
        "- `closed_form`: the closed form (nats)\n- `largest, |X| = …`: the largest value (count)\n"
    )
    assert "Columns:" not in table_markdown(frame, "t.csv")
