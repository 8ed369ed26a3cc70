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
from dataclasses import dataclass
from typing import Any

import numpy as np
import pandas as pd

from dplab.audit.threshold import pure_epsilon_lower_bound
from dplab.mechanisms.local_sensitivity import (
    Alg11Parameters,
    alg11_parameters,
    audit_graph_pair,
    bounded_local_sensitivity_release,
    common_neighbours,
    global_sensitivity_laplace,
    k5_audit_parameters,
    margin_beta,
    propose_test_release,
    proposed_beta,
    ptr_distance_lower_bound,
    pure_propose_test_release,
    purified_local_sensitivity_release,
    random_graph,
    random_graphs_edge_flip_check,
    release_errors,
    smooth_sensitivity_beta,
    smooth_sensitivity_mechanism,
    triangle_alg10_release,
    triangle_alg11_release,
    triangle_count,
    triangle_global_sensitivity,
    triangle_local_sensitivity,
    triangle_smooth_sensitivity,
)
from dplab.seeding import derive_seed
from dplab.workflow.registry import no_progress

__all__ = ["compute_ptr", "ptr_audit", "PTR_METHODS"]

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


@dataclass(frozen=True)
class _GraphCase:
    """One graph (triangle count q, local sensitivity Δ_Local) at one ε_tot, with every method's parameters:
    Algorithm 11's at ε = ε_tot/3 on the domain [0, R], R = C(n_v, 3), the proposed β, the reference δ, the global
    sensitivity and the NRS07 smooth sensitivity."""

    q: float
    ls: float
    epsilon_total: float
    draws: int
    domain_diameter: float
    epsilon: float
    alg11: Alg11Parameters
    beta: float
    log_delta_reference: float
    global_sensitivity: float
    smooth_beta: float
    smooth_sensitivity: float


def _graph_case(q: float, ls: float, n_v: int, p: float, eps_tot: float, draws: int, delta_ref: float) -> _GraphCase:
    """The parameters of every method on one graph at one ε_tot (budget split of the module docstring)."""
    domain_diameter = float(math.comb(n_v, 3))
    eps = eps_tot / 3.0
    s_beta = smooth_sensitivity_beta(eps_tot)
    return _GraphCase(
        q,
        ls,
        eps_tot,
        draws,
        domain_diameter,
        eps,
        alg11_parameters(domain_diameter, eps),
        proposed_beta(n_v, p),
        math.log(delta_ref),
        triangle_global_sensitivity(n_v),
        s_beta,
        triangle_smooth_sensitivity(ls, n_v, s_beta),
    )


def _privacy(
    epsilon: float,
    epsilon_prime: float = math.nan,
    log_delta: float = math.nan,
    omega: float = math.nan,
    laplace_scale: float = math.nan,
    beta_proposed: float = math.nan,
) -> dict[str, float]:
    """The privacy columns of a row (NaN where a method has no such parameter)."""
    return {
        "epsilon": epsilon,
        "epsilon_prime": epsilon_prime,
        "log_delta": log_delta,
        "omega": omega,
        "laplace_scale": laplace_scale,
        "beta_proposed": beta_proposed,
    }


def _purified_privacy(case: _GraphCase, beta: float = math.nan) -> dict[str, float]:
    """Algorithm 1's parameters at ε = ε′ = ε_tot/3 with Theorem 11's δ and ω."""
    par = case.alg11
    return _privacy(case.epsilon, case.epsilon, par.log_delta, math.exp(par.log_omega), par.laplace_scale, beta)


@dataclass(frozen=True)
class _Release:
    """``draws`` released estimates of one method (NaN or ±∞ where refused) and its privacy columns."""

    method: str
    estimates: np.ndarray
    refused: np.ndarray | None
    privacy: Mapping[str, float]


def _alg11(case: _GraphCase, rng: np.random.Generator) -> list[_Release]:
    """Algorithm 11 purified by Algorithm 1 (3ε-DP, Theorem 5) and its approximate-DP output before purification."""
    q_pure, q_apx = purified_local_sensitivity_release(case.q, case.ls, case.alg11, 0.0, case.draws, rng)
    before = _privacy(case.epsilon, log_delta=case.alg11.log_delta)
    return [
        _Release("alg11_purified", q_pure, None, _purified_privacy(case)),
        _Release("alg11_before_purification", q_apx, None, before),
    ]


def _alg10(case: _GraphCase, rng: np.random.Generator) -> list[_Release]:
    """Algorithm 10 (PTR purified by Algorithm 1, 2ε + ε′-DP) with the proposed β and with the margin β."""
    par = case.alg11
    releases = []
    for suffix, beta in (("", case.beta), ("_margin", margin_beta(case.beta, case.epsilon, par.log_delta))):
        distance = ptr_distance_lower_bound(case.ls, beta)
        theta, refused = pure_propose_test_release(
            case.q,
            distance,
            beta,
            case.epsilon,
            case.epsilon,
            par.log_delta,
            par.log_omega,
            0.0,
            case.domain_diameter,
            case.draws,
            rng,
        )
        releases.append(_Release("alg10_ptr_purified" + suffix, theta, refused, _purified_privacy(case, beta)))
    return releases


def _gs_laplace(case: _GraphCase, rng: np.random.Generator) -> list[_Release]:
    """Laplace(GS/ε_tot) with the global sensitivity GS = n_v − 2."""
    gs, eps_tot = case.global_sensitivity, case.epsilon_total
    estimates = global_sensitivity_laplace(case.q, gs, eps_tot, case.draws, rng)
    return [_Release("gs_laplace", estimates, None, _privacy(eps_tot, laplace_scale=gs / eps_tot))]


