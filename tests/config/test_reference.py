"""The schemas document every key (description, default equal to config.yaml's) and the reference page is current."""

from pathlib import Path

import pytest
import yaml

from dplab.workflow.config import load_schemas, resolve
from dplab.workflow.config_reference import REFERENCE_PAGE, allowed_text, render_reference, schema_rows

ROOT = Path(__file__).resolve().parents[2]
SCHEMAS = load_schemas()
TOP = SCHEMAS["config.schema.yaml"]
ROWS = dict(schema_rows(TOP, SCHEMAS))


def load(name: str) -> dict:
    with open(ROOT / name, encoding="utf-8") as handle:
        return yaml.safe_load(handle)


def leaves(config: dict, where: str = "") -> dict[str, object]:
    """Dotted key -> value of every key of a configuration that is not a section of the schema."""
    out = {}
    for key, value in config.items():
        dotted = f"{where}.{key}" if where else key
        if isinstance(value, dict) and "properties" in ROWS.get(dotted, {}):
            out.update(leaves(value, dotted))
        else:
            out[dotted] = value
    return out


def test_reference_page_is_up_to_date():
    assert REFERENCE_PAGE.read_text(encoding="utf-8") == render_reference(), (
        "docs/configuration.md is out of date: run `python -m dplab.workflow.config_reference`"
    )


def test_every_study_has_its_own_schema_file_referenced_from_the_top_level():
    assert {v["$ref"] for v in TOP["properties"].values() if "$ref" in v} == {
        f"{name}.schema.yaml" for name in ("contraction", "preprocessing", "generalization", "purification")
    }


@pytest.mark.parametrize("dotted", sorted(ROWS))
def test_every_key_has_a_description(dotted):
    assert len(ROWS[dotted].get("description", "").split()) >= 3, f"{dotted} lacks a description"


def test_every_key_outside_a_list_has_a_default():
    missing = [
        k for k, s in ROWS.items() if "[]" not in k and ".*." not in k and "properties" not in s and "default" not in s
    ]
    assert missing == []


def test_every_default_equals_config_yaml():
    config = leaves(load("config.yaml"))
    defaults = {k: s["default"] for k, s in ROWS.items() if "default" in s}
    assert defaults == config


@pytest.mark.parametrize("name", ["config.yaml", "config.quick.yaml"])
def test_config_files_hold_only_keys_the_schema_knows(name):
    unknown = [k for k in leaves(load(name)) if k not in ROWS or "[]" in k or ".*." in k]
    assert unknown == []


def test_every_integer_size_has_a_maximum_with_its_reason():
    for dotted, schema in ROWS.items():
        item = schema.get("items", {}) if schema.get("type") == "array" else schema
        if item.get("type") == "integer":
            assert "maximum" in item, dotted
    for dotted in (
        "preprocessing.fig3.n",
        "preprocessing.fig3.d",
        "generalization.empirical.runs",
        "purification.dp_erm.seeds",
        "purification.tables.n",
    ):
        assert "at most" in ROWS[dotted]["limit_reason"], dotted


def test_leaf_detection_would_flag_an_unknown_key():
    config = load("config.yaml")
    config["preprocessing"]["fig3"]["n_typo"] = 3
    assert "preprocessing.fig3.n_typo" not in ROWS and "preprocessing.fig3.n_typo" in leaves(config)


def test_allowed_text_states_bounds_names_and_lengths():
    assert allowed_text({"type": "integer", "minimum": 1, "maximum": 10}) == ">= 1; <= 10"
    assert allowed_text({"type": "number", "exclusiveMinimum": 0, "exclusiveMaximum": 1}) == "> 0; < 1"
    assert allowed_text({"enum": ["a", "b"]}) == "one of a, b"
    assert (
        allowed_text({"type": "array", "items": {"type": "integer", "minimum": 1}, "minItems": 1, "uniqueItems": True})
        == "list of integer (>= 1); at least 1 items; no repeats"
    )


def test_resolve_follows_a_reference_to_a_study_file():
    assert resolve(TOP["properties"]["purification"], SCHEMAS) is SCHEMAS["purification.schema.yaml"]
