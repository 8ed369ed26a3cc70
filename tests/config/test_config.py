"""Configuration validation: the shipped configurations pass; every kind of bad value is named clearly."""

import copy
import subprocess
import sys
from pathlib import Path

import pytest
import yaml
from snakemake.utils import update_config

from dplab.config import ConfigError, load_config, merge_config, validate_config

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
