"""results/index.md from the declared artifacts of the configuration, their captions and the claims files."""

from dplab.workflow.jobserver import delegate

delegate()  # forked from the run's job server when it has one: the imports below are then already paid

from pathlib import Path

from dplab.report.index import render_index
from dplab.report.io import write_text
from dplab.workflow.helpers import mock_snakemake, record_outputs, setup_script
from dplab.workflow.registry import load_study

if "snakemake" not in globals():  # run directly, e.g. python workflow/scripts/results_index.py, from the repository
    snakemake = mock_snakemake("results_index", configfiles=("config.quick.yaml",))
log = setup_script(snakemake)
studies = {}
for name, declared in snakemake.params.declared.items():
    study = load_study(name)
    meta = {"title": study.title, "paper": study.paper, "captions": study.captions()}
    studies[name] = {**meta, "figures": declared["figures"], "tables": declared["tables"]}
formats = tuple(snakemake.params.figure_formats)
write_text(render_index(Path(snakemake.output[0]).parent, studies, formats), snakemake.output[0])
record_outputs(snakemake)
