"""A plain pytest changes nothing outside the repository: the system tests skip, saying how to enable them."""

import os
import subprocess
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]


def collect_slurm_test(**variables: str) -> subprocess.CompletedProcess:
    environment = {k: v for k, v in os.environ.items() if not k.startswith("DPLAB_TEST_")} | variables
    return subprocess.run(
        [
            sys.executable,
            "-m",
            "pytest",
            str(ROOT / "tests" / "workflow" / "test_slurm.py"),
            "-rs",
            "-p",
            "no:cacheprovider",
            "-p",
            "no:xdist",
        ],
        capture_output=True,
        text=True,
        cwd=ROOT,
        env=environment,
    )


def test_system_tests_skip_unless_enabled_and_say_how():
    etc_before = sorted(os.listdir("/etc"))
    result = collect_slurm_test()
    assert result.returncode == 0, result.stdout[-3000:]
    assert "1 skipped" in result.stdout
    assert "run with --system or DPLAB_TEST_SYSTEM=1" in result.stdout
    assert sorted(os.listdir("/etc")) == etc_before


def test_enabling_only_the_pipeline_group_still_skips_the_system_tests():
    result = collect_slurm_test(DPLAB_TEST_PIPELINE="1")
    assert "1 skipped" in result.stdout and "DPLAB_TEST_SYSTEM=1" in result.stdout, result.stdout[-3000:]
