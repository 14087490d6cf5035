"""The layout shows the pipeline (spec -> IR -> {concrete model, z3} -> checks -> reports
and commands): each layer imports only the layers below it, without a cycle, and no
module grows past what a reader can hold.

The layers, bottom first: `model/` (the spec compiled to a reference model), then
`properties/`: the back ends (`concrete/`, `symbolic/`), the checks layer (`checks/`: rows,
verdicts, the planner, the cache, the runner), what builds on them (`compare/`, `faq/`),
and on top `cli/` (the commands, their output, the pytest plugin). Every module of
`model/` and `properties/` is read with `ast`, never imported, so a test names the file
and line of what it finds.

An import counts wherever it is written: at module level, inside a function (a
function-local import is a dependency too, only a later one: hiding a cycle behind one
is what these tests forbid), and under `if TYPE_CHECKING:` (a module that needs another's
types to be read is part of its design). Imports made by name at run time
(`importlib.import_module`, a plugin named in a string) are not seen.
"""

from __future__ import annotations

import ast
import functools
from collections.abc import Iterator
from pathlib import Path

import attrs

ROOT = Path(__file__).resolve().parent.parent
TOP = ("model", "properties")
CLI = "properties.cli"

#: The imports that join modules into a cycle: all of them (see the docstring).
CYCLE_EDGES = frozenset({"module level", "in a function", "under TYPE_CHECKING"})
#: The longest a module may be, in lines.
MAX_LINES = 900
#: Modules known to be longer, each with the reason and what is to become of it. The list
#: only shrinks: a module that is back under MAX_LINES must leave it.
KNOWN_LONG: dict[str, str] = {}


@attrs.frozen
class Import:
    source: str  # the importing module, dotted
    target: str  # what is imported: a module of TOP when it is one, else as written
    line: int
    how: str  # "module level", "in a function" or "under TYPE_CHECKING"


@attrs.frozen
class Module:
    name: str
    path: Path
    where: str  # the path from the repository's root
    package: bool  # an __init__.py


def modules(root: Path = ROOT) -> dict[str, Module]:
    found: dict[str, Module] = {}
    for top in TOP:
        for path in sorted((root / top).rglob("*.py")):
            parts = list(path.relative_to(root).with_suffix("").parts)
            package = parts[-1] == "__init__"
            if package:
                parts.pop()
            found[".".join(parts)] = Module(".".join(parts), path,
                                            path.relative_to(root).as_posix(), package)
    return found


def _type_checking(node: ast.If) -> bool:
    t = node.test
    return (isinstance(t, ast.Name) and t.id == "TYPE_CHECKING") or (
        isinstance(t, ast.Attribute) and t.attr == "TYPE_CHECKING")


def _statements(body: list[ast.stmt], how: str) -> Iterator[tuple[ast.Import | ast.ImportFrom, str]]:
    """Every import statement in `body`, however deeply nested, with where it is."""
    for node in body:
        if isinstance(node, ast.Import | ast.ImportFrom):
            yield node, how
            continue
        inner = how
        if isinstance(node, ast.FunctionDef | ast.AsyncFunctionDef):
            inner = "in a function"
        elif isinstance(node, ast.If) and _type_checking(node):
            yield from _statements(node.body, "under TYPE_CHECKING")
            yield from _statements(node.orelse, how)
            continue
        for child in ast.iter_child_nodes(node):
            if isinstance(child, ast.stmt):
                yield from _statements([child], inner)
            elif isinstance(child, ast.excepthandler | ast.match_case):
                yield from _statements(child.body, inner)


def imports(m: Module, known: dict[str, Module]) -> list[Import]:
    """What `m` imports, relative imports resolved: `from . import work` in a package is
    its module `work`, `from .cache import Cache` the module `cache`."""
    tree = ast.parse(m.path.read_text(encoding="utf-8"), filename=str(m.path))
    package = m.name if m.package else m.name.rpartition(".")[0]
    out = []
    for node, how in _statements(tree.body, "module level"):
        if isinstance(node, ast.Import):
            targets = [a.name for a in node.names]
        else:
            if node.level:
                base = package.split(".")
                if node.level - 1 > len(base) - 1:
                    raise AssertionError(f"{m.where}:{node.lineno}: a relative import above "
                                         f"the top package")
                base = base[:len(base) - (node.level - 1)]
                origin = ".".join(base + ([node.module] if node.module else []))
            else:
                origin = node.module or ""
            targets = [f"{origin}.{a.name}" if f"{origin}.{a.name}" in known else origin
                       for a in node.names]
        for t in targets:
            out.append(Import(m.name, _known_prefix(t, known), node.lineno, how))
    return out


