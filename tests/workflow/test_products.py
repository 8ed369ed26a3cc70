"""Every job checks the products it reads (dplab.workflow.helpers): a damaged input of each kind the workflow writes
stops its consumer before any work, with a message naming the file and the command that rebuilds it.

The consumers are the real scripts of the real rules (``mock_snakemake`` on the quick configuration, with the
folders in a temporary directory and two shards, so that sweep shards are pickles one job writes and another reads).
"""

import ast
import logging
import os
import runpy
import sys
from pathlib import Path
from types import SimpleNamespace

import numpy as np
import pandas as pd
import pytest

from dplab.report.io import ProductError, save_arrays, write_csv, write_record
from dplab.workflow.helpers import (
    RUN_OPTIONS,
    check_inputs,
    mock_snakemake,
    rebuild_command,
    record_outputs,
    record_path,
    run_options,
)

ROOT = Path(__file__).resolve().parents[2]
SCRIPTS = ROOT / "workflow" / "scripts"
OPTIONS = "--cores 2 --configfile config.quick.yaml"


def test_records_live_under_the_work_folder_by_root():
    config = {"results": "out/results", "work": "out/work"}
    assert record_path("out/work/contraction/utility/gaussian.csv", config) == Path(
        "out/work/integrity/work/contraction/utility/gaussian.csv.json"
    )
    assert record_path("out/results/contraction/data/fig2.csv", config) == Path(
        "out/work/integrity/results/contraction/data/fig2.csv.json"
    )
    assert record_path(os.path.abspath("out/results/a.csv"), config) == Path("out/work/integrity/results/a.csv.json")
    assert record_path("out/results2/a.csv", config) is None  # a sibling folder is not inside the results folder
    assert record_path("src/dplab/io.py", config) is None
    nested = {"results": "run", "work": "run/work"}  # one folder inside the other: the deepest root decides
    assert record_path("run/work/x.npz", nested) == Path("run/work/integrity/work/x.npz.json")
    assert record_path("run/x.csv", nested) == Path("run/work/integrity/results/x.csv.json")


def _workflow(cwd, *, cores=2, local=True, configfiles=(), config_args=(), basedir=None):
    return SimpleNamespace(
        resource_settings=SimpleNamespace(cores=cores),
        local_exec=local,
        basedir=str(basedir or cwd),
        main_snakefile=str((basedir or cwd) / "Snakefile"),
        config_settings=SimpleNamespace(configfiles=[Path(f) for f in configfiles], config_args=list(config_args)),
    )


def test_run_options_repeat_the_cores_configfiles_and_config_of_the_run(tmp_path, monkeypatch):
    monkeypatch.chdir(tmp_path)
    assert run_options(_workflow(tmp_path)) == "--cores 2"
    files = [tmp_path / "config.quick.yaml", Path("/elsewhere/my config.yaml")]
    args = ["results='/tmp/r'", "work='/tmp/w'"]
    assert run_options(_workflow(tmp_path, cores=None, configfiles=files, config_args=args)) == (
        "--cores all --configfile config.quick.yaml '/elsewhere/my config.yaml' --config results='/tmp/r' work='/tmp/w'"
    )
    repo = tmp_path / "repo"
    assert run_options(_workflow(tmp_path, basedir=repo)) == f"--cores 2 -s {repo / 'Snakefile'} -d {tmp_path}"
    assert run_options(_workflow(tmp_path, local=False)) == "<the --workflow-profile or --executor options of your run>"


def test_the_rebuild_command_forces_the_damaged_file_with_the_options_of_the_run(monkeypatch):
    monkeypatch.setenv(RUN_OPTIONS, OPTIONS)
    assert rebuild_command("work/a b.csv") == f"snakemake {OPTIONS} --forcerun 'work/a b.csv'"
    assert rebuild_command("a.csv", "b.npz") == f"snakemake {OPTIONS} --forcerun a.csv b.npz"
    monkeypatch.delenv(RUN_OPTIONS)  # a script run directly, outside Snakemake
    assert rebuild_command("work/a.csv") == (
        "snakemake --cores 2 <the --configfile and --config options of your run> --forcerun work/a.csv"
    )


