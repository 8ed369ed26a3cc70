"""The best speed-up any cluster could give a run: the sum of its job times over its critical path.

``python -m benchmarks.critical_path [snakemake options]`` plans the run's DAG with Snakemake itself (a dry run with
``--forceall`` and the given options, e.g. ``--configfile config.quick.yaml --config shards=50 --directory DIR``),
reads each job's wall time (the ``s`` column; ``--weight cpu_time`` for CPU seconds, less sensitive to a loaded
machine) from the ``benchmark:`` file that job declares, and prints the job count (as ``snakemake -n`` counts them), the summed job time, the critical path (the longest chain of dependent jobs, in seconds), their ratio and the
jobs of that chain. With unlimited nodes and no queueing, no schedule can finish faster than the critical path, so
the ratio bounds the speed-up of a cluster over one core.

The jobs come from the records Snakemake's dry run logs for every job (``LogEvent.JOB_INFO``, the records its logger
plugins receive: rule, wildcards, input, output and benchmark paths, relative to the working directory), so each job
is mapped to its own benchmark file whatever its wildcards; a job depends on the jobs that write one of its inputs.
(``--dag`` labels cannot do this: they show only the wildcards a job adds to its dependencies'.)

The times must come from a run of the same DAG (the same ``shards``): the script refuses a job whose benchmark file
is missing rather than guessing. A job that declares no benchmark (``all``, which does no work) counts 0 s.
"""

from __future__ import annotations

import argparse
import json
import logging
import re
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from pathlib import Path

import pandas as pd

from dplab.workflow.jobserver import usage_path

__all__ = ["Job", "planned_jobs", "dependencies", "job_seconds", "critical_path", "main"]

_ANNOTATION = re.compile(r" \([^()]*\)$")  # Snakemake's " (pipe)", " (send to storage)" ... after a path


@dataclass(frozen=True)
class Job:
    """One job of the DAG as the dry run announces it."""

    jobid: int
    rule: str
    wildcards: tuple[tuple[str, str], ...]
    inputs: tuple[str, ...]
    outputs: tuple[str, ...]
    benchmark: str | None

    def __str__(self) -> str:
        wildcards = ", ".join(f"{name}={value}" for name, value in self.wildcards)
        return f"{self.rule}[{wildcards}]" if wildcards else self.rule


def _path(formatted: str) -> str:
    return _ANNOTATION.sub("", formatted)


def job_from_record(record: logging.LogRecord) -> Job:
    """A :class:`Job` from a ``LogEvent.JOB_INFO`` log record (its attributes are the job's properties)."""
    return Job(
        jobid=int(record.jobid),
        rule=record.rule_name,
        wildcards=tuple((str(k), str(v)) for k, v in dict(record.wildcards or {}).items()),
        inputs=tuple(_path(f) for f in record.input),
        outputs=tuple(_path(f) for f in record.output),
        benchmark=_path(record.benchmark) if record.benchmark else None,
    )


def planned_jobs(snakemake_options: Sequence[str]) -> tuple[list[Job], Path]:
    """Every job of the DAG that ``snakemake --dry-run --forceall <options>`` plans, and the working directory the
    jobs' paths are relative to. Snakemake runs in this process; a filter on its logger collects the job records and
    silences everything below a warning."""
    from snakemake.cli import args_to_api, parse_args
    from snakemake.logging import logger
    from snakemake_interface_logger_plugins.common import LogEvent

    jobs: list[Job] = []

    def collect(record: logging.LogRecord) -> bool:
        """Keep the job records; let only warnings and errors through to the console."""
        if getattr(record, "event", None) == LogEvent.JOB_INFO:
            jobs.append(job_from_record(record))
        return record.levelno >= logging.WARNING

    parser, args = parse_args(["--dry-run", "--forceall", *snakemake_options])
    logger.addFilter(collect)
    try:
        if not args_to_api(args, parser):
            raise RuntimeError(f"snakemake --dry-run {' '.join(snakemake_options)} failed")
    finally:
        logger.removeFilter(collect)
    return jobs, Path(args.directory or Path.cwd())


