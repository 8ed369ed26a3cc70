"""Realised sensitivities of one pre-processing step over single-record replacements of its dataset."""

from dplab.workflow.jobserver import delegate

delegate()  # forked from the run's job server when it has one: the imports below are then already paid

from dplab.seeding import derive_seed
from dplab.studies.preprocessing.sensitivity import write_trials
from dplab.workflow.helpers import mock_snakemake, progress, record_outputs, setup_script

if "snakemake" not in globals():  # run directly, e.g. python workflow/scripts/preprocessing_sensitivity.py
    snakemake = mock_snakemake("preprocessing_sensitivity", configfiles=("config.quick.yaml",), step="dedup")
log = setup_script(snakemake)
seed = derive_seed(snakemake.params.seed, "preprocessing")
write_trials(
    snakemake.wildcards.step,
    snakemake.params.sections,
    seed,
    snakemake.input.data,
    snakemake.input.preprocessed,
    snakemake.output[0],
    lambda x: progress(list(x)),
)
log.info("trials of %s written to %s", snakemake.wildcards.step, snakemake.output[0])
record_outputs(snakemake)
