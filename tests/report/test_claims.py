"""claims.csv contract: exact columns, known verdicts, severity and kind, evidence required, unique ids; the erratum
decision; the claim book (one declaration per claim); the Monte-Carlo margin."""

import math
import types

import pandas as pd
import pytest

from dplab.report.claims import (
    CLAIM_COLUMNS,
    RELATIVE_TOLERANCE,
    Claim,
    ClaimBook,
    build_rules,
    clearly_greater,
    clearly_less,
    differ,
    erratum_if,
    exceeds,
    holds_if,
    write_claims,
)
from dplab.workflow.registry import Artifact, Study


def claim(**kwargs) -> Claim:
    fields = {
        "claim_id": "c1",
        "source": "Thm 1",
        "statement": "s",
        "verdict": "holds",
        "severity": "",
        "kind": "paper",
        "evidence": "x = 1",
        "artifact": "study/figures/f.png",
    }
    return Claim(**{**fields, **kwargs})


def test_columns_and_roundtrip(tmp_path):
    write_claims([claim(), claim(claim_id="c2", verdict="erratum", severity="loose")], tmp_path / "claims.csv")
    frame = pd.read_csv(tmp_path / "claims.csv", keep_default_na=False)
    assert tuple(frame.columns) == CLAIM_COLUMNS
    assert frame["verdict"].tolist() == ["holds", "erratum"]
    assert frame["severity"].tolist() == ["", "loose"]


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


# --- severity and kind ------------------------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("fields", "message"),
    [
        ({"verdict": "erratum"}, "severity '' is invalid"),  # an erratum says how wrong
        ({"verdict": "erratum", "severity": "bad"}, "severity 'bad' is not one of false, loose, typo"),
        ({"verdict": "holds", "severity": "typo"}, "severity 'typo' is invalid"),  # only erratum rows have one
        ({"kind": "ours"}, "kind 'ours' is not one of paper, extension"),
        ({"verdict": "erratum", "severity": "false", "kind": "extension"}, "extension .* cannot be an erratum"),
    ],
)
def test_severity_and_kind_are_checked(fields, message):
    with pytest.raises(ValueError, match=message):
        claim(**fields)


# --- the claim book: one declaration per claim --------------------------------------------------------------------


def _book():
    study = Study(
        "demo",
        "Demo",
        "P",
        (Artifact("fig1", "figure", "a", "m:f", "c", plot="m:p"), Artifact("t1", "table", "a", "m:f", "c")),
        claims="m:c",
    )
    return ClaimBook(study)


def _module(name: str):
    return types.SimpleNamespace(__name__=name)


def test_a_declared_claim_is_decided_with_its_kind_artifact_and_rule():
    book = _book()

    @book.extension(
        "c_ext",
        source="Sec. 1",
        statement="s",
        artifact="t1",
        reads=("fig1",),
        rule="holds if x > 0",
        verdict=lambda n: holds_if(n["x"] > 0),
        evidence=lambda n: f"x = {n['x']}",
    )
    def measure(frames, config):
        return {"x": config["x"]}

    (rule,) = book.ordered(_module(__name__))
    assert rule.measure is measure and rule.reads == ("fig1",)
    assert build_rules([rule], {}, {"x": 1}) == []  # its frame is missing
    row = rule.decide({"fig1": None}, {"x": -1})
    assert (row.verdict, row.kind, row.severity, row.artifact) == ("fails", "extension", "", "demo/tables/t1.csv")
    assert row.evidence == "x = -1. Decision rule: holds if x > 0"


