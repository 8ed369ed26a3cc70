"""The study registry rejects malformed declarations and finds artifacts by id."""

import numpy as np
import pandas as pd
import pytest

from dplab.workflow.registry import (
    Artifact,
    Study,
    combine_shards,
    compute_artifact,
    compute_shard,
    shard_points,
)


def compute(params, seed, progress):
    return pd.DataFrame({"x": [seed]})


def plot(frame, params):
    return None


def test_figure_needs_plot_and_table_must_not_have_one():
    with pytest.raises(ValueError, match="needs a plot function"):
        Artifact("f1", "figure", "s", compute, "c")
    with pytest.raises(ValueError, match="needs a plot function and a table must not have one"):
        Artifact("t1", "table", "s", compute, "c", plot=plot)
    with pytest.raises(ValueError, match="kind 'chart'"):
        Artifact("x", "chart", "s", compute, "c")


def test_study_lookup_and_duplicates():
    figure = Artifact("f1", "figure", "s", compute, "Cap f1", plot=plot)
    table = Artifact("t1", "table", "s", compute, "Cap t1")
    study = Study("demo", "Demo", "Paper", (figure, table), claims=lambda frames, cfg: [])
    assert study.artifact("t1") is table
    assert study.ids("figure") == ["f1"] and study.captions() == {"f1": "Cap f1", "t1": "Cap t1"}
    with pytest.raises(ValueError, match="no artifact 'zz'; known: f1, t1"):
        study.artifact("zz")
    with pytest.raises(ValueError, match="duplicate artifact ids"):
        Study("demo", "Demo", "Paper", (figure, figure), claims=lambda frames, cfg: [])


def test_string_references_resolve_lazily():
    from dplab.workflow.registry import resolve

    assert resolve("dplab.seeding:derive_seed")(1, "a") == __import__("dplab.seeding").seeding.derive_seed(1, "a")
    assert resolve(compute) is compute
    with pytest.raises(ValueError, match="package.module:function"):
        resolve("dplab.seeding")


def test_derived_artifacts_must_name_a_known_source():
    table = Artifact("t1", "table", "s", compute, "c", derived_from="f9")
    with pytest.raises(ValueError, match="derived from unknown ids"):
        Study("demo", "Demo", "Paper", (table,), claims=lambda frames, cfg: [])
    figure = Artifact("f1", "figure", "s", compute, "c", plot=plot)
    study = Study(
        "demo",
        "Demo",
        "Paper",
        (figure, Artifact("t1", "table", "s", compute, "c", derived_from="f1")),
        claims=lambda frames, cfg: [],
    )
    assert study.data_path("f1") == "data/f1.csv" and study.data_path("t1") == "tables/t1.csv"


def test_an_artifact_reads_either_another_artifact_or_pipeline_products():
    with pytest.raises(ValueError, match="set derived_from or inputs, not both"):
        Artifact("t1", "table", "s", compute, "c", derived_from="f1", inputs=lambda cfg: {"data": "datasets/a.npz"})
    table = Artifact("t2", "table", "s", compute, "c", inputs="dplab.studies.preprocessing.pipeline:fig3_inputs")
    assert table.inputs.endswith(":fig3_inputs")


def point_rows(params, seed, progress, point):
    rng = np.random.default_rng([seed, point["k"]])  # the point's own stream: independent of the shard
    return pd.DataFrame({"k": [point["k"]] * 2, "draw": rng.random(2)})


SWEEP = Artifact(
    "s1",
    "figure",
    "s",
    point_rows,
    "c",
    plot=plot,
    points=lambda params: [{"k": k} for k in range(7)],
    combine=lambda rows, params: rows.assign(total=rows["draw"].sum()),
)


def test_shards_partition_the_points():
    for shards in range(1, 9):
        parts = [shard_points(7, shards, i) for i in range(shards)]
        assert sorted(i for part in parts for i in part) == list(range(7))
    with pytest.raises(ValueError, match="shard = 3 is invalid; allowed: 0 <= shard < shards = 3"):
        shard_points(7, 3, 3)


@pytest.mark.parametrize("shards", [1, 2, 3, 7])
def test_a_sweep_is_identical_whatever_the_number_of_shards(shards):
    whole = compute_artifact(SWEEP, {}, 5)
    parts = [compute_shard(SWEEP, {}, 5, shard_points(7, shards, i)) for i in range(shards)][::-1]
    combined = combine_shards(SWEEP, parts, {})
    pd.testing.assert_frame_equal(combined, whole)
    assert list(whole["k"]) == [k for k in range(7) for _ in range(2)]
    assert whole["total"].nunique() == 1


def test_an_empty_shard_does_not_turn_integer_columns_into_floats():
    artifact = Artifact("sweep", "figure", "s", lambda *a: None, "c", plot="m:f", points="m:p")
    full = pd.DataFrame({"n": [1, 2], "_point": [0, 1]})
    empty = pd.DataFrame({"_point": []})
    combined = combine_shards(artifact, [full, empty], {})
    assert combined["n"].dtype.kind == "i"
    assert combined.equals(combine_shards(artifact, [full], {}))


def test_a_section_is_a_key_a_dotted_path_or_a_tuple_of_them():
    from dplab.workflow.registry import section_params

    study_config = {"figures": {"fig2": {"n": 40}}, "audit": {"n": 10}, "other": 1}
    assert section_params(study_config, "audit") == {"n": 10}
    assert section_params(study_config, "figures.fig2") == {"n": 40}
    assert section_params(study_config, ("audit", "figures.fig2")) == {"audit": {"n": 10}, "figures.fig2": {"n": 40}}
    assert section_params(study_config, ()) == {}
    with pytest.raises(ValueError, match="section 'figures.fig9' is invalid: no key 'fig9'"):
        section_params(study_config, "figures.fig9")
    artifact = Artifact("f1", "figure", "figures.fig2", compute, "c", plot=plot)
    assert artifact.params(study_config) == {"n": 40}


def test_the_seed_derives_from_the_artifact_unless_it_keeps_the_base_seed():
    from dplab.seeding import derive_seed

    figure = Artifact("f1", "figure", "s", compute, "c", plot=plot)
    assert figure.seed(7, "demo") == derive_seed(7, "demo", "f1") != 7
    assert Artifact("f1", "figure", "s", compute, "c", plot=plot, base_seed=True).seed(7, "demo") == 7


def test_a_figure_may_publish_a_table_of_its_data():
    with pytest.raises(ValueError, match="only a figure can also publish a table, not a table"):
        Artifact("t1", "table", "s", compute, "c", table=lambda frame, params: frame)
    figure = Artifact("f1", "figure", "s", compute, "c", plot=plot, table="dplab.studies.contraction.utility:x")
    assert "dplab.report.tables" in figure.compute_modules() and "dplab.studies.contraction.utility" in (
        figure.compute_modules()
    )
    study = Study("demo", "Demo", "Paper", (figure,), claims=lambda frames, cfg: [])
    assert study.ids("figure") == study.ids("table") == ["f1"] and study.data_path("f1") == "data/f1.csv"


def test_a_sweep_without_points_is_not_declared():
    sweep = Artifact("s1", "figure", "s", point_rows, "c", plot=plot, points=lambda params: params["points"])
    table = Artifact("t1", "table", "s", compute, "c")
    study = Study("demo", "Demo", "Paper", (sweep, table), claims=lambda frames, cfg: [])
    assert study.declared({"s": {"points": [{"k": 1}]}}) == (sweep, table)
    assert study.declared({"s": {"points": []}}) == (table,)
    assert study.ids("figure", {"s": {"points": []}}) == [] and study.ids("figure") == ["s1"]
