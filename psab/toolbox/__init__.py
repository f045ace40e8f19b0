"""The toolbox: a separate Python environment with the field's libraries, never psab.

studies.md, "The toolbox": every agent gets the same professional tools — pandapower,
lightsim2grid, power-grid-model, PyPSA, ANDES, Pyomo, HiGHS, SimBench, matpowercaseframes,
numpy, scipy, pandas and jsonschema at the exact versions of ``requirements.txt`` beside this file — shown
read-only inside the sandbox, its versions recorded, so an agent is measured on how it uses the
tools and not on what happened to be installed. The interface the runner uses::

    root = psab.toolbox.locate()            # a built toolbox, or None
    psab.toolbox.python(root)               # <root>/bin/python, the interpreter to offer
    psab.toolbox.sandbox_binds(root)        # directories to bind read-only at the same paths
    psab.toolbox.versions(root)             # {"python": "3.11.2", "pandapower": "3.5.6", ...}
    psab.toolbox.build()                    # make it (a no-op when already built)

Where it lives: ``$PSAB_TOOLBOX``, else ``<cache>/agent-toolbox/toolbox-<digest>``, the digest a
short hash of the pins and the Python version (so the same pins on the same Python rebuild
nothing, and new pins make a new toolbox beside the old one). ``<cache>`` is
``$XDG_CACHE_HOME`` or ``~/.cache``; for root it is ``/var/cache``, because a root runner starts
its sandbox as uid 65534, which cannot pass a 0700 ``/root``. The path names neither psab nor
the benchmark: the toolbox is bound into the sandbox at its own path, where the agent sees it
(the runner's sandbox root is named for the same reason).

The environment is a ``venv`` of the system interpreter (``/usr/bin/python3`` when it has
``venv`` and ``ensurepip``): a venv's ``bin/python`` is a symlink to its base interpreter,
which must be visible inside the sandbox as well, and ``/usr`` always is. Another base
interpreter's prefix is listed by :func:`sandbox_binds`. ANDES's generated model code is
made once at build time inside the ANDES package (where ANDES looks after ``~/.andes``), so an
agent's first ``andes.System`` does not spend 30–45 s generating it in every sandbox.

Only the standard library is imported here: ``import psab`` stays light.
"""

from __future__ import annotations

import hashlib
import json
import os
import platform
import shutil
import subprocess
import sys
import tempfile
import time
from pathlib import Path
from typing import IO, Any

from psab.errors import PsabError

#: The pins, one exact version per package (comments say why each version).
REQUIREMENTS = Path(__file__).resolve().parent / "requirements.txt"

#: Each required distribution and the module that imports it.
IMPORTS: dict[str, str] = {
    "pandapower": "pandapower",
    "lightsim2grid": "lightsim2grid",
    "power-grid-model": "power_grid_model",
    "pypsa": "pypsa",
    "andes": "andes",
    "pyomo": "pyomo",
    "highspy": "highspy",
    "simbench": "simbench",
    "matpowercaseframes": "matpowercaseframes",
    "numpy": "numpy",
    "scipy": "scipy",
    "pandas": "pandas",
    "jsonschema": "jsonschema",
}

#: Written last by :func:`build`, after every check passed: a toolbox without it is not built.
VERSIONS_FILE = "versions.json"
#: Written right after the venv is made, so a half-built toolbox is known as ours (and replaced).
MARKER_FILE = ".toolbox"
#: The build's pip and code-generation output.
LOG_FILE = "build.log"
FORMAT = 1

#: Directories every bwrap sandbox of the runner shows already (psab/runner/sandbox.py,
#: SYSTEM_DIRS and LIB_DIRS): a base interpreter under one of them needs no bind of its own.
ALWAYS_VISIBLE = ("/usr", "/etc", "/bin", "/sbin", "/lib", "/lib32", "/lib64", "/libx32")

#: Base interpreters tried in order (the sandbox shows /usr and /bin).
SYSTEM_PYTHONS = ("/usr/bin/python3", "/usr/local/bin/python3", "/bin/python3")

