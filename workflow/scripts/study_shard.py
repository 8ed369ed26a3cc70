"""Compute one shard of a sweep artifact's points (every shards-th point) and keep its rows for the combining job."""

from dplab.workflow.jobserver import delegate

delegate()  # forked from the run's job server when it has one: the imports below are then already paid

from pathlib import Path

from dplab.report.io import atomic_path
from dplab.workflow.helpers import mock_snakemake, progress, record_outputs, setup_script
from dplab.workflow.registry import compute_shard, load_study, shard_points

if "snakemake" not in globals():  # run directly, e.g. python workflow/scripts/study_shard.py, from the repository
    snakemake = mock_snakemake("purification_ext_dp_erm_shard", configfiles=("config.quick.yaml",), shard="0")
log = setup_script(snakemake)
study, artifact_id = snakemake.params.study, snakemake.params.artifact
artifact = load_study(study).artifact(artifact_id)
seed = artifact.seed(snakemake.params.seed, study)  # the artifact's seed: the same for every shard
section = snakemake.params.section
indices = shard_points(len(artifact.sweep(section)), snakemake.params.shards, int(snakemake.wildcards.shard))
log.info("seed %d, points %s", seed, indices)
inputs = {name: Path(path) for name, path in snakemake.params.inputs.items()}
rows = compute_shard(artifact, section, seed, indices, lambda x: progress(list(x)), inputs)
log.info("%d rows", len(rows))
with atomic_path(snakemake.output[0]) as temporary:
    rows.to_pickle(temporary)
record_outputs(snakemake)
