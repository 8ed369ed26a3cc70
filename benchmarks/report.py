"""Write the tidy CSV, the Markdown summary (targets of issue 8 with pass/miss) and the figure."""

from __future__ import annotations

import math
import textwrap
from pathlib import Path
from typing import Any

import numpy as np
import pandas as pd
from matplotlib.lines import Line2D

from benchmarks.records import COLUMNS
from dplab.report.style import figure, label, legend_below, save_figure

__all__ = ["write_csv", "target_rows", "module_target_rows", "write_summary", "write_figure"]

IMPLEMENTATION_ORDER = ("dplab", "opacus", "opacus_tensor_batches", "torch_nonprivate")


def write_csv(rows: list[dict[str, Any]], path: Path) -> pd.DataFrame:
    frame = pd.DataFrame(rows, columns=list(COLUMNS))
    path.parent.mkdir(parents=True, exist_ok=True)
    frame.to_csv(path, index=False, float_format="%.6g")
    return frame


def _ratio(frame: pd.DataFrame, benchmark: str, case: str, implementation: str) -> float:
    match = frame[(frame.benchmark == benchmark) & (frame.case == case) & (frame.implementation == implementation)]
    return float(match.ratio_vs_reference.iloc[0]) if len(match) else math.nan


def target_rows(frame: pd.DataFrame) -> list[dict[str, Any]]:
    """Issue 8's step targets per case: dplab ≤ Opacus (≤ 1/2 on the small model, logistic regression), judged
    against the faster of the two Opacus variants; dplab DP step ≤ 2 × the non-private step."""
    rows = []
    for case in frame[frame.benchmark == "dp_step"].case.unique():
        step = frame[(frame.benchmark == "dp_step") & (frame.case == case)].set_index("implementation")
        fastest_opacus = min(step.loc["opacus", "median_seconds"], step.loc["opacus_tensor_batches", "median_seconds"])
        versus_opacus = step.loc["dplab", "median_seconds"] / fastest_opacus
        small = case.startswith("logistic")
        needed = 0.5 if small else 1.0
        overhead = _ratio(frame, "nonprivate_step", case, "dplab")
        opacus_overhead = _ratio(frame, "nonprivate_step", case, "opacus")
        rows.append(
            {
                "case": case,
                "dplab_over_opacus": _ratio(frame, "dp_step", case, "dplab"),
                "dplab_over_fastest_opacus": versus_opacus,
                "opacus_target": needed,
                "opacus_target_met": bool(versus_opacus <= needed),
                "dp_over_nonprivate": overhead,
                "opacus_over_nonprivate": opacus_overhead,
                "nonprivate_target_met": bool(overhead <= 2.0),
            }
        )
    return rows


def module_target_rows(frame: pd.DataFrame) -> list[dict[str, Any]]:
    """The layer-type table: per model, ``train_dpsgd``'s step against Opacus's ghost-clipping step and against a
    non-private step on the same batches, with the targets of :data:`benchmarks.module_step.MODULE_TARGETS`."""
    from benchmarks.module_step import MODULE_TARGETS

    rows = []
    for case, part in frame[frame.benchmark == "module_step"].groupby("case", sort=False):
        ghost_target, nonprivate_target = MODULE_TARGETS[part.model.iloc[0]]
        versus_ghost = _ratio(frame, "module_step", case, "dplab_module")
        overhead = _ratio(frame, "module_nonprivate_step", case, "dplab_module")
        rows.append(
            {
                "case": case,
                "dplab_module_over_opacus_ghost": versus_ghost,
                "opacus_ghost_target": ghost_target,
                "opacus_ghost_target_met": bool(versus_ghost <= ghost_target),
                "dplab_module_over_nonprivate": overhead,
                "nonprivate_target": nonprivate_target,
                "nonprivate_target_met": bool(overhead <= nonprivate_target),
                "opacus_ghost_over_nonprivate": _ratio(frame, "module_nonprivate_step", case, "opacus_ghost"),
            }
        )
    return rows


def _markdown(frame: pd.DataFrame) -> str:
    header = "| " + " | ".join(frame.columns) + " |\n|" + "---|" * len(frame.columns) + "\n"
    lines = []
    for row in frame.itertuples(index=False):
        cells = [f"{v:.3g}" if isinstance(v, float) else str(v) for v in row]
        lines.append("| " + " | ".join(cells) + " |")
    return header + "\n".join(lines) + "\n"


def _section(frame: pd.DataFrame, benchmark: str, columns: list[str]) -> str:
    part = frame[frame.benchmark == benchmark]
    if part.empty:
        return "_not measured in this run_\n"
    part = part[columns].copy()
    for column in ("median_seconds", "iqr_seconds"):
        if column in part:
            part[column.replace("seconds", "ms")] = part.pop(column) * 1e3
    return _markdown(part)


