"""ℓ2 K-norm noise: the norm is Gamma(d, Δ/ε) (Kolmogorov–Smirnov) and the direction is isotropic."""

from __future__ import annotations

import numpy as np
import pytest
from scipy import stats

from dplab.mechanisms.knorm import sample_l2_knorm


def test_norm_law_and_isotropy():
    rng = np.random.default_rng(1)
    z = sample_l2_knorm(3, 0.5, 2.0, 50_000, rng)
    norms = np.linalg.norm(z, axis=1)
    assert stats.kstest(norms, stats.gamma(3, scale=0.25).cdf).pvalue > 1e-3
    assert np.abs((z / norms[:, None]).mean(axis=0)).max() < 0.02
    assert norms.mean() == pytest.approx(0.75, rel=0.02)  # E‖z‖ = dΔ/ε, the mean of Gamma(d, Δ/ε)


def test_bad_input():
    with pytest.raises(ValueError, match="epsilon"):
        sample_l2_knorm(2, 1.0, 0.0, 5, np.random.default_rng(0))
