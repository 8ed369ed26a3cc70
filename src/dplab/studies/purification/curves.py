"""The paper's figures and tables as tidy frames: Figure 1 (Laplace vs analytic Gaussian variance), Figure 2
(Example 8), Figure 3 (trade-off functions), Figure 4 (the proof flowchart, as a node/edge table), Tables 1 and 2."""

from __future__ import annotations

import math
from collections.abc import Mapping
from typing import Any

import numpy as np
import pandas as pd

from dplab.mechanisms.gaussian import histogram_noise_variances
from dplab.mechanisms.purification import theorem2_success_at_threshold
from dplab.theory.purification import (
    example8_quantile_1d,
    example8_quantities,
    example8_sample_points,
    table1_rates,
    table2_rates,
    tradeoff_crossing_alpha,
    tradeoff_function,
    w_inf_1d,
)

__all__ = [
    "variance_curves",
    "example8_samples",
    "tradeoff_curves",
    "flowchart_table",
    "table1",
    "table2",
    "theorem2_utility",
]


def variance_curves(params: Mapping[str, Any], seed: int = 0, progress=None) -> pd.DataFrame:
    """Figure 1: per-coordinate variance of the Laplace mechanism, 2(Δ₁/ε)² (pure ε-DP, flat in δ), and of the
    analytic Gaussian mechanism, σ(ε, δ)² (Balle–Wang 2018), on a log grid of δ.  Columns ``delta, mechanism,
    variance``; the mechanism name carries the adjacency (``laplace``/``analytic_gaussian`` for add/remove,
    ``..._replace_one`` otherwise)."""
    eps = float(params["epsilon"])
    deltas = np.geomspace(params["delta_min"], params["delta_max"], params["n_delta"])
    frames = []
    for adjacency in params["adjacencies"]:
        variances = histogram_noise_variances(eps, deltas, adjacency)
        suffix = "" if adjacency == "add_remove" else f"_{adjacency}"
        for mechanism, variance in variances.items():
            frames.append(pd.DataFrame({"delta": deltas, "mechanism": f"{mechanism}{suffix}", "variance": variance}))
    return pd.concat(frames, ignore_index=True)


def example8_samples(params: Mapping[str, Any], seed: int, progress=None) -> pd.DataFrame:
    """Figure 2 (Example 8 in (ℝ², ℓ2)): samples of ν = Unif(unit disk) and μ = Δ̃²δ0 + (1 − Δ̃²)Unif(annulus
    Δ̃ ≤ ‖x‖ ≤ 1), with d_TV, W∞ and Lemma 6's bounds as columns, and the 1-D W∞ computed from quantile functions."""
    dt = float(params["delta_tilde"])
    nu, mu = example8_sample_points(dt, int(params["n_samples"]), np.random.default_rng(seed))
    frame = pd.concat(
        [
            pd.DataFrame({"measure": "nu", "x1": nu[:, 0], "x2": nu[:, 1]}),
            pd.DataFrame({"measure": "mu", "x1": mu[:, 0], "x2": mu[:, 1]}),
        ],
        ignore_index=True,
    )
    for key, value in example8_quantities(dt, 2).items():
        frame[key] = value
    frame["delta_tilde"] = dt
    frame["w_inf_1d_numeric"] = w_inf_1d(example8_quantile_1d(dt), lambda t: 2 * t - 1, params["n_levels_1d"])
    return frame


def tradeoff_curves(params: Mapping[str, Any], seed: int = 0, progress=None) -> pd.DataFrame:
    """Figure 3 (Appendix B): f_{ε,δ}, f_{ε,0} and f_{ε+ε′,0} on α ∈ [0, 1], the diagonal 1 − α, and the α where
    f_{ε,δ} and f_{ε+ε′,0} cross (so Appendix B's pointwise dominance is an erratum).  Columns ``alpha, curve, epsilon,
    delta, beta, crossing_alpha``."""
    eps, delta, eps_prime = float(params["epsilon"]), float(params["delta"]), float(params["epsilon_prime"])
    alpha = np.linspace(0.0, 1.0, params["n_alpha"])
    crossing = tradeoff_crossing_alpha(eps, delta, eps_prime)
    alpha = np.unique(np.concatenate([alpha, [crossing]]))
    frames = [
        pd.DataFrame(
            {"alpha": alpha, "curve": name, "epsilon": e, "delta": dl, "beta": tradeoff_function(alpha, e, dl)}
        )
        for name, e, dl in (
            ("eps_delta", eps, delta),
            ("eps_0", eps, 0.0),
            ("eps_plus_eps_prime_0", eps + eps_prime, 0.0),
        )
    ]
    frames.append(
        pd.DataFrame({"alpha": alpha, "curve": "no_privacy", "epsilon": np.nan, "delta": np.nan, "beta": 1.0 - alpha})
    )
    frame = pd.concat(frames, ignore_index=True)
    frame["crossing_alpha"] = crossing
    return frame


