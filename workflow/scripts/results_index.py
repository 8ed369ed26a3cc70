"""results/index.md from the results folder and the captions file."""

import yaml

from dplab.report.index import render_index
from dplab.report.io import write_text
from dplab.workflow_helpers import setup_script

log = setup_script(snakemake)  # noqa: F821
with open(snakemake.input.captions, encoding="utf-8") as handle:  # noqa: F821
    studies = yaml.safe_load(handle)
write_text(render_index(snakemake.params.results, studies), snakemake.output[0])  # noqa: F821
