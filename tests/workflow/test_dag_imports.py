"""Building the DAG imports no compute code: every run, and every job of a cluster run, parses the workflow and
evaluates each sweep's points and each artifact's pipeline inputs, so these live in light modules (the studies'
``plan.py``) and the parse never pays for torch or dp_accounting (about 2 s per parse together)."""

import subprocess
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[2]
HEAVY = ("torch", "dp_accounting")

#: Runs a dry run of the workflow in-process with an import hook that refuses the heavy packages, so any import
#: of them while the Snakefile is parsed and the DAG is built fails the run.
DRY_RUN = """
import sys
from importlib.abc import MetaPathFinder

class Refuse(MetaPathFinder):
    def find_spec(self, name, path=None, target=None):
        if name.split(".")[0] in {heavy!r}:
            raise ImportError("imported while building the DAG: " + name)
        return None

sys.meta_path.insert(0, Refuse())
from snakemake.cli import main
main({arguments!r})
"""


@pytest.mark.parametrize("configfile", ["config.yaml", "config.quick.yaml"])
def test_building_the_dag_imports_neither_torch_nor_dp_accounting(configfile, tmp_path) -> None:
    arguments = ["-n", "-s", str(ROOT / "Snakefile"), "-d", str(tmp_path), "--configfile", str(ROOT / configfile)]
    result = subprocess.run(
        [sys.executable, "-c", DRY_RUN.format(heavy=HEAVY, arguments=arguments)],
        capture_output=True,
        text=True,
        cwd=tmp_path,
    )
    assert result.returncode == 0, result.stdout[-3000:] + result.stderr[-3000:]
    assert "Job stats" in result.stdout + result.stderr


def test_the_hook_refuses_what_it_should(tmp_path) -> None:
    """The test above can fail: the same hook stops a script that imports torch."""
    code = DRY_RUN.split("from snakemake.cli")[0].format(heavy=HEAVY) + "import torch\n"
    result = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, cwd=tmp_path)
    assert result.returncode != 0
    assert "imported while building the DAG: torch" in result.stderr
