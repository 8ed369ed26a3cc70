"""Every figure of every study, drawn from its committed data file with config.yaml (as the workflow draws it), is
readable: no legend lies on data, no two tick labels overlap, legends use readable names at a legible size.

The checks are geometric, in display coordinates after drawing: a legend's box must not meet any line segment,
marker or scatter point of any panel; the visible tick labels of an axis must not intersect each other.
"""

from __future__ import annotations

import re
import sys
from pathlib import Path

import matplotlib
import numpy as np
import pandas as pd
import pytest
import yaml

matplotlib.use("Agg")

from matplotlib.collections import PathCollection  # noqa: E402
from matplotlib.transforms import Bbox  # noqa: E402

from dplab.report.style import LABELS, plt  # noqa: E402
from dplab.workflow.registry import load_study, resolve  # noqa: E402

ROOT = Path(__file__).resolve().parents[2]
CONFIG = yaml.safe_load((ROOT / "config.yaml").read_text(encoding="utf-8"))
STUDIES = ("contraction", "preprocessing", "generalization", "purification")
MIN_LEGEND_POINTS = 7.0


def _figure_cases() -> list[tuple[str, str]]:
    cases = [(name, a.id) for name in STUDIES for a in load_study(name).artifacts if a.kind == "figure"]
    return cases + [("performance", "performance")]


def _draw(study: str, figid: str):
    if study == "performance":
        sys.path.insert(0, str(ROOT))
        from benchmarks import report

        captured = {}
        original = report.save_figure
        report.save_figure = lambda fig, stem: captured.setdefault("fig", fig)
        try:
            report.write_figure(pd.read_csv(ROOT / "results" / "performance" / "performance.csv"), Path("unused"))
        finally:
            report.save_figure = original
        return captured["fig"]
    artifact = load_study(study).artifact(figid)
    frame = pd.read_csv(ROOT / "results" / study / "data" / f"{figid}.csv")
    return resolve(artifact.plot)(frame, artifact.params(CONFIG[study]))


def _segments_meet_box(points: np.ndarray, box: Bbox) -> bool:
    """Whether the polyline through ``points`` (display coordinates, NaN breaks it) meets ``box`` (Liang-Barsky
    clipping of every segment against the box)."""
    p0, p1 = points[:-1], points[1:]
    ok = np.isfinite(p0).all(axis=1) & np.isfinite(p1).all(axis=1)
    p0, p1 = p0[ok], p1[ok]
    if len(p0) == 0:
        return False
    d = p1 - p0
    low, high = np.zeros(len(p0)), np.ones(len(p0))
    for axis, (lo, hi) in enumerate(((box.x0, box.x1), (box.y0, box.y1))):
        for p, q in ((-d[:, axis], p0[:, axis] - lo), (d[:, axis], hi - p0[:, axis])):
            with np.errstate(divide="ignore", invalid="ignore"):
                t = q / p
            parallel = p == 0
            outside = parallel & (q < 0)
            low = np.where(outside, 2.0, low)
            entering = ~parallel & (p < 0)
            leaving = ~parallel & (p > 0)
            low = np.where(entering, np.maximum(low, t), low)
            high = np.where(leaving, np.minimum(high, t), high)
    return bool(np.any(low <= high))


def _points_in_box(points: np.ndarray, box: Bbox) -> bool:
    inside = (points[:, 0] >= box.x0) & (points[:, 0] <= box.x1) & (points[:, 1] >= box.y0) & (points[:, 1] <= box.y1)
    return bool(np.any(inside & np.isfinite(points).all(axis=1)))


def _data_under(box: Bbox, fig) -> list[str]:
    """The data artists of ``fig`` (lines, markers, scatter points) that meet ``box``, clipped to their axes."""
    hits = []
    for ax in fig.axes:
        clip = ax.get_window_extent()
        visible = Bbox.intersection(box, clip)
        if visible is None:
            continue
        for line in ax.get_lines():
            xy = np.column_stack([np.asarray(line.get_xdata(), float), np.asarray(line.get_ydata(), float)])
            if not line.get_visible() or len(xy) == 0:
                continue
            points = line.get_transform().transform(xy)
            drawn = line.get_linestyle() not in ("None", "", " ") and len(points) > 1
            marked = line.get_marker() not in (None, "None", "", " ")
            if (drawn and _segments_meet_box(points, visible)) or (marked and _points_in_box(points, visible)):
                hits.append(f"{ax.get_title() or 'panel'}: line {line.get_label()!r}")
        for collection in ax.collections:
            if isinstance(collection, PathCollection) and len(collection.get_offsets()):
                points = collection.get_offset_transform().transform(np.asarray(collection.get_offsets(), float))
                if _points_in_box(points, visible):
                    hits.append(f"{ax.get_title() or 'panel'}: points {collection.get_label()!r}")
    return hits


