"""The front door refuses what it cannot honour (issue 26): each instance the issue found, and sizes whose allocation
cannot fit, refused before allocating with the estimate and the limit in the message.

The memory limit is pinned to 16 GiB (``dplab.checks.memory_limit_bytes``) so that the verdicts do not depend on the
machine running the tests; ``tests/test_public_api_arguments.py`` checks every sampler at sizes no machine holds.
"""

import math
import tracemalloc

import numpy as np
import pytest

import dplab
from dplab import checks
from dplab.audit import accountant_check
from dplab.data import logistic_regression_dataset
from dplab.mechanisms.local_sensitivity import global_sensitivity_laplace

LIMIT = 16 * 2**30
PURIFY = {"epsilon": 1.0, "delta": 1e-6, "epsilon_prime": 1.0, "omega": 1e-3, "diameter": 2.0, "rng": 0}


@pytest.fixture
def limit_16_gib(monkeypatch):
    monkeypatch.setattr(checks, "memory_limit_bytes", lambda: LIMIT)


def refused_before_allocating(call, match):
    """``call()`` raises ValueError matching ``match`` with less than 64 MiB allocated (numpy is traced)."""
    tracemalloc.start()
    try:
        with pytest.raises(ValueError, match=match) as info:
            call()
        peak = tracemalloc.get_traced_memory()[1]
    finally:
        tracemalloc.stop()
    assert peak < 64 * 2**20
    assert "allowed: sizes whose allocation fits this machine's memory, 16 GiB" in str(info.value)
    return str(info.value)


def gaussian_pair(size, rng):
    return rng.normal(0.0, 1.0, size)


@pytest.mark.usefixtures("limit_16_gib")
def test_dpsgd_accountant_check_with_1e8_steps_is_refused_before_the_pld_composition():
    """Used to try to allocate 25 GiB inside dp_accounting's PLD self-composition."""
    message = refused_before_allocating(
        lambda: dplab.check_dpsgd_accountant(noise_multiplier=1.0, steps=10**8, batch_size=64, n=128, samples=2000),
        r"steps=100000000, noise_multiplier=1.0 is invalid: dp_accounting's PLD composition",
    )
    assert "GiB" in message


@pytest.mark.usefixtures("limit_16_gib")
def test_the_issue_s_oversized_calls_are_refused():
    refused_before_allocating(
        lambda: dplab.audit_samplers(gaussian_pair, gaussian_pair, delta=1e-5, samples=10**11),
        r"samples=100000000000 is invalid: the audit's outputs and event masks",
    )
    huge = np.broadcast_to(0.0, (10**10,))  # a view: no memory
    refused_before_allocating(
        lambda: dplab.purify_continuous(huge, center=huge, **PURIFY), r"center \(d\)=10000000000, output rows=1"
    )
    refused_before_allocating(
        lambda: logistic_regression_dataset(10**9, 10, seed=0), r"n=1000000000, d=10 is invalid: 2 float64 arrays"
    )
    refused_before_allocating(
        lambda: global_sensitivity_laplace(0.0, 1.0, 1.0, 10**10, np.random.default_rng(0)),
        r"size=10000000000 is invalid: the Laplace draws",
    )


def test_the_pld_memory_estimate_bounds_the_measured_peak():
    """The estimate (FFT buffer entries x 40 bytes) against tracemalloc's peak of dp_accounting's composition."""
    steps, rate, sigma = 20_000, 0.5, 1.0
    estimate = accountant_check._pld_composition_bytes(sigma, rate, steps)
    tracemalloc.start()
    try:
        accountant_check._accountants(accountant_check.dpsgd_event(sigma, rate, steps))
        peak = tracemalloc.get_traced_memory()[1]
    finally:
        tracemalloc.stop()
    assert peak <= estimate <= 4 * peak


def test_valid_sizes_are_untouched_by_the_limit():
    assert dplab.audit_samplers(gaussian_pair, gaussian_pair, delta=1e-5, samples=200, rng=0).epsilon_lower_bound == 0


