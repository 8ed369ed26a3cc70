"""Fixtures shared by the tests of dplab.learning."""

import pytest
import torch


@pytest.fixture(scope="module")
def single_thread():
    """One intra-op thread for a test module: on a loaded 2-core machine, 2 OpenMP threads make small and mid-size
    tensor ops (convolutions, normalisations) 5-100x slower. The previous count is restored afterwards."""
    previous = torch.get_num_threads()
    torch.set_num_threads(1)
    yield
    torch.set_num_threads(previous)
