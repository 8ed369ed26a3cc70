"""Draw one figure of the contraction study from its data file."""

import pandas as pd

from dplab.report.style import save_figure
from dplab.studies.contraction.plots import plot
from dplab.workflow_helpers import mock_snakemake, setup_script

if (
    "snakemake" not in globals()
):  # run directly, e.g. python workflow/scripts/contraction_figure.py, from the repository
    snakemake = mock_snakemake("contraction_figure", configfiles=("config.quick.yaml",), figid="fig2")
log = setup_script(snakemake)
figid = snakemake.params.figid
fig = plot(figid, pd.read_csv(snakemake.input.data), snakemake.params.config)
save_figure(fig, snakemake.output[0].removesuffix(".png"))
