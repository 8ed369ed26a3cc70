"""Tests of dplab.audit.instances: the neighbouring-dataset family auditing Algorithm 1 of Asoodeh, Diaz, Calmon.

References: the instances' definitions (the module docstring, checked element by element), the Hamming-distance-1
requirement of eq. (5), mirror symmetry of instance A, and Theorems 3 and 4 of the paper (closed forms written here
with numpy/scipy) as hard upper bounds on the grid value of every instance and orientation.
"""

from __future__ import annotations

import numpy as np
import pytest
import scipy.stats

from dplab.audit.grid import UniformGrid, linear_loss_psi, pnsgd_output_laws
from dplab.audit.instances import INSTANCE_NAMES, AuditInstance, audit_instance


def test_instance_names():
    assert INSTANCE_NAMES == ("A", "B", "C", "D", "A_swapped", "B_swapped", "C_swapped", "D_swapped")


@pytest.mark.parametrize("name", INSTANCE_NAMES)
@pytest.mark.parametrize("i", [1, 3, 6])
def test_neighbours_differ_only_at_position_i(name, i):
    instance = audit_instance(name, n=6, i=i, a=-1.0, b=3.0, L=2.0)
    assert isinstance(instance, AuditInstance) and instance.name == name
    assert instance.data.shape == instance.data_prime.shape == (6,)
    assert np.flatnonzero(instance.data != instance.data_prime).tolist() == [i - 1]
    assert np.all(np.abs(instance.data) <= 2.0) and np.all(np.abs(instance.data_prime) <= 2.0)
    sign = -1.0 if name.endswith("_swapped") else 1.0
    assert (instance.data[i - 1], instance.data_prime[i - 1]) == (2.0 * sign, -2.0 * sign)


@pytest.mark.parametrize(
    "name, before, after, y0",
    [("A", 0.0, 0.0, 1.0), ("B", -2.0, 0.0, 3.0), ("C", -2.0, 2.0, 3.0), ("D", -2.0, -2.0, 3.0)],
)
def test_shared_records_and_start_follow_the_definitions(name, before, after, y0):
    n, i = 7, 4
    for variant in (name, name + "_swapped"):
        instance = audit_instance(variant, n=n, i=i, a=-1.0, b=3.0, L=2.0)
        for records in (instance.data, instance.data_prime):
            np.testing.assert_array_equal(records[: i - 1], before)
            np.testing.assert_array_equal(records[i:], after)
        assert instance.y0 == y0


def test_swapped_exchanges_the_datasets():
    original = audit_instance("C", n=5, i=2, a=0.0, b=1.0, L=1.0)
    swapped = audit_instance("C_swapped", n=5, i=2, a=0.0, b=1.0, L=1.0)
    np.testing.assert_array_equal(original.data, swapped.data_prime)
    np.testing.assert_array_equal(original.data_prime, swapped.data)


def test_arrays_are_read_only():
    instance = audit_instance("B", n=4, i=2, a=0.0, b=1.0, L=1.0)
    with pytest.raises(ValueError):
        instance.data[0] = 5.0


@pytest.mark.parametrize(
    "kwargs, message",
    [
        (dict(name="A", n=5, i=0), "i=0"),
        (dict(name="A", n=5, i=6), "n=5"),
        (dict(name="E", n=5, i=1), "A, B, C, D, A_swapped"),
        (dict(name="A", n=0, i=1), "n=0"),
        (dict(name="A", n=5, i=1, a=1.0, b=1.0), "a < b"),
        (dict(name="A", n=5, i=1, L=0.0), "L=0"),
    ],
)
def test_rejects_bad_arguments(kwargs, message):
    arguments = dict(a=0.0, b=1.0, L=1.0) | kwargs
    name = arguments.pop("name")
    with pytest.raises(ValueError, match=message):
        audit_instance(name, **arguments)


# ------------------------------------------------------------- grid values against the theorems

LR, L, N_RECORDS, N_CELLS = 0.5, 1.0, 40, 200
CONFIGS = {  # config.yaml, contraction.audit.configs: name -> (noise, a, b, scale)
    "G1": ("gaussian", 0.0, 1.0, 2.0),
    "G2": ("gaussian", 0.0, 4.0, 2.0),
    "L1": ("laplace", 0.0, 1.0, 2.0),
    "L2": ("laplace", 0.0, 4.0, 2.0),
}
EPSILONS = np.array([0.0, 0.25, 0.5, 1.0, 1.5])


def grid_delta(cfg: str, name: str, i: int) -> np.ndarray:
    noise, a, b, scale = CONFIGS[cfg]
    instance = audit_instance(name, n=N_RECORDS, i=i, a=a, b=b, L=L)
    p, q = pnsgd_output_laws(
        UniformGrid(a, b, N_CELLS),
        y0=instance.y0,
        data=instance.data,
        data_prime=instance.data_prime,
        lr=LR,
        scale=scale,
        noise=noise,
        psi=linear_loss_psi(LR),
    )
    return np.maximum(p - np.exp(EPSILONS)[:, None] * q, 0.0).sum(axis=1)


def theorem_bound(cfg: str, i: int) -> np.ndarray:
    """Theorem 4 (Gaussian) or Theorem 3 (Laplace) of Asoodeh et al. with M = 1, D = b − a."""
    noise, a, b, scale = CONFIGS[cfg]
    if noise == "gaussian":

        def theta(r):
            sf = scipy.stats.norm.sf
            return sf(EPSILONS / r - r / 2) - np.exp(EPSILONS) * sf(EPSILONS / r + r / 2)

        return theta(2 * L / scale) * theta((b - a) / (LR * scale)) ** (N_RECORDS - i)
    first = np.maximum(0.0, 1 - np.exp(EPSILONS / 2 - L / scale))
    contraction = np.maximum(0.0, 1 - np.exp(EPSILONS / 2 - (b - a) / (2 * LR * scale)))
    return first * contraction ** (N_RECORDS - i)


@pytest.mark.parametrize("cfg", CONFIGS)
@pytest.mark.parametrize("i", [40, 39, 36])
def test_no_instance_exceeds_the_theorem(cfg, i):
    bound = theorem_bound(cfg, i)
    for name in INSTANCE_NAMES:
        assert np.all(grid_delta(cfg, name, i) <= bound + 1e-9), name


@pytest.mark.parametrize("cfg", ["G1", "L2"])
def test_instance_a_is_mirror_symmetric(cfg):
    """Reflecting y -> a + b − y maps A onto A_swapped, so both orders give the same δ."""
    np.testing.assert_allclose(grid_delta(cfg, "A", 39), grid_delta(cfg, "A_swapped", 39), atol=1e-12)
