"""workflow/RULES.md is what the declarations generate, and names exactly the rules Snakemake builds from them."""

import re
import subprocess
import sys

from dplab.workflow.config import REPOSITORY, load_config
from dplab.workflow.rules_list import PAGE, rules_page


def test_committed_page_is_the_generated_one():
    assert PAGE.read_text(encoding="utf-8") == rules_page(load_config()), (
        "workflow/RULES.md is stale: run python -m dplab.workflow.rules_list"
    )


def test_page_names_every_rule_of_the_dag_and_no_other():
    listed = subprocess.run(
        [sys.executable, "-m", "snakemake", "--list-rules", "--cores", "1"],
        cwd=REPOSITORY, capture_output=True, text=True, check=True, timeout=300,
    ).stdout.splitlines()  # fmt: skip
    listed = [line.split()[0] for line in listed if line.strip() and not line[0].isspace()]  # then its docstring
    on_page = set(re.findall(r"^\| `(\w+)` \|", PAGE.read_text(encoding="utf-8"), flags=re.MULTILINE))
    assert on_page == set(listed) - {"all"}
