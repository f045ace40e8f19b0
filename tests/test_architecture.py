"""Dependency direction and import weight (design.md, "Layout")."""

from __future__ import annotations

import ast
import subprocess
import sys
from pathlib import Path

PSAB = Path(__file__).resolve().parents[1] / "psab"


def _imports(path: Path) -> set[str]:
    tree = ast.parse(path.read_text(encoding="utf-8"))
    out: set[str] = set()
    for node in ast.walk(tree):
        if isinstance(node, ast.Import):
            out.update(a.name for a in node.names)
        elif isinstance(node, ast.ImportFrom) and node.module and node.level == 0:
            out.add(node.module)
        elif isinstance(node, ast.ImportFrom) and node.level > 0:
            out.add("." * node.level + (node.module or ""))
    return out


def test_surrogates_import_only_math_and_numpy() -> None:
    allowed = {"math", "cmath", "numpy", "dataclasses", "typing", "__future__", "collections.abc", "functools", "enum"}
    for path in PSAB.joinpath("surrogates").glob("*.py"):
        for name in _imports(path):
            root = name.split(".")[0]
            assert (
                name in allowed or root in ("numpy",) or name.startswith("psab.surrogates") or name.startswith(".")
                # plain-data JSON helpers, standard library only (their own test below keeps them so)
                or name == "psab.jsonpointer"
            ), f"{path.name} imports {name}"


def test_jsonpointer_is_standard_library_only() -> None:
    # surrogates may import it (above), so it must stay as free of dependencies as they are
    names = _imports(PSAB / "jsonpointer.py")
    assert names <= {"__future__", "collections.abc", "typing"}, names


def test_nothing_below_imports_families() -> None:
    for sub in ("surrogates", "backends", "solvers", "evaluators", "generators"):
        for path in PSAB.joinpath(sub).glob("*.py"):
            bad = [n for n in _imports(path) if n.startswith(("psab.families", "psab.studies"))]
            assert not bad, f"{sub}/{path.name} imports {bad}"


def test_heavy_libraries_are_not_imported_at_module_level_of_families() -> None:
    for path in [*PSAB.joinpath("families").glob("*.py"), *PSAB.joinpath("studies").glob("*.py")]:
        tree = ast.parse(path.read_text(encoding="utf-8"))
        for node in tree.body:  # module level only
            names = []
            if isinstance(node, ast.Import):
                names = [a.name for a in node.names]
            elif isinstance(node, ast.ImportFrom) and node.module:
                names = [node.module]
            for n in names:
                assert n.split(".")[0] not in ("pandapower", "pyomo", "pandas", "highspy"), f"{path.name}: {n}"


def test_import_psab_is_light() -> None:
    code = (
        "import sys, psab\n"
        "heavy = [m for m in ('pandapower', 'pyomo', 'pandas', 'highspy', 'scipy', 'networkx', 'jsonschema') if m in sys.modules]\n"
        "print(','.join(heavy))\n"
    )
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True).stdout.strip()
    assert out == "", f"import psab loaded {out}"


def test_surrogate_evaluation_never_loads_simulators() -> None:
    code = (
        "import sys, psab\n"
        "for spec in psab.families():\n"
        "    if spec.scoring_kind == 'optimize':\n"
        "        continue\n"
        "    t = psab.load_case(__import__('psab.paths').paths.case_dir(spec.id))\n"
        "    psab.evaluate(t, psab.solve(t))\n"
        "print(','.join(m for m in ('pandapower', 'pyomo', 'pandas') if m in sys.modules))\n"
    )
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True).stdout.strip()
    assert out == "", f"the surrogate path of closed-form families loaded {out}"


# ------------------------------------------------------------------ import circles
#
# The rule: the import statements among psab's modules form no circle — module-level imports
# and the deferred ones inside functions alike (a deferred import keeps ``import psab`` light;
# it is still a dependency, and a circle of them is two modules that cannot be understood,
# tested or moved one without the other). An edge is an import statement naming a psab module
# (``from psab.x import name`` names ``psab.x.name`` when that is a module, else ``psab.x``);
# the parent packages Python initialises on the way are not edges, and neither is a module
# loaded by name (the registry's ``importlib.import_module`` of the listed family modules).


def _module_name(path: Path) -> str:
    parts = list(path.relative_to(PSAB.parent).with_suffix("").parts)
    return ".".join(parts[:-1] if parts[-1] == "__init__" else parts)


def _import_graph() -> dict[str, set[str]]:
    modules = {_module_name(p): p for p in PSAB.rglob("*.py")}
    graph: dict[str, set[str]] = {}
    for name, path in modules.items():
        package = name if path.name == "__init__.py" else name.rpartition(".")[0]
        targets: set[str] = set()
        for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
            if isinstance(node, ast.Import):
                targets.update(a.name for a in node.names)
            elif isinstance(node, ast.ImportFrom):
                base = node.module or ""
                if node.level:
                    anchor = package.split(".")[: len(package.split(".")) - node.level + 1]
                    base = ".".join(anchor + ([node.module] if node.module else []))
                for a in node.names:
                    targets.add(f"{base}.{a.name}" if f"{base}.{a.name}" in modules else base)
        graph[name] = {t for t in targets if t in modules and t != name}
    return graph


def _cycles(graph: dict[str, set[str]]) -> list[list[str]]:
    """The strongly connected components with more than one module (Tarjan, iterative)."""
    index: dict[str, int] = {}
    low: dict[str, int] = {}
    stack: list[str] = []
    on_stack: set[str] = set()
    found: list[list[str]] = []
    for root in sorted(graph):
        if root in index:
            continue
        work = [(root, iter(sorted(graph[root])))]
        index[root] = low[root] = len(index)
        stack.append(root)
        on_stack.add(root)
        while work:
            v, successors = work[-1]
            w = next(successors, None)
            if w is not None:
                if w not in index:
                    index[w] = low[w] = len(index)
                    stack.append(w)
                    on_stack.add(w)
                    work.append((w, iter(sorted(graph[w]))))
                elif w in on_stack:
                    low[v] = min(low[v], index[w])
                continue
            work.pop()
            if work:
                low[work[-1][0]] = min(low[work[-1][0]], low[v])
            if low[v] == index[v]:
                component = []
                while True:
                    w = stack.pop()
                    on_stack.discard(w)
                    component.append(w)
                    if w == v:
                        break
                if len(component) > 1:
                    found.append(sorted(component))
    return found


def test_cycle_finder_finds_a_circle() -> None:
    graph = {"a": {"b"}, "b": {"c"}, "c": {"a"}, "d": {"a"}, "e": set()}
    assert _cycles(graph) == [["a", "b", "c"]]
    assert _cycles({"a": {"b"}, "b": set()}) == []


def test_psab_imports_form_no_circle() -> None:
    graph = _import_graph()
    assert "psab.registry" in graph["psab.families"]  # the graph sees deferred and package imports
    assert "psab.generators.worker" in graph["psab.generators.parallel"]
    circles = _cycles(graph)
    assert not circles, "import circles among psab modules (let the dependency run one way): " + "; ".join(
        " <-> ".join(c) for c in circles)
