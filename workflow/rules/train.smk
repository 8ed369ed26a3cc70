# Training private models with the noisy-gradient engine (many runs at once).


rule contraction_utility_train:
    """PNSGD (Gaussian in d dimensions, Laplace in 1-D) on logistic regression over noise scales and step sizes."""
    input:
        data=f"{WORK}/datasets/contraction_logistic_{{noise}}.npz",
        code=dplab_sources("dplab.studies.contraction.utility"),
    output:
        f"{WORK}/contraction/utility/{{noise}}.csv",
    log:
        f"{LOGS}/contraction_utility_train/{{noise}}.log",
    benchmark:
        f"{BENCH}/contraction_utility_train/{{noise}}.tsv"
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


rule contraction_utility:
    """Test loss and excess risk next to the epsilon the theorems certify for the first, middle and last user."""
    input:
        runs=expand(f"{WORK}/contraction/utility/{{noise}}.csv", noise=CONTRACTION["utility"]["noise_types"]),
        code=dplab_sources("dplab.studies.contraction.utility"),
    output:
        data=f"{RESULTS}/contraction/data/ext_utility.csv",
        table=in_report(f"{RESULTS}/contraction/tables/ext_utility.csv", "contraction", "tables"),
        table_md=f"{RESULTS}/contraction/tables/ext_utility.md",
    log:
        f"{LOGS}/contraction_utility.log",
    benchmark:
        f"{BENCH}/contraction_utility.tsv"
    conda:
        CONDA_ENV
    resources:
        mem_mb=1000,
        runtime=5,
    params:
        caption=contraction_caption("ext_utility"),
        utility=CONTRACTION["utility"],
    script:
        "../scripts/contraction_utility.py"
