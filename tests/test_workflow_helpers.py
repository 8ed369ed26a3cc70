"""dplab.workflow.helpers: thread caps that do not import torch."""

import os
import subprocess
import sys


def test_cap_torch_threads_without_importing_torch():
    """A script that does not use torch must not pay for importing it; a later import still gets the cap."""
    code = (
        "import sys; from dplab.workflow.helpers import cap_torch_threads; cap_torch_threads(1); "
        "assert 'torch' not in sys.modules; import torch; print(torch.get_num_threads())"
    )
    out = subprocess.run(
        [sys.executable, "-c", code],
        capture_output=True,
        text=True,
        check=True,
        env={**os.environ, "OMP_NUM_THREADS": "2"},
    )
    assert out.stdout.strip() == "1"


def test_cap_torch_threads_sets_an_imported_torch():
    code = (
        "import torch; from dplab.workflow.helpers import cap_torch_threads; cap_torch_threads(1); "
        "print(torch.get_num_threads())"
    )
    out = subprocess.run(
        [sys.executable, "-c", code],
        capture_output=True,
        text=True,
        check=True,
        env={**os.environ, "OMP_NUM_THREADS": "2"},
    )
    assert out.stdout.strip() == "1"
