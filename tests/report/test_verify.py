"""The verify command: relative (or log-space) comparison of every number, every file kind present on both sides,
every claims column, damaged files as failures (never a traceback), provenance warnings, and what was compared.

Small synthetic results folders in ``tmp_path`` test each rule; copies of the committed ``results/`` test it on real
data (a 2.1e-17 delta of ``contraction/data/fig2.csv`` multiplied by 1000 fails, an unchanged copy passes)."""

from __future__ import annotations

import json
import math
import shutil
from pathlib import Path

import pandas as pd
import pytest

from dplab.verify import (
    CSV_RESOLUTION,
    DEFAULT_RTOL,
    FLOAT32_ARTIFACTS,
    column_rule,
    compare_results,
    evidence_numbers_moved,
    fresh_run_command,
    main,
)

ROOT = Path(__file__).resolve().parents[2]
RESULTS = ROOT / "results"

CLAIMS = """claim_id,source,statement,verdict,severity,kind,evidence,artifact
c1,Thm. 4,"Thm 4's delta is below Prop. 1's",holds,,paper,"at eps=1 delta 1.392e-36 vs 5.585e-09; gap 0.608",s/figures/f.png
c2,Eq. (3),The printed constant is 2,erratum,false,paper,printed 2 vs correct 3 (i=20),s/data/d.csv
"""
DATA = """n,epsilon,delta,log10_delta,bound_theorem,kkt_residual,mc_minus_grid,flag,note
1,0,2.1e-17,-16.6777807053,2.1e-18,3.5e-18,0,True,a
2,0.5,1e-300,-300,0.38,7.2e-18,-0.0032,False,
3,inf,nan,-inf,0.1,0,1.7e-05,True,"quoted, note"
"""
PROVENANCE = {
    "config_sha256": "abc",
    "config": {"results": "results", "work": "work", "threads": 1, "seed": 1, "s": {"n": 3, "grid": [1, 2]}},
    "packages": {"numpy": "2.4.6", "dplab": "0.1.0"},
    "python": "3.11.7",
    "git": {"commit": "0" * 40, "dirty": False},
}


def _results(folder: Path) -> Path:
    """A results folder with one study: claims, one data CSV, one figure, provenance (27 cells, 2 claims)."""
    (folder / "s" / "data").mkdir(parents=True)
    (folder / "s" / "figures").mkdir()
    (folder / "s" / "claims.csv").write_text(CLAIMS)
    (folder / "s" / "data" / "d.csv").write_text(DATA)
    (folder / "s" / "figures" / "f.png").write_bytes(b"\x89PNG")
    (folder / "provenance.json").write_text(json.dumps(PROVENANCE))
    return folder


@pytest.fixture
def folders(tmp_path: Path) -> tuple[Path, Path]:
    """``fresh`` and ``committed``: two identical synthetic results folders."""
    return _results(tmp_path / "fresh"), _results(tmp_path / "committed")


def _set_cell(path: Path, row: int, column: str, text: str) -> None:
    """Rewrite one cell of a CSV as ``text``, leaving every other byte as it is."""
    frame = pd.read_csv(path, dtype=str, keep_default_na=False)
    frame.loc[row, column] = text
    frame.to_csv(path, index=False, lineterminator="\n")


def _categories(result) -> set[str]:
    return {finding.category for finding in result.failures}


# --------------------------------------------------------------------------------------------------------------------
# Passing: identical folders, the committed results, round-off
# --------------------------------------------------------------------------------------------------------------------
def test_identical_folders_pass_and_say_what_was_compared(folders, capsys):
    fresh, committed = folders
    assert main([str(fresh), str(committed)]) == 0
    out = capsys.readouterr().out
    assert "verify: compared 2 CSV files (27 cells, 2 claims); 1 other files checked for presence" in out
    assert "  s: 2 files, 27 cells, 2 claims" in out
    assert "verify: differences by category: none\nverify: notes by category: none\n" in out
    assert out.rstrip().splitlines()[-1].startswith("verify: passed (0 failures")


def test_an_unchanged_copy_of_the_committed_results_passes(tmp_path, capsys):
    shutil.copytree(RESULTS, tmp_path / "fresh")
    assert main([str(tmp_path / "fresh"), str(RESULTS)]) == 0
    out = capsys.readouterr().out
    csvs = [p for p in RESULTS.rglob("*.csv") if "performance" not in p.parts]
    assert f"verify: compared {len(csvs)} CSV files" in out and "verify: passed" in out


