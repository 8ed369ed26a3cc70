"""Validation of the workflow configuration, before any job runs.

Two layers:

1. the JSON schema ``workflow/schemas/config.schema.yaml`` (types, ranges, allowed names, required keys);
2. the constraints a schema cannot express (a position ``i`` must not exceed ``n``; the step size must satisfy
   ``lr < 2/(beta_smooth + rho)`` of Lemma 4 in Asoodeh et al. 2020; an interval needs ``a < b``; names that
   refer to other keys must exist);
3. checks that walk the dict whatever the schema's shape (:mod:`dplab.config_checks`, :mod:`dplab.resources`):
   duplicate keys in the YAML files, NaN and infinities, unsafe ``results``/``work`` folders, and jobs whose
   estimated peak memory exceeds ``resources.max_mem_mb``.

Every problem is reported in one :class:`ConfigError` whose lines each name the key, the value and what is
allowed, so a user fixes all of them in one pass.
"""

from __future__ import annotations

from collections.abc import Iterable, Iterator, Mapping
from pathlib import Path
from typing import Any

import jsonschema
import yaml

from dplab.config_checks import (
    duplicate_key_problems,
    nonfinite_problems,
    path_problems,
    problem_studies,
    repository_root,
)
from dplab.resources import memory_problems

__all__ = ["ConfigError", "load_schema", "schema_problems", "constraint_problems", "validate_config"]


class ConfigError(ValueError):
    """The configuration is invalid; the message lists every problem, one per line."""


def load_schema(path: str | Path) -> dict[str, Any]:
    """Read the YAML-encoded JSON schema at ``path``."""
    with open(path, encoding="utf-8") as handle:
        return yaml.safe_load(handle)


def _key(path: Iterator[Any] | list[Any]) -> str:
    """Format a JSON path as ``a.b[2].c``."""
    text = ""
    for part in path:
        text += f"[{part}]" if isinstance(part, int) else (f".{part}" if text else str(part))
    return text or "<top level>"


def _allowed(error: jsonschema.ValidationError) -> str:
    """A short statement of what the schema allows for the failing keyword."""
    schema = error.schema if isinstance(error.schema, Mapping) else {}
    keyword, bound = error.validator, error.validator_value
    statements = {
        "minimum": f">= {bound}",
        "maximum": f"<= {bound}",
        "exclusiveMinimum": f"> {bound}",
        "exclusiveMaximum": f"< {bound}",
        "enum": "one of " + ", ".join(map(str, bound)) if isinstance(bound, list) else "",
        "type": f"of type {bound}",
        "required": "required keys: " + ", ".join(map(str, bound)) if isinstance(bound, list) else "",
        "additionalProperties": "known keys: " + ", ".join(sorted(schema.get("properties", {}))),
        "minItems": f"at least {bound} items",
        "maxItems": f"at most {bound} items",
        "uniqueItems": "no repeated items",
        "pattern": f"matching {bound}",
    }
    return statements.get(keyword, str(bound))


def schema_problems(config: Mapping[str, Any], schema: Mapping[str, Any]) -> list[str]:
    """Every schema violation of ``config`` as ``config key 'k': <what is wrong>; allowed: <what is allowed>``."""
    validator = jsonschema.Draft202012Validator(schema)
    problems = []
    for error in sorted(validator.iter_errors(config), key=lambda e: list(map(str, e.absolute_path))):
        if error.validator == "$ref":
            continue
        problems.append(
            f"config key '{_key(list(error.absolute_path))}': {error.message}; allowed: {_allowed(error)}"
        )
    return problems


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


def _contraction_problems(study: Mapping[str, Any]) -> list[str]:
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


def constraint_problems(config: Mapping[str, Any]) -> list[str]:
    """Constraints across keys that the schema cannot express (assumes the schema holds)."""
    return _contraction_problems(config["contraction"])


def registered_study_problems(config: Mapping[str, Any]) -> list[str]:
    """Schema and constraint problems of each study listed in ``config['studies']`` (dplab.studies registry)."""
    from dplab.studies.registry import load_study

    problems: list[str] = []
    for name in config.get("studies", []):
        study = load_study(name)
        if name not in config:
            problems.append(f"config key '{name}': missing; allowed: the mapping described by dplab.studies.{name}")
            continue
        found = [p.replace("config key '", f"config key '{name}.", 1).replace(f"'{name}.<top level>'", f"'{name}'")
                 for p in schema_problems(config[name], study.schema)]
        problems += found or study.constraints(config[name])
    return problems


def validate_config(config: dict[str, Any], schema_path: str | Path, configfiles: Iterable[str | Path] = ()) -> None:
    """Raise :class:`ConfigError` listing every problem of ``config``; return silently when it is valid.

    Besides the schema and the cross-key constraints, reports duplicate keys in ``configfiles``, non-finite
    numbers, unsafe ``results``/``work`` folders (``~`` is expanded in ``config``) and jobs whose estimated memory
    exceeds ``resources.max_mem_mb`` (:mod:`dplab.config_checks`, :mod:`dplab.resources`).
    """
    nonfinite = nonfinite_problems(config)
    problems = [problem for path in configfiles for problem in duplicate_key_problems(path)]
    problems += path_problems(config, repository_root(schema_path)) + nonfinite
    schema = schema_problems(config, load_schema(schema_path))
    problems += schema
    if not schema:  # cross-key rules and estimates assume types hold: run them on the studies with finite numbers
        infinite = problem_studies(nonfinite)
        finite = {**config, "studies": [name for name in config.get("studies", []) if name not in infinite]}
        rules = ([] if "contraction" in infinite else constraint_problems(config)) + registered_study_problems(finite)
        problems += rules + memory_problems(finite, skip=problem_studies(rules) | infinite)
    if problems:
        raise ConfigError("invalid configuration:\n  " + "\n  ".join(problems))
