"""Every product of the pre-processing study's pipeline made in one process, in the order the workflow's rules make
them (datasets, pre-processed datasets, sensitivity trials): for tests and notebooks. Above both
:mod:`~dplab.studies.preprocessing.pipeline` and :mod:`~dplab.studies.preprocessing.sensitivity`, so neither imports
the other in a cycle."""

from __future__ import annotations

import os
from collections.abc import Mapping
from pathlib import Path
from typing import Any

from dplab.studies.preprocessing.pipeline import (
    STEP_DATASET,
    dataset_names,
    dataset_path,
    preprocess_jobs,
    preprocessed_path,
    trials_path,
    write_dataset,
    write_preprocessed,
)
from dplab.studies.preprocessing.sensitivity import write_trials

__all__ = ["build_products"]


def build_products(
    study_config: Mapping[str, Any], seed: int, folder: str | os.PathLike[str], progress=iter
) -> dict[str, Path]:
    """Make every product in-process under ``folder`` (what the rules do, in order; for tests and notebooks) and
    return ``folder`` as a Path."""
    root = Path(folder)
    for name in dataset_names(study_config):
        write_dataset(name, study_config, seed, root / dataset_path(name))
    for dataset, step in preprocess_jobs(study_config):
        write_preprocessed(
            dataset, step, study_config, root / dataset_path(dataset), root / preprocessed_path(dataset, step)
        )
    for step, dataset in STEP_DATASET.items():
        write_trials(
            step,
            study_config,
            seed,
            root / dataset_path(dataset),
            root / preprocessed_path(dataset, step),
            root / trials_path(step),
            progress,
        )
    return root
