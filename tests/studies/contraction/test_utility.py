"""Certified epsilons of the contraction utility table: finite whenever there is noise (issue 17)."""

from __future__ import annotations

import math

import pytest
from dp_accounting import get_epsilon_gaussian

from dplab.studies.contraction.utility import certified_epsilons


@pytest.mark.parametrize(("lr", "sigma"), [(0.1, 0.1), (0.5, 0.1), (0.1, 0.3)])
def test_small_noise_epsilons_are_finite_and_match_the_first_step_gaussian(lr: float, sigma: float) -> None:
    """At sigma = 0.1 Theorem 4 certifies about 284 (above the old cap of 100, once reported inf): its first-step
    factor theta(2L/sigma) alone is the Gaussian mechanism of sensitivity 2L = 2, and the contraction factor is ~1."""
    eps = certified_epsilons("gaussian", n=1000, radius=2.0, lr=lr, scale=sigma, delta=1e-5)
    assert all(math.isfinite(v) for v in eps.values()), eps
    assert eps["epsilon_thm_first"] == pytest.approx(get_epsilon_gaussian(sigma / 2.0, 1e-5), rel=1e-8)
    assert eps["epsilon_thm5"] >= eps["epsilon_thm_last"]


def test_no_noise_is_infinite() -> None:
    eps = certified_epsilons("gaussian", n=1000, radius=2.0, lr=0.1, scale=0.0, delta=1e-5)
    assert all(v == math.inf for v in eps.values())


def test_the_utility_artifact_reads_the_runs_of_every_noise_in_configuration_order(tmp_path) -> None:
    import pandas as pd

    from dplab.studies.contraction.plan import utility_inputs
    from dplab.studies.contraction.utility import (
        TABLE_COLUMNS,
        compute_utility,
        utility_table,
        utility_table_shown,
    )

    assert utility_inputs({"utility": {"noise_types": ["laplace", "gaussian"]}}) == {
        "laplace": "utility/laplace.csv",
        "gaussian": "utility/gaussian.csv",
    }
    runs = {
        noise: pd.DataFrame(
            {"noise": [noise], "n": [100], "d": [1], "radius": [2.0], "lr": [0.5], "noise_scale": [scale], "runs": [3]}
        )
        for noise, scale in (("laplace", 1.0), ("gaussian", 0.0))
    }
    for noise, frame in runs.items():
        frame.to_csv(tmp_path / f"{noise}.csv", index=False)
    inputs = {noise: tmp_path / f"{noise}.csv" for noise in runs}
    frame = compute_utility({"delta": 1e-5}, 0, iter, inputs)
    pd.testing.assert_frame_equal(frame, utility_table(pd.concat(runs.values(), ignore_index=True), 1e-5))
    assert list(frame["noise"]) == ["laplace", "gaussian"] and math.isinf(frame["epsilon_thm_first"].iloc[1])
    shown = utility_table_shown(frame.assign(excess_risk_mean=0.0, excess_risk_se=0.0, test_accuracy_mean=1.0), {})
    assert tuple(shown.columns) == TABLE_COLUMNS
