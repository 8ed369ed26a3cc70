"""The pre-processing study's pipeline products, made by workflow rules before any artifact runs:

1. synthetic datasets (rule ``preprocessing_dataset`` in ``datasets.smk``): ``datasets/<name>.npz``;
2. each pre-processing step applied to a dataset (rule ``preprocess`` in ``preprocess.smk``):
   ``preprocessed/<dataset>/<step>.npz`` with the pre-processed values and the ``kept`` mask (∅ = removed);
3. the replacement trials of each step (rule ``preprocessing_sensitivity``): ``sensitivity/<step>.csv``.

Paths are relative to the study's work folder (``<work>/preprocessing``). Artifacts name the products they read
through :func:`artifact_inputs` (``Artifact.inputs`` of :mod:`dplab.workflow.registry`).

Datasets (structure the bounds assume, :mod:`dplab.data.preprocessing_datasets`): ``clusters`` (near-duplicate
clusters, for deduplication and quantization), ``missing`` (missing values at a controlled rate, for imputation),
``low_rank`` (approximately low rank with a known eigen-gap, for PCA), ``fig3`` and ``regime<i>`` (labelled
low-rank data of Fig. 3 and its regime sweep) and ``ptr_large_gap`` / ``ptr_small_gap`` (the PTR datasets).
"""

from __future__ import annotations

import os
from collections.abc import Mapping
from typing import Any

import numpy as np

from dplab.data.preprocessing_datasets import (
    LowRankDataset,
    low_rank_dataset,
    near_duplicate_clusters,
    with_missing_values,
)
from dplab.preprocessing.clusters import PreprocessedDataset
from dplab.preprocessing.sensitivity import as_preprocessed
from dplab.preprocessing.steps import preprocessing_step
from dplab.report.io import load_arrays, save_arrays
from dplab.seeding import derive_seed

__all__ = [
    "STEP_DATASET",
    "STEPS",
    "dataset_names",
    "dataset_section",
    "preprocess_jobs",
    "make_dataset",
    "apply_step",
    "load_low_rank",
    "load_preprocessed",
    "dataset_path",
    "preprocessed_path",
    "trials_path",
    "step_function",
    "write_dataset",
    "write_preprocessed",
    "sensitivity_inputs",
    "fig3_inputs",
    "regimes_inputs",
    "ptr_inputs",
]

#: Each step and the sensitivity dataset whose structure its bound assumes.
STEP_DATASET = {
    "dedup": "clusters",
    "quantization": "clusters",
    "mean_imputation": "missing",
    "median_imputation": "missing",
    "trimmed_mean_imputation": "missing",
    "linear_regression_imputation": "missing",
    "pca_rank": "low_rank",
    "pca_dim": "low_rank",
}
STEPS = tuple(STEP_DATASET)
PTR_DATASETS = ("ptr_large_gap", "ptr_small_gap")


def dataset_names(study_config: Mapping[str, Any]) -> list[str]:
    """Every dataset the study's rules generate."""
    regimes = [f"regime{i}" for i in range(len(study_config["regimes"]["regimes"]))]
    return ["clusters", "missing", "low_rank", "fig3", *regimes, *PTR_DATASETS]


def dataset_section(name: str) -> str:
    """The configuration section a dataset is drawn from (the only section its rule depends on)."""
    if name in ("clusters", "missing", "low_rank"):
        return "sensitivity"
    if name == "fig3":
        return "fig3"
    if name.startswith("regime") and name[6:].isdigit():
        return "regimes"
    if name in PTR_DATASETS:
        return "ptr"
    raise ValueError(
        f"dataset={name!r} is not a dataset of the preprocessing study; allowed: clusters, missing, "
        f"low_rank, fig3, regime<i>, {', '.join(PTR_DATASETS)}"
    )


def preprocess_jobs(study_config: Mapping[str, Any]) -> list[tuple[str, str]]:
    """(dataset, step) pairs the ``preprocess`` rule runs: every step on its dataset, and PCA rank reduction on the
    Fig. 3 and regime datasets (method (a) of Fig. 3), and PCA dimension reduction on the Fig. 3 dataset (its
    ablation)."""
    regimes = [f"regime{i}" for i in range(len(study_config["regimes"]["regimes"]))]
    jobs = [(dataset, step) for step, dataset in STEP_DATASET.items()] + [(d, "pca_rank") for d in ["fig3", *regimes]]
    return jobs + [("fig3", "pca_dim")]


def dataset_path(name: str) -> str:
    return f"datasets/{name}.npz"


def preprocessed_path(dataset: str, step: str) -> str:
    return f"preprocessed/{dataset}/{step}.npz"


def trials_path(step: str) -> str:
    return f"sensitivity/{step}.csv"