def _jitter(path: Path, relative: float) -> None:
    """Move every float cell by ``relative`` (log columns by its logarithm), as round-off across machines would."""
    frame = pd.read_csv(path)
    for column in frame.columns:
        if pd.api.types.is_float_dtype(frame[column]):
            rule, base = column_rule(column)
            shift = frame[column] + math.log1p(relative) / math.log(base) if rule == "log" else None
            frame[column] = shift if shift is not None else frame[column] * (1 + relative)
    frame.to_csv(path, index=False, float_format="%.12g", lineterminator="\n")


JITTERED = ("contraction/data/fig2.csv", "contraction/tables/ext_lemmas.csv", "generalization/data/f5.csv",
            "purification/data/ext_dp_erm.csv", "purification/data/ext_query_release.csv")  # fmt: skip


def _copies(tmp_path: Path, files: tuple[str, ...]) -> tuple[Path, Path]:
    for name in ("fresh", "committed"):
        for relative in files:
            (tmp_path / name / relative).parent.mkdir(parents=True, exist_ok=True)
            shutil.copy(RESULTS / relative, tmp_path / name / relative)
    return tmp_path / "fresh", tmp_path / "committed"


@pytest.mark.parametrize("relative, passes", [(3e-9, True), (5e-7, True), (3e-6, False), (1e-2, False)])
def test_round_off_in_the_9th_to_10th_digit_passes_and_a_change_beyond_rtol_fails(tmp_path, relative, passes):
    fresh, committed = _copies(tmp_path, JITTERED)
    for name in JITTERED:
        _jitter(fresh / name, relative)
    assert (fresh / JITTERED[0]).read_bytes() != (committed / JITTERED[0]).read_bytes()
    result = compare_results(fresh, committed)
    assert result.ok is passes, result.failures[:3]


@pytest.mark.parametrize("relative, f8_passes", [(5e-5, True), (1e-3, False)])
def test_float32_artifacts_are_compared_at_float32_tolerance_and_only_they(tmp_path, capsys, relative, f8_passes):
    files = ("generalization/data/f8.csv", "generalization/data/f5.csv")
    fresh, committed = _copies(tmp_path, files)
    for name in files:
        _jitter(fresh / name, relative)
    assert main([str(fresh), str(committed)]) == 1
    out = capsys.readouterr().out
    assert "float32 tolerance (rtol >= 0.0001, atol >= 1e-06): generalization/data/f8.csv\n" in out
    assert "FAIL [numbers]: generalization/data/f5.csv" in out
    assert ("FAIL [numbers]: generalization/data/f8.csv" not in out) is f8_passes


def test_every_float32_artifact_is_a_committed_file():
    assert all((RESULTS / name).is_file() for name in FLOAT32_ARTIFACTS)


def test_a_2e_17_delta_multiplied_by_1000_fails(tmp_path, capsys):
    fresh, committed = _copies(tmp_path, ("contraction/data/fig2.csv",))
    path = fresh / "contraction/data/fig2.csv"
    row = pd.read_csv(path)["delta"].sub(2.1e-17).abs().idxmin()
    old = pd.read_csv(path, dtype=str).loc[row, "delta"]
    assert old.startswith("2.11") and old.endswith("e-17")
    _set_cell(path, row, "delta", f"{float(old) * 1000:.12g}")
    for atol in ("1e-12", "1"):  # no absolute floor ever reaches a delta
        assert main([str(fresh), str(committed), "--atol", atol]) == 1
        out = capsys.readouterr().out
        assert f"FAIL [numbers]: contraction/data/fig2.csv: row {row}, delta: committed '{old}'" in out
        assert "relative change 0.999" in out and "numbers 1" in out


# --------------------------------------------------------------------------------------------------------------------
# Cell rules
# --------------------------------------------------------------------------------------------------------------------
@pytest.mark.parametrize(
    "name, rule",
    [
        ("log10_delta", ("log", 10.0)),
        ("log_delta", ("log", math.e)),
        ("theorem9_log_delta_min", ("log", math.e)),
        ("delta", ("probability", None)),
        ("delta_prime", ("probability", None)),
        ("p_lower", ("probability", None)),
        ("failure_probability", ("probability", None)),
        ("alpha", ("probability", None)),
        ("delta_gap", ("probability", None)),  # a probability never gets the difference floor
        ("kkt_residual", ("difference", None)),
        ("mc_minus_grid", ("difference", None)),
        ("max_abs_error", ("difference", None)),
        ("test_loss_se", ("difference", None)),
        ("bound_theorem", ("relative", None)),
        ("epsilon", ("relative", None)),
        ("step", ("relative", None)),  # "p_" only as a whole token
    ],
)
def test_column_rules_follow_the_name_tokens(name, rule):
    assert column_rule(name) == rule


