"""environment.yml mirrors pyproject.toml's dependencies exactly (same requirement strings)."""

import tomllib
from pathlib import Path

import yaml

ROOT = Path(__file__).resolve().parents[1]


def test_environment_mirrors_pyproject():
    with open(ROOT / "pyproject.toml", "rb") as handle:
        pyproject = tomllib.load(handle)["project"]["dependencies"]
    with open(ROOT / "environment.yml", encoding="utf-8") as handle:
        env = yaml.safe_load(handle)
    pip = next(item["pip"] for item in env["dependencies"] if isinstance(item, dict))
    assert sorted(pip) == sorted(pyproject)
    assert "torch==2.13.0" in pyproject
