"""Tests of dplab.distributions.Laplace against mpmath (closed forms at 60 digits), scipy, quadrature and sampling."""

from __future__ import annotations

import math

import mpmath
import numpy as np
import pytest
from scipy import integrate, stats

from dplab.distributions import Laplace

LAW = Laplace(scale=1.7, loc=-0.4)
POINTS = np.concatenate([np.linspace(-40, 40, 161), [-700.0, -300.0, 300.0, 700.0, -0.4, -0.4 + 1e-12]])


def _mp_cdf(x: float, sign: int = 1) -> mpmath.mpf:
    """F(x) at the working precision; sign = −1 gives S(x) = F(2 loc − x) without 1 − F cancellation."""
    z = sign * (mpmath.mpf(x) - mpmath.mpf(LAW.loc)) / mpmath.mpf(LAW.scale)
    return mpmath.exp(z) / 2 if z < 0 else 1 - mpmath.exp(-z) / 2


def _relative(value: float, reference: mpmath.mpf) -> float:
    return abs(value - float(reference)) / abs(float(reference)) if reference != 0 else abs(value)


@pytest.mark.parametrize("x", POINTS)
def test_tails_and_log_tails_match_mpmath_in_both_tails(x):
    # e^z amplifies the rounding of z = (x − loc)/scale by |z|: the tails are good to a few ulp times (1 + |z|).
    tolerance = 4e-16 * (1.0 + abs((x - LAW.loc) / LAW.scale))
    with mpmath.workdps(60):
        cdf, sf = _mp_cdf(x), _mp_cdf(x, sign=-1)
        assert _relative(LAW.cdf(x), cdf) < tolerance
        assert _relative(LAW.sf(x), sf) < tolerance
        assert _relative(LAW.log_cdf(x), mpmath.log(cdf)) < tolerance
        assert _relative(LAW.log_sf(x), mpmath.log(sf)) < tolerance


def test_density_and_cdf_agree_with_scipy_and_quadrature():
    x = np.linspace(-10, 10, 41)
    reference = stats.laplace(loc=LAW.loc, scale=LAW.scale)
    np.testing.assert_allclose(LAW.log_pdf(x), reference.logpdf(x), rtol=1e-14)
    np.testing.assert_allclose(LAW.cdf(x), reference.cdf(x), rtol=1e-13, atol=1e-16)
    for point in (-3.0, -0.4, 2.5):
        area, _ = integrate.quad(lambda t: math.exp(LAW.log_pdf(t)), -np.inf, point, points=None)
        assert LAW.cdf(point) == pytest.approx(area, rel=1e-9)


def test_quantile_and_inverse_sf_invert_the_tails():
    u = np.concatenate([np.logspace(-300, -1, 60), np.linspace(0.1, 0.9, 17)])
    np.testing.assert_allclose(LAW.cdf(LAW.quantile(u)), u, rtol=1e-12)
    np.testing.assert_allclose(LAW.sf(LAW.inverse_sf(u)), u, rtol=1e-12)
    np.testing.assert_allclose(
        LAW.quantile(u[60:]),
        stats.laplace(LAW.loc, LAW.scale).ppf(u[60:]),
        rtol=1e-12,
        atol=1e-15,
    )
    assert LAW.quantile(0.0) == -math.inf and LAW.quantile(1.0) == math.inf


def test_max_of_m_has_cdf_f_to_the_m():
    u = np.linspace(0.01, 0.99, 25)
    for m in (1.0, 7.0, 1e6):
        maxima = LAW.max_of_from_uniforms(m, u)
        with mpmath.workdps(60):
            for value, target in zip(maxima, u):
                assert float(_mp_cdf(float(value)) ** int(m)) == pytest.approx(target, rel=1e-9)


def test_max_of_m_sampled_matches_the_maximum_of_m_draws():
    rng = np.random.default_rng(3)
    direct = LAW.sample(rng, (20000, 5)).max(axis=1)
    via_inverse = LAW.max_of_from_uniforms(5.0, rng.random(20000))
    assert stats.ks_2samp(direct, via_inverse).pvalue > 1e-3


def test_sample_consumes_the_stream_like_rng_laplace():
    a, b = np.random.default_rng(11), np.random.default_rng(11)
    np.testing.assert_array_equal(LAW.sample(a, 50), b.laplace(LAW.loc, LAW.scale, size=50))
    assert a.random() == b.random()
    draws = Laplace(2.0).sample(np.random.default_rng(0), 200000)
    assert abs(draws.mean()) < 5 * math.sqrt(8.0 / 200000) and draws.var() == pytest.approx(8.0, rel=0.02)


@pytest.mark.parametrize(
    "kwargs,name",
    [
        ({"scale": 0.0}, "scale"),
        ({"scale": math.inf}, "scale"),
        ({"scale": 1.0, "loc": math.nan}, "loc"),
    ],
)
def test_bad_parameters_raise_naming_the_argument(kwargs, name):
    with pytest.raises(ValueError, match=name):
        Laplace(**kwargs)
