"""Golden cases: each family's reference reproduces numbers published or derived by hand
outside the code (golden/<family>/<case>/expected.json, with a README citing the source)."""

from __future__ import annotations

import pytest

import psab
from psab.golden import check_golden, load_golden
from psab.paths import golden_dirs

from conftest import need_backend

CASES = [
    pytest.param(d, b, id=f"{spec.id}/{d.name}-{b}")
    for spec in psab.families()
    for d in golden_dirs(spec.id)
    for b in load_golden(d).backends
]


@pytest.mark.parametrize(("path", "backend"), CASES)
def test_golden_case(path, backend) -> None:  # type: ignore[no-untyped-def]
    need_backend(backend)
    case = load_golden(path)
    assert (path / "README.md").is_file(), "a golden case needs its derivation trail"
    assert case.values or case.objective is not None
    assert case.task.split == "golden"
    problems = check_golden(case, backend)
    assert not problems, "\n".join(problems)


def test_every_family_has_a_golden_case() -> None:
    missing = [spec.id for spec in psab.families() if not golden_dirs(spec.id)]
    assert not missing, f"families without a golden case: {missing}"
