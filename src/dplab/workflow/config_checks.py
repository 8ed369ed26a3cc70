"""Checks of the merged configuration that do not depend on the schema's shape (they walk the dict).

- :func:`nonfinite_problems`: every float that is NaN or +-infinity (JSON schema's ``minimum`` lets NaN through);
- :func:`path_problems`: ``results`` and ``work`` with ``~`` expanded (written back into the config) must name a
  folder the workflow can create or write into (not an existing file, not a path through one, not a folder this user
  may not write), and not the filesystem root, the home folder, a folder holding the repository, or inside its
  ``src/``, ``workflow/``, ``tests/``;
- :func:`config_file_problems`: a config file that cannot be read, is not YAML or JSON, is not a mapping at its top
  level, or gives a key twice in one mapping (PyYAML keeps the last silently); anchors, aliases and merge keys
  (``<<: *base``) are read as Snakemake reads them;
- memory: :func:`dplab.workflow.resources.memory_problems`.

Every problem reads ``config key '<key>': value <v> is invalid; allowed: <what>`` like the schema's (``config file
'<path>'[, line <n>]: <what>; allowed: <what>`` for a file).
"""

from __future__ import annotations

import json
import math
import os
import re
from collections.abc import Iterator, Mapping
from pathlib import Path
from typing import Any

import yaml

