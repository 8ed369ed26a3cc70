"""Figures 2-3 data: Theorem 4 and Proposition 1 per position i (Asoodeh et al. 2020)."""

from dplab.report.io import write_csv
from dplab.studies.contraction.curves import figure_curves
from dplab.workflow_helpers import setup_script

log = setup_script(snakemake)  # noqa: F821
frame = figure_curves(snakemake.params.curve)  # noqa: F821
log.info("%d rows, min log10 delta %.1f", len(frame), frame["log10_delta"].min())
write_csv(frame, snakemake.output[0])  # noqa: F821