def _low_rank(
    rng: np.random.Generator, section: Mapping[str, Any], n: int, d: int, k: int, scale: float
) -> dict[str, np.ndarray]:
    return low_rank_dataset(rng, int(n), int(d), int(k), float(section["tail_sd"]), scale=float(scale)).to_arrays()


def make_dataset(name: str, study_config: Mapping[str, Any], seed: int) -> dict[str, np.ndarray]:
    """The arrays of dataset ``name`` (see the module docstring), drawn from ``derive_seed(seed, name)``; only
    ``study_config[dataset_section(name)]`` is read."""
    section = dataset_section(name)
    rng = np.random.default_rng(derive_seed(seed, "dataset", name))
    if section == "sensitivity":
        s = study_config["sensitivity"]
        n, d = int(s["n"]), int(s["d"])
    if name == "clusters":
        return {"X": near_duplicate_clusters(rng, n, d, list(s["cluster_sizes"]), float(s["eta"]))}
    if name == "missing":
        base = low_rank_dataset(rng, n, d, 1, 0.3).X
        return {"X": with_missing_values(rng, base, float(s["missing_rate"]), [d - 1])}
    if name == "low_rank":
        return {"X": low_rank_dataset(rng, n, d, int(s["k"]), float(s["tail_sd"]), scale=float(s["pca_scale"])).X}
    if name == "fig3":
        f = study_config["fig3"]
        return _low_rank(rng, f, f["n"], f["d"], f["k"], f["scale"])
    if section == "regimes":
        regimes = study_config["regimes"]["regimes"]
        if int(name[6:]) >= len(regimes):
            raise ValueError(f"dataset={name!r}: the configuration has {len(regimes)} regimes")
        r = regimes[int(name[6:])]
        return _low_rank(rng, study_config["regimes"], r["n"], r["d"], r["k"], r["scale"])
    p = study_config["ptr"]
    return _low_rank(rng, p, p["n"], p["d"], p["k"], p[f"{name.removeprefix('ptr_')}_scale"])


def _rank(dataset: str, study_config: Mapping[str, Any]) -> int:
    if dataset == "fig3":
        return int(study_config["fig3"]["k"])
    if dataset.startswith("regime"):
        return int(study_config["regimes"]["regimes"][int(dataset[6:])]["k"])
    return int(study_config["sensitivity"]["k"])


def step_function(step: str, dataset: str, study_config: Mapping[str, Any]):
    """π for ``step`` with the parameters the configuration gives for ``dataset`` (η, m, k)."""
    s = study_config["sensitivity"]
    return preprocessing_step(step, eta=float(s["eta"]), m=int(s["trimmed_m"]), k=_rank(dataset, study_config))


def apply_step(step: str, dataset: str, X: np.ndarray, study_config: Mapping[str, Any]) -> PreprocessedDataset:
    """π_S(S) for the dataset's records X."""
    return as_preprocessed(step_function(step, dataset, study_config)(X))


def load_low_rank(path: str | os.PathLike[str]) -> LowRankDataset:
    return LowRankDataset.from_arrays(load_arrays(path))


def load_preprocessed(path: str | os.PathLike[str]) -> PreprocessedDataset:
    a = load_arrays(path)
    return PreprocessedDataset(a["values"], a["kept"])


def sensitivity_inputs(study_config: Mapping[str, Any]) -> dict[str, str]:
    """The replacement trials of every step (``ext_sensitivity``, ``ext_srdp_audit``)."""
    return {f"trials_{step}": trials_path(step) for step in STEPS}


def fig3_inputs(study_config: Mapping[str, Any]) -> dict[str, str]:
    return {
        "data": dataset_path("fig3"),
        "pca_rank": preprocessed_path("fig3", "pca_rank"),
        "pca_dim": preprocessed_path("fig3", "pca_dim"),
    }


def regimes_inputs(study_config: Mapping[str, Any]) -> dict[str, str]:
    out = {}
    for i in range(len(study_config["regimes"]["regimes"])):
        out[f"data_regime{i}"] = dataset_path(f"regime{i}")
        out[f"pca_rank_regime{i}"] = preprocessed_path(f"regime{i}", "pca_rank")
    return out


def ptr_inputs(study_config: Mapping[str, Any]) -> dict[str, str]:
    return {name: dataset_path(name) for name in PTR_DATASETS}


def write_dataset(name: str, study_config: Mapping[str, Any], seed: int, path: str | os.PathLike[str]) -> None:
    """Rule ``preprocessing_dataset``."""
    save_arrays(make_dataset(name, study_config, seed), path)


def write_preprocessed(
    dataset: str,
    step: str,
    study_config: Mapping[str, Any],
    source: str | os.PathLike[str],
    path: str | os.PathLike[str],
) -> None:
    """Rule ``preprocess``: the step applied to the dataset stored at ``source``."""
    result = apply_step(step, dataset, load_arrays(source)["X"], study_config)
    save_arrays({"values": result.values, "kept": result.kept}, path)
