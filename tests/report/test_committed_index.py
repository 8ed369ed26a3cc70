"""The committed ``results/index.md``: every Markdown link it holds resolves to a file of ``results/`` (a claim's text
that happens to contain ``](`` would render as a broken link)."""

from __future__ import annotations

from pathlib import Path

RESULTS = Path(__file__).resolve().parents[2] / "results"


def test_every_link_of_the_committed_index_resolves():
    text = (RESULTS / "index.md").read_text(encoding="utf-8")
    links = [part.split(")")[0] for part in text.split("](")[1:]]
    assert len(links) > 100
    assert [link for link in links if not (RESULTS / link).exists()] == []
