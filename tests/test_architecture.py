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
            ), f"{path.name} imports {name}"


def test_nothing_below_imports_families() -> None:
    for sub in ("surrogates", "backends", "solvers", "evaluators", "generators"):
        for path in PSAB.joinpath(sub).glob("*.py"):
            bad = [n for n in _imports(path) if n.startswith("psab.families")]
            assert not bad, f"{sub}/{path.name} imports {bad}"


def test_heavy_libraries_are_not_imported_at_module_level_of_families() -> None:
    for path in PSAB.joinpath("families").glob("*.py"):
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
