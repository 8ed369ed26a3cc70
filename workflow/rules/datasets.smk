# Synthetic datasets (no downloads: everything is generated from the configuration's seed).


rule logistic_dataset:
    """Synthetic logistic-regression data (train and test) for PNSGD's utility, spec section 4.5."""
    input:
        code=dplab_sources("dplab.data.synthetic"),
    output:
        f"{WORK}/datasets/contraction_logistic_{{noise}}.npz",
    params:
        data=lambda wc: CONTRACTION["utility"][wc.noise],
        test_size=CONTRACTION["utility"]["test_size"],
        seed=config["seed"],
    log:
        f"{LOGS}/logistic_dataset/{{noise}}.log",
    benchmark:
        f"{BENCH}/logistic_dataset/{{noise}}.tsv"
    resources:
        mem_mb=1000,
        runtime=5,
    script:
        "../scripts/logistic_dataset.py"


if "preprocessing" in config["studies"]:
    from dplab.studies.preprocessing import pipeline as preprocessing_pipeline

    PREPROCESSING_WORK = f"{WORK}/preprocessing"

    def preprocessing_dataset_sections(wc):
        """The one configuration section a dataset is drawn from (editing another section does not redraw it)."""
        section = preprocessing_pipeline.dataset_section(wc.dataset)
        return {section: config["preprocessing"][section]}

    rule preprocessing_dataset:
        """A synthetic dataset with the structure a pre-processing bound assumes (near-duplicate clusters, missing
        values at a controlled rate, low rank with a known eigen-gap), or a labelled dataset of Fig. 3 or PTR."""
        input:
            code=dplab_sources("dplab.studies.preprocessing.pipeline"),
        output:
            f"{PREPROCESSING_WORK}/datasets/{{dataset}}.npz",
        wildcard_constraints:
            dataset="|".join(preprocessing_pipeline.dataset_names(config["preprocessing"])),
        params:
            sections=preprocessing_dataset_sections,
            seed=config["seed"],
        log:
            f"{LOGS}/preprocessing_dataset/{{dataset}}.log",
        benchmark:
            f"{BENCH}/preprocessing_dataset/{{dataset}}.tsv"
        resources:
            mem_mb=750,
            runtime=5,
        script:
            "../scripts/preprocessing_dataset.py"
