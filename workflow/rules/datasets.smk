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
    resources:
        mem_mb=1000,
        runtime=5,
    script:
        "../scripts/logistic_dataset.py"
