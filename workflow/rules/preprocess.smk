# Pre-processing as steps of the pipeline (Hu, Sanyal, Schölkopf): each step applied to a synthetic dataset of
# datasets.smk, and its empirical sensitivity over many single-record replacements. The pre-processing study's
# artifacts read these files (Artifact.inputs in dplab.studies.preprocessing).

if "preprocessing" in config["studies"]:

    rule preprocess:
        """One pre-processing step (deduplication, quantization, an imputation, PCA rank or dimension reduction)
        applied to one dataset: the pre-processed values and which records were kept."""
        input:
            data=f"{PREPROCESSING_WORK}/datasets/{{dataset}}.npz",
            code=dplab_sources("dplab.studies.preprocessing.pipeline"),
        output:
            f"{PREPROCESSING_WORK}/preprocessed/{{dataset}}/{{step}}.npz",
        log:
            f"{LOGS}/preprocess/{{dataset}}/{{step}}.log",
        benchmark:
            f"{BENCH}/preprocess/{{dataset}}/{{step}}.tsv"
        wildcard_constraints:
            step="|".join(preprocessing_pipeline.STEPS),
        conda:
            CONDA_ENV
        resources:
            mem_mb=750,
            runtime=5,
        params:
            sections=preprocessing_step_sections,
        script:
            "../scripts/preprocess.py"

    rule preprocessing_sensitivity:
        """Realised sensitivities (Delta_inf, Delta_2) of one step over random and adversarial single-record
        replacements of its dataset, with the parameters its bound depends on, one row per replacement."""
        input:
            data=lambda wc: f"{PREPROCESSING_WORK}/datasets/{preprocessing_pipeline.STEP_DATASET[wc.step]}.npz",
            preprocessed=lambda wc: (
                f"{PREPROCESSING_WORK}/preprocessed/{preprocessing_pipeline.STEP_DATASET[wc.step]}/{wc.step}.npz"
            ),
            code=dplab_sources("dplab.studies.preprocessing.sensitivity"),
        output:
            f"{PREPROCESSING_WORK}/sensitivity/{{step}}.csv",
        log:
            f"{LOGS}/preprocessing_sensitivity/{{step}}.log",
        benchmark:
            f"{BENCH}/preprocessing_sensitivity/{{step}}.tsv"
        wildcard_constraints:
            step="|".join(preprocessing_pipeline.STEPS),
        conda:
            CONDA_ENV
        resources:
            mem_mb=750,
            runtime=5,
        params:
            sections={"sensitivity": config["preprocessing"]["sensitivity"]},
            seed=config["seed"],
        script:
            "../scripts/preprocessing_sensitivity.py"
