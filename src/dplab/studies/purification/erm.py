"""DP-ERM with purification (Theorem 3, Table 2): purified DP-SGD (Algorithms 3–4 with Lemma 25/26 and
Corollary 4) against pure-DP competitors, on synthetic logistic regression in the unit ℓ2 ball.

Methods (``method`` column; ``pure`` says whether the output is (ε_tot, 0)-DP):

- ``purified_dpsgd``: Algorithm 3 at ε = ε_tot/2 with δ of Corollary 4 (Θ = 𝒞 = 𝔹₂(1), C = 2, ω = 1/n²) and the
  schedule of Lemma 25 (Lemma 26 for strongly convex losses: η_t = 2/(nλ(t+1)), weighted average); sampling a
  γ-fraction without replacement; then Algorithm 1 with ε′ = ε_tot/2.  If Lemma 25's T exceeds ``max_steps_paper``
  T is capped and σ recomputed with the same accounting, σ² = 104γ²TL² log(1/δ)/ε² (``capped`` = True).
- ``purified_dpsgd_tuned`` (labelled variant, not the paper's): Poisson sampling at the same rate γ, T =
  min(Lemma 25's T, ``max_steps_tuned``), σ calibrated with dp_accounting's RDP accountant (add/remove) to exactly
  (ε_tot/2, δ); then Algorithm 1 with ε′ = ε_tot/2.
- ``dpsgd_before_purification``: the same runs as ``purified_dpsgd`` before Algorithm 1 ((ε_tot/2, δ)-DP).
- ``laplace_gd``: Lemma 19 at ε_tot (full batch, Laplace noise on the summed gradient, pure by basic composition).
- ``exponential_mechanism`` (d = 2): exact sampling of π(θ) ∝ exp(−ε_tot·Σᵢ f(θ; xᵢ)) on the grid points of 𝒞 with
  the configured spacing; ε_tot-DP because the logistic loss has range exactly 1 on 𝒞 for ‖x‖ ≤ 1.
- ``output_perturbation`` (strongly convex only; Chaudhuri, Monteleoni, Sarwate 2011): argmin of the regularised
  objective plus noise ∝ exp(−nλε_tot‖b‖/L₀), L₀ = 1, projected on 𝒞.
- ``dpsgd_reference``: DP-SGD at (ε_tot, δ = 1/n²), Poisson sampling, σ from dp_accounting: not pure, for reference.

All runs of a method are one engine call vectorised over seeds (``runs`` = seeds); per-step loops only for the
decreasing step size of Lemma 26.  Adjacency: add/remove one record everywhere.
"""

from __future__ import annotations

import functools
import math
from collections.abc import Callable, Iterable, Mapping
from dataclasses import dataclass
from typing import Any

import numpy as np
import pandas as pd
import torch

from dplab.accounting.calibration import calibrate_dpsgd_sigma
from dplab.data.synthetic import ball_logistic_dataset
from dplab.learning import LogisticLoss, constrained_minimiser, logistic_risk
from dplab.learning.dp_erm import algorithm3_dpsgd, grid_in_disc, lemma19_laplace_gd, summed_logistic_loss_on_grid
from dplab.learning.losses import RegularisedLogisticLoss
from dplab.mechanisms.exponential import sample_exponential_mechanism
from dplab.mechanisms.knorm import sample_l2_knorm
from dplab.mechanisms.purification import LqBall, purify
from dplab.numerics import project_l2_ball
from dplab.seeding import derive_seed
from dplab.theory.purification import corollary4_parameters, lemma25_schedule, lemma25_step_size, sigma_for_schedule

__all__ = [
    "erm_point",
]


def _rows(
    base: Mapping[str, Any],
    method: str,
    excess: np.ndarray,
    *,
    pure: bool,
    steps: int,
    capped: bool,
    log10_delta: float,
    sigma: float,
    batch_size: int,
    gamma: float,
) -> list[dict[str, Any]]:
    """One row per run (``replicate`` = the run's index), the method's parameters in a fixed column order."""
    fields = dict(
        pure=pure, steps=steps, capped=capped, log10_delta=log10_delta, sigma=sigma, batch_size=batch_size, gamma=gamma
    )
    return [{**base, "method": method, "replicate": s, "excess_risk": float(e), **fields} for s, e in enumerate(excess)]


