"""Extension (triangle counting is our instance; the paper names none): propose-test-release and privately bounded local
sensitivity, purified (Algorithms 9-11, Theorem 5), on triangle counting in G(n_v, p) graphs under edge-add/remove
adjacency; and its privacy audit on a tiny pair of neighbouring graphs.

Artifacts: ``ext_ptr`` (:func:`compute_ptr`) and ``ext_ptr_audit`` (:func:`ptr_audit`), both reading the section
``purification.ptr``.  Budget split: purified methods use ε = ε′ = ε_tot/3 (Alg. 11 is 3ε,
Alg. 10 is 2ε + ε′), with Theorem 11's ω and δ; the global-sensitivity Laplace and NRS07 smooth-sensitivity
baselines run at ε_tot; the unpurified references run at (ε_tot, δ_ref) with ε = ε_tot/2 (both are (2ε, δ)-DP).
"""

from __future__ import annotations

import math
from collections.abc import Callable, Iterable, Mapping
from typing import Any

import numpy as np
import pandas as pd

from dplab.audit.threshold import pure_epsilon_lower_bound
from dplab.mechanisms.local_sensitivity import (
    alg11_parameters,
    bounded_local_sensitivity_release,
    common_neighbours,
    edge_flip_changes,
    global_sensitivity_laplace,
    propose_test_release,
    ptr_distance_lower_bound,
    pure_propose_test_release,
    purified_local_sensitivity_release,
    random_graph,
    smooth_sensitivity_beta,
    smooth_sensitivity_mechanism,
    triangle_count,
    triangle_global_sensitivity,
    triangle_local_sensitivity,
    triangle_smooth_sensitivity,
)
from dplab.seeding import derive_seed
from dplab.studies.registry import no_progress

__all__ = ["proposed_beta", "margin_beta", "audit_graph_pair", "compute_ptr", "ptr_audit", "PTR_METHODS"]

ADJACENCY = "edge_add_remove"
#: method -> (pure?, description)
PTR_METHODS = {
    "alg11_purified": (True, "Algorithm 11 (privately bounded local sensitivity + Algorithm 1), eps = eps_tot/3"),
    "alg10_ptr_purified": (True, "Algorithm 10 (PTR + Algorithm 1), eps = eps' = eps_tot/3, proposed beta"),
    "alg10_ptr_purified_margin": (True, "Algorithm 10 with beta + ceil((log(1/delta) + 3)/eps) (our choice)"),
    "gs_laplace": (True, "global-sensitivity Laplace, scale (n_v - 2)/eps_tot"),
    "smooth_sensitivity": (True, "NRS07 smooth sensitivity, h ~ 1/(1+z^4), eps_tot"),
    "alg11_before_purification": (False, "Algorithm 11 lines 1-2 at the purification delta (2 eps_tot/3, delta)"),
    "alg11_reference": (False, "Algorithm 11 lines 1-2 at (eps_tot, delta_ref), not pure"),
    "alg9_ptr_reference": (False, "Algorithm 9 (PTR) at (eps_tot, delta_ref), not pure, proposed beta"),
    "alg9_ptr_reference_margin": (False, "Algorithm 9 at (eps_tot, delta_ref) with the margin beta, not pure"),
}


def proposed_beta(n_vertices: int, p: float) -> float:
    """PTR's proposed bound β = ⌈n_v p² + 4√(n_v p²)⌉ + 5 (our choice; the paper leaves β open): mean common neighbours
    + 4 sd + 5."""
    m = n_vertices * p * p
    return float(math.ceil(m + 4.0 * math.sqrt(m)) + 5)


def margin_beta(beta: float, epsilon: float, log_delta: float) -> float:
    """β + ⌈(log(1/δ) + 3)/ε⌉ (our choice): with the sensitivity-1 distance proxy max(0, ⌊β⌋ + 1 − Δ_Local), PTR
    passes its test only if ⌊β⌋ + 1 − Δ_Local exceeds log(1/δ)/ε, so the proposal must carry that margin (β stays a
    function of public quantities only)."""
    return beta + math.ceil((3.0 - log_delta) / epsilon)


def _errors(estimates: np.ndarray, truth: float) -> dict[str, float]:
    released = estimates[np.isfinite(estimates)]
    if released.size == 0:
        return {
            k: math.nan for k in ("median_abs_error", "mean_abs_error", "median_relative_error", "mean_relative_error")
        }
    err = np.abs(released - truth)
    denom = max(truth, 1.0)
    return {
        "median_abs_error": float(np.median(err)),
        "mean_abs_error": float(np.mean(err)),
        "median_relative_error": float(np.median(err) / denom),
        "mean_relative_error": float(np.mean(err) / denom),
    }


