"""The committed tidy CSVs name repetitions one way: ``replicate`` is an integer index 0..R-1, ``job_seed`` the seed
derived for an artifact's job, and no column is called ``seed`` (it meant either, depending on the file)."""

import csv
from pathlib import Path

import numpy as np
import pandas as pd
import pytest

RESULTS = Path(__file__).resolve().parents[1] / "results"
TIDY = sorted(p for folder in ("data", "tables") for p in RESULTS.glob(f"*/{folder}/*.csv"))


def _id(path: Path) -> str:
    return f"{path.parent.parent.name}/{path.parent.name}/{path.name}"


def _header(path: Path) -> list[str]:
    with path.open(encoding="utf-8", newline="") as handle:
        return next(csv.reader(handle))


def test_there_are_tidy_csvs_to_check():
    assert len(TIDY) >= 20


@pytest.mark.parametrize("path", TIDY, ids=_id)
def test_no_column_is_called_seed(path):
    assert "seed" not in _header(path)


@pytest.mark.parametrize("path", [p for p in TIDY if "replicate" in _header(p)], ids=_id)
def test_replicate_is_an_integer_index_from_zero(path):
    values = pd.read_csv(path, usecols=["replicate"])["replicate"].dropna().to_numpy()
    assert values.size and np.array_equal(values, np.round(values)) and values.min() == 0
    assert set(values.astype(int)) == set(range(int(values.max()) + 1))


@pytest.mark.parametrize("path", [p for p in TIDY if "job_seed" in _header(p)], ids=_id)
def test_job_seed_is_one_derived_seed_per_file(path):
    seeds = pd.read_csv(path, usecols=["job_seed"])["job_seed"]
    assert seeds.nunique() == 1 and 0 <= int(seeds.iloc[0]) < 2**63
