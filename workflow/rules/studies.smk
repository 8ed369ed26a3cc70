# The rules of the studies declared through the dplab.workflow.registry (see src/dplab/workflow/registry.py), generated
# from the declarations: for every artifact a rule named <study>_<artifact> that computes its data (a figure's CSV, or
# a table's CSV and Markdown), for every figure a rule <study>_<artifact>_figure that draws it, and per study a rule
# <study>_claims. Every param is a literal value of the configuration, so `snakemake -n`, the logs and the benchmark
# files name the artifact, and a changed key re-runs exactly the artifacts whose section holds it.
from dplab.workflow.registry import load_study, module_of, resolve
from dplab.workflow.helpers import export_run_options

# A job that finds one of its inputs damaged names the command that rebuilds it, with this run's options.
export_run_options(workflow)

REGISTERED = {name: load_study(name) for name in config["studies"]}


def registered_targets():
    targets = []
    for name, study in REGISTERED.items():
        folder = f"{RESULTS}/{name}"
        targets += expand(
            f"{folder}/figures/{{a}}.{{ext}}", a=study.ids("figure", config[name]), ext=config["figure_formats"]
        )
        targets += expand(f"{folder}/tables/{{a}}.{{ext}}", a=study.ids("table", config[name]), ext=["csv", "md"])
        targets.append(f"{folder}/claims.csv")
    return targets


def pipeline_inputs(name, artifact):
    """The study's pipeline products an artifact reads, {name: path} (empty for most artifacts)."""
    if not artifact.inputs:
        return {}
    products = resolve(artifact.inputs)(config[name])
    return {key: f"{WORK}/{name}/{path}" for key, path in products.items()}


def derived_source(name, artifact):
    """The data file an artifact is derived from, or the pipeline products it reads (none for artifacts computed
    from scratch, and for sweeps split into shard jobs, which read them)."""
    if artifact.inputs and not shard_jobs(name, artifact):
        return list(pipeline_inputs(name, artifact).values())
    if artifact.derived_from:
        return [f"{RESULTS}/{name}/{REGISTERED[name].data_path(artifact.derived_from)}"]
    return []


def shard_count(name, artifact):
    """How many jobs a sweep artifact's points are split into (0 for an artifact that is not a sweep)."""
    return min(config["shards"], len(artifact.sweep(artifact.params(config[name]))))


def shard_jobs(name, artifact):
    """Whether a sweep artifact runs its points in shard jobs: with one shard its data job computes every point
    itself (the same rows, without a second process and a pickle in between)."""
    return shard_count(name, artifact) > 1


def shard_files(name, artifact):
    if not shard_jobs(name, artifact):
        return []
    count = shard_count(name, artifact)
    return [f"{WORK}/{name}/shards/{artifact.id}/{shard}-of-{count}.pkl" for shard in range(count)]


def figure_outputs(name, artifact):
    """A figure's files, {format: path}, in the configuration's ``figure_formats`` (the PNG is in the report)."""
    stem = f"{RESULTS}/{name}/figures/{artifact.id}"
    return {
        ext: in_report(f"{stem}.{ext}", name, "figures") if ext == "png" else f"{stem}.{ext}"
        for ext in config["figure_formats"]
    }


def data_outputs(name, artifact):
    """A figure's CSV, a table's CSV and Markdown, or both for a figure that also publishes a table."""
    folder = f"{RESULTS}/{name}"
    table = {
        "table": in_report(f"{folder}/tables/{artifact.id}.csv", name, "tables"),
        "md": f"{folder}/tables/{artifact.id}.md",
    }
    if artifact.kind == "table":
        return {"csv": table["table"], "md": table["md"]}
    return {"csv": f"{folder}/data/{artifact.id}.csv", **(table if artifact.table else {})}


