"""Configuration validation: the shipped configurations pass; every kind of bad value is named clearly; an integer
written as an exactly integral float is that integer."""

import copy
import re
import subprocess
import sys
from pathlib import Path

import pytest
import yaml
from snakemake.utils import update_config

from dplab.workflow.config import ConfigError, load_config, merge_config, validate_config

ROOT = Path(__file__).resolve().parents[2]
SCHEMA = ROOT / "workflow" / "schemas" / "config.schema.yaml"


def load(name: str) -> dict:
    with open(ROOT / name, encoding="utf-8") as handle:
        return yaml.safe_load(handle)


@pytest.fixture
def config() -> dict:
    return load("config.yaml")


def problems(config: dict) -> str:
    with pytest.raises(ConfigError) as error:
        validate_config(config, SCHEMA)
    return str(error.value)


def test_full_configuration_is_valid(config):
    validate_config(config, SCHEMA)


def test_quick_configuration_merged_over_full_is_valid(config):
    update_config(config, load("config.quick.yaml"))
    validate_config(config, SCHEMA)
    assert config["contraction"]["audit"]["run"] == ["G1", "L2"]


def test_negative_noise_names_key_value_and_bound(config):
    config["contraction"]["audit"]["configs"]["G1"]["scale"] = -2.0
    message = problems(config)
    assert "contraction.audit.configs.G1.scale" in message
    assert "-2.0" in message
    assert "> 0" in message


def test_position_beyond_n(config):
    config["contraction"]["audit"]["positions"] = [40, 45]
    message = problems(config)
    assert "contraction.audit.positions[1]': value 45" in message
    assert "1 <= i <= n = 40" in message


def test_unknown_noise_name_lists_allowed(config):
    config["contraction"]["audit"]["configs"]["L1"]["noise"] = "cauchy"
    message = problems(config)
    assert "contraction.audit.configs.L1.noise" in message
    assert "'cauchy'" in message
    assert "gaussian, laplace" in message


def test_step_size_violating_lemma4(config):
    config["contraction"]["figures"]["fig3"]["lr"] = 3.0  # 2/(0.3 + 0.4) = 2.857
    message = problems(config)
    assert "contraction.figures.fig3.lr': value 3.0" in message
    assert "lr < 2/(beta_smooth + rho) = 2.85714" in message


def test_missing_key_gets_its_default(config):
    del config["contraction"]["audit"]["monte_carlo"]["alpha"]
    validate_config(config, SCHEMA)
    assert config["contraction"]["audit"]["monte_carlo"]["alpha"] == 0.01


def test_unknown_key_is_rejected(config):
    config["contraction"]["audit"]["sample"] = 3
    assert "Additional properties are not allowed ('sample' was unexpected)" in problems(config)


def test_run_must_name_a_defined_configuration(config):
    config["contraction"]["audit"]["run"] = ["G1", "G9"]
    assert "contraction.audit.run[1]': value 'G9' is invalid; allowed: one of G1, G2, L1, L2" in problems(config)


def test_random_stopping_needs_gaussian_configuration(config):
    config["contraction"]["random_stopping"]["config"] = "L1"
    assert "Theorem 5 is stated for Gaussian noise" in problems(config)


def test_reversed_interval(config):
    config["contraction"]["laplace"]["interval"] = [1.0, 0.0]
    assert "contraction.laplace.interval': value [1.0, 0.0] is invalid; allowed: [a, b] with a < b" in problems(config)


def test_all_problems_reported_at_once(config):
    bad = copy.deepcopy(config)
    bad["seed"] = -1
    bad["threads"] = 0
    message = problems(bad)
    assert "'seed'" in message and "'threads'" in message


def test_each_swept_step_size_is_checked(config):
    config["contraction"]["laplace"]["lrs"] = [0.5, 4.0]
    assert "contraction.laplace.lrs[1]': value 4.0 is invalid; allowed: lr < 2/(beta_smooth + rho) = 4" in problems(
        config
    )


