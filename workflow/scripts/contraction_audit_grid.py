"""Grid-exact output laws of PNSGD on every neighbouring instance and position (spec 4.2-4.3)."""

import numpy as np

from dplab.report.io import atomic_path, write_csv
from dplab.studies.contraction.audit import grid_audit
from dplab.workflow_helpers import progress, setup_script

log = setup_script(snakemake)  # noqa: F821
audit, setting = snakemake.params.audit, snakemake.params.setting  # noqa: F821
frame, laws = grid_audit(audit, setting, audit["instances"], audit["positions"], progress=lambda x: progress(list(x)))
log.info("largest grid delta %.6f", frame["delta_grid"].max())
write_csv(frame, snakemake.output.grid)  # noqa: F821
with atomic_path(snakemake.output.laws) as temporary:  # noqa: F821
    with open(temporary, "wb") as handle:
        np.savez_compressed(handle, **laws)
