"""Provenance: stable configuration hash, versions and git state recorded."""

from pathlib import Path

from dplab.report.provenance import config_hash, provenance


def test_config_hash_ignores_key_order_but_not_values():
    assert config_hash({"a": 1, "b": [1, 2]}) == config_hash({"b": [1, 2], "a": 1})
    assert config_hash({"a": 1}) != config_hash({"a": 2})


def test_provenance_fields():
    record = provenance({"seed": 1}, Path(__file__).resolve().parents[2])
    assert set(record) >= {"date", "git", "config_sha256", "packages", "python", "config"}
    assert record["packages"]["numpy"] != "not installed"
    assert record["packages"]["torch"].startswith("2.13.0")
