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


# Products and their records: a reader refuses a product that is not what its writer recorded, or whose format shows
# damage when it has no record.


def _keep_mtime(path, change):
    """Apply ``change(path)`` and give the file back its modification time (how silent damage looks)."""
    before = os.stat(path)
    change(path)
    os.utime(path, ns=(before.st_atime_ns, before.st_mtime_ns))


def _cut_last_line(path):
    lines = path.read_bytes().splitlines(keepends=True)
    path.write_bytes(b"".join(lines[:-1]))


def _truncate(path, keep=0.5):
    data = path.read_bytes()
    path.write_bytes(data[: int(len(data) * keep)])


def _product(tmp_path, kind):
    """A product of each kind the workflow writes, written by its writer, and the path of its record."""
    import numpy as np

    from dplab.report.io import save_arrays

    path = tmp_path / f"product.{kind}"
    frame = pd.DataFrame({"i": range(5), "x": [0.5, 1e-300, 2.0, 3.0, 4.0], "note": ["a,b", "c\nd", "", "e", "f"]})
    if kind == "csv":
        write_csv(frame, path)
    elif kind == "npz":
        save_arrays({"X": np.arange(600.0).reshape(200, 3), "k": np.array(2)}, path)
    else:
        with atomic_path(path) as temporary:
            frame.to_pickle(temporary)
    return path, tmp_path / "records" / f"{path.name}.json"


@pytest.mark.parametrize("kind", ["csv", "npz", "pkl"])
def test_an_intact_product_matches_its_record(tmp_path, kind):
    from dplab.report.io import check_product, write_record

    path, record = _product(tmp_path, kind)
    written = write_record(path, record, rule="producer", wildcards={"noise": "gaussian"})
    check = check_product(path, record)
    assert check.problem is None and check.record == written
    assert "SHA-256 against its record" in check.checked
    assert written["bytes"] == path.stat().st_size
    assert written["rule"] == "producer" and written["wildcards"] == {"noise": "gaussian"}


def test_a_csv_record_holds_its_columns_and_data_rows(tmp_path):
    """Rows are records, not lines: a quoted field may hold a newline."""
    from dplab.report.io import describe_product

    path, _ = _product(tmp_path, "csv")
    described = describe_product(path)
    assert described["columns"] == ["i", "x", "note"] and described["rows"] == 5
    assert path.read_text().count("\n") == 7


def test_an_npz_record_holds_its_arrays_dtypes_and_shapes(tmp_path):
    from dplab.report.io import describe_product

    path, _ = _product(tmp_path, "npz")
    assert describe_product(path)["arrays"] == {"X": ["<f8", [200, 3]], "k": ["<i8", []]}


def test_a_csv_cut_by_its_last_line_with_its_mtime_kept_is_refused(tmp_path):
    """The issue's case: one row short, the file still ends with a newline and keeps its time."""
    from dplab.report.io import check_product, write_record

    path, record = _product(tmp_path, "csv")
    write_record(path, record)
    _keep_mtime(path, _cut_last_line)
    problem = check_product(path, record).problem
    assert "rows 4 where its record says 5" in problem and "bytes" in problem


@pytest.mark.parametrize("kind", ["csv", "npz", "pkl"])
def test_a_truncated_product_is_refused(tmp_path, kind):
    from dplab.report.io import check_product, write_record

    path, record = _product(tmp_path, kind)
    write_record(path, record)
    _keep_mtime(path, _truncate)
    assert check_product(path, record).problem.startswith("it is not what its writer recorded")


def test_a_truncated_npz_is_named_unreadable(tmp_path):
    from dplab.report.io import check_product, write_record

    path, record = _product(tmp_path, "npz")
    size = write_record(path, record)["bytes"]
    _truncate(path)
    assert f"cannot be read (BadZipFile: File is not a zip file); bytes {size // 2} where its record says {size}" in (
        check_product(path, record).problem
    )