__all__ = [
    "PATH_KEYS",
    "PROTECTED_FOLDERS",
    "nonfinite_problems",
    "path_problems",
    "config_file_problems",
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


def _unsafe_folder(folder: Path, repository: Path) -> bool:
    """Whether ``folder`` is the filesystem root, the home folder, a folder holding ``repository`` or inside one of
    its :data:`PROTECTED_FOLDERS`."""
    home = Path.home().resolve()
    inside_protected = any(folder.is_relative_to(repository / name) for name in PROTECTED_FOLDERS)
    return folder == Path(folder.anchor) or folder == home or repository.is_relative_to(folder) or inside_protected


def _existing_ancestor(folder: Path) -> Path:
    """``folder`` itself when it exists, else its nearest existing parent that this user can see (``os.path.exists``
    is false, not an error, below a folder this user may not read; the root always exists)."""
    return next(path for path in (folder, *folder.parents) if os.path.exists(path))


def _unwritable_reason(folder: Path) -> str | None:
    """Why the workflow could not create or write into ``folder``, or ``None``: the folder (or the nearest part of
    its path that exists) is a file, or this user may not write into it."""
    existing = _existing_ancestor(folder)
    if not existing.is_dir():
        return f"{existing} is a file, not a folder"
    if not os.access(existing, os.W_OK | os.X_OK):
        return f"this user may not write into {existing}"
    return None


def _path_problem(key: str, value: str, folder: Path, repository: Path) -> str | None:
    """Why ``folder`` (the resolved ``value`` of ``key``) cannot or must not be written into, or ``None``."""
    allowed = (
        f"a folder that this user can create or write into, and that is not the filesystem root, the home folder, "
        f"a folder holding the repository {repository}, or inside its {', '.join(f + '/' for f in PROTECTED_FOLDERS)}"
    )
    if _unsafe_folder(folder, repository):
        return f"config key '{key}': value {value!r} is invalid; allowed: {allowed}"
    reason = _unwritable_reason(folder)
    if reason:
        return f"config key '{key}': value {value!r} is invalid ({reason}); allowed: {allowed}"
    return None


def path_problems(config: dict[str, Any], repository: str | Path) -> list[str]:
    """Expand ``~`` in ``results`` and ``work`` (writing the expanded value back into ``config``) and report those
    that resolve (relative to the current folder, as Snakemake writes them) to an unsafe folder, or to one the
    workflow could not create or write: an existing file (or a path through one), a folder this user may not write."""
    repository = Path(repository).resolve()
    problems = []
    for key in PATH_KEYS:
        if not isinstance(config.get(key), str) or not config[key]:
            continue  # missing, empty or not a string: the schema reports it
        config[key] = os.path.expanduser(config[key])
        problem = _path_problem(key, config[key], Path(config[key]).resolve(), repository)
        problems += [problem] if problem else []
    return problems


_MERGE_TAG = "tag:yaml.org,2002:merge"


def _mapping_nodes(node: yaml.Node | None) -> Iterator[yaml.MappingNode]:
    """Every mapping node of a composed YAML document once, depth first (an alias is the node of its anchor)."""
    seen: set[int] = set()
    stack = [node] if node is not None else []
    while stack:
        node = stack.pop()
        if id(node) in seen:
            continue
        seen.add(id(node))
        if isinstance(node, yaml.MappingNode):
            yield node
            stack += [child for pair in reversed(node.value) for child in reversed(pair)]
        elif isinstance(node, yaml.SequenceNode):
            stack += reversed(node.value)


def _yaml_duplicates(loader: yaml.FullLoader, root: yaml.Node | None) -> list[tuple[Any, int | None, int | None]]:
    """(key, line of the repeat, line of the first) of every key given twice among the explicit keys of one mapping.

    Merge keys (``<<: *base``) are not keys of the mapping: the keys they bring in may be overridden, as YAML's merge
    defines; a merged mapping is checked as a mapping of its own (it is a node of the document).
    """
    duplicates = []
    for node in _mapping_nodes(root):
        first_line: dict[Any, int] = {}
        for key_node, _ in node.value:
            if key_node.tag == _MERGE_TAG or not isinstance(key_node, yaml.ScalarNode):
                continue  # a complex key is unhashable: the loader refuses it, with its line
            key = loader.construct_object(key_node, deep=True)
            line = key_node.start_mark.line + 1
            if key in first_line:
                duplicates.append((key, line, first_line[key]))
            else:
                first_line[key] = line
    return duplicates


def _json_duplicates(text: str) -> tuple[Any, list[tuple[Any, int | None, int | None]]]:
    """The JSON document in ``text`` and every key given twice in one of its objects (JSON has no line marks here);
    raises ``ValueError`` when ``text`` is not JSON."""
    duplicates: list[tuple[Any, int | None, int | None]] = []

    def pairs(items: list[tuple[str, Any]]) -> dict[str, Any]:
        keys = [key for key, _ in items]
        duplicates.extend((key, None, None) for index, key in enumerate(keys) if key in keys[:index])
        return dict(items)

    return json.loads(text, object_pairs_hook=pairs), duplicates


def _load_with_duplicates(text: str) -> tuple[Any, list[tuple[Any, int | None, int | None]]]:
    """The document in ``text`` read as Snakemake reads a config file (JSON first, then YAML with PyYAML's
    ``FullLoader``, as ``yte`` does: anchors, aliases and merge keys included) and its repeated keys; raises
    ``yaml.YAMLError`` when it is neither."""
    try:
        return _json_duplicates(text)
    except ValueError:
        pass
    loader = yaml.FullLoader(text)
    try:
        root = loader.get_single_node()
        duplicates = _yaml_duplicates(loader, root)  # before construction: merging rewrites the nodes
        return (loader.construct_document(root) if root is not None else None), duplicates
    finally:
        loader.dispose()


def _file_problem(path: str | Path, what: str, allowed: str, line: int | None = None) -> str:
    return f"config file '{path}'" + (f", line {line}" if line else "") + f": {what}; allowed: {allowed}"


def config_file_problems(path: str | Path) -> list[str]:
    """Problems of the config file at ``path``, each naming the file: it cannot be read (missing, a folder, not
    readable), it is not JSON or YAML, its top level is not a mapping of keys, or a key is repeated within one
    mapping (naming its line; PyYAML and ``json`` keep the last silently)."""
    try:
        text = Path(path).read_text(encoding="utf-8")
    except (OSError, UnicodeDecodeError) as error:
        reason = error.strerror if isinstance(error, OSError) and error.strerror else str(error)
        return [_file_problem(path, f"cannot be read ({reason})", "an existing, readable YAML or JSON file")]
    try:
        document, duplicates = _load_with_duplicates(text)
    except yaml.YAMLError as error:
        reason = " ".join(str(error).split())
        return [_file_problem(path, f"is not valid YAML or JSON ({reason})", "a YAML or JSON mapping of keys")]
    if not isinstance(document, Mapping):
        found = "empty" if document is None else f"a {type(document).__name__}"
        return [_file_problem(path, f"its top level is {found}", "a mapping of keys (key: value lines)")]
    return [
        _file_problem(
            path,
            f"key {key!r} is given twice" + (f" (first on line {first})" if first else ""),
            "each key once per mapping",
            line,
        )
        for key, line, first in sorted(duplicates, key=lambda duplicate: duplicate[1] or 0)
    ]
