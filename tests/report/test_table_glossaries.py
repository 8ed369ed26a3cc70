"""Every column a table's Markdown shows is self-explaining or explained by the glossary declared with the table
(built from the committed CSVs with config.yaml, the way the workflow builds them)."""

from __future__ import annotations

from pathlib import Path

import pandas as pd
import pytest
import yaml

from dplab.report.tables import table_markdown, unexplained_columns
from dplab.workflow.registry import Artifact, load_study, resolve

ROOT = Path(__file__).resolve().parents[2]
CONFIG = yaml.safe_load((ROOT / "config.yaml").read_text(encoding="utf-8"))
TABLES = [
    (name, artifact)
    for name in ("contraction", "generalization", "preprocessing", "purification")
    for artifact in load_study(name).artifacts
    if artifact.writes_table
]


def _shown(study: str, artifact: Artifact) -> tuple[pd.DataFrame, pd.DataFrame | None]:
    """The table's CSV and the summary its Markdown shows instead (None: the Markdown shows the CSV)."""
    frame = pd.read_csv(ROOT / "results" / study / "tables" / f"{artifact.id}.csv")
    summary = resolve(artifact.summary)(frame, artifact.params(CONFIG[study])) if artifact.summary else None
    return frame, summary


def test_every_study_table_is_checked():
    assert len(TABLES) >= 20
    assert ("purification", "table2") in {(study, artifact.id) for study, artifact in TABLES}


@pytest.mark.parametrize(("study", "artifact"), TABLES, ids=lambda value: getattr(value, "id", value))
def test_every_shown_column_is_explained(study, artifact):
    frame, summary = _shown(study, artifact)
    shown = frame if summary is None else summary
    assert unexplained_columns(shown.columns, artifact.glossary) == []
    text = table_markdown(frame, f"{artifact.id}.csv", summary=summary, glossary=artifact.glossary)
    assert text.rstrip().splitlines()[-1].startswith("- `")  # the Markdown ends with the glossary


def test_a_glossary_needs_a_table():
    with pytest.raises(ValueError, match="glossary explains a table's columns"):
        Artifact("f", "figure", "s", "m:f", "caption", plot="m:p", glossary={"x": "a column"})


def test_braces_are_refused_before_snakemake_reads_them_as_wildcards():
    with pytest.raises(ValueError, match="without '\\{' or '\\}'"):
        Artifact("t", "table", "s", "m:f", "Caption.", glossary={"x": "threshold ε^d/(2d)^{3d}"})


def test_report_caption_lists_the_glossary_only_when_the_csv_has_its_columns():
    plain = Artifact("t", "table", "s", "m:f", "Caption.", glossary={"x_y": "the thing (count)"})
    assert plain.report_caption() == "Caption.\n\nColumns:\n\n- x_y: the thing (count)"
    summarised = Artifact("t", "table", "s", "m:f", "Caption.", summary="m:s", glossary={"x y": "the thing"})
    assert summarised.report_caption() == "Caption."