def write_summary(frame: pd.DataFrame, path: Path, environment: dict[str, Any], notes: list[str]) -> None:
    """``summary.md``: environment, targets, and one table per benchmark."""
    targets = pd.DataFrame(target_rows(frame))
    timing = ["case", "implementation", "median_seconds", "iqr_seconds", "repeats", "ratio_vs_reference"]
    text = [
        "# dplab performance (issue 8)",
        "",
        "Generated by `python -m benchmarks" + (" --quick" if environment.get("quick") else "") + "`. "
        "Times are medians over repeats (one warm-up excluded), implementations of a case timed side by side; "
        "`ratio_vs_reference` = time / the reference's time (below 1 = faster than the reference). "
        "One DP-SGD step = Poisson batch, per-sample gradients, clipping, sum, Gaussian noise, update "
        "(see `benchmarks/__init__.py`).",
        "",
        "## Environment",
        "",
    ]
    text += [f"- {key}: {value}" for key, value in environment.items()]
    text += ["", "## Targets", ""]
    text += [_markdown(targets) if not targets.empty else "_no DP-step cases measured_\n"]
    module_targets = pd.DataFrame(module_target_rows(frame))
    text += ["DP-SGD on an nn.Module, one model per layer type (issues 15 and 27):", ""]
    text += [_markdown(module_targets) if not module_targets.empty else "_no module cases measured_\n"]
    text += [
        "## (1) One DP-SGD step: dplab vs Opacus (reference: opacus)",
        "",
        _section(frame, "dp_step", timing),
        "## (1b) DP-SGD on an nn.Module, per layer type: train_dpsgd vs Opacus (reference: opacus_ghost)",
        "",
        "Implementations: see `benchmarks/module_step.py`.",
        "",
        _section(frame, "module_step", timing),
        "Against a non-private step (reference: torch_nonprivate):",
        "",
        _section(frame, "module_nonprivate_step", timing),
        "## (2) DP step vs a non-private torch step (reference: torch_nonprivate)",
        "",
        _section(frame, "nonprivate_step", timing),
        "## (3) S seeds at once vs S sequential runs (reference: sequential)",
        "",
        _section(
            frame, "seeds", ["case", "implementation", "median_seconds", "iqr_seconds", "repeats", "ratio_vs_reference"]
        ),
        "## (4) Monte-Carlo audit sampler and accounting curves",
        "",
        _section(frame, "audit_sampler", timing + ["units_per_second", "unit"]),
        _section(frame, "accounting_curve", timing + ["units_per_second", "unit"]),
        "## (5) The reproduction",
        "",
        _section(frame, "snakemake_dry_run", ["case", "median_seconds", "iqr_seconds", "repeats"]),
        "Per study (summed job wall times from `work/benchmarks/`):",
        "",
        _section(frame, "reproduction_study", ["case", "runs", "median_seconds"]),
        "Per rule:",
        "",
        _section(frame, "reproduction_rule", ["case", "runs", "median_seconds"]),
    ]
    if notes:
        text += ["## Notes", ""] + [f"- {note}" for note in notes] + [""]
    path.write_text("\n".join(text))


def write_figure(frame: pd.DataFrame, stem: Path) -> None:
    """Four panels: DP step time vs batch size per model; dplab's ratios; seeds; audit and curve speed-ups.
    Every legend sits under its panel (never on the bars or lines), with readable names (``report.style.label``)."""
    fig, axes = figure(2, 2, width=4.4, height=2.8)
    step = frame[frame.benchmark.isin(["dp_step", "nonprivate_step"])].drop_duplicates(["case", "implementation"])
    ax = axes[0, 0]
    colours = {implementation: f"C{k}" for k, implementation in enumerate(IMPLEMENTATION_ORDER)}
    styles = {"logistic": "-", "mlp": "--"}
    for (model, implementation), part in step.groupby(["model", "implementation"]):
        ax.plot(
            part.batch_size,
            part.median_seconds * 1e3,
            styles.get(model, ":"),
            marker="o",
            ms=3,
            color=colours.get(implementation, "0.5"),
        )
    ax.set(
        xscale="log",
        yscale="log",
        xlabel="expected batch size B",
        ylabel="ms per step",
        title="(1)-(2) one step, float32, CPU",
    )
    handles = [Line2D([], [], color=colour, lw=4, label=label(name)) for name, colour in colours.items()]
    handles += [Line2D([], [], color="0.3", ls=style, label=f"{model} model") for model, style in styles.items()]
    legend_below(ax, handles=handles, ncol=2)
    ax = axes[0, 1]
    targets = pd.DataFrame(target_rows(frame))
    if not targets.empty:
        x = np.arange(len(targets))
        ax.bar(x - 0.2, targets.dplab_over_fastest_opacus, 0.4, label="dplab / fastest Opacus")
        ax.bar(x + 0.2, targets.dp_over_nonprivate, 0.4, label="dplab DP / non-private torch")
        ax.axhline(1.0, color="k", lw=0.8, label="equal time")
        ax.axhline(2.0, color="k", lw=0.8, ls=":", label="DP-step target (2x non-private)")
        ax.set_xticks(x, [case.replace("_", "\n") for case in targets.case])
        legend_below(ax, offset=44, ncol=2)
    ax.set(yscale="log", ylabel="time ratio", title="ratios (below 1: dplab faster)")
    ax = axes[1, 0]
    seeds = frame[frame.benchmark == "seeds"]
    for implementation, part in seeds.groupby("implementation"):
        ax.plot(part.runs, part.median_seconds, marker="o", label=implementation)
    ax.set(xlabel="seeds S", ylabel="seconds per training", title="(3) S seeds: batched vs sequential")
    ax.legend()
    ax = axes[1, 1]
    speed = frame[frame.benchmark.isin(["audit_sampler", "accounting_curve"]) & (frame.implementation == "dplab")]
    speed = speed[speed.reference.fillna("") != ""]
    ax.bar(np.arange(len(speed)), 1.0 / speed.ratio_vs_reference)
    ax.set_xticks(
        np.arange(len(speed)),
        [f"{textwrap.fill(c.replace('_', ' '), 12)}\nvs {label(r)}" for c, r in zip(speed.case, speed.reference)],
        fontsize=7,
    )
    ax.axhline(1.0, color="k", lw=0.8)
    ax.set(yscale="log", ylabel="dplab speed-up (×)", title="(4) audit sampler and curves")
    fig.tight_layout()
    stem.parent.mkdir(parents=True, exist_ok=True)
    save_figure(fig, stem)
