"""(6) The pipeline's heavy kernels at the sizes of the full configuration (issue 27): points per second and the
arithmetic rate they reach against a 2048³ float32 matmul measured in the same run, with what bounds each kernel.

Each kernel is timed on one point of ``config.yaml`` (the same data sizes, runs and batch sizes), for a fraction of
the point's steps (``Settings.kernel_fraction``): a point's time is the time per step times its steps, so
``seconds_per_point`` = measured seconds / steps timed × steps of the point. One torch thread (the workflow's
``threads: 1``); numpy's BLAS runs with the threads of ``OPENBLAS_NUM_THREADS`` (the workflow sets 1: run
``OPENBLAS_NUM_THREADS=1 python -m benchmarks`` to measure the grid laws as the pipeline runs them).

FLOPs are counted per step from the kernel's arithmetic (a multiply-add is 2 FLOPs, an exp, log1p or sigmoid 1);
random-number generation is not counted. ``ratio`` = achieved GFLOP/s ÷ the matmul's GFLOP/s. ``floor_seconds``
is a measured lower bound on the kernel's time per point, from the part of the work that a faster loop cannot
remove without changing the results: the random numbers of its stream (drawn alone, in the same calls), the rows
it gathers from memory (the same gathers alone), the torch operations a step dispatches (counted with a
``TorchFunctionMode``, times the measured cost of one small operation), or the elementwise transcendental passes;
``floor_share`` = floor ÷ time.

Kernels (cases):

- ``f8_sgld_sparse``: generalization F8's SGLD (:func:`dplab.studies.generalization.empirical.sgld_runs`), d = 50,
  n = 10⁴, 10 training sets × 2 runs, τ = 100, 3000 steps (sparse subsets: τ² ≤ n); floor: the row gathers.
- ``f8_sgld_dense``: the same at n = 10³, 40 sets × 2 runs (τ² > n: 140 uniform integers a row, the first τ distinct
  kept; until issue 27 the top τ of n uniform keys); floor: the subset draws and their screen for repeats.
- ``dp_erm_paper`` / ``dp_erm_sc_paper``: purification's DP-ERM Algorithm 3 (:func:`dplab.learning.dp_erm.
  algorithm3_dpsgd`) at n = 4000, ε_tot = 2, 10 runs, without replacement (Lemma 25's constant step, 20,000 steps;
  Lemma 26's schedule, 12,000 steps); floor: torch dispatch.
- ``dp_erm_reference``: the Poisson-sampled reference DP-SGD of the same point (3000 steps); floor: torch dispatch
  (its Poisson draws are the gaps between included records, about qn + 6 standard deviations uniforms a run and
  step; until issue 27 one uniform per record, n = 4000, which was a third of its time).
- ``em_grid_loss``: the exponential mechanism's summed loss on the 125,615-point grid of the unit disc at n = 2000
  (:func:`dplab.learning.dp_erm.summed_logistic_loss_on_grid`); floor: one logaddexp pass over the n × G margins.
- ``audit_mc_gaussian`` / ``audit_mc_laplace``: one Monte-Carlo audit point of the contraction study (G1 / L1:
  2 datasets × 2·10⁶ outputs of 40 PNSGD steps, :func:`dplab.audit.pnsgd_audit.simulated_pnsgd_bin_counts`);
  floor: the noise draws.
- ``audit_grid_laws``: the grid-exact laws of one audit configuration (G1: 8 instances × 5 positions, 1000 cells,
  :func:`dplab.studies.contraction.audit.grid_audit`), timed whole; floor: its vector-matrix products.
- ``pnsgd_utility``: the Gaussian PNSGD utility training (contraction ``ext_utility``: 2 step sizes × 7 noise
  scales, 200 runs, one pass over n = 1000 records, d = 10); floor: the noise draws plus torch dispatch.
- ``mwem_round_…``, ``query_release_point_…``, ``linear_regression_point_…``: the purification study's query
  release and linear regression (:mod:`benchmarks.kernels_release`).
"""

from __future__ import annotations

import math
import os
import time
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import numpy as np
import pandas as pd
import torch
import yaml
from torch.overrides import TorchFunctionMode

from benchmarks.settings import Settings
from benchmarks.timing import time_side_by_side
from dplab.report.tables import to_markdown

__all__ = [
    "KERNEL_COLUMNS",
    "Kernel",
    "elapsed_seconds",
    "kernel_rows",
    "matmul_gflops",
    "torch_calls_per_step",
    "write_kernels",
]

