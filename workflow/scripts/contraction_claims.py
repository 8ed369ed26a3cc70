"""claims.csv of the contraction study: a verdict and its numbers for every claim and erratum."""

from pathlib import Path

import pandas as pd

from dplab.report.claims import write_claims
from dplab.studies.contraction.claims import build_claims
from dplab.workflow_helpers import mock_snakemake, setup_script

if (
    "snakemake" not in globals()
):  # run directly, e.g. python workflow/scripts/contraction_claims.py, from the repository
    snakemake = mock_snakemake("contraction_claims", configfiles=("config.quick.yaml",))
log = setup_script(snakemake)
frames = {Path(path).stem: pd.read_csv(path) for path in snakemake.input.data}
claims = build_claims(frames, pd.read_csv(snakemake.input.lemmas), snakemake.params.config)
for claim in claims:
    log.info("%s: %s", claim.claim_id, claim.verdict)
write_claims(claims, snakemake.output[0])