def _pure_rows(base: Mapping[str, Any], method: str, excess: np.ndarray, steps: int) -> list[dict[str, Any]]:
    """Rows of a pure baseline without DP-SGD parameters: full batch, δ = 0, no Gaussian noise."""
    return _rows(
        base, method, excess, pure=True, steps=steps, capped=False, log10_delta=-np.inf, sigma=np.nan,
        batch_size=base["n"], gamma=1.0,
    )  # fmt: skip


def _dpsgd_rows(
    base: Mapping[str, Any], method: str, excess: np.ndarray, *, gamma: float, **fields: Any
) -> list[dict[str, Any]]:
    """Rows of a DP-SGD run at sampling rate γ (batch size round(γn))."""
    return _rows(base, method, excess, batch_size=max(1, int(round(gamma * base["n"]))), gamma=gamma, **fields)


# The methods of one (n, ε_tot), in row order, as groups that share a random stream (their own derived seeds):
# each group is a point of the sweep, so the slowest (n, ε_tot) spreads over several jobs.


@functools.lru_cache(maxsize=4)
def _erm_problem(n: int, d: int, seed: int, radius: float, lam: float, iterations: int):
    """The dataset of size n (its own derived seed) and its constrained minimiser: shared by every ε and method
    group at this n (cached within a process)."""
    x, y = ball_logistic_dataset(n, d, derive_seed(seed, "erm_dataset", n, d))
    theta_star, residual = constrained_minimiser(x, y, radius, lam, iterations)
    return x, y, float(logistic_risk(theta_star, x, y, lam)[0]), residual


@functools.lru_cache(maxsize=2)
def _exponential_mechanism_grid(
    n: int, d: int, seed: int, radius: float, lam: float, iterations: int, spacing: float
) -> tuple[np.ndarray, np.ndarray]:
    """The exponential mechanism's candidates (d = 2) and the summed loss at each: computed only by the baselines
    group (the only user), once per n within a process (a shard's baselines points at one n run one after the
    other)."""
    x, y, *_ = _erm_problem(n, d, seed, radius, lam, iterations)
    grid = grid_in_disc(spacing, radius)
    return grid, summed_logistic_loss_on_grid(grid, x, y, lam)


@dataclass(frozen=True)
class _ErmSetting:
    """What every method at one (n, ε_tot) point shares: the data, the loss, the domain and the random streams."""

    params: Mapping[str, Any]
    seed: int
    n: int
    d: int
    eps_total: float
    lam: float
    radius: float
    runs: int
    x: np.ndarray
    y: np.ndarray
    risk_star: float
    base: Mapping[str, Any]

    @property
    def lipschitz(self) -> float:
        return 1.0 + self.lam * self.radius

    @property
    def loss(self):
        return RegularisedLogisticLoss(self.lam) if self.lam > 0 else LogisticLoss()

    @property
    def domain(self) -> LqBall:
        return LqBall((0.0,) * self.d, 2 * self.radius, 2.0)

    def excess(self, theta: np.ndarray) -> np.ndarray:
        return logistic_risk(theta, self.x, self.y, self.lam) - self.risk_star

    def generator(self, name: str) -> torch.Generator:
        return torch.Generator().manual_seed(derive_seed(self.seed, name, self.n, self.eps_total, self.lam))

    def rng(self, name: str) -> np.random.Generator:
        return np.random.default_rng(derive_seed(self.seed, name, self.n, self.eps_total, self.lam))

    def dpsgd(self, *, steps: int, sampling: str, gamma: float, noise_std: float, eta: float, stream: str):
        X, Y = torch.as_tensor(self.x), torch.as_tensor(self.y)
        return algorithm3_dpsgd(
            self.loss, X, Y, lam=self.lam, n=self.n, clip=self.lipschitz, radius=self.radius, runs=self.runs,
            steps=steps, sampling=sampling, gamma=gamma, noise_std=noise_std, eta=eta, generator=self.generator(stream),
        )  # fmt: skip

    def purified(self, theta: np.ndarray, cor4: Mapping[str, float], stream: str) -> np.ndarray:
        """Algorithm 1 at ε′ = ε_tot/2 on the output projected onto the domain."""
        rng = self.rng(stream)
        return purify(
            project_l2_ball(theta, self.radius), self.domain, self.eps_total / 2, cor4["log_delta"],
            cor4["log_omega"], rng,
        )  # fmt: skip


