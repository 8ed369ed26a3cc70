"""The benchmark suite itself (``python -m benchmarks``), run in a tiny quick mode; no timing assertions.

References: the ratios in the CSV are recomputed from its own medians; the TSV parser is checked on hand-written
Snakemake benchmark files; the accounting curves that are timed against dp_accounting are checked to be the same
curves (values agree); the numpy audit reference is checked to sample the same chain as the engine (two-sample KS).
"""

from __future__ import annotations

import dataclasses
import importlib
import sys
from pathlib import Path

import numpy as np
import pandas as pd
import pytest
import torch
from scipy import stats

pytest.importorskip("opacus")
ROOT = Path(__file__).resolve().parents[2]


def _import(name: str):
    """A module of this repository's ``benchmarks`` package (Opacus installs an unrelated top-level ``benchmarks``)."""
    if sys.path[0] != str(ROOT):
        sys.path.insert(0, str(ROOT))
    loaded = sys.modules.get("benchmarks")
    if loaded is not None and not Path(loaded.__file__).resolve().is_relative_to(ROOT):
        for module in [module for module in sys.modules if module == "benchmarks" or module.startswith("benchmarks.")]:
            del sys.modules[module]
    return importlib.import_module(name)


main = _import("benchmarks.__main__")
settings_module = _import("benchmarks.settings")
timing = _import("benchmarks.timing")
reproduction = _import("benchmarks.reproduction")
audit_accounting = _import("benchmarks.audit_accounting")

TINY = dataclasses.replace(
    settings_module.quick_settings(),
    threads=1,
    n=256,
    inputs=20,
    hidden=4,
    batch_sizes=(16,),
    module_batch_size=16,
    module_repeats=1,
    steps=2,
    repeats=2,
    seed_counts=(2,),
    seeds_n=64,
    seeds_inputs=5,
    seeds_steps=2,
    seeds_repeats=1,
    audit_samples=2000,
    audit_repeats=1,
    curve_points=20,
    curve_repeats=1,
    dry_run_repeats=0,
    kernel_repeats=0,  # the pipeline kernels: tests/benchmarks/test_kernels.py
)

TSV_HEADER = "s\th:m:s\tmax_rss\tmax_vms\tmax_uss\tmax_pss\tio_in\tio_out\tmean_load\tcpu_time\n"


def _write_tsv(path: Path, seconds: float) -> None:
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(TSV_HEADER + f"{seconds}\t0:00:01\t1\t1\t1\t1\t0\t0\t50\t1\n")


@pytest.fixture(scope="module")
def tiny_run(tmp_path_factory):
    root = tmp_path_factory.mktemp("repo")
    _write_tsv(root / "work/benchmarks/contraction_audit_grid/G1.tsv", 3.0)
    _write_tsv(root / "work/benchmarks/contraction_audit_grid/G2.tsv", 4.5)
    _write_tsv(root / "work/benchmarks/contraction_ext_lemmas.tsv", 1.25)
    _write_tsv(root / "work/benchmarks/preprocessing_table1.tsv", 2.0)
    out = root / "results/performance"
    frame = main.run(TINY, out, quick=True, root=root, log=lambda message: None)
    return frame, out


def test_writes_csv_summary_and_figure(tiny_run) -> None:
    frame, out = tiny_run
    written = pd.read_csv(out / "performance.csv")
    assert list(written.columns) == list(_import("benchmarks.records").COLUMNS)
    assert len(written) == len(frame)
    assert set(written.benchmark) == {
        "dp_step",
        "nonprivate_step",
        "module_step",
        "module_nonprivate_step",
        "seeds",
        "audit_sampler",
        "accounting_curve",
        "reproduction_rule",
        "reproduction_study",
    }
    for suffix in (".png", ".pdf"):
        assert (out / "figures" / f"performance{suffix}").stat().st_size > 1000
    summary = (out / "summary.md").read_text()
    for heading in ("## Targets", "## (1)", "## (1b)", "## (2)", "## (3)", "## (4)", "## (5)"):
        assert heading in summary
    assert (written.median_seconds > 0).all() and (written.repeats >= 1).all()


def test_every_case_is_measured_side_by_side_with_consistent_ratios(tiny_run) -> None:
    frame, _ = tiny_run
    step = frame[frame.benchmark == "dp_step"]
    assert set(step.case) == {"logistic_b16", "mlp_b16"}
    assert set(step.implementation) == {"dplab", "opacus", "opacus_tensor_batches"}
    timed = frame[frame.reference != ""]
    for (benchmark, case), part in timed.groupby(["benchmark", "case"]):
        reference = part[part.implementation == part.reference.iloc[0]].median_seconds.iloc[0]
        np.testing.assert_allclose(part.ratio_vs_reference, part.median_seconds / reference, rtol=1e-12)
    # the DP step is the same measurement in both tables
    both = frame[frame.implementation == "dplab"].pivot_table(
        index="case", columns="benchmark", values="median_seconds"
    )
    np.testing.assert_array_equal(both["dp_step"].dropna(), both["nonprivate_step"].dropna())
    assert set(frame[frame.benchmark == "seeds"].implementation) == {"batched", "sequential"}