@pytest.mark.parametrize(
    "row, column, fresh_cell, passes",
    [
        (0, "epsilon", "1e-300", False),  # an exact zero is kept
        (0, "epsilon", "-0", True),
        (1, "epsilon", "-0.5", False),  # a sign is kept
        (1, "epsilon", f"{0.5 * (1 + 0.9 * DEFAULT_RTOL):.12g}", True),
        (1, "epsilon", f"{0.5 * (1 + 1.1 * DEFAULT_RTOL):.12g}", False),
        (2, "delta", "nan", True),  # NaN matches NaN (and an empty cell)
        (2, "delta", "", True),
        (2, "delta", "1e-300", False),
        (2, "epsilon", "inf", True),
        (2, "epsilon", "-inf", False),
        (2, "epsilon", "1e308", False),  # committed inf, fresh finite
        (1, "epsilon", "inf", False),
        (0, "delta", "2.1e-14", False),
        (0, "delta", "2.10000000001e-17", True),  # the 12th digit: the CSV's resolution
        (1, "delta", "1.000001e-300", True),
        (1, "delta", "1.00001e-300", False),
        (1, "log10_delta", "-300.0000004", True),  # log10(1 + 1e-6) = 4.3e-7
        (1, "log10_delta", "-300.000001", False),
        (0, "log10_delta", "-16.677782", False),
        (2, "log10_delta", "-inf", True),
        (1, "bound_theorem", "0.3800003", True),
        (0, "bound_theorem", "2.1e-15", False),  # tiny, no name: still relative
        (0, "kkt_residual", "9e-18", True),  # round-off residue: below the floor atol = 1e-12
        (0, "kkt_residual", "2e-12", False),
        (0, "mc_minus_grid", "1e-17", True),  # zero by cancellation
        (0, "mc_minus_grid", "1e-11", False),
        (2, "n", "4", False),
        (0, "flag", "False", False),
        (1, "note", "text", False),
        (2, "note", "quoted, note", True),
    ],
)
def test_each_cell_rule(folders, row, column, fresh_cell, passes):
    fresh, committed = folders
    _set_cell(fresh / "s/data/d.csv", row, column, fresh_cell)
    result = compare_results(fresh, committed)
    assert result.ok is passes, result.failures
    if not passes:
        assert [f.message.split(":")[1] for f in result.failures] == [f" row {row}, {column}"]


def test_integer_columns_are_exact_even_where_the_relative_rule_would_pass(folders):
    fresh, committed = folders
    for folder, value in ((committed, "2000000"), (fresh, "2000001")):
        _set_cell(folder / "s/data/d.csv", 0, "n", value)
    result = compare_results(fresh, committed)
    assert _categories(result) == {"integers"} and "whole numbers must be equal" in result.failures[0].message
    _set_cell(fresh / "s/data/d.csv", 0, "n", "2000000.5")  # not a whole number: the relative rule (2.5e-7) applies
    assert compare_results(fresh, committed).ok


def test_a_log_value_far_from_zero_may_move_by_one_unit_of_the_12th_digit(folders):
    fresh, committed = folders
    _set_cell(committed / "s/data/d.csv", 1, "log10_delta", "-3400000.12345")
    _set_cell(fresh / "s/data/d.csv", 1, "log10_delta", "-3400000.12346")
    assert compare_results(fresh, committed).ok
    _set_cell(fresh / "s/data/d.csv", 1, "log10_delta", "-3400000.124")
    assert not compare_results(fresh, committed).ok
    assert 1e-5 / 3.4e6 < CSV_RESOLUTION


def test_moved_cells_beyond_five_per_column_are_counted(folders, capsys):
    fresh, committed = folders
    for folder in folders:
        (folder / "s/data/big.csv").write_text("x\n" + "\n".join(str(i + 1) + ".5" for i in range(12)) + "\n")
    (fresh / "s/data/big.csv").write_text("x\n" + "\n".join(str(i + 2) + ".5" for i in range(12)) + "\n")
    assert main([str(fresh), str(committed)]) == 1
    out = capsys.readouterr().out
    assert out.count("FAIL [numbers]: s/data/big.csv: row") == 5 and "x: 7 more cells moved" in out
    assert "verify: differences by category: numbers 12" in out


