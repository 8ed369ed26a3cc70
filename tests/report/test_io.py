"""Atomic writing leaves no partial file behind, and CSVs are byte-stable."""

import pandas as pd
import pytest

from dplab.report.io import atomic_path, write_csv


def test_failed_write_leaves_nothing(tmp_path):
    target = tmp_path / "out.csv"
    with pytest.raises(RuntimeError):
        with atomic_path(target) as temporary:
            temporary.write_text("partial")
            raise RuntimeError("job failed half-way")
    assert list(tmp_path.iterdir()) == []


def test_successful_write_replaces_target(tmp_path):
    target = tmp_path / "sub" / "out.txt"
    with atomic_path(target) as temporary:
        temporary.write_text("done")
    assert target.read_text() == "done"
    assert [p.name for p in target.parent.iterdir()] == ["out.txt"]


def test_csv_float_format_is_deterministic(tmp_path):
    frame = pd.DataFrame({"x": [0.1 + 0.2, 1e-300, float("-inf")], "name": ["a", "b", "c"]})
    write_csv(frame, tmp_path / "a.csv")
    text = (tmp_path / "a.csv").read_text()
    assert text == "x,name\n0.3,a\n1e-300,b\n-inf,c\n"
