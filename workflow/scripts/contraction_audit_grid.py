"""Grid-exact output laws of PNSGD on every neighbouring instance and position (our audit design for Asoodeh et al. 2020)."""

from dplab.workflow.jobserver import delegate

delegate()  # forked from the run's job server when it has one: the imports below are then already paid

import numpy as np

from dplab.report.io import atomic_path, write_csv
from dplab.studies.contraction.audit import grid_audit
from dplab.workflow.helpers import mock_snakemake, progress, record_outputs, setup_script

if (
    "snakemake" not in globals()
):  # run directly, e.g. python workflow/scripts/contraction_audit_grid.py, from the repository
    snakemake = mock_snakemake("contraction_audit_grid", configfiles=("config.quick.yaml",), cfg="G1")
log = setup_script(snakemake)
audit, setting = snakemake.params.audit, snakemake.params.setting
frame, laws = grid_audit(audit, setting, audit["instances"], audit["positions"], progress=lambda x: progress(list(x)))
log.info("largest grid delta %.6f", frame["delta_grid"].max())
write_csv(frame, snakemake.output.grid)
with atomic_path(snakemake.output.laws) as temporary:
    with open(temporary, "wb") as handle:
        np.savez_compressed(handle, **laws)
record_outputs(snakemake)
