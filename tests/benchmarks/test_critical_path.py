"""The critical path of a DAG against hand-computed cases, the jobs' dependencies and benchmark times, and the whole
script on a tiny real workflow whose rules share a wildcard (which ``--dag`` labels would omit)."""

import json
import logging
import subprocess
import sys
from pathlib import Path

import pandas as pd
import pytest

from benchmarks.critical_path import Job, critical_path, dependencies, job_from_record, job_seconds

ROOT = Path(__file__).resolve().parents[2]


def job(jobid, rule, inputs=(), outputs=(), benchmark=None, **wildcards):
    return Job(jobid, rule, tuple(wildcards.items()), tuple(inputs), tuple(outputs), benchmark)


@pytest.mark.parametrize(
    "seconds, edges, expected, chain",
    [
        ({0: 1.0}, [], 1.0, [0]),
        ({0: 1.0, 1: 2.0, 2: 3.0}, [(0, 1), (1, 2)], 6.0, [0, 1, 2]),  # a chain: everything
        ({0: 1.0, 1: 2.0, 2: 3.0, 3: 0.5}, [(0, 3), (1, 3), (2, 3)], 3.5, [2, 3]),  # a fan-in: the slowest branch
        ({0: 1.0, 1: 5.0, 2: 1.0, 3: 1.0}, [(0, 1), (0, 2), (1, 3), (2, 3)], 7.0, [0, 1, 3]),  # a diamond
        ({0: 9.0, 1: 1.0, 2: 1.0}, [(1, 2)], 9.0, [0]),  # an independent long job
    ],
)
def test_critical_path_is_the_longest_chain(seconds, edges, expected, chain):
    assert critical_path(seconds, edges) == (pytest.approx(expected), chain)


def test_a_job_depends_on_the_jobs_writing_its_inputs():
    jobs = [
        job(3, "combine", inputs=["a.txt", "b.txt", "src/code.py"], outputs=["all.csv"]),
        job(1, "simulate", outputs=["a.txt", "a.log"], sample="a"),
        job(2, "simulate", inputs=["a.log"], outputs=["b.txt"], sample="b"),
        job(0, "all", inputs=["all.csv"]),
    ]
    assert dependencies(jobs) == [(1, 2), (1, 3), (2, 3), (3, 0)]


def test_job_records_give_paths_without_annotations():
    record = logging.LogRecord("snakemake.logging", logging.INFO, "", 0, "", None, None)
    for key, value in {
        "jobid": 4,
        "rule_name": "shard",
        "wildcards": {"study": "p", "shard": "3"},
        "input": ["in.txt (pipe)", "src/x.py"],
        "output": ["out/3.pkl"],
        "benchmark": "bench/shard/p/3.tsv",
    }.items():
        setattr(record, key, value)
    assert job_from_record(record) == job(
        4, "shard", ["in.txt", "src/x.py"], ["out/3.pkl"], "bench/shard/p/3.tsv", study="p", shard="3"
    )
    assert str(job_from_record(record)) == "shard[study=p, shard=3]"


def test_job_seconds_read_each_jobs_own_benchmark(tmp_path):
    (tmp_path / "b").mkdir()
    frame = pd.DataFrame({"s": [2.0, 4.0], "h:m:s": ["0:00:02", "0:00:04"], "cpu_time": [1.0, 1.5]})
    frame.to_csv(tmp_path / "b/x.tsv", sep="\t", index=False)
    jobs = [job(1, "x", benchmark="b/x.tsv"), job(0, "all")]
    assert job_seconds(jobs, tmp_path) == {1: 3.0, 0: 0.0}  # the mean of the repeats; no benchmark: 0 s
    assert job_seconds(jobs, tmp_path, "cpu_time") == {1: 1.25, 0: 0.0}
    with pytest.raises(FileNotFoundError, match="no benchmark file .*y.tsv for job y\\[k=1\\]: run the same DAG"):
        job_seconds([job(2, "y", benchmark="b/y.tsv", k="1")], tmp_path)


SNAKEFILE = """
SLEEP = {"a": 0.2, "b": 0.6}

rule all:
    input: "out/combined.txt"

rule simulate:
    output: "out/sim/{sample}.txt"
    benchmark: "bench/simulate/{sample}.tsv"
    params: seconds=lambda wildcards: SLEEP[wildcards.sample]
    shell: "sleep {params.seconds} && echo {wildcards.sample} > {output}"

rule summarise:
    input: "out/sim/{sample}.txt"
    output: "out/sum/{sample}.txt"
    benchmark: "bench/summarise/{sample}.tsv"
    shell: "sleep 0.1 && cat {input} > {output}"

rule combine:
    input: expand("out/sum/{sample}.txt", sample=SLEEP)
    output: "out/combined.txt"
    benchmark: "bench/combine.tsv"
    shell: "cat {input} > {output}"
"""


def test_the_script_on_a_finished_tiny_workflow(tmp_path):
    (tmp_path / "Snakefile").write_text(SNAKEFILE, encoding="utf-8")
    options = ["--snakefile", str(tmp_path / "Snakefile"), "--directory", str(tmp_path)]
    run = subprocess.run(
        [sys.executable, "-m", "snakemake", "--cores", "2", *options], capture_output=True, text=True, cwd=tmp_path
    )
    assert run.returncode == 0, run.stderr[-3000:]
    code = f"import json; from benchmarks.critical_path import main; print(json.dumps(main({options!r})))"
    run = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, cwd=ROOT)
    assert run.returncode == 0, run.stderr[-3000:]
    result = json.loads(run.stdout.splitlines()[-1])

    def s(name):
        return float(pd.read_csv(tmp_path / "bench" / name, sep="\t")["s"].iloc[0])

    branches = {x: s(f"simulate/{x}.tsv") + s(f"summarise/{x}.tsv") for x in ("a", "b")}
    assert result["jobs"] == 6  # 2 x simulate, 2 x summarise, combine, all
    assert result["total_seconds"] == pytest.approx(sum(branches.values()) + s("combine.tsv"))
    assert result["critical_path_seconds"] == pytest.approx(max(branches.values()) + s("combine.tsv"))
    assert branches["b"] > branches["a"]
    chain = [name for name, _ in result["critical_chain"]]
    assert chain[:3] == ["simulate[sample=b]", "summarise[sample=b]", "combine"] and chain[3:] in ([], ["all"])
    assert "critical chain: simulate[sample=b]" in run.stdout


def test_cpu_time_of_a_job_forked_by_the_job_server_comes_from_its_usage_record(tmp_path):
    """The benchmark file of a served job times its waiting client; its usage record has the job's CPU seconds."""
    (tmp_path / "work/benchmarks").mkdir(parents=True)
    frame = pd.DataFrame({"s": [2.0], "h:m:s": ["0:00:02"], "cpu_time": [0.2]})
    frame.to_csv(tmp_path / "work/benchmarks/x.tsv", sep="\t", index=False)
    usage = tmp_path / "work/usage/x.json"
    usage.parent.mkdir(parents=True)
    usage.write_text('{"cpu_user_s": 1.5, "cpu_system_s": 0.25}')
    jobs = [job(1, "x", benchmark="work/benchmarks/x.tsv")]
    assert job_seconds(jobs, tmp_path, "cpu_time") == {1: 1.75}
    assert job_seconds(jobs, tmp_path, "s") == {1: 2.0}