ROOT = Path(__file__).resolve().parent.parent

KERNEL_COLUMNS: tuple[str, ...] = (
    "kernel",
    "steps_timed",
    "steps_per_point",
    "seconds_per_step",
    "seconds_per_point",
    "points_per_second",
    "gflop_per_point",
    "gflops_per_second",
    "matmul_gflops_per_second",
    "ratio",
    "floor",
    "floor_seconds",
    "floor_share",
    "repeats",
)


@dataclass(frozen=True)
class Kernel:
    """One kernel: ``run(steps)`` times ``steps`` steps of a point of ``steps_per_point``; ``floor(steps)`` returns
    the floor's seconds for ``steps`` steps (measured by the function itself, named ``floor_name``)."""

    name: str
    steps_per_point: int
    flops_per_step: float
    run: Callable[[int], object]
    floor_name: str
    floor: Callable[[int], float]


def matmul_gflops(size: int = 2048, repeats: int = 3) -> float:
    """GFLOP/s of a size³ float32 matmul (2·size³ FLOPs), the median of ``repeats`` after one warm-up."""
    A = torch.randn(size, size, generator=torch.Generator().manual_seed(0))
    timings = time_side_by_side({"matmul": lambda: A @ A}, repeats=repeats)
    return 2.0 * size**3 / timings["matmul"].median / 1e9


class _CallCounter(TorchFunctionMode):
    """Counts the torch functions and tensor methods called (each a dispatch of one operation)."""

    def __init__(self) -> None:
        super().__init__()
        self.calls = 0

    def __torch_function__(self, func, types, args=(), kwargs=None):
        self.calls += 1
        return func(*args, **(kwargs or {}))


def torch_calls_per_step(run: Callable[[int], object], steps: int) -> float:
    """Torch calls per step of ``run``: the count of ``run(2·steps)`` minus that of ``run(steps)``, over ``steps``
    (the set-up of a call cancels)."""
    counts = []
    for count in (steps, 2 * steps):
        with _CallCounter() as counter:
            run(count)
        counts.append(counter.calls)
    return (counts[1] - counts[0]) / steps


def _small_op_seconds(repeats: int = 2000) -> float:
    """Seconds of one small torch operation (an add of two (10, 2) float64 tensors): the dispatch cost."""
    a, b = torch.zeros(10, 2, dtype=torch.float64), torch.ones(10, 2, dtype=torch.float64)
    return time_side_by_side({"add": lambda: a + b}, repeats=repeats)["add"].median


def elapsed_seconds(function: Callable[[], object]) -> float:
    """Wall seconds of one call of ``function``."""
    start = time.perf_counter()
    function()
    return time.perf_counter() - start


def _config() -> dict[str, Any]:
    with open(ROOT / "config.yaml", encoding="utf-8") as handle:
        return yaml.safe_load(handle)


def _sgld_kernel(config: dict[str, Any], n: int, datasets: int, name: str) -> Kernel:
    from dplab.learning.engine import subset_and_noise_steps
    from dplab.studies.generalization.empirical import make_data, sgld_runs

    params = config["generalization"]["empirical"]
    d, runs, tau = 50, int(params["runs"]), int(params["tau"])
    rng = np.random.default_rng(0)
    teacher = rng.standard_normal(d)
    sets = [make_data(n, d, params["rho"], rng, teacher / np.linalg.norm(teacher)) for _ in range(datasets)]
    X, y = np.stack([s[0] for s in sets]), np.stack([s[1] for s in sets])
    rows, steps = datasets * runs, max(int(t) for t in params["checkpoints"])
    features = torch.as_tensor(X.reshape(-1, d), dtype=torch.float32)

    def run(count: int) -> object:
        return sgld_runs(X, y, [0.5], {**params, "checkpoints": [count]}, runs, torch.Generator().manual_seed(1))

    def draws(count: int) -> float:
        iterator = subset_and_noise_steps(rows, n, tau, count, torch.Generator().manual_seed(1))
        return elapsed_seconds(lambda: [None for _ in iterator])

    def gathers(count: int) -> float:
        index = [
            torch.randint(datasets * n, (rows * tau,), generator=torch.Generator().manual_seed(t)) for t in range(count)
        ]
        out = torch.empty(rows * tau, d)
        return elapsed_seconds(lambda: [torch.index_select(features, 0, i, out=out) for i in index])

    sparse = tau * tau <= n
    # margins and the weighted sum (2 FLOPs per multiply-add each), sigmoid and products, the update
    flops = 4.0 * rows * tau * d + 4.0 * rows * tau + 4.0 * rows * d
    if sparse:
        return Kernel(name, steps, flops, run, "row gathers (index_select of the batch rows)", gathers)
    return Kernel(name, steps, flops, run, "subset draws (size + 4 size²/n uniform integers per row, screened)", draws)


