"""Helpers for the thin scripts in ``workflow/scripts``: logging to the rule's log file, and torch threads."""

from __future__ import annotations

import ast
import functools
import logging
import os
import sys
from pathlib import Path
from typing import Any

__all__ = ["setup_script", "cap_torch_threads", "progress", "mock_snakemake", "dplab_sources"]


def cap_torch_threads(threads: int) -> None:
    """Cap torch's intra-op threads without importing torch (about 1 s per job) when a script does not use it:
    an imported torch is set directly, a later import reads ``OMP_NUM_THREADS``."""
    if "torch" in sys.modules:
        sys.modules["torch"].set_num_threads(threads)
    else:
        os.environ["OMP_NUM_THREADS"] = str(threads)


def setup_script(snakemake: Any) -> logging.Logger:
    """Send ``logging`` and stderr (tqdm, warnings, tracebacks) of a script to its rule's ``log:`` file.

    Also caps torch/BLAS threads at the rule's ``threads`` so parallel jobs do not oversubscribe the cores.
    """
    log_path = snakemake.log[0]
    os.makedirs(os.path.dirname(log_path) or ".", exist_ok=True)
    stream = open(log_path, "w", buffering=1, encoding="utf-8")  # noqa: SIM115 - lives as long as the script
    sys.stderr = stream
    logging.basicConfig(
        stream=stream, level=logging.INFO, format="%(asctime)s %(levelname)s %(name)s: %(message)s", force=True
    )
    logging.captureWarnings(True)
    threads = max(1, int(getattr(snakemake, "threads", 1)))
    cap_torch_threads(threads)
    logger = logging.getLogger(f"dplab.{snakemake.rule}")
    logger.info("rule %s, wildcards %s, threads %d", snakemake.rule, dict(snakemake.wildcards), threads)
    return logger


def progress(iterable, **kwargs):
    """A tqdm progress bar written to stderr (the rule's log once :func:`setup_script` ran)."""
    from tqdm import tqdm

    return tqdm(iterable, file=sys.stderr, mininterval=1.0, ascii=True, **kwargs)


def mock_snakemake(
    rule: str, *, configfiles: tuple[str, ...] = (), root: str | os.PathLike[str] | None = None, **wildcards: str
) -> Any:
    """The ``snakemake`` object a rule's script would receive, built from the workflow without running it.

    Lets a script be run (or debugged) directly, as PyPSA-Eur's helper of the same name does::

        if "snakemake" not in globals():
            snakemake = mock_snakemake("contraction_audit_grid", cfg="G1")

    ``configfiles`` are applied over ``config.yaml`` as ``--configfile`` would; paths resolve from ``root``
    (default: the repository holding this package's sources, i.e. the current directory's checkout).
    """
    from pathlib import Path

    from snakemake.api import SnakemakeApi
    from snakemake.iocontainers import Snakemake, Wildcards
    from snakemake.settings.types import ConfigSettings, OutputSettings, ResourceSettings, StorageSettings

    root = Path(root) if root is not None else Path.cwd()
    with SnakemakeApi(OutputSettings()) as api:
        workflow = api.workflow(
            resource_settings=ResourceSettings(cores=1),
            config_settings=ConfigSettings(configfiles=[Path(f).resolve() for f in configfiles]),
            storage_settings=StorageSettings(),
            snakefile=root / "Snakefile",
            workdir=root,
        )._workflow
        job_rule = workflow.get_rule(rule)
        named = Wildcards(fromdict=wildcards)
        inputs = job_rule.expand_input(named)[0]
        outputs = job_rule.expand_output(named)[0]
        params = job_rule.expand_params(named, inputs, outputs, None)[0]
        log = job_rule.expand_log(named)
        return Snakemake(
            inputs,
            outputs,
            params,
            named,
            1,
            job_rule.resources,
            log,
            workflow.config,
            rule,
            None,
            scriptdir=str(root / "workflow" / "scripts"),
        )


@functools.cache
def _module_file(name: str) -> Path | None:
    """The file of dplab module ``name``, found by path without importing anything (None if there is none)."""
    base = Path(__file__).resolve().parent.parent.joinpath(*name.split("."))
    for candidate in (base.with_suffix(".py"), base / "__init__.py"):
        if candidate.is_file():
            return candidate
    return None


@functools.cache
def _dplab_imports(name: str) -> frozenset[str]:
    """The dplab modules (and the parents whose ``__init__`` runs) that module ``name`` imports, read with ast."""
    path = _module_file(name)
    package = name if path.name == "__init__.py" else name.rpartition(".")[0]
    names = {name.rsplit(".", k)[0] for k in range(1, name.count(".") + 1)}
    for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
        if isinstance(node, ast.Import):
            names |= {alias.name for alias in node.names}
        elif isinstance(node, ast.ImportFrom):
            parts = package.split(".")[: len(package.split(".")) - node.level + 1] if node.level else []
            base = ".".join(parts + ([node.module] if node.module else []))
            names |= {base} | {f"{base}.{alias.name}" for alias in node.names}
    return frozenset(n for n in names if (n == "dplab" or n.startswith("dplab.")) and _module_file(n) is not None)


@functools.cache
def _dplab_closure(modules: tuple[str, ...]) -> tuple[str, ...]:
    stack = [m for m in modules if _module_file(m) is not None]
    for name in list(stack):  # a package named directly brings all of its modules
        path = _module_file(name)
        if path.name == "__init__.py":
            stack += [f"{name}.{p.stem}" for p in sorted(path.parent.glob("*.py")) if p.stem != "__init__"]
    seen: set[str] = set()
    while stack:
        name = stack.pop()
        if name not in seen:
            seen.add(name)
            stack += sorted(_dplab_imports(name) - seen)
    return tuple(sorted(str(_module_file(n)) for n in seen))


def dplab_sources(*modules: str) -> list[str]:
    """Source files of the given dplab modules and of every dplab module they import, transitively.

    Rules list these as inputs so that editing a formula re-runs exactly the jobs whose code imports it. Imports
    are read with :mod:`ast` (nothing is executed); a package named directly contributes all of its modules.
    """
    return list(_dplab_closure(tuple(modules)))
