# dplab: one workflow that reproduces and audits differential-privacy papers.
#   snakemake --cores 2                                   full, paper-scale reproduction (config.yaml)
#   snakemake --cores 2 --configfile config.quick.yaml    quick configuration (about a minute)
import os

from snakemake.utils import min_version

min_version("9.0")


# The defaults are always the repository's config.yaml; --configfile files override them key by key.
configfile: os.path.join(workflow.basedir, "config.yaml")


include: "workflow/rules/common.smk"
include: "workflow/rules/datasets.smk"
include: "workflow/rules/preprocess.smk"
include: "workflow/rules/train.smk"
include: "workflow/rules/bounds.smk"
include: "workflow/rules/audit.smk"
include: "workflow/rules/studies.smk"
include: "workflow/rules/report.smk"


rule all:
    default_target: True
    input:
        all_targets(),
