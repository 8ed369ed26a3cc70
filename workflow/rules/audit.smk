# Empirical privacy: grid-exact hockey-stick divergences of projected 1-D chains, and Monte-Carlo lower bounds.


rule contraction_audit_grid:
    """Exact numerical law of PNSGD's output on every neighbouring instance, position and epsilon (spec 4.2-4.3)."""
    input:
        code=dplab_sources("dplab.studies.contraction.audit"),
    output:
        grid=f"{WORK}/contraction/audit/{{cfg}}/grid.csv",
        laws=f"{WORK}/contraction/audit/{{cfg}}/laws.npz",
    log:
        f"{LOGS}/contraction_audit_grid/{{cfg}}.log",
    benchmark:
        f"{BENCH}/contraction_audit_grid/{{cfg}}.tsv"
    conda:
        CONDA_ENV
    resources:
        mem_mb=max(1000, job_mem_mb("contraction", "audit_grid", CONTRACTION)),
        runtime=5,
    params:
        audit=CONTRACTION["audit"],
        setting=audit_config,
    script:
        "../scripts/contraction_audit_grid.py"


rule contraction_audit_mc:
    """Monte-Carlo lower bounds at one position: events fixed from the grid, exact PNSGD simulated by the torch engine
    (one job per configuration and position, each with its own seed)."""
    input:
        laws=rules.contraction_audit_grid.output.laws,
        grid=rules.contraction_audit_grid.output.grid,
        code=dplab_sources("dplab.studies.contraction.audit"),
    output:
        f"{WORK}/contraction/audit/{{cfg}}/mc_{{i}}.csv",
    log:
        f"{LOGS}/contraction_audit_mc/{{cfg}}/{{i}}.log",
    benchmark:
        f"{BENCH}/contraction_audit_mc/{{cfg}}/{{i}}.tsv"
    wildcard_constraints:
        i=r"\d+",
    conda:
        CONDA_ENV
    threads: config["threads"]
    resources:
        mem_mb=1500,
        runtime=10,
    params:
        audit=CONTRACTION["audit"],
        setting=audit_config,
        seed=lambda wc: config["seed"],
    script:
        "../scripts/contraction_audit_mc.py"


rule contraction_audit:
    """Bound, grid-exact value and Monte-Carlo lower bound side by side; stops if any measurement exceeds a bound."""
    input:
        grids=lambda wc: expand(f"{WORK}/contraction/audit/{{cfg}}/grid.csv", cfg=audited_configs(wc)),
        mcs=position_audits,
        code=dplab_sources("dplab.studies.contraction.audit"),
    output:
        f"{RESULTS}/contraction/data/ext_audit_{{noise}}.csv",
    log:
        f"{LOGS}/contraction_audit/{{noise}}.log",
    benchmark:
        f"{BENCH}/contraction_audit/{{noise}}.tsv"
    conda:
        CONDA_ENV
    resources:
        mem_mb=1000,
        runtime=5,
    params:
        audit=CONTRACTION["audit"],
        configs=audited_configs,
    script:
        "../scripts/contraction_audit.py"


rule contraction_random_stopping:
    """Theorem 5 (randomly stopped PNSGD) against the grid-exact law of the randomly stopped chain."""
    input:
        code=dplab_sources("dplab.studies.contraction.audit"),
    output:
        f"{RESULTS}/contraction/data/ext_random_stopping.csv",
    log:
        f"{LOGS}/contraction_random_stopping.log",
    benchmark:
        f"{BENCH}/contraction_random_stopping.tsv"
    conda:
        CONDA_ENV
    resources:
        mem_mb=1000,
        runtime=5,
    params:
        audit=CONTRACTION["audit"],
        stopping=CONTRACTION["random_stopping"],
        setting=CONTRACTION["audit"]["configs"][CONTRACTION["random_stopping"]["config"]],
    script:
        "../scripts/contraction_random_stopping.py"
