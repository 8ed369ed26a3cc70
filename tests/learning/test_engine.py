"""The noisy-gradient engine against independent references.

- per-sample gradients: micro-batch gradients (loss.backward on each sample and run separately);
- noise-free runs: plain Python/numpy loops of projected gradient steps with closed-form gradients;
- noise, projection atoms, sampling and stopping: exact laws (scipy.stats) with CLT tolerances (5 standard errors)
  or chi-square / Kolmogorov–Smirnov tests at a fixed seed.
"""

from __future__ import annotations

import math

import numpy as np
import pytest
import torch
from scipy import stats
from scipy.special import expit

from dplab.learning.engine import (
    NoisyGradientConfig,
    clip_by_norm,
    dp_sgd_noise_scale,
    per_sample_gradients,
    run_noisy_gradient,
    sgld_noise_scale,
    uniform_subsets,
)
from dplab.learning.losses import (
    LinearLoss,
    LogisticLoss,
    RegularisedLogisticLoss,
    TwoLayerLogisticLoss,
    squared_feature_norms,
)
from dplab.learning.projections import Ball, Interval, NoProjection

F64 = torch.float64


@pytest.fixture(autouse=True, scope="module")
def _single_thread():
    """One intra-op thread: on a loaded 2-core machine, 2 OpenMP threads make mid-size tensor ops 5-10x slower."""
    previous = torch.get_num_threads()
    torch.set_num_threads(1)
    yield
    torch.set_num_threads(previous)


def _t(values) -> torch.Tensor:
    return torch.as_tensor(values, dtype=F64)


def _generator(seed: int) -> torch.Generator:
    return torch.Generator().manual_seed(seed)


def _within_standard_errors(estimate: float, expected: float, standard_error: float, k: float = 5.0) -> None:
    assert abs(estimate - expected) <= k * standard_error, (estimate, expected, standard_error)


# ------------------------------------------------------------------------------------------------------------
# per-sample gradients and clipping
# ------------------------------------------------------------------------------------------------------------

HIDDEN, INPUTS = 4, 3
MLP_PARAMETERS = HIDDEN * INPUTS + HIDDEN + HIDDEN + 1


def mlp_squared_loss(theta: torch.Tensor, x: torch.Tensor, y: torch.Tensor) -> torch.Tensor:
    """A 2-layer tanh network written as a pure function of the flat parameter vector theta."""
    first = theta[: HIDDEN * INPUTS].reshape(HIDDEN, INPUTS)
    bias = theta[HIDDEN * INPUTS : HIDDEN * INPUTS + HIDDEN]
    second = theta[HIDDEN * INPUTS + HIDDEN : -1]
    output = second @ torch.tanh(first @ x + bias) + theta[-1]
    return (output - y) ** 2


def _micro_batch_gradients(loss, w, X, Y) -> torch.Tensor:
    """Reference: one backward pass per (run, sample)."""
    runs, batch = w.shape[0], X.shape[-2]
    out = torch.empty(runs, batch, w.shape[1], dtype=F64)
    for r in range(runs):
        for j in range(batch):
            x = X[r, j] if X.ndim == 3 else X[j]
            y = None if Y is None else (Y[r, j] if Y.ndim == 2 else Y[j])
            theta = w[r].clone().requires_grad_(True)
            loss(theta, x, y).backward()
            out[r, j] = theta.grad
    return out


@pytest.mark.parametrize(
    ("loss", "d", "labelled"),
    [(LogisticLoss(), 3, True), (LinearLoss(offset=0.5), 3, False), (mlp_squared_loss, MLP_PARAMETERS, True)],
)
@pytest.mark.parametrize("per_run_samples", [False, True])
def test_per_sample_gradients_equal_micro_batch(loss, d, labelled, per_run_samples) -> None:
    rng = np.random.default_rng(0)
    runs, batch = 3, 5
    w = _t(rng.normal(size=(runs, d)))
    shape = (runs, batch) if per_run_samples else (batch,)
    X = _t(rng.normal(size=(*shape, INPUTS)))
    Y = _t(rng.choice([-1.0, 1.0], size=shape)) if labelled else None
    got = per_sample_gradients(loss, w, X, Y)
    assert got.shape == (runs, batch, d)
    torch.testing.assert_close(got, _micro_batch_gradients(loss, w, X, Y), rtol=1e-12, atol=1e-14)


def test_per_sample_gradients_reject_bad_shapes() -> None:
    w, X = torch.zeros(2, 3, dtype=F64), torch.zeros(5, 3, dtype=F64)
    with pytest.raises(ValueError, match=r"w has shape \(3,\)"):
        per_sample_gradients(LinearLoss(), w[0], X)
    with pytest.raises(ValueError, match="X has 4 runs"):
        per_sample_gradients(LinearLoss(), w, torch.zeros(4, 5, 3, dtype=F64))
    with pytest.raises(ValueError, match=r"Y has shape \(4,\)"):
        per_sample_gradients(LogisticLoss(), w, X, torch.ones(4, dtype=F64))


def test_clip_by_norm_caps_norms_and_keeps_small_gradients() -> None:
    rng = np.random.default_rng(3)
    g = _t(rng.normal(size=(50, 7, 4)) * rng.uniform(0, 3, size=(50, 7, 1)))
    g[0, 0] = 0.0
    clipped = clip_by_norm(g, 1.0)
    norms, clipped_norms = torch.linalg.vector_norm(g, dim=-1), torch.linalg.vector_norm(clipped, dim=-1)
    assert float(clipped_norms.max()) <= 1.0 + 1e-12
    small = norms <= 1.0
    assert torch.equal(clipped[small], g[small])
    torch.testing.assert_close(clipped_norms[~small], torch.ones_like(clipped_norms[~small]), rtol=1e-14, atol=0)
    cosine = (clipped * g).sum(-1)[~small] / (clipped_norms * norms)[~small]
    torch.testing.assert_close(cosine, torch.ones_like(cosine), rtol=1e-14, atol=0)  # direction kept
    assert clip_by_norm(g, None) is g
    with pytest.raises(ValueError, match="max_norm=0"):
        clip_by_norm(g, 0)


# ------------------------------------------------------------------------------------------------------------
# configuration
# ------------------------------------------------------------------------------------------------------------

BASE = {"lr": 0.5, "noise": "gaussian", "noise_scale": 1.0}


