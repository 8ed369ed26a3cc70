"""Our extensions of Asoodeh, Diaz, Calmon (2020) (hypotheses the paper does not state): whether Theorem 4's advantage
over Proposition 1 survives other domain sizes (``ext_regime``), and whether the amplification of early users is seen
where a learned model is useful (``ext_utility``; the paper runs no learning experiment)."""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

import numpy as np

from dplab.report.claims import Numbers, clearly_less
from dplab.studies.contraction.claims_common import CLAIMS, PAPER, Frames

__all__ = ["AMPLIFICATION_FACTOR"]

#: "Much smaller epsilon" for an early user: the first user's epsilon at most this fraction of the last user's (our
#: threshold; the paper gives none).
AMPLIFICATION_FACTOR = 0.5


@CLAIMS.extension(
    "regime_thm4_vs_prop1",
    source=f"{PAPER}, Sec. IV-D, Figs. 2-3 (both at D_K = 1: D/(eta sigma) = 1 and 1.43 only)",
    statement="Theorem 4's advantage over the RDP baseline of Prop. 1 holds at every domain diameter D, not only at "
    "the figures' D/(eta sigma) ~ 1",
    artifact="ext_regime",
    reads=("ext_regime",),
    rule="holds if Theorem 4's epsilon at the fixed delta never exceeds Prop. 1's on the diameter sweep for any user "
    "shown; fails if it does from some D on for every user with n - i > 0 contraction steps; partial otherwise",
    verdict=lambda n: (
        "holds" if not n["crossing"] else ("fails" if len(n["crossing"]) == n["contracted"] else "partial")
    ),
    evidence=lambda n: (
        f"Theorem 4 certifies a larger epsilon than Prop. 1 from some D on for {len(n['crossing'])} of "
        f"{n['contracted']} users with n - i > 0 (delta = {n['delta']:g}, eta sigma = 1). "
        + "; ".join(
            f"i={i}: Thm 4 worse than Prop. 1 (eps {p:.3f}) from D = {f:.4f}"
            if not np.isnan(f)
            else f"i={i}: Thm 4 never worse on the sweep"
            for i, f, p in n["rows"]
        )
    ),
)
def measure_regime(frames: Frames, config: Mapping[str, Any]) -> Numbers:
    regime = frames["ext_regime"]
    rows = []
    for i, part in regime.groupby("i"):
        prop1 = float(part.loc[part["method"] == "prop1", "epsilon"].iloc[0])
        rows.append((int(i), float(part["thm4_worse_from_diameter"].iloc[0]), prop1))
    crossing = [i for i, f, _ in rows if not np.isnan(f)]
    contracted = sum(i < config["regime"]["n"] for i, _, _ in rows)
    return {"rows": rows, "delta": float(regime["delta"].iloc[0]), "crossing": crossing, "contracted": contracted}


@CLAIMS.extension(
    "utility_privacy_tradeoff",
    source=f"{PAPER}, Sec. I and IV-E (amplification for early users; the paper runs no learning experiment)",
    statement="In a learning task (PNSGD on logistic regression), users processed early get a much smaller epsilon "
    "than the last user at a noise level where the model is useful",
    artifact="ext_utility",
    reads=("ext_utility",),
    rule=f"a cell is amplified when eps_first <= {AMPLIFICATION_FACTOR:g} eps_last (our threshold) and useful when its "
    "mean excess risk is clearly below the trivial predictor's log 2 - min risk (by 2 standard errors); holds if "
    "some Gaussian cell (any cell if the configuration has no Gaussian noise) is both, partial if amplification "
    "appears only where the model is not useful, fails if no cell is amplified",
    verdict=lambda n: "holds" if n["amplified_useful"] else ("partial" if n["amplified"] else "fails"),
    evidence=lambda n: (
        f"Amplified cells: {n['amplified']} of {len(n['cells'])}, of which useful: {n['amplified_useful']} (log 2 - "
        f"min risk = {n['trivial']:.4f}). "
        + "; ".join(
            f"{noise} eta={lr} scale={scale:g}: excess risk {risk:.4f}, eps first/middle/last "
            f"{first:.3g}/{middle:.3g}/{last:.3g}"
            for noise, lr, scale, risk, first, middle, last in n["cells"]
        )
    ),
)
def measure_utility(frames: Frames, config: Mapping[str, Any]) -> Numbers:
    """Cells (Gaussian, noise > 0) where the first user's epsilon is at most :data:`AMPLIFICATION_FACTOR` times the
    last user's, and among them those where the model beats the trivial predictor w = 0 (the logistic loss at w = 0
    being log 2) beyond Monte-Carlo noise (:func:`dplab.report.claims.clearly_less`)."""
    utility = frames["ext_utility"]
    gaussian = utility[(utility["noise"] == "gaussian") & (utility["noise_scale"] > 0)]
    if gaussian.empty:  # a configuration without Gaussian noise: Theorem 3's epsilons of the Laplace cells
        gaussian = utility[utility["noise_scale"] > 0]
    trivial = float(np.log(2.0) - gaussian["min_risk"].iloc[0])
    last = gaussian["epsilon_thm_last"]
    amplified = np.isfinite(last) & (gaussian["epsilon_thm_first"] <= AMPLIFICATION_FACTOR * last)
    useful = [clearly_less(r.excess_risk_mean, r.excess_risk_se, trivial, 0.0) for r in gaussian.itertuples()]
    columns = [
        "noise",
        "lr",
        "noise_scale",
        "excess_risk_mean",
        *(f"epsilon_thm_{u}" for u in ("first", "middle", "last")),
    ]
    return {
        "trivial": trivial,
        "amplified": int(amplified.sum()),
        "amplified_useful": int((amplified & np.array(useful, dtype=bool)).sum()),
        "cells": list(gaussian[columns].itertuples(index=False, name=None)),
    }
