# Figures (they only read data files, so a style edit re-runs no computation), claims, index and provenance.


# Light jobs run on the machine of the controller, never submitted to a cluster.
localrules:
    contraction_claims,
    results_index,
    provenance,


rule contraction_figure:
    """One figure of the contraction study from its tidy data file."""
    input:
        data=f"{RESULTS}/contraction/data/{{figid}}.csv",
        code=dplab_sources("dplab.studies.contraction.plots", "dplab.report.style"),
    output:
        png=in_report(f"{RESULTS}/contraction/figures/{{figid}}.png", "contraction", "figures"),
        pdf=f"{RESULTS}/contraction/figures/{{figid}}.pdf",
    log:
        f"{LOGS}/contraction_figure/{{figid}}.log",
    benchmark:
        f"{BENCH}/contraction_figure/{{figid}}.tsv"
    wildcard_constraints:
        figid="fig2|fig3|ext_[a-z_]+",
    conda:
        CONDA_ENV
    resources:
        mem_mb=1000,
        runtime=5,
    params:
        caption=lambda wc: contraction_caption(wc.figid),
        figid=lambda wc: wc.figid,
        config=CONTRACTION,
    script:
        "../scripts/contraction_figure.py"


rule contraction_claims:
    """A verdict, with its numbers, for every claim of Asoodeh et al. and every erratum found."""
    input:
        data=expand(f"{RESULTS}/contraction/data/{{figid}}.csv", figid=contraction_figure_ids()),
        lemmas=f"{RESULTS}/contraction/tables/ext_lemmas.csv",
        code=dplab_sources("dplab.studies.contraction.claims"),
    output:
        in_report(f"{RESULTS}/contraction/claims.csv", "contraction", "claims"),
    log:
        f"{LOGS}/contraction_claims.log",
    benchmark:
        f"{BENCH}/contraction_claims.tsv"
    conda:
        CONDA_ENV
    resources:
        mem_mb=1000,
        runtime=5,
    params:
        caption="Every claim of Asoodeh, Diaz, Calmon (ISIT 2020) with its verdict and the numbers that decide it.",
        config=CONTRACTION,
    script:
        "../scripts/contraction_claims.py"


rule results_index:
    """results/index.md: every figure, table and claim verdict, with captions."""
    input:
        study_targets(),
        captions=str(Path(workflow.basedir) / "workflow" / "report" / "captions.yaml"),
        code=dplab_sources("dplab.report.index"),
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
    script:
        "../scripts/results_index.py"


rule provenance:
    """results/provenance.json: package versions, git commit, configuration hash, date."""
    input:
        study_targets(),
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
