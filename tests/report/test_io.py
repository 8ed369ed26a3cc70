"""Atomic writing leaves no partial file behind, and CSVs are byte-stable."""

import os
import stat

import pandas as pd
import pytest

from dplab.report.io import as_written, atomic_path, stale_temporaries, write_csv


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


def test_outputs_follow_the_umask(tmp_path):
    previous = os.umask(0o022)
    try:
        write_csv(pd.DataFrame({"x": [1]}), tmp_path / "a.csv")
        os.umask(0o077)
        write_csv(pd.DataFrame({"x": [1]}), tmp_path / "b.csv")
    finally:
        os.umask(previous)
    assert stat.S_IMODE((tmp_path / "a.csv").stat().st_mode) == 0o644
    assert stat.S_IMODE((tmp_path / "b.csv").stat().st_mode) == 0o600


def test_a_killed_write_is_cleaned_by_the_next_write_of_the_same_target(tmp_path):
    target = tmp_path / "fig3.png"
    with atomic_path(target) as temporary:  # what a SIGKILL between create and rename leaves: an empty temporary
        leftover = temporary.with_name(temporary.name.replace(".tmp", "x.tmp"))
        leftover.touch()
    assert stale_temporaries(target) == [leftover]
    unrelated = [tmp_path / ".fig3.png.notes", tmp_path / ".other.png.abc.tmp.png", tmp_path / "notes.md"]
    for path in unrelated:
        path.touch()
    with atomic_path(target) as temporary:
        temporary.write_bytes(b"png")
    assert stale_temporaries(target) == []
    assert sorted(p.name for p in tmp_path.iterdir()) == sorted(["fig3.png"] + [p.name for p in unrelated])


def test_as_written_is_the_frame_read_back_from_its_csv(tmp_path):
    frame = pd.DataFrame({"i": [1, 2], "x": [1 / 3, 2e-300], "name": ["a", "b"]})
    write_csv(frame, tmp_path / "f.csv")
    stored = pd.read_csv(tmp_path / "f.csv")
    pd.testing.assert_frame_equal(as_written(frame), stored)
    assert as_written(frame)["x"].iloc[0] != frame["x"].iloc[0]  # 12 significant digits, not the full double


def test_arrays_round_trip_through_an_npz_file(tmp_path):
    """save_arrays then load_arrays gives back every array bit for bit, 0-d arrays included."""
    import numpy as np

    from dplab.report.io import load_arrays, save_arrays

    arrays = {"X": np.random.default_rng(0).normal(size=(3, 2)), "gap": np.array(0.25), "k": np.array(2)}
    save_arrays(arrays, tmp_path / "a.npz")
    loaded = load_arrays(tmp_path / "a.npz")
    assert sorted(loaded) == sorted(arrays)
    for key, value in arrays.items():
        np.testing.assert_array_equal(loaded[key], value)
        assert loaded[key].dtype == value.dtype
