"""Tests of dplab.audit.grid: exact binned laws of projected 1-D PNSGD (Algorithm 1 of Asoodeh, Diaz, Calmon 2020).

References: closed-form θ_γ and Lemma 1 written here with scipy.stats; scipy.integrate.quad of the noise
densities; mpmath tail probabilities; a plain-numpy Monte-Carlo simulation (conftest) with confidence
intervals; reference values (6 digits) from an implementation independent of this one.
"""

from __future__ import annotations

import functools

import mpmath
import numpy as np
import pytest
import scipy.integrate
import scipy.stats

from dplab.audit.grid import (
    NOISE_NAMES,
    UniformGrid,
    bin_index,
    kernel_matrix,
    linear_loss_psi,
    pnsgd_output_laws,
    point_mass,
    privacy_loss_bound,
    propagate,
    strongly_convex_loss_psi,
)
from dplab.audit.instances import audit_instance

LR = 0.5
L = 1.0
N_RECORDS = 40
# audit noise configurations (config.yaml, contraction.audit.configs): name -> (noise, a, b, scale)
CONFIGS = {
    "G1": ("gaussian", 0.0, 1.0, 2.0),
    "G2": ("gaussian", 0.0, 4.0, 2.0),
    "L1": ("laplace", 0.0, 1.0, 2.0),
    "L2": ("laplace", 0.0, 4.0, 2.0),
}


def hockey_stick(p: np.ndarray, q: np.ndarray, epsilon: float) -> float:
    """Σ_k [p_k − e^ε q_k]_+ (test-local reference)."""
    return float(np.maximum(p - np.exp(epsilon) * q, 0.0).sum())


def theta(epsilon: float, r: float) -> float:
    """θ_{e^ε}(r) of eq. (10), straight from scipy.stats.norm."""
    gamma = np.exp(epsilon)
    return scipy.stats.norm.sf(epsilon / r - r / 2) - gamma * scipy.stats.norm.sf(epsilon / r + r / 2)


@functools.cache
def audit_laws(cfg: str, name: str, i: int, n_cells: int = 1000, random_stop: bool = False, n: int = N_RECORDS):
    noise, a, b, scale = CONFIGS[cfg]
    instance = audit_instance(name, n=n, i=i, a=a, b=b, L=L)
    return pnsgd_output_laws(
        UniformGrid(a, b, n_cells),
        y0=instance.y0,
        data=instance.data,
        data_prime=instance.data_prime,
        lr=LR,
        scale=scale,
        noise=noise,
        psi=linear_loss_psi(LR),
        random_stop=random_stop,
    )


# ----------------------------------------------------------------------------------------------- grid


def test_uniform_grid_layout():
    grid = UniformGrid(0.0, 2.0, 4)
    np.testing.assert_allclose(grid.edges, [0.0, 0.5, 1.0, 1.5, 2.0])
    np.testing.assert_allclose(grid.points, [0.0, 0.25, 0.75, 1.25, 1.75, 2.0])
    assert grid.size == 6


@pytest.mark.parametrize(
    "a, b, n_cells", [(1.0, 1.0, 10), (2.0, 1.0, 10), (0.0, np.inf, 10), (0.0, 1.0, 0), (0.0, 1.0, 2.5)]
)
def test_uniform_grid_rejects_bad_arguments(a, b, n_cells):
    with pytest.raises(ValueError, match="a < b|n_cells"):
        UniformGrid(a, b, n_cells)


def test_bin_index_layout_atoms_cells_and_edges():
    grid = UniformGrid(0.0, 1.0, 4)
    samples = np.array([-3.0, 0.0, 1e-12, 0.2, 0.25, 0.5, 0.99, 1.0 - 1e-12, 1.0, 7.0])
    np.testing.assert_array_equal(bin_index(samples, grid), [0, 0, 1, 1, 2, 3, 4, 4, 5, 5])


def test_point_mass_atoms_and_cells():
    grid = UniformGrid(0.0, 1.0, 10)
    assert point_mass(grid, 0.0)[0] == 1.0
    assert point_mass(grid, 1.0)[-1] == 1.0
    law = point_mass(grid, 0.37)
    assert law.sum() == 1.0 and law[4] == 1.0  # cell [0.3, 0.4) is state 4
    with pytest.raises(ValueError, match="y0"):
        point_mass(grid, 1.5)


