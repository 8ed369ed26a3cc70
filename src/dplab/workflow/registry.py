"""How a study declares its artifacts, so that generic workflow rules can compute, draw and index them.

A study package (``dplab.studies.<name>``) exposes ``STUDY``, a :class:`Study`: its title, its paper, its
artifacts and its claims builder. For each :class:`Artifact` the workflow runs

1. a data rule: ``compute(params, seed, progress) -> DataFrame`` written to ``results/<study>/data/<id>.csv``
   (or ``tables/<id>.csv`` and ``.md`` for tables), where ``params`` is the artifact's section of ``config[<study>]``
   (:meth:`Artifact.params`);
2. for figures, a plotting rule: ``plot(frame, params) -> matplotlib Figure`` (it only reads the data file);
3. once per study, a claims rule: ``claims(frames, study_config) -> list[Claim]`` with every data frame by id.

Expensive pipeline steps write data; plotting only reads it, so a style edit re-runs no computation.

An artifact may instead read products of the study's own pipeline rules (e.g. the pre-processing study's datasets
and pre-processed datasets, made by ``datasets.smk`` and ``preprocess.smk``): ``inputs(study_config)`` names them,
``{name: path relative to <work>/<study>}``, the data rule depends on those files, and ``compute`` is called as
``compute(params, seed, progress, {name: Path})``.

``compute``, ``plot``, ``inputs`` and ``claims`` may be given as ``"package.module:function"`` strings: they are imported only
when called (:func:`resolve`), so building the workflow's DAG does not import torch or a study's heavy modules.
"""

from __future__ import annotations

import importlib
from collections.abc import Callable, Iterable, Mapping
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any

from dplab.seeding import derive_seed

if TYPE_CHECKING:
    import pandas as pd


__all__ = [
    "Artifact",
    "section_params",
    "Study",
    "combine_shards",
    "compute_artifact",
    "compute_shard",
    "load_study",
    "module_of",
    "no_progress",
    "resolve",
    "shard_points",
]

Compute = Callable[[Mapping[str, Any], int, Callable[[Iterable[Any]], Iterable[Any]]], "pd.DataFrame"] | str
Plot = Callable[["pd.DataFrame", Mapping[str, Any]], Any] | str
Inputs = Callable[[Mapping[str, Any]], Mapping[str, str]] | str
Points = Callable[[Mapping[str, Any]], "list[dict[str, Any]]"] | str
Combine = Callable[["pd.DataFrame", Mapping[str, Any]], "pd.DataFrame"] | str
#: ``claims(frames, study_config) -> [dplab.report.claims.Claim, ...]`` (the registry sits below the report package)
Claims = Callable[[Mapping[str, "pd.DataFrame"], Mapping[str, Any]], list[Any]] | str
Summary = Callable[["pd.DataFrame", Mapping[str, Any]], "pd.DataFrame"] | str
#: A heavy job's peak from its configuration section: (float64 values held at the peak, the size keys that set it).
MemoryEstimate = Callable[[Mapping[str, Any]], tuple[float, list[str]]] | str


def resolve(reference: Callable[..., Any] | str) -> Callable[..., Any]:
    """The callable itself, or the one a ``"package.module:function"`` string names (imported now)."""
    if callable(reference):
        return reference
    module, _, attribute = reference.partition(":")
    if not attribute:
        raise ValueError(f"reference {reference!r} must look like 'package.module:function'")
    return getattr(importlib.import_module(module), attribute)


def module_of(reference: Callable[..., Any] | str) -> str:
    """The module a ``"package.module:function"`` string or a function lives in (nothing is imported)."""
    return reference.partition(":")[0] if isinstance(reference, str) else reference.__module__


def section_params(study_config: Mapping[str, Any], section: str | tuple[str, ...]) -> Any:
    """The part of a study's configuration that ``section`` names: a key, a dotted path of keys (``"figures.fig2"``:
    ``study_config["figures"]["fig2"]``), or a tuple of those, giving ``{name: part}`` (``()`` gives ``{}``)."""
    if isinstance(section, tuple):
        return {name: section_params(study_config, name) for name in section}
    value: Any = study_config
    for key in section.split("."):
        if not isinstance(value, Mapping) or key not in value:
            raise ValueError(f"section {section!r} is invalid: no key {key!r}; allowed: a dotted path of config keys")
        value = value[key]
    return value


def no_progress(iterable: Iterable[Any]) -> Iterable[Any]:
    """The default progress wrapper: none."""
    return iterable


