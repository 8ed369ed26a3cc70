"""benchmarks/config.20x.yaml (issue 13): the issue's values (20x the seeds of config.yaml's heaviest sweeps), valid against the schema, writing to folders of its own, and spreading the sweeps
whose points split their seeds or values over tens of jobs at 50 shards."""

from pathlib import Path

import pytest
import yaml

from dplab.workflow.config import load_config, validate_config
from dplab.workflow.registry import load_study

ROOT = Path(__file__).resolve().parents[2]
OVERLAY = "benchmarks/config.20x.yaml"
SCALED = {  # key: factor over config.yaml, as issue 13 lists them
    ("purification", "dp_erm", "seeds"): 20,
    ("purification", "dp_erm_sc", "seeds"): 20,
    ("purification", "linear_regression", "seeds"): 20,
    ("purification", "query_release", "seeds"): 20,
    ("generalization", "empirical", "runs"): 20,
    ("preprocessing", "fig3", "seeds"): 20,
}


def read(name):
    return yaml.safe_load((ROOT / name).read_text(encoding="utf-8"))


def leaves(mapping, prefix=()):
    for key, value in mapping.items():
        yield from leaves(value, (*prefix, key)) if isinstance(value, dict) else [((*prefix, key), value)]


def test_the_issues_values_and_outputs_elsewhere():
    overlay, full = read(OVERLAY), read("config.yaml")
    assert {path for path, _ in leaves(overlay)} == {*SCALED, ("results",), ("work",)}
    for (study, section, key), factor in SCALED.items():
        assert overlay[study][section][key] == factor * full[study][section][key], (study, section, key)
    assert (overlay["results"], overlay["work"]) == ("results-20x", "work-20x")


def test_the_merged_configuration_is_valid():
    validate_config(load_config(OVERLAY), ROOT / "workflow" / "schemas" / "config.schema.yaml")


@pytest.mark.parametrize(
    "study, artifact",
    [
        ("purification", "ext_dp_erm"),
        ("purification", "ext_dp_erm_sc"),
        ("purification", "ext_linear_regression"),
        ("purification", "ext_query_release"),
        ("generalization", "f8"),
        ("preprocessing", "fig2"),
    ],
)
def test_sweeps_with_a_point_per_seed_or_value_run_as_tens_of_jobs_at_50_shards(study, artifact):
    config = load_config(OVERLAY)
    declared = load_study(study).artifact(artifact)
    assert min(50, len(declared.sweep(config[study][declared.section]))) >= 20