def test_reproduction_rows_sum_jobs_per_rule_and_study(tiny_run) -> None:
    frame, _ = tiny_run
    rules = frame[frame.benchmark == "reproduction_rule"].set_index("case")
    assert rules.loc["contraction_audit_grid", "median_seconds"] == pytest.approx(7.5)
    assert rules.loc["contraction_audit_grid", "runs"] == 2
    assert rules.loc["contraction_ext_lemmas", "median_seconds"] == pytest.approx(1.25)
    study = frame[frame.benchmark == "reproduction_study"].set_index("case")
    assert study.loc["contraction", "median_seconds"] == pytest.approx(8.75)
    assert study.loc["contraction", "runs"] == 3
    assert study.loc["preprocessing", "median_seconds"] == pytest.approx(2.0)
    assert rules.loc["preprocessing_table1", "runs"] == 1


def test_missing_benchmark_files_are_reported(tmp_path) -> None:
    assert reproduction.reproduction_rows(tmp_path / "work" / "benchmarks") == []
    jobs = reproduction.job_times(tmp_path)
    assert jobs.empty and list(jobs.columns) == ["rule", "job", "study", "seconds"]


def test_time_side_by_side_excludes_warmup_and_alternates() -> None:
    calls: list[str] = []
    timings = timing.time_side_by_side(
        {"a": lambda: calls.append("a"), "b": lambda: calls.append("b")}, repeats=3, units=2, warmup=1
    )
    assert calls == ["a", "b"] * 4
    assert timings["a"].repeats == 3 == timings["b"].repeats
    fixed = timing.Timing((1.0, 2.0, 3.0, 10.0))
    assert fixed.median == 2.5 and fixed.iqr == pytest.approx(np.subtract(*np.percentile([1, 2, 3, 10], [75, 25])))
    with pytest.raises(ValueError, match="repeats=0"):
        timing.time_side_by_side({"a": lambda: None}, repeats=0)


def test_timed_accounting_curves_are_the_same_curves() -> None:
    """dplab and dp_accounting compute the same δ(ε) and ε(δ) curves (so their speeds are comparable)."""
    import dp_accounting
    from dp_accounting.pld.privacy_loss_mechanism import GaussianPrivacyLoss
    from dp_accounting.rdp import RdpAccountant

    from dplab.accounting.conversions import epsilon_from_rdp_cks, gaussian_rdp
    from dplab.accounting.hockey_stick import gaussian_hockey_stick

    sigma, eps, deltas = audit_accounting.SIGMA, np.linspace(0, 5, 11), np.geomspace(1e-12, 1e-2, 5)
    np.testing.assert_allclose(
        gaussian_hockey_stick(eps, 1 / sigma),
        GaussianPrivacyLoss(sigma, sensitivity=1.0).get_delta_for_epsilon(eps),
        rtol=1e-9,
    )
    accountant = RdpAccountant(orders=list(audit_accounting.RDP_ORDERS))
    accountant.compose(dp_accounting.GaussianDpEvent(sigma))
    orders = audit_accounting.RDP_ORDERS
    np.testing.assert_allclose(
        epsilon_from_rdp_cks(deltas, orders, gaussian_rdp(orders, 1.0, sigma)),
        [accountant.get_epsilon(float(d)) for d in deltas],
        rtol=1e-9,
    )


def test_numpy_audit_reference_samples_the_engine_chain() -> None:
    from dplab.learning.engine import NoisyGradientConfig, run_noisy_gradient
    from dplab.learning.losses import LinearLoss
    from dplab.learning.projections import Interval

    a = audit_accounting.AUDIT
    data = audit_accounting._audit_data(10)
    config = NoisyGradientConfig(
        lr=a["lr"], noise="gaussian", noise_scale=a["scale"], projection=Interval(a["a"], a["b"])
    )
    ours = run_noisy_gradient(
        config,
        LinearLoss(),
        torch.tensor(data[:, None]),
        None,
        [0.5],
        runs=20_000,
        generator=torch.Generator().manual_seed(1),
    )[:, 0].numpy()
    theirs = audit_accounting.numpy_pnsgd(data, 20_000, np.random.default_rng(2))
    assert stats.ks_2samp(ours, theirs).pvalue > 1e-4
    for edge in (a["a"], a["b"]):  # the atoms of the projection
        p, q = np.mean(ours == edge), np.mean(theirs == edge)
        assert abs(p - q) <= 5 * np.sqrt(2 * max(p, 1e-4) / 20_000)


