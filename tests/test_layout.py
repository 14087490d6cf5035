"""The layout shows the pipeline (spec -> IR -> {concrete model, z3} -> checks -> reports)
and stays acyclic: no module of model/ or properties/ imports, directly or through
others, a module that imports it (imports under `if TYPE_CHECKING:` are for types only
and do not count)."""

from __future__ import annotations

import ast
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent


def _modules() -> dict[str, Path]:
    out = {}
    for top in ("model", "properties"):
        for path in (ROOT / top).rglob("*.py"):
            name = ".".join(path.relative_to(ROOT).with_suffix("").parts)
            out[name.removesuffix(".__init__")] = path
    return out


def _runtime_imports(tree: ast.AST) -> list[ast.ImportFrom | ast.Import]:
    out: list[ast.ImportFrom | ast.Import] = []
    for node in ast.walk(tree):
        if isinstance(node, ast.If) and "TYPE_CHECKING" in ast.unparse(node.test):
            node.body = []  # skip what is imported for type checking only
    for node in ast.walk(tree):
        if isinstance(node, ast.Import | ast.ImportFrom):
            out.append(node)
    return out


def import_graph() -> dict[str, set[str]]:
    mods = _modules()
    graph: dict[str, set[str]] = {m: set() for m in mods}
    for name, path in mods.items():
        package = name if path.name == "__init__.py" else name.rpartition(".")[0]
        for node in _runtime_imports(ast.parse(path.read_text(encoding="utf-8"))):
            if isinstance(node, ast.ImportFrom):
                base = package.split(".")[:len(package.split(".")) - max(node.level - 1, 0)]
                target = ".".join([*base, node.module]) if node.level and node.module else (
                    ".".join(base) if node.level else node.module or "")
                candidates = [target] + [f"{target}.{a.name}" for a in node.names]
            else:
                candidates = [a.name for a in node.names]
            for c in candidates:
                # a package importing its own modules, or a module its own package, is no cycle
                if c in mods and c != name and not name.startswith(c + ".") \
                        and not c.startswith(name + "."):
                    graph[name].add(c)
    return graph


def cycles(graph: dict[str, set[str]]) -> list[list[str]]:
    """Strongly connected components with more than one module (Tarjan)."""
    index: dict[str, int] = {}
    low: dict[str, int] = {}
    stack: list[str] = []
    out: list[list[str]] = []

    def visit(v: str) -> None:
        index[v] = low[v] = len(index)
        stack.append(v)
        for w in graph[v]:
            if w not in index:
                visit(w)
                low[v] = min(low[v], low[w])
            elif w in stack:
                low[v] = min(low[v], index[w])
        if low[v] == index[v]:
            component = []
            while True:
                w = stack.pop()
                component.append(w)
                if w == v:
                    break
            if len(component) > 1:
                out.append(sorted(component))

    for v in sorted(graph):
        if v not in index:
            visit(v)
    return out


def test_no_import_cycles() -> None:
    assert cycles(import_graph()) == []


def test_the_cycle_finder_finds_a_cycle() -> None:
    assert cycles({"a": {"b"}, "b": {"c"}, "c": {"a"}, "d": {"a"}}) == [["a", "b", "c"]]


def test_properties_has_one_subpackage_per_part_of_the_pipeline() -> None:
    parts = {p.name for p in (ROOT / "properties").iterdir() if (p / "__init__.py").exists()}
    assert {"concrete", "symbolic", "cli"} <= parts
    loose = sorted(p.name for p in (ROOT / "properties").glob("*.py") if p.name != "__init__.py")
    assert loose == [], "every module of properties/ belongs to a subpackage"


def test_the_symbolic_back_end_is_reached_only_through_its_package() -> None:
    """The concrete checks never import z3 or the symbolic back end."""
    graph = import_graph()
    for name, path in _modules().items():
        if name.startswith(("properties.concrete", "model")):
            assert not any(t.startswith("properties.symbolic") for t in graph[name]), name
            tree = ast.parse(path.read_text(encoding="utf-8"))
            imported = {(n.module or "") if isinstance(n, ast.ImportFrom) else a.name
                        for n in _runtime_imports(tree)
                        for a in (n.names if isinstance(n, ast.Import) else [n])}
            assert not any(i.split(".")[0] == "z3" for i in imported), name
