"""One module per family, each ending with ``SPEC = register(FamilySpec(...))``.

The explicit list the registry loads, in catalogue order (``docs/families.md``), is
:data:`psab.registry.FAMILY_MODULES`, re-exported here; a test checks it against the files in
this directory. The dependency runs one way: this package and its modules import
:mod:`psab.registry`, which imports none of them by name (it loads the listed modules with
:func:`importlib.import_module`).
"""

from psab.registry import FAMILY_MODULES, families

__all__ = ["FAMILY_MODULES"]


# ``psab.families()`` is the public API, and ``psab.families`` is also this package: once a
# family module is imported, Python binds the package to that attribute of ``psab``. Making
# the package callable keeps ``psab.families()`` meaning the same thing either way.
def _install_call() -> None:
    import sys
    import types

    class _FamiliesPackage(types.ModuleType):
        def __call__(self):  # type: ignore[no-untyped-def]
            return families()

    sys.modules[__name__].__class__ = _FamiliesPackage


_install_call()
