"""The study's quick and full sections: from the repository configs once wired in, else the delivered snippets."""

from __future__ import annotations

from pathlib import Path

import pytest
import yaml

ROOT = Path(__file__).resolve().parents[3]
BRIEFS = Path("/work/briefs")


def study_section(config_file: str, snippet: str) -> dict:
    """The ``generalization`` section of ``config_file`` if present, else the snippet in /work/briefs."""
    path = ROOT / config_file
    if path.exists():
        config = yaml.safe_load(path.read_text(encoding="utf-8")) or {}
        if "generalization" in config:
            return config["generalization"]
    return yaml.safe_load((BRIEFS / snippet).read_text(encoding="utf-8"))


@pytest.fixture(scope="session")
def quick_section() -> dict:
    return study_section("config.quick.yaml", "generalization_quick.yaml")


@pytest.fixture(scope="session")
def full_section() -> dict:
    return study_section("config.yaml", "generalization_config.yaml")
