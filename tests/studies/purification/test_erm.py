"""DP-ERM helpers: data, reference minimiser (KKT), dp_accounting calibration, and Algorithm 3's engine mapping."""

from __future__ import annotations

import math

import dp_accounting
import numpy as np
import pandas as pd
import pytest
import torch
from dp_accounting import rdp

from dplab.accounting.calibration import calibrate_dpsgd_sigma
from dplab.data.synthetic import ball_logistic_dataset
from dplab.learning import constrained_minimiser, dp_erm, logistic_risk
from dplab.studies.purification import erm, plan


def test_dataset_in_unit_ball_and_minimiser_kkt():
    x, y = ball_logistic_dataset(400, 3, seed=1)
    assert np.linalg.norm(x, axis=1).max() <= 1.0 and set(np.unique(y)) <= {-1.0, 1.0}
    theta, residual = constrained_minimiser(x, y, 1.0, 0.0, 3000)
    assert residual < 1e-8 and np.linalg.norm(theta) <= 1.0 + 1e-12
    rng = np.random.default_rng(0)  # no feasible point does better
    others = rng.standard_normal((2000, 3))
    others /= np.maximum(1.0, np.linalg.norm(others, axis=1, keepdims=True))
    assert logistic_risk(others, x, y).min() >= logistic_risk(theta, x, y)[0] - 1e-12


def test_calibrated_sigma_meets_target_and_is_tight():
    sigma = calibrate_dpsgd_sigma(0.05, 200, 1.0, math.log(1e-5))
    event = lambda s: dp_accounting.SelfComposedDpEvent(  # noqa: E731
        dp_accounting.PoissonSampledDpEvent(0.05, dp_accounting.GaussianDpEvent(s)), 200
    )
    assert rdp.RdpAccountant().compose(event(sigma)).get_epsilon(1e-5) <= 1.0 + 1e-3
    assert rdp.RdpAccountant().compose(event(0.97 * sigma)).get_epsilon(1e-5) > 1.0
    with pytest.raises(ValueError, match="log_delta"):
        calibrate_dpsgd_sigma(0.05, 10, 1.0, -800.0)


@pytest.mark.parametrize("lam", [0.0, 0.1])
def test_per_step_noise_std_is_the_schedules_sigma(monkeypatch, lam):
    """The Gaussian noise on each step's summed clipped gradients has std Lemma 25's σ (which already contains L),
    not σL (issue 17: at L = 1 + λR = 1.1 the paper method got 10 % too much noise); calibrated noise multipliers z
    give std zL. Recorded from the engine's configs (batch × per-example noise scale) at one point of the sweep."""
    recorded = []

    def record(config, loss, X, Y, w0, *, runs, generator, progress):
        if config.noise == "gaussian":
            recorded.append((config.sampling, config.noise_scale * config.batch_size))
        return torch.zeros(runs, X.shape[1], dtype=torch.float64)

    monkeypatch.setattr(dp_erm, "run_noisy_gradient", record)
    params = {
        "d": 2,
        "seeds": 2,
        "radius": 1.0,
        "lam": lam,
        "epsilon_sweep": {"n": 100, "epsilons": [2.0]},
        "n_sweep": {"epsilon": 2.0, "ns": [100]},
        "max_steps_paper": 30,
        "max_steps_tuned": 20,
        "max_steps_reference": 20,
        "em_grid_spacing": 0.1,
        "reference_iterations": 200,
    }
    rows = pd.concat([erm.erm_point(params, 5, iter, point) for point in plan.erm_points(params)])
    rows = rows.drop_duplicates("method").set_index("method")
    lipschitz = 1.0 + lam
    paper = [std for sampling, std in recorded if sampling == "without_replacement"]
    assert len(paper) == 1  # one engine call per run (a step-size schedule for λ > 0, Lemma 26)
    assert paper == pytest.approx([rows.loc["purified_dpsgd", "sigma"]] * len(paper), rel=1e-12)
    calibrated = {round(std, 12) for sampling, std in recorded if sampling == "poisson"}
    expected = {round(rows.loc[m, "sigma"] * lipschitz, 12) for m in ("purified_dpsgd_tuned", "dpsgd_reference")}
    assert calibrated == expected


def test_points_are_method_groups_of_each_n_and_epsilon():
    params = {
        "d": 5,
        "lam": 0.0,
        "epsilon_sweep": {"n": 100, "epsilons": [1.0, 2.0]},
        "n_sweep": {"epsilon": 2.0, "ns": [50]},
    }
    groups = ["dpsgd_paper", "dpsgd_tuned", "laplace_gd", "dpsgd_reference"]
    expected = [(n, e, g) for n, e in [(50, 2.0), (100, 1.0), (100, 2.0)] for g in groups]
    assert [(p["n"], p["epsilon_total"], p["methods"]) for p in plan.erm_points(params)] == expected
    for changed in ({"d": 2}, {"lam": 0.1}):  # the exponential mechanism (d = 2), output perturbation (lam > 0)
        assert plan.erm_points({**params, **changed})[4]["methods"] == "baselines"
