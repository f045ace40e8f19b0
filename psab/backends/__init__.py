"""Physics backends: ``surrogate`` (closed form, always present) and ``pandapower``.

The pandapower adapter lives in :mod:`psab.backends.pandapower_net` and is imported only
when a pandapower evaluation runs; :func:`require` checks that the package is installed
without importing it.
"""

from __future__ import annotations

import importlib.util
from functools import cache

from psab.errors import BackendUnavailableError, UnknownBackendError

BACKENDS = ("surrogate", "pandapower")

_PACKAGES = {"pandapower": "pandapower"}
_INSTALL_HINT = {"pandapower": "pip install 'psab[pandapower]'"}


@cache
def available(name: str) -> bool:
    """Whether backend ``name`` can run here (its package is importable)."""
    if name not in BACKENDS:
        return False
    package = _PACKAGES.get(name)
    return package is None or importlib.util.find_spec(package) is not None


def require(name: str) -> None:
    """Raise unless backend ``name`` is known and installed."""
    if name not in BACKENDS:
        raise UnknownBackendError(f"unknown backend {name!r}; choose one of: {', '.join(BACKENDS)}")
    if not available(name):
        raise BackendUnavailableError(f"the {name} backend needs the {_PACKAGES[name]} package: {_INSTALL_HINT[name]}")
