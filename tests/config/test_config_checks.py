"""Bad configurations are refused before any job, each naming key, value and what is allowed, all in one message:
values, folders that cannot be written, config files that cannot be read, are not a mapping or repeat a key (merge
keys and anchors are read as Snakemake reads them)."""

import copy
import math
import os
import re
import subprocess
import sys
from pathlib import Path

import pytest
import yaml
from snakemake.common.configfile import load_configfile
from snakemake.utils import update_config

from dplab.workflow.config import ConfigError, validate_config
from dplab.workflow.config_checks import config_file_problems, nonfinite_problems, path_problems, repository_root

ROOT = Path(__file__).resolve().parents[2]
SCHEMA = ROOT / "workflow" / "schemas" / "config.schema.yaml"
HOME = str(Path.home())


@pytest.fixture(scope="module")
def full() -> dict:
    with open(ROOT / "config.yaml", encoding="utf-8") as handle:
        return yaml.safe_load(handle)


@pytest.fixture
def config(full) -> dict:
    return copy.deepcopy(full)


@pytest.fixture(autouse=True)
def in_repository(monkeypatch):
    """Relative ``results``/``work`` resolve against the current folder, as under Snakemake."""
    monkeypatch.chdir(ROOT)


def set_key(config: dict, key: str, value) -> None:
    """Set the value at a dotted key ``a.b[2].c``."""
    path = [int(index) if index else name for name, index in re.findall(r"([^.\[\]]+)|\[(\d+)\]", key)]
    target = config
    for part in path[:-1]:
        target = target[part]
    target[path[-1]] = value


def get_key(config: dict, key: str):
    """The value at a dotted key ``a.b.c``."""
    target = config
    for part in key.split("."):
        target = target[part]
    return target


def refusal(config: dict) -> str:
    with pytest.raises(ConfigError) as error:
        validate_config(config, SCHEMA)
    return str(error.value)


NAN, INF = math.nan, math.inf

