"""The new theory of each reproduced paper, one module per paper (pure functions of numbers)."""

from __future__ import annotations

__all__ = ["contraction"]
