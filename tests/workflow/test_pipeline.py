"""The quick configuration end to end through Snakemake: the output contract, bounds above measurements,
identical CSVs on a second run, and bad configurations stopped before any job."""

import os
import shutil
import subprocess
import sys
from pathlib import Path

import pandas as pd
import pytest
import yaml

from dplab.report.claims import VERDICTS

ROOT = Path(__file__).resolve().parents[2]
SNAKEMAKE = [sys.executable, "-m", "snakemake", "-s", str(ROOT / "Snakefile")]
QUICK_FIGURE_FORMATS = yaml.safe_load((ROOT / "config.quick.yaml").read_text())["figure_formats"]

pytestmark = pytest.mark.pipeline


@pytest.fixture(scope="module")
def runs(local_quick_run, second_quick_run):
    """Two independent runs of the quick configuration, in separate working directories."""
    return [local_quick_run, second_quick_run]


def test_output_contract(runs):
    results = runs[0]
    study = results / "contraction"
    for figid in (
        "fig2",
        "fig3",
        "ext_laplace",
        "ext_regime",
        "ext_audit_gaussian",
        "ext_audit_laplace",
        "ext_random_stopping",
        "ext_utility",
    ):
        for suffix in QUICK_FIGURE_FORMATS:
            assert (study / "figures" / f"{figid}.{suffix}").stat().st_size > 1000
        assert not (study / "figures" / f"{figid}.pdf").exists() or "pdf" in QUICK_FIGURE_FORMATS
        assert (study / "data" / f"{figid}.csv").exists()
    for figid in ("fig2", "fig3"):
        data = pd.read_csv(study / "data" / f"{figid}.csv")
        assert list(data.columns) == ["i", "epsilon", "method", "delta", "log10_delta"]
        assert set(data["method"]) == {"thm4", "prop1"}
        assert data.groupby(["i", "method"]).size().min() >= 200
    claims = pd.read_csv(study / "claims.csv")
    assert list(claims.columns) == [
        "claim_id",
        "source",
        "statement",
        "verdict",
        "severity",
        "kind",
        "evidence",
        "artifact",
    ]
    assert set(claims["verdict"]) <= set(VERDICTS)
    for artifact in claims["artifact"]:
        assert (results / artifact).exists(), artifact
    audits = claims.set_index("claim_id").loc[["thm4_audit", "thm3_audit", "prop1_audit", "thm5_random_stopping"]]
    assert (audits["verdict"] == "holds").all()
    assert (results / "provenance.json").exists()


def test_measurements_below_bounds(runs):
    study = runs[0] / "contraction" / "data"
    for noise in ("gaussian", "laplace"):
        audit = pd.read_csv(study / f"ext_audit_{noise}.csv")
        assert (audit["delta_grid"] <= audit["bound_theorem"] + 1e-9).all()
        assert (audit["mc_lower"] <= audit["bound_theorem"] + 1e-9).all()
        assert (audit["mc_lower"] <= audit["delta_grid_mc_instance"] + 1e-3).mean() >= 0.95
    stopping = pd.read_csv(study / "ext_random_stopping.csv")
    assert (stopping["delta_grid"] <= stopping["bound_thm5"] + 1e-9).all()


def test_index_links_resolve(runs):
    results = runs[0]
    text = (results / "index.md").read_text()
    links = [part.split(")")[0] for part in text.split("](")[1:]]
    assert len(links) > 20
    for link in links:
        assert (results / link).exists(), link


def test_second_run_gives_identical_csvs(runs):
    first, second = runs
    csvs = sorted(p.relative_to(first) for p in first.rglob("*.csv"))
    assert len(csvs) >= 10
    for path in csvs:
        assert (first / path).read_bytes() == (second / path).read_bytes(), path


def test_verify_passes_on_an_independent_run_and_fails_on_a_flipped_verdict(runs, tmp_path):
    """``python -m dplab.verify`` as a user runs it: two independent runs agree; one flipped verdict fails it."""
    first, second = runs
    verify = [sys.executable, "-m", "dplab.verify"]
    passed = subprocess.run([*verify, str(second), str(first)], capture_output=True, text=True)
    assert passed.returncode == 0, passed.stdout[-3000:]
    flipped = tmp_path / "flipped"
    shutil.copytree(second, flipped)
    claims = pd.read_csv(flipped / "contraction" / "claims.csv")
    claims.loc[0, "verdict"] = "fails" if claims.loc[0, "verdict"] != "fails" else "holds"
    claims.to_csv(flipped / "contraction" / "claims.csv", index=False)
    failed = subprocess.run([*verify, str(flipped), str(first)], capture_output=True, text=True)
    assert failed.returncode == 1
    assert f"verdict of {claims.loc[0, 'claim_id']!r} flipped" in failed.stdout