#: ANDES's model code, generated into the ANDES package, the last place ANDES's
#: ``import_pycode`` looks (after ``~/.andes/pycode``, which an agent's fresh $HOME lacks).
ANDES_PREPARE = ("import os, andes; andes.config_logger(stream_level=50); "
                 "andes.prepare(quick=True, incremental=False, "
                 "pycode_path=os.path.join(os.path.dirname(andes.__file__), 'pycode'))")

#: Environment variables that would make the toolbox's python see something else than an
#: agent's does (psab's tree on PYTHONPATH, a user site): removed for every build step.
_SCRUB = ("PYTHONPATH", "PYTHONHOME", "PYTHONSTARTUP", "PYTHONUSERBASE", "PYTHONSAFEPATH", "PYTHONEXECUTABLE",
          "VIRTUAL_ENV", "CONDA_PREFIX", "__PYVENV_LAUNCHER__")


class ToolboxError(PsabError):
    """The toolbox cannot be built or read (one line: what failed and where its log is)."""


# ------------------------------------------------------------------------------- the pins


def pins(path: Path = REQUIREMENTS) -> list[str]:
    """The requirement lines of ``path`` (comments and blank lines dropped), in file order."""
    out = []
    for line in path.read_text(encoding="utf-8").splitlines():
        line = line.split("#", 1)[0].strip()
        if line:
            out.append(line)
    return out


def required(path: Path = REQUIREMENTS) -> dict[str, str]:
    """``{distribution: version}`` of the pins (each line ``name==version``)."""
    out = {}
    for line in pins(path):
        name, sep, version = line.partition("==")
        if not sep or not version.strip():
            raise ToolboxError(f"{path}: {line!r} is not an exact pin (name==version)")
        out[_norm(name)] = version.strip()
    return out


def requirements_sha256(path: Path = REQUIREMENTS) -> str:
    """sha256 of the pins as installed (comments do not count: editing one rebuilds nothing)."""
    return hashlib.sha256(("\n".join(pins(path)) + "\n").encode()).hexdigest()


def digest(python_version: str, path: Path = REQUIREMENTS) -> str:
    """The toolbox's short name: 12 hex digits of sha256(pins, Python version)."""
    return hashlib.sha256(f"{requirements_sha256(path)}\0{python_version}".encode()).hexdigest()[:12]


def _norm(name: str) -> str:
    # PEP 503 normalization, so "Power_Grid.Model" and "power-grid-model" are one package
    return "-".join(name.replace("_", "-").replace(".", "-").lower().split("-"))


# ---------------------------------------------------------------------------- where it is


def cache_root() -> Path:
    """The directory holding the default toolboxes (see the module docstring)."""
    if os.geteuid() == 0:
        return Path("/var/cache/agent-toolbox")
    base = os.environ.get("XDG_CACHE_HOME") or str(Path.home() / ".cache")
    return Path(base) / "agent-toolbox"


def default_root(python_version: str) -> Path:
    return cache_root() / f"toolbox-{digest(python_version)}"


def _built(root: Path) -> dict[str, Any] | None:
    try:
        info = json.loads((root / VERSIONS_FILE).read_text(encoding="utf-8"))
    except (OSError, ValueError):
        return None
    if not isinstance(info, dict) or not (root / "bin" / "python").exists():
        return None
    return info


def locate(path: str | os.PathLike[str] | None = None) -> Path | None:
    """A built toolbox's root: ``path`` if given, else ``$PSAB_TOOLBOX``, else the default
    location; ``None`` when none is built there.

    An explicit path (argument or variable) is taken as it is, whatever pins it was built with
    (its versions say which). The default is a toolbox of the current pins: the one of the
    first system interpreter if built, else any other built with the same pins.
    """
    explicit = path if path is not None else os.environ.get("PSAB_TOOLBOX") or None
    if explicit is not None:
        root = Path(explicit).expanduser().absolute()
        return root if _built(root) else None
    want = requirements_sha256()
    found = []
    try:
        candidates = sorted(cache_root().glob("toolbox-*"))
    except OSError:
        return None
    for root in candidates:
        info = _built(root)
        if info and info.get("requirements_sha256") == want:
            found.append((root, info))
    if not found:
        return None
    systems = [os.path.realpath(p) for p in SYSTEM_PYTHONS if os.path.exists(p)]
    found.sort(key=lambda ri: (ri[1].get("base_python") not in systems, ri[0].name))
    return found[0][0]


