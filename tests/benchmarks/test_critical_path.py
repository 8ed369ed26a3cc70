"""The critical path of a DAG and the parsing of Snakemake's --dag output, against hand-computed cases."""

from pathlib import Path

import pytest

from benchmarks.critical_path import Job, benchmark_file, critical_path, parse_dag

DOT = """digraph snakemake_dag {
    0[label = "all", color = "0.00 0.6 0.85", style="rounded"];
    1[label = "preprocess\\ndataset: clusters\\nstep: dedup", color = "0.04 0.6 0.85", style="rounded"];
    2[label = "purification_ext_dp_erm_shard\\nshard: 3", color = "0.04 0.6 0.85", style="rounded"];
    3[label = "results_index", color = "0.04 0.6 0.85", style="rounded"];
    1 -> 3
    2 -> 3
    3 -> 0
}"""


def test_parse_dag_reads_rules_wildcards_and_edges():
    jobs, edges = parse_dag(DOT)
    assert jobs[1] == Job("preprocess", ("clusters", "dedup"))
    assert jobs[2] == Job("purification_ext_dp_erm_shard", ("3",))
    assert jobs[3] == Job("results_index", ())
    assert sorted(edges) == [(1, 3), (2, 3), (3, 0)]


def test_benchmark_files_follow_the_rules_layout():
    bench = Path("work/benchmarks")
    assert benchmark_file(bench, Job("preprocess", ("clusters", "dedup"))) == bench / "preprocess/clusters/dedup.tsv"
    assert benchmark_file(bench, Job("results_index", ())) == bench / "results_index.tsv"


@pytest.mark.parametrize(
    "seconds, edges, expected",
    [
        ({0: 1.0}, [], 1.0),
        ({0: 1.0, 1: 2.0, 2: 3.0}, [(0, 1), (1, 2)], 6.0),  # a chain: everything
        ({0: 1.0, 1: 2.0, 2: 3.0, 3: 0.5}, [(0, 3), (1, 3), (2, 3)], 3.5),  # a fan-in: the slowest branch
        ({0: 1.0, 1: 5.0, 2: 1.0, 3: 1.0}, [(0, 1), (0, 2), (1, 3), (2, 3)], 7.0),  # a diamond
    ],
)
def test_critical_path_is_the_longest_chain(seconds, edges, expected):
    assert critical_path(seconds, edges) == pytest.approx(expected)
