"""Draw one synthetic dataset of the pre-processing study."""

from dplab.workflow.jobserver import delegate

delegate()  # forked from the run's job server when it has one: the imports below are then already paid

from dplab.seeding import derive_seed
from dplab.studies.preprocessing.pipeline import write_dataset
from dplab.workflow.helpers import mock_snakemake, record_outputs, setup_script

if "snakemake" not in globals():  # run directly, e.g. python workflow/scripts/preprocessing_dataset.py
    snakemake = mock_snakemake("preprocessing_dataset", configfiles=("config.quick.yaml",), dataset="clusters")
log = setup_script(snakemake)
seed = derive_seed(snakemake.params.seed, "preprocessing")
write_dataset(snakemake.wildcards.dataset, snakemake.params.sections, seed, snakemake.output[0])
log.info("dataset %s written to %s", snakemake.wildcards.dataset, snakemake.output[0])
record_outputs(snakemake)
