"""``results/provenance.json``: package versions, git commit, configuration hash and date of a run."""

from __future__ import annotations

import datetime as _dt
import hashlib
import json
import platform
import subprocess
from collections.abc import Mapping
from importlib import metadata
from pathlib import Path
from typing import Any

__all__ = ["PACKAGES", "config_hash", "package_versions", "git_state", "provenance"]

PACKAGES = ("dplab", "numpy", "scipy", "pandas", "matplotlib", "torch", "dp-accounting", "snakemake")


def config_hash(config: Mapping[str, Any]) -> str:
    """SHA-256 of the configuration as canonical JSON (sorted keys), so equal configs hash equally."""
    canonical = json.dumps(config, sort_keys=True, separators=(",", ":"), default=str)
    return hashlib.sha256(canonical.encode("utf-8")).hexdigest()


def package_versions(packages: tuple[str, ...] = PACKAGES) -> dict[str, str]:
    """Installed version of each package (``"not installed"`` when absent)."""
    versions = {}
    for name in packages:
        try:
            versions[name] = metadata.version(name)
        except metadata.PackageNotFoundError:
            versions[name] = "not installed"
    return versions


def git_state(repo: str | Path) -> dict[str, Any]:
    """Commit of ``repo`` and whether its tracked files had uncommitted changes (``None`` outside git)."""

    def git(*args: str) -> str | None:
        try:
            out = subprocess.run(["git", "-C", str(repo), *args], capture_output=True, text=True, check=True)
        except (OSError, subprocess.CalledProcessError):
            return None
        return out.stdout.strip()

    commit = git("rev-parse", "HEAD")
    status = git("status", "--porcelain", "--untracked-files=no")
    return {"commit": commit, "dirty": None if status is None else bool(status)}


def provenance(config: Mapping[str, Any], repo: str | Path) -> dict[str, Any]:
    """Everything needed to say which code, packages and configuration produced a results folder."""
    return {
        "date": _dt.datetime.now(_dt.UTC).isoformat(timespec="seconds"),
        "git": git_state(repo),
        "config_sha256": config_hash(config),
        "python": platform.python_version(),
        "platform": platform.platform(),
        "packages": package_versions(),
        "config": config,
    }
