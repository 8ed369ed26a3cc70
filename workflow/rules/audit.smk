# Empirical privacy: grid-exact output laws of projected 1-D chains, one job per audited configuration. The contraction
# study's audit artifacts (ext_audit_gaussian, ext_audit_laplace: Monte-Carlo lower bounds per (configuration,
# position), studies.smk) read them (Artifact.inputs in dplab.studies.contraction).

if "contraction" in config["studies"]:

    rule contraction_audit_grid:
        """Exact numerical law of PNSGD's output on every neighbouring instance, position and epsilon (Theorems 3
        and 4 of Asoodeh et al. audited)."""
        input:
            code=dplab_sources("dplab.studies.contraction.audit"),
        output:
            grid=f"{CONTRACTION_WORK}/audit/{{cfg}}/grid.csv",
            laws=f"{CONTRACTION_WORK}/audit/{{cfg}}/laws.npz",
        log:
            f"{LOGS}/contraction_audit_grid/{{cfg}}.log",
        benchmark:
            f"{BENCH}/contraction_audit_grid/{{cfg}}.tsv"
        wildcard_constraints:
            cfg="|".join(CONTRACTION["audit"]["configs"]),
        conda:
            CONDA_ENV
        resources:
            mem_mb=job_mem_mb("contraction", "audit_grid", CONTRACTION),
            runtime=5,
        params:
            audit=CONTRACTION["audit"],
            setting=lambda wc: CONTRACTION["audit"]["configs"][wc.cfg],
        script:
            "../scripts/contraction_audit_grid.py"
