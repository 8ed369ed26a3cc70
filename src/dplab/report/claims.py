"""Claims: one row per claim of a paper, with a verdict backed by numbers (the ``claims.csv`` contract).

Each claim is declared once, as one block: a decorator on the function that measures it, carrying what the paper
says (``source``, ``statement``), what the claim reads (``reads``: artifact ids), how it is decided (``rule`` in words,
``verdict(numbers)`` with named thresholds) and what the row shows (``evidence(numbers)``, text generated from the
numbers)::

    CLAIMS = ClaimBook(STUDY)

    @CLAIMS.paper(
        "fig2_thm4_outperforms_prop1",
        source="Asoodeh et al. 2020, Sec. IV, Fig. 2",
        statement="Theorem 4 gives a smaller delta than Proposition 1 for every epsilon shown",
        artifact="fig2",
        reads=("fig2",),
        rule="holds if Thm 4's delta <= Prop. 1's at every epsilon of the grid, fails otherwise",
        verdict=lambda n: holds_if(n["wins"] == n["points"]),
        evidence=lambda n: f"Thm 4 <= Prop. 1 at {n['wins']} of {n['points']} points",
    )
    def measure_fig2_wins(frames, config) -> Numbers: ...

Three decorators say what kind of row a claim is (:data:`KINDS`): :meth:`ClaimBook.paper` (a statement the paper
makes, in its words), :meth:`ClaimBook.erratum` (a printed formula or statement checked against what its derivation
gives: ``erratum`` while the two disagree, with a :data:`SEVERITIES` word saying how wrong and a ``consequence`` saying
what happens to the result that uses it; ``holds`` once they agree) and :meth:`ClaimBook.extension` (a hypothesis of
ours: a comparison, regime or method the paper does not claim; never counted as the paper's). A measure function may
back several claims (stacked decorators). A study lists its claim modules once, in the order of ``claims.csv``
(:meth:`ClaimBook.ordered`); within a module, rows keep the order of the declarations in the source.
"""

from __future__ import annotations

import math
import os
import sys
from collections.abc import Callable, Iterable, Mapping
from dataclasses import asdict, dataclass
from types import ModuleType
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    import pandas as pd

    from dplab.workflow.registry import Study

__all__ = [
    "CLAIM_COLUMNS",
    "KINDS",
    "MARGIN_STANDARD_ERRORS",
    "NEGATIVE_VERDICTS",
    "RELATIVE_TOLERANCE",
    "SEVERITIES",
    "VERDICTS",
    "Claim",
    "ClaimBook",
    "ClaimRule",
    "Numbers",
    "build_rules",
    "claims_frame",
    "clearly_greater",
    "clearly_less",
    "differ",
    "erratum_if",
    "exceeds",
    "holds_if",
    "write_claims",
]

Numbers = Mapping[str, Any]
Frames = Mapping[str, "pd.DataFrame"]
Measure = Callable[[Frames, Mapping[str, Any]], Numbers]

#: The verdicts of every claims.csv, with their meaning (the index prints this table).
VERDICTS = {
    "holds": "the numbers confirm the statement at every point tested, under the stated decision rule",
    "fails": "the numbers contradict the statement (a counter-example or a measured violation is given)",
    "partial": "the statement holds at some of the points tested and not at others, or in one reading only",
    "erratum": "a formula or statement the paper prints differs from what its derivation gives; the evidence gives "
    "the printed and the corrected form, how wrong it is (severity) and what happens to the result that uses it",
    "not_tested": "no experiment decides the statement; the evidence says why",
}
#: The verdicts that say the statement is not right as printed (every rule must be able to return one).
NEGATIVE_VERDICTS = ("fails", "erratum")
#: How wrong an erratum is (the ``severity`` column, on ``erratum`` rows only).
SEVERITIES = {
    "false": "as printed the statement is false: the evidence names the instance and the exact value",
    "loose": "as printed it still holds, but it is not what the derivation gives (a conservative constant, a looser "
    "bound, a misquoted but true inequality)",
    "typo": "a label, reference, index or notation slip with no numerical consequence",
}
#: Whose statement a row is (the ``kind`` column).
KINDS = {
    "paper": "a statement the paper makes, in its words (or one of its printed formulas, for an erratum row)",
    "extension": "a hypothesis of ours (a comparison, regime or method the paper does not claim); its verdict is "
    "never counted as the paper's",
}
CLAIM_COLUMNS = ("claim_id", "source", "statement", "verdict", "severity", "kind", "evidence", "artifact")
#: A printed value and the correct one "agree" when they differ by at most this amount relative to the larger:
#: far above float64 round-off of the closed forms compared, far below any difference an erratum makes.
RELATIVE_TOLERANCE = 1e-9
#: Monte-Carlo comparisons (every study): a difference counts when it exceeds this many standard errors of the
#: difference, sqrt(se_a^2 + se_b^2) (about a two-sided 95 % test for independent normal estimates).
MARGIN_STANDARD_ERRORS = 2.0


