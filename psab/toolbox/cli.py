"""``psab toolbox build|show|path``: make and inspect the agents' toolbox (:mod:`psab.toolbox`)."""

from __future__ import annotations

import argparse
import json
import sys
from typing import Any

_EPILOG = """\
examples:
  psab toolbox build
  psab toolbox build --out /opt/agent-toolbox --python /usr/bin/python3.11
  psab toolbox show
  psab toolbox show --json
  "$(psab toolbox path)/bin/python" -c "import pandapower"
"""


def cmd_build(args: argparse.Namespace) -> int:
    from psab import toolbox

    root = toolbox.build(out=args.out, python=args.python, force=args.force, stream=sys.stderr)
    print(root)
    return 0


def _located(args: argparse.Namespace) -> Any:
    from psab import toolbox

    root = toolbox.locate(args.path)
    if root is None:
        where = args.path or "the default location" + (" ($PSAB_TOOLBOX)" if _env_set() else "")
        raise toolbox.ToolboxError(f"no toolbox is built at {where}; run `psab toolbox build`")
    return root


def _env_set() -> bool:
    import os

    return bool(os.environ.get("PSAB_TOOLBOX"))


def cmd_show(args: argparse.Namespace) -> int:
    from psab import toolbox

    root = _located(args)
    data = toolbox.info(root)
    if args.json:
        print(json.dumps({"root": str(root), "python_path": str(toolbox.python(root)),
                          "sandbox_binds": [str(p) for p in toolbox.sandbox_binds(root)], **data}, indent=2))
        return 0
    print(f"toolbox {root}")
    print(f"  python {data.get('python')} ({toolbox.python(root)} -> {data.get('base_python')})")
    print(f"  pins sha256 {data.get('requirements_sha256', '')[:12]}, digest {data.get('digest')}, "
          f"{len(data.get('installed', {}))} distributions installed")
    width = max(len(k) for k in data.get("packages", {"": ""}))
    for name, version in data.get("packages", {}).items():
        print(f"  {name.ljust(width)}  {version}")
    return 0


def cmd_path(args: argparse.Namespace) -> int:
    print(_located(args))
    return 0


def add_commands(sub: Any) -> None:
    """Add ``toolbox`` to the ``psab`` parser."""
    from psab.cli import HelpFormatter

    p = sub.add_parser("toolbox", help="the agents' toolbox: a separate Python with the field's libraries",
                       description="The toolbox: a separate Python environment (a venv of the system interpreter) "
                                   "with the field's libraries at psab's pins — pandapower, lightsim2grid, "
                                   "power-grid-model, PyPSA, ANDES, Pyomo, HiGHS, SimBench, matpowercaseframes, numpy, "
                                   "scipy, pandas — and never psab, shown read-only to agents in the sandbox. "
                                   "Default location: $PSAB_TOOLBOX, else ~/.cache/agent-toolbox/toolbox-DIGEST "
                                   "(/var/cache/agent-toolbox/ for root); docs/toolbox.md.",
                       epilog=_EPILOG, formatter_class=HelpFormatter)
    actions = p.add_subparsers(dest="action", metavar="ACTION", required=True)
    b = actions.add_parser("build", help="make the toolbox (a no-op when it is built with the same pins and Python)",
                           description="Make the toolbox: python -m venv, pip install the pins, generate ANDES's model "
                                       "code, check that every package imports and psab does not, and write "
                                       "versions.json. Prints the toolbox's root; progress on stderr.",
                           epilog=_EPILOG, formatter_class=HelpFormatter)
    b.add_argument("--out", metavar="DIR", help="where (default $PSAB_TOOLBOX or the default location); a new, "
                                                "empty or toolbox directory")
    b.add_argument("--python", metavar="PY", help="the base interpreter (default /usr/bin/python3 when it has venv)")
    b.add_argument("--force", action="store_true", help="rebuild even when up to date")
    b.set_defaults(func=cmd_build)
    for name, func, text in (("show", cmd_show, "the toolbox's location, Python and package versions"),
                             ("path", cmd_path, "print the built toolbox's root (exit 2 when none is built)")):
        s = actions.add_parser(name, help=text, description=text[0].upper() + text[1:] + ".",
                               epilog=_EPILOG, formatter_class=HelpFormatter)
        s.add_argument("path", nargs="?", metavar="DIR", help="a toolbox directory (default: $PSAB_TOOLBOX or the "
                                                              "default location)")
        if name == "show":
            s.add_argument("--json", action="store_true", help="everything versions.json holds, as JSON")
        s.set_defaults(func=func)
