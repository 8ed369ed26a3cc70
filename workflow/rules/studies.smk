# Generic rules for the studies declared through the dplab.studies registry (see src/dplab/studies/registry.py):
# one data job per artifact, one plotting job per figure, one claims job per study.
from dplab.studies.registry import load_study, module_of, resolve

REGISTERED = {name: load_study(name) for name in config["studies"]}


def registered_targets():
    targets = []
    for name, study in REGISTERED.items():
        folder = f"{RESULTS}/{name}"
        targets += expand(f"{folder}/figures/{{a}}.{{ext}}", a=study.ids("figure"), ext=["png", "pdf"])
        targets += expand(f"{folder}/tables/{{a}}.{{ext}}", a=study.ids("table"), ext=["csv", "md"])
        targets.append(f"{folder}/claims.csv")
    return targets


def artifact_of(wc):
    return REGISTERED[wc.study].artifact(wc.artifact)


def artifact_params(wc):
    return config[wc.study][artifact_of(wc).section]


def pipeline_inputs(wc):
    """The study's pipeline products an artifact reads, {name: path} (empty for most artifacts)."""
    artifact = artifact_of(wc)
    if not artifact.inputs:
        return {}
    return {name: f"{WORK}/{wc.study}/{path}" for name, path in resolve(artifact.inputs)(config[wc.study]).items()}


def derived_source(wc):
    """The data file an artifact is derived from, or the pipeline products it reads (none for artifacts computed
    from scratch)."""
    study, artifact = REGISTERED[wc.study], artifact_of(wc)
    if artifact.inputs:
        return list(pipeline_inputs(wc).values())
    return [f"{RESULTS}/{wc.study}/{study.data_path(artifact.derived_from)}"] if artifact.derived_from else []


def compute_code(wc):
    """The import closure of the modules the artifact's data job runs (not the whole study package)."""
    return dplab_sources(*artifact_of(wc).compute_modules())


def plot_code(wc):
    """The plot module and the figure style: editing them re-runs only the drawing."""
    return dplab_sources(*artifact_of(wc).plot_modules())


def claims_code(wc):
    return dplab_sources(module_of(REGISTERED[wc.study].claims))


if REGISTERED:

    wildcard_constraints:
        study="|".join(REGISTERED),

    rule study_figure_data:
        """The tidy numbers behind one figure of a registered study."""
        input:
            source=derived_source,
            code=compute_code,
        output:
            f"{RESULTS}/{{study}}/data/{{artifact}}.csv",
        params:
            section=artifact_params,
            seed=config["seed"],
            inputs=pipeline_inputs,
        log:
            f"{LOGS}/study_figure_data/{{study}}/{{artifact}}.log",
        benchmark:
            f"{BENCH}/study_figure_data/{{study}}/{{artifact}}.tsv"
        threads: config["threads"]
        resources:
            mem_mb=lambda wc: artifact_of(wc).mem_mb,
            runtime=lambda wc: artifact_of(wc).runtime,
        script:
            "../scripts/study_data.py"

    rule study_table:
        """One table of a registered study (CSV and Markdown)."""
        input:
            source=derived_source,
            code=compute_code,
        output:
            csv=in_report(f"{RESULTS}/{{study}}/tables/{{artifact}}.csv", "{study}", "tables"),
            md=f"{RESULTS}/{{study}}/tables/{{artifact}}.md",
        params:
            caption=lambda wc: artifact_of(wc).caption,
            section=artifact_params,
            seed=config["seed"],
            inputs=pipeline_inputs,
        log:
            f"{LOGS}/study_table/{{study}}/{{artifact}}.log",
        benchmark:
            f"{BENCH}/study_table/{{study}}/{{artifact}}.tsv"
        threads: config["threads"]
        resources:
            mem_mb=lambda wc: artifact_of(wc).mem_mb,
            runtime=lambda wc: artifact_of(wc).runtime,
        script:
            "../scripts/study_data.py"

    rule study_figure:
        """Draw one figure of a registered study from its data file."""
        input:
            data=f"{RESULTS}/{{study}}/data/{{artifact}}.csv",
            code=plot_code,
        output:
            png=in_report(f"{RESULTS}/{{study}}/figures/{{artifact}}.png", "{study}", "figures"),
            pdf=f"{RESULTS}/{{study}}/figures/{{artifact}}.pdf",
        params:
            caption=lambda wc: artifact_of(wc).caption,
            section=artifact_params,
        log:
            f"{LOGS}/study_figure/{{study}}/{{artifact}}.log",
        resources:
            mem_mb=1000,
            runtime=5,
        script:
            "../scripts/study_figure.py"

    rule study_claims:
        """A verdict, with its numbers, for every claim of a registered study's paper."""
        input:
            frames=lambda wc: [
                f"{RESULTS}/{wc.study}/{REGISTERED[wc.study].data_path(a.id)}" for a in REGISTERED[wc.study].artifacts
            ],
            code=claims_code,
        output:
            in_report(f"{RESULTS}/{{study}}/claims.csv", "{study}", "claims"),
        params:
            caption=lambda wc: f"Every claim of {REGISTERED[wc.study].paper} with its verdict and the numbers that decide it.",
            config=lambda wc: config[wc.study],
        log:
            f"{LOGS}/study_claims/{{study}}.log",
        resources:
            mem_mb=1000,
            runtime=5,
        script:
            "../scripts/study_claims.py"
