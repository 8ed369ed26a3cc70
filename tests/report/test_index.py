"""results/index.md links every figure and table with its caption, and lists every claim."""

import pandas as pd
import pytest

from dplab.report.index import render_index


def make_study(root):
    study = root / "demo"
    (study / "figures").mkdir(parents=True)
    (study / "tables").mkdir()
    (study / "data").mkdir()
    for name in ("fig2", "ext_audit"):
        (study / "figures" / f"{name}.png").write_bytes(b"")
    (study / "data" / "fig2.csv").write_text("x\n1\n")
    (study / "tables" / "table1.md").write_text("|a|\n")
    pd.DataFrame({"claim_id": ["c1", "c2"], "source": ["s", "s"], "statement": ["a", "b"],
                  "verdict": ["holds", "fails"], "evidence": ["1", "2"], "artifact": ["x", "y"]}).to_csv(
        study / "claims.csv", index=False)


def test_index_links_everything(tmp_path):
    make_study(tmp_path)
    meta = {"demo": {"title": "Demo", "paper": "P", "captions": {"fig2": "Cap 2", "ext_audit": "Cap A", "table1": "T"}}}
    text = render_index(tmp_path, meta)
    assert "[png](demo/figures/fig2.png)" in text and "[data](demo/data/fig2.csv)" in text
    assert "Cap A" in text and "[markdown](demo/tables/table1.md)" in text
    assert text.index("fig2") < text.index("ext_audit")  # paper figures first
    assert "1 fails, 1 holds" in text
    assert "| c2 | fails | b | y |" in text


def test_missing_caption_is_an_error(tmp_path):
    make_study(tmp_path)
    meta = {"demo": {"title": "Demo", "paper": "P", "captions": {"fig2": "Cap 2", "table1": "T"}}}
    with pytest.raises(KeyError, match="no caption for demo/ext_audit"):
        render_index(tmp_path, meta)