def python(root: str | os.PathLike[str]) -> Path:
    """The toolbox's interpreter (a symlink to its base interpreter; do not resolve it, or the
    toolbox's packages are lost)."""
    return _bin_python(root)


def _bin_python(root: str | os.PathLike[str]) -> Path:
    return Path(root) / "bin" / "python"


def info(root: str | os.PathLike[str]) -> dict[str, Any]:
    """Everything :func:`build` recorded in ``versions.json``."""
    data = _built(Path(root))
    if data is None:
        raise ToolboxError(f"{root} is not a built toolbox (no readable {VERSIONS_FILE}); run `psab toolbox build`")
    return data


def versions(root: str | os.PathLike[str]) -> dict[str, str]:
    """``{"python": <version>, <package>: <version>, ...}`` for the pinned packages, as
    installed (read from ``versions.json``; every installed distribution is in :func:`info`)."""
    data = info(root)
    return {"python": str(data.get("python", "")), **{str(k): str(v) for k, v in data.get("packages", {}).items()}}


def sandbox_binds(root: str | os.PathLike[str]) -> list[Path]:
    """Directories to bind read-only into the sandbox at the same paths for the toolbox to
    run: the toolbox itself and its base interpreter's prefixes unless the sandbox shows them
    anyway (``/usr`` and the other system directories)."""
    r = Path(root).absolute()
    data = info(r)
    out = [r]
    for key in ("base_prefix", "base_exec_prefix"):
        p = data.get(key)
        if not p:
            continue
        p = Path(os.path.realpath(p))
        if any(p == Path(d) or Path(d) in p.parents for d in ALWAYS_VISIBLE):
            continue
        if p not in out:
            out.append(p)
    return out


# ---------------------------------------------------------------------------- the build


_PROBE = ("import json, platform, sys\n"
          "ok = True\n"
          "try:\n"
          "    import ensurepip, venv  # noqa\n"
          "except ImportError:\n"
          "    ok = False\n"
          "print(json.dumps({'version': platform.python_version(), 'implementation': sys.implementation.name,"
          " 'executable': sys.executable, 'venv': ok}))\n")


def _probe(exe: str) -> dict[str, Any] | None:
    try:
        r = subprocess.run([exe, "-I", "-c", _PROBE], capture_output=True, text=True, timeout=60, env=_env())
        data = json.loads(r.stdout.strip().splitlines()[-1]) if r.returncode == 0 and r.stdout.strip() else None
    except (OSError, subprocess.SubprocessError, ValueError, IndexError):
        return None
    return data if isinstance(data, dict) else None


def default_python() -> str:
    """The base interpreter :func:`build` uses: the first of :data:`SYSTEM_PYTHONS` with
    ``venv`` and ``ensurepip``, else the one running psab (its base, if psab runs in a venv)."""
    for exe in SYSTEM_PYTHONS:
        if os.access(exe, os.X_OK):
            p = _probe(exe)
            if p and p.get("venv"):
                return exe
    return getattr(sys, "_base_executable", None) or sys.executable


def _env(home: str | None = None) -> dict[str, str]:
    env = {k: v for k, v in os.environ.items() if k not in _SCRUB}
    env["PYTHONNOUSERSITE"] = "1"  # an agent's $HOME is its box: no user site there either
    if home is not None:
        env["HOME"] = home
    return env


