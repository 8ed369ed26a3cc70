"""The verify command on copies of committed CSVs: identical and 1e-10 jitter pass; a flipped verdict, a 1 % change,
a missing file or claim fail."""

from __future__ import annotations

import shutil
from pathlib import Path

import pandas as pd
import pytest

from dplab.verify import compare_results, fresh_run_command, main

ROOT = Path(__file__).resolve().parents[2]
FILES = (
    "generalization/claims.csv",
    "generalization/data/f5.csv",
    "contraction/data/ext_utility.csv",
    "preprocessing/tables/table1.csv",
)


@pytest.fixture
def folders(tmp_path: Path) -> tuple[Path, Path]:
    """A 'committed' and a 'fresh' folder holding the same committed CSVs (numbers, text, booleans, inf, NaN)."""
    for name in ("committed", "fresh"):
        for relative in FILES:
            target = tmp_path / name / relative
            target.parent.mkdir(parents=True, exist_ok=True)
            shutil.copy(ROOT / "results" / relative, target)
    return tmp_path / "fresh", tmp_path / "committed"


def _scale_numbers(path: Path, factor: float, rows: slice = slice(None)) -> None:
    frame = pd.read_csv(path)
    for column in frame.columns:
        if pd.api.types.is_float_dtype(frame[column]):
            frame.loc[frame.index[rows], column] = frame[column].iloc[rows] * factor
    frame.to_csv(path, index=False, float_format="%.15g")


def test_identical_folders_pass(folders, capsys):
    fresh, committed = folders
    assert main([str(fresh), str(committed)]) == 0
    assert "verify: passed (0 failures" in capsys.readouterr().out


def test_the_committed_results_verify_against_themselves():
    assert compare_results(ROOT / "results", ROOT / "results").ok


def test_jitter_in_the_tenth_digit_passes(folders):
    fresh, committed = folders
    for relative in FILES[1:]:
        _scale_numbers(fresh / relative, 1 + 1e-10)
    assert not (pd.read_csv(fresh / FILES[1])["delta_prime"] == pd.read_csv(committed / FILES[1])["delta_prime"]).all()
    assert compare_results(fresh, committed).ok


def test_one_percent_change_fails_and_is_printed(folders, capsys):
    fresh, committed = folders
    _scale_numbers(fresh / "generalization/data/f5.csv", 1.01, slice(3, 4))
    assert main([str(fresh), str(committed)]) == 1
    out = capsys.readouterr().out
    assert "FAIL: generalization/data/f5.csv: row 3" in out and "relative change 0.01" in out


def test_flipped_verdict_fails(folders):
    fresh, committed = folders
    claims = pd.read_csv(fresh / FILES[0])
    claims.loc[0, "verdict"] = "holds" if claims.loc[0, "verdict"] != "holds" else "fails"
    claims.to_csv(fresh / FILES[0], index=False)
    result = compare_results(fresh, committed)
    assert not result.ok and any("flipped" in f and claims.loc[0, "claim_id"] in f for f in result.failures)


def test_changed_evidence_is_noted_not_failed(folders):
    fresh, committed = folders
    claims = pd.read_csv(fresh / FILES[0])
    claims.loc[0, "evidence"] = claims.loc[0, "evidence"] + " (reworded)"
    claims.to_csv(fresh / FILES[0], index=False)
    result = compare_results(fresh, committed)
    assert result.ok and len(result.notes) == 1


def test_missing_file_and_missing_claim_fail(folders):
    fresh, committed = folders
    (fresh / FILES[3]).unlink()
    claims = pd.read_csv(fresh / FILES[0])
    claims.iloc[1:].to_csv(fresh / FILES[0], index=False)
    failures = compare_results(fresh, committed).failures
    assert any("table1.csv: missing" in f for f in failures)
    assert any("claim" in f and "missing from the fresh run" in f for f in failures)


def test_text_cells_must_match_and_nan_matches_nan(folders):
    fresh, committed = folders
    table = pd.read_csv(fresh / FILES[3])
    assert table["note"].isna().any()
    table.loc[0, "variant"] = "other"
    table.to_csv(fresh / FILES[3], index=False)
    failures = compare_results(fresh, committed).failures
    assert failures == ["preprocessing/tables/table1.csv: row 0 variant: committed 'paper', fresh 'other'"]


def test_bad_arguments():
    with pytest.raises(ValueError, match="fresh results folder"):
        compare_results("/nonexistent/fresh", ROOT / "results")
    with pytest.raises(ValueError, match="rtol"):
        compare_results(ROOT / "results", ROOT / "results", rtol=-1.0)


def test_fresh_run_writes_only_into_its_own_folder(tmp_path):
    command = fresh_run_command(tmp_path, cores=3)
    assert command[1:5] == ["-m", "snakemake", "--cores", "3"]
    assert command[-2:] == [f"results={tmp_path / 'results'}", f"work={tmp_path / 'work'}"]
    with pytest.raises(ValueError, match="cores=0"):
        fresh_run_command(tmp_path, cores=0)


def test_run_mode_needs_the_repository_root_and_takes_one_folder(tmp_path, monkeypatch, capsys):
    monkeypatch.chdir(tmp_path)
    with pytest.raises(SystemExit, match="repository's root"):
        main(["--run"])
    with pytest.raises(SystemExit):
        main(["--run", "a", "b"])
    assert "allowed: at most one folder" in capsys.readouterr().err
    with pytest.raises(SystemExit):
        main(["only-one"])
    assert "allowed: two folders" in capsys.readouterr().err