def dependencies(jobs: Sequence[Job]) -> list[tuple[int, int]]:
    """Edges ``(before, after)`` between job ids: ``after`` reads a file that ``before`` writes."""
    writer = {path: job.jobid for job in jobs for path in job.outputs}
    return sorted({(writer[path], job.jobid) for job in jobs for path in job.inputs if path in writer})


def job_seconds(jobs: Sequence[Job], workdir: Path, column: str = "s") -> dict[int, float]:
    """Every job's time: the mean ``column`` of its benchmark file (``s``: wall time, ``cpu_time``: CPU seconds; one
    row per repeat), 0 for a job without a benchmark. A job forked by the run's job server has its CPU seconds in its
    usage record (``<work>/usage/``, :func:`dplab.workflow.jobserver.usage_path`; its benchmark file's ``cpu_time``
    is its waiting client's), read for ``cpu_time`` when present."""
    seconds = {}
    for job in jobs:
        if job.benchmark is None:
            seconds[job.jobid] = 0.0
            continue
        path = workdir / job.benchmark
        if not path.exists():
            raise FileNotFoundError(f"no benchmark file {path} for job {job}: run the same DAG first")
        usage = usage_path(workdir / job.benchmark.split("/benchmarks/")[0], job.rule, dict(job.wildcards))
        if column == "cpu_time" and usage.exists():
            record = json.loads(usage.read_text())
            seconds[job.jobid] = record["cpu_user_s"] + record["cpu_system_s"]
        else:
            seconds[job.jobid] = float(pd.read_csv(path, sep="\t")[column].mean())
    return seconds


def critical_path(seconds: Mapping[int, float], edges: Sequence[tuple[int, int]]) -> tuple[float, list[int]]:
    """The longest chain of dependent jobs, its length and its jobs in run order:
    finish(j) = seconds(j) + max over the predecessors p of finish(p)."""
    before: dict[int, list[int]] = {node: [] for node in seconds}
    for first, then in edges:
        before[then].append(first)
    finish: dict[int, float] = {}
    slowest_before: dict[int, int | None] = {}
    for node in seconds:
        stack = [node]
        while stack:
            current = stack[-1]
            pending = [p for p in before[current] if p not in finish]
            if pending:
                stack.extend(pending)
                continue
            stack.pop()
            previous = max(before[current], key=finish.__getitem__, default=None)
            slowest_before[current] = previous
            finish[current] = seconds[current] + (finish[previous] if previous is not None else 0.0)
    # The longest chain ends at a job nothing depends on; starting from such a sink keeps zero-second jobs at the end
    # of the chain (a tie with their predecessor would otherwise cut them off).
    sinks = set(seconds) - {first for first, _ in edges}
    last: int | None = max(sinks, key=lambda node: (finish[node], -node))
    length, chain = finish[last], []
    while last is not None:
        chain.append(last)
        last = slowest_before[last]
    return length, chain[::-1]


def main(argv: Sequence[str] | None = None) -> dict[str, object]:
    parser = argparse.ArgumentParser(
        prog="python -m benchmarks.critical_path",
        description=__doc__.split("\n")[0],
        epilog="Every other option is passed to snakemake (e.g. --configfile, --config, --directory, --profile).",
    )
    parser.add_argument(
        "--weight",
        default="s",
        choices=["s", "cpu_time"],
        help="the benchmark column that weighs a job: wall seconds (default) or CPU seconds (less sensitive to load)",
    )
    known, snakemake_options = parser.parse_known_args(argv)
    jobs, workdir = planned_jobs(snakemake_options)
    seconds = job_seconds(jobs, workdir, known.weight)
    longest, chain = critical_path(seconds, dependencies(jobs))
    total = sum(seconds.values())
    by_id = {job.jobid: job for job in jobs}
    result: dict[str, object] = {
        "jobs": len(jobs),
        "total_seconds": total,
        "critical_path_seconds": longest,
        "best_cluster_speedup": total / longest if longest > 0 else float("nan"),
        "critical_chain": [(str(by_id[node]), seconds[node]) for node in chain],
    }
    print(", ".join(f"{key} {result[key]:.4g}" for key in list(result)[:4]))
    print("critical chain: " + " -> ".join(f"{name} ({s:.1f} s)" for name, s in result["critical_chain"]))
    return result


if __name__ == "__main__":
    main()
