"""The study's quick and full sections, read from the repository's configuration files."""

from __future__ import annotations

from pathlib import Path

import pytest

from dplab.workflow.config import load_config

ROOT = Path(__file__).resolve().parents[3]


def study_section(config_file: str) -> dict:
    """The ``generalization`` section of ``config_file``."""
    return load_config(config_file)["generalization"]


@pytest.fixture(scope="session")
def quick_section() -> dict:
    return study_section("config.quick.yaml")


@pytest.fixture(scope="session")
def full_section() -> dict:
    return study_section("config.yaml")