@dataclass(frozen=True)
class Claim:
    """A claim of a paper and what our numbers say of it: one row of ``claims.csv``.

    ``evidence`` holds the numbers that decide the verdict; ``artifact`` the figure or table path (relative to
    the results folder) where they can be seen; ``severity`` is set on ``erratum`` rows only.
    """

    claim_id: str
    source: str
    statement: str
    verdict: str
    severity: str
    kind: str
    evidence: str
    artifact: str

    def __post_init__(self) -> None:
        name = f"claim {self.claim_id!r}"
        if self.verdict not in VERDICTS:
            raise ValueError(f"{name}: verdict {self.verdict!r} is not one of {', '.join(VERDICTS)}")
        if self.kind not in KINDS:
            raise ValueError(f"{name}: kind {self.kind!r} is not one of {', '.join(KINDS)}")
        if (self.verdict == "erratum") != (self.severity != ""):
            raise ValueError(
                f"{name}: severity {self.severity!r} is invalid; allowed: one of "
                f"{', '.join(SEVERITIES)} on an erratum row, empty on any other"
            )
        if self.severity and self.severity not in SEVERITIES:
            raise ValueError(f"{name}: severity {self.severity!r} is not one of {', '.join(SEVERITIES)}")
        if self.verdict == "erratum" and self.kind != "paper":
            raise ValueError(f"{name}: an extension (our own hypothesis) cannot be an erratum of the paper")
        if not self.evidence.strip():
            raise ValueError(f"{name}: evidence must state the numbers that decide the verdict")


def _text(value: str | Callable[[Numbers], str], numbers: Numbers) -> str:
    return value(numbers) if callable(value) else value


@dataclass(frozen=True)
class ClaimRule:
    """One claim of the paper and how it is decided.

    ``reads`` are the artifact ids whose frames ``measure`` reads (the claim is built only when all are present
    and ``applies(frames)``, if given, is true); ``rule`` states the decision rule in words, naming the thresholds
    of ``verdict``. An erratum rule (``severity`` set) also states the ``consequence`` for the result that uses the
    printed form; both may be text or functions of the numbers.
    """

    claim_id: str
    source: str
    statement: str
    artifact: str
    reads: tuple[str, ...]
    rule: str
    measure: Measure
    verdict: Callable[[Numbers], str]
    evidence: Callable[[Numbers], str]
    kind: str = "paper"
    severity: str | Callable[[Numbers], str] | None = None
    consequence: str | Callable[[Numbers], str] | None = None
    applies: Callable[[Frames], bool] | None = None

    def __post_init__(self) -> None:
        if (self.severity is None) != (self.consequence is None):
            raise ValueError(f"claim {self.claim_id!r}: an erratum rule needs both a severity and a consequence")
        if self.severity is not None and self.kind != "paper":
            raise ValueError(f"claim {self.claim_id!r}: an extension cannot be an erratum of the paper")

    @property
    def is_erratum(self) -> bool:
        return self.severity is not None

    def decide(self, frames: Frames, config: Mapping[str, Any]) -> Claim:
        """The claim row: its verdict, severity and evidence from the numbers measured on ``frames``."""
        numbers = self.measure(frames, config)
        verdict = self.verdict(numbers)
        if verdict == "erratum" and not self.is_erratum:
            raise ValueError(f"claim {self.claim_id!r}: only a rule declared with ClaimBook.erratum may return erratum")
        evidence = self.evidence(numbers)
        severity = ""
        if verdict == "erratum":
            severity = _text(self.severity, numbers)
            evidence += f". Consequence: {_text(self.consequence, numbers)}"
        return Claim(
            self.claim_id,
            self.source,
            self.statement,
            verdict,
            severity,
            self.kind,
            f"{evidence}. Decision rule: {self.rule}",
            self.artifact,
        )


