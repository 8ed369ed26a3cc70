"""The float limits keep the arithmetic finite (issue 26): cheap artifacts computed with keys at their schema maxima
have no more NaN or infinite cells, column by column, than with the quick configuration's values. (The limits were
chosen from a stress run of the whole quick configuration with every new maximum at once; these are the cheap
artifacts of that run, kept as a regression test. ``purification.fig3.epsilon = 1e300`` was the issue's
OverflowError.)"""

import numpy as np
import pandas as pd
import pytest

from dplab.workflow.config import load_config, load_schemas
from dplab.workflow.config_reference import schema_rows
from dplab.workflow.registry import compute_artifact, load_study

SCHEMAS = load_schemas()
ROWS = dict(schema_rows(SCHEMAS["config.schema.yaml"], SCHEMAS))


def largest(dotted: str) -> float:
    """The largest value the schema allows at ``dotted`` (just below an exclusive maximum)."""
    schema = ROWS[dotted]
    values = schema.get("items", {}) if schema.get("type") == "array" else schema
    return values["maximum"] if "maximum" in values else values["exclusiveMaximum"] * (1 - 1e-9)


def at_maximum(section: dict, key: str, dotted: str) -> None:
    """Set ``key`` of ``section`` to its largest allowed value (a list gets it as one more value)."""
    value = largest(dotted)
    section[key] = [*section[key], value] if isinstance(section[key], list) else value


#: (study, artifact, keys set to their maxima within the study's section).
CASES = [
    ("generalization", "f1", ["kl.eps_max"]),
    ("generalization", "f3", ["on_average.eps_max"]),
    ("generalization", "f4", ["epsilon_vs_steps.eps_steps"]),
    ("purification", "fig1", ["fig1.epsilon"]),
    ("purification", "fig3", ["fig3.epsilon", "fig3.epsilon_prime"]),
    ("purification", "table1", ["tables.epsilon", "tables.lam", "tables.local_sensitivity"]),
    ("purification", "ext_theorem2_utility", ["theorem2.epsilons"]),
    ("contraction", "fig2", ["figures.fig2.sigma", "figures.fig2.diameter", "figures.fig2.epsilon_max"]),
]


def nonfinite_fractions(study: str, artifact_id: str, study_config: dict) -> pd.Series:
    artifact = load_study(study).artifact(artifact_id)
    frame = compute_artifact(artifact, artifact.params(study_config), 1)
    numbers = frame.select_dtypes("number")
    return pd.Series((~np.isfinite(numbers.to_numpy(float))).mean(axis=0), index=numbers.columns)


@pytest.mark.parametrize(("study", "artifact_id", "keys"), CASES, ids=[f"{s}.{a}" for s, a, _ in CASES])
def test_an_artifact_at_its_maxima_is_as_finite_as_at_the_quick_values(study, artifact_id, keys):
    quick = load_config("config.quick.yaml")[study]
    stressed = load_config("config.quick.yaml")[study]
    for key in keys:
        *parents, last = key.split(".")
        section = stressed
        for part in parents:
            section = section[part]
        at_maximum(section, last, f"{study}.{key}")
    before, after = nonfinite_fractions(study, artifact_id, quick), nonfinite_fractions(study, artifact_id, stressed)
    worse = after[after > before.reindex(after.index, fill_value=0.0)]
    assert worse.empty, f"more NaN/inf at the maxima of {keys}: {worse.to_dict()}"


@pytest.mark.filterwarnings("ignore:overflow encountered:RuntimeWarning")
def test_the_comparison_can_fail():
    """Beyond a limit the same comparison flags it: generalization f1 at eps_max = 710 (above its maximum 700), where
    DRV10's eps(e^eps - 1) overflows."""
    quick = load_config("config.quick.yaml")["generalization"]
    beyond = load_config("config.quick.yaml")["generalization"]
    beyond["kl"]["eps_max"] = 710.0
    before, after = (
        nonfinite_fractions("generalization", "f1", quick),
        nonfinite_fractions("generalization", "f1", beyond),
    )
    assert (after > before).any()
