"""Helpers for the thin scripts in ``workflow/scripts``: logging to the rule's log file, and torch threads."""

from __future__ import annotations

import logging
import os
import sys
from typing import Any

__all__ = ["setup_script", "progress", "mock_snakemake"]


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
    try:
        import torch

        torch.set_num_threads(threads)
    except ImportError:  # pragma: no cover - torch is a dependency
        pass
    logger = logging.getLogger(f"dplab.{snakemake.rule}")
    logger.info("rule %s, wildcards %s, threads %d", snakemake.rule, dict(snakemake.wildcards), threads)
    return logger


def progress(iterable, **kwargs):
    """A tqdm progress bar written to stderr (the rule's log once :func:`setup_script` ran)."""
    from tqdm import tqdm

    return tqdm(iterable, file=sys.stderr, mininterval=1.0, ascii=True, **kwargs)


def mock_snakemake(rule: str, *, configfiles: tuple[str, ...] = (), root: str | os.PathLike[str] | None = None,
                   **wildcards: str) -> Any:
    """The ``snakemake`` object a rule's script would receive, built from the workflow without running it.

    Lets a script be run (or debugged) directly, as PyPSA-Eur's helper of the same name does::

        if "snakemake" not in globals():
            snakemake = mock_snakemake("contraction_audit_mc", cfg="G1")

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
        return Snakemake(inputs, outputs, params, named, 1, job_rule.resources, log, workflow.config, rule, None,
                         scriptdir=str(root / "workflow" / "scripts"))