# (key set, value, fragments the message must hold: the key, the value and what is allowed)
BAD = {
    "negative seed": ("seed", -1, ["'seed'", "-1", ">= 0"]),
    "zero threads": ("threads", 0, ["'threads'", "0", ">= 1"]),
    "unknown study": ("studies", ["preprocessing", "astrology"], ["studies[1]", "'astrology'", "allowed: one of"]),
    "seed of wrong type": ("seed", "many", ["'seed'", "'many'", "of type integer"]),
    "NaN noise sigma": ("contraction.figures.fig2.sigma", NAN, ["contraction.figures.fig2.sigma'", "nan", "finite"]),
    "negative noise sigma": ("contraction.figures.fig2.sigma", -1.0, ["contraction.figures.fig2.sigma", "-1.0", "> 0"]),
    "step size beyond Lemma 4": ("contraction.figures.fig3.lr", 3.0, ["fig3.lr'", "3.0", "lr < 2/(beta_smooth + rho)"]),
    "position beyond n": ("contraction.audit.positions", [40, 45], ["audit.positions[1]'", "45", "1 <= i <= n = 40"]),
    "position zero": ("contraction.figures.fig2.positions", [0, 20], ["fig2.positions[0]'", "0", ">= 1"]),
    "reversed interval": ("contraction.laplace.interval", [1.0, 0.0], ["laplace.interval'", "[1.0, 0.0]", "a < b"]),
    "diameter range reversed": (
        "contraction.regime.diameter_min",
        20.0,
        ["regime.diameter_min'", "20.0", "< diameter_max = 10.0"],
    ),
    "unknown audited configuration": ("contraction.audit.run", ["G1", "X9"], ["audit.run[1]'", "'X9'", "one of G1"]),
    "chunk above samples": (
        "contraction.audit.monte_carlo.chunk",
        3000000,
        ["monte_carlo.chunk'", "3000000", "<= samples = 2000000"],
    ),
    "random stopping on Laplace": (
        "contraction.random_stopping.config",
        "L1",
        ["random_stopping.config'", "'L1'", "a gaussian configuration"],
    ),
    "Theorem 3 beyond one dimension": ("contraction.utility.laplace.d", 2, ["utility.laplace.d'", "2", "allowed: 1"]),
    "unknown noise": ("contraction.audit.configs.L1.noise", "cauchy", ["configs.L1.noise", "'cauchy'", "gaussian"]),
    "negative noise scale": ("contraction.audit.configs.G1.scale", -2.0, ["configs.G1.scale", "-2.0", "> 0"]),
    "infinite confidence level": ("contraction.audit.monte_carlo.alpha", INF, ["monte_carlo.alpha'", "inf", "finite"]),
    "NaN epsilon (preprocessing)": ("preprocessing.tables.eps", NAN, ["preprocessing.tables.eps'", "nan", "finite"]),
    "NaN inside a list": (
        "generalization.high_probability.deltas",
        [1.0e-5, NAN],
        ["high_probability.deltas[1]'", "nan", "finite"],
    ),
    "minus infinity": ("generalization.kl.eps_min", -INF, ["generalization.kl.eps_min'", "-inf", "finite"]),
    "infinite size": ("purification.tables.n", INF, ["purification.tables.n'", "inf", "finite"]),
    "fig3 n too small": ("preprocessing.fig3.n", 10, ["preprocessing.fig3.n'", "10", ">= 101"]),
    "size as a string": ("preprocessing.fig3.d", "500", ["preprocessing.fig3.d'", "'500'", "of type integer"]),
    "rank not below dimension": ("preprocessing.regimes.regimes[0].k", 200, ["regimes[0].k'", "200", "k < d = 100"]),
    "too many trials": ("purification.mode_release.trials", 10**9, ["mode_release.trials'", "1000000000", "<= "]),
    "unknown adjacency": (
        "purification.fig1.adjacencies",
        ["add_remove", "swap"],
        ["adjacencies[1]'", "'swap'", "one of"],
    ),
    "results at the filesystem root": ("results", "/", ["'results'", "'/'", "not the filesystem root"]),
    "results inside the package": ("results", "src/dplab", ["'results'", "'src/dplab'", "inside its src/"]),
    "results in the home folder": ("results", "~", ["'results'", repr(HOME), "the home folder"]),
    "work inside workflow/": ("work", "workflow/work", ["'work'", "'workflow/work'", "workflow/"]),
    "work inside tests/": ("work", str(ROOT / "tests"), ["'work'", repr(str(ROOT / "tests")), "tests/"]),
    "results holding the repository": (
        "results",
        str(ROOT.parent),
        ["'results'", repr(str(ROOT.parent)), "a folder holding the repository"],
    ),
    "oversized fig3 design matrix": (
        "preprocessing.fig3",
        {"n": 10_000_000, "d": 5000},
        ["preprocessing.fig3'", "n: 10000000, d: 5000", "estimated peak 9920189 MB"],
    ),
}


@pytest.mark.parametrize("kind", sorted(BAD))
def test_bad_configuration_is_refused_with_key_value_and_allowed(config, kind):
    key, value, fragments = BAD[kind]
    if isinstance(value, dict):  # a partial mapping: update the section key by key, as a --configfile does
        value = {**get_key(config, key), **value}
    set_key(config, key, value)
    message = refusal(config)
    assert "allowed:" in message
    for fragment in fragments:
        assert fragment in message, f"{kind}: {fragment!r} not in {message}"


def test_at_least_thirty_kinds():
    assert len(BAD) >= 30


def test_shipped_configurations_pass(config):
    validate_config(config, SCHEMA, configfiles=[ROOT / "config.yaml", ROOT / "config.quick.yaml"])


def test_problems_of_different_layers_are_reported_together(config):
    set_key(config, "contraction.figures.fig2.sigma", NAN)
    set_key(config, "results", "/")
    set_key(config, "seed", -1)
    lines = refusal(config).splitlines()
    assert any("fig2.sigma'" in line and "nan" in line for line in lines)
    assert any("'results'" in line for line in lines)
    assert any("'seed'" in line for line in lines)


def test_nonfinite_and_a_cross_key_problem_of_another_study_are_reported_together(config):
    set_key(config, "generalization.kl.eps_min", NAN)
    set_key(config, "contraction.figures.fig3.lr", 3.0)
    set_key(config, "preprocessing.fig3.n", 10_000_000)  # with d = 500: estimated peak beyond this machine
    message = refusal(config)
    assert "generalization.kl.eps_min': value nan" in message and "fig3.lr': value 3.0" in message
    assert "config key 'preprocessing.fig3' (n, d, seeds): value {n: 10000000, d: 500, seeds: 10}" in message