def _paper_rows(e: _ErmSetting, cor4: Mapping[str, float], sched: Mapping[str, float]) -> list[dict[str, Any]]:
    """Algorithm 3 with Lemma 25's schedule (T capped at ``max_steps_paper``, σ recomputed), before and after
    Algorithm 1."""
    eps_half, log_inv_delta, gamma = e.eps_total / 2, -cor4["log_delta"], sched["gamma"]
    steps = max(1, int(round(sched["steps"])))
    capped = steps > e.params["max_steps_paper"]
    steps = min(steps, int(e.params["max_steps_paper"]))
    sigma = sigma_for_schedule(gamma, steps, e.lipschitz, eps_half, log_inv_delta) if capped else sched["sigma"]
    eta = lemma25_step_size(e.n, e.d, steps, gamma, sigma, e.lipschitz, 2 * e.radius)
    apx = e.dpsgd(
        steps=steps, sampling="without_replacement", gamma=gamma, noise_std=sigma, eta=eta, stream="dpsgd_paper"
    )
    pure = e.purified(apx, cor4, "purify_paper")
    fields = dict(steps=steps, capped=capped, log10_delta=cor4["log_delta"] / math.log(10), sigma=sigma, gamma=gamma)
    return _dpsgd_rows(e.base, "purified_dpsgd", e.excess(pure), pure=True, **fields) + _dpsgd_rows(
        e.base, "dpsgd_before_purification", e.excess(apx), pure=False, **fields
    )


def _tuned_rows(e: _ErmSetting, cor4: Mapping[str, float], sched: Mapping[str, float]) -> list[dict[str, Any]]:
    """Poisson DP-SGD at Lemma 25's rate, T <= ``max_steps_tuned``, σ from the RDP accountant; then Algorithm 1."""
    gamma = sched["gamma"]
    steps = min(max(1, int(round(sched["steps"]))), int(e.params["max_steps_tuned"]))
    sigma = calibrate_dpsgd_sigma(gamma, steps, e.eps_total / 2, cor4["log_delta"])
    eta = lemma25_step_size(e.n, e.d, steps, gamma, sigma * e.lipschitz, e.lipschitz, 2 * e.radius)
    apx = e.dpsgd(
        steps=steps, sampling="poisson", gamma=gamma, noise_std=sigma * e.lipschitz, eta=eta, stream="dpsgd_tuned"
    )
    pure = e.purified(apx, cor4, "purify_tuned")
    return _dpsgd_rows(
        e.base, "purified_dpsgd_tuned", e.excess(pure), pure=True, steps=steps, capped=steps < sched["steps"],
        log10_delta=cor4["log_delta"] / math.log(10), sigma=sigma, gamma=gamma,
    )  # fmt: skip


def _reference_rows(e: _ErmSetting) -> list[dict[str, Any]]:
    """DP-SGD at (ε_tot, δ = 1/n²), Poisson sampling, σ from the RDP accountant (not pure; a reference)."""
    log_delta = -2.0 * math.log(e.n)
    ref = lemma25_schedule(e.n, e.d, e.eps_total, -log_delta, 2 * e.radius, e.lipschitz)
    gamma = min(1.0, ref["gamma"])
    steps = min(max(1, int(round(ref["steps"]))), int(e.params["max_steps_reference"]))
    sigma = calibrate_dpsgd_sigma(gamma, steps, e.eps_total, log_delta)
    eta = lemma25_step_size(e.n, e.d, steps, gamma, sigma * e.lipschitz, e.lipschitz, 2 * e.radius)
    theta = e.dpsgd(
        steps=steps, sampling="poisson", gamma=gamma, noise_std=sigma * e.lipschitz, eta=eta, stream="dpsgd_reference"
    )
    return _dpsgd_rows(
        e.base, "dpsgd_reference", e.excess(theta), pure=False, steps=steps, capped=steps < ref["steps"],
        log10_delta=log_delta / math.log(10), sigma=sigma, gamma=gamma,
    )  # fmt: skip


