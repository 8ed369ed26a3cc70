"""Cross-key rules of the contraction study's configuration (Asoodeh, Diaz, Calmon 2020) that a JSON schema cannot
express: positions within 1..n, Lemma 4's step-size limit lr < 2/(beta_smooth + rho), ordered intervals and
ranges. Each problem names the key, the value and what is allowed; the workflow reports them before any job."""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

__all__ = ["constraints"]


def _positions_problems(section: Mapping[str, Any], where: str, n: int) -> list[str]:
    return [
        f"config key '{where}.positions[{k}]': value {i} is invalid; allowed: 1 <= i <= n = {n}"
        for k, i in enumerate(section.get("positions", []))
        if not 1 <= i <= n
    ]


def _step_size_problems(section: Mapping[str, Any], where: str) -> list[str]:
    """Lemma 4 of Asoodeh et al. (2020): the gradient step is M-Lipschitz only if lr < 2/(beta_smooth + rho).

    Checks ``lr``, or each entry of ``lrs`` when the section sweeps step sizes.
    """
    limit = 2.0 / (section["beta_smooth"] + section.get("rho", 0.0))
    steps = [("lr", section["lr"])] if "lr" in section else [(f"lrs[{k}]", v) for k, v in enumerate(section["lrs"])]
    return [
        f"config key '{where}.{key}': value {lr} is invalid; allowed: lr < 2/(beta_smooth + rho) = {limit:.6g}"
        f" (beta_smooth = {section['beta_smooth']}, rho = {section.get('rho', 0.0)}; Lemma 4)"
        for key, lr in steps
        if lr >= limit
    ]


def _interval_problems(interval: list[float], where: str) -> list[str]:
    if interval[0] < interval[1]:
        return []
    return [f"config key '{where}': value {interval} is invalid; allowed: [a, b] with a < b"]


def constraints(study: Mapping[str, Any]) -> list[str]:
    """The cross-key rules of the ``contraction`` section that its schema cannot express."""
    problems: list[str] = []
    root = "contraction"
    for name, figure in study["figures"].items():
        where = f"{root}.figures.{name}"
        problems += _positions_problems(figure, where, figure["n"]) + _step_size_problems(figure, where)
    laplace = study["laplace"]
    problems += _positions_problems(laplace, f"{root}.laplace", laplace["n"])
    problems += _step_size_problems(laplace, f"{root}.laplace")
    problems += _interval_problems(laplace["interval"], f"{root}.laplace.interval")
    regime = study["regime"]
    problems += _positions_problems(regime, f"{root}.regime", regime["n"])
    problems += _step_size_problems(regime, f"{root}.regime")
    if regime["diameter_min"] >= regime["diameter_max"]:
        problems.append(
            f"config key '{root}.regime.diameter_min': value {regime['diameter_min']} is invalid; "
            f"allowed: < diameter_max = {regime['diameter_max']}"
        )
    audit = study["audit"]
    problems += _positions_problems(audit, f"{root}.audit", audit["n"])
    problems += _step_size_problems(audit, f"{root}.audit")
    for name, cfg in audit["configs"].items():
        problems += _interval_problems(cfg["interval"], f"{root}.audit.configs.{name}.interval")
    known = ", ".join(sorted(audit["configs"]))
    problems += [
        f"config key '{root}.audit.run[{k}]': value {name!r} is invalid; allowed: one of {known}"
        for k, name in enumerate(audit["run"])
        if name not in audit["configs"]
    ]
    mc = audit["monte_carlo"]
    if mc["chunk"] > mc["samples"]:
        problems.append(
            f"config key '{root}.audit.monte_carlo.chunk': value {mc['chunk']} is invalid; "
            f"allowed: <= samples = {mc['samples']}"
        )
    stopping = study["random_stopping"]
    if stopping["config"] not in audit["configs"]:
        problems.append(
            f"config key '{root}.random_stopping.config': value {stopping['config']!r} is invalid; "
            f"allowed: one of {known}"
        )
    elif audit["configs"][stopping["config"]]["noise"] != "gaussian":
        problems.append(
            f"config key '{root}.random_stopping.config': value {stopping['config']!r} is invalid; "
            "allowed: a gaussian configuration (Theorem 5 is stated for Gaussian noise)"
        )
    problems += _positions_problems(stopping, f"{root}.random_stopping", audit["n"])
    utility = study["utility"]
    for noise in utility["noise_types"]:
        data = utility[noise]
        if data["feature_distribution"] == "uniform_interval" and data["d"] != 1:
            problems.append(
                f"config key '{root}.utility.{noise}.d': value {data['d']} is invalid; "
                "allowed: 1 with feature_distribution uniform_interval"
            )
    if "laplace" in utility["noise_types"] and utility["laplace"]["d"] != 1:
        problems.append(
            f"config key '{root}.utility.laplace.d': value {utility['laplace']['d']} is invalid; "
            "allowed: 1 (Theorem 3 is one-dimensional)"
        )
    return problems