def test_cross_key_rules_skip_a_study_holding_a_nonfinite_number(config):
    """Lemma 4's check would compare with NaN: only the non-finite value of that study is reported."""
    set_key(config, "contraction.figures.fig3.beta_smooth", NAN)
    set_key(config, "contraction.figures.fig2.lr", 100.0)
    message = refusal(config)
    assert "fig3.beta_smooth': value nan" in message and "fig2.lr'" not in message


def test_two_cross_key_problems_are_reported_together(config):
    set_key(config, "contraction.figures.fig3.lr", 3.0)
    set_key(config, "contraction.laplace.interval", [1.0, 0.0])
    message = refusal(config)
    assert "fig3.lr': value 3.0" in message and "laplace.interval': value [1.0, 0.0]" in message


def test_nonfinite_found_at_any_depth():
    config = {"a": {"b": [1.0, {"c": NAN}], "d": -INF, "e": True, "f": "nan"}, "g": INF, "h": 3}
    assert nonfinite_problems(config) == [
        "config key 'a.b[1].c': value nan is invalid; allowed: a finite number",
        "config key 'a.d': value -inf is invalid; allowed: a finite number",
        "config key 'g': value inf is invalid; allowed: a finite number",
    ]


@pytest.mark.parametrize(
    "key",
    [
        "contraction.figures.fig3.sigma",
        "contraction.audit.lr",
        "preprocessing.fig3.tail_sd",
        "generalization.empirical.rho",
        "purification.mode_release.mode_share",
        "preprocessing.tables.missing_rate",
        "purification.fig2.delta_tilde",
    ],
)
@pytest.mark.parametrize("value", [NAN, INF, -INF])
def test_nonfinite_never_crashes_a_cross_key_rule(config, key, value):
    """Cross-key rules (which may call int() or compare) do not run on a non-finite value: a ConfigError, no crash."""
    set_key(config, key, value)
    assert f"config key '{key}': value {value} is invalid; allowed: a finite number" in refusal(config)


def test_tilde_is_expanded_in_the_config(config, tmp_path, monkeypatch):
    monkeypatch.setenv("HOME", str(tmp_path))
    config["results"], config["work"] = "~/dplab/results", "~/dplab/work"
    validate_config(config, SCHEMA)
    assert config["results"] == str(tmp_path / "dplab" / "results")
    assert config["work"] == str(tmp_path / "dplab" / "work")


def test_safe_paths_are_accepted(tmp_path):
    config = {"results": str(tmp_path / "results"), "work": "work"}
    assert path_problems(config, ROOT) == []


def test_path_check_ignores_non_strings():
    assert path_problems({"results": 3}, ROOT) == []


def test_repository_root_is_found_from_the_schema():
    assert repository_root(SCHEMA) == ROOT
    with pytest.raises(ValueError, match="not inside a dplab repository"):
        repository_root("/")


def test_duplicate_key_named_with_file_and_line(tmp_path):
    path = tmp_path / "extra.yaml"
    path.write_text("seed: 1\ncontraction:\n  audit:\n    n: 40\n    lr: 0.5\n    n: 30\nseed: 2\n", encoding="utf-8")
    allowed = "allowed: each key once per mapping"
    assert config_file_problems(path) == [
        f"config file '{path}', line 6: key 'n' is given twice (first on line 4); {allowed}",
        f"config file '{path}', line 7: key 'seed' is given twice (first on line 1); {allowed}",
    ]


def test_same_key_in_different_mappings_is_not_a_duplicate(tmp_path):
    path = tmp_path / "ok.yaml"
    path.write_text("a: {n: 1}\nb: {n: 2}\nlist: [{n: 1}, {n: 2}]\n", encoding="utf-8")
    assert config_file_problems(path) == []


def test_unhashable_key_is_a_message(tmp_path):
    path = tmp_path / "odd.yaml"
    path.write_text("? [a, b]\n: 1\n", encoding="utf-8")
    (problem,) = config_file_problems(path)
    assert problem.startswith(f"config file '{path}': is not valid YAML or JSON (") and "unhashable key" in problem
    assert problem.endswith("allowed: a YAML or JSON mapping of keys")