#: Run inside the toolbox: import every package, report the versions and whether psab imports.
_CHECK = r"""
import importlib, importlib.metadata as md, json, os, platform, sys
mods = json.loads(sys.argv[1])
out = {"python": platform.python_version(), "implementation": sys.implementation.name,
       "prefix": sys.prefix, "base_prefix": sys.base_prefix, "base_exec_prefix": sys.base_exec_prefix,
       "packages": {}, "failed": {}, "installed": {}}
for dist, mod in mods.items():
    try:
        importlib.import_module(mod)
    except BaseException as exc:
        out["failed"][dist] = f"import {mod}: {type(exc).__name__}: {exc}"[:300]
    try:
        out["packages"][dist] = md.version(dist)
    except md.PackageNotFoundError:
        out["failed"].setdefault(dist, "not installed")
for d in md.distributions():
    out["installed"][d.metadata["Name"]] = d.version
try:
    from andes.system.codegen import import_pycode
    out["andes_pycode"] = import_pycode() is not None
except BaseException:
    out["andes_pycode"] = False
try:
    import psab
    out["psab"] = str(getattr(psab, "__file__", "?"))
except ImportError:
    out["psab"] = None
print("\n@@TOOLBOX@@" + json.dumps(out, sort_keys=True))
"""


def check(root: str | os.PathLike[str], timeout_s: float = 600.0) -> dict[str, Any]:
    """Run the toolbox's python once, as an agent would (a fresh $HOME and working directory,
    no PYTHONPATH): import every pinned package and ``psab``; return what it reported. Raises
    :class:`ToolboxError` when a package fails to import or psab imports."""
    with tempfile.TemporaryDirectory(prefix="toolbox-check-") as tmp:
        try:
            r = subprocess.run([str(python(root)), "-c", _CHECK, json.dumps(IMPORTS)], cwd=tmp, env=_env(home=tmp),
                               capture_output=True, text=True, timeout=timeout_s)
        except (OSError, subprocess.SubprocessError) as exc:
            raise ToolboxError(f"the toolbox's python {python(root)} did not run: {exc}") from None
    marker = r.stdout.rfind("@@TOOLBOX@@")
    if r.returncode != 0 or marker < 0:
        tail = (r.stderr or r.stdout).strip().splitlines()[-1:] or ["no output"]
        raise ToolboxError(f"the toolbox's python {python(root)} failed its check (exit {r.returncode}): {tail[0][:300]}")
    out = json.loads(r.stdout[marker + len("@@TOOLBOX@@"):])
    if out["failed"]:
        dist, why = next(iter(out["failed"].items()))
        raise ToolboxError(f"{dist} does not work in the toolbox {root}: {why}")
    if out["psab"] is not None:
        raise ToolboxError(f"psab imports inside the toolbox {root} (from {out['psab']}); the toolbox must never hold psab")
    want = required()
    wrong = {d: v for d, v in out["packages"].items() if want.get(_norm(d)) not in (None, v)}
    if wrong:
        d, v = next(iter(wrong.items()))
        raise ToolboxError(f"{d} {v} is installed in the toolbox {root}, the pin is {want[_norm(d)]}")
    if not out["andes_pycode"]:
        raise ToolboxError(f"ANDES's generated code does not load in the toolbox {root}")
    return out


def _say(stream: IO[str] | None, msg: str) -> None:
    if stream is not None:
        print(msg, file=stream, flush=True)


def _run_logged(argv: list[str], log: Path, what: str, *, cwd: Path, env: dict[str, str], timeout_s: float) -> None:
    with open(log, "a", encoding="utf-8") as f:
        f.write(f"\n$ {' '.join(argv)}\n")
        f.flush()
        started = time.monotonic()
        try:
            r = subprocess.run(argv, cwd=cwd, env=env, stdout=f, stderr=subprocess.STDOUT, timeout=timeout_s)
        except (OSError, subprocess.SubprocessError) as exc:
            raise ToolboxError(f"{what} failed: {exc} (log: {log})") from None
        f.write(f"[{what}: exit {r.returncode} after {time.monotonic() - started:.1f} s]\n")
    if r.returncode != 0:
        raise ToolboxError(f"{what} failed (exit {r.returncode}); see {log}")


