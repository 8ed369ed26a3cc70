"""Compare a fresh results folder with the committed one: verdicts must not flip, numbers must agree within a tolerance.

Usage, from the repository's root::

    python -m dplab.verify --run                    # a fresh full run in a temporary folder, compared with results/
    python -m dplab.verify --run --cores 8 --keep fresh-run   # keep the fresh run's folders under fresh-run/
    python -m dplab.verify fresh results            # two existing results folders: fresh, committed
    python -m dplab.verify fresh results --rtol 1e-6 --atol 1e-12

``--run`` runs the whole workflow (``snakemake --cores N --config results=<tmp>/results work=<tmp>/work``) with the
repository's ``config.yaml``, so nothing of the committed ``results/`` or ``work/`` is reused or touched, then compares.

Rules (the exit status is 1 if any is broken, 0 otherwise; every difference is printed):

- every ``<study>/claims.csv`` of the committed folder exists in the fresh one with the same claim ids and the same
  verdict for each (a flipped, missing or new claim fails); a changed evidence text is printed but does not fail,
  since its numbers are checked in the data and tables they quote;
- every other CSV under a study folder (``data/``, ``tables/``) exists in the fresh folder with the same columns and
  rows; numeric cells agree when |fresh - committed| <= atol + rtol * |committed| (NaN matches NaN, inf matches an
  inf of the same sign), other cells are equal as text. The default rtol = 1e-6 passes the cross-machine differences
  seen in practice (the 9th significant digit) and fails a 0.01 % change; atol = 1e-12 absorbs round-off around 0;
- ``performance/`` (timings, machine-dependent) is not compared; figures are not compared (they are drawn from the
  data checked here).
"""

from __future__ import annotations

import argparse
import subprocess
import sys
import tempfile
from collections.abc import Sequence
from dataclasses import dataclass, field
from pathlib import Path

import numpy as np
import pandas as pd

__all__ = ["DEFAULT_RTOL", "DEFAULT_ATOL", "Comparison", "compare_results", "fresh_run_command", "main"]

DEFAULT_RTOL = 1e-6
DEFAULT_ATOL = 1e-12
SKIPPED_FOLDERS = ("performance",)


@dataclass
class Comparison:
    """What moved between two results folders: ``failures`` break verification, ``notes`` are printed only."""

    failures: list[str] = field(default_factory=list)
    notes: list[str] = field(default_factory=list)

    @property
    def ok(self) -> bool:
        return not self.failures


def _compared_csvs(committed: Path) -> list[Path]:
    """CSV files of the committed folder, relative to it, outside the skipped folders and without temporaries."""
    return sorted(
        p.relative_to(committed)
        for p in committed.rglob("*.csv")
        if p.relative_to(committed).parts[0] not in SKIPPED_FOLDERS and not p.name.startswith(".")
    )


def compare_claims(fresh: pd.DataFrame, committed: pd.DataFrame, name: str, result: Comparison) -> None:
    """Verdict flips, missing and new claims fail; changed evidence is noted."""
    old, new = committed.set_index("claim_id"), fresh.set_index("claim_id")
    for claim in old.index.difference(new.index):
        result.failures.append(f"{name}: claim {claim!r} missing from the fresh run")
    for claim in new.index.difference(old.index):
        result.failures.append(f"{name}: new claim {claim!r} ({new.loc[claim, 'verdict']}) not in the committed run")
    for claim in old.index.intersection(new.index):
        before, after = old.loc[claim, "verdict"], new.loc[claim, "verdict"]
        if before != after:
            result.failures.append(f"{name}: verdict of {claim!r} flipped: {before} -> {after}")
        elif str(old.loc[claim, "evidence"]) != str(new.loc[claim, "evidence"]):
            result.notes.append(
                f"{name}: evidence of {claim!r} changed:\n  committed: {old.loc[claim, 'evidence']}"
                f"\n  fresh:     {new.loc[claim, 'evidence']}"
            )


def _numeric(column: pd.Series) -> np.ndarray | None:
    """The column as floats if every non-empty cell parses as a number (booleans stay text), else None."""
    if column.dtype == bool:
        return None
    values = pd.to_numeric(column, errors="coerce")
    if values.isna().sum() != column.isna().sum():
        return None
    return values.to_numpy(dtype=float)


def _text(column: pd.Series) -> np.ndarray:
    """The cells as strings, every missing cell as the same marker (missing equals missing)."""
    return np.where(column.isna(), "<missing>", column.astype(str)).astype(str)


def _numbers_close(new: np.ndarray, old: np.ndarray, rtol: float, atol: float) -> np.ndarray:
    both_nan = np.isnan(new) & np.isnan(old)
    same_inf = np.isinf(old) & (new == old)
    with np.errstate(invalid="ignore"):
        close = np.abs(new - old) <= atol + rtol * np.abs(old)
    return both_nan | same_inf | close