def test_duplicate_keys_reported_by_validate_config(config, tmp_path):
    path = tmp_path / "twice.yaml"
    path.write_text("threads: 1\nthreads: 2\n", encoding="utf-8")
    with pytest.raises(ConfigError, match=r"twice.yaml', line 2: key 'threads' is given twice"):
        validate_config(config, SCHEMA, configfiles=[path])


def test_snakemake_refuses_before_any_job(tmp_path):
    """Through the real Snakefile: a dry run with a bad --configfile stops at validation, listing every problem."""
    bad = tmp_path / "bad.yaml"
    bad.write_text(
        "seed: 1\nseed: 2\nresults: src/dplab\ncontraction:\n  figures:\n    fig2: {sigma: .nan}\n", encoding="utf-8"
    )
    environment = {**os.environ, "PYTHONPATH": str(ROOT / "src")}
    run = subprocess.run(
        [sys.executable, "-m", "snakemake", "-n", "--cores", "1", "--configfile", str(bad)],
        cwd=ROOT,
        capture_output=True,
        text=True,
        env=environment,
        timeout=300,
    )
    output = run.stdout + run.stderr
    assert run.returncode != 0
    assert f"config file '{bad}', line 2: key 'seed' is given twice" in output
    assert "config key 'results': value 'src/dplab' is invalid" in output
    assert "config key 'contraction.figures.fig2.sigma': value nan is invalid; allowed: a finite number" in output
    assert "Job stats" not in output and "localrule" not in output  # nothing was planned


# Folders the workflow cannot create or write into (issue 26): a message naming the part of the path at fault.

ALLOWED_FOLDER = "allowed: a folder that this user can create or write into"


@pytest.mark.parametrize("key", ["results", "work"])
def test_a_folder_naming_an_existing_file_is_refused(config, tmp_path, key):
    (tmp_path / "taken").write_text("", encoding="utf-8")
    config[key] = str(tmp_path / "taken")
    message = refusal(config)
    assert (
        f"config key '{key}': value {str(tmp_path / 'taken')!r} is invalid ({tmp_path / 'taken'} is a file" in message
    )
    assert ALLOWED_FOLDER in message


def test_a_folder_below_a_file_is_refused_naming_the_file(tmp_path):
    (tmp_path / "taken").write_text("", encoding="utf-8")
    config = {"results": str(tmp_path / "taken" / "deeper" / "results"), "work": str(tmp_path / "work")}
    (problem,) = path_problems(config, ROOT)
    assert f"({tmp_path / 'taken'} is a file, not a folder)" in problem


def test_a_folder_this_user_may_not_write_is_refused(tmp_path, monkeypatch):
    """Writability as ``os.access`` reports it (simulated: tests may run as root, which may write anywhere)."""
    locked = tmp_path / "locked"
    locked.mkdir()
    real_access = os.access
    monkeypatch.setattr(os, "access", lambda path, mode: Path(path) != locked and real_access(path, mode))
    config = {"results": str(locked / "new" / "results"), "work": str(locked)}
    problems = path_problems(config, ROOT)
    assert len(problems) == 2
    assert all(f"(this user may not write into {locked})" in problem for problem in problems)


def test_a_new_nested_folder_in_a_writable_one_is_accepted(tmp_path):
    config = {"results": str(tmp_path / "a" / "b" / "results"), "work": str(tmp_path / "work")}
    assert path_problems(config, ROOT) == []
    assert not (tmp_path / "a").exists()  # the check creates nothing


def test_braces_in_a_folder_are_refused_with_the_reason(config):
    config["results"] = "results-{x}"
    message = refusal(config)
    assert "config key 'results': 'results-{x}' does not match '^[^{}]*$'" in message
    assert "Snakemake would read them as wildcards" in message


def test_every_path_problem_is_reported_together(config, tmp_path, monkeypatch):
    (tmp_path / "taken").write_text("", encoding="utf-8")
    locked = tmp_path / "locked"
    locked.mkdir()
    real_access = os.access
    monkeypatch.setattr(os, "access", lambda path, mode: Path(path) != locked and real_access(path, mode))
    config["results"], config["work"], config["seed"] = str(tmp_path / "taken"), str(locked / "w"), -1
    lines = refusal(config).splitlines()
    assert any("'results'" in line and "is a file" in line for line in lines)
    assert any("'work'" in line and "may not write" in line for line in lines)
    assert any("'seed'" in line for line in lines)