def test_an_erratum_carries_its_severity_and_consequence_only_while_wrong():
    book = _book()

    @book.erratum(
        "c_err",
        source="Eq. 2",
        statement="a = b",
        artifact="fig1",
        rule="erratum while a != b",
        verdict=lambda n: erratum_if(differ(n["a"], n["b"])),
        evidence=lambda n: f"a = {n['a']}, b = {n['b']}",
        severity=lambda n: "false" if n["a"] < n["b"] else "loose",
        consequence=lambda n: f"Theorem 1 {'fails' if n['a'] < n['b'] else 'survives'}",
    )
    def measure(frames, config):
        return config

    (rule,) = book.ordered(_module(__name__))
    wrong, loose, right = (rule.decide({}, {"a": a, "b": 2.0}) for a in (1.0, 3.0, 2.0))
    assert (wrong.verdict, wrong.severity, wrong.kind, wrong.artifact) == (
        "erratum",
        "false",
        "paper",
        "demo/figures/fig1.png",
    )
    assert wrong.evidence == "a = 1.0, b = 2.0. Consequence: Theorem 1 fails. Decision rule: erratum while a != b"
    assert (loose.severity, right.verdict, right.severity) == ("loose", "holds", "")
    assert "Consequence" not in right.evidence


def test_a_paper_rule_cannot_return_erratum():
    book = _book()
    book.paper("c", source="s", statement="s", artifact="fig1", rule="r", verdict=lambda n: "erratum", evidence=str)(
        lambda frames, config: {}
    )
    (rule,) = book.ordered(_module(__name__))
    with pytest.raises(ValueError, match="only a rule declared with ClaimBook.erratum"):
        rule.decide({}, {})


def test_declarations_are_checked_at_import():
    book = _book()
    declaration = {"source": "s", "statement": "s", "rule": "r", "verdict": str, "evidence": str}
    with pytest.raises(ValueError, match="no artifact 'fig9'"):
        book.paper("c", artifact="fig9", **declaration)
    with pytest.raises(ValueError, match="no artifact 'x'"):
        book.paper("c", artifact="fig1", reads=("x",), **declaration)
    with pytest.raises(ValueError, match="severity 'bad'"):
        book.erratum("c", artifact="fig1", severity="bad", consequence="", **declaration)
    book.paper("c", artifact="fig1", **declaration)(lambda frames, config: {})
    with pytest.raises(ValueError, match="declared twice"):
        book.paper("c", artifact="fig1", **declaration)(lambda frames, config: {})


def test_rows_follow_the_module_order_then_the_source_lines():
    book = _book()
    declaration = {"source": "s", "statement": "s", "artifact": "fig1", "rule": "r", "verdict": str, "evidence": str}

    @book.paper("second", **declaration)
    @book.paper("third", **declaration)  # stacked on one measure: still in source order
    def measure(frames, config):
        return {}

    book.paper("first", **declaration)(measure)  # declared in another module, ordered first below
    book._declared[-1] = ("other", 0, book._declared[-1][2])
    ids = [r.claim_id for r in book.ordered(_module("other"), _module(__name__))]
    assert ids == ["first", "second", "third"]
    assert [r.claim_id for r in book.declared_in(_module(__name__))] == ["second", "third"]
    with pytest.raises(ValueError, match="not ordered: \\['other'\\]"):
        book.ordered(_module(__name__))


# --- one margin for every Monte-Carlo comparison ----------------------------------------------------------------


def test_clearly_less_counts_standard_errors_of_the_difference():
    # difference 1.0; standard error of the difference hypot(0.3, 0.4) = 0.5: 2 SE = 1.0 is not beyond it
    assert not clearly_less(1.0, 0.3, 2.0, 0.4)
    assert clearly_less(1.0, 0.3, 2.0 + 1e-9, 0.4)
    assert clearly_less(1.0, 0.3, 2.0, 0.4, margin=1.9)
    assert clearly_greater(2.0 + 1e-9, 0.4, 1.0, 0.3) and not clearly_greater(1.0, 0.3, 2.0, 0.4)
    # the example: 0.292 +- 0.017 against 0.3145 +- 0.0014 is within 2 SE of the difference (0.0341)
    assert not clearly_less(0.292, 0.017, 0.3145, 0.0014)
