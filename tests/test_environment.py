"""environment.yml mirrors pyproject.toml: its dependencies and every optional extra (same requirement strings), and
takes torch from the CPU wheel index."""

import tomllib
from pathlib import Path

import yaml

ROOT = Path(__file__).resolve().parents[1]


def pyproject_requirements() -> set[str]:
    with open(ROOT / "pyproject.toml", "rb") as handle:
        project = tomllib.load(handle)["project"]
    return set(project["dependencies"]).union(*project["optional-dependencies"].values())


def environment_pip_lines() -> list[str]:
    with open(ROOT / "environment.yml", encoding="utf-8") as handle:
        env = yaml.safe_load(handle)
    return next(item["pip"] for item in env["dependencies"] if isinstance(item, dict))


def test_environment_mirrors_pyproject_with_every_extra():
    requirements = [line for line in environment_pip_lines() if not line.startswith("--")]
    assert len(requirements) == len(set(requirements))
    assert set(requirements) == pyproject_requirements()


def test_torch_is_pinned_and_taken_from_the_cpu_index():
    assert "torch==2.13.0" in pyproject_requirements()
    assert "--extra-index-url https://download.pytorch.org/whl/cpu" in environment_pip_lines()