class Files(list):
    """Stands for ``snakemake.input``: every file, and the files of each named entry."""

    def __init__(self, **named):
        super().__init__(path for paths in named.values() for path in paths)
        self.named = named

    def get(self, name, default=None):
        return self.named.get(name, default)


def test_a_job_records_its_outputs_where_its_consumers_look(tmp_path):
    config = {"results": str(tmp_path / "results"), "work": str(tmp_path / "work")}
    product = tmp_path / "work" / "contraction" / "utility" / "gaussian.csv"
    write_csv(pd.DataFrame({"x": [1, 2]}), product)
    producer = SimpleNamespace(output=[str(product)], config=config, rule="train", wildcards={"noise": "gaussian"})
    record_outputs(producer)
    consumer = SimpleNamespace(input=Files(source=[str(product)]), config=config, rule="use")
    logged = []
    check_inputs(consumer, SimpleNamespace(info=lambda *args: logged.append(args[0] % args[1:])))
    record = record_path(product, config)
    assert logged == ["1 of 1 inputs checked against their records (size and SHA-256)"]
    assert '"rule": "train"' in record.read_text() and '"noise": "gaussian"' in record.read_text()


def test_the_log_names_the_inputs_checked_by_their_format_only(tmp_path):
    config = {"results": str(tmp_path / "results"), "work": str(tmp_path / "work")}
    committed, recorded = tmp_path / "results" / "fig2.csv", tmp_path / "work" / "a.csv"
    for path in (committed, recorded):
        write_csv(pd.DataFrame({"x": [1, 2]}), path)
    write_record(recorded, record_path(recorded, config))
    consumer = SimpleNamespace(input=Files(source=[str(committed), str(recorded)]), config=config, rule="use")
    logged = []
    check_inputs(consumer, SimpleNamespace(info=lambda *args: logged.append(args[0] % args[1:])))
    assert logged == [
        "1 of 2 inputs checked against their records (size and SHA-256)",
        f"input {committed} checked by its format only: it has no record {record_path(committed, config)}",
    ]


def test_a_results_file_that_git_replaced_is_read_and_a_work_file_is_not(tmp_path):
    """A committed results/ file after a ``git pull`` (another run's version than its record) is the version git has:
    it is read; the same change to a work/ product, which only its rule writes, stops the job."""
    import subprocess

    config = {"results": str(tmp_path / "results"), "work": str(tmp_path / "work")}
    committed, product = tmp_path / "results" / "fig2.csv", tmp_path / "work" / "a.csv"
    for path in (committed, product):
        write_csv(pd.DataFrame({"x": [1, 2]}), path)
        write_record(path, record_path(path, config))
        write_csv(pd.DataFrame({"x": [3, 4]}), path)
    subprocess.run(["git", "init", "-q", str(tmp_path)], check=True)
    subprocess.run(["git", "-C", str(tmp_path), "add", "results", "work"], check=True)
    logged = []
    log = SimpleNamespace(info=lambda *args: logged.append(args[0] % args[1:]), error=lambda message: None)
    check_inputs(SimpleNamespace(input=Files(data=[str(committed)]), config=config, rule="use"), log)
    assert logged[-1].endswith(
        f"it is the version git has for it, not the one its record {record_path(committed, config)} describes"
    )
    with pytest.raises(ProductError, match="a.csv: it is not what its writer recorded: sha256"):
        check_inputs(SimpleNamespace(input=Files(data=[str(product)]), config=config, rule="use"), log)


