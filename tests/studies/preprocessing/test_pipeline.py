"""The pre-processing study's pipeline products: datasets with the structure the bounds assume, steps applied as
the rules apply them, and replacement trials that start from the pre-processed file."""

from pathlib import Path

import numpy as np
import pytest

from dplab.preprocessing import good_clusters, pca_rank_reduce, quantize
from dplab.preprocessing.clusters import PreprocessedDataset
from dplab.preprocessing.pca import eigengap
from dplab.report.io import save_arrays
from dplab.studies.preprocessing import pipeline as p
from dplab.studies.preprocessing.products import build_products
from dplab.studies.preprocessing.sensitivity import step_trials
from dplab.workflow.config import load_config

ROOT = Path(__file__).resolve().parents[3]
QUICK = load_config("config.quick.yaml")["preprocessing"]


def test_datasets_have_the_assumed_structure():
    s = QUICK["sensitivity"]
    X = p.make_dataset("clusters", QUICK, 3)["X"]
    sizes = sorted(np.unique(good_clusters(X, s["eta"]), return_counts=True)[1])[::-1]
    assert sizes[: len(s["cluster_sizes"])] == sorted(s["cluster_sizes"], reverse=True)
    M = p.make_dataset("missing", QUICK, 3)["X"]
    assert np.isnan(M).any(axis=1).sum() == round(s["missing_rate"] * s["n"])
    assert np.isnan(M[:, :-1]).sum() == 0
    L = p.make_dataset("fig3", QUICK, 3)
    assert L["X"].shape == (QUICK["fig3"]["n"], QUICK["fig3"]["d"])
    assert float(L["gap"]) == pytest.approx(eigengap(L["eigenvalues"], QUICK["fig3"]["k"]))
    assert np.all(np.linalg.norm(L["X"], axis=1) <= 1 + 1e-12)


def test_datasets_depend_only_on_their_section_and_seed():
    a, b = p.make_dataset("regime1", QUICK, 5), p.make_dataset("regime1", {"regimes": QUICK["regimes"]}, 5)
    np.testing.assert_array_equal(a["X"], b["X"])
    assert not np.array_equal(a["X"], p.make_dataset("regime1", QUICK, 6)["X"])
    assert p.dataset_section("ptr_small_gap") == "ptr"


def test_bad_dataset_or_step_names_are_refused():
    with pytest.raises(ValueError, match="dataset='foo' is not a dataset"):
        p.make_dataset("foo", QUICK, 0)
    with pytest.raises(ValueError, match="the configuration has 2 regimes"):
        p.make_dataset("regime7", QUICK, 0)
    with pytest.raises(ValueError, match="step='pca' is not a pre-processing step"):
        p.apply_step("pca", "low_rank", np.zeros((3, 2)), QUICK)


def test_steps_are_the_library_functions(tmp_path):
    X = p.make_dataset("clusters", QUICK, 1)["X"]
    got = p.apply_step("quantization", "clusters", X, QUICK)
    want = quantize(X, QUICK["sensitivity"]["eta"])
    np.testing.assert_array_equal(got.values, want.values)
    save_arrays({"X": X}, tmp_path / "d.npz")
    p.write_preprocessed("clusters", "quantization", QUICK, tmp_path / "d.npz", tmp_path / "q.npz")
    loaded = p.load_preprocessed(tmp_path / "q.npz")
    np.testing.assert_array_equal(loaded.values, want.values)
    np.testing.assert_array_equal(loaded.kept, want.kept)
    F = p.make_dataset("fig3", QUICK, 1)["X"]
    np.testing.assert_allclose(
        p.apply_step("pca_rank", "fig3", F, QUICK).values, pca_rank_reduce(F, QUICK["fig3"]["k"])
    )


def test_random_trials_start_from_the_preprocessed_file():
    X = p.make_dataset("low_rank", QUICK, 2)["X"]
    base = p.apply_step("pca_rank", "low_rank", X, QUICK)
    honest = step_trials("pca_rank", X, base, QUICK, 9, iter)
    shifted = PreprocessedDataset(base.values + 1.0, base.kept)
    moved = step_trials("pca_rank", X, shifted, QUICK, 9, iter)
    random = honest["kind"] == "random"
    assert (moved.loc[random, "delta_2"] > honest.loc[random, "delta_2"]).all()
    np.testing.assert_array_equal(moved.loc[~random, "delta_2"], honest.loc[~random, "delta_2"])
    assert len(honest) == QUICK["sensitivity"]["trials"]


def test_build_products_writes_every_product(tmp_path):
    folder = build_products(QUICK, 0, tmp_path)
    paths = [p.dataset_path(n) for n in p.dataset_names(QUICK)]
    paths += [p.preprocessed_path(d, s) for d, s in p.preprocess_jobs(QUICK)]
    paths += list(p.sensitivity_inputs(QUICK).values())
    assert all((folder / path).is_file() for path in paths)
    assert not list(folder.rglob(".*"))  # no temporary files left behind