def _repeated_values(full: dict, override: dict, where: str = "") -> list[str]:
    """Keys of ``override`` whose value (same type) equals ``full``'s: lists compared whole (Snakemake replaces them)."""
    repeated = []
    for key, value in override.items():
        dotted = f"{where}.{key}" if where else key
        if isinstance(value, dict) and isinstance(full.get(key), dict):
            repeated += _repeated_values(full[key], value, dotted)
        elif key in full and type(full[key]) is type(value) and full[key] == value:
            repeated.append(dotted)
    return repeated


def test_quick_configuration_holds_only_values_that_differ(config):
    assert _repeated_values(config, load("config.quick.yaml")) == []


def test_partial_configfile_gets_every_other_key_from_the_schema_defaults(config):
    partial = {"preprocessing": {"fig3": {"n": 300}}, "studies": ["preprocessing"]}
    validate_config(partial, SCHEMA)
    expected = copy.deepcopy(config)
    expected["preprocessing"]["fig3"]["n"] = 300
    expected["studies"] = ["preprocessing"]
    assert partial == expected


def test_section_given_as_a_scalar_is_reported_not_filled(config):
    config["contraction"]["regime"] = 3
    assert "config key 'contraction.regime': 3 is not of type 'object'" in problems(config)


def test_merge_config_merges_mappings_and_replaces_lists():
    base = {"a": {"x": 1, "y": [1, 2, 3]}, "b": 2}
    merge_config(base, {"a": {"y": [9]}, "c": {"z": 1}})
    assert base == {"a": {"x": 1, "y": [9]}, "b": 2, "c": {"z": 1}}


def test_load_config_merges_like_snakemake(config):
    update_config(config, load("config.quick.yaml"))
    assert load_config("config.quick.yaml") == config


def test_dry_run_with_a_partial_configfile_validates_and_plans(tmp_path):
    """End to end through the Snakefile's validation call (config.yaml is the Snakefile's base configfile)."""
    partial = tmp_path / "partial.yaml"
    partial.write_text("results: out\nwork: wk\npreprocessing:\n  fig3: {n: 300}\n", encoding="utf-8")
    result = subprocess.run(
        [
            sys.executable,
            "-m",
            "snakemake",
            "-s",
            str(ROOT / "Snakefile"),
            "-d",
            str(tmp_path),
            "--cores",
            "1",
            "--configfile",
            str(partial),
            "-n",
        ],
        capture_output=True,
        text=True,
        cwd=tmp_path,
    )
    assert result.returncode == 0, result.stderr[-2000:]
    assert "This was a dry-run" in result.stdout + result.stderr
    assert not (tmp_path / "out").exists()


# Integers written as floats (issue 26): accepted when exactly integral, turned into int before any job.


def typed(value):
    """``value`` with every number tagged by its type, so that 60 and 60.0 compare different."""
    if isinstance(value, dict):
        return {key: typed(child) for key, child in value.items()}
    if isinstance(value, list):
        return [typed(child) for child in value]
    return (type(value).__name__, value)


INTEGRAL_FLOATS = {  # dotted key: the float spelling of an integer value (top level, nested, list, null-able)
    "shards": 2.0,
    "purification.fig1.n_delta": 60.0,
    "contraction.audit.monte_carlo.samples": 1.0e6,
    "contraction.audit.positions": [10.0, 20.0],
    "preprocessing.regimes.regimes[0].n": 400.0,
    "resources.max_mem_mb": 4096.0,
}


def set_dotted(config: dict, key: str, value) -> None:
    *parents, last = key.replace("[0]", ".0").split(".")
    for part in parents:
        config = config[int(part)] if part.isdigit() else config.setdefault(part, {})
    config[last] = value


@pytest.mark.parametrize("key", sorted(INTEGRAL_FLOATS))
def test_an_integral_float_becomes_the_integer_before_any_job(config, key):
    as_float, as_int = copy.deepcopy(config), copy.deepcopy(config)
    value = INTEGRAL_FLOATS[key]
    set_dotted(as_float, key, value)
    set_dotted(as_int, key, [int(v) for v in value] if isinstance(value, list) else int(value))
    validate_config(as_float, SCHEMA)
    validate_config(as_int, SCHEMA)
    assert typed(as_float) == typed(as_int)


