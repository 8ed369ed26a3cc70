"""Empirical audit of Theorems 3-5 and Proposition 1 of Asoodeh et al. (2020) on 1-D projected noisy chains.

Three numbers per (configuration, position i, epsilon), our audit design (the paper has no audit):

- the theorem's upper bound on delta;
- ``delta_grid``: the grid-exact E_{e^eps} between the output laws on neighbouring datasets, maximised over the
  instance family (a lower bound on the worst case, since each instance is a valid neighbouring pair);
- ``mc_lower``: a (1 - alpha)-confidence Monte-Carlo lower bound, with events fixed from the grid before sampling
  and outputs simulated by the torch noisy-gradient engine (exact continuous PNSGD, not the grid).

A measured value above a bound is a bug or a finding; :func:`bound_violations` lists them and the workflow stops.

In the workflow the grid laws of each audited configuration are a pipeline product (rule ``contraction_audit_grid``);
the artifacts ``ext_audit_gaussian`` and ``ext_audit_laplace`` are sweeps whose points are (configuration, position)
(:func:`audit_point`, combined by :func:`combine_audit`), and ``ext_random_stopping`` is :func:`compute_random_stopping`.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable, Mapping
from typing import Any

import numpy as np
import pandas as pd
import torch

from dplab.accounting.hockey_stick import discrete_hockey_stick
from dplab.audit.grid import GradientStep, UniformGrid, linear_loss_psi, pnsgd_output_laws, privacy_loss_bound
from dplab.audit.instances import audit_instance
from dplab.audit.pnsgd_audit import (
    AuditViolation,
    bound_violations,
    first_of_largest,
    grid_event_lower_bound,
    simulated_pnsgd_bin_counts,
    worst_instances,
)
from dplab.report.io import as_written, load_arrays
from dplab.seeding import derive_seed
from dplab.studies.contraction.curves import epsilon_grid
from dplab.theory.contraction import (
    contraction_modulus,
    kappa_prop1,
    log_delta_prop1,
    log_delta_thm3,
    log_delta_thm4,
    log_delta_thm5,
)

__all__ = [
    "AuditViolation",
    "grid_audit",
    "laws_key",
    "worst_instances",
    "monte_carlo_audit",
    "theorem_bounds",
    "merge_audit",
    "bound_violations",
    "random_stopping_audit",
    "audit_point",
    "combine_audit",
    "compute_random_stopping",
]


def laws_key(instance: str, i: int, which: str) -> str:
    """Name of one output law in the ``laws.npz`` archive (``which`` is ``p`` or ``q``)."""
    return f"{instance}__{i}__{which}"


def _grid(audit: Mapping[str, Any], setting: Mapping[str, Any]) -> UniformGrid:
    a, b = setting["interval"]
    return UniformGrid(a, b, audit["grid_cells"])


def _instance_laws(
    audit: Mapping[str, Any],
    setting: Mapping[str, Any],
    grid: UniformGrid,
    name: str,
    i: int,
    random_stop: bool,
    psi: GradientStep,
    kernel_cache: dict[tuple, np.ndarray],
) -> tuple[np.ndarray, np.ndarray]:
    a, b = setting["interval"]
    instance = audit_instance(name, n=audit["n"], i=i, a=a, b=b, L=audit["L"])
    return pnsgd_output_laws(
        grid,
        y0=instance.y0,
        data=instance.data,
        data_prime=instance.data_prime,
        lr=audit["lr"],
        scale=setting["scale"],
        noise=setting["noise"],
        psi=psi,
        random_stop=random_stop,
        kernel_cache=kernel_cache,
    )


def grid_audit(
    audit: Mapping[str, Any],
    setting: Mapping[str, Any],
    instances: Iterable[str],
    positions: Iterable[int],
    *,
    random_stop: bool = False,
    progress: Callable[[Iterable[Any]], Iterable[Any]] = iter,
) -> tuple[pd.DataFrame, dict[str, np.ndarray]]:
    """Grid-exact delta for every instance, position and epsilon, and the output laws themselves.

    Returns a frame with columns ``instance, i, epsilon, delta_grid, max_privacy_loss`` and a mapping
    :func:`laws_key` -> law (for fixing Monte-Carlo events before sampling).
    """
    grid = _grid(audit, setting)
    eps = epsilon_grid(audit["epsilon_max"], audit["n_epsilon"])
    frames, laws = [], {}
    psi, kernel_cache = linear_loss_psi(audit["lr"]), {}  # every case's laws share the kernels of its few records
    cases = [(name, i) for i in positions for name in instances]
    for name, i in progress(cases):
        p, q = _instance_laws(audit, setting, grid, name, i, random_stop, psi, kernel_cache)
        laws[laws_key(name, i, "p")], laws[laws_key(name, i, "q")] = p, q
        frames.append(
            pd.DataFrame(
                {
                    "instance": name,
                    "i": i,
                    "epsilon": eps,
                    "delta_grid": discrete_hockey_stick(p, q, eps),
                    "max_privacy_loss": privacy_loss_bound(p, q),
                }
            )
        )
    return pd.concat(frames, ignore_index=True), laws


def _position_mc_rows(
    audit: Mapping[str, Any],
    setting: Mapping[str, Any],
    laws: Mapping[str, np.ndarray],
    name: str,
    i: int,
    generator: torch.Generator,
) -> pd.DataFrame:
    """The Monte-Carlo rows of instance ``name`` at position i: events fixed from the grid laws, ``samples`` outputs
    simulated on each dataset, the Clopper-Pearson lower bound on delta at every epsilon of the sweep."""
    grid = _grid(audit, setting)
    a, b = setting["interval"]
    eps = epsilon_grid(audit["epsilon_max"], audit["n_epsilon"])
    mc = audit["monte_carlo"]
    instance = audit_instance(name, n=audit["n"], i=i, a=a, b=b, L=audit["L"])
    p, q = laws[laws_key(name, i, "p")], laws[laws_key(name, i, "q")]
    m = mc["samples"]
    chain = {"lr": audit["lr"], "noise": setting["noise"], "scale": setting["scale"], "interval": (a, b)}
    sampling = {"L": audit["L"], "samples": m, "chunk": mc["chunk"], "generator": generator}
    counts_p = simulated_pnsgd_bin_counts(grid, instance.y0, instance.data, **chain, **sampling)
    counts_q = simulated_pnsgd_bin_counts(grid, instance.y0, instance.data_prime, **chain, **sampling)
    bound = grid_event_lower_bound(p, q, counts_p, counts_q, m, eps, mc["alpha"])
    return pd.DataFrame(
        {
            "i": i,
            "instance": name,
            "epsilon": eps,
            "mc_lower": bound.lower,
            "mc_estimate": bound.estimate,
            "p_lower": bound.p_lower,
            "q_upper": bound.q_upper,
            "samples": m,
            "alpha": mc["alpha"],
            "delta_grid": discrete_hockey_stick(p, q, eps),
        }
    )


def monte_carlo_audit(
    audit: Mapping[str, Any],
    setting: Mapping[str, Any],
    grid_frame: pd.DataFrame,
    laws: Mapping[str, np.ndarray],
    *,
    seed: int,
    positions: Iterable[int] | None = None,
    progress: Callable[[Iterable[Any]], Iterable[Any]] = iter,
) -> pd.DataFrame:
    """Monte-Carlo lower bounds on delta for the worst instance at each position (or at ``positions`` only).

    Each position simulates with its own generator, seeded from ``seed`` and the position, so a position computed
    alone (one job per position in the workflow) gives the same rows as in a run over all positions.

    For each epsilon the event A = {bins k : p_k > e^eps q_k} is taken from the grid laws (fixed before any
    sample is drawn); ``samples`` outputs are simulated on each dataset, and the Clopper-Pearson bound
    max(0, P_lo - e^eps Q_hi) at level 1 - alpha is reported with the point estimate.
    Columns: ``i, instance, epsilon, mc_lower, mc_estimate, p_lower, q_upper, samples, alpha, delta_grid``.
    """
    worst = worst_instances(grid_frame)
    chosen = sorted(worst) if positions is None else sorted(int(i) for i in positions)
    frames = []
    for i in progress(chosen):
        generator = torch.Generator().manual_seed(derive_seed(seed, "position", i))
        frames.append(_position_mc_rows(audit, setting, laws, worst[i], i, generator))
    return pd.concat(frames, ignore_index=True)


def theorem_bounds(audit: Mapping[str, Any], setting: Mapping[str, Any], i: int, eps: np.ndarray) -> dict[str, Any]:
    """The paper's upper bounds at one position for the audit's linear loss (L-Lipschitz, convex: M = 1).

    Gaussian noise: Theorem 4 and Proposition 1. Laplace noise: Theorem 3 (no RDP baseline in the paper).
    """
    a, b = setting["interval"]
    M = contraction_modulus(lr=audit["lr"], beta_smooth=audit["beta_smooth"], rho=0.0)
    common = {"L": audit["L"], "M": M, "diameter": b - a, "lr": audit["lr"], "n": audit["n"], "i": i}
    if setting["noise"] == "gaussian":
        kappa = kappa_prop1(L=audit["L"], sigma=setting["scale"], M=M, n=audit["n"], i=i)
        return {
            "theorem": "thm4",
            "bound_theorem": np.exp(log_delta_thm4(eps, sigma=setting["scale"], **common)),
            "bound_prop1": np.exp(log_delta_prop1(eps, kappa=kappa)),
        }
    return {
        "theorem": "thm3",
        "bound_theorem": np.exp(log_delta_thm3(eps, v=setting["scale"], **common)),
        "bound_prop1": np.nan,
    }


#: The columns of the merged audit frame, in order (``mc_minus_grid`` is appended).
MERGED_COLUMNS = [
    "config",
    "noise",
    "diameter",
    "scale",
    "i",
    "epsilon",
    "theorem",
    "bound_theorem",
    "bound_prop1",
    "delta_grid",
    "grid_instance",
    "max_privacy_loss",
    "mc_lower",
    "mc_estimate",
    "p_lower",
    "q_upper",
    "mc_instance",
    "delta_grid_mc_instance",
    "samples",
    "alpha",
]


def worst_instance_per_point(frame: pd.DataFrame) -> pd.DataFrame:
    """The row of the worst instance per (i, epsilon) (:func:`~dplab.audit.pnsgd_audit.first_of_largest` of
    ``delta_grid``)."""
    return first_of_largest(frame, ["i", "epsilon"])


def _merged_configuration(
    audit: Mapping[str, Any], name: str, setting: Mapping[str, Any], grid_frame: pd.DataFrame, mc: pd.DataFrame
) -> pd.DataFrame:
    """One configuration's rows: the worst grid delta per (i, epsilon) with its instance, the Monte-Carlo rows
    and the theorems' bounds (:func:`theorem_bounds`), led by the configuration's identity columns."""
    worst = worst_instance_per_point(grid_frame).rename(columns={"instance": "grid_instance"})
    mc = mc.rename(columns={"instance": "mc_instance", "delta_grid": "delta_grid_mc_instance"})
    merged = worst.merge(mc, on=["i", "epsilon"], how="left").sort_values(["i", "epsilon"])
    parts = []
    for i, part in merged.groupby("i", sort=False):
        part = part.copy()
        for key, value in theorem_bounds(audit, setting, int(i), part["epsilon"].to_numpy()).items():
            part[key] = value
        parts.append(part)
    merged = pd.concat(parts, ignore_index=True)
    a, b = setting["interval"]
    merged.insert(0, "config", name)
    merged.insert(1, "noise", setting["noise"])
    merged.insert(2, "diameter", b - a)
    merged.insert(3, "scale", setting["scale"])
    return merged


def merge_audit(
    audit: Mapping[str, Any],
    settings: Mapping[str, Mapping[str, Any]],
    grids: Mapping[str, pd.DataFrame],
    mcs: Mapping[str, pd.DataFrame],
) -> pd.DataFrame:
    """One row per (configuration, i, epsilon): bounds, worst grid delta (and its instance), Monte-Carlo bound."""
    frames = [_merged_configuration(audit, name, setting, grids[name], mcs[name]) for name, setting in settings.items()]
    frame = pd.concat(frames, ignore_index=True)[MERGED_COLUMNS]
    frame["mc_minus_grid"] = frame["mc_lower"] - frame["delta_grid_mc_instance"]
    return frame.sort_values(["config", "i", "epsilon"], ignore_index=True)


def random_stopping_audit(
    audit: Mapping[str, Any],
    stopping: Mapping[str, Any],
    setting: Mapping[str, Any],
    *,
    progress: Callable[[Iterable[Any]], Iterable[Any]] = iter,
) -> pd.DataFrame:
    """Theorem 5 (uniform and i-dependent forms) against the grid-exact randomly stopped laws.

    Columns: ``i, epsilon, delta_grid, grid_instance, bound_thm5, bound_thm5_i`` (worst instance per point).
    """
    sweep = {**audit, "epsilon_max": stopping["epsilon_max"], "n_epsilon": stopping["n_epsilon"]}
    frame, _ = grid_audit(
        sweep, setting, stopping["instances"], stopping["positions"], random_stop=True, progress=progress
    )
    worst = worst_instance_per_point(frame).rename(columns={"instance": "grid_instance"})
    worst = worst.sort_values(["i", "epsilon"], ignore_index=True)
    a, b = setting["interval"]
    M = contraction_modulus(lr=audit["lr"], beta_smooth=audit["beta_smooth"], rho=0.0)
    common = {"L": audit["L"], "sigma": setting["scale"], "M": M, "diameter": b - a, "lr": audit["lr"], "n": audit["n"]}
    eps = worst["epsilon"].to_numpy()
    worst["bound_thm5"] = np.exp(log_delta_thm5(eps, **common))
    worst["bound_thm5_i"] = [
        float(np.exp(log_delta_thm5(e, i=int(i), **common))) for e, i in zip(eps, worst["i"], strict=True)
    ]
    return worst[["i", "epsilon", "delta_grid", "grid_instance", "max_privacy_loss", "bound_thm5", "bound_thm5_i"]]


# The workflow's artifacts (registry convention, dplab.workflow.registry).

#: The key of each configuration's Monte-Carlo seed, derive_seed(config seed, MC_SEED_KEY, configuration): the name
#: of the rule that ran one Monte-Carlo job per (configuration, position) before the audit became a sweep, kept so
#: that every point draws the numbers it drew then.
MC_SEED_KEY = "contraction_audit_mc"
Progress = Callable[[Iterable[Any]], Iterable[Any]]


def audit_point(
    audit: Mapping[str, Any], seed: int, progress: Progress, point: Mapping[str, Any], inputs: Mapping[str, Any]
) -> pd.DataFrame:
    """The audit rows of one (configuration, position) point: bounds, worst grid delta and the Monte-Carlo lower
    bound (:func:`merge_audit`). ``seed`` is the configuration's base seed: the Monte-Carlo streams derive from it,
    :data:`MC_SEED_KEY`, the configuration and the position (:func:`monte_carlo_audit`), never from other points.
    The Monte-Carlo rows are merged as written to CSV (12 significant digits), as the per-position files of the
    earlier layout stored them, so ``mc_minus_grid`` keeps its digits."""
    name, i = point["config"], int(point["i"])
    setting = audit["configs"][name]
    grid_frame = pd.read_csv(inputs[f"{name}_grid"])
    laws = load_arrays(inputs[f"{name}_laws"])
    mc_seed = derive_seed(seed, MC_SEED_KEY, name)
    mc = as_written(monte_carlo_audit(audit, setting, grid_frame, laws, seed=mc_seed, positions=[i]))
    return merge_audit(audit, {name: setting}, {name: grid_frame[grid_frame["i"] == i]}, {name: mc})


def combine_audit(rows: pd.DataFrame, audit: Mapping[str, Any]) -> pd.DataFrame:
    """The audit frame of every point, by (configuration, i, epsilon); raises :class:`AuditViolation` if a grid
    value or a Monte-Carlo lower bound exceeds a theorem's bound (Proposition 1's too, where it applies)."""
    frame = rows.sort_values(["config", "i", "epsilon"], ignore_index=True)
    bounds = ["bound_theorem"] + (["bound_prop1"] if frame["bound_prop1"].notna().any() else [])
    violations = bound_violations(frame, ["delta_grid", "mc_lower"], bounds)
    if len(violations):
        raise AuditViolation(f"{len(violations)} measurements exceed a theorem's bound:\n{violations.to_string()}")
    return frame


def compute_random_stopping(params: Mapping[str, Any], seed: int, progress: Progress) -> pd.DataFrame:
    """The artifact ``ext_random_stopping`` from the sections ``audit`` and ``random_stopping``
    (:func:`random_stopping_audit`); raises :class:`AuditViolation` if a grid value exceeds Theorem 5."""
    audit, stopping = params["audit"], params["random_stopping"]
    frame = random_stopping_audit(audit, stopping, audit["configs"][stopping["config"]], progress=progress)
    violations = bound_violations(frame, ["delta_grid"], ["bound_thm5", "bound_thm5_i"])
    if len(violations):
        raise AuditViolation(f"{len(violations)} grid values exceed Theorem 5:\n{violations.to_string()}")
    return frame
