"""Lemmas 1-2, Theorem 2 and the Renyi form of eq. (3), checked against independent references."""

from dplab.report.tables import write_table
from dplab.studies.contraction.lemmas import lemma_table
from dplab.workflow_helpers import setup_script

log = setup_script(snakemake)  # noqa: F821
table = lemma_table()
log.info("largest discrepancy %.3g", table["max_abs_error"].max())
write_table(table, snakemake.output[0].removesuffix(".csv"),  # noqa: F821
            caption="Closed forms of Asoodeh et al. (2020) against quadrature, dp_accounting and brute force.")
