"""Seeds derived from the configuration's base seed and a job's identity, so every rerun draws the same numbers."""

from __future__ import annotations

import hashlib

__all__ = ["derive_seed"]


def derive_seed(base: int, *keys: object) -> int:
    """A 63-bit seed from ``base`` and ``keys`` (e.g. the rule name and wildcards), stable across runs and machines.

    Distinct keys give independent-looking seeds; ``str`` of each key is hashed with SHA-256, so the result does not
    depend on Python's per-process hash randomisation.
    """
    text = "\x1f".join([str(int(base)), *map(str, keys)])
    return int.from_bytes(hashlib.sha256(text.encode("utf-8")).digest()[:8], "big") >> 1