def compare_tables(
    fresh: pd.DataFrame, committed: pd.DataFrame, name: str, result: Comparison, *, rtol: float, atol: float
) -> None:
    """Same columns and row count; numeric cells within tolerance, other cells equal; each moved cell is listed."""
    if list(fresh.columns) != list(committed.columns):
        result.failures.append(
            f"{name}: columns differ: committed {list(committed.columns)}, fresh {list(fresh.columns)}"
        )
        return
    if len(fresh) != len(committed):
        result.failures.append(f"{name}: {len(committed)} rows committed, {len(fresh)} fresh")
        return
    for column in committed.columns:
        old, new = _numeric(committed[column]), _numeric(fresh[column])
        if old is not None and new is not None:
            moved = np.flatnonzero(~_numbers_close(new, old, rtol, atol))
            for row in moved[:5]:
                change = abs(new[row] - old[row]) / abs(old[row]) if old[row] not in (0, np.inf, -np.inf) else np.nan
                result.failures.append(
                    f"{name}: row {row} {column}: committed {float(old[row])!r}, fresh {float(new[row])!r} "
                    f"(relative change {change:.3g}; tolerance rtol {rtol:g}, atol {atol:g})"
                )
        else:
            old_text, new_text = _text(committed[column]), _text(fresh[column])
            moved = np.flatnonzero(old_text != new_text)
            for row in moved[:5]:
                result.failures.append(
                    f"{name}: row {row} {column}: committed {str(old_text[row])!r}, fresh {str(new_text[row])!r}"
                )
        if len(moved) > 5:
            result.failures.append(f"{name}: {column}: {len(moved) - 5} more cells moved")


def compare_results(
    fresh: str | Path, committed: str | Path, *, rtol: float = DEFAULT_RTOL, atol: float = DEFAULT_ATOL
) -> Comparison:
    """Compare every claims file and CSV of ``committed`` with its counterpart in ``fresh`` (rules: module doc)."""
    fresh, committed = Path(fresh), Path(committed)
    for folder, label in ((fresh, "fresh"), (committed, "committed")):
        if not folder.is_dir():
            raise ValueError(f"{label} results folder {str(folder)!r} does not exist or is not a folder")
    if not (rtol >= 0 and atol >= 0):
        raise ValueError(f"rtol={rtol!r} and atol={atol!r} must both be >= 0")
    result = Comparison()
    for relative in _compared_csvs(committed):
        name = relative.as_posix()
        if not (fresh / relative).is_file():
            result.failures.append(f"{name}: missing from the fresh run")
            continue
        old = pd.read_csv(committed / relative, keep_default_na=True)
        new = pd.read_csv(fresh / relative, keep_default_na=True)
        if relative.name == "claims.csv":
            compare_claims(new, old, name, result)
        else:
            compare_tables(new, old, name, result, rtol=rtol, atol=atol)
    return result


def fresh_run_command(folder: Path, cores: int) -> list[str]:
    """The Snakemake call of ``--run``: the whole workflow with results and intermediate files under ``folder``."""
    if cores < 1:
        raise ValueError(f"cores={cores!r} is invalid; allowed: a whole number >= 1")
    return [
        sys.executable, "-m", "snakemake", "--cores", str(cores),
        "--config", f"results={folder / 'results'}", f"work={folder / 'work'}",
    ]  # fmt: skip


def _fresh_run(folder: Path, cores: int) -> Path:
    """Run the workflow into ``folder`` (from the current directory, which must hold the Snakefile)."""
    if not Path("Snakefile").is_file():
        raise SystemExit("verify --run: run it from the repository's root (no Snakefile in the current folder)")
    command = fresh_run_command(folder, cores)
    print("verify: fresh run:", " ".join(command), flush=True)
    if subprocess.run(command).returncode != 0:
        raise SystemExit(f"verify --run: the fresh run failed (logs under {folder / 'work'})")
    return folder / "results"


def _report(result: Comparison, rtol: float, atol: float) -> int:
    for note in result.notes:
        print(f"moved (not failing): {note}")
    for failure in result.failures:
        print(f"FAIL: {failure}")
    print(
        f"verify: {'passed' if result.ok else 'failed'} ({len(result.failures)} failures, {len(result.notes)} notes; "
        f"rtol {rtol:g}, atol {atol:g})"
    )
    return 0 if result.ok else 1


def main(argv: Sequence[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="python -m dplab.verify", description=__doc__.split("\n")[0])
    parser.add_argument("folders", nargs="*", help="FRESH COMMITTED (two results folders), or with --run: [COMMITTED]")
    parser.add_argument("--run", action="store_true", help="make the fresh results with a full run first")
    parser.add_argument("--cores", type=int, default=2, help="cores of the fresh run (2)")
    parser.add_argument("--keep", help="folder for the fresh run (default: a temporary folder, removed afterwards)")
    parser.add_argument("--rtol", type=float, default=DEFAULT_RTOL, help=f"relative tolerance ({DEFAULT_RTOL:g})")
    parser.add_argument("--atol", type=float, default=DEFAULT_ATOL, help=f"absolute tolerance ({DEFAULT_ATOL:g})")
    args = parser.parse_args(argv)
    wanted = "at most one folder (COMMITTED)" if args.run else "two folders, FRESH and COMMITTED"
    if len(args.folders) > (1 if args.run else 2) or (not args.run and len(args.folders) != 2):
        parser.error(f"got {len(args.folders)} folders {args.folders}; allowed: {wanted}")
    if not args.run:
        fresh, committed = args.folders
        return _report(compare_results(fresh, committed, rtol=args.rtol, atol=args.atol), args.rtol, args.atol)
    committed = args.folders[0] if args.folders else "results"
    if args.keep:
        fresh = _fresh_run(Path(args.keep).resolve(), args.cores)
        return _report(compare_results(fresh, committed, rtol=args.rtol, atol=args.atol), args.rtol, args.atol)
    with tempfile.TemporaryDirectory(prefix="dplab-verify-") as folder:
        fresh = _fresh_run(Path(folder), args.cores)
        return _report(compare_results(fresh, committed, rtol=args.rtol, atol=args.atol), args.rtol, args.atol)


if __name__ == "__main__":
    sys.exit(main())