# --------------------------------------------------------------------------------------------------------------------
# Files, columns, rows
# --------------------------------------------------------------------------------------------------------------------
@pytest.mark.parametrize(
    "change, category",
    [
        (lambda fresh: (fresh / "s/data/extra.csv").write_text("a\n1\n"), "new file"),
        (lambda fresh: (fresh / "s/figures/g.pdf").write_bytes(b"%PDF"), "new file"),
        (lambda fresh: (fresh / "s/data/d.csv").unlink(), "missing file"),
        (lambda fresh: (fresh / "s/figures/f.png").unlink(), "missing file"),
        (lambda fresh: (fresh / "provenance.json").unlink(), "missing file"),
    ],
)
def test_a_file_present_on_one_side_only_fails(folders, change, category):
    fresh, committed = folders
    change(fresh)
    assert _categories(compare_results(fresh, committed)) == {category}
    assert _categories(compare_results(committed, fresh)) == {"missing file" if category == "new file" else "new file"}


def test_performance_and_hidden_temporaries_are_not_compared(folders):
    fresh, committed = folders
    (fresh / "performance").mkdir()
    (fresh / "performance" / "timings.csv").write_text("a\n1\n")
    (fresh / "s/data/.d.csv.x1.tmp.csv").write_text("half a fi")
    assert compare_results(fresh, committed).ok


@pytest.mark.parametrize(
    "header, expected",
    [
        ("n,epsilon,delta,log10_delta,bound_theorem,kkt_residual,mc_minus_grid,flag,comment", "new in it ['comment']"),
        ("epsilon,n,delta,log10_delta,bound_theorem,kkt_residual,mc_minus_grid,flag,note", "order changed"),
    ],
)
def test_changed_columns_fail(folders, header, expected):
    fresh, committed = folders
    path = fresh / "s/data/d.csv"
    path.write_text(header + "\n" + path.read_text().split("\n", 1)[1])
    result = compare_results(fresh, committed)
    assert "columns" in _categories(result)
    assert expected in next(f.message for f in result.failures if f.category == "columns")


def test_a_changed_row_count_fails_with_both_counts(folders):
    fresh, committed = folders
    path = fresh / "s/data/d.csv"
    path.write_text("".join(path.read_text().splitlines(keepends=True)[:-1]))
    result = compare_results(fresh, committed)
    assert [str(f) for f in result.failures] == ["s/data/d.csv: 3 rows committed, 2 fresh (cells not compared)"]


# --------------------------------------------------------------------------------------------------------------------
# Claims
# --------------------------------------------------------------------------------------------------------------------
@pytest.mark.parametrize("column", ["statement", "source", "severity", "kind", "artifact"])
def test_a_changed_claim_field_fails(folders, column):
    fresh, committed = folders
    _set_cell(fresh / "s/claims.csv", 1, column, "rewritten")
    result = compare_results(fresh, committed)
    assert _categories(result) == {f"claims: {column}"}
    assert f"s/claims.csv: {column} of 'c2' changed:" in result.failures[0].message


def test_a_flipped_verdict_fails(folders, capsys):
    fresh, committed = folders
    _set_cell(fresh / "s/claims.csv", 0, "verdict", "fails")
    assert main([str(fresh), str(committed)]) == 1
    assert "FAIL [claims: verdict]: s/claims.csv: verdict of 'c1' flipped: holds -> fails" in capsys.readouterr().out


@pytest.mark.parametrize(
    "evidence, category, moved",
    [
        ("at eps=1 delta 1.392e-36 vs 5.585e-09; gap 0.609", "evidence digits", ""),  # one unit: round-off
        ("at eps=1 delta 1.3920001e-36 vs 5.585e-09; gap 0.608", "evidence digits", ""),
        ("at eps=1 delta 1.392e-36 vs 5.585e-09; gap 0.700", "evidence numbers moved", "(0.608 -> 0.700)"),
        ("at eps=1 delta 1.392e-33 vs 5.585e-09; gap 0.608", "evidence numbers moved", "(1.392e-36 -> 1.392e-33)"),
        ("at eps=1 the delta is 1.392e-36 vs 5.585e-09; gap 0.608", "evidence reworded", ""),
    ],
)
def test_changed_evidence_is_printed_in_its_category_without_failing(folders, capsys, evidence, category, moved):
    fresh, committed = folders
    _set_cell(fresh / "s/claims.csv", 0, "evidence", evidence)
    assert main([str(fresh), str(committed)]) == 0
    out = capsys.readouterr().out
    assert f"moved (not failing) [{category}]: s/claims.csv: evidence of 'c1'" in out
    assert f"  fresh:     {evidence}\n" in out and moved in out
    assert f"verify: notes by category: {category} 1\n" in out


