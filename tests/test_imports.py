"""The modules of bivtree import each other without a cycle.

Every module under ``src/bivtree`` is parsed with :mod:`ast` (nothing is
imported) and each ``import`` / ``from ... import`` statement naming a bivtree
module becomes an edge of the module graph, wherever the statement is: at top
level, inside a function or method, under ``try`` or ``if`` (a deferred import
only hides a cycle until the function runs). Statements under
``if TYPE_CHECKING:`` never run and are left out; so are dynamic imports
(``importlib.import_module`` with a computed name), which no parser can resolve.

How a statement becomes edges:

* ``import a.b.c`` and ``from a.b.c import x`` depend on ``a.b.c``, and on every
  package on the way (``a``, ``a.b``) that is not already a package of the
  importing module: importing ``a.b.c`` runs those packages' ``__init__``.
  The importing module's own packages are left out because they are already
  being imported when its code runs (Python imports ``a`` before ``a.b``), so
  ``a.b`` importing its sibling ``a.c`` does not depend on ``a/__init__``.
* ``from a import x`` depends on ``a`` and its packages as above, and on the
  submodule ``a.x`` when there is one; otherwise ``x`` is a name defined by
  ``a/__init__``, and ``a`` counts even when it is a package of the importer. So a submodule
  ``a.b`` doing ``from a import x`` while ``a/__init__`` imports ``a.b`` is a
  cycle (``a/__init__`` is half-run when ``a.b`` asks it for ``x``), while
  ``a/__init__`` importing its own submodules is an ordinary edge.
* Relative imports are resolved against the importing module's package (a
  package's ``__init__`` is its own package).
"""

import ast
from itertools import pairwise
from pathlib import Path

SRC = Path(__file__).resolve().parent.parent / "src"
PACKAGE = "bivtree"


def module_names(root, package):
    """Dotted name -> (path, is_package) for every ``.py`` file of ``package`` under ``root``."""
    modules = {}
    for path in sorted((root / package).rglob("*.py")):
        parts = list(path.relative_to(root).with_suffix("").parts)
        is_package = parts[-1] == "__init__"
        if is_package:
            parts = parts[:-1]
        modules[".".join(parts)] = (path, is_package)
    return modules


def _is_type_checking(test):
    return (isinstance(test, ast.Name) and test.id == "TYPE_CHECKING") or (
        isinstance(test, ast.Attribute) and test.attr == "TYPE_CHECKING")


def _import_statements(tree):
    """Every Import / ImportFrom node, at any depth, outside ``if TYPE_CHECKING:`` bodies."""
    stack = [tree]
    while stack:
        node = stack.pop()
        if isinstance(node, (ast.Import, ast.ImportFrom)):
            yield node
            continue
        if isinstance(node, ast.If) and _is_type_checking(node.test):
            stack.extend(node.orelse)
            continue
        stack.extend(ast.iter_child_nodes(node))


def _packages(name):
    """``a.b.c`` -> ``["a", "a.b"]``."""
    parts = name.split(".")
    return [".".join(parts[:i]) for i in range(1, len(parts))]


def imported_modules(name, is_package, tree, modules):
    """``(target, line)`` for each bivtree module that module ``name`` depends on."""
    own_packages = set(_packages(name)) | ({name} if is_package else set())

    def with_packages(target):
        # the target itself, and the packages its import initialises
        return [p for p in _packages(target) if p not in own_packages and p in modules] + [target]

    edges = []
    for node in _import_statements(tree):
        if isinstance(node, ast.Import):
            for alias in node.names:
                if alias.name in modules:
                    edges += [(t, node.lineno) for t in with_packages(alias.name)]
            continue
        if node.level:
            base = name.split(".") if is_package else name.split(".")[:-1]
            if node.level > 1:
                base = base[: len(base) - (node.level - 1)]
            base = ".".join(base + ([node.module] if node.module else []))
        else:
            base = node.module
        if base not in modules:
            continue
        # the packages whose __init__ this statement runs, the named package included
        targets = with_packages(base)[:-1] + ([base] if base not in own_packages else [])
        for alias in node.names:
            sub = f"{base}.{alias.name}"
            targets.append(sub if sub in modules else base)
        edges += [(t, node.lineno) for t in dict.fromkeys(targets)]
    return edges


