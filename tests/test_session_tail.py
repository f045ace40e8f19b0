"""Issue 34, item 7: a pytest-xdist worker hands in its report with nothing heavy left to do, so
execnet never SIGINTs it for a slow shutdown (the stray KeyboardInterrupt in a green run; the
hook in tests/conftest.py says why)."""

from __future__ import annotations

import gc

import pytest


def test_a_worker_reports_with_its_heap_collected_and_frozen(monkeypatch: pytest.MonkeyPatch) -> None:
    import conftest

    monkeypatch.setenv("PYTEST_XDIST_WORKER", "gw9")
    ballast = [[object()] for _ in range(50_000)]  # a heap with something to scan
    assert len(gc.get_objects()) > 50_000
    try:
        conftest.pytest_sessionfinish(None)  # type: ignore[arg-type]
        # what pytest's final gc.collect() would still scan: the frozen objects are out of it
        assert gc.get_freeze_count() > 50_000 and len(gc.get_objects()) < 5_000
    finally:
        gc.unfreeze()
    del ballast
