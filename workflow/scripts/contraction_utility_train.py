"""Train many PNSGD models at once on synthetic logistic regression (one noise type)."""

from dplab.workflow.jobserver import delegate

delegate()  # forked from the run's job server when it has one: the imports below are then already paid

from dplab.report.io import load_arrays, write_csv
from dplab.seeding import derive_seed
from dplab.studies.contraction.utility import train_utility
from dplab.workflow.helpers import mock_snakemake, progress, record_outputs, setup_script

if (
    "snakemake" not in globals()
):  # run directly, e.g. python workflow/scripts/contraction_utility_train.py, from the repository
    snakemake = mock_snakemake("contraction_utility_train", configfiles=("config.quick.yaml",), noise="gaussian")
log = setup_script(snakemake)
params = snakemake.params
noise = snakemake.wildcards.noise
data = load_arrays(snakemake.input.data)
seed = derive_seed(params.seed, snakemake.rule, noise)
frame = train_utility(noise, data, params.utility, seed=seed, progress=lambda x: progress(list(x)))
log.info("seed %d\n%s", seed, frame.to_string())
write_csv(frame, snakemake.output[0])
record_outputs(snakemake)
