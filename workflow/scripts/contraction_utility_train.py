"""Train many PNSGD models at once on synthetic logistic regression (one noise type)."""

import numpy as np

from dplab.report.io import write_csv
from dplab.seeding import derive_seed
from dplab.studies.contraction.utility import train_utility
from dplab.workflow_helpers import mock_snakemake, progress, setup_script

if (
    "snakemake" not in globals()
):  # run directly, e.g. python workflow/scripts/contraction_utility_train.py, from the repository
    snakemake = mock_snakemake("contraction_utility_train", configfiles=("config.quick.yaml",), noise="gaussian")
log = setup_script(snakemake)
params = snakemake.params
noise = snakemake.wildcards.noise
with np.load(snakemake.input.data) as archive:
    data = {key: archive[key] for key in archive.files}
seed = derive_seed(params.seed, snakemake.rule, noise)
frame = train_utility(noise, data, params.utility, seed=seed, progress=lambda x: progress(list(x)))
log.info("seed %d\n%s", seed, frame.to_string())
write_csv(frame, snakemake.output[0])