# ------------------------------------------------------------------------------------------- kernels


@pytest.mark.parametrize("noise", NOISE_NAMES)
def test_kernel_rows_sum_to_one(noise):
    grid = UniformGrid(0.0, 1.0, 300)
    means = np.concatenate((grid.points, [-5.0, 6.0, 40.0]))
    kernel = kernel_matrix(grid, means, scale=0.3, noise=noise)
    assert kernel.shape == (grid.size + 3, grid.size)
    assert np.all(kernel >= 0)
    np.testing.assert_allclose(kernel.sum(axis=1), 1.0, atol=1e-13)


@pytest.mark.parametrize("noise, dist", [("gaussian", scipy.stats.norm), ("laplace", scipy.stats.laplace)])
def test_kernel_row_matches_integrated_density(noise, dist):
    grid = UniformGrid(-1.0, 2.0, 12)
    mean, scale = 0.37, 0.8
    row = kernel_matrix(grid, [mean], scale=scale, noise=noise)[0]
    density = dist(loc=mean, scale=scale).pdf
    cells = [scipy.integrate.quad(density, lo, hi, epsabs=1e-14)[0] for lo, hi in zip(grid.edges[:-1], grid.edges[1:])]
    atom_a = scipy.integrate.quad(density, -np.inf, grid.a, epsabs=1e-14)[0]
    atom_b = scipy.integrate.quad(density, grid.b, np.inf, epsabs=1e-14)[0]
    np.testing.assert_allclose(row, [atom_a, *cells, atom_b], rtol=1e-9, atol=1e-14)


def test_kernel_upper_tail_cells_keep_relative_accuracy():
    """Cells 8σ and 30 Laplace scales above the mean: differences of sf, not of cdf (mpmath reference)."""
    grid = UniformGrid(0.0, 30.0, 750)  # e_200 = 8; the atom at b = 30 has mass Q(30) = 4.9e-198
    mpmath.mp.dps = 50
    gauss = kernel_matrix(grid, [0.0], scale=1.0, noise="gaussian")[0]
    lap = kernel_matrix(grid, [0.0], scale=1.0, noise="laplace")[0]
    for k in (200, 201, 230):  # cell [e_{k-1}, e_k] with e_200 = 8
        lo, hi = grid.edges[k - 1], grid.edges[k]
        exact_gauss = (mpmath.erfc(lo / mpmath.sqrt(2)) - mpmath.erfc(hi / mpmath.sqrt(2))) / 2
        exact_lap = (mpmath.exp(-lo) - mpmath.exp(-hi)) / 2
        assert gauss[k] == pytest.approx(float(exact_gauss), rel=1e-9)
        assert lap[k] == pytest.approx(float(exact_lap), rel=1e-9)
    assert gauss[-1] == pytest.approx(float(mpmath.erfc(30 / mpmath.sqrt(2)) / 2), rel=1e-9)
    assert lap[-1] == pytest.approx(float(mpmath.exp(-30) / 2), rel=1e-12)


def test_kernel_rejects_unknown_noise_and_bad_scale():
    grid = UniformGrid(0.0, 1.0, 10)
    with pytest.raises(ValueError, match="gaussian, laplace"):
        kernel_matrix(grid, grid.points, scale=1.0, noise="cauchy")
    with pytest.raises(ValueError, match="scale"):
        kernel_matrix(grid, grid.points, scale=0.0, noise="gaussian")


def test_projected_gaussian_contraction_is_exact_on_edges():
    """Our extension: E_γ of Π_[0,D] N(m, 1) between means 0 and D, exact when thresholds are edges."""
    cases = [(1.0, 1000, 0.0, 0.382925), (1.0, 1000, 1.0, 0.068730), (4.0, 800, 1.0, 0.926711)]
    for d, n_cells, epsilon, expected in cases:
        p, q = kernel_matrix(UniformGrid(0.0, d, n_cells), [0.0, d], scale=1.0, noise="gaussian")
        assert hockey_stick(p, q, epsilon) == pytest.approx(expected, abs=1e-6)
    # the paper's bound θ_e(1) = 0.126937 (eq. (10)) is strictly larger than the exact 0.068730
    assert theta(1.0, 1.0) == pytest.approx(0.12693673751, abs=1e-10)