def test_evidence_numbers_ignore_digits_inside_words():
    assert evidence_numbers_moved("G1 at fig2: 0.5000", "G1 at fig2: 0.5010", 1e-6) == ["0.5000 -> 0.5010"]
    assert evidence_numbers_moved("G1 at fig2: 0.5", "G1 at fig2: 0.5001", 1e-6) == []  # 0.5 may print 0.5001
    assert evidence_numbers_moved("i=20 x 1e-5.", "i=22 x 1e-5.", 1e-6) == ["20 -> 22"]
    assert evidence_numbers_moved("i=20 x 1e-5.", "i=20 x 3e-5.", 1e-6) == ["1e-5 -> 3e-5"]
    assert evidence_numbers_moved("holds", "fails", 1e-6) is None


@pytest.mark.parametrize("side", ["fresh", "committed"])
def test_a_duplicate_claim_id_fails_clearly(folders, side):
    fresh, committed = folders
    folder = fresh if side == "fresh" else committed
    _set_cell(folder / "s/claims.csv", 1, "claim_id", "c1")
    result = compare_results(fresh, committed)
    messages = [f.message for f in result.failures if f.category == "claims: duplicate id"]
    assert messages == [f"s/claims.csv: claim_id 'c1' appears 2 times in the {side} file (lines [2, 3])"]


def test_missing_new_and_added_column_claims_fail(folders):
    fresh, committed = folders
    claims = pd.read_csv(fresh / "s/claims.csv", dtype=str, keep_default_na=False)
    claims.loc[1, "claim_id"] = "c3"
    claims.assign(extra="x").to_csv(fresh / "s/claims.csv", index=False)
    result = compare_results(fresh, committed)
    assert _categories(result) == {"claims: missing", "claims: new", "claims: columns"}
    assert "s/claims.csv: column 'extra' is new in the fresh file" in [f.message for f in result.failures]


# --------------------------------------------------------------------------------------------------------------------
# Damaged files: a failure naming the file, never a traceback
# --------------------------------------------------------------------------------------------------------------------
DAMAGED = {
    "empty": (b"", "is empty (0 bytes)"),
    "unterminated quote": (b'a,b\n1,"2\n', "is not a valid CSV (unexpected end of data"),
    "not UTF-8": (b"a,b\n1,\xff\n", "is not UTF-8 text (byte 0xff at offset 6)"),
    "short line": (b"a,b\n1,2\n3\n", "line 3 has 1 fields, the header 2"),
    "duplicate columns": (b"a,a\n1,2\n", "has duplicate column names ['a']"),
    "NUL byte": (b"a,b\n1,\x002\n", "is not text (a NUL byte at offset 6)"),
}


@pytest.mark.parametrize("side", ["fresh", "committed"])
@pytest.mark.parametrize("damage", DAMAGED)
def test_a_damaged_csv_is_a_failure_naming_the_file(folders, side, damage, capsys):
    fresh, committed = folders
    content, reason = DAMAGED[damage]
    path = (fresh if side == "fresh" else committed) / "s/data/d.csv"
    path.write_bytes(content)
    assert main([str(fresh), str(committed)]) == 1
    out = capsys.readouterr().out
    assert f"FAIL [unreadable]: s/data/d.csv: the file {path} {reason}" in out


def test_a_damaged_claims_file_and_provenance_are_failures(folders):
    fresh, committed = folders
    (fresh / "s/claims.csv").write_bytes(b'claim_id,verdict\nc1,"holds\n')
    (committed / "provenance.json").write_text('{"config": ')
    messages = [f.message for f in compare_results(fresh, committed).failures]
    assert any(m.startswith("s/claims.csv: the file") and "not a valid CSV" in m for m in messages)
    assert any(m.startswith("provenance.json: the file") and "not valid JSON" in m for m in messages)
    (fresh / "provenance.json").write_text("[1, 2]")
    (fresh / "s/data/d.csv").write_text("\n")
    messages = [f.message for f in compare_results(fresh, committed).failures]
    assert f"provenance.json: the file {committed}/provenance.json is not valid JSON" in " ".join(messages)
    assert f"; the file {fresh}/provenance.json is not a JSON object but list" in " ".join(messages)
    assert f"s/data/d.csv: the file {fresh}/s/data/d.csv has no header line" in messages