def _graph_methods(
    q: float, ls: float, n_v: int, p: float, eps_tot: float, draws: int, delta_ref: float, rng: np.random.Generator
) -> list[dict[str, Any]]:
    """All methods on one graph at one ε_tot: rows without the graph identifiers."""
    R = float(math.comb(n_v, 3))
    eps = eps_tot / 3.0
    params = alg11_parameters(R, eps)
    omega = math.exp(params.log_omega)
    beta = proposed_beta(n_v, p)
    log_ref = math.log(delta_ref)
    gs = triangle_global_sensitivity(n_v)
    s_beta = smooth_sensitivity_beta(eps_tot)
    smooth = triangle_smooth_sensitivity(ls, n_v, s_beta)
    purified_common = dict(
        epsilon=eps, epsilon_prime=eps, log_delta=params.log_delta, omega=omega, laplace_scale=params.laplace_scale
    )
    none = dict(epsilon=math.nan, epsilon_prime=math.nan, log_delta=math.nan, omega=math.nan, laplace_scale=math.nan)

    rows = []

    def add(method: str, estimates: np.ndarray, refused: np.ndarray | None, extra: Mapping[str, Any]) -> None:
        rows.append(
            {
                "method": method,
                "pure": PTR_METHODS[method][0],
                **extra,
                "refusal_rate": float(np.mean(refused)) if refused is not None else 0.0,
                "n_released": int(np.sum(np.isfinite(estimates))),
                **_errors(estimates, q),
            }
        )

    q_pure, q_apx = purified_local_sensitivity_release(q, ls, params, 0.0, draws, rng)
    add("alg11_purified", q_pure, None, {**purified_common, "beta_proposed": math.nan})
    add(
        "alg11_before_purification",
        q_apx,
        None,
        {
            **purified_common,
            "epsilon_prime": math.nan,
            "omega": math.nan,
            "laplace_scale": math.nan,
            "beta_proposed": math.nan,
        },
    )
    for suffix, b in (("", beta), ("_margin", margin_beta(beta, eps, params.log_delta))):
        theta, refused = pure_propose_test_release(
            q, ptr_distance_lower_bound(ls, b), b, eps, eps, params.log_delta, params.log_omega, 0.0, R, draws, rng
        )
        add("alg10_ptr_purified" + suffix, theta, refused, {**purified_common, "beta_proposed": b})
    add(
        "gs_laplace",
        global_sensitivity_laplace(q, gs, eps_tot, draws, rng),
        None,
        {**none, "epsilon": eps_tot, "laplace_scale": gs / eps_tot, "beta_proposed": math.nan},
    )
    add(
        "smooth_sensitivity",
        smooth_sensitivity_mechanism(q, smooth, eps_tot, draws, rng),
        None,
        {**none, "epsilon": eps_tot, "laplace_scale": smooth / s_beta, "beta_proposed": math.nan},
    )
    q_ref, _ = bounded_local_sensitivity_release(q, ls, eps_tot / 2.0, log_ref, 0.0, R, draws, rng)
    add(
        "alg11_reference",
        q_ref,
        None,
        {**none, "epsilon": eps_tot / 2.0, "log_delta": log_ref, "beta_proposed": math.nan},
    )
    for suffix, b in (("", beta), ("_margin", margin_beta(beta, eps_tot / 2.0, log_ref))):
        released, refused = propose_test_release(
            q, ptr_distance_lower_bound(ls, b), b, eps_tot / 2.0, log_ref, draws, rng
        )
        add(
            "alg9_ptr_reference" + suffix,
            released,
            refused,
            {**none, "epsilon": eps_tot / 2.0, "log_delta": log_ref, "beta_proposed": b},
        )
    for row in rows:
        row.update(
            smooth_sensitivity=smooth,
            log_inv_delta_alg11=params.log_inv_delta,
            bound_offset=params.bound_offset,
            purification_shift=params.shift,
            domain_diameter=R,
            global_sensitivity=gs,
        )
    return rows


def compute_ptr(
    params: Mapping[str, Any], seed: int, progress: Callable[[Iterable[Any]], Iterable[Any]] = no_progress
) -> pd.DataFrame:
    """``ext_ptr``: one row per (method, n_v, p, ε_tot, graph): refusal rate and median / mean absolute and
    relative errors over ``draws`` noise draws, with the privacy parameters used."""
    rows = []
    cells = [(n_v, p) for n_v in params["n_vertices"] for p in params["edge_probabilities"]]
    for n_v, p in progress(cells):
        for graph in range(params["graphs"]):
            adjacency = random_graph(n_v, p, np.random.default_rng(derive_seed(seed, "ptr_graph", n_v, p, graph)))
            common = common_neighbours(adjacency)
            q, ls = triangle_count(adjacency, common), triangle_local_sensitivity(adjacency, common)
            for eps_tot in params["epsilons_total"]:
                rng = np.random.default_rng(derive_seed(seed, "ptr_noise", n_v, p, graph, eps_tot))
                for row in _graph_methods(q, ls, n_v, p, eps_tot, params["draws"], params["reference_delta"], rng):
                    rows.append(
                        {
                            "n_vertices": n_v,
                            "edge_probability": p,
                            "epsilon_total": eps_tot,
                            "graph": graph,
                            "seed": seed,
                            "triangles": q,
                            "local_sensitivity": ls,
                            "n_draws": params["draws"],
                            "adjacency": ADJACENCY,
                            **row,
                        }
                    )
    return pd.DataFrame(rows)


# --------------------------------------------------------------------------------------------------- the audit


