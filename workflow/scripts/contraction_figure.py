"""Draw one figure of the contraction study from its data file."""

import pandas as pd

from dplab.report.style import save_figure
from dplab.studies.contraction.plots import plot
from dplab.workflow_helpers import setup_script

log = setup_script(snakemake)  # noqa: F821
figid = snakemake.params.figid  # noqa: F821
fig = plot(figid, pd.read_csv(snakemake.input.data), snakemake.params.config)  # noqa: F821
save_figure(fig, snakemake.output[0].removesuffix(".png"))  # noqa: F821
