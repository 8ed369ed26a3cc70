"""Opt-in test groups.

- ``pipeline``: runs the Snakemake workflow end to end on the quick configuration (minutes). Enable with
  ``--pipeline`` or ``DPLAB_TEST_PIPELINE=1``.
- ``system``: changes the machine outside the repository (installs Debian's slurm-wlm and munge, writes
  ``/etc/slurm/slurm.conf``, starts and stops SLURM daemons; needs root). Enable with ``--system`` or
  ``DPLAB_TEST_SYSTEM=1``, only on a disposable machine: it refuses to run where a SLURM it did not write exists.

A plain ``pytest`` runs neither, so it changes nothing outside the repository and its temporary folders.
``.ci/run`` enables both.
"""

import os

import pytest

GROUPS = {
    "pipeline": ("DPLAB_TEST_PIPELINE", "runs the workflow end to end (minutes)"),
    "system": ("DPLAB_TEST_SYSTEM", "changes the machine: installs and starts a local SLURM (root only)"),
}


def pytest_addoption(parser):
    for group, (variable, what) in GROUPS.items():
        parser.addoption(
            f"--{group}",
            action="store_true",
            default=False,
            help=f"run the tests marked '{group}' ({what}); or set {variable}=1",
        )


def pytest_configure(config):
    for group, (variable, what) in GROUPS.items():
        config.addinivalue_line("markers", f"{group}: {what}; enable with --{group} or {variable}=1")


def enabled(config, group: str) -> bool:
    variable = GROUPS[group][0]
    return config.getoption(f"--{group}") or os.environ.get(variable, "") not in ("", "0")


def pytest_collection_modifyitems(config, items):
    for item in items:
        disabled = [group for group in GROUPS if group in item.keywords and not enabled(config, group)]
        if disabled:
            reasons = "; ".join(
                f"'{group}' test ({GROUPS[group][1]}): run with --{group} or {GROUPS[group][0]}=1" for group in disabled
            )
            item.add_marker(pytest.mark.skip(reason=f"not enabled: {reasons}"))