# --------------------------------------------------------------------------------------- propagation


def test_propagate_applies_kernels_in_order():
    grid = UniformGrid(0.0, 1.0, 1)  # 3 states
    k1 = np.array([[1.0, 0.0, 0.0], [0.0, 0.0, 1.0], [0.0, 0.0, 1.0]])
    k2 = np.array([[0.0, 1.0, 0.0], [0.5, 0.5, 0.0], [0.2, 0.3, 0.5]])
    start = np.array([0.0, 1.0, 0.0])
    np.testing.assert_allclose(propagate(grid, start, [k1, k2]), [0.2, 0.3, 0.5])  # state 1 -> 2 -> row 2 of k2
    np.testing.assert_allclose(propagate(grid, start, [k2, k1]), [0.5, 0.0, 0.5])
    np.testing.assert_array_equal(propagate(grid, start, []), start)
    with pytest.raises(ValueError, match="kernel 2"):
        propagate(grid, start, [k1, np.eye(4)])
    with pytest.raises(ValueError, match="initial"):
        propagate(grid, np.ones(4) / 4, [k1])


def test_first_step_is_exact_from_off_grid_start():
    grid = UniformGrid(0.0, 1.0, 10)
    y0, x, scale = 0.3337, 0.4, 2.0
    p, _ = pnsgd_output_laws(
        grid, y0=y0, data=[x], data_prime=[-x], lr=LR, scale=scale, noise="gaussian", psi=linear_loss_psi(LR)
    )
    mean, s = y0 - LR * x, LR * scale
    assert p[0] == pytest.approx(scipy.stats.norm.cdf((0.0 - mean) / s), rel=1e-12)
    assert p[-1] == pytest.approx(scipy.stats.norm.sf((1.0 - mean) / s), rel=1e-12)
    assert p[4] == pytest.approx(np.diff(scipy.stats.norm.cdf((grid.edges[3:5] - mean) / s))[0], rel=1e-10)


def test_strongly_convex_psi_is_the_gradient_step_of_its_loss():
    """psi_x(y) = y - lr d/dy [c y^2/2 + x y], the derivative by central differences; Lipschitz 1 - lr c."""
    lr, c = 0.7, 0.24 / 0.7
    y = np.linspace(-0.5, 0.5, 11)
    for x in (-0.8, 0.0, 0.8):
        loss = lambda t, x=x: c * t**2 / 2 + x * t  # noqa: E731
        gradient = (loss(y + 1e-6) - loss(y - 1e-6)) / 2e-6
        assert strongly_convex_loss_psi(lr, c)(y, x) == pytest.approx(y - lr * gradient, abs=1e-8)
    slopes = np.diff(strongly_convex_loss_psi(lr, c)(y, 0.3)) / np.diff(y)
    assert slopes == pytest.approx(np.full(10, 0.76), rel=1e-12)


def test_strongly_convex_chain_matches_a_plain_simulation():
    """10 steps of Pi_[-0.5, 0.5]((1 - lr c) y - lr x + lr Z), Z ~ N(0, 1): the grid's atoms and a central cell
    against 400k plain-numpy runs (5-sigma binomial bands)."""
    lr, c, a, b = 0.7, 0.24 / 0.7, -0.5, 0.5
    data = np.array([0.8, -0.8, 0.0, 0.8, 0.0, -0.8, 0.8, 0.8, 0.0, -0.8])
    grid = UniformGrid(a, b, 200)
    p, _ = pnsgd_output_laws(
        grid, y0=b, data=data, data_prime=data, lr=lr, scale=1.0, noise="gaussian", psi=strongly_convex_loss_psi(lr, c)
    )
    rng = np.random.default_rng(11)
    y, m = np.full(400_000, b), 400_000
    for x in data:
        y = np.clip((1 - lr * c) * y - lr * x + lr * rng.standard_normal(m), a, b)
    for k, hits in ((0, y <= a), (grid.size - 1, y >= b), (101, (y > grid.edges[100]) & (y < grid.edges[101]))):
        band = 5 * np.sqrt(p[k] * (1 - p[k]) / m) + 2e-3 * p[k]  # plus the grid's cell-centre approximation
        assert abs(hits.mean() - p[k]) <= band


