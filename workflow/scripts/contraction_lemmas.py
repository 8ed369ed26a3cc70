"""Lemmas 1-2, Theorem 2 and the Renyi form of eq. (3), checked against independent references."""

from dplab.report.tables import write_table
from dplab.studies.contraction.lemmas import lemma_table
from dplab.workflow_helpers import mock_snakemake, setup_script

if (
    "snakemake" not in globals()
):  # run directly, e.g. python workflow/scripts/contraction_lemmas.py, from the repository
    snakemake = mock_snakemake("contraction_lemmas", configfiles=("config.quick.yaml",))
log = setup_script(snakemake)
table = lemma_table()
log.info("largest discrepancy %.3g", table["max_abs_error"].max())
write_table(
    table,
    snakemake.output[0].removesuffix(".csv"),
    caption="Closed forms of Asoodeh et al. (2020) against quadrature, dp_accounting and brute force.",
)