def import_graph(root=SRC, package=PACKAGE):
    """Module -> {imported module: first line of an import making that edge}."""
    modules = module_names(root, package)
    graph = {}
    for name, (path, is_package) in modules.items():
        tree = ast.parse(path.read_text(encoding="utf-8"), filename=str(path))
        edges = {}
        for target, line in imported_modules(name, is_package, tree, modules):
            if target != name:
                edges.setdefault(target, line)
        graph[name] = edges
    return graph


def find_cycles(graph):
    """One cycle (a list of modules, first repeated last) per strongly connected component
    of more than one module."""
    return [_cycle_in(graph, set(c)) for c in components(graph)]


def components(graph):
    """The strongly connected components of more than one module (Tarjan's algorithm):
    each is a set of modules every one of which imports, through the others, every other."""
    index, low, on_stack, stack, components = {}, {}, set(), [], []

    def visit(v):
        index[v] = low[v] = len(index)
        stack.append(v)
        on_stack.add(v)
        for w in sorted(graph.get(v, ())):
            if w not in index:
                visit(w)
                low[v] = min(low[v], low[w])
            elif w in on_stack:
                low[v] = min(low[v], index[w])
        if low[v] == index[v]:
            component = []
            while True:
                w = stack.pop()
                on_stack.discard(w)
                component.append(w)
                if w == v:
                    break
            if len(component) > 1:
                components.append(sorted(component))

    for v in sorted(graph):
        if v not in index:
            visit(v)
    return components


def _cycle_in(graph, component):
    """A shortest cycle through the first module of a strongly connected component."""
    start = min(component)
    previous, frontier = {start: None}, [start]
    while frontier:
        nxt = []
        for v in frontier:
            for w in sorted(graph[v]):
                if w == start:
                    path = [v]
                    while previous[path[-1]] is not None:
                        path.append(previous[path[-1]])
                    return [start] + path[::-1][1:] + [start] if v != start else [start, start]
                if w in component and w not in previous:
                    previous[w] = v
                    nxt.append(w)
        frontier = nxt
    raise AssertionError("a strongly connected component without a cycle")


def describe(cycle, graph, root=SRC):
    """One line per edge of ``cycle``: ``a -> b (path:line)``."""
    modules = module_names(root, cycle[0].split(".")[0])
    lines = []
    for a, b in pairwise(cycle):
        path = modules[a][0].relative_to(root).as_posix()
        lines.append(f"  {a} -> {b}  ({path}:{graph[a][b]})")
    return "\n".join(lines)


def test_bivtree_has_no_import_cycle():
    """No chain of imports between bivtree's modules leads back to where it started."""
    graph = import_graph()
    cycles = find_cycles(graph)
    report = "\n".join(
        f"import cycle {' -> '.join(c)} (modules in one cycle: {', '.join(m)}):\n"
        f"{describe(c, graph)}" for c, m in zip(cycles, components(graph), strict=True))
    if report:
        print(report)
    assert not cycles, "\n" + report


#: the modules outside ``bivtree.export`` that may import it: the package's ``__init__`` and
#: ``_moved``, which re-export its names, and the command line, which shows fitted trees.
VIEW_IMPORTERS = {"bivtree", "bivtree._moved", "bivtree.cli"}


def _in_package(module, package):
    return module == package or module.startswith(package + ".")


def test_the_code_that_fits_imports_no_view():
    """Reading a fitted tree stays apart from fitting one: no module that fits (the
    estimators, TAO, the growers, splitters and kernels) imports ``bivtree.export``."""
    graph = import_graph()
    leaks = [f"  {a} -> {b}  (line {line})" for a, edges in sorted(graph.items())
             for b, line in sorted(edges.items())
             if _in_package(b, "bivtree.export") and not _in_package(a, "bivtree.export")
             and a not in VIEW_IMPORTERS]
    assert not leaks, "\n" + "\n".join(leaks)