@pytest.mark.parametrize("bad", [math.nan, math.inf])
def test_audit_of_non_finite_samples_is_refused(bad):
    """NaN samples used to give an epsilon lower bound of 0.0."""

    def with_bad_output(size, rng):
        out = rng.normal(0.0, 1.0, size)
        out[3] = bad
        return out

    with pytest.raises(ValueError, match=r"sample_q=\[(nan|inf)\] is invalid; allowed: finite numbers"):
        dplab.audit_samplers(gaussian_pair, with_bad_output, delta=1e-5, samples=100)


def test_audit_refuses_a_sampler_that_returns_another_number_of_outputs_or_complex_ones():
    with pytest.raises(ValueError, match=r"sample_p returned outputs of shape \(99,\); allowed: 100 scalar outputs"):
        dplab.audit_samplers(lambda size, rng: rng.normal(size=size - 1), gaussian_pair, delta=1e-5, samples=100)
    with pytest.raises(TypeError, match=r"sample_p=.* is invalid; allowed: real numbers"):
        dplab.audit_samplers(lambda size, rng: rng.normal(size=size) + 1j, gaussian_pair, delta=1e-5, samples=100)


def test_audit_reads_boolean_outputs_as_zero_one():
    """A mechanism's output may be a boolean (randomised response): it is data, read as 0/1, not an argument."""

    def coin(p):
        return lambda size, rng: rng.random(size) < p

    result = dplab.audit_samplers(coin(0.75), coin(0.25), delta=0.0, samples=20_000, rng=1)
    assert 0.5 < result.epsilon_lower_bound <= math.log(3)


def test_purify_continuous_refuses_a_complex_output_instead_of_dropping_its_imaginary_part():
    with pytest.raises(TypeError, match=r"output=.* is invalid; allowed: real numbers"):
        dplab.purify_continuous(np.array([0.5 + 1j, 0.0]), center=[0.0, 0.0], **PURIFY)


def test_purify_integer_refuses_a_fraction_instead_of_flooring_it():
    """purify_integer(42.5) used to return a release of 42."""
    with pytest.raises(ValueError, match=r"output=42.5 is invalid; allowed: a finite whole number"):
        dplab.purify_integer(42.5, epsilon=1.0, delta=1e-6, n_bits=8, rng=0)
    for bad, error in ((math.nan, ValueError), (True, TypeError), (42 + 1j, TypeError)):
        with pytest.raises(error, match="output"):
            dplab.purify_integer(bad, epsilon=1.0, delta=1e-6, n_bits=8, rng=0)
    assert dplab.purify_integer(42.0, epsilon=1.0, delta=1e-6, n_bits=8, rng=0).epsilon == 2.0


@pytest.mark.parametrize(
    ("call", "argument"),
    [
        (
            lambda: dplab.pnsgd_curve(noise=True, lipschitz=1.0, contraction_gap=1.0, diameter=1.0, lr=0.5, steps=5),
            "noise",
        ),
        (lambda: dplab.gaussian_sigma(True, 1e-5), "epsilon"),
        (lambda: dplab.dpsgd_noise_multiplier(1.0, 1e-5, sampling_rate=0.1, steps=True), "steps"),
        (lambda: dplab.purification_budget(True, n=100, d=2, diameter=1.0), "total_epsilon"),
        (lambda: dplab.purify_integer(3, epsilon=True, delta=1e-6, n_bits=4), "epsilon"),
        (lambda: dplab.audit_samplers(gaussian_pair, gaussian_pair, delta=True), "delta"),
        (
            lambda: dplab.check_pnsgd_accountant(noise_multiplier=True, lr=0.5, diameter=1.0, steps=3),
            "noise_multiplier",
        ),
    ],
)
def test_a_boolean_is_refused_as_a_number(call, argument):
    with pytest.raises(
        TypeError, match=rf"{argument}=True is invalid; allowed: a .*number \(a boolean is not a number\)"
    ):
        call()