@pytest.mark.parametrize(
    "override, expected",
    [
        ({"contraction": {"audit": {"configs": {"G1": {"scale": -1.0}}}}}, "contraction.audit.configs.G1.scale"),
        ({"contraction": {"audit": {"positions": [11]}}}, "value 11 is invalid; allowed: 1 <= i <= n = 10"),
        ({"contraction": {"audit": {"configs": {"G1": {"noise": "cauchy"}}}}}, "one of gaussian, laplace"),
        ({"contraction": {"figures": {"fig2": {"lr": 5.0}}}}, "lr < 2/(beta_smooth + rho) = 4"),
    ],
)
def test_bad_configuration_stops_before_any_job(tmp_path, override, expected):
    bad = tmp_path / "bad.yaml"
    bad.write_text(yaml.safe_dump(override))
    result = subprocess.run(
        [*SNAKEMAKE, "-d", str(tmp_path), "--configfile", str(ROOT / "config.quick.yaml"), str(bad), "-n"],
        capture_output=True,
        text=True,
        cwd=tmp_path,
    )
    assert result.returncode != 0
    assert expected in result.stdout + result.stderr
    assert not (tmp_path / "results-quick").exists()


@pytest.mark.parametrize("hash_seed", ["1", "2", "3"])
def test_a_finished_run_stays_finished_under_any_hash_seed(local_quick_run, hash_seed):
    """Every parameter is built in a deterministic order: a dry run after a complete run schedules nothing."""
    workdir = local_quick_run.parent
    result = subprocess.run(
        [*SNAKEMAKE, "-d", str(workdir), "--configfile", str(ROOT / "config.quick.yaml"), "-n"],
        capture_output=True,
        text=True,
        cwd=workdir,
        env={**os.environ, "PYTHONHASHSEED": hash_seed},
    )
    assert result.returncode == 0, result.stderr[-3000:]
    assert "Nothing to be done" in result.stdout + result.stderr, (result.stdout + result.stderr)[-3000:]


def test_the_snakemake_report_holds_every_artifact(local_quick_run, tmp_path):
    """``snakemake --report`` works and shows every figure, table and claims file, grouped by study."""
    workdir = local_quick_run.parent
    report = tmp_path / "report.html"
    result = subprocess.run(
        [*SNAKEMAKE, "-d", str(workdir), "--configfile", str(ROOT / "config.quick.yaml"), "--report", str(report)],
        capture_output=True,
        text=True,
        cwd=workdir,
    )
    assert result.returncode == 0, result.stderr[-3000:]
    html = report.read_text(encoding="utf-8", errors="replace")
    shown = [
        *local_quick_run.glob("*/figures/*.png"),
        *local_quick_run.glob("*/tables/*.csv"),
        *local_quick_run.glob("*/claims.csv"),
    ]
    assert len(shown) > 40
    for path in shown:
        assert path.name in html, path
    for study in ("contraction", "preprocessing", "generalization", "purification"):
        assert study in html


SWEEPS = [
    "contraction/data/ext_audit_gaussian.csv",
    "contraction/data/ext_audit_laplace.csv",
    "generalization/data/f8.csv",
    "purification/data/ext_dp_erm.csv",
    "purification/data/ext_dp_erm_sc.csv",
    "purification/data/ext_query_release.csv",
    "preprocessing/data/fig3.csv",
    "preprocessing/data/ext_fig3_regimes.csv",
    "preprocessing/data/fig2.csv",
    "purification/data/ext_linear_regression.csv",
]


def test_a_sweep_csv_is_byte_identical_whatever_the_number_of_shards(local_quick_run, quick_runner, tmp_path):
    """The shared run computes each sweep in its data job (the quick configuration's one shard); two and four shard
    jobs give the same bytes, because every point derives its seeds from its own values."""
    for shards in (2, 4):
        workdir = tmp_path / f"shards-{shards}"
        targets = [f"results-quick/{path}" for path in SWEEPS]
        # quick_runner's --configfile takes every argument up to the next option, and --config every one after it
        result = quick_runner(workdir, "--cores", "2", *targets, "--config", f"shards={shards}")
        assert result.returncode == 0, result.stderr[-5000:]
        planned = result.stdout + result.stderr
        assert f"of {shards} of f8" in planned
        for path in SWEEPS:
            assert (workdir / "results-quick" / path).read_bytes() == (local_quick_run / path).read_bytes(), path
