"""Derived seeds are stable across processes, distinct across keys, and in range."""

import subprocess
import sys

from dplab.seeding import derive_seed


def test_stable_across_processes():
    code = "from dplab.seeding import derive_seed; print(derive_seed(7, 'rule', 'G1'))"
    other = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True).stdout
    assert int(other) == derive_seed(7, "rule", "G1")


def test_distinct_and_in_range():
    seeds = {derive_seed(7, "rule", k) for k in range(1000)}
    assert len(seeds) == 1000
    assert all(0 <= s < 2**63 for s in seeds)
    assert derive_seed(7, "a", "b") != derive_seed(8, "a", "b")
