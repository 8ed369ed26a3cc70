"""dplab.audit.audit_samplers: coverage on mechanisms with known exact ε (binomial test against the stated failure
rate alpha) and power on a mis-claimed Gaussian."""

import math

import pytest
from scipy.stats import binomtest

from dplab.audit import audit_samplers
from dplab.calibrate import gaussian_sigma

ALPHA = 0.05
REPETITIONS = 40


def laplace_pair(scale):
    return (lambda m, rng: rng.laplace(0.0, scale, m)), (lambda m, rng: rng.laplace(1.0, scale, m))


def randomized_response_pair(p_truth):
    return (lambda m, rng: (rng.random(m) < p_truth).astype(float)), (
        lambda m, rng: (rng.random(m) >= p_truth).astype(float)
    )


def gaussian_pair(sigma):
    return (lambda m, rng: rng.normal(0.0, sigma, m)), (lambda m, rng: rng.normal(1.0, sigma, m))


CASES = {
    "laplace eps=1": (laplace_pair(1.0), 0.0, 1.0),
    "randomized response eps=log 3": (randomized_response_pair(0.75), 0.0, math.log(3.0)),
    "gaussian (1, 1e-3)": (gaussian_pair(gaussian_sigma(1.0, 1e-3)), 1e-3, 1.0),
}


@pytest.mark.parametrize("name", list(CASES))
def test_coverage_bound_exceeds_the_true_epsilon_at_most_at_rate_alpha(name):
    (sample_p, sample_q), delta, true_epsilon = CASES[name]
    bounds = [
        audit_samplers(sample_p, sample_q, delta=delta, samples=20_000, alpha=ALPHA, rng=seed).epsilon_lower_bound
        for seed in range(REPETITIONS)
    ]
    exceed = sum(bound > true_epsilon for bound in bounds)
    assert binomtest(exceed, REPETITIONS, ALPHA, alternative="greater").pvalue > 0.01
    assert max(bounds) > 0.3 * true_epsilon  # the auditor finds a real part of the leakage


def test_power_flags_a_gaussian_claimed_at_epsilon_1_with_a_third_of_the_noise():
    sample_p, sample_q = gaussian_pair(gaussian_sigma(1.0, 1e-5) / 3)
    flagged = [
        audit_samplers(sample_p, sample_q, delta=1e-5, samples=20_000, rng=seed).refutes(1.0) for seed in range(20)
    ]
    assert sum(flagged) >= 18


def test_vector_outputs_need_a_statistic():
    def vectors(m, rng):
        return rng.normal(size=(m, 2))

    with pytest.raises(ValueError, match="sample_p"):
        audit_samplers(vectors, vectors, delta=0.0, samples=100)
    result = audit_samplers(vectors, vectors, delta=0.0, samples=1000, statistic=lambda x: x[:, 0], rng=0)
    assert 0.0 <= result.epsilon_lower_bound < 1.0 and result.confidence == 0.95
