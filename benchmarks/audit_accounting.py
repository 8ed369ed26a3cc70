"""(4) The Monte-Carlo audit sampler (samples per second) and the accounting curves (points per second).

- Audit sampler: PNSGD in 1-D as in ``dplab.studies.contraction.audit`` (linear loss, single pass over n = 40
  samples, Gaussian noise, projection onto [0, 1], float64), dplab's engine against a plain numpy loop doing the
  same chain (the reference a user would otherwise write).
- Curves, each computed on the same ``curve_points`` points by dplab and by dp_accounting:
  ``gaussian_hockey_stick``: δ(ε) of the Gaussian mechanism, dplab's closed form against
  ``GaussianPrivacyLoss.get_delta_for_epsilon``; ``rdp_epsilon``: ε(δ) of the Gaussian mechanism from its RDP
  curve, dplab's CKS conversion against ``RdpAccountant.get_epsilon`` (one call per δ, the accountant composed once);
  ``contraction_thm4``: Theorem 4 of Asoodeh, Diaz, Calmon (2020) (dplab only: no library has it; no ratio).
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

import numpy as np
import torch

from benchmarks.records import timing_rows
from benchmarks.settings import Settings
from benchmarks.timing import time_side_by_side
from dplab.accounting.conversions import epsilon_from_rdp_cks, gaussian_rdp
from dplab.accounting.hockey_stick import gaussian_hockey_stick
from dplab.learning.engine import NoisyGradientConfig, run_noisy_gradient
from dplab.learning.losses import LinearLoss
from dplab.learning.projections import Interval
from dplab.theory.contraction import contraction_modulus, log_delta_thm4

__all__ = ["AUDIT", "audit_rows", "curve_rows", "numpy_pnsgd"]

#: The G1 configuration of the contraction audit (config.yaml): lr, interval, Gaussian noise scale, L.
AUDIT = {"lr": 0.5, "a": 0.0, "b": 1.0, "scale": 2.0, "L": 1.0, "beta_smooth": 0.5}
SIGMA = 2.0
RDP_ORDERS = np.concatenate([np.linspace(1.1, 10.9, 99), np.arange(12, 64)])


def _audit_data(n: int) -> np.ndarray:
    """Instance-like data: x_t = +L everywhere except x_1 = −L."""
    data = np.full(n, AUDIT["L"])
    data[0] = -AUDIT["L"]
    return data


def numpy_pnsgd(data: np.ndarray, samples: int, rng: np.random.Generator, y0: float = 0.5) -> np.ndarray:
    """The same projected noisy chain in numpy: y ← clip(y − lr·(x_t + Z_t), a, b), Z_t ~ N(0, scale²)."""
    y = np.full(samples, y0)
    for x in data:
        y -= AUDIT["lr"] * (x + AUDIT["scale"] * rng.standard_normal(samples))
        np.clip(y, AUDIT["a"], AUDIT["b"], out=y)
    return y


def audit_rows(settings: Settings, progress: Callable[[str], None] = print) -> list[dict[str, Any]]:
    """Rows of benchmark ``audit_sampler`` (reference: numpy); units: samples."""
    progress("audit sampler")
    data = _audit_data(settings.audit_n)
    config = NoisyGradientConfig(
        lr=AUDIT["lr"],
        noise="gaussian",
        noise_scale=AUDIT["scale"],
        projection=Interval(AUDIT["a"], AUDIT["b"]),
        sampling="single_pass",
        batch_size=1,
    )
    loss = LinearLoss(offset=AUDIT["L"] * max(abs(AUDIT["a"]), abs(AUDIT["b"])))
    features = torch.tensor(data[:, None])
    generator, rng = torch.Generator().manual_seed(settings.seed), np.random.default_rng(settings.seed)
    functions = {
        "dplab": lambda: run_noisy_gradient(
            config, loss, features, None, [0.5], runs=settings.audit_samples, generator=generator, progress=False
        ),
        "numpy": lambda: numpy_pnsgd(data, settings.audit_samples, rng),
    }
    timings = time_side_by_side(functions, repeats=settings.audit_repeats)
    return timing_rows(
        "audit_sampler",
        f"pnsgd_1d_n{settings.audit_n}",
        timings,
        reference="numpy",
        unit="sample",
        units_per_call=settings.audit_samples,
        runs=settings.audit_samples,
    )


def _dp_accounting_rdp_epsilons(deltas: np.ndarray) -> Callable[[], list[float]]:
    import dp_accounting
    from dp_accounting.rdp import RdpAccountant

    def run() -> list[float]:
        accountant = RdpAccountant(orders=list(RDP_ORDERS))
        accountant.compose(dp_accounting.GaussianDpEvent(SIGMA))
        return [accountant.get_epsilon(float(delta)) for delta in deltas]

    return run


def curve_rows(settings: Settings, progress: Callable[[str], None] = print) -> list[dict[str, Any]]:
    """Rows of benchmark ``accounting_curve`` (reference: dp_accounting where it has the curve); units: points."""
    from dp_accounting.pld.privacy_loss_mechanism import GaussianPrivacyLoss

    points = settings.curve_points
    epsilons = np.linspace(0.0, 5.0, points)
    deltas = np.geomspace(1e-12, 1e-2, points)
    orders = RDP_ORDERS
    M = contraction_modulus(lr=AUDIT["lr"], beta_smooth=AUDIT["beta_smooth"], rho=0.0)
    thm4 = {"L": AUDIT["L"], "sigma": SIGMA, "M": M, "diameter": 1.0, "lr": AUDIT["lr"], "n": 40, "i": 40}
    cases = {
        "gaussian_hockey_stick": {
            "dplab": lambda: gaussian_hockey_stick(epsilons, 1.0 / SIGMA),
            "dp_accounting": lambda: GaussianPrivacyLoss(SIGMA, sensitivity=1.0).get_delta_for_epsilon(epsilons),
        },
        "rdp_epsilon": {
            "dplab": lambda: epsilon_from_rdp_cks(deltas, orders, gaussian_rdp(orders, 1.0, SIGMA)),
            "dp_accounting": _dp_accounting_rdp_epsilons(deltas),
        },
        "contraction_thm4": {"dplab": lambda: log_delta_thm4(epsilons, **thm4)},
    }
    rows: list[dict[str, Any]] = []
    for case, functions in cases.items():
        progress(f"accounting curve {case}")
        timings = time_side_by_side(functions, repeats=settings.curve_repeats)
        reference = "dp_accounting" if "dp_accounting" in functions else None
        rows += timing_rows("accounting_curve", case, timings, reference=reference, unit="point", units_per_call=points)
    return rows