_NODES = (
    ("m_d", "$\\mathcal{M}(D)$", 0, 2),
    ("p", "$P$", 1, 2),
    ("p_prime", "$P'$", 2, 2),
    ("m_d_prime", "$\\mathcal{M}(D')$", 3, 2),
    ("u_m_d", "$\\mathcal{U}(\\mathcal{M}(D))$", 0, 1),
    ("u_p", "$\\mathcal{U}(P)$", 1, 1),
    ("u_p_prime", "$\\mathcal{U}(P')$", 2, 1),
    ("u_m_d_prime", "$\\mathcal{U}(\\mathcal{M}(D'))$", 3, 1),
    ("l_m_d", "$\\mathcal{A}_{pure}(\\mathcal{M}(D))$", 0, 0),
    ("l_p", "$\\mathcal{U}(P) \\circledast Lap$", 1, 0),
    ("l_p_prime", "$\\mathcal{U}(P') \\circledast Lap$", 2, 0),
    ("l_m_d_prime", "$\\mathcal{A}_{pure}(\\mathcal{M}(D'))$", 3, 0),
)
_EDGES = (
    ("m_d", "p", "$d_{TV} < \\delta/(e^\\varepsilon+1)$ (Lemma 14)"),
    ("p", "p_prime", "$D_\\infty \\leq \\varepsilon$ (Lemma 14)"),
    ("p_prime", "m_d_prime", "$d_{TV} < \\delta/(e^\\varepsilon+1)$ (Lemma 14)"),
    ("u_m_d", "u_p", "$W_\\infty^{\\ell_1} \\leq \\Delta$ (Lemma 6)"),
    ("u_p", "u_p_prime", "$D_\\infty \\leq \\varepsilon$ (post-proc.)"),
    ("u_p_prime", "u_m_d_prime", "$W_\\infty^{\\ell_1} \\leq \\Delta$ (Lemma 6)"),
    ("l_m_d", "l_p", "$D_\\infty \\leq \\varepsilon'/2$ (Lemma 15)"),
    ("l_p", "l_p_prime", "$D_\\infty \\leq \\varepsilon$"),
    ("l_p_prime", "l_m_d_prime", "$D_\\infty \\leq \\varepsilon'/2$ (Lemma 15)"),
    ("l_m_d", "l_m_d_prime", "$D_\\infty \\leq \\varepsilon + \\varepsilon'$ (Lemma 16, weak triangle inequality)"),
    *(
        (f"{a}", f"u_{a}", "$(1-\\omega)\\cdot + \\omega\\,\\mathrm{Unif}(\\Theta)$")
        for a in ("m_d", "p", "p_prime", "m_d_prime")
    ),
    *(
        (f"u_{a}", f"l_{a}", "$\\circledast\\,\\mathrm{Lap}^{\\otimes d}(2\\Delta/\\varepsilon')$")
        for a in ("m_d", "p", "p_prime", "m_d_prime")
    ),
)


def flowchart_table(params: Mapping[str, Any], seed: int = 0, progress=None) -> pd.DataFrame:
    """Figure 4 as data: one row per node (``kind=node``: id, label, x, y) and per edge (``kind=edge``: source,
    target, label) of the proof of Theorem 1 (Lemma 14 → mixing → Lemma 6 → Lemma 15 → Lemma 16)."""
    nodes = [
        {"kind": "node", "node_id": i, "label": lab, "x": float(x), "y": float(y), "source": "", "target": ""}
        for i, lab, x, y in _NODES
    ]
    edges = [
        {"kind": "edge", "node_id": f"{s}->{t}", "label": lab, "x": np.nan, "y": np.nan, "source": s, "target": t}
        for s, t, lab in _EDGES
    ]
    return pd.DataFrame(nodes + edges)


def table1(params: Mapping[str, Any], seed: int = 0, progress=None) -> pd.DataFrame:
    """Table 1 (rates before/after purification) with both rates evaluated at the stated point."""
    rows = table1_rates(
        params["n"],
        params["d"],
        params["epsilon"],
        -math.log(params["delta"]),
        params["lam"],
        params["k"],
        params["universe_bits"] * math.log(2.0),
        params["local_sensitivity"],
    )
    frame = pd.DataFrame(rows)
    for key in ("n", "d", "epsilon", "delta", "lam", "k", "universe_bits", "local_sensitivity"):
        frame[key] = params[key]
    frame["ratio_after_before"] = frame["after_value"] / frame["before_value"]
    return frame


def table2(params: Mapping[str, Any], seed: int = 0, progress=None) -> pd.DataFrame:
    """Table 2 (pure-DP ERM: utility and runtime rates, C = L = 1) evaluated at the stated (n, d, ε)."""
    frame = pd.DataFrame(table2_rates(params["n"], params["d"], params["epsilon"]))
    for key in ("n", "d", "epsilon"):
        frame[key] = params[key]
    return frame


def theorem2_utility(params: Mapping[str, Any], seed: int = 0, progress=None) -> pd.DataFrame:
    """Theorem 2's utility: the exact probability that Algorithm 2 returns its input, the same for every input code
    (:func:`~dplab.mechanisms.purification.purify_discrete_transition_probability` at Hamming distance 0), at δ on
    Theorem 2's threshold ε^d/(2d)^{3d} (the largest δ it allows), for the corrected cube geometry and the paper's ℓ1
    geometry, against the bound 1 − 2^{−d} − (d/2)e^{−d}.  Columns ``d, epsilon, log_delta, success_exact,
    success_exact_paper_geometry, bound, margin``."""
    rows = [
        theorem2_success_at_threshold(d, eps)
        for d in range(1, int(params["max_bits"]) + 1)
        for eps in params["epsilons"]
    ]
    frame = pd.DataFrame(rows)
    return frame.assign(margin=frame["success_exact"] - frame["bound"])
