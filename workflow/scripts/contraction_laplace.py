"""Theorem 3 (Laplace PNSGD) curves with pure-DP thresholds."""

from dplab.report.io import write_csv
from dplab.studies.contraction.curves import laplace_curves
from dplab.workflow_helpers import mock_snakemake, setup_script

if (
    "snakemake" not in globals()
):  # run directly, e.g. python workflow/scripts/contraction_laplace.py, from the repository
    snakemake = mock_snakemake("contraction_laplace", configfiles=("config.quick.yaml",))
log = setup_script(snakemake)
frame = laplace_curves(snakemake.params.curve)
write_csv(frame, snakemake.output[0])