def number_types(value, where: str = ""):
    """(dotted key with ``[]`` for list items, type name) of every number in a configuration."""
    if isinstance(value, dict):
        for key, child in value.items():
            yield from number_types(child, f"{where}.{key}" if where else key)
    elif isinstance(value, list):
        for child in value:
            yield from number_types(child, f"{where}[]")
    elif type(value) in (int, float):
        yield where, type(value).__name__


def test_every_integer_key_holds_an_int_after_validation():
    """The whole quick configuration respelled with a float for every whole number: after validation every integer
    key holds an int again, and only number keys (``type: number``) keep the float."""
    from dplab.workflow.config import load_schemas
    from dplab.workflow.config_reference import schema_rows

    schemas = load_schemas()
    rows = dict(schema_rows(schemas["config.schema.yaml"], schemas))
    quick = load_config("config.quick.yaml")

    def respell(value):
        if isinstance(value, dict):
            return {key: respell(child) for key, child in value.items()}
        if isinstance(value, list):
            return [respell(child) for child in value]
        return float(value) if type(value) is int else value

    as_floats = respell(quick)
    validate_config(quick, SCHEMA)
    validate_config(as_floats, SCHEMA)
    assert as_floats == quick

    def declared(key: str) -> str:
        schema = rows[
            re.sub(r"^contraction\.audit\.configs\.\w+\.", "contraction.audit.configs.*.", key.removesuffix("[]"))
        ]
        return (schema["items"] if key.endswith("[]") and "items" in schema else schema)["type"]

    before, after = list(number_types(quick)), list(number_types(as_floats))
    kept_float = {key for (key, kind), (_, was) in zip(after, before, strict=True) if kind != was}
    integers = {key for key, kind in before if declared(key) in ("integer", ["integer", "null"])}
    assert len(integers) > 100 and not kept_float & integers
    assert {declared(key) for key in kept_float} == {"number"}


def test_a_number_key_is_left_as_written(config):
    """Only integer keys are converted: a float key given a whole number keeps it (a JSON number either way)."""
    config["contraction"]["figures"]["fig2"]["sigma"] = 2
    validate_config(config, SCHEMA)
    assert typed(config["contraction"]["figures"]["fig2"]["sigma"]) == ("int", 2)


@pytest.mark.parametrize(
    ("key", "value", "fragment"),
    [
        ("purification.fig1.n_delta", 60.5, "config key 'purification.fig1.n_delta': 60.5 is not of type 'integer'"),
        ("shards", 2.5, "config key 'shards': 2.5 is not of type 'integer'"),
        ("seed", 1.0e300, "config key 'seed': 1e+300 is greater than the maximum of 4294967295"),
        ("shards", float("inf"), "config key 'shards': value inf is invalid; allowed: a finite number"),
        ("threads", True, "config key 'threads': True is not of type 'integer'"),
    ],
)
def test_a_float_that_is_not_an_exact_integer_is_refused(config, key, value, fragment):
    set_dotted(config, key, value)
    assert fragment in problems(config)


def test_a_configuration_that_is_not_a_mapping_is_refused():
    with pytest.raises(ConfigError, match=r"config: value \['a', 'b'\] is invalid; allowed: a mapping of keys"):
        validate_config(["a", "b"], SCHEMA)


def test_a_boolean_written_as_a_command_line_string_names_the_spelling_snakemake_reads(config):
    """``--config job_server=false`` reaches the configuration as the string 'false' (Snakemake reads only True and
    False as booleans): the message says how to write it."""
    config["job_server"] = "false"
    with pytest.raises(ConfigError, match=r"'job_server'.*'false'.*job_server=False"):
        validate_config(config, SCHEMA)
    config["job_server"] = False
    validate_config(config, SCHEMA)
