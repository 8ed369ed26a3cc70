"""``results/index.md``: one page that links every figure, table and claim verdict, with captions."""

from __future__ import annotations

from collections.abc import Mapping
from pathlib import Path

import pandas as pd

from dplab.report.claims import KINDS, SEVERITIES, VERDICTS
from dplab.report.tables import to_markdown

__all__ = ["ABBREVIATIONS", "declared_order", "first_sentence", "one_line_reason", "render_index", "verdict_summary"]


def declared_order(ids: list[str]) -> list[str]:
    """Artifact ids with the paper's own first, then extensions (``ext_...``), each group in the declared order."""
    return [i for i in ids if not i.startswith("ext_")] + [i for i in ids if i.startswith("ext_")]


#: Words that end with a period inside a sentence of this project's evidence texts ("Prop. 1", "Figs. 2-3",
#: "Sec. IV", "et al.", "e.g."): a ". " after one of them does not end the sentence.
ABBREVIATIONS = frozenset(
    "al alg algs app approx cf ch cor cors def defs e.g eq eqs etc fig figs i.e lem lemm no nos p pp prop props ref "
    "refs resp sec secs st thm thms vs".split()
)


def first_sentence(text: str) -> str:
    """The first whole sentence of ``text`` (whitespace collapsed): up to the first ". " that follows neither an
    abbreviation (:data:`ABBREVIATIONS`) nor a single letter (an initial, a variable: "i. e."), or all of ``text``.
    A sentence is never cut."""
    text = " ".join(str(text).split())
    for position in _positions(text, ". "):
        word = text[:position].rsplit(" ", 1)[-1].lstrip("([").lower()
        if word not in ABBREVIATIONS and len(word) > 1:
            return text[: position + 1]
    return text


def one_line_reason(evidence: str) -> str:
    """The reason the index shows for a claim: the first whole sentence of its evidence (never cut)."""
    return first_sentence(evidence)


def _positions(text: str, needle: str) -> list[int]:
    return [i for i in range(len(text)) if text.startswith(needle, i)]


def _caption(captions: Mapping[str, str], study: str, artifact: str) -> str:
    try:
        return captions[artifact]
    except KeyError:
        raise KeyError(
            f"no caption for {study}/{artifact}: declare one in the study's Artifact (dplab.studies.<study>)"
        ) from None


def _meaning_table(header: str, meanings: Mapping[str, str]) -> list[str]:
    return [
        f"| {header} | meaning |",
        "|---|---|",
        *(f"| `{word}` | {meaning} |" for word, meaning in meanings.items()),
    ]


#: The columns of the summary table: each verdict, an erratum split by its severity.
_PAPER_COLUMNS = ("holds", "partial", "fails", *(f"erratum: {s}" for s in SEVERITIES), "not_tested")
_EXTENSION_COLUMNS = ("holds", "partial", "fails", "not_tested")


def _outcome(claims: pd.DataFrame) -> pd.Series:
    """A row's column in the summary: its verdict, or ``erratum: <severity>``."""
    severity = claims["severity"].fillna("")
    return claims["verdict"].where(claims["verdict"] != "erratum", "erratum: " + severity)


def verdict_summary(claims: Mapping[str, pd.DataFrame]) -> list[str]:
    """Markdown lines of two tables, study x verdict: the paper's claims (an erratum counted under its severity),
    then our extensions (never counted as the paper's)."""
    lines = []
    for kind, columns, title in (
        ("paper", _PAPER_COLUMNS, "Claims of the papers"),
        ("extension", _EXTENSION_COLUMNS, "Extensions (our hypotheses, not claims of the papers)"),
    ):
        counts = {
            study: _outcome(frame[frame["kind"] == kind]).value_counts().reindex(columns, fill_value=0)
            for study, frame in claims.items()
        }
        header = f"| study | {' | '.join(columns)} | total |"
        lines += [f"{title}:", "", header, "|---" * (len(columns) + 2) + "|"]
        for study, count in counts.items():
            lines.append(f"| {study} | {' | '.join(str(int(c)) for c in count)} | {int(count.sum())} |")
        lines.append("")
    return lines


