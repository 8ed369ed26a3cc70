# Training private models with the noisy-gradient engine (many runs at once). The contraction study's utility
# artifact (ext_utility, studies.smk) reads the runs (Artifact.inputs in dplab.studies.contraction).

if "contraction" in config["studies"]:

    rule contraction_utility_train:
        """PNSGD (Gaussian in d dimensions, Laplace in 1-D) on logistic regression over noise scales and step
        sizes."""
        input:
            data=f"{WORK}/datasets/contraction_logistic_{{noise}}.npz",
            code=dplab_sources("dplab.studies.contraction.utility"),
        output:
            f"{CONTRACTION_WORK}/utility/{{noise}}.csv",
        log:
            f"{LOGS}/contraction_utility_train/{{noise}}.log",
        benchmark:
            f"{BENCH}/contraction_utility_train/{{noise}}.tsv"
        wildcard_constraints:
            noise="gaussian|laplace",
        conda:
            CONDA_ENV
        threads: config["threads"]
        resources:
            mem_mb=1500,
            runtime=10,
        params:
            utility=CONTRACTION["utility"],
            seed=config["seed"],
        script:
            "../scripts/contraction_utility_train.py"