def test_source_code_inputs_are_not_products(tmp_path):
    """``input.code`` (the dplab modules a rule runs) is tracked by Snakemake, not checked as a product."""
    config = {"results": str(tmp_path / "results"), "work": str(tmp_path / "work")}
    missing = str(tmp_path / "work" / "absent.csv")
    consumer = SimpleNamespace(input=Files(code=[missing]), config=config, rule="use")
    check_inputs(consumer, logging.getLogger("test"))
    consumer = SimpleNamespace(input=Files(source=[missing]), config=config, rule="use")
    with pytest.raises(ProductError, match="absent.csv does not exist"):
        check_inputs(consumer, logging.getLogger("test"))


def test_every_damaged_input_is_named_in_one_message(tmp_path, monkeypatch):
    monkeypatch.setenv(RUN_OPTIONS, OPTIONS)
    config = {"results": str(tmp_path / "results"), "work": str(tmp_path / "work")}
    paths = [tmp_path / "work" / name for name in ("a.csv", "b.csv", "c.csv")]
    for path in paths:
        write_csv(pd.DataFrame({"x": [1, 2]}), path)
        write_record(path, record_path(path, config))
    paths[0].write_text("x\n1\n")
    paths[2].write_text("x\n1\n")
    consumer = SimpleNamespace(input=Files(source=[str(p) for p in paths]), config=config, rule="use")
    with pytest.raises(ProductError) as raised:
        check_inputs(consumer, logging.getLogger("test"))
    lines = str(raised.value).splitlines()
    assert lines[0] == "rule use stopped before any work: damaged or incomplete input"
    assert [line.split(": ")[0] for line in lines[1:3]] == [f"  {paths[0]}", f"  {paths[2]}"]
    assert "rows 1 where its record says 2" in lines[1]
    assert lines[3:] == ["Rebuild them and what depends on them with:", f"  {rebuild_command(paths[0], paths[2])}"]


def _calls(script: Path) -> list[str]:
    """The names of the functions a script calls at its top level, in order."""
    calls = []
    for node in ast.parse(script.read_text()).body:
        value = node.value if isinstance(node, ast.Assign | ast.Expr) else None
        if isinstance(value, ast.Call) and isinstance(value.func, ast.Name):
            calls.append(value.func.id)
    return calls


@pytest.mark.parametrize("script", sorted(SCRIPTS.glob("*.py")), ids=lambda p: p.name)
def test_every_script_checks_its_inputs_first_and_records_its_outputs_last(script):
    """The hand-off to the run's job server first (dplab.workflow.jobserver.delegate: the job then runs the same
    script in a forked process, where it returns at once), then setup_script (which checks the inputs) before any
    work, record_outputs after every output is written."""
    calls = [c for c in _calls(script) if c != "mock_snakemake"]
    assert calls[:2] == ["delegate", "setup_script"] and calls[-1] == "record_outputs", calls


# The consumers of every kind of product, each stopped by one damaged input.


def _cut_last_line(path):
    lines = path.read_bytes().splitlines(keepends=True)
    path.write_bytes(b"".join(lines[:-1]))


