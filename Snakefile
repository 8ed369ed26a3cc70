# dplab: one workflow that reproduces and audits differential-privacy papers.
#   snakemake --cores 2                                   full, paper-scale reproduction (config.yaml)
#   snakemake --cores 2 --configfile config.quick.yaml    quick configuration (about a minute)
import os

from snakemake.utils import min_version

min_version("9.0")


# The defaults are always the repository's config.yaml; --configfile files override them key by key.
configfile: os.path.join(workflow.basedir, "config.yaml")


# A profile's resource left at a CHANGE_ME placeholder (e.g. slurm_account) would be submitted as is: stop first.
PLACEHOLDERS = {
    name: resource.raw
    for name, resource in (workflow.resource_settings.default_resources or {}).items()
    if str(resource.raw).startswith("CHANGE_ME")
}
if PLACEHOLDERS:
    raise ValueError(
        "profile resources still hold placeholders: "
        + ", ".join(f"{name}={value}" for name, value in PLACEHOLDERS.items())
        + "; allowed: a value of your cluster, or remove the line to use the cluster's default"
    )


include: "workflow/rules/common.smk"
include: "workflow/rules/datasets.smk"
include: "workflow/rules/preprocess.smk"
include: "workflow/rules/train.smk"
include: "workflow/rules/audit.smk"
include: "workflow/rules/studies.smk"
include: "workflow/rules/report.smk"


rule all:
    default_target: True
    input:
        all_targets(),
