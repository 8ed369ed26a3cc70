"""Former home of the artifact registry, now :mod:`dplab.registry` (workflow infrastructure, not a study). The
names that study modules still import from here are re-exported."""

from dplab.registry import Artifact, Study, no_progress

__all__ = ["Artifact", "Study", "no_progress"]
