"""DP-ERM learners of Lin, Wang, Ma, Wang (Algorithm 3, Lemma 19) and the exponential mechanism's grid: Algorithm 3
without noise against projected gradient descent written in numpy, Lemma 26's schedule against one engine call per
step, Lemma 19's number of steps, the grid against a double loop, the summed loss against log(1 + exp) summed per record, and Lemma 25's step size against
lemma25_schedule's own eta."""

from __future__ import annotations

import math

import numpy as np
import pytest
import torch
from scipy.special import expit

from dplab.data.synthetic import ball_logistic_dataset
from dplab.learning import LogisticLoss, NoisyGradientConfig, run_noisy_gradient
from dplab.learning.dp_erm import algorithm3_dpsgd, grid_in_disc, lemma19_laplace_gd, summed_logistic_loss_on_grid
from dplab.learning.losses import RegularisedLogisticLoss
from dplab.learning.projections import Ball
from dplab.theory.purification import lemma25_schedule, lemma25_step_size


def test_algorithm3_engine_mapping_without_noise():
    """σ = 0, γ = 1: Algorithm 3 is projected full gradient descent on F = Σ f with step η; compare with numpy."""
    x, y = ball_logistic_dataset(30, 2, seed=3)
    eta, steps = 0.01, 5
    out = algorithm3_dpsgd(
        LogisticLoss(),
        torch.tensor(x),
        torch.tensor(y),
        lam=0.0,
        n=30,
        steps=steps,
        sampling="without_replacement",
        gamma=1.0,
        noise_std=0.0,
        eta=eta,
        clip=1.0,
        radius=1.0,
        runs=2,
        generator=torch.Generator().manual_seed(0),
    )
    theta, average = np.zeros(2), np.zeros(2)
    for _ in range(steps):
        grad = x.T @ (-y * expit(-y * (x @ theta)))
        theta = theta - eta * grad
        theta /= max(1.0, np.linalg.norm(theta))
        average += theta / steps
    np.testing.assert_allclose(out, np.tile(average, (2, 1)), rtol=1e-10)


@pytest.mark.parametrize("sampling", ["without_replacement", "poisson"])
def test_lemma26_schedule_is_one_engine_call_equal_to_a_call_per_step(sampling):
    """λ > 0: Lemma 26's decreasing step η_t = 2/(nλ(t+1)) and weighted average (2/(T(T+1)))Σ t·θ_t run as one
    engine call with a step-size schedule; bit for bit what one engine call per step (the earlier implementation,
    each step a fresh config with its own step size, continuing from the previous iterates) gives."""
    x, y = ball_logistic_dataset(60, 2, seed=4)
    X, Y, lam, steps, runs, batch, sigma = torch.tensor(x), torch.tensor(y), 0.1, 25, 3, 6, 0.8
    loss = RegularisedLogisticLoss(lam)
    got = algorithm3_dpsgd(
        loss, X, Y, lam=lam, n=60, steps=steps, sampling=sampling, gamma=batch / 60, noise_std=sigma, eta=1.0,
        clip=1.1, radius=1.0, runs=runs, generator=torch.Generator().manual_seed(2),
    )  # fmt: skip
    generator, w = torch.Generator().manual_seed(2), torch.zeros(runs, 2, dtype=torch.float64)
    average = torch.zeros_like(w)
    for t in range(1, steps + 1):
        config = NoisyGradientConfig(
            lr=2.0 / (lam * (t + 1)), noise="gaussian", noise_scale=sigma / batch, clip_norm=1.1,
            projection=Ball(radius=1.0), sampling=sampling, batch_size=batch, steps=1,
        )  # fmt: skip
        w = run_noisy_gradient(config, loss, X, Y, w, runs=runs, generator=generator, progress=False)
        average += (2.0 * t / (steps * (steps + 1))) * w
    np.testing.assert_array_equal(got, average.numpy())


def test_lemma19_runs_round_epsilon_n_over_d_steps():
    x, y = ball_logistic_dataset(40, 2, seed=5)
    X, Y = torch.tensor(x), torch.tensor(y)
    theta, steps = lemma19_laplace_gd(
        LogisticLoss(), X, Y, n=40, d=2, epsilon=0.3, lipschitz=1.0, radius=1.0, runs=3,
        generator=torch.Generator().manual_seed(1),
    )  # fmt: skip
    assert steps == round(0.3 * 40 / 2) and theta.shape == (3, 2)
    assert (np.linalg.norm(theta, axis=1) <= 1.0 + 1e-12).all()  # average of iterates projected on the ball


@pytest.mark.parametrize("spacing, radius", [(0.1, 1.0), (0.25, 0.7)])
def test_grid_in_disc_against_a_double_loop(spacing, radius):
    steps = int(math.floor(2 * radius / spacing + 0.5)) + 1
    expected = {
        (round(-radius + i * spacing, 9), round(-radius + j * spacing, 9))
        for i in range(steps)
        for j in range(steps)
        if math.hypot(-radius + i * spacing, -radius + j * spacing) <= radius
    }
    got = {(round(a, 9), round(b, 9)) for a, b in grid_in_disc(spacing, radius)}
    assert got == expected


def test_summed_loss_on_grid_against_a_sum_over_records():
    x, y = ball_logistic_dataset(50, 2, seed=6)
    grid = grid_in_disc(0.3, 1.0)
    lam = 0.1
    expected = [
        sum(math.log1p(math.exp(-yi * (xi @ g))) for xi, yi in zip(x, y)) + 50 * lam * (g @ g) / 2 for g in grid
    ]
    np.testing.assert_allclose(summed_logistic_loss_on_grid(grid, x, y, lam, chunk=7), expected, rtol=1e-12)


def test_lemma25_step_size_at_the_schedule_is_the_schedules_eta():
    sched = lemma25_schedule(1000, 3, 0.5, 12.0, 2.0, 1.1)
    eta = lemma25_step_size(1000, 3, sched["steps"], sched["gamma"], sched["sigma"], 1.1, 2.0)
    assert eta == pytest.approx(sched["eta"], rel=1e-12)
    assert eta == pytest.approx(2.0 / math.sqrt(sched["steps"] * sched["gradient_second_moment"]), rel=1e-12)
