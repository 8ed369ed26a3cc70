"""Every configuration key has a documented limit (issue 26): numbers are bounded on both sides, lists in length, and
each limit states its reason (the schema annotation ``limit_reason``, rendered in docs/configuration.md and added to
the message that refuses a value beyond it). A new key without limit coverage fails here."""

from pathlib import Path

import pytest
import yaml

from dplab.workflow.config import EXACT_FLOAT_INTEGERS, ConfigError, load_config, load_schemas, validate_config
from dplab.workflow.config_reference import render_reference, schema_rows

ROOT = Path(__file__).resolve().parents[2]
SCHEMA = ROOT / "workflow" / "schemas" / "config.schema.yaml"
SCHEMAS = load_schemas()
ROWS = dict(schema_rows(SCHEMAS["config.schema.yaml"], SCHEMAS))
LEAVES = {dotted: schema for dotted, schema in ROWS.items() if "properties" not in schema}


def value_schema(schema: dict) -> dict:
    """The schema of the values a key holds: its items for a list, itself otherwise."""
    return schema.get("items", {}) if schema.get("type") == "array" else schema


def types(schema: dict) -> set[str]:
    kind = value_schema(schema).get("type", [])
    return set(kind if isinstance(kind, list) else [kind])


NUMBERS = sorted(dotted for dotted, schema in LEAVES.items() if types(schema) & {"number", "integer"})
FLOATS = sorted(dotted for dotted, schema in LEAVES.items() if "number" in types(schema))
LISTS = sorted(dotted for dotted, schema in LEAVES.items() if schema.get("type") == "array")
PAGE = " ".join(render_reference().split())


def is_name_choice(schema: dict) -> bool:
    """A key whose values are names from a fixed list (its limit is the list) or a boolean."""
    return "enum" in value_schema(schema) or types(schema) == {"boolean"}


def test_the_walk_sees_every_kind_of_key():
    """The tests below can fail: the rows hold floats, integers, lists, names and mappings of names."""
    assert len(FLOATS) > 150 and len(NUMBERS) > 300 and len(LISTS) > 80
    assert "purification.fig3.epsilon" in FLOATS and "contraction.audit.configs" in LEAVES


@pytest.mark.parametrize("dotted", NUMBERS)
def test_every_number_is_bounded_on_both_sides(dotted):
    values = value_schema(LEAVES[dotted])
    assert {"maximum", "exclusiveMaximum"} & set(values), f"{dotted} has no upper limit"
    assert {"minimum", "exclusiveMinimum"} & set(values), f"{dotted} has no lower limit"


@pytest.mark.parametrize("dotted", [d for d in NUMBERS if "integer" in types(LEAVES[d])])
def test_every_integer_maximum_is_below_the_exact_float_range(dotted):
    """An integral float beyond 2^53 stays a float (dplab.workflow.config.integers_from_integral_floats): the maximum must
    refuse it."""
    assert value_schema(LEAVES[dotted])["maximum"] < EXACT_FLOAT_INTEGERS


@pytest.mark.parametrize("dotted", LISTS)
def test_every_list_has_a_largest_length(dotted):
    schema = LEAVES[dotted]
    distinct_names = "enum" in value_schema(schema) and schema.get("uniqueItems")
    assert "maxItems" in schema or distinct_names, f"{dotted} has no maxItems"


@pytest.mark.parametrize("dotted", sorted(d for d, s in LEAVES.items() if not is_name_choice(s)))
def test_every_limit_states_its_reason(dotted):
    reason = LEAVES[dotted].get("limit_reason", "")
    assert len(reason.split()) >= 3, f"{dotted} lacks a limit_reason"
    assert reason in PAGE, f"{dotted}: its reason is not rendered"


def test_a_new_key_without_a_limit_would_fail(monkeypatch):
    """The checks above flag a float key added without maximum and reason."""
    section = SCHEMAS["purification.schema.yaml"]["properties"]["fig3"]["properties"]
    monkeypatch.setitem(section, "new_rate", {"description": "a new rate", "type": "number", "exclusiveMinimum": 0})
    rows = dict(schema_rows(SCHEMAS["config.schema.yaml"], SCHEMAS))
    new = rows["purification.fig3.new_rate"]
    assert not {"maximum", "exclusiveMaximum"} & set(new) and "limit_reason" not in new


@pytest.mark.parametrize("files", [(), ("config.quick.yaml",), ("benchmarks/config.20x.yaml",)])
def test_shipped_configurations_are_within_the_limits(files):
    validate_config(load_config(*files), SCHEMA)


def refusal(config: dict) -> str:
    with pytest.raises(ConfigError) as error:
        validate_config(config, SCHEMA)
    return str(error.value)


def test_a_huge_epsilon_is_refused_with_the_reason_before_any_job():
    """The issue's example: epsilon = 1e300 reached an OverflowError inside the job."""
    config = load_config()
    config["purification"]["fig3"]["epsilon"] = 1.0e300
    message = refusal(config)
    reason = LEAVES["purification.fig3.epsilon"]["limit_reason"]
    assert (
        f"config key 'purification.fig3.epsilon': 1e+300 is greater than the maximum of 50; allowed: <= 50 ({reason})"
        in message
    )


def test_a_list_item_beyond_its_limit_names_the_lists_reason():
    config = load_config()
    config["preprocessing"]["fig3"]["epsilons"] = [1.0, 1.0e9]
    reason = LEAVES["preprocessing.fig3.epsilons"]["limit_reason"]
    assert (
        f"config key 'preprocessing.fig3.epsilons[1]': 1000000000.0 is greater than the maximum of 50; allowed: <= 50 ({reason})"
        in refusal(config)
    )


def test_a_list_too_long_is_refused_with_its_reason():
    config = load_config()
    config["purification"]["theorem2"]["epsilons"] = [0.01 * (k + 1) for k in range(101)]
    message = refusal(config)
    assert "config key 'purification.theorem2.epsilons'" in message and "allowed: at most 100 items (" in message


def test_a_value_in_a_mapping_of_names_gets_its_reason():
    config = load_config()
    config["contraction"]["audit"]["configs"]["G1"]["interval"] = [0.0, 1.0e6]
    reason = LEAVES["contraction.audit.configs.*.interval"]["limit_reason"]
    assert f"allowed: <= 100 ({reason})" in refusal(config)


def test_the_schema_files_parse_with_the_limit_annotation_as_an_annotation_only():
    """``limit_reason`` is not a JSON-Schema keyword: validation ignores it (a valid value stays valid)."""
    schema = yaml.safe_load((ROOT / "workflow" / "schemas" / "purification.schema.yaml").read_text(encoding="utf-8"))
    assert "limit_reason" in schema["properties"]["fig3"]["properties"]["epsilon"]
