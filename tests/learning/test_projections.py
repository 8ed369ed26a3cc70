"""Projections: inside the set, idempotent, and the nearest point (checked against brute force over the set)."""

from __future__ import annotations

import math

import numpy as np
import pytest
import torch

from dplab.learning.projections import Ball, Interval, NoProjection, Projection
from dplab.numerics import project_l2_ball


def _t(values) -> torch.Tensor:
    return torch.as_tensor(values, dtype=torch.float64)


def test_interval_inside_idempotent_and_exact_boundary() -> None:
    project = Interval(-0.5, 2.0)
    w = _t(np.random.default_rng(0).normal(scale=3.0, size=(1000, 1)))
    p = project(w)
    assert float(p.min()) == -0.5 and float(p.max()) == 2.0  # atoms exactly at a and b
    assert torch.equal(project(p), p)
    inside = (w >= -0.5) & (w <= 2.0)
    assert torch.equal(p[inside], w[inside])
    assert project.diameter == 2.5


def test_interval_is_nearest_point_by_brute_force() -> None:
    project = Interval(0.0, 1.0)
    candidates = np.linspace(0.0, 1.0, 10001)
    for value in np.random.default_rng(1).normal(scale=2.0, size=200):
        nearest = candidates[np.argmin(np.abs(candidates - value))]
        assert float(project(_t([value]))[0]) == pytest.approx(nearest, abs=1e-4)


@pytest.mark.parametrize("center", [0.0, (1.0, -2.0, 0.5)])
def test_ball_inside_idempotent_and_nearest_point(center) -> None:
    radius = 1.5
    project = Ball(radius, center)
    c = np.broadcast_to(np.asarray(center, dtype=float), (3,))
    rng = np.random.default_rng(2)
    w = c + rng.normal(scale=2.0, size=(500, 3))
    p = project(_t(w)).numpy()
    assert np.all(np.linalg.norm(p - c, axis=1) <= radius * (1 + 1e-12))
    np.testing.assert_allclose(project(_t(p)).numpy(), p, rtol=0, atol=1e-14)
    inside = np.linalg.norm(w - c, axis=1) <= radius
    np.testing.assert_array_equal(p[inside], w[inside])
    # Brute force: no point of a dense random cloud in the ball is closer than the projection.
    cloud = rng.normal(size=(200_000, 3))
    cloud *= (radius * rng.uniform(size=(200_000, 1)) ** (1 / 3)) / np.linalg.norm(cloud, axis=1, keepdims=True)
    cloud += c
    for point, projected in zip(w[:40], p[:40]):
        best = np.min(np.linalg.norm(cloud - point, axis=1))
        assert np.linalg.norm(projected - point) <= best + 1e-12
        assert np.linalg.norm(projected - point) >= best - 0.1  # and the cloud gets close to it
    assert project.diameter == 3.0


def test_ball_rows_are_projected_independently_and_centre_is_fixed() -> None:
    project = Ball(1.0)
    w = _t([[3.0, 4.0], [0.3, 0.4], [0.0, 0.0]])
    np.testing.assert_allclose(project(w).numpy(), [[0.6, 0.8], [0.3, 0.4], [0.0, 0.0]], rtol=1e-15)
    assert Ball(2.0, [1.0, 1.0]).center == (1.0, 1.0)


@pytest.mark.parametrize("dtype", [torch.float64, torch.float32])
@pytest.mark.parametrize("center", [0.0, -0.0, 0.3, -1.7, 0, 2])
def test_ball_with_a_scalar_centre_equals_the_tensor_centre_formula_bit_for_bit(dtype, center) -> None:
    """c + (w − c)·min(1, R/‖w − c‖) with c a 0-dim tensor of w's dtype: the same bits, signs of zeros included."""
    w = torch.randn(60, 7, generator=torch.Generator().manual_seed(3), dtype=dtype) * 2
    w[0], w[1] = 0.0, -0.0
    c = torch.as_tensor(center, dtype=dtype)
    offset = w - c
    expected = c + offset * torch.clamp(1.5 / torch.linalg.vector_norm(offset, dim=-1, keepdim=True), max=1.0)
    got = Ball(1.5, center)(w)
    assert got.dtype == dtype
    assert torch.equal(got, expected) and torch.equal(torch.signbit(got), torch.signbit(expected))


def test_no_projection_is_identity_with_infinite_diameter() -> None:
    w = _t([[1e9, -3.0]])
    assert NoProjection()(w) is w
    assert NoProjection().diameter == math.inf


def test_all_satisfy_the_protocol() -> None:
    for projection in (Interval(0, 1), Ball(1.0), NoProjection()):
        assert isinstance(projection, Projection)


@pytest.mark.parametrize(
    ("a", "b", "message"),
    [(1.0, 1.0, "Interval"), (2.0, 1.0, "Interval"), (-math.inf, 0.0, "a=-inf"), (0.0, math.nan, "b=nan")],
)
def test_interval_rejects_bad_bounds(a: float, b: float, message: str) -> None:
    with pytest.raises(ValueError, match=message):
        Interval(a, b)


@pytest.mark.parametrize("radius", [0.0, -1.0, math.inf, math.nan])
def test_ball_rejects_bad_radius(radius: float) -> None:
    with pytest.raises(ValueError, match="radius="):
        Ball(radius)


def test_ball_rejects_non_finite_center() -> None:
    with pytest.raises(ValueError, match="center="):
        Ball(1.0, (0.0, math.inf))


def test_numpy_project_l2_ball_matches_the_torch_ball_and_the_definition():
    rng = np.random.default_rng(0)
    theta = np.vstack([rng.normal(size=(50, 3)) * rng.uniform(0.1, 5.0, size=(50, 1)), np.zeros((1, 3))])
    projected = project_l2_ball(theta, 1.5)
    np.testing.assert_allclose(projected, Ball(1.5)(torch.as_tensor(theta)).numpy(), rtol=1e-15, atol=0)
    norms = np.linalg.norm(theta, axis=1)
    inside = norms <= 1.5
    np.testing.assert_array_equal(projected[inside], theta[inside])  # identity inside the ball
    np.testing.assert_allclose(np.linalg.norm(projected[~inside], axis=1), 1.5, rtol=1e-15)  # onto the sphere
    np.testing.assert_allclose(projected[~inside] / 1.5, theta[~inside] / norms[~inside, None], rtol=1e-15)
    np.testing.assert_array_equal(project_l2_ball(np.zeros(3), 1.0), np.zeros(3))