def _erm_parameters(config: dict[str, Any], section: str) -> dict[str, Any]:
    """The dpsgd_paper method's parameters at n = 4000, ε_tot = 2 (as :mod:`dplab.studies.purification.erm`)."""
    from dplab.theory.purification import corollary4_parameters, lemma25_schedule, lemma25_step_size

    params = config["purification"][section]
    n, d, radius, lam, eps = 4000, int(params["d"]), float(params["radius"]), float(params["lam"]), 2.0
    lipschitz = 1.0 + lam * radius
    cor4 = corollary4_parameters(n, d, 2 * radius, eps / 2)
    sched = lemma25_schedule(n, d, eps / 2, -cor4["log_delta"], 2 * radius, lipschitz)
    steps = min(max(1, int(round(sched["steps"]))), int(params["max_steps_paper"]))
    eta = lemma25_step_size(n, d, steps, sched["gamma"], sched["sigma"], lipschitz, 2 * radius)
    return {"n": n, "d": d, "radius": radius, "lam": lam, "lipschitz": lipschitz, "gamma": sched["gamma"],
            "sigma": sched["sigma"], "eta": eta, "steps": steps, "runs": int(params["seeds"])}  # fmt: skip


def _erm_kernel(config: dict[str, Any], section: str, sampling: str, name: str, dispatch: float) -> Kernel:
    from dplab.data.synthetic import ball_logistic_dataset
    from dplab.learning.dp_erm import algorithm3_dpsgd
    from dplab.learning.losses import LogisticLoss, RegularisedLogisticLoss

    p = _erm_parameters(config, section)
    x, y = ball_logistic_dataset(p["n"], p["d"], 0)
    X, Y = torch.as_tensor(x), torch.as_tensor(y)
    loss = RegularisedLogisticLoss(p["lam"]) if p["lam"] > 0 else LogisticLoss()
    gamma = p["gamma"]
    steps = (
        p["steps"] if sampling == "without_replacement" else int(config["purification"][section]["max_steps_reference"])
    )

    def run(count: int) -> object:
        return algorithm3_dpsgd(
            loss, X, Y, lam=p["lam"], n=p["n"], steps=count, sampling=sampling, gamma=gamma, noise_std=p["sigma"],
            eta=p["eta"], clip=p["lipschitz"], radius=p["radius"], runs=p["runs"], generator=torch.Generator().manual_seed(2),
        )  # fmt: skip

    batch, runs, d = max(1, round(gamma * p["n"])), p["runs"], p["d"]
    # per run and sample: margin, sigmoid, squared norm, clip factor, weighted sum; per run: noise, step, projection
    flops = runs * batch * (4.0 * d + 8.0) + runs * (8.0 * d + 6.0)
    calls = torch_calls_per_step(run, 50)
    return Kernel(
        name, steps, flops, run, f"torch dispatch ({calls:.0f} calls per step)", lambda count: calls * count * dispatch
    )


def _em_grid_kernel() -> Kernel:
    from dplab.data.synthetic import ball_logistic_dataset
    from dplab.learning.dp_erm import grid_in_disc, summed_logistic_loss_on_grid

    n, chunk = 2000, 64
    x, y = ball_logistic_dataset(n, 2, 0)
    grid = grid_in_disc(0.005, 1.0)
    chunks = math.ceil(grid.shape[0] / chunk)  # a "step" is one chunk of grid points

    def run(count: int) -> object:
        return summed_logistic_loss_on_grid(grid[: count * chunk], x, y, 0.1, chunk=chunk)

    def logaddexp(count: int) -> float:
        margins = torch.rand(chunk, n, dtype=torch.float64)
        zero = torch.zeros((), dtype=torch.float64)
        return elapsed_seconds(lambda: [torch.logaddexp(zero, margins) for _ in range(count)])

    # per grid point and record: the margin (2 multiply-adds), logaddexp (max, exp, log1p, add), the sum
    return Kernel("em_grid_loss", chunks, chunk * n * 9.0, run, "logaddexp passes over the margins", logaddexp)


