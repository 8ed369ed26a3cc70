"""Every claim rule of every study can hold and can fail: one flip case per rule, one harness for all studies.

On the positive side of its case a rule returns ``holds``; on the negative side a negative verdict: ``erratum`` with a
severity for an erratum rule (:meth:`dplab.report.claims.ClaimBook.erratum`), ``fails`` for any other. A rule declared
without a case, or a case without a rule, fails :func:`test_every_rule_has_a_flip_case`.

The cases live beside each study's tests, in ``tests/studies/<study>/flips.py`` (not collected by pytest itself):
``FLIPS = {claim_id: (positive, negative)}``, each side either ``(frames, study_config)``, frames a real run could
produce (built small, by the study's own functions or by hand), or a function ``numbers -> numbers`` that changes the
numbers the rule measures on ``BASE`` (``(frames, study_config)`` of that module; for claims decided by closed forms of
the configuration alone).
"""

from __future__ import annotations

import dataclasses
import functools
import importlib
import importlib.util
import pkgutil
from pathlib import Path
from types import ModuleType

import pytest

import dplab.studies
from dplab.report.claims import NEGATIVE_VERDICTS, SEVERITIES, Claim, ClaimRule

HERE = Path(__file__).resolve().parent
#: Every study package of dplab.studies: each must have its flip cases (a new study without them fails here).
STUDIES = tuple(sorted(info.name for info in pkgutil.iter_modules(dplab.studies.__path__) if info.ispkg))


def _flips_module(study: str) -> ModuleType:
    path = HERE / study / "flips.py"
    assert path.exists(), f"study {study!r} has no flip cases: write {path.relative_to(HERE.parent.parent)}"
    spec = importlib.util.spec_from_file_location(f"_claim_flips_{study}", path)
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


def _rules(study: str) -> dict[str, ClaimRule]:
    return {rule.claim_id: rule for rule in importlib.import_module(f"dplab.studies.{study}.claims").RULES}


MODULES = {study: _flips_module(study) for study in STUDIES}
RULES = {study: _rules(study) for study in MODULES}
CASES = [(study, claim_id) for study, module in MODULES.items() for claim_id in module.FLIPS]


@functools.cache
def _decided(study: str, claim_id: str, negative: bool) -> Claim:
    """The claim on one side of its flip case, decided once per process (three tests read each side)."""
    return _decide(study, claim_id, MODULES[study].FLIPS[claim_id][negative])


def _decide(study: str, claim_id: str, side) -> Claim:
    rule = RULES[study][claim_id]
    if not callable(side):
        frames, config = side
        return rule.decide(frames, config)
    frames, config = MODULES[study].BASE
    numbers = side(rule.measure(frames, config))
    return dataclasses.replace(rule, measure=lambda *_: numbers).decide(frames, config)


@pytest.mark.parametrize(("study", "claim_id"), CASES, ids=[f"{s}-{c}" for s, c in CASES])
def test_positive_case_holds(study, claim_id):
    claim = _decided(study, claim_id, False)
    assert claim.verdict == "holds", claim.evidence


@pytest.mark.parametrize(("study", "claim_id"), CASES, ids=[f"{s}-{c}" for s, c in CASES])
def test_negative_case_fails_or_is_an_erratum(study, claim_id):
    claim = _decided(study, claim_id, True)
    if RULES[study][claim_id].is_erratum:
        assert (claim.verdict, claim.severity in SEVERITIES) == ("erratum", True), claim.evidence
    else:
        assert claim.verdict == "fails", claim.evidence
    assert claim.verdict in NEGATIVE_VERDICTS


@pytest.mark.parametrize("study", sorted(MODULES))
def test_every_rule_has_a_flip_case(study):
    declared, cases = set(RULES[study]), set(MODULES[study].FLIPS)
    assert not declared - cases, f"{study}: rules without a flip case: {sorted(declared - cases)}"
    assert not cases - declared, f"{study}: flip cases of claims that no longer exist: {sorted(cases - declared)}"


@pytest.mark.parametrize(("study", "claim_id"), CASES, ids=[f"{s}-{c}" for s, c in CASES])
def test_every_row_states_its_decision_rule_and_an_erratum_its_consequence(study, claim_id):
    for negative in (False, True):
        claim = _decided(study, claim_id, negative)
        assert "Decision rule: " in claim.evidence
        assert ("Consequence: " in claim.evidence) == (claim.verdict == "erratum")
