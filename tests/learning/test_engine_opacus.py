"""dplab's noisy-gradient engine against Opacus 1.6 (the reference implementation of DP-SGD) and micro-batches.

- per-sample gradients of the benchmark MLP (benchmarks/models.py) equal micro-batch gradients of the same network
  as a torch.nn.Module (one backward per sample) and Opacus's ``GradSampleModule`` ``grad_sample``;
- the clipped gradient sum equals Opacus's ``DPOptimizer.clip_and_accumulate`` ``summed_grad`` on the same batch,
  weights and clip norm (Opacus divides by ‖g‖ + 1e-6, so the tolerance is that relative 1e-6/‖g‖);
- the DP-SGD noise has Opacus's law: Opacus adds N(0, (σC)²) to the clipped sum and divides by the expected batch
  size B, so each coordinate of the gradient gets N(0, (σC/B)²); both engines' noise is tested against that mean
  and variance with CLT tolerances (5 standard errors) and a Kolmogorov–Smirnov test.
"""

from __future__ import annotations

import importlib
import math
import sys
import warnings
from pathlib import Path

import numpy as np
import pytest
import torch
from scipy import stats

from dplab.learning.engine import NoisyGradientConfig, dp_sgd_noise_scale, per_sample_gradients, run_noisy_gradient
from dplab.learning.losses import LinearLoss, LogisticLoss

opacus = pytest.importorskip("opacus")
from opacus import GradSampleModule  # noqa: E402
from opacus.optimizers import DPOptimizer  # noqa: E402

F64 = torch.float64
ROOT = Path(__file__).resolve().parents[2]


def _benchmark_models():
    """benchmarks.models from this repository (Opacus installs an unrelated top-level ``benchmarks`` package)."""
    if sys.path[0] != str(ROOT):
        sys.path.insert(0, str(ROOT))
    loaded = sys.modules.get("benchmarks")
    if loaded is not None and not Path(loaded.__file__).resolve().is_relative_to(ROOT):
        for name in [name for name in sys.modules if name == "benchmarks" or name.startswith("benchmarks.")]:
            del sys.modules[name]
    return importlib.import_module("benchmarks.models")


models = _benchmark_models()
INPUTS, HIDDEN, BATCH = 7, 5, 12


@pytest.fixture(autouse=True, scope="module")
def _single_thread():
    previous = torch.get_num_threads()
    torch.set_num_threads(1)
    yield
    torch.set_num_threads(previous)


def _setup(name: str, seed: int = 0):
    """Module and flat θ with identical weights, a batch with labels ±1 (features scaled so some gradients clip)."""
    spec = models.model_spec(name, INPUTS, HIDDEN)
    module = models.make_module(spec, seed, F64)
    X, y = models.make_data(BATCH, INPUTS, seed + 1, F64)
    X = X * torch.linspace(0.2, 6.0, BATCH, dtype=F64)[:, None]  # gradient norms on both sides of C
    return spec, module, models.flat_parameters(module), X, y


def _micro_batch_gradients(module: torch.nn.Module, X: torch.Tensor, y: torch.Tensor) -> torch.Tensor:
    """Reference: one autograd backward of the nn.Module per sample, flattened in parameter order."""
    rows = []
    for j in range(X.shape[0]):
        module.zero_grad()
        models.module_loss(module, X[j : j + 1], y[j : j + 1]).backward()
        rows.append(torch.cat([p.grad.reshape(-1) for p in module.parameters()]))
    return torch.stack(rows)


def _opacus_grad_samples(module: torch.nn.Module, X, y) -> tuple[GradSampleModule, torch.Tensor]:
    wrapped = GradSampleModule(module)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        models.module_loss(wrapped, X, y).backward()
    flat = torch.cat([p.grad_sample.reshape(X.shape[0], -1) for p in wrapped.parameters()], dim=1)
    return wrapped, flat


def test_mlp_flat_loss_equals_the_module_loss() -> None:
    spec, module, theta, X, y = _setup("mlp")
    ours = torch.stack([spec.loss(theta, X[j], y[j]) for j in range(BATCH)])
    torch.testing.assert_close(ours, -torch.nn.functional.logsigmoid(y * module(X).squeeze(-1)), rtol=1e-13, atol=0)


@pytest.mark.parametrize("name", ["logistic", "mlp"])
def test_per_sample_gradients_equal_micro_batch_and_opacus_grad_samples(name) -> None:
    spec, module, theta, X, y = _setup(name)
    ours = per_sample_gradients(spec.loss, theta[None], X, y)[0]
    assert ours.shape == (BATCH, spec.parameters)
    torch.testing.assert_close(ours, _micro_batch_gradients(module, X, y), rtol=1e-12, atol=1e-14)
    torch.testing.assert_close(ours, _opacus_grad_samples(module, X, y)[1], rtol=1e-12, atol=1e-14)