@pytest.mark.parametrize(
    ("changes", "message"),
    [
        ({"lr": 0.0}, "lr=0.0"),
        ({"lr": math.nan}, "lr=nan"),
        ({"noise": "gauss"}, "noise='gauss'.*'gaussian', 'laplace', 'none'"),
        ({"noise_scale": None}, "noise_scale=None"),
        ({"noise_scale": -1.0}, "noise_scale=-1.0"),
        ({"noise": "none", "noise_scale": 2.0}, "noise_scale=2.0"),
        ({"clip_norm": 0.0}, "clip_norm=0.0"),
        ({"projection": "ball"}, "projection='ball'"),
        ({"sampling": "poison"}, "sampling='poison'.*'single_pass'"),
        ({"batch_size": 2}, "batch_size=2.*single_pass"),
        ({"sampling": "poisson"}, "batch_size=None"),
        ({"sampling": "shuffled", "batch_size": 0}, "batch_size=0"),
        ({"sampling": "without_replacement", "batch_size": 2.5}, "batch_size=2.5"),
        ({"steps": 0}, "steps=0"),
        ({"steps": 1.5}, "steps=1.5"),
        ({"stopping": "random"}, "stopping='random'.*'uniform_random'"),
        ({"lr": (0.5, 0.0, 0.1)}, r"lr \(a schedule\) has 0.0 at step 2"),
        ({"lr": (0.5, math.inf)}, r"lr \(a schedule\) has inf at step 2"),
        ({"lr": ()}, r"lr \(a schedule\) is empty"),
        ({"lr": "0.5"}, "lr='0.5' must be a number > 0 or a sequence"),
        ({"lr": [[0.5]]}, r"lr=\[\[0.5\]\] must be a number > 0 or a sequence"),
        ({"lr": (0.5, 0.4), "steps": 3}, "steps=3 must be None or the schedule's length 2"),
    ],
)
def test_config_rejects_bad_fields(changes, message) -> None:
    with pytest.raises(ValueError, match=message):
        NoisyGradientConfig(**{**BASE, **changes})


@pytest.mark.parametrize(
    ("changes", "message"),
    [
        ({"sampling": "full_batch", "batch_size": True}, "batch_size=True.*a boolean is not a number"),
        ({"steps": True}, "steps=True"),
        ({"noise_scale": True}, "noise_scale=True"),
        ({"noise_scale": 0.5 + 1j}, r"noise_scale=\(0.5\+1j\).*imaginary part is never dropped"),
    ],
)
def test_config_refuses_booleans_and_complex_numbers(changes, message) -> None:
    """True is not 1 and an imaginary part is never dropped: TypeError naming the field."""
    with pytest.raises(TypeError, match=message):
        NoisyGradientConfig(**{**BASE, **changes})


def test_config_resolves_batch_size_and_steps() -> None:
    assert NoisyGradientConfig(**BASE).steps_for(40) == 40
    assert NoisyGradientConfig(**BASE).batch_size_for(40) == 1
    full = NoisyGradientConfig(**BASE, sampling="full_batch")
    assert (full.batch_size_for(40), full.steps_for(40)) == (40, 1)
    shuffled = NoisyGradientConfig(**BASE, sampling="shuffled", batch_size=8)
    assert (shuffled.batch_size_for(42), shuffled.steps_for(42)) == (8, 5)
    with pytest.raises(ValueError, match="steps=41 must be <= n=40"):
        NoisyGradientConfig(**BASE, steps=41).steps_for(40)
    with pytest.raises(ValueError, match="batch_size=50 must be <= n=40"):
        NoisyGradientConfig(**BASE, sampling="poisson", batch_size=50).batch_size_for(40)
    schedule = NoisyGradientConfig(**{**BASE, "lr": [0.5, 0.25, 0.125]})
    assert schedule.lr == (0.5, 0.25, 0.125) and schedule.steps_for(40) == 3
    assert schedule.step_sizes(3) == [0.5, 0.25, 0.125] and NoisyGradientConfig(**BASE).step_sizes(2) == [0.5, 0.5]
    with pytest.raises(ValueError, match="steps=3 must be <= n=2"):
        schedule.steps_for(2)


def test_run_rejects_bad_arguments() -> None:
    config, X = NoisyGradientConfig(**BASE), torch.zeros(4, 1, dtype=F64)
    with pytest.raises(ValueError, match="runs=0"):
        run_noisy_gradient(config, LinearLoss(), X, None, [0.0], runs=0, generator=_generator(0))
    with pytest.raises(ValueError, match="generator=0"):
        run_noisy_gradient(config, LinearLoss(), X, None, [0.0], runs=1, generator=0)
    with pytest.raises(ValueError, match=r"X has shape \(4,\)"):
        run_noisy_gradient(config, LinearLoss(), X[:, 0], None, [0.0], runs=1, generator=_generator(0))
    with pytest.raises(ValueError, match=r"Y has shape \(3,\)"):
        run_noisy_gradient(config, LogisticLoss(), X, torch.ones(3), [0.0], runs=1, generator=_generator(0))
    with pytest.raises(ValueError, match=r"w0 has shape \(3, 1\)"):
        run_noisy_gradient(config, LinearLoss(), X, None, torch.zeros(3, 1), runs=2, generator=_generator(0))


def test_noise_scale_helpers() -> None:
    assert dp_sgd_noise_scale(1.1, 2.0, 256) == pytest.approx(1.1 * 2.0 / 256, rel=1e-15)
    assert dp_sgd_noise_scale(0.0, 1.0, 1) == 0.0
    assert sgld_noise_scale(0.1, 4.0) == pytest.approx(math.sqrt(5.0), rel=1e-15)
    with pytest.raises(ValueError, match="noise_multiplier=-1"):
        dp_sgd_noise_scale(-1, 1.0, 10)
    with pytest.raises(ValueError, match="batch_size=0"):
        dp_sgd_noise_scale(1.0, 1.0, 0)
    with pytest.raises(ValueError, match="inverse_temperature=0"):
        sgld_noise_scale(0.1, 0)


# ------------------------------------------------------------------------------------------------------------
# noise-free runs equal plain loops
# ------------------------------------------------------------------------------------------------------------


def test_single_pass_without_noise_equals_plain_projected_gd_loop() -> None:
    rng = np.random.default_rng(4)
    n, d, runs, radius, lr = 30, 3, 4, 0.8, 0.7
    X, y = rng.normal(size=(n, d)), rng.choice([-1.0, 1.0], size=n)
    w0 = rng.normal(size=(runs, d))
    config = NoisyGradientConfig(lr=lr, noise="none", projection=Ball(radius))
    got = run_noisy_gradient(config, LogisticLoss(), X, y, w0, runs=runs, generator=_generator(0)).numpy()
    expected = w0.copy()
    for t in range(n):  # Algorithm 1 of Asoodeh, Diaz, Calmon (2020) without noise, run by run
        for r in range(runs):
            gradient = -y[t] * expit(-y[t] * expected[r] @ X[t]) * X[t]
            step = expected[r] - lr * gradient
            expected[r] = step * min(1.0, radius / np.linalg.norm(step))
    np.testing.assert_allclose(got, expected, rtol=1e-12, atol=1e-14)


