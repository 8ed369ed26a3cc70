# Validation (before any job runs), paths, and the target list of every study.
import os
from pathlib import Path

import yaml

from dplab.config import validate_config
from dplab.resources import job_mem_mb  # rules declare the memory their job is estimated to need
from dplab.studies.preprocessing import pipeline as preprocessing_pipeline
from dplab.workflow_helpers import dplab_sources  # rules list the dplab modules their code imports as inputs

# workflow.configfiles: config.yaml and every --configfile, checked for duplicate keys.
validate_config(
    config, Path(workflow.basedir) / "workflow" / "schemas" / "config.schema.yaml", configfiles=workflow.configfiles
)

# BLAS/OpenMP threads per job, inherited by every job's process (numpy reads them at import, before a script
# could set them): on 2 shared cores, multi-threaded BLAS made mid-size matrix products up to 10x slower.
for variable in ("OMP_NUM_THREADS", "OPENBLAS_NUM_THREADS", "MKL_NUM_THREADS"):
    os.environ.setdefault(variable, str(config["threads"]))

# Every rule's software: environment.yml (used with --software-deployment-method conda; a pip install needs nothing more).
CONDA_ENV = str(Path(workflow.basedir) / "environment.yml")
RESULTS = config["results"]
CAPTION = str(Path(workflow.basedir) / "workflow" / "report" / "artifact.rst")  # renders params.caption
WORK = config["work"]
LOGS = f"{WORK}/logs"
BENCH = f"{WORK}/benchmarks"
CONTRACTION = config["contraction"]


wildcard_constraints:
    fig="fig2|fig3",
    cfg="|".join(CONTRACTION["audit"]["configs"]),
    noise="gaussian|laplace",


def audit_noises():
    """Noise types that have at least one audited configuration."""
    configs = CONTRACTION["audit"]["configs"]
    return sorted({configs[name]["noise"] for name in CONTRACTION["audit"]["run"]})


def contraction_figure_ids():
    ids = ["fig2", "fig3", "ext_laplace", "ext_regime", "ext_random_stopping", "ext_utility"]
    return ids + [f"ext_audit_{noise}" for noise in audit_noises()]


def contraction_table_ids():
    return ["ext_lemmas", "ext_utility"]


def contraction_targets():
    study = f"{RESULTS}/contraction"
    return (
        expand(f"{study}/figures/{{fig}}.{{ext}}", fig=contraction_figure_ids(), ext=["png", "pdf"])
        + expand(f"{study}/tables/{{table}}.{{ext}}", table=contraction_table_ids(), ext=["csv", "md"])
        + [f"{study}/claims.csv"]
    )


def declared_artifacts():
    """{study: {"figures": [ids], "tables": [ids]}} of the current configuration, in declared order: what the index
    lists (never what happens to lie in a results folder)."""
    declared = {"contraction": {"figures": contraction_figure_ids(), "tables": contraction_table_ids()}}
    for name, study in REGISTERED.items():
        declared[name] = {"figures": study.ids("figure"), "tables": study.ids("table")}
    return declared


def study_targets():
    """Every figure, table and claims file of every study (contraction and the registered ones)."""
    return contraction_targets() + registered_targets()


def all_targets():
    return study_targets() + [f"{RESULTS}/index.md", f"{RESULTS}/provenance.json"]


def in_report(path, study, kind):
    """An output shown in the Snakemake report (``snakemake --report``), grouped by study and kind; its caption is
    the rule's ``params.caption``."""
    return report(path, caption=CAPTION, category=study, subcategory=kind)


def contraction_caption(artifact_id):
    with open(Path(workflow.basedir) / "workflow" / "report" / "captions.yaml", encoding="utf-8") as handle:
        return yaml.safe_load(handle)["contraction"]["captions"][artifact_id]


# Contraction audit (audit.smk)


def audit_config(wc):
    return CONTRACTION["audit"]["configs"][wc.cfg]


def audited_configs(wc):
    configs = CONTRACTION["audit"]["configs"]
    return [name for name in CONTRACTION["audit"]["run"] if configs[name]["noise"] == wc.noise]


def position_audits(wc):
    """The Monte-Carlo files of every audited configuration of this noise, one per position (ascending)."""
    positions = sorted(CONTRACTION["audit"]["positions"])
    return [f"{WORK}/contraction/audit/{name}/mc_{i}.csv" for name in audited_configs(wc) for i in positions]


# Pre-processing pipeline (datasets.smk, preprocess.smk)
PREPROCESSING_WORK = f"{WORK}/preprocessing"


def preprocessing_dataset_sections(wc):
    """The one configuration section a dataset is drawn from (editing another section does not redraw it)."""
    section = preprocessing_pipeline.dataset_section(wc.dataset)
    return {section: config["preprocessing"][section]}


def preprocessing_step_sections(wc):
    """The sections a step's parameters come from: sensitivity (eta, m, k) and the dataset's own (its k)."""
    own = preprocessing_pipeline.dataset_section(wc.dataset)
    return {section: config["preprocessing"][section] for section in dict.fromkeys(["sensitivity", own])}