def test_both_damaged_files_are_named(folders):
    fresh, committed = folders
    for folder in folders:
        (folder / "s/data/d.csv").write_bytes(b"")
    result = compare_results(fresh, committed)
    assert [str(f) for f in result.failures] == [
        f"s/data/d.csv: the file {committed}/s/data/d.csv is empty (0 bytes); "
        f"the file {fresh}/s/data/d.csv is empty (0 bytes)"
    ]


def test_a_folder_where_a_file_is_expected_fails(folders):
    fresh, committed = folders
    (fresh / "s/data/d.csv").unlink()
    (fresh / "s/data/d.csv").mkdir()
    result = compare_results(fresh, committed)
    assert [str(f) for f in result.failures] == [f"s/data/d.csv: is a folder in the fresh run ({fresh}/s/data/d.csv)"]


def test_an_unreadable_file_fails(folders, monkeypatch):
    fresh, committed = folders
    target, read_bytes = fresh / "s/data/d.csv", Path.read_bytes

    def refuse(path: Path) -> bytes:
        if path == target:
            raise PermissionError(13, "Permission denied", str(path))
        return read_bytes(path)

    monkeypatch.setattr(Path, "read_bytes", refuse)
    result = compare_results(fresh, committed)
    assert [str(f) for f in result.failures] == [f"s/data/d.csv: the file {target} cannot be read (Permission denied)"]


@pytest.mark.parametrize("content", [None, "figure only"])
def test_nothing_compared_fails(tmp_path, content, capsys):
    for name in ("fresh", "committed"):
        (tmp_path / name).mkdir()
        if content:
            (tmp_path / name / "f.png").write_text(content)
    assert main([str(tmp_path / "fresh"), str(tmp_path / "committed")]) == 1
    out = capsys.readouterr().out
    assert "FAIL [nothing compared]: no CSV file was compared" in out and "verify: passed" not in out


# --------------------------------------------------------------------------------------------------------------------
# Provenance
# --------------------------------------------------------------------------------------------------------------------
def _provenance(folder: Path, **changes) -> None:
    record = json.loads((folder / "provenance.json").read_text())
    for key, value in changes.items():
        record[key] = {**record[key], **value} if isinstance(value, dict) else value
    (folder / "provenance.json").write_text(json.dumps(record))


def test_a_configuration_change_is_warned_first_and_fails_unless_allowed(folders, capsys):
    fresh, committed = folders
    _provenance(fresh, config_sha256="def", config={**PROVENANCE["config"], "s": {"n": 4, "grid": [1, 2]}})
    _set_cell(fresh / "s/claims.csv", 0, "verdict", "fails")
    assert main([str(fresh), str(committed)]) == 1
    lines = capsys.readouterr().out.splitlines()
    assert lines[0] == (
        "WARNING: the runs used different configurations (config_sha256 abc committed, def fresh); "
        "keys that differ: s.n"
    )
    assert any(line.startswith("FAIL [configuration]: provenance.json: the runs used different") for line in lines)
    assert main([str(fresh), str(committed), "--allow-config-change"]) == 1  # the verdict still fails
    out = capsys.readouterr().out
    assert out.startswith("WARNING: the runs used different configurations") and "[configuration]" not in out


def test_execution_settings_and_package_versions_warn_without_failing(folders, capsys):
    fresh, committed = folders
    config = {**PROVENANCE["config"], "results": "/tmp/x/results", "work": "/tmp/x/work", "threads": 4}
    _provenance(fresh, config_sha256="other", config=config, packages={"numpy": "2.5.0"}, python="3.12.1")
    assert main([str(fresh), str(committed)]) == 0
    lines = capsys.readouterr().out.splitlines()
    assert lines[:2] == [
        "WARNING: execution settings differ (threads): they choose how the jobs run, and change numbers by "
        "round-off at most",
        "WARNING: package versions differ (committed -> fresh): numpy 2.4.6 -> 2.5.0, python 3.11.7 -> 3.12.1",
    ]


