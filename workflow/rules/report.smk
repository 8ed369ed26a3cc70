# The results index and provenance (the figures, tables and claims of every study are generated in studies.smk).


# Light jobs run on the machine of the controller, never submitted to a cluster.
# (The claims rules of the studies are generated local rules, studies.smk.)
localrules:
    results_index,
    provenance,


rule results_index:
    """results/index.md: every figure, table and claim verdict, with captions."""
    input:
        registered_targets(),
        code=dplab_sources("dplab.report.index", *(f"dplab.studies.{name}" for name in REGISTERED)),  # captions
    output:
        f"{RESULTS}/index.md",
    log:
        f"{LOGS}/results_index.log",
    benchmark:
        f"{BENCH}/results_index.tsv"
    conda:
        CONDA_ENV
    resources:
        mem_mb=750,
        runtime=5,
    params:
        declared=declared_artifacts(),
        figure_formats=config["figure_formats"],
    script:
        "../scripts/results_index.py"


rule provenance:
    """results/provenance.json: package versions, git commit, configuration hash, date."""
    input:
        registered_targets(),
    output:
        f"{RESULTS}/provenance.json",
    log:
        f"{LOGS}/provenance.log",
    benchmark:
        f"{BENCH}/provenance.tsv"
    conda:
        CONDA_ENV
    resources:
        mem_mb=750,
        runtime=5,
    params:
        config=config,
        repo=workflow.basedir,
    script:
        "../scripts/provenance.py"
