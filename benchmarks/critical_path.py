"""The best speed-up any cluster could give a run: the sum of its job times over its critical path.

``python -m benchmarks.critical_path [snakemake options]`` asks Snakemake for the run's DAG (``--dag --forceall``
with the given options, e.g. ``--configfile config.quick.yaml --config shards=50``), reads each job's wall time from
its ``benchmark:`` file (``<work>/benchmarks/<rule>/<wildcard values>.tsv`` or ``<work>/benchmarks/<rule>.tsv``, as
every rule of the workflow declares it) and prints the job count, the summed job time, the critical path (the
longest chain of dependent jobs, in seconds) and their ratio. With unlimited nodes and no queueing, no schedule can
finish faster than the critical path, so the ratio bounds the speed-up of a cluster over one core.

The times must come from a run of the same DAG (the same ``shards``): the script refuses a job without a benchmark
file rather than guessing. ``all`` (no work) counts 0 s.
"""

from __future__ import annotations

import argparse
import re
import subprocess
import sys
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from pathlib import Path

import pandas as pd

__all__ = ["Job", "parse_dag", "benchmark_file", "critical_path", "main"]

_NODE = re.compile(r'^\s*(\d+)\[label = "([^"]*)"')
_EDGE = re.compile(r"^\s*(\d+) -> (\d+)")


@dataclass(frozen=True)
class Job:
    rule: str
    wildcards: tuple[str, ...]  # the values, in the order the DAG label lists them


def parse_dag(dot: str) -> tuple[dict[int, Job], list[tuple[int, int]]]:
    """Jobs and dependency edges (``before -> after``) of Snakemake's ``--dag`` output."""
    jobs, edges = {}, []
    for line in dot.splitlines():
        if node := _NODE.match(line):
            rule, *pairs = node.group(2).split("\\n")
            jobs[int(node.group(1))] = Job(rule, tuple(pair.split(": ", 1)[1] for pair in pairs))
        elif edge := _EDGE.match(line):
            edges.append((int(edge.group(1)), int(edge.group(2))))
    return jobs, edges


def benchmark_file(bench: Path, job: Job) -> Path:
    """Where the workflow's rules write a job's benchmark: the rule's folder and the wildcard values as a path."""
    if not job.wildcards:
        return bench / f"{job.rule}.tsv"
    return bench.joinpath(job.rule, *job.wildcards[:-1], f"{job.wildcards[-1]}.tsv")


def job_seconds(bench: Path, jobs: Mapping[int, Job]) -> dict[int, float]:
    """The wall time of the last measured run of every job (0 for ``all``)."""
    seconds = {}
    for node, job in jobs.items():
        if job.rule == "all":
            seconds[node] = 0.0
            continue
        path = benchmark_file(bench, job)
        if not path.exists():
            raise FileNotFoundError(f"no benchmark file {path} for job {job}: run the same DAG first")
        seconds[node] = float(pd.read_csv(path, sep="\t")["s"].iloc[-1])
    return seconds


def critical_path(seconds: Mapping[int, float], edges: Sequence[tuple[int, int]]) -> float:
    """The longest chain of dependent jobs: finish(j) = seconds(j) + max over predecessors of finish."""
    before: dict[int, list[int]] = {node: [] for node in seconds}
    for first, then in edges:
        before[then].append(first)
    finish: dict[int, float] = {}

    def finish_time(node: int) -> float:
        stack = [node]
        while stack:
            current = stack[-1]
            pending = [p for p in before[current] if p not in finish]
            if pending:
                stack.extend(pending)
                continue
            stack.pop()
            finish[current] = seconds[current] + max((finish[p] for p in before[current]), default=0.0)
        return finish[node]

    return max(finish_time(node) for node in seconds)


def main(argv: Sequence[str] | None = None) -> dict[str, float]:
    parser = argparse.ArgumentParser(prog="python -m benchmarks.critical_path", description=__doc__.split("\n")[0])
    parser.add_argument("--bench", type=Path, default=Path("work/benchmarks"), help="the run's benchmark folder")
    known, snakemake_options = parser.parse_known_args(argv)
    dot = subprocess.run(
        [sys.executable, "-m", "snakemake", "--dag", "--forceall", *snakemake_options],
        capture_output=True,
        text=True,
        check=True,
    ).stdout
    jobs, edges = parse_dag(dot)
    seconds = job_seconds(known.bench, jobs)
    total, longest = sum(seconds.values()), critical_path(seconds, edges)
    result = {
        "jobs": len(jobs) - 1,
        "total_seconds": total,
        "critical_path_seconds": longest,
        "best_cluster_speedup": total / longest,
    }
    print(", ".join(f"{key} {value:.4g}" for key, value in result.items()))
    return result


if __name__ == "__main__":
    main()
