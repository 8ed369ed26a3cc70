"""Where the purification claims point: artifact paths under ``results/``."""

from __future__ import annotations

from dplab.studies.purification.claims_common import artifact_path


def test_artifact_path():
    assert artifact_path("fig1") == "purification/figures/fig1.png"
    assert artifact_path("table1", "tables") == "purification/tables/table1.csv"