def test_kernels_are_reused_for_repeated_records():
    calls = []
    base = linear_loss_psi(LR)

    def counting_psi(y, x):
        calls.append(x)
        return base(y, x)

    data = np.array([0.0, 1.0, 0.0, 0.0, 1.0, 0.0, -1.0, 0.0])
    pnsgd_output_laws(
        UniformGrid(0.0, 1.0, 50),
        y0=0.5,
        data=data,
        data_prime=-data,
        lr=LR,
        scale=2.0,
        noise="gaussian",
        psi=counting_psi,
    )
    assert len(calls) == 3 + 2  # one kernel per distinct x in {0, 1, -1}, plus one exact first row per dataset


def test_a_kernel_cache_shared_across_calls_builds_each_kernel_once_and_keeps_the_laws():
    """``kernel_cache`` shared by the laws of several instances: one kernel per distinct record over all calls, the
    laws of separate calls bit for bit, and other kernels for another ψ or step scale."""
    grid, cache, psi = UniformGrid(0.0, 1.0, 50), {}, linear_loss_psi(LR)
    datasets = [np.array([0.0, 1.0, 0.0, -1.0]), np.array([1.0, 1.0, -1.0, 0.0]), np.array([0.0, 0.0, 0.0, 1.0])]
    common = dict(y0=0.5, lr=LR, noise="gaussian")
    for data in datasets:
        shared = pnsgd_output_laws(grid, data=data, data_prime=-data, scale=2.0, psi=psi, kernel_cache=cache, **common)
        alone = pnsgd_output_laws(grid, data=data, data_prime=-data, scale=2.0, psi=psi, **common)
        assert all(np.array_equal(a, b) for a, b in zip(shared, alone, strict=True))
    assert sorted(key[-1] for key in cache) == [-1.0, 0.0, 1.0]
    for scale, other_psi in [(1.0, psi), (2.0, linear_loss_psi(LR))]:
        pnsgd_output_laws(grid, data=datasets[0], data_prime=datasets[0], scale=scale, psi=other_psi,
                          kernel_cache=cache, **common)  # fmt: skip
    assert len(cache) == 3 + 3 + 3


def test_pnsgd_output_laws_validates_inputs():
    grid = UniformGrid(0.0, 1.0, 10)
    kwargs = dict(lr=LR, scale=2.0, noise="gaussian", psi=linear_loss_psi(LR))
    with pytest.raises(ValueError, match="data_prime"):
        pnsgd_output_laws(grid, y0=0.5, data=[0.0, 1.0], data_prime=[1.0], **kwargs)
    with pytest.raises(ValueError, match="y0"):
        pnsgd_output_laws(grid, y0=-0.1, data=[1.0], data_prime=[-1.0], **kwargs)
    with pytest.raises(ValueError, match="lr"):
        pnsgd_output_laws(grid, y0=0.5, data=[1.0], data_prime=[-1.0], **{**kwargs, "lr": 0.0})
    with pytest.raises(ValueError, match="allowed"):
        pnsgd_output_laws(grid, y0=0.5, data=[1.0], data_prime=[-1.0], **{**kwargs, "noise": "uniform"})


# ------------------------------------------------------------------------------------ reference values


@pytest.mark.parametrize("n_cells", [1000, 200])
def test_one_step_equals_gaussian_mechanism(n_cells):
    """n = i = 1 on [0, 40], y0 = 20, x = ±0.5, noise scale 1: δ_num = θ_{e^ε}(1) when N is a multiple of 40."""
    p, q = pnsgd_output_laws(
        UniformGrid(0.0, 40.0, n_cells),
        y0=20.0,
        data=[0.5],
        data_prime=[-0.5],
        lr=1.0,
        scale=1.0,
        noise="gaussian",
        psi=linear_loss_psi(1.0),
    )
    for epsilon, reference in [(0.0, 0.382925), (1.0, 0.126937)]:
        assert hockey_stick(p, q, epsilon) == pytest.approx(theta(epsilon, 1.0), abs=1e-12)
        assert hockey_stick(p, q, epsilon) == pytest.approx(reference, abs=1e-6)