def test_the_module_paths_that_moved_still_import():
    """The old paths of the modules that moved into ``bivtree.tao`` and ``bivtree.export``,
    named by the documents and stored in pickles, import the very modules, in a fresh
    interpreter too (a pickle's loader imports the old path before anything else), and
    ``bivtree.explain`` stays the function."""
    import importlib
    import subprocess
    import sys

    import bivtree
    from bivtree.export import explanation, formatting
    from bivtree.tao import estimators, selection

    for old, module in [("tao_estimators", estimators), ("tao_selection", selection),
                        ("explain", explanation), ("formatting", formatting)]:
        assert importlib.import_module(f"bivtree.{old}") is module, old
    assert bivtree.tao_selection is selection and bivtree.formatting is formatting
    assert bivtree.explain is explanation.explain  # the function, as before
    # what a pickle of a fitted TAO model, a selector or an explanation names
    stream = (b"(cbivtree.tao_estimators\nTAOTreeClassifier\ncbivtree.tao\nTAOState\n"
              b"cbivtree.tao_selection\nTAOTreeClassifierCV\ncbivtree.explain\nExplanation\nt.")
    code = ("import pickle, sys; print(' '.join(c.__module__ + '.' + c.__name__ "
            f"for c in pickle.loads({stream!r})))")
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True,
                         check=True).stdout.split()
    assert out == ["bivtree.tao.estimators.TAOTreeClassifier", "bivtree.tao.optimizer.TAOState",
                   "bivtree.tao.selection.TAOTreeClassifierCV",
                   "bivtree.export.explanation.Explanation"]


# ------------------------------------------------------- the graph builder itself
def _write(root, files):
    for name, text in files.items():
        path = root / name
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text(text, encoding="utf-8")


def test_the_graph_sees_every_kind_of_import(tmp_path):
    """Absolute, relative (``.``, ``..``), ``from . import submodule``, imports inside
    functions and methods, and ``import a.b`` (which runs ``a/__init__``) all make edges;
    ``TYPE_CHECKING`` imports and sibling imports through the importer's own package do
    not make an edge to that package."""
    _write(tmp_path, {
        "pkg/__init__.py": "from .core import run\n",
        "pkg/core.py": "from . import util\nfrom .sub.deep import f\n",
        "pkg/util.py": "def g():\n    from pkg.sub import deep\n    import pkg.other\n",
        "pkg/other.py": (
            "from typing import TYPE_CHECKING\nif TYPE_CHECKING:\n    from . import core\n"
            "class C:\n    def m(self):\n        from .sub import X\n"),
        "pkg/sub/__init__.py": "X = 1\n",
        "pkg/sub/deep.py": "from .. import util\nfrom . import X\n",
    })
    graph = import_graph(tmp_path, "pkg")
    assert set(graph["pkg"]) == {"pkg.core"}
    assert set(graph["pkg.core"]) == {"pkg.util", "pkg.sub", "pkg.sub.deep"}
    assert set(graph["pkg.util"]) == {"pkg.sub", "pkg.sub.deep", "pkg.other"}
    assert set(graph["pkg.other"]) == {"pkg.sub"}
    assert set(graph["pkg.sub.deep"]) == {"pkg.util", "pkg.sub"}
    assert graph["pkg.util"]["pkg.other"] == 3
    assert find_cycles(graph) == [["pkg.sub.deep", "pkg.util", "pkg.sub.deep"]]


def test_a_submodule_importing_from_its_package_init_is_a_cycle(tmp_path):
    """``a/__init__`` imports ``a.b`` and ``a.b`` asks ``a`` for a name: a cycle; asking a
    sibling module directly instead is none."""
    _write(tmp_path, {
        "a/__init__.py": "from .b import f\nVERSION = 1\n",
        "a/b.py": "def f():\n    from a import VERSION\n    return VERSION\n",
        "a/c.py": "from .b import f\n",
    })
    graph = import_graph(tmp_path, "a")
    assert find_cycles(graph) == [["a", "a.b", "a"]]
    assert "a.b -> a  (a/b.py:2)" in describe(["a", "a.b", "a"], graph, tmp_path)
    _write(tmp_path, {"a/b.py": "from .c import g\n", "a/c.py": "def g():\n    pass\n"})
    assert find_cycles(import_graph(tmp_path, "a")) == []


def test_longer_cycles_are_reported_in_order(tmp_path):
    """A three-module cycle through deferred imports is found and printed edge by edge."""
    _write(tmp_path, {
        "p/__init__.py": "",
        "p/x.py": "from .y import f\n",
        "p/y.py": "def f():\n    from .z import g\n",
        "p/z.py": "import p.x\n",
    })
    graph = import_graph(tmp_path, "p")
    assert find_cycles(graph) == [["p.x", "p.y", "p.z", "p.x"]]
