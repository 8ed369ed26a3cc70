"""One figure style for every study, and saving each figure as PNG and PDF (atomically, reproducibly)."""

from __future__ import annotations

import os
from pathlib import Path

import matplotlib

matplotlib.use("Agg")
import matplotlib.pyplot as plt  # noqa: E402

from dplab.report.io import atomic_path  # noqa: E402

__all__ = ["STYLE", "figure", "footer", "save_figure", "EXTENSION_NOTE", "plt"]

STYLE = {
    "figure.dpi": 110,
    "savefig.dpi": 160,
    "font.size": 9,
    "axes.titlesize": 9,
    "axes.labelsize": 9,
    "legend.fontsize": 7.5,
    "axes.grid": True,
    "grid.alpha": 0.3,
    "axes.spines.top": False,
    "axes.spines.right": False,
    "lines.linewidth": 1.6,
    "svg.hashsalt": "dplab",
}

#: Footer on every figure that is not in the paper, so extensions are never mistaken for reproductions.
EXTENSION_NOTE = "Extension (not in the paper)"


def figure(nrows: int = 1, ncols: int = 1, *, width: float = 3.2, height: float = 2.6, **kwargs):
    """A new figure in the project style: ``width``/``height`` are per panel, in inches."""
    with plt.rc_context(STYLE):
        return plt.subplots(nrows, ncols, figsize=(width * ncols, height * nrows), squeeze=False, **kwargs)


def footer(fig, text: str, *, strip: float = 0.08, fontsize: float = 7.0) -> None:
    """Lay the panels out above a strip of height ``strip`` (figure fraction) and write ``text`` (parameters,
    provenance, the extension note) in it, small and grey."""
    fig.tight_layout(rect=(0, strip, 1, 1))
    fig.text(0.01, 0.01, text, fontsize=fontsize, color="0.35", ha="left", va="bottom", wrap=True)


def save_figure(fig, stem: str | os.PathLike[str]) -> None:
    """Save ``fig`` to ``stem.png`` and ``stem.pdf`` (no timestamps, so reruns are identical) and close it."""
    stem = Path(stem)
    with plt.rc_context(STYLE):
        for suffix, metadata in ((".png", {"Software": None}), (".pdf", {"CreationDate": None, "Producer": None})):
            with atomic_path(stem.with_suffix(suffix)) as temporary:
                fig.savefig(temporary, format=suffix[1:], metadata=metadata, bbox_inches="tight")
    plt.close(fig)
