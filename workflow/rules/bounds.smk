# Theoretical bounds: closed-form curves and tables (cheap; no randomness).


rule contraction_curves:
    """Figures 2 and 3 of Asoodeh et al.: Theorem 4 against Proposition 1, delta against epsilon per position i."""
    input:
        code=dplab_sources("dplab.studies.contraction.curves"),
    output:
        f"{RESULTS}/contraction/data/{{fig}}.csv",
    log:
        f"{LOGS}/contraction_curves/{{fig}}.log",
    benchmark:
        f"{BENCH}/contraction_curves/{{fig}}.tsv"
    conda:
        CONDA_ENV
    resources:
        mem_mb=750,
        runtime=5,
    params:
        curve=lambda wc: CONTRACTION["figures"][wc.fig],
    script:
        "../scripts/contraction_curves.py"


rule contraction_laplace:
    """Theorem 3 (Laplace PNSGD) with its pure-DP threshold, per position i (extension X1)."""
    input:
        code=dplab_sources("dplab.studies.contraction.curves"),
    output:
        f"{RESULTS}/contraction/data/ext_laplace.csv",
    log:
        f"{LOGS}/contraction_laplace.log",
    benchmark:
        f"{BENCH}/contraction_laplace.tsv"
    conda:
        CONDA_ENV
    resources:
        mem_mb=750,
        runtime=5,
    params:
        curve=CONTRACTION["laplace"],
    script:
        "../scripts/contraction_laplace.py"


rule contraction_regime:
    """Epsilon at a fixed delta against the domain diameter: where Theorem 4 beats Proposition 1 (extension X2)."""
    input:
        code=dplab_sources("dplab.studies.contraction.curves"),
    output:
        f"{RESULTS}/contraction/data/ext_regime.csv",
    log:
        f"{LOGS}/contraction_regime.log",
    benchmark:
        f"{BENCH}/contraction_regime.tsv"
    conda:
        CONDA_ENV
    resources:
        mem_mb=750,
        runtime=5,
    params:
        regime=CONTRACTION["regime"],
    script:
        "../scripts/contraction_regime.py"


rule contraction_lemmas:
    """Lemmas 1-2 and Theorem 2 of Asoodeh et al. checked against numerical integration and dp_accounting."""
    input:
        code=dplab_sources("dplab.studies.contraction.lemmas"),
    output:
        csv=in_report(f"{RESULTS}/contraction/tables/ext_lemmas.csv", "contraction", "tables"),
        md=f"{RESULTS}/contraction/tables/ext_lemmas.md",
    log:
        f"{LOGS}/contraction_lemmas.log",
    benchmark:
        f"{BENCH}/contraction_lemmas.tsv"
    conda:
        CONDA_ENV
    resources:
        mem_mb=750,
        runtime=5,
    params:
        caption=contraction_caption("ext_lemmas"),
    script:
        "../scripts/contraction_lemmas.py"