def _truncate(path):
    path.write_bytes(path.read_bytes()[: path.stat().st_size // 2])


def _write_valid(path: Path) -> None:
    """A well-formed product of the kind its suffix names (its content does not matter to the check)."""
    if path.suffix == ".csv":
        write_csv(pd.DataFrame({"a": [1, 2, 3], "b": ["x", "y", "z"]}), path)
    elif path.suffix == ".npz":
        save_arrays({"X": np.zeros((4, 2))}, path)
    elif path.suffix == ".pkl":
        path.parent.mkdir(parents=True, exist_ok=True)
        pd.DataFrame({"a": [1, 2], "_point": [0, 2]}).to_pickle(path)
    else:
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_bytes(b"figure or markdown")


@pytest.fixture(scope="module")
def quick_folders(tmp_path_factory):
    """A --configfile putting the quick configuration's folders in a temporary directory, with two shards."""
    folder = tmp_path_factory.mktemp("quick")
    override = folder / "folders.yaml"
    override.write_text(f"results: {folder / 'results'}\nwork: {folder / 'work'}\nshards: 2\n")
    return ROOT / "config.quick.yaml", override


@pytest.fixture
def run_script(monkeypatch):
    """Run a workflow script as Snakemake would (``snakemake`` given), then undo what setup_script changed in this
    process (stderr, logging, thread settings)."""
    handlers, level = logging.root.handlers[:], logging.root.level
    monkeypatch.setattr(sys, "stderr", sys.stderr)
    monkeypatch.setenv("OMP_NUM_THREADS", os.environ.get("OMP_NUM_THREADS", "1"))
    threads = sys.modules["torch"].get_num_threads() if "torch" in sys.modules else None
    yield lambda name, snakemake: runpy.run_path(str(SCRIPTS / name), init_globals={"snakemake": snakemake})
    for handler in set(logging.root.handlers) - set(handlers):
        handler.close()
    logging.root.handlers[:] = handlers
    logging.root.setLevel(level)
    logging.captureWarnings(False)
    if threads is not None:
        sys.modules["torch"].set_num_threads(threads)


CONSUMERS = [
    # consumer rule, its wildcards, its script, the input damaged (the end of its path), the damage
    ("contraction_utility_train", {"noise": "gaussian"}, "contraction_utility_train.py", "contraction_logistic_gaussian.npz", _truncate),
    ("contraction_ext_utility", {}, "study_data.py", "contraction/utility/laplace.csv", _cut_last_line),
    ("contraction_ext_audit_gaussian_shard", {"shard": "1"}, "study_shard.py", "audit/G1/laws.npz", _truncate),
    ("contraction_ext_audit_gaussian_shard", {"shard": "0"}, "study_shard.py", "audit/G1/grid.csv", _cut_last_line),
    ("preprocess", {"dataset": "clusters", "step": "dedup"}, "preprocess.py", "datasets/clusters.npz", _truncate),
    ("preprocessing_sensitivity", {"step": "pca_rank"}, "preprocessing_sensitivity.py", "pca_rank.npz", _truncate),
    ("preprocessing_ext_sensitivity", {}, "study_data.py", "sensitivity/median_imputation.csv", _cut_last_line),
    ("purification_ext_dp_erm", {}, "study_data.py", "shards/ext_dp_erm/1-of-2.pkl", _truncate),
    ("generalization_t4", {}, "study_data.py", "generalization/data/f8.csv", _cut_last_line),
    ("contraction_fig2_figure", {}, "study_figure.py", "contraction/data/fig2.csv", _cut_last_line),
    ("purification_claims", {}, "study_claims.py", "purification/data/fig2.csv", _cut_last_line),
    ("results_index", {}, "results_index.py", "preprocessing/claims.csv", _cut_last_line),
]  # fmt: skip


@pytest.mark.parametrize(
    ("rule", "wildcards", "script", "damaged", "damage"), CONSUMERS, ids=[f"{c[0]}-{c[3]}" for c in CONSUMERS]
)
def test_a_damaged_input_stops_its_consumer_naming_the_file_and_the_rebuild_command(
    rule, wildcards, script, damaged, damage, quick_folders, run_script, monkeypatch, capfd
):
    monkeypatch.delenv(RUN_OPTIONS, raising=False)  # parsing the workflow exports the options of the mock run
    job = mock_snakemake(rule, configfiles=quick_folders, root=ROOT, **wildcards)
    monkeypatch.setenv(RUN_OPTIONS, OPTIONS)
    code = set(job.input.get("code", []))
    products = [Path(p) for p in dict.fromkeys(job.input) if p not in code]
    for path in products:
        _write_valid(path)
        write_record(path, record_path(path, job.config), rule="its_producer", wildcards={"k": "v"})
    [target] = [p for p in products if str(p).endswith(damaged)]
    before = os.stat(target)
    damage(target)
    os.utime(target, ns=(before.st_atime_ns, before.st_mtime_ns))  # damage that keeps the modification time
    for output in job.output:
        Path(output).unlink(missing_ok=True)
    with pytest.raises(ProductError) as raised:
        run_script(script, job)
    message = str(raised.value)
    assert message.startswith(f"rule {rule} stopped before any work: damaged or incomplete input\n  {target}: ")
    assert message.count("\n") == 3 and "(written by rule its_producer, k=v)\n" in message
    assert message.endswith(f"Rebuild it and what depends on it with:\n  snakemake {OPTIONS} --forcerun {target}")
    assert message in capfd.readouterr().err  # on the console too, not only in the job's log
    assert message in Path(job.log[0]).read_text()
    assert not any(Path(output).exists() for output in job.output)  # stopped before any work


# A real run: its products damaged, their consumers forced, and the printed command run.

#: Damaged product of the quick run: (damage, an output of its consumer that forces the consumer to run).
DAMAGED = {
    "work-quick/datasets/contraction_logistic_gaussian.npz": (_truncate, "work-quick/contraction/utility/gaussian.csv"),
    "work-quick/preprocessing/sensitivity/dedup.csv": (
        _cut_last_line,
        "results-quick/preprocessing/tables/ext_sensitivity.csv",
    ),
    "results-quick/contraction/data/fig2.csv": (_cut_last_line, "results-quick/contraction/figures/fig2.png"),
}


@pytest.mark.pipeline
def test_damaged_products_of_a_quick_run_stop_their_consumers_and_the_printed_command_rebuilds_them(
    local_quick_run, tmp_path
):
    """A copy of a finished quick run (modification times kept) with a dataset truncated and two CSVs cut by their
    last line: forcing their consumers stops each with the file and the rebuild command; running that command
    (forcing all three files) finishes, with every CSV byte-identical to the undamaged run."""
    import shlex
    import shutil
    import subprocess

    workdir = tmp_path / "copy"
    shutil.copytree(local_quick_run.parent, workdir, symlinks=True)
    for product, (damage, _) in DAMAGED.items():
        before = os.stat(workdir / product)
        damage(workdir / product)
        os.utime(workdir / product, ns=(before.st_atime_ns, before.st_mtime_ns))
    snakemake = [sys.executable, "-m", "snakemake", "-s", str(ROOT / "Snakefile"), "-d", str(workdir)]
    options = ["--cores", "2", "--configfile", str(ROOT / "config.quick.yaml")]
    consumers = [output for _, output in DAMAGED.values()]
    forced = subprocess.run([*snakemake, *options, "-k", "--forcerun", *consumers], capture_output=True, text=True)
    assert forced.returncode != 0
    commands = []
    for product in DAMAGED:
        assert f"\n  {product}: it " in forced.stderr, forced.stderr[-5000:]
        # the message reaches the console, and the job's log (show-failed-logs) holds it with the traceback
        [command] = {line.strip() for line in forced.stderr.splitlines() if line.endswith(f"--forcerun {product}")}
        commands.append(command)
    assert commands[0] == (
        f"snakemake --cores 2 -s {ROOT / 'Snakefile'} -d {workdir} --configfile {ROOT / 'config.quick.yaml'} "
        f"--forcerun {list(DAMAGED)[0]}"
    )
    rebuild = [sys.executable, "-m", *shlex.split(commands[0])[:-1], *DAMAGED]  # one run forcing the three files
    rebuilt = subprocess.run(rebuild, capture_output=True, text=True, cwd=tmp_path)
    assert rebuilt.returncode == 0, rebuilt.stderr[-5000:]
    for path in local_quick_run.rglob("*.csv"):
        relative = path.relative_to(local_quick_run)
        assert (workdir / "results-quick" / relative).read_bytes() == path.read_bytes(), relative
    for product in DAMAGED:
        assert (workdir / product).read_bytes() == (local_quick_run.parent / product).read_bytes(), product