def test_full_batch_without_noise_with_clipping_equals_plain_loop() -> None:
    rng = np.random.default_rng(5)
    n, d, lr, clip, steps = 12, 2, 0.3, 0.5, 7
    X = rng.normal(size=(n, d)) * 2
    config = NoisyGradientConfig(
        lr=lr, noise="none", clip_norm=clip, projection=Interval(-1.0, 0.4), sampling="full_batch", steps=steps
    )
    got = run_noisy_gradient(config, LinearLoss(), X, None, [0.1, -0.2], runs=1, generator=_generator(0))[0]
    clipped = X * np.minimum(1.0, clip / np.linalg.norm(X, axis=1, keepdims=True))
    expected = np.array([0.1, -0.2])
    for _ in range(steps):
        expected = np.clip(expected - lr * clipped.mean(axis=0), -1.0, 0.4)
    np.testing.assert_allclose(got.numpy(), expected, rtol=1e-13)


# ------------------------------------------------------------------------------------------------------------
# noise laws
# ------------------------------------------------------------------------------------------------------------

RUNS = 200_000


def _one_step_noise(noise: str, scale: float, lr: float, d: int, seed: int) -> np.ndarray:
    """Output of one step at a zero gradient from w0 = 0 without projection: exactly −lr·Z."""
    config = NoisyGradientConfig(lr=lr, noise=noise, noise_scale=scale, projection=NoProjection())
    X = torch.zeros(1, d, dtype=F64)
    return run_noisy_gradient(config, LinearLoss(), X, None, torch.zeros(d), runs=RUNS, generator=_generator(seed))


@pytest.mark.parametrize(
    ("noise", "law", "fourth_over_variance_squared"), [("gaussian", stats.norm, 3.0), ("laplace", stats.laplace, 6.0)]
)
def test_noise_mean_variance_and_law(noise, law, fourth_over_variance_squared) -> None:
    lr, scale, d = 0.5, 2.0, 3
    z = _one_step_noise(noise, scale, lr, d, seed=11).numpy()
    s = lr * scale  # the iterate receives −lr·Z
    variance = law(scale=s).var()  # s² (Gaussian) or 2s² (Laplace)
    for k in range(d):
        _within_standard_errors(z[:, k].mean(), 0.0, math.sqrt(variance / RUNS))
        se_variance = variance * math.sqrt((fourth_over_variance_squared - 1) / RUNS)
        _within_standard_errors(z[:, k].var(ddof=1), variance, se_variance)
        assert stats.kstest(z[:, k], law(scale=s).cdf).pvalue > 1e-4
    correlation = np.corrcoef(z.T)[np.triu_indices(d, 1)]
    assert np.all(np.abs(correlation) <= 5 / math.sqrt(RUNS))


@pytest.mark.parametrize(("noise", "law"), [("gaussian", stats.norm), ("laplace", stats.laplace)])
def test_one_projected_step_from_a_point_mass_is_the_clipped_noise_law(noise, law) -> None:
    """Y_1 = Π_[a,b](y0 − lr·x − lr·Z): atoms F((a−m)/s), 1−F((b−m)/s) and the noise density inside."""
    a, b, lr, scale, y0, x = 0.0, 1.0, 0.5, 2.0, 0.7, 1.0
    m, s = y0 - lr * x, lr * scale
    config = NoisyGradientConfig(lr=lr, noise=noise, noise_scale=scale, projection=Interval(a, b), steps=1)
    out = run_noisy_gradient(config, LinearLoss(), [[x]], None, [y0], runs=RUNS, generator=_generator(12))
    y = out.numpy()[:, 0]
    p_a, p_b = law.cdf((a - m) / s), law.sf((b - m) / s)
    for observed, p in ((np.mean(y == a), p_a), (np.mean(y == b), p_b)):
        _within_standard_errors(observed, p, math.sqrt(p * (1 - p) / RUNS))
    assert np.all((y >= a) & (y <= b))
    edges = np.linspace(a, b, 11)
    interior = np.histogram(y[(y > a) & (y < b)], bins=edges)[0]
    counts = np.concatenate([[np.sum(y == a)], interior, [np.sum(y == b)]])
    probabilities = np.concatenate([[p_a], np.diff(law.cdf((edges - m) / s)), [p_b]])
    assert probabilities.sum() == pytest.approx(1.0, abs=1e-14)
    assert stats.chisquare(counts, RUNS * probabilities).pvalue > 1e-4


def test_one_projected_step_reproduces_the_exact_projected_hockey_stick() -> None:
    """D = 1: E_γ(Π_[0,1]N(0,1) ‖ Π_[0,1]N(1,1)) = 0.382925 at ε = 0 and 0.068730 at ε = 1 (exact: see below).

    PNSGD step from y0 = 1/2 with lr = 1/2, σ = 2 (s = lr·σ = 1) and x = +1 (mean 0) versus x' = −1 (mean 1).
    The optimal events are exact here: at ε = 0, {y < 1/2} (interior ratio e^{1/2 − y}, atoms 0.5/Φ(−1) and its
    inverse); at ε = 1, the atom {y = 0} alone (ratio 3.15 > e, while the interior ratio is ≤ e^{1/2} < e).
    """
    assert 2 * stats.norm.cdf(0.5) - 1 == pytest.approx(0.382925, abs=1e-6)
    assert 0.5 - math.e * stats.norm.cdf(-1.0) == pytest.approx(0.068730, abs=1e-6)
    config = NoisyGradientConfig(lr=0.5, noise="gaussian", noise_scale=2.0, projection=Interval(0.0, 1.0), steps=1)
    outputs = [
        run_noisy_gradient(config, LinearLoss(), [[x]], None, [0.5], runs=RUNS, generator=_generator(seed)).numpy()
        for x, seed in ((1.0, 21), (-1.0, 22))
    ]
    for epsilon, event, expected in ((0.0, lambda y: y < 0.5, 0.382925), (1.0, lambda y: y == 0.0, 0.068730)):
        p, q = (float(np.mean(event(out))) for out in outputs)
        standard_error = math.sqrt(p * (1 - p) / RUNS + math.exp(2 * epsilon) * q * (1 - q) / RUNS)
        _within_standard_errors(p - math.exp(epsilon) * q, expected, standard_error)


def test_unprojected_gaussian_chain_has_the_exact_normal_law() -> None:
    """Linear loss, no projection: Y_n = y0 − lr·Σx_t − lr·ΣZ_t ~ N(y0 − lr·Σx, n·lr²σ²) (all n steps used)."""
    n, lr, sigma, y0 = 40, 0.5, 2.0, 0.3
    X = np.linspace(-1.0, 1.0, n).reshape(-1, 1) + 0.25
    config = NoisyGradientConfig(lr=lr, noise="gaussian", noise_scale=sigma)
    runs = 50_000
    y = run_noisy_gradient(config, LinearLoss(), X, None, [y0], runs=runs, generator=_generator(13)).numpy()[:, 0]
    mean, sd = y0 - lr * X.sum(), math.sqrt(n) * lr * sigma
    _within_standard_errors(y.mean(), mean, sd / math.sqrt(runs))
    _within_standard_errors(y.var(ddof=1), sd**2, sd**2 * math.sqrt(2 / runs))
    assert stats.kstest(y, stats.norm(mean, sd).cdf).pvalue > 1e-4


