"""Every registered study is under the study conformance checks: one module per study
(tests/studies/study_conformance.py says why), and no module for a study that is not registered."""

from __future__ import annotations

import ast
from pathlib import Path

import psab

HERE = Path(__file__).parent


def test_there_are_studies() -> None:
    assert {"interconnection_study", "hosting_capacity_study"} <= {s.id for s in psab.studies()}


def test_every_study_has_its_conformance_module() -> None:
    named = {}
    for path in HERE.glob("test_conformance_*.py"):
        tree = ast.parse(path.read_text(encoding="utf-8"))
        for node in tree.body:
            if isinstance(node, ast.Assign) and any(isinstance(t, ast.Name) and t.id == "STUDY" for t in node.targets):
                named[ast.literal_eval(node.value)] = path.name
    assert set(named) == {s.id for s in psab.studies()}, named
