"""Every ```python block of docs/library.md and of README.md's "Using dplab as a library" section runs, has at
most 5 statements after its imports (the issue's bar for each task), prints what it computes, and shows the reader
no warning (Python warnings are errors here; a logged warning, such as absl's from dp_accounting, fails)."""

import ast
import logging
import pathlib
import re
import warnings

import pytest

ROOT = pathlib.Path(__file__).resolve().parents[2]
BLOCK = re.compile(r"```python\n(.*?)```", re.DOTALL)


def library_blocks():
    blocks = [("docs/library.md", code) for code in BLOCK.findall((ROOT / "docs" / "library.md").read_text())]
    readme = (ROOT / "README.md").read_text()
    if "## Using dplab as a library" in readme:
        section = readme.split("## Using dplab as a library", 1)[1].split("\n## ", 1)[0]
        blocks += [("README.md", code) for code in BLOCK.findall(section)]
    return blocks


BLOCKS = library_blocks()


def test_there_is_one_example_per_available_task():
    assert sum(source == "docs/library.md" for source, _ in BLOCKS) == 7


@pytest.mark.parametrize("source, code", BLOCKS, ids=[f"{s}-{i}" for i, (s, _) in enumerate(BLOCKS)])
def test_example_runs_in_at_most_five_statements_after_imports(source, code, capsys, caplog):
    statements = [node for node in ast.parse(code).body if not isinstance(node, ast.Import | ast.ImportFrom)]
    assert len(statements) <= 5, f"{source}: {len(statements)} statements after the imports"
    with warnings.catch_warnings(), caplog.at_level(logging.WARNING):
        warnings.simplefilter("error")
        exec(compile(code, source, "exec"), {})  # noqa: S102 (running the documented example is the test)
    assert not [r.getMessage() for r in caplog.records if r.levelno >= logging.WARNING], "the example logs warnings"
    assert capsys.readouterr().out.strip(), f"{source}: the example prints nothing"