def _audit_kernel(config: dict[str, Any], setting: str, name: str, runs: int) -> Kernel:
    from dplab.audit.grid import UniformGrid
    from dplab.audit.instances import audit_instance
    from dplab.audit.pnsgd_audit import simulated_pnsgd_bin_counts
    from dplab.learning.engine import noise_steps

    audit = config["contraction"]["audit"]
    chosen = audit["configs"][setting]
    a, b = chosen["interval"]
    grid = UniformGrid(a, b, audit["grid_cells"])
    instance = audit_instance("A", n=audit["n"], i=audit["n"], a=a, b=b, L=audit["L"])
    n = len(instance.data)
    # a step advances ``runs`` outputs by one record; a point is 2 datasets x samples outputs x n records
    point_steps = 2 * audit["monte_carlo"]["samples"] * n // runs

    def run(count: int) -> object:
        return [
            simulated_pnsgd_bin_counts(
                grid,
                instance.y0,
                instance.data[: min(n, count - done)],
                lr=audit["lr"],
                noise=chosen["noise"],
                scale=chosen["scale"],
                interval=(a, b),
                L=audit["L"],
                samples=runs,
                chunk=runs,
                generator=torch.Generator().manual_seed(4),
            )  # fmt: skip
            for done in range(0, count, n)
        ]

    def draws(count: int) -> float:
        iterator = noise_steps(chosen["noise"], chosen["scale"], (runs, 1), count, torch.Generator().manual_seed(4))
        return elapsed_seconds(lambda: [None for _ in iterator])

    return Kernel(name, point_steps, 5.0 * runs, run, "noise draws", draws)


def _grid_laws_kernel(config: dict[str, Any]) -> Kernel:
    from dplab.studies.contraction.audit import grid_audit

    audit = config["contraction"]["audit"]
    setting = audit["configs"]["G1"]
    size = int(audit["grid_cells"]) + 2
    cases = len(audit["instances"]) * len(audit["positions"])
    products = cases * 2 * (int(audit["n"]) - 1)  # one (N+2)² vector-matrix product per step of each law

    def run(count: int) -> object:
        return grid_audit(audit, setting, audit["instances"], audit["positions"])

    def gemv(count: int) -> float:  # 200 of the products, scaled to all of them
        kernel = np.random.default_rng(0).random((size, size))
        law = np.full(size, 1.0 / size)
        return elapsed_seconds(lambda: [law @ kernel for _ in range(200)]) * products / 200

    return Kernel("audit_grid_laws", 1, products * 2.0 * size * size, run, "vector-matrix products", gemv)


def _utility_kernel(config: dict[str, Any], dispatch: float) -> Kernel:
    from dplab.learning.engine import noise_steps
    from dplab.learning.losses import LogisticLoss
    from dplab.learning.pnsgd_utility import pnsgd_config, pnsgd_domain

    utility = config["contraction"]["utility"]
    n, d, runs = int(utility["gaussian"]["n"]), int(utility["gaussian"]["d"]), int(utility["runs"])
    rng = np.random.default_rng(0)
    X = rng.standard_normal((n, d)) / math.sqrt(d)
    y = np.where(rng.random(n) < 0.5, -1.0, 1.0)
    projection = pnsgd_domain("gaussian", utility["gaussian"]["radius"])
    configs = len(utility["lrs"]) * len(utility["noise_scales"])

    def run(count: int) -> object:
        from dplab.learning.engine import run_noisy_gradient

        config_ = pnsgd_config("gaussian", utility["lrs"][0], 1.0, projection)
        return run_noisy_gradient(
            config_,
            LogisticLoss(),
            X[:count],
            y[:count],
            np.zeros(d),
            runs=runs,
            generator=torch.Generator().manual_seed(5),
        )

    calls = torch_calls_per_step(run, 50)

    def floor(count: int) -> float:
        iterator = noise_steps("gaussian", 1.0, (runs, d), count, torch.Generator().manual_seed(5))
        return elapsed_seconds(lambda: [None for _ in iterator]) + calls * count * dispatch

    flops = runs * (4.0 * d + 8.0) + runs * (8.0 * d + 6.0)
    return Kernel(
        "pnsgd_utility", configs * n, flops, run, f"noise draws + torch dispatch ({calls:.0f} calls per step)", floor
    )


