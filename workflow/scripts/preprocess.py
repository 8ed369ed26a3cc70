"""Apply one pre-processing step to one dataset."""

from dplab.workflow.jobserver import delegate

delegate()  # forked from the run's job server when it has one: the imports below are then already paid

from dplab.studies.preprocessing.pipeline import write_preprocessed
from dplab.workflow.helpers import mock_snakemake, record_outputs, setup_script

if "snakemake" not in globals():  # run directly, e.g. python workflow/scripts/preprocess.py
    snakemake = mock_snakemake("preprocess", configfiles=("config.quick.yaml",), dataset="clusters", step="dedup")
log = setup_script(snakemake)
wc = snakemake.wildcards
write_preprocessed(wc.dataset, wc.step, snakemake.params.sections, snakemake.input.data, snakemake.output[0])
log.info("%s applied to %s", wc.step, wc.dataset)
record_outputs(snakemake)
