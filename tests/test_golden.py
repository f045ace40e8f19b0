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


@pytest.mark.parametrize("path", [d for spec in psab.families() for d in golden_dirs(spec.id)], ids=lambda d: f"{d.parent.name}/{d.name}")
def test_golden_task_carries_its_familys_current_words(path) -> None:  # type: ignore[no-untyped-def]
    # a reader of golden/ sees what an agent would be told today; `psab refresh-cases` rewrites it
    case = load_golden(path)
    spec = psab.get_family(case.task.family)
    again = spec.make_task(task_id=case.task.id, split=case.task.split, public_inputs=case.task.public_inputs)
    assert again.to_dict() == case.task.to_dict(), f"{path}/task.json is stale: run `psab refresh-cases --family {spec.id}`"
