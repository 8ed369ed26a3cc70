"""Figures 2-3 data: Theorem 4 and Proposition 1 per position i (Asoodeh et al. 2020)."""

from dplab.report.io import write_csv
from dplab.studies.contraction.curves import figure_curves
from dplab.workflow_helpers import mock_snakemake, setup_script

if (
    "snakemake" not in globals()
):  # run directly, e.g. python workflow/scripts/contraction_curves.py, from the repository
    snakemake = mock_snakemake("contraction_curves", configfiles=("config.quick.yaml",), fig="fig2")
log = setup_script(snakemake)
frame = figure_curves(snakemake.params.curve)
log.info("%d rows, min log10 delta %.1f", len(frame), frame["log10_delta"].min())
write_csv(frame, snakemake.output[0])
