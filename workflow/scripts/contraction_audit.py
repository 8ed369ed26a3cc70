"""Bounds, grid-exact values and Monte-Carlo lower bounds side by side; stop if a measurement exceeds a bound."""

import pandas as pd

from dplab.report.io import write_csv
from dplab.studies.contraction.audit import AuditViolation, bound_violations, merge_audit
from dplab.workflow_helpers import mock_snakemake, setup_script

if "snakemake" not in globals():  # run directly, e.g. python workflow/scripts/contraction_audit.py, from the repository
    snakemake = mock_snakemake("contraction_audit", configfiles=("config.quick.yaml",), noise="gaussian")
log = setup_script(snakemake)
params = snakemake.params
names = params.configs
settings = {name: params.audit["configs"][name] for name in names}
grids = {name: pd.read_csv(path) for name, path in zip(names, snakemake.input.grids, strict=True)}
count = len(params.audit["positions"])  # one Monte-Carlo file per configuration and position, in that order
per_position = iter(pd.read_csv(path) for path in snakemake.input.mcs)
mcs = {name: pd.concat([next(per_position) for _ in range(count)], ignore_index=True) for name in names}
frame = merge_audit(params.audit, settings, grids, mcs)
bounds = ["bound_theorem"] + (["bound_prop1"] if frame["bound_prop1"].notna().any() else [])
violations = bound_violations(frame, ["delta_grid", "mc_lower"], bounds)
if len(violations):
    raise AuditViolation(f"{len(violations)} measurements exceed a theorem's bound:\n{violations.to_string()}")
soft = frame[frame["mc_minus_grid"] > 1e-3]
log.info("all %d points below the bounds; MC lower > grid + 1e-3 at %d points", len(frame), len(soft))
write_csv(frame, snakemake.output[0])