def test_sgld_noise_scale_gives_langevin_increment_variance() -> None:
    lr, beta = 0.1, 4.0
    z = _one_step_noise("gaussian", sgld_noise_scale(lr, beta), lr, 1, seed=14).numpy()[:, 0]
    _within_standard_errors(z.var(ddof=1), 2 * lr / beta, 2 * lr / beta * math.sqrt(2 / RUNS))


def test_dp_sgd_step_mean_and_variance() -> None:
    """Poisson batch of clipped gradients plus σC/B noise: E = w0 − lr·u, Var = lr²(nq(1−q)u²/B² + (σC/B)²)."""
    n, batch, clip, multiplier, lr, runs = 50, 10, 1.0, 1.3, 0.5, 100_000
    q, direction = batch / n, np.array([0.6, -0.8])
    X = np.tile(3.0 * direction, (n, 1))  # every gradient has norm 3 > C: clipped to the unit vector u
    config = NoisyGradientConfig(
        lr=lr,
        noise="gaussian",
        noise_scale=dp_sgd_noise_scale(multiplier, clip, batch),
        clip_norm=clip,
        sampling="poisson",
        batch_size=batch,
        steps=1,
    )
    out = run_noisy_gradient(config, LinearLoss(), X, None, [0.0, 0.0], runs=runs, generator=_generator(15)).numpy()
    for k in range(2):
        variance = lr**2 * (n * q * (1 - q) * direction[k] ** 2 / batch**2 + (multiplier * clip / batch) ** 2)
        _within_standard_errors(out[:, k].mean(), -lr * direction[k], math.sqrt(variance / runs))
        _within_standard_errors(out[:, k].var(ddof=1), variance, variance * math.sqrt(2 / runs))


# ------------------------------------------------------------------------------------------------------------
# reproducibility
# ------------------------------------------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("sampling", "batch_size", "noise", "stopping"),
    [
        ("single_pass", None, "gaussian", "final"),
        ("single_pass", None, "laplace", "uniform_random"),
        ("poisson", 3, "gaussian", "final"),
        ("shuffled", 4, "laplace", "average"),
        ("without_replacement", 3, "gaussian", "uniform_random"),
        ("full_batch", None, "gaussian", "final"),
    ],
)
def test_same_seed_is_bit_identical_and_different_seeds_differ(sampling, batch_size, noise, stopping) -> None:
    config = NoisyGradientConfig(
        lr=0.3,
        noise=noise,
        noise_scale=0.5,
        projection=Ball(1.0),
        sampling=sampling,
        batch_size=batch_size,
        steps=9,
        stopping=stopping,
    )
    X, y = np.random.default_rng(6).normal(size=(12, 2)), np.tile([1.0, -1.0], 6)
    outputs = [
        run_noisy_gradient(config, LogisticLoss(), X, y, [0.1, 0.2], runs=500, generator=_generator(seed))
        for seed in (7, 7, 8)
    ]
    assert torch.equal(outputs[0], outputs[1])
    assert not torch.equal(outputs[0], outputs[2])
    assert outputs[0].shape == (500, 2) and torch.all(torch.isfinite(outputs[0]))


# ------------------------------------------------------------------------------------------------------------
# stopping rules, sampling modes, callbacks (a deterministic "counter" reveals the hidden choices)
# ------------------------------------------------------------------------------------------------------------


def _counter_run(steps: int, stopping: str, runs: int, seed: int) -> np.ndarray:
    """Linear loss with x_t = 1, lr = 1, no noise, no projection, w0 = 0: Y_t = −t, so the output reveals T."""
    config = NoisyGradientConfig(lr=1.0, noise="none", stopping=stopping)
    X = np.ones((steps, 1))
    return -run_noisy_gradient(config, LinearLoss(), X, None, [0.0], runs=runs, generator=_generator(seed)).numpy()


def test_uniform_random_stopping_time_is_uniform_on_1_to_steps() -> None:
    steps, runs = 20, 40_000
    t = _counter_run(steps, "uniform_random", runs, seed=16)[:, 0]
    np.testing.assert_array_equal(t, np.round(t))
    counts = np.bincount(t.astype(int), minlength=steps + 1)
    assert counts[0] == 0 and counts.sum() == runs and t.max() == steps
    p = 1 / steps
    for count in counts[1:]:
        _within_standard_errors(count / runs, p, math.sqrt(p * (1 - p) / runs))
    assert stats.chisquare(counts[1:]).pvalue > 1e-4


def test_final_and_average_stopping_on_the_counter() -> None:
    np.testing.assert_array_equal(_counter_run(9, "final", 3, seed=0), np.full((3, 1), 9.0))
    np.testing.assert_allclose(_counter_run(9, "average", 3, seed=0), np.full((3, 1), 5.0), rtol=1e-15)
    # (2/(T(T+1)))·Σ t·t = (2T+1)/3
    np.testing.assert_allclose(_counter_run(9, "weighted_average", 3, seed=0), np.full((3, 1), 19 / 3), rtol=1e-15)


def test_step_size_schedule_equals_a_plain_loop() -> None:
    """A schedule (η_1, …, η_T) with the weighted average (2/(T(T+1)))·Σ t·Y_t: Lemma 26's decreasing step of Lin et
    al. on a noise-free full-batch logistic problem, against a numpy loop."""
    rng = np.random.default_rng(8)
    n, d, steps, lam, radius = 20, 3, 12, 0.5, 0.6
    X, y = rng.normal(size=(n, d)), rng.choice([-1.0, 1.0], size=n)
    schedule = [2.0 / (lam * (t + 1)) for t in range(1, steps + 1)]
    config = NoisyGradientConfig(
        lr=schedule, noise="none", projection=Ball(radius), sampling="full_batch", stopping="weighted_average"
    )
    got = run_noisy_gradient(config, LogisticLoss(), X, y, np.zeros(d), runs=2, generator=_generator(0)).numpy()
    w, average = np.zeros(d), np.zeros(d)
    for t, eta in enumerate(schedule, start=1):
        step = w - eta * np.mean((-y * expit(-y * (X @ w)))[:, None] * X, axis=0)
        w = step * min(1.0, radius / np.linalg.norm(step))
        average += 2 * t / (steps * (steps + 1)) * w
    np.testing.assert_allclose(got, np.tile(average, (2, 1)), rtol=1e-12, atol=1e-14)


