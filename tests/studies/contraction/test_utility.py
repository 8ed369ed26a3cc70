"""The contraction utility artifact: the training runs of every noise type with their certified epsilons."""

from __future__ import annotations

import math


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