def test_one_step_needs_thresholds_on_edges():
    """N = 999 puts y = 20 inside a cell: the binned optimal event loses mass (0.382854 < 0.382925)."""
    p, q = pnsgd_output_laws(
        UniformGrid(0.0, 40.0, 999),
        y0=20.0,
        data=[0.5],
        data_prime=[-0.5],
        lr=1.0,
        scale=1.0,
        noise="gaussian",
        psi=linear_loss_psi(1.0),
    )
    assert hockey_stick(p, q, 0.0) == pytest.approx(0.382854, abs=1e-6)
    assert theta(0.0, 1.0) - hockey_stick(p, q, 0.0) > 5e-5


# reference table (independent implementation, 6 digits), instance A, N = 1000; columns ε = 0, 0.25, 0.5, 1.0
REFERENCE_TABLE = [
    ("G1", 40, (0.351097, 0.273092, 0.201836, 0.0084109)),
    ("G1", 39, (0.130426, 0.040459, 0.0, 0.0)),
    ("G1", 38, (0.048150, 0.0, 0.0, 0.0)),
    ("G1", 36, (0.0065623, 0.0, 0.0, 0.0)),
    ("G2", 40, (0.193999, 0.131659, 0.091876, 0.010817)),
    ("G2", 30, (0.035140, 0.0, 0.0, 0.0)),
    ("L1", 40, (1 / 3, 1 / 4, 1 / 6, 0.0)),
    ("L2", 39, (0.143635, 0.057968, 0.0, 0.0)),
]


@pytest.mark.parametrize("cfg, i, expected", REFERENCE_TABLE)
def test_reference_table_instance_a(cfg, i, expected):
    p, q = audit_laws(cfg, "A", i)
    computed = [hockey_stick(p, q, epsilon) for epsilon in (0.0, 0.25, 0.5, 1.0)]
    np.testing.assert_allclose(computed, expected, atol=1e-4, rtol=0)


@pytest.mark.parametrize(
    "cfg, i, expected",
    [("G1", 40, (0.36058, 0.20939, 0.07399)), ("G2", 39, (0.187326, 0.062534, 0.00433))],
)
def test_instance_b_values(cfg, i, expected):
    p, q = audit_laws(cfg, "B", i)
    computed = [hockey_stick(p, q, epsilon) for epsilon in (0.0, 0.5, 1.0)]
    np.testing.assert_allclose(computed, expected, atol=1e-4, rtol=0)


@pytest.mark.parametrize(
    "cfg, original, swapped",
    [("G2", 0.1389, 0.1756), ("L2", 0.0338, 0.1479), ("L1", 0.1600, 0.1828)],
)
def test_swapped_order_instance_b_at_i_40(cfg, original, swapped):
    """E_γ is asymmetric: at ε = 0.5, i = 40 the swapped order of instance B is larger."""
    assert hockey_stick(*audit_laws(cfg, "B", 40), 0.5) == pytest.approx(original, abs=1e-4)
    assert hockey_stick(*audit_laws(cfg, "B_swapped", 40), 0.5) == pytest.approx(swapped, abs=1e-4)


@pytest.mark.parametrize("i, at_zero", [(1, 0.015176), (20, 0.013946), (40, 0.0087774)])
def test_random_stop_values(i, at_zero):
    """G1, instance A, randomly stopped output (Theorem 5's setting): δ_num = value / 0 / 0 at ε = 0 / 0.5 / 1."""
    p, q = audit_laws("G1", "A", i, random_stop=True)
    assert hockey_stick(p, q, 0.0) == pytest.approx(at_zero, abs=1e-6)
    assert hockey_stick(p, q, 0.5) == 0.0
    assert hockey_stick(p, q, 1.0) == 0.0


def test_random_stop_is_the_mixture_of_truncated_runs():
    """(1/n) Σ_t law(Y_t), each law(Y_t) obtained by an independent call on the first t records."""
    n, i = 8, 3
    p_mix, q_mix = audit_laws("L1", "C", i, n_cells=200, random_stop=True, n=n)
    instance = audit_instance("C", n=n, i=i, a=0.0, b=1.0, L=L)
    laws = [
        pnsgd_output_laws(
            UniformGrid(0.0, 1.0, 200),
            y0=instance.y0,
            data=instance.data[:t],
            data_prime=instance.data_prime[:t],
            lr=LR,
            scale=2.0,
            noise="laplace",
            psi=linear_loss_psi(LR),
        )
        for t in range(1, n + 1)
    ]
    np.testing.assert_allclose(p_mix, np.mean([p for p, _ in laws], axis=0), atol=1e-15)
    np.testing.assert_allclose(q_mix, np.mean([q for _, q in laws], axis=0), atol=1e-15)


