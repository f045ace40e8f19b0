"""Fixtures of the held-out kernel's tests: registering throwaway families (``gen_fakes``)
for one test, and a two-worker Dask cluster shared by the module that asks for it.

``tests/generators`` is a package so that this conftest is ``generators.conftest`` and does
not shadow ``tests/conftest.py`` for the suite's ``from conftest import ...``.
"""

from __future__ import annotations

import os
from collections.abc import Callable, Iterator
from typing import Any

import pytest

from psab import registry

from .gen_fakes import FakeSpec

STRICT = os.environ.get("PSAB_STRICT") == "1"


@pytest.fixture
def register_fake() -> Iterator[Callable[[FakeSpec], FakeSpec]]:
    added: list[str] = []

    def add(spec: FakeSpec) -> FakeSpec:
        registry.register(spec)
        added.append(spec.id)
        return spec

    yield add
    for fid in added:
        registry._REGISTRY.pop(fid, None)


# ---------------------------------------------------------------- Dask


@pytest.fixture(scope="module")
def dask_cluster() -> Iterator[Any]:
    """A two-worker, one-thread-per-worker, process-based Dask cluster on this machine."""
    try:
        from distributed import LocalCluster
    except ImportError:
        if STRICT:
            pytest.fail("dask.distributed is needed for the Dask tests (PSAB_STRICT=1 forbids skipping)")
        pytest.skip("dask.distributed is not installed")
    cluster = LocalCluster(n_workers=2, threads_per_worker=1, processes=True, dashboard_address=None)
    try:
        yield cluster
    finally:
        cluster.close()
