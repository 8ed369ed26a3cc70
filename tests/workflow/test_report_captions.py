"""Every artifact's caption renders in the Snakemake report as written: the caption template escapes the characters
reStructuredText would read as markup (``|X|`` was a substitution reference and broke the report's caption)."""

import html
import re
from pathlib import Path

import docutils.core
import jinja2
import pytest

from dplab.workflow.registry import load_study

TEMPLATE = Path(__file__).resolve().parents[2] / "workflow" / "report" / "artifact.rst"
STUDIES = ("contraction", "preprocessing", "generalization", "purification")
CAPTIONS = [(name, a.id, a.caption) for name in STUDIES for a in load_study(name).artifacts]


def rendered_text(caption: str) -> str:
    """The caption through the report's template and docutils (any docutils warning raises), as plain text."""
    source = jinja2.Template(TEMPLATE.read_text(encoding="utf-8")).render(snakemake={"params": {"caption": caption}})
    body = docutils.core.publish_parts(source, writer="html", settings_overrides={"halt_level": 2})["body"]
    return html.unescape(re.sub(r"<[^>]+>", "", body)).strip()


@pytest.mark.parametrize("study, artifact, caption", CAPTIONS, ids=[f"{s}-{a}" for s, a, _ in CAPTIONS])
def test_caption_renders_verbatim(study, artifact, caption):
    assert " ".join(rendered_text(caption).split()) == " ".join(caption.split())


def test_markup_characters_are_escaped():
    assert (
        rendered_text("on |X| = 4, *not* bold, `code`, ref_ and a\\b")
        == "on |X| = 4, *not* bold, `code`, ref_ and a\\b"
    )


GLOSSED = [(name, a) for name in STUDIES for a in load_study(name).artifacts if a.report_caption() != a.caption]


@pytest.mark.parametrize("study, artifact", GLOSSED, ids=[f"{s}-{a.id}" for s, a in GLOSSED])
def test_report_caption_glossary_renders_as_a_list_of_every_column(study, artifact):
    text = " ".join(rendered_text(artifact.report_caption()).split())
    assert text.startswith(" ".join(artifact.caption.split()) + " Columns:")
    for column, meaning in artifact.glossary.items():
        assert " ".join(f"{column}: {meaning}".split()) in text


def test_some_report_captions_carry_a_glossary():
    assert {(study, artifact.id) for study, artifact in GLOSSED} >= {
        ("purification", "table2"),
        ("preprocessing", "table2"),
    }
