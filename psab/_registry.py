"""psab's tasks for inspect-ai's registry, loaded through the ``inspect_ai`` entry point
(pyproject ``[project.entry-points.inspect_ai]``, as inspect_evals registers its evals), so a
pip-installed psab runs from any directory as ``inspect eval psab/psab_task -T families=...``.
Imported by inspect only: ``import psab`` never loads inspect."""

from psab.integrations.inspect import psab_task

__all__ = ["psab_task"]
