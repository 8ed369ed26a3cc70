"""Draw one figure of a registered study from its data file."""

from dplab.workflow.jobserver import delegate

delegate()  # forked from the run's job server when it has one: the imports below are then already paid

import pandas as pd

from dplab.report.style import save_figure
from dplab.workflow.helpers import mock_snakemake, record_outputs, setup_script
from dplab.workflow.registry import load_study, resolve

if "snakemake" not in globals():  # run directly, e.g. python workflow/scripts/study_figure.py, from the repository
    snakemake = mock_snakemake("generalization_f1_figure", configfiles=("config.quick.yaml",))
log = setup_script(snakemake)
artifact = load_study(snakemake.params.study).artifact(snakemake.params.artifact)
fig = resolve(artifact.plot)(pd.read_csv(snakemake.input.data), snakemake.params.section)
save_figure(fig, snakemake.output.png.removesuffix(".png"), formats=list(snakemake.output.keys()))
record_outputs(snakemake)