for _name, _study in REGISTERED.items():
    for _artifact in _study.declared(config[_name]):
        if shard_jobs(_name, _artifact):

            rule:
                name:
                    f"{_name}_{_artifact.id}_shard"
                input:
                    products=list(pipeline_inputs(_name, _artifact).values()),
                    code=dplab_sources(*_artifact.compute_modules()),
                output:
                    f"{WORK}/{_name}/shards/{_artifact.id}/{{shard}}-of-{shard_count(_name, _artifact)}.pkl",
                log:
                    f"{LOGS}/{_name}_{_artifact.id}_shard/{{shard}}.log",
                benchmark:
                    f"{BENCH}/{_name}_{_artifact.id}_shard/{{shard}}.tsv"
                wildcard_constraints:
                    shard=r"\d+",
                conda:
                    CONDA_ENV
                threads: config["threads"]
                resources:
                    mem_mb=job_mem_mb(_name, _artifact.id, config[_name]),
                    runtime=_artifact.runtime,
                params:
                    study=_name,
                    artifact=_artifact.id,
                    section=_artifact.params(config[_name]),
                    seed=config["seed"],
                    shards=shard_count(_name, _artifact),
                    inputs=pipeline_inputs(_name, _artifact),
                message:
                    f"{_name}: shard {{wildcards.shard}} of {shard_count(_name, _artifact)} of {_artifact.id}"
                script:
                    "../scripts/study_shard.py"

        rule:
            name:
                f"{_name}_{_artifact.id}"
            input:
                source=derived_source(_name, _artifact),
                shards=shard_files(_name, _artifact),
                code=dplab_sources(*_artifact.compute_modules()),
            output:
                **data_outputs(_name, _artifact),
            log:
                f"{LOGS}/{_name}_{_artifact.id}.log",
            benchmark:
                f"{BENCH}/{_name}_{_artifact.id}.tsv"
            conda:
                CONDA_ENV
            threads: config["threads"]
            resources:
                mem_mb=job_mem_mb(_name, _artifact.id, config[_name]),
                runtime=_artifact.runtime,
            params:
                study=_name,
                artifact=_artifact.id,
                caption=_artifact.report_caption(),
                glossary=dict(_artifact.glossary),
                section=_artifact.params(config[_name]),
                seed=config["seed"],
                inputs=pipeline_inputs(_name, _artifact),
            message:
                f"{_name}: {_artifact.kind} {_artifact.id} ({module_of(_artifact.compute)})"
            script:
                "../scripts/study_data.py"

        if _artifact.plot:

            rule:
                name:
                    f"{_name}_{_artifact.id}_figure"
                input:
                    data=f"{RESULTS}/{_name}/data/{_artifact.id}.csv",
                    code=dplab_sources(*_artifact.plot_modules()),
                output:
                    **figure_outputs(_name, _artifact),
                log:
                    f"{LOGS}/{_name}_{_artifact.id}_figure.log",
                benchmark:
                    f"{BENCH}/{_name}_{_artifact.id}_figure.tsv"
                group:
                    "report"
                conda:
                    CONDA_ENV
                resources:
                    mem_mb=1000,
                    runtime=5,
                params:
                    study=_name,
                    artifact=_artifact.id,
                    caption=_artifact.caption,
                    section=_artifact.params(config[_name]),
                script:
                    "../scripts/study_figure.py"

    rule:
        name:
            f"{_name}_claims"
        input:
            frames=[f"{RESULTS}/{_name}/{_study.data_path(a.id)}" for a in _study.declared(config[_name])],
            code=dplab_sources(module_of(_study.claims)),
        output:
            in_report(f"{RESULTS}/{_name}/claims.csv", _name, "claims"),
        log:
            f"{LOGS}/{_name}_claims.log",
        benchmark:
            f"{BENCH}/{_name}_claims.tsv"
        group:
            "report"
        localrule: True
        conda:
            CONDA_ENV
        resources:
            mem_mb=1000,
            runtime=5,
        params:
            study=_name,
            caption=f"Every claim of {_study.paper}: its verdict, for an erratum its severity (false, loose or typo), its kind (paper, or extension: a hypothesis of ours) and the numbers that decide it.",
            config=config[_name],
        script:
            "../scripts/study_claims.py"
