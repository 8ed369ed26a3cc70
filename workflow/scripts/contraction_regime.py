"""Epsilon at fixed delta against the domain diameter: Theorem 4 against Proposition 1."""

from dplab.report.io import write_csv
from dplab.studies.contraction.curves import regime_map
from dplab.workflow_helpers import setup_script

log = setup_script(snakemake)  # noqa: F821
frame = regime_map(snakemake.params.regime)  # noqa: F821
write_csv(frame, snakemake.output[0])  # noqa: F821