def _known_prefix(name: str, known: dict[str, Module]) -> str:
    """The module of TOP that `name` is or is inside (`properties.cli.main.run` is
    `properties.cli.main`); `name` itself for anything else."""
    parts = name.split(".")
    for n in range(len(parts), 0, -1):
        if ".".join(parts[:n]) in known:
            return ".".join(parts[:n])
    return name


def _inside(name: str, package: str) -> bool:
    return name == package or name.startswith(package + ".")


def _all_imports(root: Path = ROOT) -> tuple[dict[str, Module], list[Import]]:
    if root == ROOT:
        return _repository_imports()
    known = modules(root)
    return known, [i for m in known.values() for i in imports(m, known)]


@functools.cache
def _repository_imports() -> tuple[dict[str, Module], list[Import]]:
    """The repository's modules are read once for all the tests."""
    known = modules(ROOT)
    return known, [i for m in known.values() for i in imports(m, known)]


def _say(i: Import, known: dict[str, Module]) -> str:
    return f"{known[i.source].where}:{i.line}: {i.source} imports {i.target} ({i.how})"


def upward_imports(root: Path = ROOT) -> list[str]:
    """Imports of the command line (properties.cli) from outside it."""
    known, found = _all_imports(root)
    return [_say(i, known) for i in found
            if _inside(i.target, CLI) and not _inside(i.source, CLI)]


def model_imports_of_properties(root: Path = ROOT) -> list[str]:
    known, found = _all_imports(root)
    return [_say(i, known) for i in found
            if _inside(i.source, "model") and _inside(i.target, "properties")]


def cycles(root: Path = ROOT) -> list[list[str]]:
    """The strongly connected components of more than one module of the import graph, each
    as the imports that join its modules."""
    known, found = _all_imports(root)
    graph: dict[str, set[str]] = {name: set() for name in known}
    edges = [i for i in found if i.how in CYCLE_EDGES]
    for i in edges:
        if i.target in known and i.target != i.source:
            graph[i.source].add(i.target)
    out = []
    for component in _components(graph):
        if len(component) > 1:
            out.append(sorted({_say(i, known) for i in edges
                              if i.source in component and i.target in component
                              and i.target != i.source}))
    return out


def _components(graph: dict[str, set[str]]) -> list[set[str]]:
    """Tarjan's strongly connected components, without recursion."""
    index: dict[str, int] = {}
    low: dict[str, int] = {}
    stack: list[str] = []
    on_stack: set[str] = set()
    out: list[set[str]] = []
    for start in sorted(graph):
        if start in index:
            continue
        work = [(start, iter(sorted(graph[start])))]
        index[start] = low[start] = len(index)
        stack.append(start)
        on_stack.add(start)
        while work:
            v, edges = work[-1]
            for w in edges:
                if w not in index:
                    index[w] = low[w] = len(index)
                    stack.append(w)
                    on_stack.add(w)
                    work.append((w, iter(sorted(graph[w]))))
                    break
                if w in on_stack:
                    low[v] = min(low[v], index[w])
            else:
                work.pop()
                if work:
                    low[work[-1][0]] = min(low[work[-1][0]], low[v])
                if low[v] == index[v]:
                    component = set()
                    while True:
                        w = stack.pop()
                        on_stack.discard(w)
                        component.add(w)
                        if w == v:
                            break
                    out.append(component)
    return out


def long_modules(root: Path = ROOT) -> dict[str, int]:
    """Every module over MAX_LINES lines, by its path, with its length."""
    out = {}
    for m in modules(root).values():
        n = len(m.path.read_text(encoding="utf-8").splitlines())
        if n > MAX_LINES:
            out[m.where] = n
    return out


# ------------------------------------------------------------------ the tests
def test_nothing_below_the_command_line_imports_it() -> None:
    found = upward_imports()
    assert not found, "only properties/cli may import properties.cli:\n" + "\n".join(found)


def test_the_model_imports_nothing_of_properties() -> None:
    found = model_imports_of_properties()
    assert not found, "model/ is below properties/:\n" + "\n".join(found)


def test_no_import_cycle() -> None:
    found = cycles()
    assert not found, "modules that import each other, in a circle:\n" + "\n\n".join(
        "\n".join(c) for c in found)


