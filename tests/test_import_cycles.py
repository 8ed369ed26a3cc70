"""No two modules of dplab import each other, directly or through others (function-level imports included: moving an
import into a function hides a cycle from Python, not from a reader)."""

import ast
from pathlib import Path

SRC = Path(__file__).resolve().parents[1] / "src"


def _module_name(path: Path) -> str:
    parts = path.relative_to(SRC).with_suffix("").parts
    return ".".join(parts[:-1] if parts[-1] == "__init__" else parts)


def _imports(path: Path, modules: set[str]) -> set[str]:
    """The dplab modules ``path`` imports (``from a.b import c`` counts as a.b.c when that is a module)."""
    found = set()
    for node in ast.walk(ast.parse(path.read_text())):
        if isinstance(node, ast.Import):
            found |= {alias.name for alias in node.names}
        elif isinstance(node, ast.ImportFrom) and node.module and node.level == 0:
            found.add(node.module)
            found |= {f"{node.module}.{alias.name}" for alias in node.names}
    return {name for name in found if name in modules}


def import_graph() -> dict[str, set[str]]:
    paths = {_module_name(p): p for p in SRC.joinpath("dplab").rglob("*.py")}
    return {name: _imports(path, set(paths)) - {name} for name, path in paths.items()}


def cycles(graph: dict[str, set[str]]) -> list[list[str]]:
    """Strongly connected components with more than one module (Tarjan's algorithm)."""
    index, low, stack, on_stack, found, counter = {}, {}, [], set(), [], [0]

    def visit(node: str) -> None:
        index[node] = low[node] = counter[0]
        counter[0] += 1
        stack.append(node)
        on_stack.add(node)
        for target in sorted(graph[node]):
            if target not in index:
                visit(target)
                low[node] = min(low[node], low[target])
            elif target in on_stack:
                low[node] = min(low[node], index[target])
        if low[node] == index[node]:
            component = []
            while True:
                member = stack.pop()
                on_stack.discard(member)
                component.append(member)
                if member == node:
                    break
            if len(component) > 1:
                found.append(sorted(component))

    for node in sorted(graph):
        if node not in index:
            visit(node)
    return found


def _package_edges_removed(graph: dict[str, set[str]]) -> dict[str, set[str]]:
    """A package's ``__init__`` re-exports its modules; an import of a sibling through the package name is an import
    of that sibling, not of every module the package holds, so edges into a package ``__init__`` from its own
    modules are dropped."""
    return {name: {t for t in targets if not name.startswith(f"{t}.")} for name, targets in graph.items()}


def test_the_cycle_finder_finds_a_cycle():
    assert cycles({"a": {"b"}, "b": {"c"}, "c": {"a"}, "d": {"a"}}) == [["a", "b", "c"]]
    assert cycles({"a": {"b"}, "b": set()}) == []


def test_no_import_cycles_in_dplab():
    assert cycles(_package_edges_removed(import_graph())) == []


#: Layers that sit below others: a module of the key's package imports none of the listed packages.
_PLUMBING = ("dplab.workflow", "dplab.studies")
BELOW = {
    "dplab.accounting": ("dplab.theory", "dplab.mechanisms", "dplab.audit", "dplab.learning", *_PLUMBING),
    "dplab.theory": ("dplab.mechanisms", "dplab.audit", "dplab.learning", *_PLUMBING),
    **{
        library: _PLUMBING
        for library in (
            "dplab.mechanisms", "dplab.audit", "dplab.learning", "dplab.data", "dplab.preprocessing",
            "dplab.checks", "dplab.account", "dplab.calibrate", "dplab.purify", "dplab.train",
        )
    },
}  # fmt: skip


def layer_violations(graph: dict[str, set[str]]) -> list[tuple[str, str]]:
    return sorted(
        (module, target)
        for module, targets in graph.items()
        for layer, above in BELOW.items()
        if module == layer or module.startswith(layer + ".")
        for target in targets
        if any(target == a or target.startswith(a + ".") for a in above)
    )


def test_the_top_level_of_dplab_holds_no_workflow_plumbing():
    """The workflow's modules (configuration, registry, resources, rule helpers) live in dplab.workflow."""
    top = sorted(p.stem for p in SRC.joinpath("dplab").glob("*.py") if p.stem != "__init__")
    plumbing = {"config", "config_checks", "config_reference", "registry", "resources", "workflow_helpers"}
    assert not plumbing & set(top), top


def test_library_layers_import_nothing_above_them():
    assert not layer_violations(import_graph())


def test_layer_rule_flags_a_theory_module_importing_a_mechanism():
    graph = {"dplab.theory.x": {"dplab.mechanisms.exponential"}, "dplab.mechanisms.exponential": set()}
    assert layer_violations(graph) == [("dplab.theory.x", "dplab.mechanisms.exponential")]
