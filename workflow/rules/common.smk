# Validation (before any job runs), paths, and the target list of every study.
import os
import sys
from pathlib import Path

from dplab.workflow import jobserver
from dplab.workflow.config import validate_config
from dplab.workflow.resources import job_mem_mb  # rules declare the memory their job is estimated to need
from dplab.studies.preprocessing import pipeline as preprocessing_pipeline
from dplab.workflow.helpers import dplab_sources  # rules list the dplab modules their code imports as inputs

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
if Path.cwd().resolve() != Path(workflow.basedir).resolve() and not Path(config["results"]).is_absolute():
    # snakemake -s path/to/Snakefile from another folder: relative results/work paths land in that folder
    print(
        f"note: the workflow of {workflow.basedir} runs from {Path.cwd()}: results and work are written to "
        f"{Path(config['results']).resolve()} and {Path(config['work']).resolve()} (run from the repository, or "
        "give --config results=<absolute path> work=<absolute path>)",
        file=sys.stderr,
    )
CAPTION = str(Path(workflow.basedir) / "workflow" / "report" / "artifact.rst")  # renders params.caption
WORK = config["work"]
LOGS = f"{WORK}/logs"
BENCH = f"{WORK}/benchmarks"
CONTRACTION = config["contraction"]
CONTRACTION_WORK = f"{WORK}/contraction"


def declared_artifacts():
    """{study: {"figures": [ids], "tables": [ids]}} of the current configuration, in declared order: what the index
    lists (never what happens to lie in a results folder)."""
    return {
        name: {"figures": study.ids("figure", config[name]), "tables": study.ids("table", config[name])}
        for name, study in REGISTERED.items()
    }


def all_targets():
    return registered_targets() + [f"{RESULTS}/index.md", f"{RESULTS}/provenance.json"]


def in_report(path, study, kind):
    """An output shown in the Snakemake report (``snakemake --report``), grouped by study and kind; its caption is
    the rule's ``params.caption``."""
    return report(path, caption=CAPTION, category=study, subcategory=kind)


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


# The run's job server (dplab.workflow.jobserver, configuration key job_server): a local run forks every script job
# from one warm process, so the heavy imports are paid once per run; each script calls delegate() first.
onstart:
    why_not = jobserver.start(workflow, config)
    if why_not:
        print(f"dplab: every job runs in its own process ({why_not})", file=sys.stderr)


onsuccess:
    jobserver.stop()


onerror:
    jobserver.stop()
