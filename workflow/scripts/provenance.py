"""results/provenance.json: versions, commit, configuration hash and date."""

from dplab.workflow.jobserver import delegate

delegate()  # forked from the run's job server when it has one: the imports below are then already paid

import json

from dplab.report.io import write_text
from dplab.report.provenance import provenance
from dplab.workflow.helpers import mock_snakemake, record_outputs, setup_script

if "snakemake" not in globals():  # run directly, e.g. python workflow/scripts/provenance.py, from the repository
    snakemake = mock_snakemake("provenance", configfiles=("config.quick.yaml",))
log = setup_script(snakemake)
record = provenance(snakemake.params.config, snakemake.params.repo)
write_text(json.dumps(record, indent=2, sort_keys=True, default=str) + "\n", snakemake.output[0])
record_outputs(snakemake)
