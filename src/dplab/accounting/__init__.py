"""Privacy accounting: hockey-stick divergences of standard noise, RDP to (epsilon, delta) conversions, inversion."""

from __future__ import annotations

__all__ = ["calibration", "conversions", "hockey_stick", "inversion", "renyi"]