def test_on_step_sees_every_iterate_and_average_is_their_mean() -> None:
    config = NoisyGradientConfig(
        lr=0.2, noise="laplace", noise_scale=1.0, projection=Interval(-1, 1), stopping="average"
    )
    seen: list[tuple[int, torch.Tensor]] = []
    out = run_noisy_gradient(
        config,
        LinearLoss(),
        np.ones((6, 1)),
        None,
        [0.0],
        runs=4,
        generator=_generator(17),
        progress=False,
        on_step=lambda t, w: seen.append((t, w.clone())),
    )
    assert [t for t, _ in seen] == [1, 2, 3, 4, 5, 6]
    torch.testing.assert_close(out, torch.stack([w for _, w in seen]).mean(0), rtol=1e-14, atol=1e-15)


def _batches_seen(sampling: str, n: int, batch: int, steps: int, runs: int, seed: int) -> np.ndarray:
    """Indicator of the samples in each step's batch, shape (steps, runs, n), read off one-hot features."""
    config = NoisyGradientConfig(lr=1.0, noise="none", sampling=sampling, batch_size=batch, steps=steps)
    trajectory = [torch.zeros(runs, n, dtype=F64)]
    run_noisy_gradient(
        config,
        LinearLoss(),
        np.eye(n),
        None,
        np.zeros(n),
        runs=runs,
        generator=_generator(seed),
        on_step=lambda t, w: trajectory.append(w.clone()),
    )
    decrements = -np.diff(torch.stack(trajectory).numpy(), axis=0) * batch  # 1 for each used sample, else 0
    np.testing.assert_allclose(decrements, np.round(decrements), atol=1e-12)
    return np.round(decrements).astype(int)


@pytest.mark.parametrize("gaps", ["default", "one"])
def test_poisson_batch_sizes_are_binomial_with_mean_qn_and_fresh_each_step(monkeypatch, gaps) -> None:
    """Batch sizes Binomial(n, q), each sample and each pair of samples (neighbours and far apart) in a batch with
    probability q and q², steps independent; also with one gap drawn a run (``gaps="one"``), where most runs
    continue with one trial a sample after their first included one."""
    from dplab.learning import engine

    if gaps == "one":
        monkeypatch.setattr(engine, "_poisson_width", lambda n, q: 1)
    n, batch, runs = 20, 4, 50_000
    q = batch / n
    used = _batches_seen("poisson", n, batch, steps=2, runs=runs, seed=18)
    assert set(np.unique(used)) <= {0, 1}
    sizes = used[0].sum(axis=1)
    _within_standard_errors(sizes.mean(), q * n, math.sqrt(n * q * (1 - q) / runs))
    counts = np.bincount(sizes, minlength=n + 1)
    expected = runs * stats.binom(n, q).pmf(np.arange(n + 1))
    tail = 10  # merge sizes >= 10 (expected counts < 5)
    observed_merged = np.concatenate([counts[:tail], [counts[tail:].sum()]])
    expected_merged = np.concatenate([expected[:tail], [expected[tail:].sum()]])
    assert stats.chisquare(observed_merged, expected_merged * runs / expected_merged.sum()).pvalue > 1e-4
    inclusion = used[0].mean(axis=0)
    assert np.all(np.abs(inclusion - q) <= 5 * math.sqrt(q * (1 - q) / runs))
    for i, j in [(0, 1), (6, 7), (3, 17), (18, 19)]:
        _within_standard_errors((used[0][:, i] * used[0][:, j]).mean(), q**2, math.sqrt(q**2 * (1 - q**2) / runs))
    overlap = (used[0] * used[1]).sum(axis=1)  # independent steps: E|S1 ∩ S2| = n q²
    _within_standard_errors(overlap.mean(), n * q**2, math.sqrt(n * q**2 * (1 - q**2) / runs))


def test_shuffled_uses_each_sample_once_per_epoch_with_fresh_permutations() -> None:
    n, batch, runs = 12, 4, 20_000
    used = _batches_seen("shuffled", n, batch, steps=6, runs=runs, seed=19)  # two epochs of 3 batches
    assert np.all(used.sum(axis=2) == batch)
    np.testing.assert_array_equal(used[:3].sum(axis=0), np.ones((runs, n), dtype=int))
    np.testing.assert_array_equal(used[3:].sum(axis=0), np.ones((runs, n), dtype=int))
    p = batch / n
    assert np.all(np.abs(used[0].mean(axis=0) - p) <= 5 * math.sqrt(p * (1 - p) / runs))
    same_first_batch = np.all(used[0] == used[3], axis=1).mean()  # 1/C(12,4) = 1/495 if permutations are fresh
    _within_standard_errors(same_first_batch, 1 / math.comb(n, batch), math.sqrt(1 / math.comb(n, batch) / runs))


def test_without_replacement_draws_fresh_uniform_subsets_of_exact_size() -> None:
    n, batch, runs = 10, 3, 20_000
    used = _batches_seen("without_replacement", n, batch, steps=2, runs=runs, seed=20)
    assert set(np.unique(used)) <= {0, 1}
    assert np.all(used.sum(axis=2) == batch)
    p = batch / n
    assert np.all(np.abs(used[0].mean(axis=0) - p) <= 5 * math.sqrt(p * (1 - p) / runs))
    same = np.all(used[0] == used[1], axis=1).mean()
    _within_standard_errors(same, 1 / math.comb(n, batch), math.sqrt(1 / math.comb(n, batch) / runs))


def _gaussian_config(sampling: str, clip_norm: float | None, lr: float, scale: float, batch: int, steps: int, radius):
    """Gaussian noise, a Ball, ``batch`` samples a step for the modes that draw batches."""
    return NoisyGradientConfig(
        lr=lr,
        noise="gaussian",
        noise_scale=scale,
        clip_norm=clip_norm,
        sampling=sampling,
        batch_size=None if sampling in ("single_pass", "full_batch") else batch,
        steps=steps,
        projection=Ball(radius),
    )


@pytest.mark.parametrize("sampling", ["single_pass", "poisson", "full_batch", "shuffled", "without_replacement"])
@pytest.mark.parametrize("clip_norm", [None, 0.3])
def test_factored_and_torch_func_paths_give_the_same_runs(sampling, clip_norm) -> None:
    """gradients="auto" (factored, for LogisticLoss) and "vmap" draw the same randomness and agree to rounding."""
    rng = np.random.default_rng(1)
    X = rng.normal(size=(40, 6)) / 2
    y = np.where(rng.random(40) < 0.5, -1.0, 1.0)
    config = _gaussian_config(sampling, clip_norm, lr=0.5, scale=0.1, batch=8, steps=12, radius=2.0)
    runs = {
        method: run_noisy_gradient(
            config, LogisticLoss(), X, y, np.zeros(6), runs=5, generator=_generator(3), gradients=method
        )
        for method in ("auto", "vmap")
    }
    torch.testing.assert_close(runs["auto"], runs["vmap"], rtol=1e-12, atol=1e-13)