def _smooth_sensitivity(case: _GraphCase, rng: np.random.Generator) -> list[_Release]:
    """NRS07's smooth-sensitivity mechanism at ε_tot (noise scale S/β)."""
    estimates = smooth_sensitivity_mechanism(case.q, case.smooth_sensitivity, case.epsilon_total, case.draws, rng)
    scale = case.smooth_sensitivity / case.smooth_beta
    return [_Release("smooth_sensitivity", estimates, None, _privacy(case.epsilon_total, laplace_scale=scale))]


def _alg11_reference(case: _GraphCase, rng: np.random.Generator) -> list[_Release]:
    """Algorithm 11 lines 1–2 at ε = ε_tot/2 and δ_ref ((ε_tot, δ_ref)-DP, not pure)."""
    eps, log_ref = case.epsilon_total / 2.0, case.log_delta_reference
    estimates, _ = bounded_local_sensitivity_release(
        case.q, case.ls, eps, log_ref, 0.0, case.domain_diameter, case.draws, rng
    )
    return [_Release("alg11_reference", estimates, None, _privacy(eps, log_delta=log_ref))]


def _alg9_reference(case: _GraphCase, rng: np.random.Generator) -> list[_Release]:
    """Algorithm 9 (PTR) at ε = ε_tot/2 and δ_ref, with the proposed β and with the margin β (not pure)."""
    eps, log_ref = case.epsilon_total / 2.0, case.log_delta_reference
    releases = []
    for suffix, beta in (("", case.beta), ("_margin", margin_beta(case.beta, eps, log_ref))):
        distance = ptr_distance_lower_bound(case.ls, beta)
        released, refused = propose_test_release(case.q, distance, beta, eps, log_ref, case.draws, rng)
        privacy = _privacy(eps, log_delta=log_ref, beta_proposed=beta)
        releases.append(_Release("alg9_ptr_reference" + suffix, released, refused, privacy))
    return releases


#: The methods of ``ext_ptr`` in the order they draw from a graph's generator (and of the rows); each maps a graph
#: case and the generator to its releases.
RELEASES: dict[str, Callable[[_GraphCase, np.random.Generator], list[_Release]]] = {
    "alg11": _alg11,
    "alg10_ptr": _alg10,
    "gs_laplace": _gs_laplace,
    "smooth_sensitivity": _smooth_sensitivity,
    "alg11_reference": _alg11_reference,
    "alg9_ptr_reference": _alg9_reference,
}


def _release_row(release: _Release, case: _GraphCase) -> dict[str, Any]:
    """A method's row on one graph: refusal rate, errors (:func:`release_errors`) and the parameters of every method."""
    refusal_rate = float(np.mean(release.refused)) if release.refused is not None else 0.0
    return {
        "method": release.method,
        "pure": PTR_METHODS[release.method][0],
        **release.privacy,
        "refusal_rate": refusal_rate,
        "n_released": int(np.sum(np.isfinite(release.estimates))),
        **release_errors(release.estimates, case.q),
        "smooth_sensitivity": case.smooth_sensitivity,
        "log_inv_delta_alg11": case.alg11.log_inv_delta,
        "bound_offset": case.alg11.bound_offset,
        "purification_shift": case.alg11.shift,
        "domain_diameter": case.domain_diameter,
        "global_sensitivity": case.global_sensitivity,
    }


def _graph_methods(
    q: float, ls: float, n_v: int, p: float, eps_tot: float, draws: int, delta_ref: float, rng: np.random.Generator
) -> list[dict[str, Any]]:
    """All methods (:data:`RELEASES`) on one graph at one ε_tot: rows without the graph identifiers."""
    case = _graph_case(q, ls, n_v, p, eps_tot, draws, delta_ref)
    return [_release_row(release, case) for releases in RELEASES.values() for release in releases(case, rng)]


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
                            "job_seed": seed,
                            "triangles": q,
                            "local_sensitivity": ls,
                            "n_draws": params["draws"],
                            "adjacency": ADJACENCY,
                            **row,
                        }
                    )
    return pd.DataFrame(rows)


# --------------------------------------------------------------------------------------------------- the audit


def _audit_sampler(
    method: str, eps_tot: float
) -> tuple[Callable[[np.ndarray, int, np.random.Generator], np.ndarray], float, float]:
    """(sampler(adjacency, size, rng), bound on pure ε, Laplace scale b) for an audited method on n_v = 5."""
    params, beta = k5_audit_parameters(eps_tot)
    samplers = {
        "alg11_purified": lambda a, size, rng: triangle_alg11_release(a, params, size, rng),
        "alg10_ptr_purified": lambda a, size, rng: triangle_alg10_release(a, params, beta, size, rng),
    }
    return samplers[method], eps_tot, params.laplace_scale


def ptr_audit(
    params: Mapping[str, Any], seed: int, progress: Callable[[Iterable[Any]], Iterable[Any]] = no_progress
) -> pd.DataFrame:
    """``ext_ptr_audit``: Monte-Carlo lower bounds on the pure ε of purified Algorithms 11 and 10 on the tiny pair
    :func:`audit_graph_pair` (events {x < t}, {x > t} for ``n_thresholds`` thresholds in [−10b, R + 10b], both
    directions, Bonferroni: a (1 − α) lower bound), against the claimed ε_tot = 3ε; plus the brute-force check that
    Δ_Local has global sensitivity ≤ 1 and equals the largest change of the triangle count over edge flips."""
    audit = params["audit"]
    rng = np.random.default_rng(derive_seed(seed, "ptr_sensitivity_check"))
    check = random_graphs_edge_flip_check(audit["check_graphs"], audit["check_vertices"], rng)
    rows = [dict(check, adjacency=ADJACENCY)]
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
