"""The study tier: engineering studies on real-size public models (``shared/spec/studies.md``).

A study is the work a utility or a consultant is commissioned to do — an interconnection
study on a transmission network, a hosting-capacity and reinforcement study on a distribution
grid — delivered as structured results and one decision whose consequences psab re-simulates.
Each study is a :class:`psab.registry.FamilySpec` with ``tier="study"`` and scoring kind
``study``, one module here per study (listed in :data:`psab.registry.STUDY_MODULES`), judged by
the same kernel as the compact families: ``psab.evaluate``, ``solve``, ``generate``, ``check``
and ``qc`` take a study as they take a family.

What differs from a compact family:

- the agent's view is ``study.json`` (the task) **plus the model in the field's own files** —
  a MATPOWER ``.m`` case, a SimBench CSV folder, profiles as CSV — listed with their sha256 in
  ``public_inputs["model"]["files"]`` and written by the study's ``materialize`` (vendored
  MATPOWER files live in ``psab/studies/data/``; SimBench data come from the ``simbench``
  package). Held-out draws keep the files and perturb the scenario ``public_inputs`` states
  over them, as a study engineer adds the new plant to the base case;
- the answer has one field per :class:`~psab.registry.Deliverable`; analysis deliverables are
  scored against psab's recomputation, the decision is applied to the model and every
  criterion re-simulated, and the score is the stated weighted mean
  (:func:`psab.evaluators.kernel.study_score`).

Shared helpers: :mod:`psab.studies.model`.
"""

from psab.registry import STUDY_MODULES, studies

__all__ = ["STUDY_MODULES"]


# ``psab.studies()`` is the public API, and ``psab.studies`` is also this package: once a study
# module is imported, Python binds the package to that attribute of ``psab`` (as for
# :mod:`psab.families`). Making the package callable keeps ``psab.studies()`` meaning the same.
def _install_call() -> None:
    import sys
    import types

    class _StudiesPackage(types.ModuleType):
        def __call__(self):  # type: ignore[no-untyped-def]
            return studies()

    sys.modules[__name__].__class__ = _StudiesPackage


_install_call()
