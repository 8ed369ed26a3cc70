"""claims.csv contract: exact columns, known verdicts, evidence required, unique ids; the erratum decision."""

import math

import pandas as pd
import pytest

from dplab.report.claims import (
    CLAIM_COLUMNS,
    RELATIVE_TOLERANCE,
    Claim,
    differ,
    erratum_if,
    exceeds,
    holds_if,
    write_claims,
)


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


# --- the erratum decision: differ, exceeds, erratum_if, holds_if ---------------------------------------------------

TOL = RELATIVE_TOLERANCE


@pytest.mark.parametrize(
    ("printed", "correct", "expected"),
    [
        (1.0, 1.0, False),
        (0.0, 0.0, False),
        (1.0, 1.0 + 0.5 * TOL, False),  # inside the tolerance relative to the larger value
        (1.0, 1.0 + 2.0 * TOL, True),  # outside it
        (-1.0, -1.0 - 2.0 * TOL, True),  # magnitudes, not signed values
        (0.0, 1e-300, True),  # relative: any nonzero value differs from zero
        (2.0, 4.0, True),
        (math.nan, math.nan, True),
        (math.nan, 1.0, True),
    ],
)
def test_differ_is_the_relative_difference_to_the_larger_value(printed, correct, expected):
    assert differ(printed, correct) is expected
    assert differ(correct, printed) is expected  # symmetric


def test_differ_boundary_of_the_tolerance():
    """At |a - b| = tol * max(|a|, |b|) exactly the two agree; one ulp more and they differ (exact binary values)."""
    tolerance = 2.0**-20
    larger = 1.0
    at_boundary = larger - tolerance * larger  # exactly representable: difference = tolerance * larger
    assert larger - at_boundary == tolerance * larger
    assert not differ(at_boundary, larger, tolerance)
    assert differ(math.nextafter(at_boundary, 0.0), larger, tolerance)


def test_differ_tolerance_is_relative_to_the_larger_magnitude():
    """1e6 and 1e6 + 1: relative difference 1e-6, so they agree at 1e-5 and differ at 1e-7 (and by default)."""
    assert not differ(1e6, 1e6 + 1.0, 1e-5)
    assert differ(1e6, 1e6 + 1.0, 1e-7)
    assert differ(1e6, 1e6 + 1.0)


def test_exceeds_is_above_beyond_the_tolerance():
    assert exceeds(1.0 + 2.0 * TOL, 1.0)
    assert not exceeds(1.0 + 0.5 * TOL, 1.0)  # above, but by round-off only
    assert not exceeds(1.0, 1.0 + 2.0 * TOL)  # below
    assert not exceeds(1.0, 1.0)


def test_erratum_if_flips_when_printed_and_correct_values_part():
    assert erratum_if(differ(1.0, 1.0 + 0.5 * TOL)) == "holds"
    assert erratum_if(differ(1.0, 1.0 + 2.0 * TOL)) == "erratum"


def test_holds_if_flips_with_the_statement():
    assert holds_if(True) == "holds"
    assert holds_if(False) == "fails"
