"""Losses: values against mpmath, gradients against closed forms, constants against measured sup-norms/Hessians."""

from __future__ import annotations

import math

import mpmath
import numpy as np
import pytest
import torch
from scipy.special import expit
from torch.func import grad, hessian

from dplab.learning.losses import LinearLoss, LogisticLoss

mpmath.mp.dps = 50


def _t(values) -> torch.Tensor:
    return torch.as_tensor(values, dtype=torch.float64)


@pytest.mark.parametrize("margin", [-800.0, -40.0, -1.0, 0.0, 1e-8, 2.5, 37.0, 800.0])
def test_logistic_value_matches_mpmath_at_extreme_margins(margin: float) -> None:
    w, x, y = _t([margin]), _t([1.0]), _t(1.0)
    reference = float(mpmath.log1p(mpmath.exp(-mpmath.mpf(margin))))
    value = float(LogisticLoss()(w, x, y))
    assert math.isfinite(value)
    assert value == pytest.approx(reference, rel=1e-14, abs=1e-300)


def test_logistic_gradient_matches_closed_form_including_zero_margin() -> None:
    rng = np.random.default_rng(0)
    for _ in range(20):
        w, x = rng.normal(size=4) * 3, rng.normal(size=4)
        y = rng.choice([-1.0, 1.0])
        expected = -y * expit(-y * w @ x) * x
        got = grad(LogisticLoss())(_t(w), _t(x), _t(y)).numpy()
        np.testing.assert_allclose(got, expected, rtol=1e-13, atol=1e-15)
    at_zero = grad(LogisticLoss())(_t([0.0, 0.0]), _t([0.6, -0.8]), _t(1.0))
    np.testing.assert_allclose(at_zero.numpy(), [-0.3, 0.4], rtol=1e-15)  # sigmoid(0) = 1/2


def test_linear_value_and_gradient() -> None:
    loss = LinearLoss(offset=1.5)
    w, x = _t([0.3, -2.0]), _t([2.0, 0.25])
    assert float(loss(w, x, None)) == pytest.approx(0.6 - 0.5 + 1.5, rel=1e-15)
    np.testing.assert_array_equal(grad(loss)(w, x, None).numpy(), x.numpy())


@pytest.mark.parametrize("feature_bound", [0.5, 1.0, 3.0])
def test_logistic_constants_bound_and_are_attained(feature_bound: float) -> None:
    loss = LogisticLoss()
    assert loss.lipschitz(feature_bound) == feature_bound
    assert loss.smoothness(feature_bound) == feature_bound**2 / 4
    assert loss.strong_convexity == 0.0
    rng = np.random.default_rng(1)
    grad_norms, hessian_tops, hessian_bottoms = [], [], []
    for scale in (0.01, 1.0, 10.0, 100.0):
        for _ in range(25):
            x = rng.normal(size=3)
            x *= feature_bound * rng.uniform(0.5, 1.0) / np.linalg.norm(x)
            w, y = _t(rng.normal(size=3) * scale), _t(rng.choice([-1.0, 1.0]))
            grad_norms.append(float(torch.linalg.vector_norm(grad(loss)(w, _t(x), y))))
            eigenvalues = torch.linalg.eigvalsh(hessian(loss)(w, _t(x), y))
            hessian_tops.append(float(eigenvalues[-1]))
            hessian_bottoms.append(float(eigenvalues[0]))
    assert max(grad_norms) <= feature_bound * (1 + 1e-12)
    assert max(grad_norms) > 0.9 * 0.5 * feature_bound  # large negative margins approach ‖x‖
    assert max(hessian_tops) <= feature_bound**2 / 4 * (1 + 1e-12)
    assert min(hessian_bottoms) >= -1e-12  # convex, not strongly: the smallest eigenvalue is 0 for d = 3
    assert min(abs(v) for v in hessian_bottoms) < 1e-12
    # β = B²/4 is attained at margin 0 with ‖x‖ = B.
    x_edge = _t([feature_bound, 0.0, 0.0])
    top = torch.linalg.eigvalsh(hessian(loss)(_t([0.0, 0.0, 0.0]), x_edge, _t(1.0)))[-1]
    assert float(top) == pytest.approx(feature_bound**2 / 4, rel=1e-14)


def test_linear_constants() -> None:
    loss = LinearLoss(offset=2.0)
    assert loss.lipschitz(0.7) == 0.7
    assert loss.smoothness(0.7) == 0.0
    assert loss.strong_convexity == 0.0
    x = _t([0.6, 0.0])  # ‖∇ℓ‖ = ‖x‖ and a zero Hessian
    assert float(torch.linalg.vector_norm(grad(loss)(_t([5.0, -1.0]), x, None))) == pytest.approx(0.6)
    assert float(torch.abs(hessian(loss)(_t([5.0, -1.0]), x, None)).max()) == 0.0