def test_properties_has_one_subpackage_per_part_of_the_pipeline() -> None:
    parts = {p.name for p in (ROOT / "properties").iterdir() if (p / "__init__.py").exists()}
    assert {"concrete", "symbolic", "checks", "compare", "faq", "cli"} <= parts
    loose = sorted(p.name for p in (ROOT / "properties").glob("*.py") if p.name != "__init__.py")
    assert loose == [], "every module of properties/ belongs to a subpackage"


def test_the_symbolic_back_end_is_reached_only_through_its_package() -> None:
    """The model and the concrete checks never import z3 or the symbolic back end."""
    known, found = _all_imports()
    wrong = [_say(i, known) for i in found
             if _inside(i.source, "model") or _inside(i.source, "properties.concrete")
             if _inside(i.target, "properties.symbolic") or _inside(i.target, "z3")]
    assert not wrong, "\n".join(wrong)


def test_no_new_module_over_the_line_limit() -> None:
    long = long_modules()
    new = {p: n for p, n in long.items() if p not in KNOWN_LONG}
    assert not new, (f"over {MAX_LINES} lines (split the module by responsibility): "
                     + ", ".join(f"{p} ({n})" for p, n in sorted(new.items())))
    shorter = sorted(set(KNOWN_LONG) - set(long))
    assert not shorter, (f"no longer over {MAX_LINES} lines (or gone): take "
                         f"{', '.join(shorter)} out of KNOWN_LONG")


# ------------------------------------------------------------------ the tests can fail
def _tree(tmp_path: Path, files: dict[str, str]) -> Path:
    for name, text in files.items():
        path = tmp_path / name
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text(text, encoding="utf-8")
    for top in TOP:
        (tmp_path / top).mkdir(exist_ok=True)
        (tmp_path / top / "__init__.py").touch()
    return tmp_path


def test_an_upward_import_is_found_relative_absolute_and_in_a_function(tmp_path: Path) -> None:
    root = _tree(tmp_path, {
        "properties/cli/__init__.py": "",
        "properties/cli/cache.py": "",
        "properties/cli/main.py": "from .cache import x\nfrom ..checks import rows\n",
        "properties/checks/__init__.py": "",
        "properties/checks/rows.py": "from ..cli.cache import Cache\n",
        "properties/checks/plan.py": "def f():\n    import properties.cli.cache\n",
        "properties/compare/__init__.py": "",
        "properties/compare/checks.py": "from properties import cli\n",
    })
    found = upward_imports(root)
    assert [f.split(":")[0] + ":" + f.split(":")[1] for f in found] == [
        "properties/checks/plan.py:2", "properties/checks/rows.py:1",
        "properties/compare/checks.py:1"], found
    assert "(in a function)" in found[0]


def test_an_import_of_properties_from_the_model_is_found(tmp_path: Path) -> None:
    root = _tree(tmp_path, {
        "model/ir.py": "",
        "model/codegen.py": "from . import ir\nif True:\n    from properties.checks import rows\n",
        "properties/checks/__init__.py": "",
        "properties/checks/rows.py": "from model import ir\n",
    })
    assert [f.split(": ")[1] for f in model_imports_of_properties(root)] == [
        "model.codegen imports properties.checks.rows (module level)"]


def test_a_cycle_is_found_through_a_function_and_type_checking(tmp_path: Path) -> None:
    root = _tree(tmp_path, {
        "properties/compare/__init__.py": "",
        "properties/compare/stats.py": "def to_text():\n    from .report import text\n",
        "properties/compare/report.py": "from typing import TYPE_CHECKING\nif TYPE_CHECKING:\n"
                                        "    from .stats import Cell\n",
        "properties/compare/plots.py": "from . import report\n",
    })
    found = cycles(root)
    assert len(found) == 1 and len(found[0]) == 2, found
    assert "stats imports properties.compare.report (in a function)" in found[0][1]
    assert "report imports properties.compare.stats (under TYPE_CHECKING)" in found[0][0]
    (root / "properties/compare/stats.py").write_text("")
    assert cycles(root) == []


def test_the_cycle_finder_finds_a_cycle() -> None:
    found = _components({"a": {"b"}, "b": {"c"}, "c": {"a"}, "d": {"a"}})
    assert sorted(map(sorted, found)) == [["a", "b", "c"], ["d"]]


def test_a_long_module_is_found(tmp_path: Path) -> None:
    root = _tree(tmp_path, {"model/big.py": "x = 1\n" * (MAX_LINES + 1),
                            "model/fits.py": "x = 1\n" * MAX_LINES})
    assert long_modules(root) == {"model/big.py": MAX_LINES + 1}