def _legends(fig) -> list:
    return [ax.get_legend() for ax in fig.axes if ax.get_legend() is not None] + list(fig.legends)


@pytest.fixture(scope="module", params=_figure_cases(), ids=lambda case: "/".join(case))
def drawn(request):
    fig = _draw(*request.param)
    fig.canvas.draw()
    yield fig
    plt.close(fig)


def test_no_legend_covers_data(drawn):
    renderer = drawn.canvas.get_renderer()
    covered = {}
    for legend in _legends(drawn):
        hits = _data_under(legend.get_window_extent(renderer), drawn)
        if hits:
            covered[", ".join(t.get_text() for t in legend.get_texts())[:60]] = hits
    assert not covered, f"legends over data: {covered}"


def test_tick_labels_do_not_overlap(drawn):
    renderer = drawn.canvas.get_renderer()
    clashes = []
    for ax in drawn.axes:
        for axis in (ax.xaxis, ax.yaxis):
            ticks = axis.get_major_ticks() + axis.get_minor_ticks()
            boxes = [
                (t.label1.get_text(), t.label1.get_window_extent(renderer))
                for t in ticks
                if t.get_visible()
                and t.label1.get_visible()
                and t.label1.get_text().strip()
                and ax.get_window_extent().expanded(1.2, 1.2).overlaps(t.label1.get_window_extent(renderer))
            ]
            for i, (text_a, a) in enumerate(boxes):
                clashes += [
                    f"{ax.get_title()!r}: {text_a!r} / {text_b!r}"
                    for text_b, b in boxes[i + 1 :]
                    if a.shrunk(0.98, 0.98).overlaps(b.shrunk(0.98, 0.98))
                ]
    assert not clashes, f"overlapping tick labels: {clashes[:6]}"


def test_legends_are_legible_and_use_readable_names(drawn):
    raw = re.compile(r"^[a-z0-9]+(_[a-z0-9]+)+$")
    for legend in _legends(drawn):
        for text in legend.get_texts():
            assert text.get_fontsize() >= MIN_LEGEND_POINTS, f"{text.get_text()!r} at {text.get_fontsize()} pt"
            words = re.sub(r"\$[^$]*\$", "", text.get_text()).replace(",", " ").split()
            identifiers = [
                word for word in words if raw.match(word) or word in LABELS and LABELS[word] != word and "_" in word
            ]
            assert not identifiers, f"raw identifiers {identifiers} in legend entry {text.get_text()!r}"


def test_overlap_check_detects_a_legend_on_data():
    """The geometric check is not vacuous: a legend placed on a line is reported, one beside it is not."""
    fig, ax = plt.subplots(figsize=(3, 3))
    ax.plot([0, 1], [0, 1], label="diagonal")
    ax.plot([0, 1], [0.5, 0.5], label="flat")
    legend = ax.legend(loc="center")
    fig.canvas.draw()
    assert _data_under(legend.get_window_extent(fig.canvas.get_renderer()), fig)
    legend = ax.legend(loc="upper left", bbox_to_anchor=(1.05, 1.0))
    fig.canvas.draw()
    assert not _data_under(legend.get_window_extent(fig.canvas.get_renderer()), fig)
    plt.close(fig)


@pytest.mark.parametrize("formats", [("png",), ("png", "pdf")])
def test_save_figure_writes_exactly_the_formats_asked_for_and_the_same_png(tmp_path, formats):
    """``figure_formats``: the PNG of a PNG-only run is the PNG of a run that also writes the PDF, byte for byte."""
    from dplab.report.style import save_figure

    def draw(stem):
        fig, ax = plt.subplots()
        ax.plot([0, 1], [1, 0])
        save_figure(fig, stem, formats=formats)

    draw(tmp_path / "only")
    draw(tmp_path / "both")
    written = sorted(path.name for path in tmp_path.iterdir() if path.name.startswith("only"))
    assert written == sorted(f"only.{suffix}" for suffix in formats)
    assert (tmp_path / "only.png").read_bytes() == (tmp_path / "both.png").read_bytes()


def test_save_figure_refuses_an_unknown_format(tmp_path):
    from dplab.report.style import save_figure

    with pytest.raises(ValueError, match=r"formats = \['svg'\] are invalid; allowed: png, pdf"):
        save_figure(plt.figure(), tmp_path / "x", formats=("png", "svg"))
    assert list(tmp_path.iterdir()) == []
