"""Theorem 5 against the grid-exact randomly stopped chain; stop if the grid exceeds the bound."""

from dplab.report.io import write_csv
from dplab.studies.contraction.audit import AuditViolation, bound_violations, random_stopping_audit
from dplab.workflow_helpers import mock_snakemake, progress, setup_script

if (
    "snakemake" not in globals()
):  # run directly, e.g. python workflow/scripts/contraction_random_stopping.py, from the repository
    snakemake = mock_snakemake("contraction_random_stopping", configfiles=("config.quick.yaml",))
log = setup_script(snakemake)
params = snakemake.params
frame = random_stopping_audit(params.audit, params.stopping, params.setting, progress=lambda x: progress(list(x)))
violations = bound_violations(frame, ["delta_grid"], ["bound_thm5", "bound_thm5_i"])
if len(violations):
    raise AuditViolation(f"{len(violations)} grid values exceed Theorem 5:\n{violations.to_string()}")
write_csv(frame, snakemake.output[0])