@pytest.mark.parametrize("kind", ["csv", "npz", "pkl"])
def test_a_changed_byte_of_the_same_size_is_refused(tmp_path, kind):
    from dplab.report.io import check_product, write_record

    path, record = _product(tmp_path, kind)
    write_record(path, record)
    data = bytearray(path.read_bytes())
    data[len(data) // 2] ^= 0x01
    _keep_mtime(path, lambda p: p.write_bytes(bytes(data)))
    problem = check_product(path, record).problem
    if kind == "npz":  # the archive's own CRC fails first
        assert problem.endswith("it cannot be read (BadZipFile: Bad CRC-32 for file 'X.npy')")
    else:
        assert "sha256 '" in problem and "where its record says" in problem


def test_a_missing_product_or_an_unreadable_record_is_refused(tmp_path):
    from dplab.report.io import check_product, write_record

    path, record = _product(tmp_path, "csv")
    write_record(path, record)
    record.write_text('{"bytes": 3')
    assert check_product(path, record).problem.startswith(f"its record {record} is unreadable (JSONDecodeError")
    record.write_text('{"bytes": 3}')
    assert check_product(path, record).problem == f"its record {record} is unreadable (no bytes and sha256)"
    path.unlink()
    assert "does not exist" in check_product(path, record).problem


def test_a_record_is_written_only_for_a_product_in_place(tmp_path):
    """No product, no record: the record never claims a file that is not complete."""
    from dplab.report.io import write_record

    with pytest.raises(FileNotFoundError):
        write_record(tmp_path / "absent.csv", tmp_path / "records" / "absent.csv.json")
    assert not (tmp_path / "records" / "absent.csv.json").exists()


def test_a_rewritten_product_with_its_new_record_is_accepted(tmp_path):
    from dplab.report.io import check_product, write_record

    path, record = _product(tmp_path, "csv")
    write_record(path, record)
    write_csv(pd.DataFrame({"i": [1]}), path)
    write_record(path, record)
    assert check_product(path, record).problem is None


# Without a record (a committed results/ file of a fresh clone, a product of an older version): the format's checks.


def test_a_product_without_a_record_gets_the_checks_of_its_format(tmp_path):
    from dplab.report.io import check_product

    for kind in ("csv", "npz", "pkl"):
        path, record = _product(tmp_path, kind)
        check = check_product(path, record)
        assert check.problem is None and check.record is None
        assert check.checked.startswith("its format only: it has no record")
    assert check_product(path, None).checked == "its format only: it has no record"


def test_without_a_record_a_csv_cut_inside_a_line_or_with_a_short_row_is_refused(tmp_path):
    from dplab.report.io import check_product

    path, _ = _product(tmp_path, "csv")
    text = path.read_text()
    path.write_text(text[:-2])
    assert check_product(path, None).problem == "its last line is cut (the file does not end with a newline)"
    path.write_text("a,b,c\n1,2,3\n4,5\n")
    assert check_product(path, None).problem == "data row 2 has 2 fields, the header 3"
    path.write_text("\n")
    assert check_product(path, None).problem == "it has no header line"
    path.write_bytes(b"a\n\xff\n")
    assert "not a readable CSV (UnicodeDecodeError" in check_product(path, None).problem


def test_without_a_record_a_damaged_npz_or_pickle_is_refused(tmp_path):
    from dplab.report.io import check_product

    path, _ = _product(tmp_path, "npz")
    data = bytearray(path.read_bytes())
    data[200] ^= 0x01  # inside the first member's array data (np.savez stores members uncompressed)
    path.write_bytes(bytes(data))
    assert check_product(path, None).problem == "its member X.npy fails its CRC check"
    _truncate(path)
    assert check_product(path, None).problem.startswith("it is not a readable .npz archive (BadZipFile")
    pickle, _ = _product(tmp_path, "pkl")
    _truncate(pickle)
    assert check_product(pickle, None).problem.startswith("it is not a complete pickle")


def _git(folder, *args):
    import subprocess

    subprocess.run(["git", "-C", str(folder), *args], check=True, capture_output=True)


def test_a_committed_file_that_git_replaced_is_not_held_against_the_record_of_another_run(tmp_path):
    """After a ``git pull`` a committed results/ file holds another run's numbers than its record describes: that
    version is accepted (with its format checked); a version git does not have is still refused."""
    from dplab.report.io import check_product, is_git_version, write_record

    _git(tmp_path, "init", "-q")
    path, record = _product(tmp_path, "csv")
    write_record(path, record)
    write_csv(pd.DataFrame({"i": [1, 2]}), path)  # the version of another run, as git checks it out
    _git(tmp_path, "add", path.name)
    assert is_git_version(path)
    check = check_product(path, record, versioned=True)
    assert check.problem is None and check.record is None
    assert (
        check.checked == f"its format only: it is the version git has for it, not the one its record {record} describes"
    )
    assert check_product(path, record).problem is not None  # a work/ product has no other writer
    _keep_mtime(path, _cut_last_line)
    assert not is_git_version(path)
    assert "rows 1 where its record says 5" in check_product(path, record, versioned=True).problem


def test_outside_a_repository_or_untracked_a_file_is_no_git_version(tmp_path):
    from dplab.report.io import is_git_version

    path, _ = _product(tmp_path, "csv")
    assert not is_git_version(path)
    _git(tmp_path, "init", "-q")
    assert not is_git_version(path)


def test_checking_a_product_imports_neither_numpy_nor_pandas():
    """A job's start-up pays for the check of its inputs only: hashing and parsing CSVs need no numpy or pandas."""
    import subprocess
    import sys

    code = (
        "import sys, pathlib, tempfile; from dplab.report.io import check_product; "
        "d = pathlib.Path(tempfile.mkdtemp()); p = d / 'a.csv'; p.write_text('a\\n1\\n'); "
        "assert check_product(p, None).problem is None; "
        "assert not {'numpy', 'pandas'} & set(sys.modules), sorted(sys.modules)"
    )
    subprocess.run([sys.executable, "-c", code], check=True)
