"""Helpers for the thin scripts in ``workflow/scripts``: logging to the rule's log file, torch threads, and the records
that let every job check the products it reads (:mod:`dplab.report.io`).

Every script starts with :func:`setup_script`, which also checks the job's inputs against their records, and ends
with :func:`record_outputs`. A damaged or incomplete input stops the job before any work, with a message that names
the file and the command that rebuilds it."""

from __future__ import annotations

import ast
import functools
import logging
import os
import shlex
import sys
from pathlib import Path
from typing import Any

__all__ = [
    "setup_script",
    "cap_torch_threads",
    "progress",
    "mock_snakemake",
    "dplab_sources",
    "record_path",
    "record_outputs",
    "check_inputs",
    "run_options",
    "export_run_options",
    "rebuild_command",
]

#: The folder of ``config["work"]`` that holds the records of the products (:func:`record_path`).
RECORDS = "integrity"
#: The environment variable through which the workflow tells its jobs the options of the run (:func:`run_options`).
RUN_OPTIONS = "DPLAB_RUN_OPTIONS"


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
    check_inputs(snakemake, logger)
    return logger


def _located(product: str | os.PathLike[str], config: Any) -> tuple[str, str] | None:
    """(``"results"`` or ``"work"``, the path inside that folder of the configuration) for a file inside one of
    them (the deepest, should one lie inside the other), None for a file elsewhere."""
    path = os.path.abspath(product)
    for root in sorted(("results", "work"), key=lambda root: -len(os.path.abspath(config[root]))):
        base = os.path.abspath(config[root])
        if path.startswith(base + os.sep):
            return root, os.path.relpath(path, base)
    return None


def record_path(product: str | os.PathLike[str], config: Any) -> Path | None:
    """Where the record of ``product`` lives: ``<work>/integrity/<root>/<path inside root>.json`` for a file inside
    the configuration's ``results`` or ``work`` folder (``<root>``: ``results`` or ``work``), None elsewhere.

    The records of ``results/`` files live under ``work/``, so that ``results/`` holds exactly what is published."""
    located = _located(product, config)
    return None if located is None else Path(config["work"]) / RECORDS / located[0] / f"{located[1]}.json"


def _files(named: Any) -> list[str]:
    """The files of a ``snakemake.input`` or ``.output`` entry (one path or a list of them)."""
    return [named] if isinstance(named, str) else list(named)


def record_outputs(snakemake: Any) -> None:
    """Write the record of every output of the job (:func:`dplab.report.io.write_record`): call it last in a
    script, once every output is in place. The record names the rule and wildcards that wrote the output."""
    from dplab.report.io import write_record

    for path in _files(snakemake.output):
        record = record_path(path, snakemake.config)
        if record is not None:
            write_record(path, record, rule=snakemake.rule, wildcards=dict(snakemake.wildcards))


def _writer(record: Any) -> str:
    """Who wrote a product, from its record: `` (written by rule R, k=v)``, or nothing when it is not known."""
    if not record or not record.get("rule"):
        return ""
    wildcards = "".join(f", {key}={value}" for key, value in (record.get("wildcards") or {}).items())
    return f" (written by rule {record['rule']}{wildcards})"


def check_inputs(snakemake: Any, log: logging.Logger) -> None:
    """Check every input of the job but its source code (``input.code``) against its record, or its format where
    it has none (:func:`dplab.report.io.check_product`); a ``results/`` file may have been replaced by git since its
    record was written (``versioned``). Raises :class:`dplab.report.io.ProductError` naming every damaged input and
    the command that rebuilds them; the message also goes to the job's log and to the console."""
    from dplab.report.io import ProductError, check_product

    code = set(_files(snakemake.input.get("code", [])))
    checks = {}
    for path in dict.fromkeys(p for p in _files(snakemake.input) if p not in code):
        located = _located(path, snakemake.config)
        versioned = located is not None and located[0] == "results"
        checks[path] = check_product(path, record_path(path, snakemake.config), versioned=versioned)
    recorded = sum(check.problem is None and check.record is not None for check in checks.values())
    log.info("%d of %d inputs checked against their records (size and SHA-256)", recorded, len(checks))
    for path, check in checks.items():
        if check.problem is None and check.record is None:
            log.info("input %s checked by %s", path, check.checked)
    damaged = {path: f"{c.problem}{_writer(c.record)}" for path, c in checks.items() if c.problem is not None}
    if damaged:
        them = "it" if len(damaged) == 1 else "them"
        message = (
            f"rule {snakemake.rule} stopped before any work: damaged or incomplete input\n"
            + "".join(f"  {path}: {problem}\n" for path, problem in damaged.items())
            + f"Rebuild {them} and what depends on {them} with:\n  {rebuild_command(*damaged)}"
        )
        log.error(message)
        print(message, file=sys.__stderr__, flush=True)
        raise ProductError(message)