def test_without_a_recorded_configuration_the_hashes_decide(folders):
    fresh, committed = folders
    for folder, digest in ((fresh, "one"), (committed, "two")):
        record = json.loads((folder / "provenance.json").read_text())
        del record["config"]
        (folder / "provenance.json").write_text(json.dumps({**record, "config_sha256": digest}))
    assert _categories(compare_results(fresh, committed)) == {"configuration"}
    assert compare_results(fresh, committed, allow_config_change=True).ok


# --------------------------------------------------------------------------------------------------------------------
# Command line
# --------------------------------------------------------------------------------------------------------------------
@pytest.mark.parametrize(
    "arguments, message",
    [
        (["{tmp}/nonexistent", "{committed}"], "fresh results folder '{tmp}/nonexistent' does not exist"),
        (["{fresh}", "{tmp}/nonexistent"], "committed results folder '{tmp}/nonexistent' does not exist"),
        (["{fresh}/provenance.json", "{committed}"], "is not a folder"),
        (["{fresh}"], "allowed: two folders"),
        (["{fresh}", "{committed}", "{committed}"], "allowed: two folders"),
        (["{fresh}", "{committed}", "--rtol", "-1"], "rtol=-1.0 is invalid"),
        (["{fresh}", "{committed}", "--rtol", "nan"], "rtol=nan is invalid"),
        (["{fresh}", "{committed}", "--rtol", "1"], "allowed: 0 <= rtol < 1"),
        (["{fresh}", "{committed}", "--atol", "inf"], "atol=inf is invalid"),
        (["--run", "a", "b"], "allowed: at most one folder"),
        (["--run", "{committed}"], "run it from the repository's root"),
        (["--run", "{tmp}/nonexistent"], "committed results folder"),
    ],
)
def test_usage_errors_exit_2_with_a_message(folders, tmp_path, monkeypatch, capsys, arguments, message):
    fresh, committed = folders
    monkeypatch.chdir(tmp_path)  # no Snakefile here
    places = {"tmp": tmp_path, "fresh": fresh, "committed": committed}
    with pytest.raises(SystemExit) as stop:
        main([argument.format(**places) for argument in arguments])
    assert stop.value.code == 2
    assert message.format(**places) in capsys.readouterr().err


def test_run_refuses_a_keep_folder_that_is_not_empty(folders, tmp_path, monkeypatch, capsys):
    fresh, committed = folders
    monkeypatch.chdir(tmp_path)
    (tmp_path / "Snakefile").write_text("")
    with pytest.raises(SystemExit) as stop:
        main(["--run", str(committed), "--keep", str(fresh)])
    assert stop.value.code == 2 and "is not an empty folder" in capsys.readouterr().err


def test_help_states_the_rules(capsys):
    with pytest.raises(SystemExit):
        main(["--help"])
    out = capsys.readouterr().out
    for rule in ("log_b(1 + rtol)", "(rtol + r) * max(|fresh|, |committed|) + floor", "--allow-config-change",
                 "two empty folders fail", "duplicate column names"):  # fmt: skip
        assert rule in out


def test_compare_results_refuses_bad_arguments(folders):
    fresh, committed = folders
    with pytest.raises(ValueError, match="fresh results folder"):
        compare_results("/nonexistent/fresh", committed)
    with pytest.raises(ValueError, match="rtol"):
        compare_results(fresh, committed, rtol=-1.0)
    with pytest.raises(ValueError, match="atol"):
        compare_results(fresh, committed, atol=math.nan)


def test_fresh_run_writes_only_into_its_own_folder(tmp_path):
    command = fresh_run_command(tmp_path, cores=3)
    assert command[1:5] == ["-m", "snakemake", "--cores", "3"]
    assert command[-2:] == [f"results={tmp_path / 'results'}", f"work={tmp_path / 'work'}"]
    with pytest.raises(ValueError, match="cores=0"):
        fresh_run_command(tmp_path, cores=0)


def test_a_provenance_with_damaged_entries_is_compared_without_a_traceback(folders, capsys):
    fresh, committed = folders
    _provenance(fresh, packages="numpy 2", config=[1, 2], config_sha256="abc")
    assert main([str(fresh), str(committed)]) == 0
    assert "WARNING: package versions differ (committed -> fresh): dplab 0.1.0 -> None" in capsys.readouterr().out