def test_factored_path_needs_a_factored_loss() -> None:
    config = NoisyGradientConfig(lr=0.5, noise="none", sampling="full_batch", steps=1)
    with pytest.raises(ValueError, match="gradients='factored' needs a loss with factored_gradients"):
        run_noisy_gradient(
            config,
            lambda w, x, y: (w * x).sum(),
            np.ones((3, 2)),
            np.ones(3),
            np.zeros(2),
            runs=1,
            generator=_generator(0),
            gradients="factored",
        )
    with pytest.raises(ValueError, match="gradients='fast' is invalid; allowed: one of 'auto'"):
        run_noisy_gradient(
            config,
            LogisticLoss(),
            np.ones((3, 2)),
            np.ones(3),
            np.zeros(2),
            runs=1,
            generator=_generator(0),
            gradients="fast",
        )


@pytest.mark.parametrize("n, size", [(50, 3), (60, 12), (10, 5)])
def test_uniform_subsets_are_uniform_without_repeats(n, size) -> None:
    """Every path (sparse: size^2 <= n, and size^2 > n with few enough draws; dense: top-k keys): exact size, no
    repeated index, every index with probability size/n, and every pair of indices together with probability
    size(size-1)/(n(n-1))."""
    runs = 40_000
    rows = uniform_subsets(runs, n, size, _generator(7)).numpy()
    assert rows.shape == (runs, size) and rows.min() >= 0 and rows.max() < n
    assert all(len(set(r)) == size for r in rows[:2000])
    incidence = np.zeros((runs, n))
    np.put_along_axis(incidence, rows, 1.0, axis=1)
    p = size / n
    assert np.all(np.abs(incidence.mean(axis=0) - p) <= 5 * math.sqrt(p * (1 - p) / runs))
    pair = incidence[:, 0] * incidence[:, 1]
    q = size * (size - 1) / (n * (n - 1))
    _within_standard_errors(pair.mean(), q, math.sqrt(q * (1 - q) / runs))


def test_sparse_width_keeps_size_plus_eight_where_size_squared_fits_and_stops_at_half_of_n() -> None:
    """size + max(8, ceil(4 size^2/n)) draws a row, or None (dense) where size^2 > n and that exceeds n/2."""
    from dplab.learning.engine import _sparse_width

    assert _sparse_width(10_000, 100) == 108 and _sparse_width(4000, 21) == 29 and _sparse_width(10, 3) == 11
    assert _sparse_width(1000, 100) == 140 and _sparse_width(60, 12) == 22  # size^2 > n: 4 size^2/n spare draws
    assert _sparse_width(30, 12) is None and _sparse_width(10, 5) is None and _sparse_width(1000, 251) is None
    assert _sparse_width(1000, 250) == 500  # 250 + 250 draws: n/2, the last sparse size


def test_first_distinct_values_in_draw_order_and_short_rows_flagged() -> None:
    """The sparse sampler's core on hand-made draws: first distinct values in draw order; rows with too few
    distinct values are flagged (and redrawn by uniform_subsets)."""
    from dplab.learning.engine import _first_distinct

    draws = torch.tensor([[5, 2, 5, 7, 2, 9], [3, 3, 3, 3, 1, 3], [0, 1, 2, 3, 4, 5]])
    values, enough = _first_distinct(draws, 3, 10)
    assert values[0].tolist() == [5, 2, 7] and values[2].tolist() == [0, 1, 2]
    assert enough.tolist() == [True, False, True]


@pytest.mark.parametrize(
    ("rows", "n", "m", "size"),
    [
        (300, 1000, 140, 100),
        (200, 30, 20, 12),
        (50, 3, 9, 3),
        (40, 1, 4, 1),
        (100, 10**7, 300, 290),
        (30, 2**40, 17, 9),
    ],
)
def test_first_distinct_equals_a_row_by_row_scan(rows, n, m, size) -> None:
    """The sorted-key screen against the obvious scan of each row in draw order, on draws with many repeats (n
    small against m), none, and n too large for int32 keys (n·2^s > 2^31); rows short of ``size`` distinct values
    flagged, and the values of the others equal."""
    from dplab.learning.engine import _first_distinct

    draws = torch.randint(n, (rows, m), generator=_generator(rows + m))
    values, enough = _first_distinct(draws, size, n)
    for row, got, full in zip(draws.tolist(), values.tolist(), enough.tolist()):
        distinct = list(dict.fromkeys(row))
        assert full == (len(distinct) >= size)
        if full:
            assert got == distinct[:size]


# ------------------------------------------------------------------------------------------------------------
# randomness drawn a block of steps ahead equals the step-by-step draws bit for bit
# ------------------------------------------------------------------------------------------------------------


def _reference_batch(sampling: str, runs: int, n: int, size: int, t: int, generator, state: dict):
    """What a step-by-step loop draws for step t (0-based): (indices (R, B) or None, 0/1 weights or None)."""
    if sampling == "poisson":
        return _reference_poisson(runs, n, size / n, generator)
    if sampling == "shuffled":
        per_epoch = n // size
        if t % per_epoch == 0:
            state["permutation"] = torch.argsort(torch.rand(runs, n, generator=generator, dtype=F64), dim=1)
        k = t % per_epoch
        return state["permutation"][:, k * size : (k + 1) * size], None
    return uniform_subsets(runs, n, size, generator), None


def _reference_poisson(runs: int, n: int, q: float, generator) -> tuple[torch.Tensor, torch.Tensor]:
    """A Poisson step read off run by run: ``width`` uniforms a run, each a geometric gap 1 + floor(log(1 − u)/
    log(1 − q)) to the next included sample; a run whose gaps all end inside the data then draws one uniform per
    remaining sample (included when < q). The included samples padded with 0 to the widest run, and 0/1 weights."""
    from dplab.learning import engine

    uniforms = torch.rand(runs, engine._poisson_width(n, q), generator=generator, dtype=F64)
    rows = []
    for run in uniforms.tolist():
        included, position = [], -1
        for u in run:
            position += n + 1 if q == 0 else 1 if q == 1 else 1 + math.floor(math.log1p(-u) / math.log1p(-q))
            if position >= n:
                break
            included.append(position)
        else:
            trials = torch.rand(n - 1 - position, generator=generator, dtype=F64).tolist()
            included += [position + 1 + i for i, u in enumerate(trials) if u < q]
        rows.append(included)
    width = max(len(row) for row in rows)
    index = torch.tensor([row + [0] * (width - len(row)) for row in rows], dtype=torch.int64).view(runs, width)
    weights = torch.tensor([[1.0] * len(row) + [0.0] * (width - len(row)) for row in rows], dtype=F64)
    return index, weights.view(runs, width)