def test_grid_refinement_converges():
    """G2, instance B, i = 39: 0.187321 at N = 200 vs 0.187326 at N >= 400 (independent implementation)."""
    values = {n_cells: hockey_stick(*audit_laws("G2", "B", 39, n_cells=n_cells), 0.0) for n_cells in (200, 400, 1000)}
    assert values[200] == pytest.approx(0.187321, abs=1e-6)
    assert values[1000] == pytest.approx(0.187326, abs=1e-6)
    assert abs(values[1000] - values[400]) < abs(values[400] - values[200])
    assert abs(values[1000] - values[400]) < 1e-6


# ------------------------------------------------------------------------------------ privacy loss


def test_privacy_loss_bound_g1_a_i39():
    p, q = audit_laws("G1", "A", 39)
    bound = privacy_loss_bound(p, q)
    assert bound == pytest.approx(0.3616, abs=1e-4)
    assert hockey_stick(p, q, bound + 1e-9) == 0.0
    assert hockey_stick(p, q, bound - 1e-3) > 0.0


def test_privacy_loss_bound_small_cases():
    assert privacy_loss_bound(np.array([0.5, 0.5, 0.0]), np.array([0.25, 0.25, 0.5])) == pytest.approx(np.log(2))
    assert privacy_loss_bound(np.array([0.5, 0.5]), np.array([1.0, 0.0])) == np.inf
    assert privacy_loss_bound(np.array([1e-320, 1.0 - 1e-320]), np.array([1e-322, 1.0])) == pytest.approx(
        np.log(1e-320 / 1e-322), rel=1e-2
    )
    with pytest.raises(ValueError, match="equal shape"):
        privacy_loss_bound(np.ones(3) / 3, np.ones(2) / 2)


# ---------------------------------------------------------------------- independent Monte Carlo


@pytest.mark.parametrize(
    "cfg, name, n, i, random_stop",
    [("G2", "B", 10, 9, False), ("L1", "C_swapped", 10, 4, False), ("G1", "D", 10, 5, True)],
)
def test_grid_law_agrees_with_monte_carlo(simulate_pnsgd, cfg, name, n, i, random_stop):
    """Coarse-binned grid probabilities lie within Bonferroni-corrected 99.99% normal intervals of MC."""
    noise, a, b, scale = CONFIGS[cfg]
    instance = audit_instance(name, n=n, i=i, a=a, b=b, L=L)
    p, q = audit_laws(cfg, name, i, random_stop=random_stop, n=n)
    rng = np.random.default_rng(20240525)
    m = 200_000
    fine_to_coarse = np.concatenate(([0], 1 + np.arange(1000) // 125, [9]))  # atoms + 8 intervals of 125 cells
    for law, records in ((p, instance.data), (q, instance.data_prime)):
        samples = simulate_pnsgd(
            rng, y0=instance.y0, data=records, lr=LR, scale=scale, noise=noise, a=a, b=b, m=m, random_stop=random_stop
        )
        interior = 1 + np.minimum(np.floor((samples - a) / (b - a) * 8), 7)
        coarse = np.where(samples == a, 0, np.where(samples == b, 9, interior)).astype(int)
        empirical = np.bincount(coarse, minlength=10) / m
        expected = np.bincount(fine_to_coarse, weights=law, minlength=10)
        se = np.sqrt(expected * (1 - expected) / m)
        z_crit = scipy.stats.norm.isf(1e-4 / 2 / 20)
        assert np.all(np.abs(empirical - expected) <= z_crit * se + 1e-12), (empirical, expected)


def test_laws_feed_the_library_hockey_stick():
    """Integration: dplab.accounting's Σ[p − e^ε q]_+ agrees with the test-local sum on grid laws."""
    hockey_stick_module = pytest.importorskip("dplab.accounting.hockey_stick")
    p, q = audit_laws("G1", "B", 40)
    epsilons = np.array([0.0, 0.25, 0.5, 1.0])
    np.testing.assert_allclose(
        hockey_stick_module.discrete_hockey_stick(p, q, epsilons),
        [hockey_stick(p, q, epsilon) for epsilon in epsilons],
        rtol=1e-12,
        atol=1e-15,
    )
