"""``python -m benchmarks [--quick] [--out results/performance]``: run every benchmark and write the report."""

from __future__ import annotations

import argparse
import dataclasses
import os
import platform
import time
import warnings
from pathlib import Path
from typing import Any

import pandas as pd
import torch

from benchmarks.audit_accounting import audit_rows, curve_rows
from benchmarks.dp_step import dp_step_rows
from benchmarks.kernels import kernel_rows, write_kernels
from benchmarks.module_step import module_step_rows
from benchmarks.report import write_csv, write_figure, write_summary
from benchmarks.reproduction import dry_run_rows, reproduction_rows
from benchmarks.seeds import seed_rows
from benchmarks.settings import Settings, full_settings, quick_settings

__all__ = ["main", "run"]

ROOT = Path(__file__).resolve().parent.parent


def _versions() -> dict[str, str]:
    import dp_accounting
    import numpy
    import opacus

    return {
        "torch": torch.__version__,
        "opacus": opacus.__version__,
        "numpy": numpy.__version__,
        "dp_accounting": getattr(dp_accounting, "__version__", "0.6.0"),
        "python": platform.python_version(),
    }


def run(settings: Settings, out: Path, *, quick: bool, root: Path = ROOT, log=print) -> Any:
    """Run all benchmark groups with ``settings`` and write ``out``/performance.csv, summary.md, figures/, and the
    pipeline kernels' kernels.csv and kernels.md (:mod:`benchmarks.kernels`)."""
    previous_threads = torch.get_num_threads()
    torch.set_num_threads(settings.threads)
    load_before = os.getloadavg()
    started = time.perf_counter()
    notes: list[str] = [
        "Targets of issue 8: dplab's DP step at most Opacus's time on every case (judged against the faster of "
        "`opacus` and `opacus_tensor_batches`) and at most half of it on the small model (logistic regression, "
        f"d = {settings.inputs}); dplab's DP step at most 2 x a non-private torch step. The MLP has "
        f"{settings.hidden * settings.inputs + 2 * settings.hidden + 1} parameters. `opacus_tensor_batches` and "
        "`torch_nonprivate` draw their Poisson batches and gather them with `index_select` as section (1b) does "
        "(like for like with dplab's engine, which gathers with `index_select`); `opacus` uses its DP data loader.",
        "Targets of issues 15 and 27 (section (1b), batch "
        f"{settings.module_batch_size}, one model per layer type, see benchmarks/models.py): `train_dpsgd` on the "
        "MLP at most 0.5 x Opacus's ghost-clipping step and 2 x a non-private step; on Embedding + LayerNorm + Linear "
        "at most 1 x, on the small CNN (Conv2d + GroupNorm) 0.7 x and on the Conv1d model 1 x Opacus ghost, and 3 x "
        "a non-private step. Every implementation draws its Poisson batch and gathers it with `index_select`, as "
        "`train_dpsgd` does (like for like); the accountant (dp_accounting RDP, about 40 ms) is computed once per "
        "configuration (cached), in the warm-up call. Issue 27's ratios are for `--threads 1`.",
        "A DP step that materialises per-sample gradients moves B x d numbers per step where a non-private step "
        "moves d: Opacus's own ratio to the non-private step (`opacus_over_nonprivate`) shows the same price.",
    ]
    try:
        with warnings.catch_warnings():
            # Opacus's hooks warn on every step that no input requires gradients (true, and harmless here).
            warnings.filterwarnings("ignore", message="Full backward hook is firing")
            rows = dp_step_rows(settings, log)
            rows += module_step_rows(settings, log)
        rows += seed_rows(settings, log)
        rows += audit_rows(settings, log)
        rows += curve_rows(settings, log)
        benchmark_dir = root / "work" / "benchmarks"
        reproduction = reproduction_rows(benchmark_dir)
        if not reproduction:
            notes.append(f"No `benchmark:` TSV files under {benchmark_dir}: run `snakemake --cores 2` first.")
        else:
            notes.append(
                "Reproduction times are those of the last run recorded under work/benchmarks/ "
                "(one line per job), not re-measured here."
            )
        rows += reproduction
        kernels = kernel_rows(settings, log)
        if settings.dry_run_repeats > 0:
            log("snakemake -n --forceall")
            rows += dry_run_rows(root, settings.dry_run_repeats)
    finally:
        torch.set_num_threads(previous_threads)
    environment = {
        "mode": "quick" if quick else "full",
        "quick": quick,
        "torch threads": settings.threads,
        "cpu count": os.cpu_count(),
        "platform": platform.platform(),
        "load average before (1, 5, 15 min)": tuple(round(x, 2) for x in load_before),
        "load average after": tuple(round(x, 2) for x in os.getloadavg()),
        "benchmark wall time (s)": round(time.perf_counter() - started, 1),
        **_versions(),
        "settings": dataclasses.asdict(settings),
    }
    if max(load_before) > settings.threads:
        notes.append(
            "The machine was loaded by other processes during the run (see the load average): absolute "
            "times are inflated and noisy; the side-by-side ratios are the meaningful numbers."
        )
    frame = write_csv(rows, out / "performance.csv")
    if kernels:
        write_kernels(kernels, out / "kernels.csv")
    write_summary(frame, out / "summary.md", environment, notes)
    write_figure(frame, out / "figures" / "performance")
    return frame


def main(argv: list[str] | None = None) -> None:
    parser = argparse.ArgumentParser(prog="python -m benchmarks", description=__doc__)
    parser.add_argument("--quick", action="store_true", help="fewer repeats and sizes (about a minute)")
    parser.add_argument("--out", type=Path, default=ROOT / "results" / "performance", help="output folder")
    parser.add_argument("--threads", type=int, default=2, help="torch.set_num_threads (default 2)")
    parser.add_argument(
        "--redraw",
        action="store_true",
        help="only redraw figures/performance from the performance.csv already in --out (no timing)",
    )
    args = parser.parse_args(argv)
    if args.redraw:
        write_figure(pd.read_csv(args.out / "performance.csv"), args.out / "figures" / "performance")
        print(f"[benchmarks] redrew {args.out}/figures/performance.png from {args.out}/performance.csv")
        return
    settings = dataclasses.replace(quick_settings() if args.quick else full_settings(), threads=args.threads)
    run(settings, args.out, quick=args.quick, log=lambda message: print(f"[benchmarks] {message}", flush=True))
    print(f"[benchmarks] wrote {args.out}/performance.csv, summary.md, figures/performance.png")


if __name__ == "__main__":
    main()
