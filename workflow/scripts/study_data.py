"""Compute one artifact (figure data or table) of a registered study."""

from dplab.workflow.jobserver import delegate

delegate()  # forked from the run's job server when it has one: the imports below are then already paid

from pathlib import Path

import pandas as pd

from dplab.report.io import write_csv
from dplab.report.tables import write_table
from dplab.workflow.helpers import mock_snakemake, progress, record_outputs, setup_script
from dplab.workflow.registry import combine_shards, compute_artifact, load_study, resolve

if "snakemake" not in globals():  # run directly, e.g. python workflow/scripts/study_data.py, from the repository
    snakemake = mock_snakemake("generalization_f1", configfiles=("config.quick.yaml",))
log = setup_script(snakemake)
study, artifact_id = snakemake.params.study, snakemake.params.artifact
artifact = load_study(study).artifact(artifact_id)
seed = artifact.seed(snakemake.params.seed, study)
log.info("seed %d", seed)
if artifact.points and snakemake.input.shards:
    frame = combine_shards(
        artifact, [pd.read_pickle(path) for path in snakemake.input.shards], snakemake.params.section
    )
elif artifact.derived_from:
    frame = resolve(artifact.compute)(pd.read_csv(snakemake.input.source[0]), snakemake.params.section)
else:  # computed in this job: an artifact, or every point of a sweep run as one shard
    inputs = {name: Path(path) for name, path in snakemake.params.inputs.items()}
    frame = compute_artifact(artifact, snakemake.params.section, seed, lambda x: progress(list(x)), inputs)
log.info("%d rows, columns %s", len(frame), list(frame.columns))
if artifact.kind == "figure":
    write_csv(frame, snakemake.output.csv)
    if artifact.table:  # the figure's numbers as a table too (Artifact.table)
        shown = resolve(artifact.table)(frame, snakemake.params.section)
        write_table(
            shown,
            snakemake.output.table.removesuffix(".csv"),
            caption=artifact.caption,
            glossary=snakemake.params.glossary,
        )
else:
    summary = resolve(artifact.summary)(frame, snakemake.params.section) if artifact.summary else None
    write_table(
        frame,
        snakemake.output[0].removesuffix(".csv"),
        caption=artifact.caption,
        summary=summary,
        glossary=snakemake.params.glossary,
    )
record_outputs(snakemake)
