"""Imputation on hand-made datasets (Cor. 4, Prop. 15, Table 3)."""

import numpy as np
import pytest

from dplab.preprocessing import impute, linear_regression_impute, mean_impute, median_impute, trimmed_mean_impute
from dplab.preprocessing.imputation import missing_rows

NAN = np.nan
X = np.array([[0.1, 0.2], [0.3, NAN], [0.5, 0.9], [0.2, -0.4], [NAN, 0.1]])


def test_mean_median_trimmed_hand_made():
    m = mean_impute(X)
    assert m[1, 1] == pytest.approx((0.2 + 0.9 - 0.4 + 0.1) / 4) and m[4, 0] == pytest.approx(1.1 / 4)
    med = median_impute(X)
    assert med[1, 1] == pytest.approx(0.15) and med[4, 0] == pytest.approx(0.25)
    tr = trimmed_mean_impute(X, 1)
    assert tr[1, 1] == pytest.approx((0.1 + 0.2) / 2) and tr[4, 0] == pytest.approx((0.2 + 0.3) / 2)
    assert np.array_equal(trimmed_mean_impute(X, 0), m)
    for out in (m, med, tr):
        assert np.array_equal(out[~np.isnan(X)], X[~np.isnan(X)])
    assert missing_rows(X) == 2


def test_linear_regression_recovers_exact_linear_feature():
    rng = np.random.default_rng(1)
    A = rng.uniform(-0.5, 0.5, size=(30, 2))
    target = A @ np.array([0.7, -0.3])
    data = np.column_stack([A, target])
    holed = data.copy()
    holed[[3, 8, 20], 2] = NAN
    assert np.allclose(linear_regression_impute(holed), data, atol=1e-12)
    assert np.allclose(impute(holed, "linear_regression"), data, atol=1e-12)


def test_mean_imputation_change_within_cor4_bound_on_hand_case():
    """Replacing one complete record moves the imputed value by ≤ 2/(n − p) (Cor. 4), exactly here."""
    n, p = 10, 3
    base = np.zeros((n, 1))
    base[:p] = NAN
    a, b = base.copy(), base.copy()
    a[-1], b[-1] = 1.0, -1.0
    change = abs(mean_impute(a)[0, 0] - mean_impute(b)[0, 0])
    assert change == pytest.approx(2 / (n - p))


def test_bad_inputs():
    with pytest.raises(ValueError, match="no available value"):
        mean_impute(np.array([[NAN, 1.0], [NAN, 0.0]]))
    with pytest.raises(ValueError, match="m="):
        trimmed_mean_impute(X, 2)
    with pytest.raises(ValueError, match="method="):
        impute(X, "mode")


def test_imputation_order_statistics_pick_the_sorted_available_values():
    """Written out: feature 0 has available values 1..5 (sorted v = [1, 2, 3, 4, 5]), feature 1 has 10, 20, 30, 40;
    upper median v[(n+1)//2], lower median v[n//2 - 1], x_(m) = v[m - 1], x_(n-m) = v[n - m - 1] (0-based), m = 1."""
    from dplab.preprocessing.imputation import imputation_order_statistics

    data = np.array([[3.0, 10.0], [1.0, np.nan], [2.0, 30.0], [5.0, 20.0], [4.0, 40.0], [np.nan, np.nan]])
    stats = imputation_order_statistics(data, [0, 1], 1)
    assert stats == {
        "upper_median_max": max(4.0, 30.0),
        "lower_median_min": min(2.0, 20.0),
        "x_m_max": max(1.0, 10.0),
        "x_m_min": min(1.0, 10.0),
        "x_n_minus_m_max": max(4.0, 30.0),
        "x_n_minus_m_min": min(4.0, 30.0),
    }
