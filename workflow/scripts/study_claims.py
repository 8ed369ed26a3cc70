"""claims.csv of a registered study."""

from dplab.workflow.jobserver import delegate

delegate()  # forked from the run's job server when it has one: the imports below are then already paid

from pathlib import Path

import pandas as pd

from dplab.report.claims import write_claims
from dplab.workflow.helpers import mock_snakemake, record_outputs, setup_script
from dplab.workflow.registry import load_study, resolve

if "snakemake" not in globals():  # run directly, e.g. python workflow/scripts/study_claims.py, from the repository
    snakemake = mock_snakemake("generalization_claims", configfiles=("config.quick.yaml",))
log = setup_script(snakemake)
frames = {Path(path).stem: pd.read_csv(path) for path in snakemake.input.frames}
claims = resolve(load_study(snakemake.params.study).claims)(frames, snakemake.params.config)
for claim in claims:
    log.info("%s: %s", claim.claim_id, claim.verdict)
write_claims(claims, snakemake.output[0])
record_outputs(snakemake)