@dataclass(frozen=True)
class Artifact:
    """One figure or table of a study.

    ``section`` names the part of the study's configuration passed to ``compute`` and ``plot``: a key, a dotted path
    or a tuple of them (:func:`section_params`), so a changed key re-runs only the artifacts whose section holds it;
    ``mem_mb`` and ``runtime`` (minutes) are the resources its data job declares; a heavy job also sets ``memory``,
    ``memory(params) -> (float64 values at the peak, the size keys)``, and then declares the larger of ``mem_mb`` and
    that estimate in MB (:func:`dplab.workflow.resources.job_mem_mb`; a configuration whose estimate exceeds
    ``resources.max_mem_mb`` is refused before any job, naming the size keys). With ``derived_from`` set to
    another artifact's id, this artifact is built from that artifact's data instead of being recomputed:
    ``compute(source_frame, params) -> DataFrame`` (so a table and a figure of one experiment show the same runs).
    With ``inputs`` set, it reads the pipeline products that function names (module docstring). A table too long or
    too wide to read may set ``summary(frame, params) -> DataFrame``: its Markdown then shows that summary, with a
    link to the full CSV (:func:`dplab.report.tables.write_table`). A figure whose numbers are also a table of the
    paper's reader sets ``table(frame, params) -> DataFrame``: the same data job then also writes that frame as
    ``tables/<id>.csv`` and ``.md``, so the figure and the table show the same runs under one id. A table (or a
    figure with ``table``) declares its ``glossary``, ``{column: meaning and unit}``, for every column its Markdown
    shows that is not self-explaining (:data:`dplab.report.tables.SELF_EXPLAINING`); the Markdown ends with it.

    The random streams derive from ``seed``: ``derive_seed(config seed, study, id)`` (:meth:`seed`), or the
    configuration's base seed itself with ``base_seed=True``, for an artifact that derives its own streams from the
    base seed and each point's identity (e.g. to keep the seeds of an earlier workflow layout).

    A sweep (seeds x parameter points) declares ``points(params) -> [point, ...]`` (plain dicts, in output order)
    and computes one point at a time: ``compute(params, seed, progress, point) -> DataFrame`` (its rows). Each point
    derives its random streams from ``seed`` and its own values, never from its neighbours, so the workflow may
    split the points into any number of shards (separate jobs, see :func:`shard_points`) and the combined CSV is
    byte-identical whatever that number. ``combine(rows, params) -> DataFrame`` turns the rows of all points, in
    point order, into the artifact's frame (default: the rows themselves).
    """

    id: str
    kind: str
    section: str | tuple[str, ...]
    compute: Compute
    caption: str
    plot: Plot | None = None
    mem_mb: int = 1000
    runtime: int = 10
    derived_from: str | None = None
    inputs: Inputs | None = None
    summary: Summary | None = None
    points: Points | None = None
    combine: Combine | None = None
    table: Summary | None = None
    base_seed: bool = False
    memory: MemoryEstimate | None = None
    glossary: Mapping[str, str] = field(default_factory=dict, hash=False)

    def params(self, study_config: Mapping[str, Any]) -> Any:
        """The configuration passed to ``compute`` and ``plot``: this artifact's section of ``study_config``."""
        return section_params(study_config, self.section)

    def seed(self, base: int, study: str) -> int:
        """The seed ``compute`` receives: the configuration's ``base`` seed with ``base_seed``, else one derived
        from ``base``, the study and this artifact's id."""
        return base if self.base_seed else derive_seed(base, study, self.id)

    def sweep(self, params: Mapping[str, Any]) -> list[dict[str, Any]]:
        """The points of a sweep artifact, in output order (empty for an artifact that is not a sweep)."""
        return list(resolve(self.points)(params)) if self.points else []

    def compute_modules(self) -> tuple[str, ...]:
        """The modules the data job runs: the compute function's, the summary's (tables) and the writers'.

        The workflow makes the data job depend on their import closure, and on nothing else of the study, so a
        plotting or claims edit re-runs no computation (:func:`dplab.workflow.helpers.dplab_sources`).
        """
        tables = self.writes_table
        writers = ("dplab.report.io", "dplab.report.tables") if tables else ("dplab.report.io",)
        inputs = (module_of(self.inputs),) if self.inputs else ()
        summary = tuple(module_of(f) for f in (self.summary, self.table) if f)
        sweep = tuple(module_of(f) for f in (self.points, self.combine) if f)
        return tuple(dict.fromkeys((module_of(self.compute), *inputs, *summary, *sweep, *writers)))

    def plot_modules(self) -> tuple[str, ...]:
        """The modules the plotting job runs: the plot function's and the figure style."""
        return (module_of(self.plot), "dplab.report.style") if self.plot else ()

    def __post_init__(self) -> None:
        if self.points and self.derived_from:
            raise ValueError(f"artifact {self.id!r}: a sweep (points) computes its rows: it cannot be derived_from")
        if self.combine and not self.points:
            raise ValueError(f"artifact {self.id!r}: combine needs points")
        if self.derived_from and self.inputs:
            raise ValueError(f"artifact {self.id!r}: set derived_from or inputs, not both")
        if self.kind not in ("figure", "table"):
            raise ValueError(f"artifact {self.id!r}: kind {self.kind!r} is not one of figure, table")
        if (self.kind == "figure") != (self.plot is not None):
            raise ValueError(f"artifact {self.id!r}: a figure needs a plot function and a table must not have one")
        if self.summary is not None and self.kind != "table":
            raise ValueError(f"artifact {self.id!r}: only a table can have a summary, not a {self.kind}")
        if self.table is not None and self.kind != "figure":
            raise ValueError(f"artifact {self.id!r}: only a figure can also publish a table, not a {self.kind}")
        if self.glossary and not self.writes_table:
            raise ValueError(f"artifact {self.id!r}: a glossary explains a table's columns; this artifact writes none")
        braced = [text for text in (self.caption, *self.glossary.values()) if "{" in text or "}" in text]
        if braced:
            raise ValueError(
                f"artifact {self.id!r}: caption or glossary text {braced[0]!r} is invalid; allowed: text without "
                "'{' or '}' (the workflow passes it as a rule parameter, where Snakemake reads braces as wildcards)"
            )

    @property
    def writes_table(self) -> bool:
        """Whether the data job writes ``tables/<id>.csv`` and ``.md``: a table, or a figure with ``table``."""
        return self.kind == "table" or self.table is not None

    def report_caption(self) -> str:
        """The caption of the table's CSV in the Snakemake report: the caption, then the glossary when the CSV has
        the columns the glossary explains (no ``summary``: the Markdown shows the CSV's own columns)."""
        if not self.glossary or self.summary:
            return self.caption
        return "\n\n".join([self.caption, "Columns:", "\n".join(f"- {c}: {m}" for c, m in self.glossary.items())])