def _kernels(config: dict[str, Any], dispatch: float) -> list[Kernel]:
    from benchmarks.kernels_release import release_kernels

    return [
        _sgld_kernel(config, 10_000, 10, "f8_sgld_sparse"),
        _sgld_kernel(config, 1_000, 40, "f8_sgld_dense"),
        _erm_kernel(config, "dp_erm", "without_replacement", "dp_erm_paper", dispatch),
        _erm_kernel(config, "dp_erm_sc", "without_replacement", "dp_erm_sc_paper", dispatch),
        _erm_kernel(config, "dp_erm", "poisson", "dp_erm_reference", dispatch),
        _em_grid_kernel(),
        _audit_kernel(config, "G1", "audit_mc_gaussian", 100_000),
        _audit_kernel(config, "L1", "audit_mc_laplace", 100_000),
        _grid_laws_kernel(config),
        _utility_kernel(config, dispatch),
        *release_kernels(config),
    ]


def kernel_rows(settings: Settings, progress: Callable[[str], None] = print) -> list[dict[str, Any]]:
    """One row per kernel (columns :data:`KERNEL_COLUMNS`), measured with one torch thread; a kernel is timed for
    ``settings.kernel_fraction`` of a point's steps (at least 5), ``settings.kernel_repeats`` times after a warm-up,
    its floor once per repeat; the matmul rate is measured before and after the kernels (the median of both).
    ``settings.kernel_repeats`` = 0 skips the kernels (no rows)."""
    if settings.kernel_repeats == 0:
        return []
    previous = torch.get_num_threads()
    torch.set_num_threads(1)
    try:
        progress("pipeline kernels: matmul")
        before = matmul_gflops()
        dispatch = _small_op_seconds()
        config = _config()
        rows = []
        for kernel in _kernels(config, dispatch):
            progress(f"pipeline kernels: {kernel.name}")
            steps = min(kernel.steps_per_point, max(5, round(settings.kernel_fraction * kernel.steps_per_point)))
            timing = time_side_by_side({kernel.name: lambda: kernel.run(steps)}, repeats=settings.kernel_repeats)
            floors = [kernel.floor(steps) for _ in range(settings.kernel_repeats)]
            per_step = timing[kernel.name].median / steps
            rows.append(
                {
                    "kernel": kernel.name,
                    "steps_timed": steps,
                    "steps_per_point": kernel.steps_per_point,
                    "seconds_per_step": per_step,
                    "seconds_per_point": per_step * kernel.steps_per_point,
                    "points_per_second": 1.0 / (per_step * kernel.steps_per_point),
                    "gflop_per_point": kernel.flops_per_step * kernel.steps_per_point / 1e9,
                    "gflops_per_second": kernel.flops_per_step / per_step / 1e9,
                    "floor": kernel.floor_name,
                    "floor_seconds": float(np.median(floors)) / steps * kernel.steps_per_point,
                    "repeats": settings.kernel_repeats,
                }
            )
        matmul = float(np.median([before, matmul_gflops()]))
    finally:
        torch.set_num_threads(previous)
    for row in rows:
        row["matmul_gflops_per_second"] = matmul
        row["ratio"] = row["gflops_per_second"] / matmul
        row["floor_share"] = row["floor_seconds"] / row["seconds_per_point"]
    return rows


def write_kernels(rows: list[dict[str, Any]], path: Path) -> pd.DataFrame:
    """The kernel rows as a tidy CSV (``path``) and a Markdown table next to it (``.md``), with the environment
    (OPENBLAS_NUM_THREADS, CPU count) in a note."""
    frame = pd.DataFrame(rows, columns=list(KERNEL_COLUMNS))
    path.parent.mkdir(parents=True, exist_ok=True)
    frame.to_csv(path, index=False, float_format="%.6g")
    shown = frame[["kernel", "seconds_per_point", "points_per_second", "gflops_per_second", "matmul_gflops_per_second",
                   "ratio", "floor", "floor_share"]]  # fmt: skip
    note = (
        f"One torch thread; OPENBLAS_NUM_THREADS={os.environ.get('OPENBLAS_NUM_THREADS', 'unset')}; "
        f"{os.cpu_count()} CPUs. A point's time is the time per step x its steps (module docstring of "
        "benchmarks/kernels.py); floor_share: the share of that time a faster loop cannot remove without changing "
        "the results."
    )
    path.with_suffix(".md").write_text(
        "# Pipeline kernels (issue 27)\n\n" + note + "\n\n" + to_markdown(shown, digits=4)
    )
    return frame