@pytest.mark.parametrize("bad", [0.0, -1.0, math.inf, math.nan])
def test_constants_reject_bad_feature_bound(bad: float) -> None:
    for loss in (LinearLoss(), LogisticLoss()):
        with pytest.raises(ValueError, match="feature_bound"):
            loss.lipschitz(bad)
        with pytest.raises(ValueError, match="feature_bound"):
            loss.smoothness(bad)


def test_regularised_logistic_loss_adds_the_ridge_term_and_its_constants() -> None:
    """ℓ_λ = logistic loss + (λ/2)‖w‖², its Hessian s(1 − s)xxᵀ + λI has eigenvalues in [λ, ‖x‖²/4 + λ]."""
    from dplab.learning.losses import RegularisedLogisticLoss

    loss, w, x, y = RegularisedLogisticLoss(0.4), _t([0.3, -1.2]), _t([0.6, 0.8]), _t(-1.0)
    expected = math.log1p(math.exp(-(-1.0) * (0.3 * 0.6 - 1.2 * 0.8))) + 0.2 * (0.3**2 + 1.2**2)
    assert float(loss(w, x, y)) == pytest.approx(expected, rel=1e-14)
    eigenvalues = torch.linalg.eigvalsh(hessian(loss)(w, x, y))
    assert float(eigenvalues.min()) == pytest.approx(0.4, rel=1e-12) == loss.strong_convexity
    assert float(eigenvalues.max()) <= loss.smoothness(1.0) == pytest.approx(0.25 + 0.4)
    with pytest.raises(ValueError, match="lam"):
        RegularisedLogisticLoss(-0.1)


def test_linear_rejects_non_finite_offset() -> None:
    with pytest.raises(ValueError, match="offset=inf"):
        LinearLoss(offset=math.inf)


def _factored_cases():
    from dplab.learning.losses import RegularisedLogisticLoss, TwoLayerLogisticLoss

    return [
        (LinearLoss(offset=0.3), 5, False),
        (LogisticLoss(), 5, True),
        (TwoLayerLogisticLoss(4, 3), 4, True),
        (RegularisedLogisticLoss(0.3), 4, True),
    ]


@pytest.mark.parametrize("case", range(4))
@pytest.mark.parametrize("per_run_samples", [False, True])
def test_factored_gradients_equal_torch_func_per_sample_gradients(case, per_run_samples) -> None:
    """‖∇ℓ_j‖² and Σ_j c_j ∇ℓ_j from the factors equal those of the (R, B, d) torch.func gradients."""
    from dplab.learning.engine import per_sample_gradients

    loss, dx, labelled = _factored_cases()[case]
    generator = torch.Generator().manual_seed(case)
    runs, batch = 3, 7
    d = getattr(loss, "parameters", dx)
    w = torch.randn(runs, d, generator=generator, dtype=torch.float64)
    shape = (runs, batch, dx) if per_run_samples else (batch, dx)
    X = torch.randn(*shape, generator=generator, dtype=torch.float64)
    Y = torch.where(torch.rand(shape[:-1], generator=generator) < 0.5, -1.0, 1.0).double() if labelled else None
    reference = per_sample_gradients(loss, w, X, Y)
    factored = loss.factored_gradients(w, X, Y)
    torch.testing.assert_close(factored.squared_norms, reference.square().sum(-1), rtol=1e-12, atol=1e-14)
    c = torch.rand(runs, batch, generator=generator, dtype=torch.float64)
    torch.testing.assert_close(factored.weighted_sum(c), (reference * c.unsqueeze(-1)).sum(1), rtol=1e-12, atol=1e-14)


def test_two_layer_loss_matches_the_torch_module() -> None:
    """The flat-parameter network equals nn.Sequential(Linear, Tanh, Linear) with the same weights."""
    from dplab.learning.losses import TwoLayerLogisticLoss

    torch.manual_seed(0)
    module = torch.nn.Sequential(torch.nn.Linear(4, 3), torch.nn.Tanh(), torch.nn.Linear(3, 1)).double()
    theta = torch.cat([p.detach().reshape(-1) for p in module.parameters()])
    x, y = torch.randn(4, dtype=torch.float64), torch.tensor(-1.0, dtype=torch.float64)
    expected = torch.nn.functional.softplus(-y * module(x)[0]).detach()
    assert float(TwoLayerLogisticLoss(4, 3)(theta, x, y)) == pytest.approx(float(expected), rel=1e-14)
    assert TwoLayerLogisticLoss(4, 3).parameters == theta.numel()
