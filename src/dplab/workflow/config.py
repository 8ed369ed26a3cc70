"""Validation of the workflow configuration, before any job runs.

Three steps, one validator for all four studies:

1. defaults: every key missing from the configuration is filled in from the ``default`` of its schema (the
   equivalent of Snakemake's ``validate(config, schema, set_default=True)``), so a ``--configfile`` may give only
   the keys it changes; then every integer key given as an exactly integral float (``60.0``, ``1.0e+6``) becomes
   that ``int``, so the jobs, their parameters and file names are those of the integer spelling (JSON Schema counts
   ``60.0`` as an integer; a fractional ``60.5`` is refused by the schema);
2. the JSON schemas ``workflow/schemas/config.schema.yaml`` (top level) and ``workflow/schemas/<study>.schema.yaml``
   (one per study, referenced from the top level): types, ranges, allowed names, required keys;
3. the constraints a schema cannot express (a position ``i`` must not exceed ``n``; the step size must satisfy
   ``lr < 2/(beta_smooth + rho)`` of Lemma 4 in Asoodeh et al. 2020; an interval needs ``a < b``; names that
   refer to other keys must exist);
4. checks that walk the dict whatever the schema's shape (:mod:`dplab.workflow.config_checks`, :mod:`dplab.workflow.resources`):
   config files that cannot be read, are not a mapping or repeat a key, NaN and infinities, ``results``/``work``
   folders that are unsafe or cannot be written, and jobs whose estimated peak memory exceeds
   ``resources.max_mem_mb``.

Every problem is reported in one :class:`ConfigError` whose lines each name the key, the value and what is
allowed (with the schema's ``limit_reason`` when a limit is exceeded), so a user fixes all of them in one pass.
"""

from __future__ import annotations

import copy
from collections.abc import Iterable, Iterator, Mapping, MutableMapping
from pathlib import Path
from typing import TYPE_CHECKING, Any

import yaml

from dplab.workflow.config_checks import (
    config_file_problems,
    nonfinite_problems,
    path_problems,
    problem_studies,
    repository_root,
)
from dplab.workflow.resources import memory_problems

if TYPE_CHECKING:  # jsonschema is imported by the checks that use it: jobs import this module's light helpers only
    import jsonschema
    from referencing import Registry

__all__ = [
    "ConfigError",
    "REPOSITORY",
    "SCHEMA_DIR",
    "TOP_SCHEMA",
    "load_schema",
    "load_schemas",
    "study_schema",
    "resolve",
    "fill_defaults",
    "EXACT_FLOAT_INTEGERS",
    "integers_from_integral_floats",
    "merge_config",
    "load_config",
    "schema_problems",
    "validate_config",
]

REPOSITORY = Path(__file__).resolve().parents[3]
SCHEMA_DIR = REPOSITORY / "workflow" / "schemas"
TOP_SCHEMA = "config.schema.yaml"


class ConfigError(ValueError):
    """The configuration is invalid; the message lists every problem, one per line."""


def _read_yaml(path: str | Path) -> Any:
    """A YAML file, with libyaml's safe parser where PyYAML has it (the same documents, 9x faster than the
    pure-Python one: every Snakemake parse reads the five schemas)."""
    with open(path, encoding="utf-8") as handle:
        return yaml.load(handle, Loader=getattr(yaml, "CSafeLoader", yaml.SafeLoader))  # noqa: S506 - a safe loader


def load_schema(path: str | Path) -> dict[str, Any]:
    """Read the YAML-encoded JSON schema at ``path``."""
    return _read_yaml(path)


def load_schemas(folder: str | Path = SCHEMA_DIR) -> dict[str, dict[str, Any]]:
    """Every ``*.schema.yaml`` in ``folder``, keyed by file name (the ``$ref`` target of the top-level schema)."""
    return {path.name: load_schema(path) for path in sorted(Path(folder).glob("*.schema.yaml"))}


def study_schema(name: str) -> dict[str, Any]:
    """The JSON schema of ``config[name]``: ``workflow/schemas/<name>.schema.yaml``."""
    return load_schema(SCHEMA_DIR / f"{name}.schema.yaml")


def resolve(schema: Mapping[str, Any], schemas: Mapping[str, Mapping[str, Any]]) -> Mapping[str, Any]:
    """Follow a ``$ref`` to another schema file of ``schemas`` (``{"$ref": "purification.schema.yaml"}``)."""
    while "$ref" in schema:
        schema = schemas[schema["$ref"]]
    return schema


def _is_section(schema: Mapping[str, Any]) -> bool:
    """A mapping whose keys the schema lists (a section), as opposed to a leaf key that holds a value."""
    return schema.get("type") == "object" and "properties" in schema


