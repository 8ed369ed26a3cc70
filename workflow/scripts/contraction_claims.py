"""claims.csv of the contraction study: a verdict and its numbers for every claim and erratum."""

from pathlib import Path

import pandas as pd

from dplab.report.claims import write_claims
from dplab.studies.contraction.claims import build_claims
from dplab.workflow_helpers import setup_script

log = setup_script(snakemake)  # noqa: F821
frames = {Path(path).stem: pd.read_csv(path) for path in snakemake.input.data}  # noqa: F821
claims = build_claims(frames, pd.read_csv(snakemake.input.lemmas), snakemake.params.config)  # noqa: F821
for claim in claims:
    log.info("%s: %s", claim.claim_id, claim.verdict)
write_claims(claims, snakemake.output[0])  # noqa: F821