def run_options(workflow: Any) -> str:
    """The command-line options of a run that a rebuild command repeats: its cores (local runs), its Snakefile and
    working directory (when it ran elsewhere than in the Snakefile's folder), its ``--configfile`` files and its
    ``--config`` values."""
    options = [f"--cores {workflow.resource_settings.cores or 'all'}"] if workflow.local_exec else []
    workdir, config = Path.cwd(), workflow.config_settings
    if Path(workflow.basedir).resolve() != workdir.resolve():
        options += [f"-s {shlex.quote(str(workflow.main_snakefile))}", f"-d {shlex.quote(str(workdir))}"]
    configfiles = [os.path.relpath(f) if Path(f).is_relative_to(workdir) else str(f) for f in config.configfiles]
    if configfiles:  # one option for all files: a repeated --configfile would keep only the last
        options.append("--configfile " + " ".join(shlex.quote(f) for f in configfiles))
    if config.config_args:
        options.append("--config " + " ".join(config.config_args))
    if not workflow.local_exec:
        options.append("<the --workflow-profile or --executor options of your run>")
    return " ".join(options)


def export_run_options(workflow: Any) -> None:
    """Tell the jobs of this run its options (:func:`run_options`) through the environment, which they inherit.
    A job that re-parses the workflow (a cluster job) keeps what the run that submitted it set."""
    if workflow.exec_mode.name == "DEFAULT" or RUN_OPTIONS not in os.environ:
        os.environ[RUN_OPTIONS] = run_options(workflow)


def rebuild_command(*paths: str | os.PathLike[str]) -> str:
    """The command that re-runs the jobs writing ``paths`` and every job that depends on them, with the options of
    the run (:func:`export_run_options`; a script run directly outside Snakemake gets a placeholder for them)."""
    options = os.environ.get(RUN_OPTIONS, "--cores 2 <the --configfile and --config options of your run>")
    return f"snakemake {options} --forcerun " + " ".join(shlex.quote(str(path)) for path in paths)


def progress(iterable, **kwargs):
    """A tqdm progress bar written to stderr (the rule's log once :func:`setup_script` ran)."""
    from tqdm import tqdm

    return tqdm(iterable, file=sys.stderr, mininterval=1.0, ascii=True, **kwargs)


@functools.cache
def _parsed_workflow(root: Path, configfiles: tuple[Path, ...]) -> Any:
    """The workflow of ``root/Snakefile`` with ``configfiles``, parsed once per process (nothing runs)."""
    from snakemake.api import SnakemakeApi
    from snakemake.settings.types import ConfigSettings, OutputSettings, ResourceSettings, StorageSettings

    with SnakemakeApi(OutputSettings()) as api:
        return api.workflow(
            resource_settings=ResourceSettings(cores=1),
            config_settings=ConfigSettings(configfiles=list(configfiles)),
            storage_settings=StorageSettings(),
            snakefile=root / "Snakefile",
            workdir=root,
        )._workflow


def mock_snakemake(
    rule: str, *, configfiles: tuple[str, ...] = (), root: str | os.PathLike[str] | None = None, **wildcards: str
) -> Any:
    """The ``snakemake`` object a rule's script would receive, built from the workflow without running it.

    Lets a script be run (or debugged) directly, as PyPSA-Eur's helper of the same name does::

        if "snakemake" not in globals():
            snakemake = mock_snakemake("contraction_audit_grid", cfg="G1")

    ``configfiles`` are applied over ``config.yaml`` as ``--configfile`` would; paths resolve from ``root``
    (default: the repository holding this package's sources, i.e. the current directory's checkout). The workflow
    is parsed once per process for each ``root`` and ``configfiles``.
    """
    from snakemake.iocontainers import Snakemake, Wildcards

    root = Path(root).resolve() if root is not None else Path.cwd()
    workflow = _parsed_workflow(root, tuple(Path(f).resolve() for f in configfiles))
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
    base = Path(__file__).resolve().parents[2].joinpath(*name.split("."))
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