def fill_defaults(
    config: MutableMapping[str, Any], schema: Mapping[str, Any], schemas: Mapping[str, Mapping[str, Any]]
) -> None:
    """Fill in, in place, every key missing from ``config`` with its schema ``default`` (a copy).

    A missing section becomes a mapping filled from its keys' defaults; a key that holds something other than a
    mapping where a section is expected is left for the schema check to report.
    """
    for key, sub in resolve(schema, schemas).get("properties", {}).items():
        sub = resolve(sub, schemas)
        if _is_section(sub):
            section = config.setdefault(key, {})
            if isinstance(section, MutableMapping):
                fill_defaults(section, sub, schemas)
        elif key not in config and "default" in sub:
            config[key] = copy.deepcopy(sub["default"])


#: float64 holds every integer up to 2^53 exactly; a float beyond it is left as written (a schema maximum refuses it:
#: every integer key's maximum is below it), so that a message shows ``1e+300``, not its 301 digits.
EXACT_FLOAT_INTEGERS = 2**53


def _accepts(schema: Mapping[str, Any], kind: str) -> bool:
    types = schema.get("type", [])
    return kind in (types if isinstance(types, list) else [types])


def integers_from_integral_floats(
    value: Any, schema: Mapping[str, Any], schemas: Mapping[str, Mapping[str, Any]]
) -> Any:
    """``value`` (a configuration or a part of it) with every value of an integer key (``type: integer``) given as
    an exactly integral float (``60.0``, ``1.0e+6``; at most :data:`EXACT_FLOAT_INTEGERS` in magnitude) replaced by
    that ``int``, mappings and lists in place, so that everything downstream (the DAG, params, file names, results)
    is that of the integer spelling. JSON Schema defines an integer by value, so ``60.0`` passes its ``integer``
    type; left a float, it would reach ``range()`` or numpy inside a job. Fractional, infinite and NaN floats are left
    as they are, for the schema and the finiteness check to refuse."""
    schema = resolve(schema, schemas)
    integral = isinstance(value, float) and value.is_integer() and abs(value) <= EXACT_FLOAT_INTEGERS
    if integral and _accepts(schema, "integer"):
        return int(value)
    if isinstance(value, MutableMapping):
        extra = schema.get("additionalProperties")
        for key, child in value.items():
            sub = schema.get("properties", {}).get(key, extra)
            if isinstance(sub, Mapping):
                value[key] = integers_from_integral_floats(child, sub, schemas)
    elif isinstance(value, list) and isinstance(schema.get("items"), Mapping):
        value[:] = [integers_from_integral_floats(item, schema["items"], schemas) for item in value]
    return value


def merge_config(base: MutableMapping[str, Any], override: Mapping[str, Any]) -> None:
    """Merge ``override`` into ``base`` in place as Snakemake merges a ``--configfile``: mappings key by key,
    everything else (lists included) replaced whole."""
    for key, value in override.items():
        if isinstance(value, Mapping) and isinstance(base.get(key), MutableMapping):
            merge_config(base[key], value)
        else:
            base[key] = copy.deepcopy(value)


def load_config(*configfiles: str | Path) -> dict[str, Any]:
    """The repository's ``config.yaml`` with each of ``configfiles`` (relative to the repository) merged over it, as
    ``snakemake --configfile a.yaml b.yaml`` sees it before validation; ``load_config("config.quick.yaml")`` is the
    quick configuration."""
    config = _read_yaml(REPOSITORY / "config.yaml")
    for name in configfiles:
        merge_config(config, _read_yaml(REPOSITORY / name))
    return config


def _registry(schemas: Mapping[str, Mapping[str, Any]]) -> Registry:
    from referencing import Registry, Resource

    return Registry().with_resources((name, Resource.from_contents(schema)) for name, schema in schemas.items())


def _key(path: Iterator[Any] | list[Any]) -> str:
    """Format a JSON path as ``a.b[2].c``."""
    text = ""
    for part in path:
        text += f"[{part}]" if isinstance(part, int) else (f".{part}" if text else str(part))
    return text or "<top level>"


#: Keywords whose violation is a limit of the value: the message adds the key's ``limit_reason``.
_LIMITS = ("maximum", "exclusiveMaximum", "maxItems", "pattern")