# Config files: anchors, aliases and merge keys as Snakemake reads them; files that cannot be used are messages.

MERGED = """\
purification:
  dp_erm: &erm
    radius: 1.0
    lam: 0.0
    em_grid_spacing: 0.01
  dp_erm_sc:
    <<: *erm
    lam: 0.1
generalization:
  kl: {eps_min: &small 0.02, n_eps: 40}
  high_probability: {eps_min: *small}
"""


def test_merge_keys_and_aliases_are_not_duplicates(tmp_path):
    path = tmp_path / "merged.yaml"
    path.write_text(MERGED, encoding="utf-8")
    assert config_file_problems(path) == []


def test_merge_keys_read_as_snakemake_reads_them(config, tmp_path):
    """Snakemake's loader gives the merged values; validation accepts them and sees the override."""
    path = tmp_path / "merged.yaml"
    path.write_text(MERGED, encoding="utf-8")
    merged = load_configfile(str(path))
    assert merged["purification"]["dp_erm_sc"] == {"radius": 1.0, "lam": 0.1, "em_grid_spacing": 0.01}
    update_config(config, merged)
    validate_config(config, SCHEMA, configfiles=[path])
    assert config["purification"]["dp_erm_sc"]["em_grid_spacing"] == 0.01
    assert config["generalization"]["high_probability"]["eps_min"] == 0.02


def test_a_merge_of_a_list_of_mappings_and_a_chain_of_merges(tmp_path):
    path = tmp_path / "chain.yaml"
    path.write_text(
        "a: &a {x: 1, y: 2}\nb: &b {<<: *a, y: 3}\nc: {<<: [*b, *a], z: 4, x: 5}\nd: {<<: {p: 1, p: 2}}\n",
        encoding="utf-8",
    )
    assert config_file_problems(path) == [
        f"config file '{path}', line 4: key 'p' is given twice (first on line 4); allowed: each key once per mapping"
    ]


def test_a_key_repeated_next_to_a_merge_is_still_a_duplicate(tmp_path):
    path = tmp_path / "twice.yaml"
    path.write_text("base: &b {n: 1}\nfig: {<<: *b, n: 2, n: 3}\n", encoding="utf-8")
    assert config_file_problems(path) == [
        f"config file '{path}', line 2: key 'n' is given twice (first on line 2); allowed: each key once per mapping"
    ]


def test_a_json_config_file_is_checked_for_repeated_keys(tmp_path):
    path = tmp_path / "extra.json"
    path.write_text('{"seed": 1, "contraction": {"audit": {"n": 40, "n": 30}}}', encoding="utf-8")
    assert config_file_problems(path) == [
        f"config file '{path}': key 'n' is given twice; allowed: each key once per mapping"
    ]


@pytest.mark.parametrize(
    ("text", "what", "allowed"),
    [
        ("- a\n- b\n", "its top level is a list", "a mapping of keys (key: value lines)"),
        ("just words\n", "its top level is a str", "a mapping of keys (key: value lines)"),
        ("", "its top level is empty", "a mapping of keys (key: value lines)"),
        ("seed: [1, 2\n", "is not valid YAML or JSON (", "a YAML or JSON mapping of keys"),
    ],
)
def test_a_config_file_that_is_not_a_mapping_is_a_message(tmp_path, text, what, allowed):
    path = tmp_path / "bad.yaml"
    path.write_text(text, encoding="utf-8")
    (problem,) = config_file_problems(path)
    assert problem.startswith(f"config file '{path}': {what}") and problem.endswith(f"; allowed: {allowed}")


def test_a_missing_or_unreadable_config_file_is_a_message(config, tmp_path):
    missing, folder = tmp_path / "missing.yaml", tmp_path
    with pytest.raises(ConfigError) as error:
        validate_config(config, SCHEMA, configfiles=[missing, folder])
    allowed = "allowed: an existing, readable YAML or JSON file"
    assert f"config file '{missing}': cannot be read (No such file or directory); {allowed}" in str(error.value)
    assert f"config file '{folder}': cannot be read (Is a directory); {allowed}" in str(error.value)
