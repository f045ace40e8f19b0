"""Where psab finds its public and golden cases.

In a source checkout (the editable install the Makefile makes) they are the repository's
top-level ``cases/`` and ``golden/``; a wheel carries them as ``psab/_data/``. The environment
variable ``PSAB_DATA_DIR`` overrides both (a directory holding ``cases/`` and ``golden/``).
"""

from __future__ import annotations

import os
from pathlib import Path

_PACKAGE = Path(__file__).resolve().parent


def data_root() -> Path:
    """The directory holding ``cases/`` and ``golden/``."""
    override = os.environ.get("PSAB_DATA_DIR")
    if override:
        return Path(override)
    bundled = _PACKAGE / "_data"
    if (bundled / "cases").is_dir():
        return bundled
    return _PACKAGE.parent


def cases_root() -> Path:
    return data_root() / "cases"


def golden_root() -> Path:
    return data_root() / "golden"


def case_dir(family_id: str) -> Path:
    """The public case directory of a family."""
    return cases_root() / family_id


def golden_dirs(family_id: str) -> list[Path]:
    """Every golden case of a family: ``golden/<id>/<case>/`` holding a ``task.json``."""
    root = golden_root() / family_id
    if not root.is_dir():
        return []
    return sorted(p for p in root.iterdir() if (p / "task.json").is_file())
