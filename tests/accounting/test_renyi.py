"""Rényi divergences of dplab.accounting.renyi against mpmath quadrature (Laplace) and mpmath sums (finite laws)."""

import math

import mpmath as mp
import numpy as np
import pytest

from dplab.accounting.renyi import discrete_renyi, laplace_renyi


def _laplace_quadrature(order: float, shift: float, scale: float) -> float:
    """(1/(α−1)) log ∫ p^α q^{1−α} with p = Lap(shift, scale), q = Lap(0, scale), by mpmath quadrature."""
    mp.mp.dps = 30

    def integrand(x):
        return mp.exp(-(order * abs(x - shift) + (1 - order) * abs(x)) / scale) / (2 * scale)

    return float(mp.log(mp.quad(integrand, [-mp.inf, min(0, shift), max(0, shift), mp.inf])) / (order - 1))


@pytest.mark.parametrize("order", [1.01, 1.5, 2.0, 11.0, 60.0])
@pytest.mark.parametrize("shift, scale", [(0.1, 1.0), (1.0, 1.0), (-2.0, 0.5), (3.0, 2.0)])
def test_laplace_renyi_matches_quadrature(order, shift, scale):
    assert laplace_renyi(order, shift=shift, scale=scale) == pytest.approx(
        _laplace_quadrature(order, shift, scale), rel=1e-10
    )


def test_laplace_renyi_max_divergence_and_monotonicity():
    orders = np.array([1.001, 1.5, 2, 5, 50, 1e4, math.inf])
    values = laplace_renyi(orders, shift=0.7, scale=0.5)
    assert values[-1] == pytest.approx(1.4, rel=1e-15)  # D_inf = |m|/b
    assert np.all(np.diff(values) > 0) and values[-2] == pytest.approx(1.4, rel=1e-3)
    assert laplace_renyi(2.0, shift=0.0, scale=1.0) == 0.0
    assert np.isfinite(laplace_renyi(5.0, shift=800.0, scale=1.0))  # log space: no overflow


def test_laplace_renyi_rejects_orders_at_most_one():
    with pytest.raises(ValueError):
        laplace_renyi(1.0, shift=1.0, scale=1.0)


def _discrete_reference(p, q, order):
    mp.mp.dps = 30
    total = mp.fsum(mp.mpf(pi) ** order * mp.mpf(qi) ** (1 - order) for pi, qi in zip(p, q) if pi > 0)
    return float(mp.log(total) / (order - 1))


@pytest.mark.parametrize("order", [1.2, 2.0, 7.5, 40.0])
def test_discrete_renyi_matches_mpmath(order):
    rng = np.random.default_rng(3)
    p, q = rng.dirichlet(np.ones(6), size=2)
    assert discrete_renyi(np.log(p), np.log(q), order) == pytest.approx(_discrete_reference(p, q, order), rel=1e-12)


def test_discrete_renyi_batches_infinite_order_and_zero_masses():
    p = np.array([[0.5, 0.5, 0.0], [0.2, 0.3, 0.5]])
    q = np.array([0.25, 0.25, 0.5])
    with np.errstate(divide="ignore"):
        log_p, log_q = np.log(p), np.log(q)
        batched = discrete_renyi(log_p, log_q, 3.0)
        assert batched.shape == (2,)
        assert batched[0] == pytest.approx(_discrete_reference(p[0], q, 3.0), rel=1e-12)
        assert discrete_renyi(log_p, log_q, math.inf) == pytest.approx([math.log(2), math.log(1.2)], rel=1e-12)
        assert discrete_renyi(np.log(q), log_p[0], 2.0) == math.inf  # q puts mass where p[0] has none
