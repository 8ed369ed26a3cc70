"""results/index.md from the results folder and the captions file."""

import yaml

from dplab.report.index import render_index
from dplab.report.io import write_text
from dplab.studies.registry import load_study
from dplab.workflow_helpers import mock_snakemake, setup_script

if "snakemake" not in globals():  # run directly, e.g. python workflow/scripts/results_index.py, from the repository
    snakemake = mock_snakemake("results_index", configfiles=("config.quick.yaml",))
log = setup_script(snakemake)
with open(snakemake.input.captions, encoding="utf-8") as handle:
    studies = yaml.safe_load(handle)
for name in snakemake.params.studies:
    study = load_study(name)
    studies[name] = {"title": study.title, "paper": study.paper, "captions": study.captions()}
write_text(render_index(snakemake.params.results, studies), snakemake.output[0])
