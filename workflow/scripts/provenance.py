"""results/provenance.json: versions, commit, configuration hash and date."""

import json

from dplab.report.io import write_text
from dplab.report.provenance import provenance
from dplab.workflow_helpers import setup_script

log = setup_script(snakemake)  # noqa: F821
record = provenance(snakemake.params.config, snakemake.params.repo)  # noqa: F821
write_text(json.dumps(record, indent=2, sort_keys=True, default=str) + "\n", snakemake.output[0])  # noqa: F821
