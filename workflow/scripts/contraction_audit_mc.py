"""Monte-Carlo lower bounds on delta at one position: events from the grid, outputs simulated by the torch engine."""

import numpy as np
import pandas as pd

from dplab.report.io import write_csv
from dplab.seeding import derive_seed
from dplab.studies.contraction.audit import monte_carlo_audit
from dplab.workflow_helpers import mock_snakemake, progress, setup_script

if (
    "snakemake" not in globals()
):  # run directly, e.g. python workflow/scripts/contraction_audit_mc.py, from the repository
    snakemake = mock_snakemake("contraction_audit_mc", configfiles=("config.quick.yaml",), cfg="G1", i="1")
log = setup_script(snakemake)
params = snakemake.params
grid_frame = pd.read_csv(snakemake.input.grid)
with np.load(snakemake.input.laws) as archive:
    laws = {key: archive[key] for key in archive.files}
seed = derive_seed(params.seed, snakemake.rule, snakemake.wildcards.cfg)
frame = monte_carlo_audit(
    params.audit,
    params.setting,
    grid_frame,
    laws,
    seed=seed,
    positions=[int(snakemake.wildcards.i)],
    progress=lambda x: progress(list(x)),
)
log.info("seed %d; largest MC lower bound %.6f", seed, frame["mc_lower"].max())
write_csv(frame, snakemake.output[0])