@pytest.mark.parametrize("name", ["logistic", "mlp"])
@pytest.mark.parametrize("clip", [0.05, 0.5])
def test_clipped_gradient_sum_equals_opacus_summed_grad(name, clip) -> None:
    spec, module, theta, X, y = _setup(name)
    wrapped, grad_samples = _opacus_grad_samples(module, X, y)
    norms = torch.linalg.vector_norm(grad_samples, dim=1)
    assert bool((norms > clip).any()), "the test must clip some gradients"
    optimizer = DPOptimizer(
        torch.optim.SGD(wrapped.parameters(), lr=1.0),
        noise_multiplier=0.0,
        max_grad_norm=clip,
        expected_batch_size=BATCH,
    )
    optimizer.clip_and_accumulate()
    opacus_sum = torch.cat([p.summed_grad.reshape(-1) for p in wrapped.parameters()])
    # The engine's clipped sum through the public API: one full-batch step, lr = 1, no noise, normaliser B.
    config = NoisyGradientConfig(lr=1.0, noise="none", clip_norm=clip, sampling="full_batch", steps=1)
    out = run_noisy_gradient(config, spec.loss, X, y, theta, runs=1, generator=torch.Generator().manual_seed(0))
    engine_sum = (theta - out[0]) * BATCH
    # the exact formula Σ_j g_j·min(1, C/‖g_j‖) (from Opacus's per-sample gradients)
    clipped = grad_samples * torch.clamp(clip / norms, max=1.0)[:, None]
    torch.testing.assert_close(engine_sum, clipped.sum(0), rtol=1e-12, atol=1e-12)
    # Opacus uses C/(‖g_j‖ + 1e-6): a relative change ≤ 1e-6/‖g_j‖ of each clipped term, so per coordinate
    # |ours − Opacus| ≤ Σ_j |clip(g_j)_k|·1e-6/‖g_j‖ (plus rounding).
    bound = (clipped.abs() * (1e-6 / norms)[:, None]).sum(0) * 1.01 + 1e-12
    assert bool(((engine_sum - opacus_sum).abs() <= bound).all())


def test_noise_scale_is_opacus_std_over_expected_batch_size() -> None:
    sigma, clip, batch = 1.3, 0.7, 256
    optimizer = DPOptimizer(
        torch.optim.SGD([torch.zeros(1, requires_grad=True)], lr=1.0),
        noise_multiplier=sigma,
        max_grad_norm=clip,
        expected_batch_size=batch,
    )
    opacus_std = optimizer.noise_multiplier * optimizer.max_grad_norm / optimizer.expected_batch_size
    assert dp_sgd_noise_scale(sigma, clip, batch) == pytest.approx(opacus_std, rel=1e-15)


def _opacus_noise(sigma: float, clip: float, batch: int, coordinates: int, seed: int) -> np.ndarray:
    """Opacus's gradient noise: pre_step on zero per-sample gradients leaves p.grad = N(0, (σC)²)/B."""
    torch.manual_seed(seed)
    module = GradSampleModule(torch.nn.Linear(coordinates, 1, bias=False).to(F64))
    optimizer = DPOptimizer(
        torch.optim.SGD(module.parameters(), lr=1.0),
        noise_multiplier=sigma,
        max_grad_norm=clip,
        expected_batch_size=batch,
    )
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        module(torch.zeros(4, coordinates, dtype=F64)).sum().backward()  # x = 0: every per-sample gradient is 0
    optimizer.pre_step()
    return module._module.weight.grad.reshape(-1).numpy().copy()


def _engine_noise(sigma: float, clip: float, batch: int, coordinates: int, seed: int) -> np.ndarray:
    """The engine's gradient noise Z: one Poisson step at x = 0 (zero gradients) from w0 = 0 with lr = 1 gives −Z."""
    config = NoisyGradientConfig(
        lr=1.0,
        noise="gaussian",
        noise_scale=dp_sgd_noise_scale(sigma, clip, batch),
        clip_norm=clip,
        sampling="poisson",
        batch_size=batch,
        steps=1,
    )
    X = torch.zeros(2 * batch, coordinates, dtype=F64)
    out = run_noisy_gradient(
        config, LinearLoss(), X, None, torch.zeros(coordinates), runs=1, generator=torch.Generator().manual_seed(seed)
    )
    return -out[0].numpy()


@pytest.mark.parametrize("draw", [_opacus_noise, _engine_noise], ids=["opacus", "dplab"])
def test_noise_has_the_mean_and_variance_opacus_uses(draw) -> None:
    sigma, clip, batch, coordinates = 1.1, 2.0, 64, 200_000
    z = draw(sigma, clip, batch, coordinates, seed=5)
    std = sigma * clip / batch  # Opacus: N(0, (σC)²) added to the clipped sum, then divided by B
    assert abs(z.mean()) <= 5 * std / math.sqrt(coordinates)
    assert abs(z.var(ddof=1) - std**2) <= 5 * std**2 * math.sqrt(2 / coordinates)  # Var of s² ≈ 2σ⁴/N
    assert stats.kstest(z, stats.norm(scale=std).cdf).pvalue > 1e-4


def test_engine_and_opacus_noise_have_equal_variances() -> None:
    """Two-sample check (F-test of equal variances) between the two implementations' noise."""
    sigma, clip, batch, coordinates = 0.8, 1.0, 32, 100_000
    ours, theirs = _engine_noise(sigma, clip, batch, coordinates, 9), _opacus_noise(sigma, clip, batch, coordinates, 9)
    ratio = ours.var(ddof=1) / theirs.var(ddof=1)
    f = stats.f(coordinates - 1, coordinates - 1)
    assert f.ppf(1e-4) < ratio < f.ppf(1 - 1e-4)
    assert stats.ks_2samp(ours, theirs).pvalue > 1e-4


def test_logistic_loss_of_benchmark_is_dplab_logistic_loss() -> None:
    assert isinstance(models.model_spec("logistic", INPUTS, HIDDEN).loss, LogisticLoss)
