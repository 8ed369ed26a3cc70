"""Figure 2-3 data (Asoodeh, Diaz, Calmon 2020) reproduce reference values from an independent implementation
(δ of Theorem 4 and Proposition 1, crossovers, ε at δ = 1e-5) exactly at grid points."""

from pathlib import Path

import numpy as np
import pytest
import yaml

from dplab.studies.contraction.curves import epsilon_grid, figure_curves, laplace_curves, regime_map

ROOT = Path(__file__).resolve().parents[3]
CONFIG = yaml.safe_load(open(ROOT / "config.yaml", encoding="utf-8"))["contraction"]


def value(frame, i, eps, method):
    row = frame[(frame["i"] == i) & np.isclose(frame["epsilon"], eps) & (frame["method"] == method)]
    assert len(row) == 1
    return float(row["delta"].iloc[0]), float(row["log10_delta"].iloc[0])


@pytest.mark.parametrize(
    "i, eps, thm4, prop1",
    [
        (1, 0.5, 1.241172e-25, 9.772283e-03),
        (1, 1.0, 1.391532e-36, 5.584868e-09),
        (20, 0.5, 8.399660e-14, 1.047425e-01),
        (20, 1.0, 1.497387e-19, 7.438546e-05),
        (39, 1.0, 1.611294e-02, 8.824969e-01),
        (39, 2.0, 4.377985e-04, 3.246525e-01),
    ],
)
def test_figure2_table(i, eps, thm4, prop1):
    frame = figure_curves(CONFIG["figures"]["fig2"])
    assert value(frame, i, eps, "thm4")[0] == pytest.approx(thm4, rel=1e-6)
    assert value(frame, i, eps, "prop1")[0] == pytest.approx(prop1, rel=1e-6)


@pytest.mark.parametrize(
    "i, eps, thm4, prop1",
    [
        (20, 0.5, 1.955125e-10, 1.840287e-05),
        (20, 1.0, 3.347619e-14, 6.985865e-20),
        (30, 1.0, 1.306454e-07, 5.706859e-03),
        (30, 2.0, 6.313107e-13, 4.033607e-10),
        (39, 1.0, 1.117678e-01, 1.0),
        (39, 2.0, 2.233204e-02, 9.628143e-01),
    ],
)
def test_figure3_table(i, eps, thm4, prop1):
    frame = figure_curves(CONFIG["figures"]["fig3"])
    assert value(frame, i, eps, "thm4")[0] == pytest.approx(thm4, rel=1e-6)
    assert value(frame, i, eps, "prop1")[0] == pytest.approx(prop1, rel=1e-6)


def test_figure_contract_and_log_column_below_double_precision():
    frame = figure_curves({**CONFIG["figures"]["fig2"], "epsilon_max": 40.0})
    assert list(frame.columns) == ["i", "epsilon", "method", "delta", "log10_delta"]
    assert frame.groupby(["i", "method"]).size().min() >= 200
    deep = frame[(frame["i"] == 1) & (frame["method"] == "thm4")]
    assert (deep["delta"] == 0).any(), "the sweep should reach below double precision"
    assert np.isfinite(deep["log10_delta"]).all() and deep["log10_delta"].min() < -320


def test_epsilon_grid_has_clean_values():
    grid = epsilon_grid(3.0, 301)
    assert grid[30] == 0.3 and grid[-1] == 3.0


def test_laplace_thresholds_and_i_equals_n():
    frame = laplace_curves({**CONFIG["laplace"], "lrs": [1.0]})  # Theorem 3 at eta = 1: the i = n erratum
    at_n = frame[(frame["i"] == 40) & np.isclose(frame["epsilon"], 1.5)]
    assert float(at_n["delta"].iloc[0]) == pytest.approx(0.2211992, rel=1e-6)
    assert float(at_n["pure_dp_threshold"].iloc[0]) == 2.0
    assert float(at_n["pure_dp_threshold_as_printed"].iloc[0]) == 1.0


def test_laplace_reference_values():
    frame = laplace_curves({**CONFIG["laplace"], "lrs": [0.5]})
    expected = [0.3995764, 0.2783971, 0.1548181, 0.04892909, 0.0]
    got = [value(frame, 39, e, "thm3")[0] for e in (0.0, 0.5, 1.0, 1.5, 2.0)]
    np.testing.assert_allclose(got, expected, rtol=1e-6, atol=1e-12)


def test_regime_values_match_reference():
    regime = {**CONFIG["regime"], "diameter_min": 1.0, "diameter_max": 4.0, "n_diameter": 2}
    frame = regime_map(regime)
    prop1 = frame[(frame["method"] == "prop1") & (frame["diameter"] == 4.0)].set_index("i")["epsilon"]
    thm4 = frame[(frame["method"] == "thm4") & (frame["diameter"] == 4.0)].set_index("i")["epsilon"]
    np.testing.assert_allclose(prop1.loc[[1, 20, 30, 39]], [0.781, 1.098, 1.567, 5.299], atol=1e-3)
    np.testing.assert_allclose(thm4.loc[[1, 20, 30, 39]], [2.63, 3.30, 3.77, 4.31], atol=1e-2)
    at_one = frame[(frame["method"] == "thm4") & (frame["diameter"] == 1.0)].set_index("i")["epsilon"]
    np.testing.assert_allclose(at_one.loc[[30, 39, 40]], [0.10398, 2.75401, 4.37718], atol=1e-4)  # ε at δ = 1e-5


def test_regime_crossovers_match_reference():
    frame = regime_map(CONFIG["regime"])
    crossing = frame.groupby("i")["thm4_worse_from_diameter"].first()
    np.testing.assert_allclose(crossing.loc[[1, 20, 30]], [2.856, 2.410, 2.050], atol=1e-3)
    assert crossing.loc[[39, 40]].isna().all()
