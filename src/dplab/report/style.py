"""One figure style for every study, and saving each figure as PNG and PDF, or PNG only (atomically, reproducibly)."""

from __future__ import annotations

import os
from collections.abc import Iterable
from pathlib import Path

import matplotlib

matplotlib.use("Agg")
import matplotlib.pyplot as plt  # noqa: E402

from dplab.report.io import atomic_path  # noqa: E402

__all__ = [
    "STYLE",
    "LABELS",
    "EXTENSION_NOTE",
    "figure",
    "footer",
    "label",
    "legend_above",
    "legend_below",
    "legend_beside",
    "readable_log_axis",
    "save_figure",
    "plt",
]

STYLE = {
    "figure.dpi": 110,
    "savefig.dpi": 160,
    "font.size": 9,
    "axes.titlesize": 9,
    "axes.labelsize": 9,
    "legend.fontsize": 7.5,
    "xtick.labelsize": 8,
    "ytick.labelsize": 8,
    "axes.grid": True,
    "grid.alpha": 0.3,
    "axes.spines.top": False,
    "axes.spines.right": False,
    "lines.linewidth": 1.6,
    "svg.hashsalt": "dplab",
}

#: Footer on every figure that is not in the paper, so extensions are never mistaken for reproductions.
EXTENSION_NOTE = "Extension (not in the paper)"


#: Readable names for the raw identifiers that data files use as method, setting and column names, in one place,
#: so that no legend or axis shows a snake_case identifier. Identifiers not listed are shown as they are.
LABELS = {
    # pre-processing (Hu, Sanyal, Schölkopf)
    "srdp_table2": "SRDP, Table 2",
    "group_privacy": "group privacy",
    "srdp_theorem2_optimised": "SRDP, Theorem 2 optimised",
    "eta": "quantization step $\\eta$",
    "missing_fraction": "missing fraction p/n",
    "n": "sample size n",
    # generalization (He, Wang, Tao)
    "basic": "basic composition",
    "drv": "DRV (Dwork et al. 2010)",
    "kov": "KOV 3.4 = Thm 4",
    "cor2": "Cor. 2",
    "cor2_first_order": "Cor. 2, first order",
    "thm4_box": "Thm 4, box form",
    "cor3_corrected": "Cor. 3, corrected",
    "cor3_as_printed": "Cor. 3 as printed",
    "optimal": "exact optimal",
    "optimal_at_kov_eps": "exact optimal at the KOV $\\varepsilon'$",
    "thm1": "Thm 1",
    "thm1_intro": "Thm 1 as quoted in the introduction",
    "thm2": "Thm 2",
    "nissim_stemmer": "Nissim-Stemmer",
    "dwork_2015": "Dwork et al. 2015",
    "as_printed": "as printed",
    "substitution": "substitution",
    "add_remove": "add/remove",
    # performance benchmark
    "opacus_tensor_batches": "Opacus (tensor batches)",
    "torch_nonprivate": "non-private torch",
    "opacus": "Opacus",
    "dplab": "dplab",
}


def label(identifier: object) -> str:
    """The readable name of a raw identifier (:data:`LABELS`), or the identifier itself when none is listed."""
    return LABELS.get(str(identifier), str(identifier))


def figure(nrows: int = 1, ncols: int = 1, *, width: float = 3.2, height: float = 2.6, **kwargs):
    """A new figure in the project style: ``width``/``height`` are per panel, in inches.

    The style (:data:`STYLE`) is made the current matplotlib style, so that the labels, legends and ticks drawn
    after this call (not only the axes made here) get the project's sizes."""
    plt.rcParams.update(STYLE)
    return plt.subplots(nrows, ncols, figsize=(width * ncols, height * nrows), squeeze=False, **kwargs)


def footer(fig, text: str, *, fontsize: float = 7.0) -> None:
    """Lay the panels out and write ``text`` (parameters, provenance, the extension note) below them, small and
    grey, wrapped to the figure's width. The text hangs below the figure's bottom edge (saving with a tight bounding
    box keeps it), so however many lines it wraps to, it never reaches an axis label."""
    fig.tight_layout()
    fig.text(0.01, -0.01, text, fontsize=fontsize, color="0.35", ha="left", va="top", wrap=True)


def legend_beside(ax, **kwargs) -> None:
    """The axes' legend outside it, to the right of its top edge, so that it can never cover data."""
    ax.legend(loc="upper left", bbox_to_anchor=(1.02, 1.0), borderaxespad=0.0, **kwargs)


#: How far below an axes' bottom edge :func:`legend_below` starts, in points: clear of tick labels and x label.
BELOW_AXIS_POINTS = 36.0


def legend_below(ax, *, offset: float = BELOW_AXIS_POINTS, **kwargs) -> None:
    """The axes' legend under it, ``offset`` points below its bottom edge (clear of the tick labels and x label,
    whatever the axes' height; raise it for tall tick labels), so that it can never cover data."""
    from matplotlib.transforms import offset_copy

    anchor = offset_copy(ax.transAxes, fig=ax.figure, y=-offset, units="points")
    ax.legend(loc="upper center", bbox_to_anchor=(0.5, 0.0), bbox_transform=anchor, **kwargs)


def legend_above(fig, ax, *, ncol: int = 3, **kwargs) -> None:
    """One legend for the whole figure (the handles of ``ax``), centred above the panels, so that it can never cover
    data; call it after :func:`footer` (whose layout would otherwise ignore it)."""
    handles, labels = ax.get_legend_handles_labels()
    fig.legend(handles, labels, loc="lower center", bbox_to_anchor=(0.5, 1.0), ncol=ncol, **kwargs)


def readable_log_axis(ax, which: str = "x", ticks=None) -> None:
    """Ticks of a logarithmic axis that never overlap: minor ticks stay unlabelled, and an axis that spans less
    than two decades (where matplotlib would label minor ticks as ``2×10^0 3×10^0 …``) gets major ticks, written as
    plain numbers, at ``ticks`` (e.g. the grid the data were computed on) or else at 1, 2 and 5 times the powers of
    ten."""
    from matplotlib.ticker import FixedLocator, FuncFormatter, LogLocator, NullFormatter

    axis = ax.xaxis if which == "x" else ax.yaxis
    low, high = sorted(ax.get_xlim() if which == "x" else ax.get_ylim())
    axis.set_minor_formatter(NullFormatter())
    if high / low < 100.0:
        locator = FixedLocator(sorted(ticks)) if ticks is not None else LogLocator(base=10.0, subs=(1.0, 2.0, 5.0))
        axis.set_major_locator(locator)
        axis.set_major_formatter(FuncFormatter(lambda value, _: f"{value:g}"))


def save_figure(fig, stem: str | os.PathLike[str], formats: Iterable[str] = ("png", "pdf")) -> None:
    """Save ``fig`` to ``stem.<format>`` for each of ``formats`` (``png``, ``pdf``; no timestamps, so reruns are
    identical) and close it."""
    stem, formats = Path(stem), tuple(formats)
    metadata = {"png": {"Software": None}, "pdf": {"CreationDate": None, "Producer": None}}
    unknown = sorted(set(formats) - set(metadata))
    if unknown:
        raise ValueError(f"formats = {unknown} are invalid; allowed: {', '.join(metadata)}")
    with plt.rc_context(STYLE):
        for suffix in formats:
            with atomic_path(stem.with_suffix(f".{suffix}")) as temporary:
                fig.savefig(temporary, format=suffix, metadata=metadata[suffix], bbox_inches="tight")
    plt.close(fig)