def audit_graph_pair() -> tuple[np.ndarray, np.ndarray]:
    """G = K5 minus edge {0, 1} (7 triangles, Δ_Local = 3) and its neighbour G′ = K5 (10 triangles): the edge flip
    that changes the triangle count by the global sensitivity n_v − 2 = 3."""
    g_prime = np.ones((5, 5)) - np.eye(5)
    g = g_prime.copy()
    g[0, 1] = g[1, 0] = 0.0
    return g, g_prime


def _audit_sampler(
    method: str, eps_tot: float
) -> tuple[Callable[[np.ndarray, int, np.random.Generator], np.ndarray], float, float]:
    """(sampler(adjacency, size, rng), bound on pure ε, Laplace scale b) for an audited method on n_v = 5."""
    R = float(math.comb(5, 3))
    eps = eps_tot / 3.0
    params = alg11_parameters(R, eps)

    def alg11(a: np.ndarray, size: int, rng: np.random.Generator) -> np.ndarray:
        return purified_local_sensitivity_release(
            triangle_count(a), triangle_local_sensitivity(a), params, 0.0, size, rng
        )[0]

    def alg10(a: np.ndarray, size: int, rng: np.random.Generator) -> np.ndarray:
        beta = margin_beta(3.0, eps, params.log_delta)  # Δ_Local(G) = Δ_Local(G′) = 3: the test passes w.h.p.
        distance = ptr_distance_lower_bound(triangle_local_sensitivity(a), beta)
        return pure_propose_test_release(
            triangle_count(a), distance, beta, eps, eps, params.log_delta, params.log_omega, 0.0, R, size, rng
        )[0]

    samplers = {"alg11_purified": alg11, "alg10_ptr_purified": alg10}
    return samplers[method], eps_tot, params.laplace_scale


def _sensitivity_check(n_graphs: int, n_vertices: int, seed: int) -> dict[str, Any]:
    """Brute force over all single edge flips of random small graphs (p = 1/2) and the complete graph."""
    rng = np.random.default_rng(derive_seed(seed, "ptr_sensitivity_check"))
    graphs = [random_graph(n_vertices, 0.5, rng) for _ in range(n_graphs)] + [
        np.ones((n_vertices,) * 2) - np.eye(n_vertices)
    ]
    max_ls_change, ls_matches, max_q_change = 0.0, 0, 0.0
    for a in graphs:
        dq, dls = edge_flip_changes(a)
        max_ls_change = max(max_ls_change, float(dls.max()))
        max_q_change = max(max_q_change, float(dq.max()))
        ls_matches += int(dq.max() == triangle_local_sensitivity(a))
    return {
        "kind": "sensitivity_check",
        "method": "bruteforce_edge_flips",
        "n_graphs": len(graphs),
        "check_vertices": n_vertices,
        "max_local_sensitivity_change": max_ls_change,
        "local_sensitivity_matches": ls_matches,
        "max_triangle_change": max_q_change,
        "global_sensitivity": triangle_global_sensitivity(n_vertices),
    }


def ptr_audit(
    params: Mapping[str, Any], seed: int, progress: Callable[[Iterable[Any]], Iterable[Any]] = no_progress
) -> pd.DataFrame:
    """``ext_ptr_audit``: Monte-Carlo lower bounds on the pure ε of purified Algorithms 11 and 10 on the tiny pair
    :func:`audit_graph_pair` (events {x < t}, {x > t} for ``n_thresholds`` thresholds in [−10b, R + 10b], both
    directions, Bonferroni: a (1 − α) lower bound), against the claimed ε_tot = 3ε; plus the brute-force check that
    Δ_Local has global sensitivity ≤ 1 and equals the largest change of the triangle count over edge flips."""
    audit = params["audit"]
    rows = [dict(_sensitivity_check(audit["check_graphs"], audit["check_vertices"], seed), adjacency=ADJACENCY)]
    g, g_prime = audit_graph_pair()
    R = float(math.comb(5, 3))
    for method in ("alg11_purified", "alg10_ptr_purified"):
        sampler, bound, b = _audit_sampler(method, audit["epsilon_total"])
        thresholds = np.linspace(-10 * b, R + 10 * b, audit["n_thresholds"])
        for n_samples in progress(audit["sample_sizes"]):
            rng = np.random.default_rng(derive_seed(seed, "ptr_audit", method, n_samples))
            samples = [sampler(a, int(n_samples), rng) for a in (g, g_prime)]
            lower = pure_epsilon_lower_bound(*samples, thresholds, alpha=audit["alpha"])
            rows.append(
                {
                    "kind": "mc_audit",
                    "method": method,
                    "n_samples": int(n_samples),
                    "epsilon_lb": lower.epsilon_lb,
                    "bound": bound,
                    "epsilon_total": audit["epsilon_total"],
                    "n_events": lower.n_events,
                    "alpha": audit["alpha"],
                    "laplace_scale": b,
                    "triangles_g": triangle_count(g),
                    "triangles_g_prime": triangle_count(g_prime),
                    "adjacency": ADJACENCY,
                }
            )
    return pd.DataFrame(rows)
