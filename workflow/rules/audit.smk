# Empirical privacy: grid-exact hockey-stick divergences of projected 1-D chains, and Monte-Carlo lower bounds.


def audit_config(wc):
    return CONTRACTION["audit"]["configs"][wc.cfg]


rule contraction_audit_grid:
    """Exact numerical law of PNSGD's output on every neighbouring instance, position and epsilon (spec 4.2-4.3)."""
    input:
        code=dplab_sources("dplab.studies.contraction.audit"),
    output:
        grid=f"{WORK}/contraction/audit/{{cfg}}/grid.csv",
        laws=f"{WORK}/contraction/audit/{{cfg}}/laws.npz",
    params:
        audit=CONTRACTION["audit"],
        setting=audit_config,
    log:
        f"{LOGS}/contraction_audit_grid/{{cfg}}.log",
    benchmark:
        f"{BENCH}/contraction_audit_grid/{{cfg}}.tsv"
    resources:
        mem_mb=1000,
        runtime=5,
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
    wildcard_constraints:
        i=r"\d+",
    params:
        audit=CONTRACTION["audit"],
        setting=audit_config,
        seed=lambda wc: config["seed"],
    log:
        f"{LOGS}/contraction_audit_mc/{{cfg}}/{{i}}.log",
    benchmark:
        f"{BENCH}/contraction_audit_mc/{{cfg}}/{{i}}.tsv"
    threads: config["threads"]
    resources:
        mem_mb=1500,
        runtime=10,
    script:
        "../scripts/contraction_audit_mc.py"


def audited_configs(wc):
    configs = CONTRACTION["audit"]["configs"]
    return [name for name in CONTRACTION["audit"]["run"] if configs[name]["noise"] == wc.noise]


def position_audits(wc):
    """The Monte-Carlo files of every audited configuration of this noise, one per position (ascending)."""
    positions = sorted(CONTRACTION["audit"]["positions"])
    return [f"{WORK}/contraction/audit/{name}/mc_{i}.csv" for name in audited_configs(wc) for i in positions]


rule contraction_audit:
    """Bound, grid-exact value and Monte-Carlo lower bound side by side; stops if any measurement exceeds a bound."""
    input:
        grids=lambda wc: expand(f"{WORK}/contraction/audit/{{cfg}}/grid.csv", cfg=audited_configs(wc)),
        mcs=position_audits,
        code=dplab_sources("dplab.studies.contraction.audit"),
    output:
        f"{RESULTS}/contraction/data/ext_audit_{{noise}}.csv",
    params:
        audit=CONTRACTION["audit"],
        configs=audited_configs,
    log:
        f"{LOGS}/contraction_audit/{{noise}}.log",
    benchmark:
        f"{BENCH}/contraction_audit/{{noise}}.tsv"
    resources:
        mem_mb=1000,
        runtime=5,
    script:
        "../scripts/contraction_audit.py"


rule contraction_random_stopping:
    """Theorem 5 (randomly stopped PNSGD) against the grid-exact law of the randomly stopped chain."""
    input:
        code=dplab_sources("dplab.studies.contraction.audit"),
    output:
        f"{RESULTS}/contraction/data/ext_random_stopping.csv",
    params:
        audit=CONTRACTION["audit"],
        stopping=CONTRACTION["random_stopping"],
        setting=CONTRACTION["audit"]["configs"][CONTRACTION["random_stopping"]["config"]],
    log:
        f"{LOGS}/contraction_random_stopping.log",
    benchmark:
        f"{BENCH}/contraction_random_stopping.tsv"
    resources:
        mem_mb=1000,
        runtime=5,
    script:
        "../scripts/contraction_random_stopping.py"