@dataclass(frozen=True)
class Study:
    """A study: its results folder name, title, paper, artifacts and claims builder.

    The JSON schema of ``config[name]`` is ``workflow/schemas/<name>.schema.yaml`` (:func:`dplab.workflow.config.study_schema`:
    the workflow validates the configuration once, at parse time, so that no job reads it);
    ``constraints(study_config)`` returns the problems a schema cannot express, each as
    ``config key '<name>.<key>': value <v> is invalid; allowed: <what>``.
    ``stage_memory`` estimates the memory of the study's pipeline stages that are not artifacts (rules of
    ``workflow/rules/*.smk``): stage name -> (section, estimator), as an artifact's ``memory``.
    """

    name: str
    title: str
    paper: str
    artifacts: tuple[Artifact, ...]
    claims: Claims
    constraints: Callable[[Mapping[str, Any]], list[str]] = lambda study_config: []
    stage_memory: Mapping[str, tuple[str, MemoryEstimate]] = field(default_factory=dict)

    def __post_init__(self) -> None:
        ids = [a.id for a in self.artifacts]
        unknown = sorted({a.derived_from for a in self.artifacts if a.derived_from and a.derived_from not in ids})
        if unknown:
            raise ValueError(f"study {self.name!r}: artifacts derived from unknown ids {unknown}")
        duplicated = sorted({i for i in ids if ids.count(i) > 1})
        if duplicated:
            raise ValueError(f"study {self.name!r}: duplicate artifact ids {duplicated}")

    def artifact(self, artifact_id: str) -> Artifact:
        for artifact in self.artifacts:
            if artifact.id == artifact_id:
                return artifact
        known = ", ".join(a.id for a in self.artifacts)
        raise ValueError(f"study {self.name!r} has no artifact {artifact_id!r}; known: {known}")

    def declared(self, study_config: Mapping[str, Any]) -> tuple[Artifact, ...]:
        """The artifacts a configuration declares: all but the sweeps it gives no point (e.g. the audit of a noise
        that no audited configuration uses), which would have nothing to show."""
        return tuple(a for a in self.artifacts if not a.points or a.sweep(a.params(study_config)))

    def ids(self, kind: str, study_config: Mapping[str, Any] | None = None) -> list[str]:
        """The ids of the figures or the tables (a figure publishing a ``table`` is both), of every artifact or of
        those ``study_config`` declares."""
        artifacts = self.artifacts if study_config is None else self.declared(study_config)
        return [a.id for a in artifacts if a.kind == kind or kind == "table" and a.table]

    def data_path(self, artifact_id: str) -> str:
        """Path of an artifact's CSV relative to the study's results folder."""
        return f"{'data' if self.artifact(artifact_id).kind == 'figure' else 'tables'}/{artifact_id}.csv"

    def result_path(self, artifact_id: str) -> str:
        """Where a reader sees an artifact, relative to the results folder: ``<study>/figures/<id>.png`` for a figure,
        ``<study>/tables/<id>.csv`` for a table (the path a claim cites)."""
        if self.artifact(artifact_id).kind == "figure":
            return f"{self.name}/figures/{artifact_id}.png"
        return f"{self.name}/tables/{artifact_id}.csv"

    def memory_estimates(self) -> dict[str, tuple[str, Callable[[Mapping[str, Any]], tuple[float, list[str]]]]]:
        """The jobs of this study whose memory is estimated: artifact id or stage name -> (section, estimator)."""
        artifacts = {a.id: (a.section, resolve(a.memory)) for a in self.artifacts if a.memory}
        return {**artifacts, **{name: (section, resolve(f)) for name, (section, f) in self.stage_memory.items()}}

    def captions(self) -> dict[str, str]:
        return {a.id: a.caption for a in self.artifacts}


