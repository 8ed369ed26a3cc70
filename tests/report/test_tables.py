"""Markdown tables render every cell, with special values spelled out."""

import math

import pandas as pd

from dplab.report.tables import format_cell, to_markdown, write_table


def test_format_cell():
    assert format_cell(math.inf) == "inf"
    assert format_cell(-math.inf) == "-inf"
    assert format_cell(math.nan) == "nan"
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
    assert "| a |" in (tmp_path / "t.md").read_text()
