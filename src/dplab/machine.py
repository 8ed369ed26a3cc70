"""Facts about this machine that both the library's size checks (:mod:`dplab.checks`) and the workflow's job
memory estimates (:mod:`dplab.workflow.resources`) use; imports nothing heavy (the workflow parses with it)."""

from __future__ import annotations

import os

__all__ = ["physical_memory_mb"]


def physical_memory_mb() -> int:
    """Total physical memory of this machine in MB (``sysconf``)."""
    return os.sysconf("SC_PAGE_SIZE") * os.sysconf("SC_PHYS_PAGES") // 2**20
