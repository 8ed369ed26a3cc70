"""Train many PNSGD models at once on synthetic logistic regression (one noise type)."""

import numpy as np

from dplab.report.io import write_csv
from dplab.seeding import derive_seed
from dplab.studies.contraction.utility import train_utility
from dplab.workflow_helpers import progress, setup_script

log = setup_script(snakemake)  # noqa: F821
params = snakemake.params  # noqa: F821
noise = snakemake.wildcards.noise  # noqa: F821
with np.load(snakemake.input.data) as archive:  # noqa: F821
    data = {key: archive[key] for key in archive.files}
seed = derive_seed(params.seed, snakemake.rule, noise)  # noqa: F821
frame = train_utility(noise, data, params.utility, seed=seed, progress=lambda x: progress(list(x)))
log.info("seed %d\n%s", seed, frame.to_string())
write_csv(frame, snakemake.output[0])  # noqa: F821
