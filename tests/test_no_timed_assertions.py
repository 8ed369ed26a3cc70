"""No unit test reads a clock: a timed assertion fails on a loaded machine and proves nothing about speed, which the
benchmarks measure (``python -m benchmarks``, ratios side by side in one run).  Tests of the benchmark code itself
(tests/benchmarks) check its arithmetic on recorded numbers and are scanned too."""

from __future__ import annotations

import re
from pathlib import Path

TESTS = Path(__file__).resolve().parent
# A deadline that stops waiting for a subprocess is not a measurement: these files may read a clock for that.
DEADLINES = {
    "workflow/test_resume.py": "waits for a killed run's jobs, up to a deadline",
    "workflow/test_jobserver.py": "waits for the server's socket, a job to start and a cancelled job to end, up to a deadline",
}
CLOCK = re.compile(r"\b(?:time\.)?(?:perf_counter|monotonic|process_time)(?:_ns)?\(\)|\btime\.time\(\)")


def clock_reads(text: str) -> list[str]:
    """The lines of ``text`` that read a clock."""
    return [line.strip() for line in text.splitlines() if CLOCK.search(line)]


def test_the_pattern_finds_clock_reads():
    assert clock_reads("start = time.perf_counter()\nx = 1\nassert time.time() - t < 5")
    assert clock_reads("t0 = perf_counter_ns()") == ["t0 = perf_counter_ns()"]
    assert not clock_reads("timestamp = row['time']; timespec='seconds'")


def test_no_test_reads_a_clock():
    found = {
        str(path.relative_to(TESTS)): lines
        for path in TESTS.rglob("*.py")
        if path.name != Path(__file__).name
        and str(path.relative_to(TESTS)) not in DEADLINES
        and (lines := clock_reads(path.read_text(encoding="utf-8")))
    }
    assert not found, f"tests that read a clock (time it in benchmarks/ instead): {found}"
