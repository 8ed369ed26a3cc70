"""Epsilon at fixed delta against the domain diameter: Theorem 4 against Proposition 1."""

from dplab.report.io import write_csv
from dplab.studies.contraction.curves import regime_map
from dplab.workflow_helpers import mock_snakemake, setup_script

if (
    "snakemake" not in globals()
):  # run directly, e.g. python workflow/scripts/contraction_regime.py, from the repository
    snakemake = mock_snakemake("contraction_regime", configfiles=("config.quick.yaml",))
log = setup_script(snakemake)
frame = regime_map(snakemake.params.regime)
write_csv(frame, snakemake.output[0])
