"""dplab.purify: projection, certificates (Theorems 1 and 2 of Lin et al. 2025), and the Laplace noise scale of
Algorithm 1 checked by Monte-Carlo against the formula b = 2Δ/ε′, Δ = 2 d^{1−1/q} R (δ/2ω)^{1/d}
(R the ℓ_q diameter, as the proofs use it: claim erratum_R_is_diameter), written out."""

import math

import numpy as np
import pytest

from dplab.mechanisms.purification import LqBall
from dplab.purify import project_onto_ball, purify_continuous, purify_integer


def test_projection_moves_outside_points_to_the_sphere_and_keeps_inside_points():
    domain = LqBall(center=(1.0, 0.0), diameter=2.0)
    assert np.allclose(project_onto_ball([4.0, 4.0], domain), [1.6, 0.8])
    assert np.allclose(project_onto_ball([[1.5, 0.5]], domain), [[1.5, 0.5]])


def test_continuous_certificate_is_epsilon_plus_epsilon_prime():
    release = purify_continuous(
        [3.0, 0.0], epsilon=1.0, delta=1e-8, epsilon_prime=0.5, omega=1e-3, center=[0.0, 0.0], diameter=2.0, rng=0
    )
    assert release.epsilon == pytest.approx(1.5) and release.delta == 0.0 and release.value.shape == (2,)


def test_continuous_noise_variance_matches_algorithm1_scale():
    d, diameter, delta, omega, eps_prime = 2, 2.0, 1e-6, 1e-4, 1.0
    shift = 2 * d**0.5 * diameter * (delta / (2 * omega)) ** (1 / d)
    b = 2 * shift / eps_prime
    runs = 4000
    x = np.zeros((runs, d))
    release = purify_continuous(
        x, epsilon=1.0, delta=delta, epsilon_prime=eps_prime, omega=omega, center=[0.0, 0.0], diameter=diameter, rng=1
    )
    # Laplace(b) has variance 2b² and kurtosis 6, so the mean of n squares has relative sd sqrt(5/n); mixing
    # (probability 1e-4, uniform on the ball) changes the mean square by < 1e-4 relative: a 4-sigma band.
    n = runs * d
    assert abs(np.mean(release.value**2) / (2 * b * b) - 1) < 4 * math.sqrt(5 / n)


def test_integer_purification_certificate_and_range():
    release = purify_integer(np.array([0, 5, 300]), epsilon=1.0, delta=1e-30, n_bits=8, rng=2)
    assert release.epsilon == 2.0 and release.value.shape == (3,)
    assert np.all((release.value >= 0) & (release.value <= 255))


@pytest.mark.parametrize(
    "kwargs, name", [({"delta": 0.0}, "delta"), ({"omega": 1.0}, "omega"), ({"epsilon": -1.0}, "epsilon")]
)
def test_bad_input_names_the_argument(kwargs, name):
    base = {"epsilon": 1.0, "delta": 1e-6, "epsilon_prime": 1.0, "omega": 0.1, "center": [0.0], "diameter": 1.0}
    with pytest.raises(ValueError, match=name):
        purify_continuous([0.0], **{**base, **kwargs})