def _reference_noise(kind: str, scale, shape: tuple[int, ...], generator, dtype=F64) -> torch.Tensor:
    """A step drawn on its own: torch's ``randn``, or for Laplace one uniform u a number, read entry by entry with
    Python's libm: sign of u − 1/2, magnitude −log1p(−r) with r = 2u below 1/2 and 2u − 1 from 1/2 on."""
    if kind == "gaussian":
        return torch.randn(shape, generator=generator, dtype=dtype).mul_(scale)
    uniforms = torch.rand(shape, generator=generator, dtype=dtype)
    laplace = [math.copysign(-math.log1p(-(2 * u - (u >= 0.5))), u - 0.5) for u in uniforms.flatten().tolist()]
    return torch.tensor(laplace, dtype=dtype).view(shape).mul_(scale)


def _assert_within_ulps(actual: torch.Tensor, expected: torch.Tensor, ulps: int) -> None:
    """|actual − expected| <= ulps units in the last place of expected, entry by entry (equal dtypes and shapes)."""
    assert actual.dtype == expected.dtype and actual.shape == expected.shape
    spacing = torch.nextafter(expected.abs(), torch.tensor(math.inf, dtype=expected.dtype)) - expected.abs()
    assert torch.all((actual - expected).abs() <= ulps * spacing), float(((actual - expected).abs() / spacing).max())


@pytest.mark.parametrize("kind", ["gaussian", "laplace"])
@pytest.mark.parametrize("dtype", [F64, torch.float32])
@pytest.mark.parametrize("shape", [(1,), (15,), (16,), (37, 3), (4000, 1), (40, 50)])
def test_noise_draws_follow_torch_samplers_stream_within_four_ulps(kind, dtype, shape) -> None:
    """The engine's noise (uniforms drawn per step, transformed per block by vectorised Box–Muller or the Laplace
    transform) against a step drawn on its own (torch's ``randn``; Laplace read entry by entry): the same generator
    stream (equal states after, values within 4 ulp, most of them equal), bit for bit where torch's own sampler is
    called (float32 Gaussian, Gaussian under 16 entries)."""
    from dplab.learning import engine

    scale = torch.linspace(0.1, 1.0, shape[0], dtype=dtype).view(-1, *([1] * (len(shape) - 1)))
    draws = engine._NoiseDraws(kind, scale, shape, dtype)
    generator, reference, equal, total = _generator(11), _generator(11), 0, 0
    for k in engine._drawn_ahead(7, [draws], generator):
        expected = _reference_noise(kind, scale, shape, reference, dtype)
        _assert_within_ulps(draws.values[k], expected, 4)
        equal, total = equal + int((draws.values[k] == expected).sum()), total + expected.numel()
    assert torch.equal(reference.get_state(), generator.get_state())
    vectorised = kind == "laplace" or (dtype == F64 and math.prod(shape) >= 16)
    assert equal / total >= 0.85 if vectorised else equal == total


@pytest.mark.parametrize(
    ("sampling", "runs", "n", "size", "noise"),
    [
        ("without_replacement", 7, 400, 12, "gaussian"),  # sparse subsets (size² <= n)
        ("without_replacement", 5, 60, 12, "laplace"),  # sparse subsets with size² > n
        ("without_replacement", 5, 30, 12, "gaussian"),  # dense subsets (top-k keys)
        ("poisson", 6, 50, 7, "gaussian"),
        ("poisson", 1, 50, 1, None),  # q = 1/50: many steps with no sample
        ("poisson", 4, 200, 150, "laplace"),  # most samples in every batch
        ("poisson", 3, 8, 8, "gaussian"),  # q = 1: every sample, no padding
        ("shuffled", 4, 23, 5, "laplace"),
        ("without_replacement", 3, 40, 6, None),
    ],
)
@pytest.mark.parametrize("spare", [8, 0])
def test_block_drawn_batches_and_noise_equal_step_by_step_draws(monkeypatch, sampling, runs, n, size, noise, spare):
    """The engine draws a block of steps ahead (batches, then noise, per step, in the generator's order) and
    processes the block at once; every step's batch and noise equal a step-by-step loop's bit for bit. With no
    spare draws (spare = 0) the sparse subset sampler's short rows, and Poisson runs whose gaps end inside the data,
    are frequent, so blocks cut and redo steps."""
    from dplab.learning import engine

    monkeypatch.setattr(engine, "_SPARE_DRAWS", spare)
    if spare == 0:  # Poisson: a gap per expected sample only, so that runs often continue with one trial a sample
        monkeypatch.setattr(engine, "_poisson_width", lambda n, q: max(1, round(q * n)))
    monkeypatch.setattr(engine, "_BLOCK_NUMBERS", 4 * runs * (n + 2))  # a few steps per block: many blocks
    steps, scale, d = 60, 0.7, 3  # noise of 9-21 entries: torch.randn's own (< 16) and the vectorised path
    config = NoisyGradientConfig(lr=0.1, noise="none", sampling=sampling, batch_size=size)
    batches = engine._batch_draws(config, runs, n)
    draws = [batches]
    if noise is not None:
        draws.append(engine._NoiseDraws(noise, scale, (runs, d), F64))
    X, reference, state = torch.arange(n, dtype=F64)[:, None], _generator(3), {}
    for t, k in enumerate(engine._drawn_ahead(steps, draws, _generator(3))):
        batch = batches.batch(k, t, X, None)
        index, weights = _reference_batch(sampling, runs, n, size, t, reference, state)
        assert torch.equal(batch.X[..., 0].long(), index)
        assert (batch.weights is None and weights is None) or torch.equal(batch.weights, weights)
        if noise is not None:
            _assert_within_ulps(draws[1].values[k], _reference_noise(noise, scale, (runs, d), reference), 4)
    assert torch.equal(reference.get_state(), _generator_after(draws, steps))


def _generator_after(draws, steps: int) -> torch.Tensor:
    """The generator state after the engine's draws of ``steps`` steps (the same sequence drawn again)."""
    from dplab.learning import engine

    generator = _generator(3)
    for _ in engine._drawn_ahead(steps, draws, generator):
        pass
    return generator.get_state()


def test_noise_and_subset_step_iterators_equal_step_by_step_draws() -> None:
    """The public iterators: noise_steps (the engine's noise for batch-free sampling) and subset_and_noise_steps
    (uniform_subsets then per-run-scaled Gaussian noise, as the generalization study's SGLD draws them)."""
    from dplab.learning.engine import noise_steps, subset_and_noise_steps

    reference = _generator(4)
    for z in noise_steps("laplace", 0.3, (5, 2), 40, _generator(4)):
        _assert_within_ulps(z, _reference_noise("laplace", 0.3, (5, 2), reference), 4)
    reference, scale = _generator(5), torch.linspace(0.1, 1.0, 6, dtype=torch.float32)[:, None]
    steps = subset_and_noise_steps(6, 900, 30, 40, _generator(5), noise_scale=scale, noise_shape=(6, 3))
    for subsets, z in steps:
        assert torch.equal(subsets, uniform_subsets(6, 900, 30, reference))
        _assert_within_ulps(z, torch.randn((6, 3), generator=reference, dtype=F64).mul_(scale), 4)
    assert all(z is None for _, z in subset_and_noise_steps(2, 50, 3, 5, _generator(6)))
    with pytest.raises(ValueError, match="noise='uniform'"):
        next(noise_steps("uniform", 1.0, (2,), 3, _generator(0)))
    with pytest.raises(ValueError, match="size=51"):
        next(subset_and_noise_steps(2, 50, 51, 5, _generator(0)))


