"""Checks of the merged configuration that do not depend on the schema's shape (they walk the dict).

- :func:`nonfinite_problems`: every float that is NaN or +-infinity (JSON schema's ``minimum`` lets NaN through);
- :func:`path_problems`: ``results`` and ``work`` with ``~`` expanded (written back into the config) must not be the
  filesystem root, the home folder, a folder holding the repository, or inside its ``src/``, ``workflow/``,
  ``tests/``;
- :func:`duplicate_key_problems`: a key given twice in one mapping of a YAML file (PyYAML keeps the last silently);
- memory: :func:`dplab.resources.memory_problems`.

Every problem reads ``config key '<key>': value <v> is invalid; allowed: <what>`` like the schema's.
"""

from __future__ import annotations

import math
import os
import re
from collections.abc import Hashable, Iterator, Mapping
from pathlib import Path
from typing import Any

import yaml

__all__ = [
    "PATH_KEYS",
    "PROTECTED_FOLDERS",
    "nonfinite_problems",
    "path_problems",
    "duplicate_key_problems",
    "problem_studies",
    "repository_root",
]

#: Top-level keys naming folders the workflow writes to.
PATH_KEYS = ("results", "work")
#: Folders of the repository that a workflow output must never land in.
PROTECTED_FOLDERS = ("src", "workflow", "tests")


def _leaves(value: Any, key: str = "") -> Iterator[tuple[str, Any]]:
    """(dotted key ``a.b[2].c``, value) of every non-container value under ``value``."""
    if isinstance(value, Mapping):
        for name, child in value.items():
            yield from _leaves(child, f"{key}.{name}" if key else str(name))
    elif isinstance(value, (list, tuple)):
        for index, child in enumerate(value):
            yield from _leaves(child, f"{key}[{index}]")
    else:
        yield key, value


def nonfinite_problems(config: Mapping[str, Any]) -> list[str]:
    """A problem for every float in ``config`` (at any depth, in lists too) that is NaN or +-infinity."""
    return [
        f"config key '{key}': value {value} is invalid; allowed: a finite number"
        for key, value in _leaves(config)
        if isinstance(value, float) and not math.isfinite(value)
    ]


def problem_studies(problems: list[str]) -> set[str]:
    """The top-level keys (studies) named by ``config key '<study>....'`` problems."""
    return {match.group(1) for problem in problems if (match := re.match(r"config key '([^.'\[]+)", problem))}


def repository_root(start: str | Path) -> Path:
    """The nearest folder at or above ``start`` that holds the workflow's ``Snakefile``."""
    start = Path(start).resolve()
    for folder in (start, *start.parents):
        if (folder / "Snakefile").is_file():
            return folder
    raise ValueError(f"start={str(start)!r} is not inside a dplab repository (no Snakefile above it)")


def _path_problem(key: str, value: str, folder: Path, repository: Path) -> str | None:
    """Why ``folder`` (the resolved ``value`` of ``key``) is unsafe to write into, or ``None``."""
    allowed = (
        f"a folder that is not the filesystem root, the home folder, a folder holding the repository "
        f"{repository}, or inside its {', '.join(f + '/' for f in PROTECTED_FOLDERS)}"
    )
    home = Path.home().resolve()
    inside_protected = any(folder.is_relative_to(repository / name) for name in PROTECTED_FOLDERS)
    if folder == Path(folder.anchor) or folder == home or repository.is_relative_to(folder) or inside_protected:
        return f"config key '{key}': value {value!r} is invalid; allowed: {allowed}"
    return None


def path_problems(config: dict[str, Any], repository: str | Path) -> list[str]:
    """Expand ``~`` in ``results`` and ``work`` (writing the expanded value back into ``config``) and report those
    that resolve (relative to the current folder, as Snakemake writes them) to an unsafe folder."""
    repository = Path(repository).resolve()
    problems = []
    for key in PATH_KEYS:
        if not isinstance(config.get(key), str):
            continue  # missing or not a string: the schema reports it
        config[key] = os.path.expanduser(config[key])
        problem = _path_problem(key, config[key], Path(config[key]).resolve(), repository)
        problems += [problem] if problem else []
    return problems


class _DuplicateKeyLoader(yaml.SafeLoader):
    """A SafeLoader that records, for each mapping, every key given more than once with its line."""

    def __init__(self, stream: Any) -> None:
        super().__init__(stream)
        self.duplicates: list[tuple[Any, int, int]] = []  # (key, line of the repeat, line of the first)

    def construct_mapping(self, node: yaml.MappingNode, deep: bool = False) -> dict[Any, Any]:
        first_line: dict[Any, int] = {}
        for key_node, _ in node.value:
            key = self.construct_object(key_node, deep=True)
            line = key_node.start_mark.line + 1
            if not isinstance(key, Hashable):
                continue  # SafeLoader itself refuses an unhashable key, with its line
            if key in first_line:
                self.duplicates.append((key, line, first_line[key]))
            else:
                first_line[key] = line
        return super().construct_mapping(node, deep=deep)


def duplicate_key_problems(path: str | Path) -> list[str]:
    """A problem naming file and line for every key repeated within one mapping of the YAML file at ``path``."""
    with open(path, encoding="utf-8") as handle:
        loader = _DuplicateKeyLoader(handle)
        try:
            loader.get_single_data()
        finally:
            loader.dispose()
    return [
        f"config file '{path}', line {line}: key {key!r} is given twice (first on line {first}); "
        "allowed: each key once per mapping"
        for key, line, first in sorted(loader.duplicates, key=lambda duplicate: duplicate[1])
    ]
