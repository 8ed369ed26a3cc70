"""results/index.md links every figure and table with its caption, and lists every claim."""

import pandas as pd
import pytest

from dplab.report.claims import KINDS, SEVERITIES, VERDICTS
from dplab.report.index import first_sentence, one_line_reason, render_index


def make_study(root):
    study = root / "demo"
    (study / "figures").mkdir(parents=True)
    (study / "tables").mkdir()
    (study / "data").mkdir()
    for name in ("fig2", "ext_audit"):
        (study / "figures" / f"{name}.png").write_bytes(b"")
    (study / "data" / "fig2.csv").write_text("x\n1\n")
    (study / "tables" / "table1.md").write_text("|a|\n")
    pd.DataFrame(
        {
            "claim_id": ["c1", "c2", "c3", "c4"],
            "source": ["s", "s", "s", "s"],
            "statement": ["a", "b", "c", "d"],
            "verdict": ["holds", "fails", "erratum", "fails"],
            "severity": ["", "", "typo", ""],
            "kind": ["paper", "paper", "paper", "extension"],
            "evidence": ["1", "2", "3", "4"],
            "artifact": ["x", "y", "z", "w"],
        }
    ).to_csv(study / "claims.csv", index=False)


def declared(captions, figures=("ext_audit", "fig2"), tables=("table1",)):
    return {"title": "Demo", "paper": "P", "captions": captions, "figures": list(figures), "tables": list(tables)}


def test_index_links_everything(tmp_path):
    make_study(tmp_path)
    meta = {"demo": declared({"fig2": "Cap 2", "ext_audit": "Cap A", "table1": "T"})}
    text = render_index(tmp_path, meta)
    assert "[png](demo/figures/fig2.png)" in text and "[data](demo/data/fig2.csv)" in text
    assert "Cap A" in text and "[markdown](demo/tables/table1.md)" in text
    assert text.index("fig2") < text.index("ext_audit")  # paper figures first
    assert "1 erratum: typo, 1 fails, 1 holds" in text
    assert "| c2 | fails |  | b | 2 | y |" in text
    assert "| c3 | erratum | typo | c | 3 | z |" in text
    # the extension has a section of its own, after the paper's claims, and is not counted as the paper's
    assert text.index("### Claims of the paper") < text.index("### Extensions") < text.index("| c4 | fails | d |")
    assert "| demo | 1 | 0 | 1 | 0 | 0 | 1 | 0 | 3 |" in text  # paper: holds, partial, fails, false, loose, typo, ...
    assert "| demo | 0 | 0 | 1 | 0 | 1 |" in text  # extensions: holds, partial, fails, not_tested, total


def test_missing_caption_is_an_error(tmp_path):
    make_study(tmp_path)
    meta = {"demo": declared({"fig2": "Cap 2", "table1": "T"}, figures=["fig2", "ext_audit"])}
    with pytest.raises(KeyError, match="no caption for demo/ext_audit"):
        render_index(tmp_path, meta)


def test_index_lists_exactly_the_declared_artifacts_whatever_lies_in_the_folder(tmp_path):
    make_study(tmp_path)
    figures = tmp_path / "demo" / "figures"
    (figures / ".fig2.png.k3j2.tmp.png").write_bytes(b"")  # left by a killed write
    (figures / "notes.md").write_text("my notes")
    (figures / "ext_old.png").write_bytes(b"")  # an artifact of an earlier configuration
    (tmp_path / "demo" / "tables" / "notes.md").write_text("my notes")
    text = render_index(tmp_path, {"demo": declared({"fig2": "Cap 2", "table1": "T"}, figures=["fig2"])})
    assert "ext_old" not in text and "notes" not in text and "tmp" not in text and "ext_audit" not in text
    assert "**fig2**" in text and "**table1**" in text


def test_index_links_only_the_figure_formats_the_configuration_draws(tmp_path):
    make_study(tmp_path)
    meta = {"demo": declared({"fig2": "Cap 2", "table1": "T"}, figures=["fig2"])}
    assert "[pdf](demo/figures/fig2.pdf)" in render_index(tmp_path, meta)
    png_only = render_index(tmp_path, meta, ("png",))
    assert "[png](demo/figures/fig2.png)" in png_only and "pdf" not in png_only


def test_index_defines_the_verdicts_once_and_gives_a_reason_per_claim(tmp_path):
    make_study(tmp_path)
    text = render_index(tmp_path, {"demo": declared({"fig2": "Cap 2", "ext_audit": "Cap A", "table1": "T"})})
    for words in (VERDICTS, SEVERITIES, KINDS):
        for word, meaning in words.items():
            assert text.count(f"| `{word}` | {meaning} |") == 1
    assert "| claim_id | verdict | severity | statement | reason | artifact |" in text


def test_one_line_reason_is_the_first_whole_sentence():
    evidence = "Thm4 <= Prop1 at 100% of eps in [0, 3] for every user; at eps = 1 delta 1e-36 vs 5e-09. More."
    assert (
        one_line_reason(evidence)
        == "Thm4 <= Prop1 at 100% of eps in [0, 3] for every user; at eps = 1 delta 1e-36 vs 5e-09."
    )
    assert one_line_reason("x" * 300) == "x" * 300  # never cut
    assert one_line_reason("short. then more") == "short."


@pytest.mark.parametrize(
    "sentence",
    [
        "As in Prop. 1 and Figs. 2-3, the bound holds (Sec. IV, Thm. 4, Eq. 7, Cor. 3, Alg. 2, Lemma 4).",
        "He et al. compare e.g. T = 10 with i.e. the DRV bound vs. the optimum.",
        "With the initial W. Feller and the variable x. y is 1.5 here.",
    ],
)
def test_first_sentence_does_not_stop_at_an_abbreviation(sentence):
    assert first_sentence(f"{sentence} Second sentence.") == sentence