def test_rules_named_otherwise_count_for_their_study(tmp_path) -> None:
    _write_tsv(tmp_path / "preprocess/fig3/pca_rank.tsv", 1.5)
    _write_tsv(tmp_path / "preprocessing_dataset/fig3.tsv", 0.5)
    _write_tsv(tmp_path / "logistic_dataset/gaussian.tsv", 0.25)
    jobs = reproduction.job_times(tmp_path).set_index("rule")
    assert jobs.loc["preprocess", "study"] == "preprocessing" == jobs.loc["preprocessing_dataset", "study"]
    assert jobs.loc["logistic_dataset", "study"] == "contraction"


def test_redraw_draws_the_figure_from_the_csv_alone(tiny_run, tmp_path) -> None:
    frame, out = tiny_run
    copy = tmp_path / "performance"
    copy.mkdir()
    (copy / "performance.csv").write_text((out / "performance.csv").read_text())
    _import("benchmarks.__main__").main(["--redraw", "--out", str(copy)])
    assert (copy / "figures" / "performance.png").stat().st_size > 1000
    assert not (copy / "summary.md").exists()  # nothing was timed or summarised


def test_module_step_times_every_implementation_against_opacus_ghost_and_nonprivate(tiny_run) -> None:
    """One case per layer-type model, every implementation timed, the issues' targets attached to each."""
    frame, out = tiny_run
    module_step = _import("benchmarks.module_step")
    models = _import("benchmarks.models")
    for benchmark, reference in (("module_step", "opacus_ghost"), ("module_nonprivate_step", "torch_nonprivate")):
        part = frame[frame.benchmark == benchmark]
        assert list(part.case.unique()) == [f"{model}_b16" for model in models.MODULE_MODELS]
        assert set(part.reference) == {reference}
        for _, implementations in part.groupby("case").implementation:
            assert tuple(implementations) == module_step.MODULE_IMPLEMENTATIONS
    summary = (out / "summary.md").read_text()
    assert "dplab_module_over_opacus_ghost" in summary and "nonprivate_target" in summary
    report = _import("benchmarks.report")
    targets = pd.DataFrame(report.module_target_rows(frame)).set_index("case")
    assert list(targets.nonprivate_target) == [2.0, 3.0, 3.0, 3.0]
    assert list(targets.opacus_ghost_target) == [0.5, 1.0, 0.7, 1.0]


@pytest.mark.parametrize("model", ["mlp", "embedding", "cnn", "conv1d"])
def test_the_three_dplab_module_variants_train_the_same_weights(model) -> None:
    """The timed dplab variants (ghost with a batched loss, ghost with a vmapped loss, vmap) do the same steps."""
    module_step = _import("benchmarks.module_step")
    models = _import("benchmarks.models")
    X, y = models.make_module_data(model, TINY.n, TINY.inputs, TINY.seed, torch.float32)
    weights = []
    for options in ({"batched_loss": True}, {}, {"gradient_method": "vmap"}):
        module = models.make_module_model(model, TINY.inputs, TINY.hidden, TINY.seed, torch.float32)
        report = module_step.dplab_module_steps(TINY, module, X, y, 16, **options)()
        assert report.gradient_method == options.get("gradient_method", "ghost")
        weights.append(models.flat_parameters(module))
    torch.testing.assert_close(weights[0], weights[2], rtol=1e-5, atol=1e-6)
    torch.testing.assert_close(weights[1], weights[2], rtol=1e-5, atol=1e-6)


def test_index_batches_are_the_batches_train_dpsgd_draws() -> None:
    """Every implementation of sections (1), (1b) and (2) (but Opacus's own loader) sees the batches ``train_dpsgd``
    trains on (same draw, same gather)."""
    dp_step = _import("benchmarks.dp_step")
    X, y = torch.arange(40.0)[:, None], torch.arange(40.0)
    batches = dp_step.index_batches(X, y, 8, seed=3)
    from dplab.train import _batches

    for index in _batches(40, 8, 5, "poisson", torch.Generator().manual_seed(3)):
        xb, yb = next(batches)
        assert torch.equal(xb[:, 0], index.float()) and torch.equal(yb, index.float())


def test_layer_type_models_and_data() -> None:
    """Each model of the table takes its data: token ids in the vocabulary, labels ±1 from the teacher."""
    models = _import("benchmarks.models")
    for name in models.MODULE_MODELS:
        X, y = models.make_module_data(name, 64, TINY.inputs, 0, torch.float32)
        module = models.make_module_model(name, TINY.inputs, TINY.hidden, 0, torch.float32)
        assert module(X).shape == (64, 1) and set(y.tolist()) == {-1.0, 1.0}
    ids, _ = models.make_module_data("embedding", 64, TINY.inputs, 0, torch.float32)
    assert ids.dtype == torch.int64 and ids.shape == (64, models.SEQUENCE_LENGTH) and 0 <= ids.min() < ids.max() < 1000
    with pytest.raises(ValueError, match="model='rnn' is not allowed"):
        models.make_module_data("rnn", 4, 2, 0, torch.float32)
