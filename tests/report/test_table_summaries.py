"""The Markdown summaries of long or wide tables, built from the committed CSVs with config.yaml: short, no
``nan``, and consistent with the full table they summarise."""

from __future__ import annotations

import re
from pathlib import Path

import numpy as np
import pandas as pd
import pytest
import yaml

from dplab.report.tables import table_markdown
from dplab.workflow.registry import Artifact, load_study, resolve

ROOT = Path(__file__).resolve().parents[2]
CONFIG = yaml.safe_load((ROOT / "config.yaml").read_text(encoding="utf-8"))
SUMMARISED = [
    (name, artifact)
    for name in ("preprocessing", "generalization", "purification")
    for artifact in load_study(name).artifacts
    if artifact.summary
]
MAX_ROWS, MAX_COLUMNS = 40, 10


def _summary(study: str, artifact) -> tuple[pd.DataFrame, pd.DataFrame]:
    frame = pd.read_csv(ROOT / "results" / study / "tables" / f"{artifact.id}.csv")
    return frame, resolve(artifact.summary)(frame, CONFIG[study][artifact.section])


def test_the_long_tables_named_in_issue_17_have_summaries():
    assert {(study, artifact.id) for study, artifact in SUMMARISED} >= {
        ("purification", "ext_exact_audit"),
        ("generalization", "t4"),
    }


@pytest.mark.parametrize(("study", "artifact"), SUMMARISED, ids=lambda value: getattr(value, "id", value))
def test_summary_is_short_and_never_prints_nan(study, artifact):
    frame, summary = _summary(study, artifact)
    assert 0 < len(summary) <= MAX_ROWS and len(summary.columns) <= MAX_COLUMNS
    text = table_markdown(frame, f"{artifact.id}.csv", caption=artifact.caption, summary=summary)
    assert not re.search(r"\bnan\b", text, flags=re.IGNORECASE)
    assert f"({len(frame)} rows × {len(frame.columns)} columns)" in text


def test_exact_audit_summary_counts_every_configuration_and_the_bound_independently():
    artifact = load_study("purification").artifact("ext_exact_audit")
    frame, summary = _summary("purification", artifact)
    assert summary["configurations"].sum() == len(frame)
    for row in summary.itertuples(index=False):
        full = frame[(frame["mechanism"] == row.mechanism)]
        assert row[4] == pytest.approx(
            full[full["treatment"].map(lambda t: t in _codes(row.treatment))]["epsilon_inf"].max()
        )
    full = summary[summary["treatment"] == "full purification"]
    violations = frame[(frame["treatment"] == "full") & (frame["epsilon_inf"] > frame["bound"])]
    assert (full["ε∞ ≤ ε + ε′"] == "all").all() == violations.empty


def _codes(name: str) -> set[str]:
    """The treatment codes a summary row's readable treatment name can stand for."""
    if name.startswith("full, Laplace scale × "):
        return {"full_scale_x" + name.removeprefix("full, Laplace scale × ")}
    return {
        "none": {"none"},
        "mixing only": {"mixing_only"},
        "Laplace only": {"laplace_only"},
        "full purification": {"full"},
    }[name]


def test_empirical_summary_is_the_reference_t_slice():
    artifact = load_study("generalization").artifact("t4")
    frame, summary = _summary("generalization", artifact)
    reference = frame[frame["t"] == CONFIG["generalization"][artifact.section]["reference_t"]]
    assert len(summary) == reference[["n", "sigma"]].drop_duplicates().shape[0]
    first = reference.sort_values(["n", "sigma", "d"]).iloc[0]
    assert summary.iloc[0][f"E[R − R̂] [CI], d = {first['d']}"] == (
        f"{first['mean_gap']:.2g} [{first['gap_ci_low']:.2g}, {first['gap_ci_high']:.2g}]"
    )
    assert summary.iloc[0]["sets × runs"] == f"{first['datasets']} × {first['replicates'] // first['datasets']}"
    no_privacy = summary[summary["σ"] == 0]
    assert (no_privacy["Thm 1 HP bound (valid)"] == "no bound").all()
    assert np.all(summary["T"] == CONFIG["generalization"][artifact.section]["reference_t"])


def test_only_tables_have_summaries():
    with pytest.raises(ValueError, match="only a table can have a summary"):
        Artifact("f", "figure", "s", "m:f", "caption", plot="m:p", summary="m:s")


def test_mode_release_summary_keeps_every_configuration_group_and_the_largest_epsilon():
    artifact = load_study("purification").artifact("ext_mode_release_audit")
    frame, summary = _summary("purification", artifact)
    assert len(summary) == frame[["treatment", "delta_rule", "bottom"]].drop_duplicates().shape[0]
    sizes = sorted(frame["universe_size"].unique())
    largest = summary[[f"largest ε∞, |X| = {size}" for size in sizes]].to_numpy(float)
    assert np.nanmax(np.where(np.isfinite(largest), largest, np.nan)) == pytest.approx(
        frame.loc[np.isfinite(frame["epsilon_inf"]), "epsilon_inf"].max()
    )


def test_composition_summary_marks_exactly_the_impossible_certificates():
    artifact = load_study("generalization").artifact("t2")
    frame, summary = _summary("generalization", artifact)
    assert len(summary) == frame[["epsilon_step", "delta_step", "t"]].drop_duplicates().shape[0]
    marked = sum(
        str(cell).endswith("✗") for column in summary.columns if column.startswith("δ′") for cell in summary[column]
    )
    shown = frame[
        frame["method"].isin(["kov", "cor2", "cor3_corrected", "cor3_as_printed", "optimal_at_kov_eps", "lower_bound"])
    ]
    assert marked == int(shown["below_optimal"].astype(str).str.lower().eq("true").sum()) > 0
    text = table_markdown(frame, "t2.csv", summary=summary)
    assert "✗: below the exact optimal" in text
