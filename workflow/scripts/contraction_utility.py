"""Utility table: training results next to the epsilon the theorems certify."""

import pandas as pd

from dplab.report.io import write_csv
from dplab.report.tables import write_table
from dplab.studies.contraction.utility import utility_table
from dplab.workflow_helpers import mock_snakemake, setup_script

if (
    "snakemake" not in globals()
):  # run directly, e.g. python workflow/scripts/contraction_utility.py, from the repository
    snakemake = mock_snakemake("contraction_utility", configfiles=("config.quick.yaml",))
log = setup_script(snakemake)
runs = pd.concat([pd.read_csv(path) for path in snakemake.input.runs], ignore_index=True)
table = utility_table(runs, snakemake.params.utility["delta"])
write_csv(table, snakemake.output.data)
shown = table[
    [
        "noise",
        "d",
        "lr",
        "noise_scale",
        "excess_risk_mean",
        "excess_risk_se",
        "test_accuracy_mean",
        "epsilon_thm_first",
        "epsilon_thm_middle",
        "epsilon_thm_last",
        "epsilon_prop1_middle",
        "epsilon_thm5",
    ]
]
write_table(
    shown,
    snakemake.output.table.removesuffix(".csv"),
    caption=f"PNSGD utility and certified epsilon at delta = {snakemake.params.utility['delta']:g}.",
)