def _is_ours(root: Path) -> bool:
    return (root / MARKER_FILE).is_file() or ((root / VERSIONS_FILE).is_file() and (root / "pyvenv.cfg").is_file())


def _open_for_others(root: Path) -> None:
    """Give everyone read (and search/execute where the owner has it) on the whole toolbox: a
    root runner's sandbox reads it as uid 65534, and a root umask of 077 would close it."""
    def widen(p: str, is_dir: bool) -> None:
        try:
            st = os.lstat(p)
        except OSError:
            return
        if os.path.islink(p):
            return
        mode = st.st_mode & 0o7777
        add = 0o055 if is_dir or mode & 0o100 else 0o044
        if mode | add != mode:
            os.chmod(p, mode | add)

    widen(str(root), True)
    for d, dirs, files in os.walk(root):
        for n in dirs:
            widen(os.path.join(d, n), True)
        for n in files:
            widen(os.path.join(d, n), False)


def build(out: str | os.PathLike[str] | None = None, python: str | None = None, force: bool = False,
          stream: IO[str] | None = None) -> Path:
    """Make the toolbox and return its root (a no-op when one of the same pins and Python is
    built there, unless ``force``).

    ``out``: the directory (default ``$PSAB_TOOLBOX``, else :func:`default_root`); it must be
    new, empty, or a toolbox (an older or half-built one is replaced). ``python``: the base
    interpreter (default :func:`default_python`). ``stream``: where progress lines go (pip's
    output goes to ``build.log`` in the toolbox). Steps: ``python -m venv``; ``pip install -r``
    the pins; ANDES's code generation; the check (:func:`check`); ``versions.json`` last.
    Concurrent builds of one directory wait for each other (a lock beside it).
    """
    import fcntl  # POSIX only, like the sandbox the toolbox is for

    run = _run_logged
    base = python or default_python()
    probe = _probe(base)
    if probe is None:
        raise ToolboxError(f"--python {base}: not a working Python interpreter")
    if not probe.get("venv"):
        raise ToolboxError(f"--python {base}: it lacks the venv or ensurepip module "
                           "(Debian/Ubuntu: apt-get install python3-venv), or pass another --python")
    version = str(probe["version"])
    explicit = out if out is not None else os.environ.get("PSAB_TOOLBOX") or None
    root = Path(explicit).expanduser().absolute() if explicit is not None else default_root(version)
    want_sha = requirements_sha256()
    root.parent.mkdir(parents=True, exist_ok=True)
    if os.geteuid() == 0 and explicit is None:
        os.chmod(root.parent, 0o755)  # the sandbox's uid 65534 passes through to the toolbox
    with open(root.parent / f".{root.name}.lock", "w") as lock:
        fcntl.flock(lock, fcntl.LOCK_EX)  # another build of the same directory finishes first
        have = _built(root)
        if have and not force and have.get("requirements_sha256") == want_sha and have.get("python") == version:
            _say(stream, f"toolbox up to date: {root}")
            return root
        if root.exists():
            if not root.is_dir() or (any(root.iterdir()) and not _is_ours(root)):
                raise ToolboxError(f"{root} exists and is not a toolbox; give --out a new or empty directory")
            _say(stream, f"removing the old toolbox at {root}")
            shutil.rmtree(root)
        started = time.monotonic()
        env = _env()
        log_dir = Path(tempfile.mkdtemp(prefix="toolbox-build-"))
        log = log_dir / LOG_FILE
        try:
            _say(stream, f"creating the toolbox at {root} (Python {version}, {base})")
            run([base, "-m", "venv", str(root)], log, "python -m venv", cwd=log_dir, env=env, timeout_s=600)
            (root / MARKER_FILE).write_text(f"{want_sha}\n", encoding="utf-8")
            # the pins without comments: what is installed, and what an agent may read
            (root / "requirements.txt").write_text("\n".join(pins()) + "\n", encoding="utf-8")
            _say(stream, f"installing {len(pins())} pinned packages (pip; output in {root / LOG_FILE})")
            run([str(_bin_python(root)), "-m", "pip", "install", "--no-input", "--disable-pip-version-check",
                 "--progress-bar", "off", "-r", str(root / "requirements.txt")], log, "pip install",
                cwd=log_dir, env=env, timeout_s=3600)
            _say(stream, "generating ANDES's model code (once per toolbox)")
            run([str(_bin_python(root)), "-c", ANDES_PREPARE], log, "ANDES code generation",
                cwd=log_dir, env=_env(home=str(log_dir)), timeout_s=1800)
            run([str(_bin_python(root)), "-m", "compileall", "-q", str(root / "lib")], log, "compileall",
                cwd=log_dir, env=env, timeout_s=1800)
            _say(stream, "checking: every package imports, psab does not")
            shutil.copy2(log, root / LOG_FILE)
            report = check(root)
        except BaseException as exc:
            # the log goes into the (half-built) toolbox, which the next build replaces; where
            # there is no toolbox directory it stays where the message says it is
            if root.is_dir() and log.is_file():
                shutil.copy2(log, root / LOG_FILE)
                shutil.rmtree(log_dir, ignore_errors=True)
                if isinstance(exc, ToolboxError):
                    raise ToolboxError(str(exc).replace(str(log), str(root / LOG_FILE))) from None
            raise
        shutil.rmtree(log_dir, ignore_errors=True)
        record = {
            "format": FORMAT,
            "digest": digest(version),
            "requirements_sha256": want_sha,
            "python": report["python"],
            "python_implementation": report["implementation"],
            "base_python": os.path.realpath(_bin_python(root)),
            "base_prefix": report["base_prefix"],
            "base_exec_prefix": report["base_exec_prefix"],
            "packages": {d: report["packages"][d] for d in IMPORTS},
            "installed": dict(sorted(report["installed"].items(), key=lambda kv: kv[0].lower())),
            "andes_pycode": report["andes_pycode"],
            "platform": platform.machine(),
            "build_s": round(time.monotonic() - started, 1),
        }
        tmp = root / f".{VERSIONS_FILE}.tmp"
        tmp.write_text(json.dumps(record, indent=2) + "\n", encoding="utf-8")
        if os.geteuid() == 0:
            _open_for_others(root)  # before versions.json makes it a built toolbox
        os.replace(tmp, root / VERSIONS_FILE)
        (root / MARKER_FILE).unlink(missing_ok=True)
        if os.geteuid() == 0:
            for p in sandbox_binds(root):
                why = _closed_to_others(p)
                if why:
                    _say(stream, f"note: a root runner's sandbox (uid 65534) cannot reach {p}: {why}; under bwrap "
                                 "this toolbox will not run (build it with a system python and the default location)")
        _say(stream, f"toolbox built in {record['build_s']:.0f} s: {root}")
        return root


def _closed_to_others(path: Path) -> str | None:
    """Why a user with no relation to the files (uid 65534) cannot reach ``path``, or ``None``."""
    for d in [*reversed(path.parents), path]:
        try:
            mode = os.stat(d).st_mode
        except OSError as exc:
            return f"{d}: {exc.strerror}"
        if not mode & 0o001:
            return f"{d} is closed to others (mode {mode & 0o7777:04o})"
    return None


def dockerfile_lines(requirements: str = "toolbox-requirements.txt") -> str:
    """Dockerfile lines that give an image's Python the toolbox: the pins (a copy of
    :func:`pins` at ``requirements`` in the build context, written by the caller) installed
    with pip, then ANDES's model code generated as :func:`build` does. Used by the Harbor
    export's agent image; any other container harness may use them the same way."""
    return (f"COPY {requirements} /opt/toolbox/requirements.txt\n"
            "RUN python3 -m pip install --no-cache-dir --disable-pip-version-check -r /opt/toolbox/requirements.txt \\\n"
            f' && python3 -c "{ANDES_PREPARE}"\n')
