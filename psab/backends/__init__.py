"""Physics backends: ``surrogate`` (closed form, always present) and the field's simulators.

``pandapower`` (AC power flow, IEC 60909 short circuit, state estimation), ``andes`` (time-domain
stability), ``transformer_thermal_model`` (IEC 60076-7 thermal model) and ``power_grid_model``
(batch distribution power flow, the study tier) are optional extras named after their packages. Each adapter lives in ``psab/backends/<name>_*.py`` and is imported only
when an evaluation under it runs; :func:`require` checks that the package is installed without
importing it.
"""

from __future__ import annotations

import importlib.util
from functools import cache

from psab.errors import BackendUnavailableError, UnknownBackendError

BACKENDS = ("surrogate", "pandapower", "andes", "transformer_thermal_model", "power_grid_model")

_PACKAGES = {"pandapower": "pandapower", "andes": "andes", "transformer_thermal_model": "transformer_thermal_model",
             "power_grid_model": "power_grid_model"}
_INSTALL_HINT = {"pandapower": "pip install 'psab[pandapower]'", "andes": "pip install 'psab[andes]'",
                 "transformer_thermal_model": "pip install 'psab[thermal]'",
                 "power_grid_model": "pip install 'psab[studies]'"}


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