@pytest.mark.parametrize(("n", "rate"), [(300, 0.02), (20, 0.5), (7, 1.0)])
def test_poisson_batches_equal_the_engine_s_poisson_draws_of_one_run(monkeypatch, n, rate) -> None:
    """poisson_batches (the front door's sampler) yields one run's Poisson batches, the included records in
    increasing order, as a run-by-run reference draws them step by step; also with one gap a run, where most steps
    continue with one trial a record."""
    from dplab.learning import engine
    from dplab.learning.engine import poisson_batches

    for width in (None, 1):
        if width is not None:
            monkeypatch.setattr(engine, "_poisson_width", lambda n, q: width)
        reference = _generator(8)
        for index in poisson_batches(n, rate, 300, _generator(8)):
            expected, weights = _reference_poisson(1, n, rate, reference)
            assert torch.equal(index, expected[0][weights[0] == 1])


def _logistic_run(X, Y, w0):
    config = NoisyGradientConfig(lr=0.1, noise="gaussian", noise_scale=0.5, projection=Ball(1.0), steps=2)
    return run_noisy_gradient(
        config, LogisticLoss(), X, Y, w0, runs=2, generator=torch.Generator().manual_seed(0), progress=False
    )


def test_engine_refuses_non_finite_data_and_start_once():
    X, Y, w0 = np.full((4, 2), 0.1), np.array([1.0, -1.0, 1.0, -1.0]), np.zeros(2)
    _logistic_run(X, Y, w0)
    with pytest.raises(ValueError, match=r"X has non-finite entries \[nan\]"):
        _logistic_run(np.where(np.arange(8).reshape(4, 2) == 3, math.nan, X), Y, w0)
    with pytest.raises(ValueError, match=r"w0 has non-finite entries \[inf\]"):
        _logistic_run(X, Y, np.array([0.0, math.inf]))


def test_logistic_loss_refuses_zero_one_labels():
    """The logistic loss assumes y in {-1, +1}; a {0, 1} coding used to be accepted silently."""
    with pytest.raises(ValueError, match=r"Y=\[0.0, 0.0\] is invalid; allowed: labels in \{-1, 1\}"):
        _logistic_run(np.full((4, 2), 0.1), np.array([1.0, 0.0, 1.0, 0.0]), np.zeros(2))


class _BatchNorms:
    """``loss``'s factored gradients called as a loss without the ``squared_features`` keyword calls them: the norms
    computed from each step's batch (the formula of losses the engine passes no norms to)."""

    def __init__(self, loss) -> None:
        self.loss = loss
        self.label_set = getattr(loss, "label_set", None)

    def __call__(self, w, x, y):
        return self.loss(w, x, y)

    def factored_gradients(self, w, X, Y=None):
        return self.loss.factored_gradients(w, X, Y)


class _CheckedNorms(_BatchNorms):
    """Records every ``squared_features`` the engine passes and checks it against the batch's ‖x_j‖², bit for bit."""

    def __init__(self, loss) -> None:
        super().__init__(loss)
        self.calls = 0

    def factored_gradients(self, w, X, Y=None, *, squared_features=None):
        assert squared_features is not None and squared_features.dtype == X.dtype
        assert torch.equal(squared_features, X.square().sum(-1))
        self.calls += 1
        return self.loss.factored_gradients(w, X, Y, squared_features=squared_features)


def _norm_cases():
    return [
        (LinearLoss(offset=0.2), 5),
        (LogisticLoss(), 5),
        (RegularisedLogisticLoss(0.3), 5),
        (TwoLayerLogisticLoss(5, 3), TwoLayerLogisticLoss(5, 3).parameters),
    ]


@pytest.mark.parametrize("sampling", ["single_pass", "poisson", "full_batch", "shuffled", "without_replacement"])
@pytest.mark.parametrize("dtype", [torch.float64, torch.float32])
@pytest.mark.parametrize("clip_norm", [None, 0.4])
@pytest.mark.parametrize("case", range(4))
def test_record_norms_computed_once_give_the_batch_formula_bit_for_bit(sampling, dtype, clip_norm, case) -> None:
    """The engine's ‖x_j‖², computed once for all records and gathered per step (shared, sliced, per-run and Poisson
    padded batches), equal the batch's own at every step, and every iterate equals that of a loss that computes them
    from the batch (torch.equal)."""
    loss, d = _norm_cases()[case]
    rng = np.random.default_rng(case)
    X = rng.normal(size=(37, 5)) * 1.5
    y = np.where(rng.random(37) < 0.5, -1.0, 1.0)
    config = _gaussian_config(sampling, clip_norm, lr=0.3, scale=0.05, batch=6, steps=13, radius=3.0)
    checked = _CheckedNorms(loss)
    iterates = {}
    for name, wrapped in (("engine", checked), ("batch", _BatchNorms(loss))):
        seen = []
        run_noisy_gradient(
            config,
            wrapped,
            X,
            y,
            np.full(d, 0.1),
            runs=4,
            generator=_generator(7),
            dtype=dtype,
            on_step=lambda t, w, seen=seen: seen.append(w.clone()),
        )
        iterates[name] = torch.stack(seen)
    assert checked.calls >= 12  # one per step (a Poisson step with no sample in any run makes no call)
    assert iterates["engine"].dtype == dtype
    assert torch.equal(iterates["engine"], iterates["batch"])


@pytest.mark.parametrize("dtype", [torch.float64, torch.float32])
@pytest.mark.parametrize("shape", [(1000, 500), (5000, 50), (40000, 3), (3, 2000), (100, 33), (7, 1)])
def test_squared_feature_norms_of_gathered_rows_equal_the_gathered_norms(dtype, shape) -> None:
    """‖x_j‖² summed per contiguous row: the same bits for a gathered (R, B, d) batch, a slice and all rows, at 1 and
    2 threads (torch's reduction over the last axis does not depend on the number of rows)."""
    generator = _generator(shape[0])
    X = torch.randn(*shape, generator=generator, dtype=dtype) * 3
    index = torch.randint(shape[0], (4, max(1, shape[0] // 7)), generator=generator)
    previous = torch.get_num_threads()
    try:
        for threads in (1, 2):
            torch.set_num_threads(threads)
            everything = squared_feature_norms(X)
            assert torch.equal(squared_feature_norms(X[index]), everything[index])
            assert torch.equal(squared_feature_norms(X[2 % shape[0] :][:1]), everything[2 % shape[0] :][:1])
    finally:
        torch.set_num_threads(previous)
