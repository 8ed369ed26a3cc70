"""claims.csv contract: exact columns, known verdicts, evidence required, unique ids."""

import pandas as pd
import pytest

from dplab.report.claims import CLAIM_COLUMNS, Claim, write_claims


def claim(**kwargs) -> Claim:
    fields = {
        "claim_id": "c1",
        "source": "Thm 1",
        "statement": "s",
        "verdict": "holds",
        "evidence": "x = 1",
        "artifact": "study/figures/f.png",
    }
    return Claim(**{**fields, **kwargs})


def test_columns_and_roundtrip(tmp_path):
    write_claims([claim(), claim(claim_id="c2", verdict="erratum")], tmp_path / "claims.csv")
    frame = pd.read_csv(tmp_path / "claims.csv")
    assert tuple(frame.columns) == CLAIM_COLUMNS
    assert frame["verdict"].tolist() == ["holds", "erratum"]


def test_unknown_verdict_rejected():
    with pytest.raises(ValueError, match="verdict 'maybe' is not one of holds, fails, partial, erratum"):
        claim(verdict="maybe")


def test_empty_evidence_rejected():
    with pytest.raises(ValueError, match="evidence"):
        claim(evidence="  ")


def test_duplicate_ids_rejected(tmp_path):
    with pytest.raises(ValueError, match="duplicate claim ids"):
        write_claims([claim(), claim()], tmp_path / "claims.csv")
