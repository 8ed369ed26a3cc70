"""Theorem 3 (Laplace PNSGD) curves with pure-DP thresholds."""

from dplab.report.io import write_csv
from dplab.studies.contraction.curves import laplace_curves
from dplab.workflow_helpers import setup_script

log = setup_script(snakemake)  # noqa: F821
frame = laplace_curves(snakemake.params.curve)  # noqa: F821
write_csv(frame, snakemake.output[0])  # noqa: F821
