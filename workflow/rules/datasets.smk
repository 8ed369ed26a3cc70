# Synthetic datasets (no downloads: everything is generated from the configuration's seed).


if "contraction" in config["studies"]:

    rule logistic_dataset:
        """Synthetic logistic-regression data (train and test) for our PNSGD utility experiment (ext_utility)."""
        input:
            code=dplab_sources("dplab.data.synthetic"),
        output:
            f"{WORK}/datasets/contraction_logistic_{{noise}}.npz",
        log:
            f"{LOGS}/logistic_dataset/{{noise}}.log",
        benchmark:
            f"{BENCH}/logistic_dataset/{{noise}}.tsv"
        wildcard_constraints:
            noise="gaussian|laplace",
        conda:
            CONDA_ENV
        resources:
            mem_mb=1000,
            runtime=5,
        params:
            data=lambda wc: CONTRACTION["utility"][wc.noise],
            test_size=CONTRACTION["utility"]["test_size"],
            seed=config["seed"],
        script:
            "../scripts/logistic_dataset.py"


if "preprocessing" in config["studies"]:

    rule preprocessing_dataset:
        """A synthetic dataset with the structure a pre-processing bound assumes (near-duplicate clusters, missing
        values at a controlled rate, low rank with a known eigen-gap), or a labelled dataset of Fig. 3 or PTR."""
        input:
            code=dplab_sources("dplab.studies.preprocessing.pipeline"),
        output:
            f"{PREPROCESSING_WORK}/datasets/{{dataset}}.npz",
        log:
            f"{LOGS}/preprocessing_dataset/{{dataset}}.log",
        benchmark:
            f"{BENCH}/preprocessing_dataset/{{dataset}}.tsv"
        wildcard_constraints:
            dataset="|".join(preprocessing_pipeline.dataset_names(config["preprocessing"])),
        conda:
            CONDA_ENV
        resources:
            mem_mb=750,
            runtime=5,
        params:
            sections=preprocessing_dataset_sections,
            seed=config["seed"],
        script:
            "../scripts/preprocessing_dataset.py"