def _laplace_rows(e: _ErmSetting) -> list[dict[str, Any]]:
    """Lemma 19's full-batch Laplace GD at ε_tot (pure)."""
    X, Y = torch.as_tensor(e.x), torch.as_tensor(e.y)
    theta, steps = lemma19_laplace_gd(
        e.loss, X, Y, n=e.n, d=e.d, epsilon=e.eps_total, lipschitz=e.lipschitz, radius=e.radius, runs=e.runs,
        generator=e.generator("laplace_gd"),
    )  # fmt: skip
    return _pure_rows(e.base, "laplace_gd", e.excess(theta), steps)


def _baseline_rows(e: _ErmSetting) -> list[dict[str, Any]]:
    """The exponential mechanism on the grid (d = 2) and output perturbation (strongly convex), one stream."""
    rows: list[dict[str, Any]] = []
    rng = e.rng("baselines")
    if e.d == 2:
        p = e.params
        grid, summed = _exponential_mechanism_grid(
            e.n, e.d, e.seed, e.radius, e.lam, int(p["reference_iterations"]), float(p["em_grid_spacing"])
        )
        picks = sample_exponential_mechanism(-summed, e.eps_total, 0.5, e.runs, rng)
        rows += _pure_rows(e.base, "exponential_mechanism", e.excess(grid[picks]), steps=0)
    if e.lam > 0:
        theta_hat, _ = constrained_minimiser(e.x, e.y, e.radius, e.lam, e.params["reference_iterations"])
        noise = sample_l2_knorm(e.d, 1.0 / (e.n * e.lam), e.eps_total, e.runs, rng)
        rows += _pure_rows(e.base, "output_perturbation", e.excess(project_l2_ball(theta_hat + noise, e.radius)), 0)
    return rows


def erm_point(
    params: Mapping[str, Any], seed: int, progress: Callable[[Iterable[Any]], Iterable[Any]], point: Mapping[str, Any]
) -> pd.DataFrame:
    """Excess empirical risk of one method group at one (n, ε_tot) point of the sweep (:func:`dplab.studies.purification.plan.erm_points`),
    ``seeds`` runs each; every random stream derives from ``seed``, the stream's name and (n, ε_tot, λ). ``lam`` = 0
    gives the convex problem, ``lam`` > 0 the strongly convex one (with output perturbation). Columns: n, d, lam,
    epsilon_total, in_epsilon_sweep, in_n_sweep, method, replicate, excess_risk, pure, steps, capped, log10_delta, sigma,
    batch_size, gamma, kkt_residual."""
    d, radius, lam = int(params["d"]), float(params["radius"]), float(params["lam"])
    eps_sweep, n_sweep = params["epsilon_sweep"], params["n_sweep"]
    n, eps_total = int(point["n"]), float(point["epsilon_total"])
    x, y, risk_star, residual = _erm_problem(n, d, seed, radius, lam, int(params["reference_iterations"]))
    base = {
        "n": n,
        "d": d,
        "lam": lam,
        "epsilon_total": eps_total,
        "in_epsilon_sweep": n == int(eps_sweep["n"]) and eps_total in map(float, eps_sweep["epsilons"]),
        "in_n_sweep": eps_total == float(n_sweep["epsilon"]) and n in map(int, n_sweep["ns"]),
        "kkt_residual": residual,
    }
    e = _ErmSetting(params, seed, n, d, eps_total, lam, radius, int(params["seeds"]), x, y, risk_star, base)
    cor4 = corollary4_parameters(n, d, 2 * radius, eps_total / 2)
    sched = lemma25_schedule(n, d, eps_total / 2, -cor4["log_delta"], 2 * radius, e.lipschitz)
    groups = {
        "dpsgd_paper": lambda: _paper_rows(e, cor4, sched),
        "dpsgd_tuned": lambda: _tuned_rows(e, cor4, sched),
        "laplace_gd": lambda: _laplace_rows(e),
        "dpsgd_reference": lambda: _reference_rows(e),
        "baselines": lambda: _baseline_rows(e),
    }
    return pd.DataFrame(groups[point["methods"]]())