class ClaimBook:
    """The claims of one study, each declared once by a decorator on its measure function (module docstring).

    ``artifact`` and ``reads`` name artifact ids of ``study``; the row's artifact path comes from the registry
    (:meth:`dplab.workflow.registry.Study.result_path`).
    """

    def __init__(self, study: Study) -> None:
        self.study = study
        self._declared: list[tuple[str, int, ClaimRule]] = []

    def paper(self, claim_id: str, **declaration: Any) -> Callable[[Measure], Measure]:
        """Declare a statement the paper makes (verdicts holds, partial, fails or not_tested)."""
        return self._declare(claim_id, "paper", declaration)

    def extension(self, claim_id: str, **declaration: Any) -> Callable[[Measure], Measure]:
        """Declare a hypothesis of ours that the paper does not make (never counted as the paper's)."""
        return self._declare(claim_id, "extension", declaration)

    def erratum(
        self,
        claim_id: str,
        *,
        severity: str | Callable[[Numbers], str],
        consequence: str | Callable[[Numbers], str],
        **declaration: Any,
    ) -> Callable[[Measure], Measure]:
        """Declare a printed formula or statement checked against what its derivation gives: ``erratum`` (with
        ``severity``, one of :data:`SEVERITIES`, and the ``consequence`` for the result that uses it) while the two
        disagree, ``holds`` once they agree."""
        if isinstance(severity, str) and severity not in SEVERITIES:
            raise ValueError(f"claim {claim_id!r}: severity {severity!r} is not one of {', '.join(SEVERITIES)}")
        return self._declare(claim_id, "paper", {**declaration, "severity": severity, "consequence": consequence})

    def _declare(self, claim_id: str, kind: str, declaration: dict[str, Any]) -> Callable[[Measure], Measure]:
        caller = sys._getframe(2)  # the module that declares the claim, and the line of its decorator
        module, line = caller.f_globals.get("__name__", ""), caller.f_lineno
        artifact = self.study.result_path(declaration.pop("artifact"))
        reads = tuple(declaration.pop("reads", ()))
        for read in reads:
            self.study.artifact(read)  # an unknown id fails here, at import

        def register(measure: Measure) -> Measure:
            rule = ClaimRule(claim_id, artifact=artifact, reads=reads, measure=measure, kind=kind, **declaration)
            if any(r.claim_id == claim_id for _, _, r in self._declared):
                raise ValueError(f"study {self.study.name!r}: claim {claim_id!r} is declared twice")
            self._declared.append((module, line, rule))
            return measure

        return register

    def declared_in(self, module: ModuleType | str) -> tuple[ClaimRule, ...]:
        """The rules one module (or the module of that name, e.g. ``__name__`` at the end of a claims module)
        declares, in the order of their declarations in its source."""
        name = module if isinstance(module, str) else module.__name__
        return tuple(rule for owner, _, rule in sorted(self._declared, key=lambda e: e[1]) if owner == name)

    def ordered(self, *modules: ModuleType) -> tuple[ClaimRule, ...]:
        """Every declared rule: the modules in the order given (the order of ``claims.csv``), each module's rules in
        the order of their declarations in its source. Every module that declares a claim must be given."""
        names = [module.__name__ for module in modules]
        missing = sorted({name for name, _, _ in self._declared} - set(names))
        if missing:
            raise ValueError(f"study {self.study.name!r}: modules declaring claims but not ordered: {missing}")
        return tuple(rule for _, _, rule in sorted(self._declared, key=lambda entry: (names.index(entry[0]), entry[1])))


def differ(printed: float, correct: float, tolerance: float = RELATIVE_TOLERANCE) -> bool:
    """Whether ``|printed - correct| > tolerance * max(|printed|, |correct|)``; a NaN differs from every value.

    Equal values (two zeros included) never differ; ``tolerance`` is relative to the larger magnitude.
    """
    return not math.isclose(printed, correct, rel_tol=tolerance, abs_tol=0.0)


def exceeds(value: float, bound: float, tolerance: float = RELATIVE_TOLERANCE) -> bool:
    """Whether ``value > bound`` beyond round-off: above it and :func:`differ` from it at ``tolerance``."""
    return value > bound and differ(value, bound, tolerance)


def clearly_less(a: float, se_a: float, b: float, se_b: float, margin: float = MARGIN_STANDARD_ERRORS) -> bool:
    """Whether the Monte-Carlo estimate ``a`` is below ``b`` beyond noise: b - a > margin * sqrt(se_a² + se_b²)
    (standard errors of the difference; an exact value has standard error 0)."""
    return b - a > margin * math.hypot(se_a, se_b)


def clearly_greater(a: float, se_a: float, b: float, se_b: float, margin: float = MARGIN_STANDARD_ERRORS) -> bool:
    """Whether ``a`` is above ``b`` beyond noise: a - b > margin * sqrt(se_a² + se_b²)."""
    return clearly_less(b, se_b, a, se_a, margin)


def erratum_if(wrong: bool) -> str:
    """``erratum`` while the paper's printed statement is wrong on the measured values, ``holds`` once it agrees."""
    return "erratum" if wrong else "holds"


def holds_if(right: bool) -> str:
    """``holds`` when the paper's statement is true on the measured values, ``fails`` otherwise."""
    return "holds" if right else "fails"


def build_rules(rules: Iterable[ClaimRule], frames: Frames, config: Mapping[str, Any]) -> list[Claim]:
    """The claims of ``rules`` whose frames are all present, in the order of ``rules``."""
    return [rule.decide(frames, config) for rule in rules if _applies(rule, frames)]


def _applies(rule: ClaimRule, frames: Frames) -> bool:
    return all(key in frames for key in rule.reads) and (rule.applies is None or rule.applies(frames))


def claims_frame(claims: Iterable[Claim]) -> pd.DataFrame:
    """The claims as a frame with exactly the contract's columns; claim ids must be unique."""
    import pandas as pd

    frame = pd.DataFrame([asdict(c) for c in claims], columns=list(CLAIM_COLUMNS))
    duplicated = frame["claim_id"][frame["claim_id"].duplicated()].tolist()
    if duplicated:
        raise ValueError(f"duplicate claim ids: {duplicated}")
    return frame


def write_claims(claims: Iterable[Claim], path: str | os.PathLike[str]) -> None:
    """Write ``claims.csv``."""
    from dplab.report.io import write_csv

    write_csv(claims_frame(claims), path)
