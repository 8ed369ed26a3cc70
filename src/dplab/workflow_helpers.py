"""Helpers for the thin scripts in ``workflow/scripts``: logging to the rule's log file, and torch threads."""

from __future__ import annotations

import logging
import os
import sys
from typing import Any

__all__ = ["setup_script", "progress"]


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
