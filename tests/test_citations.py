"""Comments and docstrings cite the papers' own numbering, never a document outside the repository (issue #14).

A reader who clones the repository has the four papers (named in README.md, "Papers") but not the internal design
notes the code was first written from, so "spec §4.2", "spec F4", "paper B", "check 26", "anchors_dp.md §3" or
"[PROPOSED]" cannot be followed.  This test scans every text file a reader sees (sources, tests, benchmarks, docs,
configurations, profiles, CI scripts, README): the whole repository except the generated ``results/``, git's own
folder, caches and work folders, and this file, whose examples below are the forbidden citations themselves.
"""

from __future__ import annotations

import os
import re
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[1]
SUFFIXES = {".py", ".smk", ".yaml", ".yml", ".md", ".rst", ".txt", ".toml", ".sh", ".cfg", ".ini", ".json"}
#: Text files without a suffix that a reader sees (the Snakefile, the CI scripts under .ci/).
SUFFIXLESS = {"Snakefile", "lint", "run", "docs"}
#: Folders never scanned: generated results, git, caches, work folders and virtual environments (any depth).
SKIPPED_FOLDERS = {
    "results",
    "work",
    ".git",
    ".snakemake",
    "__pycache__",
    ".pytest_cache",
    ".ruff_cache",
    ".venv",
    "build",
}
SKIPPED_PREFIXES = ("work-", "results-", "api-reference")
#: This file: its examples are the forbidden citations.
THIS_FILE = Path(__file__).resolve()

# Each pattern names a document outside the repository or one of its internal labels.
FORBIDDEN = {
    "spec citation": re.compile(
        r"\b[Ss]pec(?:'s)?\s+(?:§|#|check|section|review|notes?\b|paper|finding|\d|[A-Z]\d)"
        r"|\bthe spec\b|\bspec(?:'s)? review"
    ),
    # a numbered check of the design notes: "(check 22)", "# check 3", "§6 checks 5, 8-24", "§6 #21"
    "spec check number": re.compile(r"(?:^|[(#,]|§\d+)\s*[Cc]hecks?\s+(?:values?\s+)?\d|§\d+(?:\.\d+)*\s+#\d"),
    "paper letter": re.compile(r"\b[Pp]aper ?[A-D]\b"),
    "anchors notes": re.compile(r"\banchors_(?:dp|workflow)\b|\banchors_\w+\.md\b"),
    "[PROPOSED] label": re.compile(r"\[PROPOSED\]"),
    "review notes": re.compile(r"\breview[- ]notes?\b", re.IGNORECASE),
    "spec erratum label": re.compile(r"\berratum A\d+\b"),
}

# Being rewritten on other branches (issue #14); the integrator empties this list.  Entries are paths relative to
# the repository root; a folder covers everything below it.
ALLOWLIST: tuple[str, ...] = ()


def skipped(folder: Path) -> bool:
    """Whether a folder holds nothing a reader sees as the repository's own text (results, git, caches, work)."""
    name = folder.name
    return name in SKIPPED_FOLDERS or name.startswith(SKIPPED_PREFIXES) or name.endswith(".egg-info")


def is_text_source(path: Path) -> bool:
    return path.is_file() and (path.suffix in SUFFIXES or (not path.suffix and path.name in SUFFIXLESS))


def scanned_files() -> list[Path]:
    """Every text file of the repository below ROOT outside the skipped folders, except this file."""
    files = []
    for folder, subfolders, names in os.walk(ROOT):
        subfolders[:] = sorted(d for d in subfolders if not skipped(Path(folder) / d))
        files.extend(p for p in (Path(folder) / n for n in sorted(names)) if is_text_source(p) and p != THIS_FILE)
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
        ('"""Review note R2: the SGD-iter cell fails"""', ["review notes"]),
        ("Paper B (Asoodeh, Diaz, Calmon 2020)", ["paper letter"]),
        ("(anchors_dp.md §3, step 4)", ["anchors notes"]),
        ("spec §3 [PROPOSED]", ["spec citation", "[PROPOSED] label"]),
        ("(valid for q = 1 only, erratum A2)", ["spec erratum label"]),
        ('"""unique(round(logspace(...))) as integers (spec F4, F5, F7, F9)."""', ["spec citation"]),
        ("# T2 (spec §6 C9-C12, C20, review table)", ["spec citation"]),
        ("(1.0, 1.2453997, 0.21921193020),  # rounded ratio, spec note", ["spec citation"]),
        ("(0.5, 2.0, 0.59918561853),  # check 3", ["spec check number"]),
        ("(checks 26 and 27 included)", ["spec check number"]),
        ("Figure 2-3 data (check values 12-14, 22)", ["spec check number"]),
        ("against the check values (§4 E9, §6 #21)", ["spec check number"]),
        ("Asoodeh, Diaz, Calmon (2020), Theorem 3, eq. (20)", []),
        ("erratum: the paper's Theorem 9 omits /Δ_f²", []),
        ("anchors_needed = len(sizes) + n", []),
        ("timespec='seconds'; spec = importlib.util.spec_from_file_location(name, path)", []),
        ("Table 2's PCA row; Appendix B.4; instance A; paper's Fig. 3", []),
        ("spec = model_spec(name, settings.inputs, settings.hidden); make_module(spec, seed)", []),
        ("check that every rule has a flip case; checks the 4 ids; audit configuration G1; our E1", []),
        ("n - i steps; checks 1 <= i <= n (whole numbers); a pipeline test checks 1, 2 and 4", []),
        ("Section 6.2 of the paper; Algorithm 1, step 4; eq. (10) at 11 digits (mpmath)", []),
    ],
)
def test_patterns_flag_outside_citations_only(text, expected):
    assert sorted({name for _, name, _ in forbidden_citations(text)}) == sorted(expected)


def test_scan_covers_every_folder_a_reader_sees():
    """Sources, tests, benchmarks, docs, configurations, profiles and CI scripts are scanned; results/ and this file
    are not."""
    scanned = {path.relative_to(ROOT).as_posix() for path in scanned_files()}
    for expected in ("Snakefile", "config.yaml", "README.md", "src/dplab/report/claims.py", "tests/conftest.py"):
        assert expected in scanned
    for folder in ("workflow/", "profiles/", "benchmarks/", "docs/", ".ci/", "tests/audit/"):
        assert any(name.startswith(folder) for name in scanned), folder
    assert not any(name.startswith(("results/", ".git/")) for name in scanned)
    assert THIS_FILE.relative_to(ROOT).as_posix() not in scanned


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