def _claim_rows(claims: pd.DataFrame, kind: str) -> pd.DataFrame:
    rows = claims[claims["kind"] == kind]
    columns = (
        ["claim_id", "verdict", "severity", "statement"] if kind == "paper" else ["claim_id", "verdict", "statement"]
    )
    return rows[columns].fillna("").assign(reason=rows["evidence"].map(one_line_reason), artifact=rows["artifact"])


def _claims_section(study: str, claims: pd.DataFrame) -> list[str]:
    """The study's claims of the paper, then, in a section of their own, its extensions."""
    lines = []
    for kind, title in (
        ("paper", "Claims of the paper"),
        ("extension", "Extensions (our hypotheses, not the paper's)"),
    ):
        rows = _claim_rows(claims, kind)
        if rows.empty:
            continue
        counts = _outcome(claims[claims["kind"] == kind]).value_counts().to_dict()
        summary = ", ".join(f"{v} {k}" for k, v in sorted(counts.items()))
        lines += ["", f"### {title} ([claims.csv]({study}/claims.csv): {summary})", "", to_markdown(rows)]
    return lines


def render_index(
    results_dir: str | Path,
    studies: Mapping[str, Mapping[str, object]],
    figure_formats: tuple[str, ...] = ("png", "pdf"),
) -> str:
    """Render the index of ``results_dir`` for the given studies.

    ``studies`` maps a study folder name to ``{"title", "paper", "captions": {id: caption}, "figures": [ids],
    "tables": [ids]}``: the figures and tables the current configuration DECLARES. The index lists exactly those
    (never what happens to lie in a folder: stray files, temporaries of a killed write, a user's notes or artifacts
    of an earlier configuration are ignored), each with its caption, and every claim of ``claims.csv`` with its
    verdict and a one-line reason. Each figure links the files of ``figure_formats`` (the configuration's).
    """
    results_dir = Path(results_dir)
    claims = {
        study: pd.read_csv(results_dir / study / "claims.csv", keep_default_na=False)
        for study in studies
        if (results_dir / study / "claims.csv").exists()
    }
    lines = [
        "# dplab results",
        "",
        "Every figure and table below is regenerated by `snakemake --cores N`; ids starting with `ext_` are "
        "extensions that are not in the papers. Each study's `claims.csv` gives a verdict for every claim of its "
        "paper, and for each hypothesis of ours (kind `extension`, never counted as the paper's), with the numbers "
        "that decide it and its decision rule (column `evidence`); below, each claim shows the first sentence of its "
        "evidence. `provenance.json` records versions, commit and configuration hash. "
        "Speed measurements are not part of the workflow: `python -m benchmarks` writes them to "
        "`results/performance/` (`summary.md`).",
        "",
        *verdict_summary(claims),
        *_meaning_table("verdict", VERDICTS),
        "",
        *_meaning_table("severity (erratum rows)", SEVERITIES),
        "",
        *_meaning_table("kind", KINDS),
        "",
    ]
    for study, meta in studies.items():
        captions = meta["captions"]
        lines += [f"## {meta['title']} (`{study}/`)", "", f"Paper: {meta['paper']}", ""]
        figures, tables = declared_order(list(meta["figures"])), declared_order(list(meta["tables"]))
        if figures:
            lines += ["### Figures", ""]
        for fig in figures:
            data = f"{study}/data/{fig}.csv"
            data_link = f", [data]({data})" if (results_dir / data).exists() else ""
            files = ", ".join(f"[{kind}]({study}/figures/{fig}.{kind})" for kind in figure_formats)
            lines += [
                f"- **{fig}**: {_caption(captions, study, fig)} ({files}{data_link})",
                "",
                f"  ![{fig}]({study}/figures/{fig}.png)",
                "",
            ]
        if tables:
            lines += ["### Tables", ""]
        for table in tables:
            lines.append(
                f"- **{table}**: {_caption(captions, study, table)} "
                f"([markdown]({study}/tables/{table}.md), [csv]({study}/tables/{table}.csv))"
            )
        if study in claims:
            lines += _claims_section(study, claims[study])
        lines.append("")
    return "\n".join(lines).rstrip() + "\n"