def _schemas_along(
    schema: Mapping[str, Any], schemas: Mapping[str, Mapping[str, Any]], path: list[Any]
) -> list[Mapping[str, Any]]:
    """The schemas of each prefix of the instance ``path`` (the root first), as far as the schema describes it."""
    along = [resolve(schema, schemas)]
    for part in path:
        current = along[-1]
        if isinstance(part, int):
            sub = current.get("items")
        else:
            sub = current.get("properties", {}).get(part, current.get("additionalProperties"))
        if not isinstance(sub, Mapping):
            break
        along.append(resolve(sub, schemas))
    return along


def _limit_reason(along: list[Mapping[str, Any]], path: list[Any]) -> str:
    """The ``limit_reason`` of the key at ``path`` (of the list when ``path`` ends at one of its items)."""
    candidates = along[-1:] + (along[-2:-1] if path and isinstance(path[-1], int) else [])
    return next((schema["limit_reason"] for schema in candidates if "limit_reason" in schema), "")


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
        "contains": f"a list holding {bound.get('const')!r}" if isinstance(bound, Mapping) else "",
    }
    allowed = statements.get(keyword, str(bound))
    if keyword == "type" and bound == "boolean" and str(error.instance).lower() in ("true", "false"):
        key = ".".join(map(str, error.absolute_path))
        allowed += f" (Snakemake's --config reads only True and False as booleans: {key}=False)"
    return allowed


def schema_problems(
    config: Mapping[str, Any], schema: Mapping[str, Any], schemas: Mapping[str, Mapping[str, Any]] | None = None
) -> list[str]:
    """Every schema violation of ``config`` as ``config key 'k': <what is wrong>; allowed: <what is allowed>``.

    ``schemas`` holds the schema files ``schema`` refers to by ``$ref`` (see :func:`load_schemas`).
    """
    import jsonschema

    schemas = schemas or {}
    validator = jsonschema.Draft202012Validator(schema, registry=_registry(schemas))
    problems = []
    for error in sorted(validator.iter_errors(config), key=lambda e: list(map(str, e.absolute_path))):
        if error.validator == "$ref":
            continue
        path = list(error.absolute_path)
        reason = _limit_reason(_schemas_along(schema, schemas, path), path) if error.validator in _LIMITS else ""
        allowed = _allowed(error) + (f" ({reason})" if reason else "")
        problems.append(f"config key '{_key(path)}': {error.message}; allowed: {allowed}")
    return problems


def registered_study_problems(config: Mapping[str, Any]) -> list[str]:
    """Cross-key problems of each study listed in ``config['studies']`` (its ``constraints`` in dplab.studies)."""
    from dplab.workflow.registry import load_study

    return [problem for name in config.get("studies", []) for problem in load_study(name).constraints(config[name])]


def validate_config(
    config: MutableMapping[str, Any], schema_path: str | Path, configfiles: Iterable[str | Path] = ()
) -> None:
    """Fill in defaults and turn integral floats of integer keys into ``int``, then raise :class:`ConfigError`
    listing every problem of ``config``; silent when valid.

    ``schema_path`` is the top-level schema; the study schemas it refers to are read from the same folder. The
    configuration is completed in place, so the workflow sees every key with its default and every integer as an
    ``int`` (:func:`integers_from_integral_floats`). Besides the schema and the cross-key constraints, reports
    problems of the ``configfiles`` (unreadable, not a mapping, a key given twice), non-finite numbers,
    ``results``/``work`` folders that are unsafe or cannot be written (``~`` is expanded in ``config``) and jobs whose
    estimated memory exceeds ``resources.max_mem_mb`` (:mod:`dplab.workflow.config_checks`, :mod:`dplab.workflow.resources`).
    """
    if not isinstance(config, MutableMapping):
        raise ConfigError(
            f"invalid configuration:\n  config: value {config!r} is invalid; allowed: a mapping of keys (key: value)"
        )
    schema_path = Path(schema_path)
    schemas = load_schemas(schema_path.parent)
    schema = schemas[schema_path.name]
    fill_defaults(config, schema, schemas)
    integers_from_integral_floats(config, schema, schemas)
    nonfinite = nonfinite_problems(config)
    problems = [problem for path in configfiles for problem in config_file_problems(path)]
    problems += path_problems(config, repository_root(schema_path)) + nonfinite
    schema_errors = schema_problems(config, schema, schemas)
    problems += schema_errors
    if (
        not schema_errors
    ):  # cross-key rules and estimates assume types hold: run them on the studies with finite numbers
        infinite = problem_studies(nonfinite)
        finite = {**config, "studies": [name for name in config.get("studies", []) if name not in infinite]}
        rules = registered_study_problems(finite)
        problems += rules + memory_problems(finite, skip=problem_studies(rules) | infinite)
    if problems:
        raise ConfigError("invalid configuration:\n  " + "\n  ".join(problems))
