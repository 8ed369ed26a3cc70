"""The exponential mechanism's exact small case (Theorem 11 of Hu, Sanyal, Schölkopf 2024) against plain loops."""

import math

import numpy as np
import pytest

from dplab.audit.exponential_enumeration import exponential_mechanism_enumeration


def _em_divergence_by_loops(alpha, eps, data_p, data_q, outputs, sensitivity):
    """D_α of the exponential mechanism with score −|mean − h|, written out with plain Python sums."""

    def law(data):
        weights = [math.exp(-abs(sum(data) / len(data) - h) * eps / (2 * sensitivity)) for h in outputs]
        return [w / sum(weights) for w in weights]

    p, q = law(data_p), law(data_q)
    if math.isinf(alpha):
        return max(math.log(a / b) for a, b in zip(p, q))
    return math.log(sum(a**alpha * b ** (1 - alpha) for a, b in zip(p, q))) / (alpha - 1)


@pytest.mark.parametrize("alpha", [2.0, math.inf])
def test_exponential_mechanism_enumeration_matches_a_brute_force(alpha):
    eps, n, levels, outputs = 1.0, 2, 3, 4
    grid, hs = np.linspace(-1, 1, levels), np.linspace(-1, 1, outputs)
    datasets = [(a, b) for a in grid for b in grid]
    taus = [0.5, 1.0, 2.0, 4.0]
    found = exponential_mechanism_enumeration(alpha, eps, taus, n=n, levels=levels, outputs=outputs)
    for tau, value in zip(taus, found["srdp"]):
        pairs = [(u, v) for u in datasets for v in datasets if sum(abs(x - y) for x, y in zip(u, v)) <= tau + 1e-12]
        expected = max(_em_divergence_by_loops(alpha, eps, u, v, hs, 2 / n) for u, v in pairs)
        assert value == pytest.approx(expected, rel=1e-10, abs=1e-14)
    neighbours = [(u, v) for u in datasets for v in datasets if sum(x != y for x, y in zip(u, v)) <= 1]
    assert found["rdp"] == pytest.approx(max(_em_divergence_by_loops(alpha, eps, u, v, hs, 1.0) for u, v in neighbours))
    assert found["realised_lipschitz"] == pytest.approx(1 / math.sqrt(2)) and found["realised_sensitivity"] == 1.0