def shard_points(count: int, shards: int, shard: int) -> list[int]:
    """The indices of the points that shard ``shard`` of ``shards`` computes: every ``shards``-th point, so each
    shard gets a mix of cheap and expensive points."""
    if not 0 <= shard < shards:
        raise ValueError(f"shard = {shard} is invalid; allowed: 0 <= shard < shards = {shards}")
    return list(range(shard, count, shards))


def compute_shard(
    artifact: Artifact,
    params: Mapping[str, Any],
    seed: int,
    indices: Iterable[int],
    progress: Callable[[Iterable[Any]], Iterable[Any]] = no_progress,
    inputs: Mapping[str, Any] | None = None,
) -> pd.DataFrame:
    """The rows of the sweep points ``indices``, each tagged with its point index in column ``_point``
    (``compute(params, seed, progress, point)``, with ``inputs`` as a fifth argument for an artifact that reads
    pipeline products)."""
    import pandas as pd

    points = artifact.sweep(params)
    compute = resolve(artifact.compute)
    extra = (inputs,) if artifact.inputs else ()
    frames = [compute(params, seed, no_progress, points[i], *extra).assign(_point=i) for i in progress(list(indices))]
    return pd.concat(frames, ignore_index=True) if frames else pd.DataFrame({"_point": []})


def combine_shards(artifact: Artifact, shards: Iterable[pd.DataFrame], params: Mapping[str, Any]) -> pd.DataFrame:
    """The artifact's frame from the rows of its shards: every point's rows in point order, then ``combine``."""
    import pandas as pd

    frames = list(shards)
    # A shard without points (more shards than points) has no rows and untyped columns: leave it out, so that
    # integer columns of the others stay integers.
    rows = pd.concat([f for f in frames if len(f)] or frames[:1], ignore_index=True)
    rows = rows.sort_values("_point", kind="stable").drop(columns="_point").reset_index(drop=True)
    return resolve(artifact.combine)(rows, params) if artifact.combine else rows


def compute_artifact(
    artifact: Artifact,
    params: Mapping[str, Any],
    seed: int,
    progress: Callable[[Iterable[Any]], Iterable[Any]] = no_progress,
    inputs: Mapping[str, Any] | None = None,
) -> pd.DataFrame:
    """An artifact computed in one process (all points of a sweep, as one shard); ``inputs`` for an artifact that
    reads pipeline products."""
    if not artifact.points:
        extra = (inputs,) if artifact.inputs else ()
        return resolve(artifact.compute)(params, seed, progress, *extra)
    indices = range(len(artifact.sweep(params)))
    return combine_shards(artifact, [compute_shard(artifact, params, seed, indices, progress, inputs)], params)


def load_study(name: str) -> Study:
    """The :class:`Study` declared as ``STUDY`` in ``dplab.studies.<name>``."""
    study = importlib.import_module(f"dplab.studies.{name}").STUDY
    if study.name != name:
        raise ValueError(f"dplab.studies.{name}.STUDY is named {study.name!r}")
    return study
