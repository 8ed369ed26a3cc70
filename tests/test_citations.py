"""Comments and docstrings cite the papers' own numbering, never a document outside the repository (issue #14).

A reader who clones the repository has the four papers (named in README.md, "Papers") but not the internal design
notes the code was first written from, so "spec §4.2", "paper B", "anchors_dp.md §3" or "[PROPOSED]" cannot be
followed.  This test scans every source file under src/ and workflow/ (and the Snakefile) for such citations.
"""

from __future__ import annotations

import re
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[1]
SCANNED = [ROOT / "src", ROOT / "workflow", ROOT / "Snakefile"]
SUFFIXES = {".py", ".smk", ".yaml", ".yml", ".md", ".rst", ".txt"}

# Each pattern names a document outside the repository or one of its internal labels.
FORBIDDEN = {
    "spec citation": re.compile(
        r"\b[Ss]pec(?:'s)?\s+(?:§|#|check|section|review|notes|paper|finding|\d)|\bthe spec\b|\bspec(?:'s)? review"
    ),
    "paper letter": re.compile(r"\b[Pp]aper ?[A-D]\b"),
    "anchors notes": re.compile(r"\banchors_(?:dp|workflow)\b|\banchors_\w+\.md\b"),
    "[PROPOSED] label": re.compile(r"\[PROPOSED\]"),
    "review notes": re.compile(r"\breview notes\b", re.IGNORECASE),
    "spec erratum label": re.compile(r"\berratum A\d+\b"),
}

# Being rewritten on other branches (issue #14); the integrator empties this list.  Entries are paths relative to
# the repository root; a folder covers everything below it.
ALLOWLIST: tuple[str, ...] = ()


def scanned_files() -> list[Path]:
    """Every text source below SCANNED (the Snakefile itself has no suffix)."""
    files = []
    for base in SCANNED:
        if base.is_file():
            files.append(base)
        elif base.is_dir():
            files.extend(p for p in sorted(base.rglob("*")) if p.is_file() and p.suffix in SUFFIXES)
    return files


def under(path: Path, entry: str) -> bool:
    """Whether ``path`` is the file ``entry`` (relative to the root) or lies in the folder ``entry``."""
    relative = path.relative_to(ROOT).as_posix()
    return relative == entry or relative.startswith(entry + "/")


def allowlisted(path: Path) -> bool:
    return any(under(path, entry) for entry in ALLOWLIST)


def forbidden_citations(text: str) -> list[tuple[int, str, str]]:
    """(line number, pattern name, matched text) for every forbidden citation in ``text``."""
    hits = []
    for number, line in enumerate(text.splitlines(), start=1):
        for name, pattern in FORBIDDEN.items():
            hits.extend((number, name, match.group(0)) for match in pattern.finditer(line))
    return hits


def citations_in(paths: list[Path]) -> list[str]:
    return [
        f"{path.relative_to(ROOT).as_posix()}:{number}: {name}: {matched!r}"
        for path in paths
        for number, name, matched in forbidden_citations(path.read_text(encoding="utf-8"))
    ]


@pytest.mark.parametrize(
    ("text", "expected"),
    [
        ("Uses 0^0 = 1 (spec §2.7, §7.6).", ["spec citation"]),
        ("Erratum (spec check 19).", ["spec citation"]),
        ("utility, spec section 4.5.", ["spec citation"]),
        ("instances (spec 4.2-4.3)", ["spec citation"]),
        ('"""Spec §3 generator: U random orthogonal', ["spec citation"]),
        ("Conventions (spec paperD §2, review notes)", ["spec citation", "paper letter", "review notes"]),
        ("added in the spec's review notes", ["spec citation", "review notes"]),
        ("Paper B (Asoodeh, Diaz, Calmon 2020)", ["paper letter"]),
        ("(anchors_dp.md §3, step 4)", ["anchors notes"]),
        ("spec §3 [PROPOSED]", ["spec citation", "[PROPOSED] label"]),
        ("(valid for q = 1 only, erratum A2)", ["spec erratum label"]),
        ("Asoodeh, Diaz, Calmon (2020), Theorem 3, eq. (20)", []),
        ("erratum: the paper's Theorem 9 omits /Δ_f²", []),
        ("anchors_needed = len(sizes) + n", []),
        ("timespec='seconds'; spec = importlib.util.spec_from_file_location(name, path)", []),
        ("Table 2's PCA row; Appendix B.4; instance A; paper's Fig. 3", []),
    ],
)
def test_patterns_flag_outside_citations_only(text, expected):
    assert sorted({name for _, name, _ in forbidden_citations(text)}) == sorted(expected)


def test_sources_cite_only_the_papers():
    hits = citations_in([path for path in scanned_files() if not allowlisted(path)])
    assert not hits, "citations of documents outside the repository:\n" + "\n".join(hits)


def test_allowlist_lists_only_files_that_still_need_the_rewrite():
    """An entry that exists but has nothing left to fix must leave the list (so the list only shrinks)."""
    clean = [
        entry
        for entry in ALLOWLIST
        if (ROOT / entry).exists() and not citations_in([path for path in scanned_files() if under(path, entry)])
    ]
    assert not clean, f"remove from ALLOWLIST (nothing left to rewrite): {clean}"
