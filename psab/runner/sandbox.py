"""Sandboxes: a fresh directory per attempt, a scrubbed environment, and the isolation layer.

Each attempt gets ``<temp root>/a-XXXX/`` (outside the run directory and the repository) with

``box/``   the sandbox proper: ``task.json`` (agent view, no key), ``instructions.md``, and
           whatever the agent writes, ``solution.json`` among it; it is the agent's working
           directory and ``$HOME``;
``io/``    the runner's side: the agent's stdout and stderr, and the standard input of a
           built-in agent (deleted as soon as the process has opened it).

Isolation modes:

``bwrap``     bubblewrap: new user, pid, ipc, uts, cgroup (and, with ``--no-network``, net)
              namespaces; the agent runs as uid/gid 1000 of its own user namespace with no
              capabilities, no further user namespaces and ``no_new_privs``; a runner that is
              root starts bwrap as the unprivileged host user 65534, so nothing in the sandbox
              is root anywhere. The system directories (``/usr``, ``/bin``, ``/lib*``,
              ``/etc``) are read-only, the box read-write at ``/sandbox``, a private ``/tmp``,
              ``/proc`` and ``/dev``, the exposed directories read-only, and nothing else — not
              psab, not the cases or keys, not the run directory, not the repository, not the
              home directory. bwrap's own arguments reach it over a pipe (``--args``), so the
              sandbox's pid 1 shows no host paths.
``relocate``  the agent runs on the host in the box with the scrubbed environment. Absolute
              paths and other processes' ``/proc`` entries stay reachable: see docs/runner.md.
"""

from __future__ import annotations

import errno
import os
import shutil
import signal
import stat
import subprocess
import sys
import tempfile
import threading
import time
from dataclasses import dataclass
from functools import cache
from pathlib import Path

from psab.errors import RunnerError

ISOLATIONS = ("auto", "bwrap", "relocate")

#: Where the box appears inside the bwrap namespace.
BOX_IN_BWRAP = "/sandbox"

#: The agent's user and group inside its bwrap user namespace. Not 0: root of a user namespace
#: holds every capability over what that namespace owns (the mounts bwrap made), and issue 12
#: showed an agent remounting a read-only ``/etc`` read-write. Not 65534 either: the kernel
#: shows every file whose owner is not mapped (host root's ``/usr``, ``/etc``) as 65534, so an
#: agent running as 65534 would see system files as its own, which misleads tools that compare
#: owners (git's ``safe.directory``, ssh's permission checks). 1000 is the usual first ordinary
#: user, what agent installers expect.
SANDBOX_UID = SANDBOX_GID = 1000

#: The host user a root runner starts bwrap as (``nobody``/``nogroup`` on Debian and Fedora).
#: bwrap maps the sandbox user onto the user that starts it, so started by root it would map
#: uid 1000 onto host root: a file the agent creates in its box would be root's on the host
#: (a setuid-root binary, say). Started as 65534 — the id conventionally owning nothing — every
#: file the agent makes is 65534's, and the sandbox holds no privilege on the host at all. A
#: runner that is not root starts bwrap as itself (it has nothing to give away).
HOST_AGENT_UID = HOST_AGENT_GID = 65534

#: Environment variables an agent always gets (besides HOME, TMPDIR and PATH, which are set).
#: The transport settings are there because agents call providers over the shared network.
ENV_ALLOWLIST = (
    "LANG", "LANGUAGE", "LC_ALL", "LC_CTYPE", "LC_MESSAGES", "LC_NUMERIC", "TERM", "TZ", "USER", "LOGNAME",
    "COLUMNS", "NO_COLOR",
    "HTTP_PROXY", "HTTPS_PROXY", "NO_PROXY", "ALL_PROXY", "http_proxy", "https_proxy", "no_proxy", "all_proxy",
    "SSL_CERT_FILE", "SSL_CERT_DIR", "REQUESTS_CA_BUNDLE", "CURL_CA_BUNDLE", "NODE_EXTRA_CA_CERTS",
)

SYSTEM_PATH = ("/usr/local/sbin", "/usr/local/bin", "/usr/sbin", "/usr/bin", "/sbin", "/bin")

#: Host directories shown read-only inside bwrap.
SYSTEM_DIRS = ("/usr", "/etc")
LIB_DIRS = ("/bin", "/sbin", "/lib", "/lib32", "/lib64", "/libx32")


def system_python() -> str:
    """The interpreter for built-in agents: the system ``python3``, visible inside bwrap."""
    for candidate in ("/usr/bin/python3", "/usr/local/bin/python3", "/bin/python3"):
        if os.access(candidate, os.X_OK):
            return candidate
    return sys.executable


def host_agent_ids() -> tuple[int, int] | None:
    """(uid, gid) bwrap is started as, or ``None``: the runner's own (it is not root)."""
    return (HOST_AGENT_UID, HOST_AGENT_GID) if os.geteuid() == 0 else None


def _root_mode() -> int:
    # A root runner's sandbox user (65534) must pass through the root and an attempt directory
    # to reach its box: search permission only, so it can list neither (names are random).
    return 0o711 if host_agent_ids() else 0o700


def temp_root() -> Path:
    """The directory that holds every attempt's sandbox (``$TMPDIR/agent-sandboxes-<uid>``).

    The name says nothing of psab on purpose: under bwrap the box's host path is visible in
    ``/proc/self/mountinfo``.
    """
    root = Path(tempfile.gettempdir()) / f"agent-sandboxes-{os.getuid()}"
    root.mkdir(mode=_root_mode(), exist_ok=True)
    try:
        st = root.lstat()
        if st.st_uid == os.geteuid() and stat.S_ISDIR(st.st_mode) and stat.S_IMODE(st.st_mode) != _root_mode():
            os.chmod(root, _root_mode())  # made by an older version (0700)
    except OSError:
        pass
    return root


def unreachable_for_agent(path: Path, *, read: bool = True) -> str | None:
    """Why the host user bwrap runs as cannot reach ``path`` (search permission on every
    ancestor; with ``read``, read — and search, for a directory — on ``path`` itself), or ``None``. Only a root runner drops to another user;
    ACLs are not read, so a path they open is reported as closed (a clear error, not a leak)."""
    ids = host_agent_ids()
    if ids is None:
        return None
    uid, gid = ids
    p = Path(path)
    chain = [*reversed(p.parents), p]
    for i, d in enumerate(chain):
        try:
            st = os.stat(d)
        except OSError as exc:
            return f"{d}: {exc.strerror}"
        mode = st.st_mode
        bits = (mode >> 6) & 7 if st.st_uid == uid else (mode >> 3) & 7 if st.st_gid == gid else mode & 7
        last = i == len(chain) - 1
        need = 1 if not last else (5 if stat.S_ISDIR(mode) else 4) if read else (1 if stat.S_ISDIR(mode) else 0)
        if bits & need != need:
            return f"{d} (mode {stat.S_IMODE(mode):04o}, owner uid {st.st_uid}) is closed to uid {uid}"
    return None


def hidden_roots(run_dir: Path | None = None) -> list[Path]:
    """Paths an agent must never reach: psab's code and data (and its install records), the
    repository, the virtual environment running psab, the run directory and the user's home."""
    import psab
    from psab.paths import data_root

    pkg = Path(psab.__file__).resolve().parent
    roots = [pkg, data_root().resolve(), Path.home().resolve()]
    if sys.prefix != sys.base_prefix:
        # A virtual environment is psab's own; a system prefix (/usr) is everyone's, and only
        # psab's entries in it are hidden.
        roots.append(Path(sys.prefix).resolve())
    repo = pkg.parent
    if (repo / "pyproject.toml").is_file():
        roots.append(repo)
    else:  # an installed package: its install records and any path hook beside it
        roots += sorted(repo.glob("psab-*.dist-info")) + sorted(repo.glob("*psab*.pth"))
    script = shutil.which("psab")
    if script:
        roots.append(Path(script))
    if run_dir is not None:
        roots.append(Path(run_dir).resolve())
    out: list[Path] = []
    for r in roots:
        if r not in out:
            out.append(r)
    return out


def _within(path: Path, root: Path) -> bool:
    return path == root or root in path.parents


def check_temp_root(root: Path, hidden: list[Path]) -> None:
    r = root.resolve()
    home = Path.home().resolve()
    for h in hidden:
        if h != home and (_within(r, h) or _within(h, r)):
            raise RunnerError(f"the sandbox root {r} overlaps {h}; set TMPDIR to a directory outside psab and the run")


#: Mount points of the sandbox itself; an exposed path may not cover them or lie under them.
RESERVED_IN_BWRAP = ("/proc", "/dev", "/sys", BOX_IN_BWRAP)


def check_expose(paths: tuple[str, ...], hidden: list[Path]) -> list[Path]:
    """Refuse exposed paths that would show psab, the repository, the run, the venv or other
    attempts' sandboxes, that would cover the sandbox's own mounts, or that the sandbox's host
    user cannot read (a root runner starts bwrap as uid 65534)."""
    home = Path.home().resolve()
    sandboxes = temp_root().resolve()
    out = []
    for raw in paths:
        p = Path(os.path.expanduser(raw)).resolve()
        if not p.exists():
            raise RunnerError(f"expose: {p} does not exist")
        for h in hidden:
            if h == home:
                # the home directory may hold an agent's install; only the whole of it is refused
                if p == h:
                    raise RunnerError(f"expose: {p} is the whole home directory; expose the agent's own directory")
                continue
            if _within(p, h) or _within(h, p):
                raise RunnerError(f"expose: {p} overlaps {h}, which an agent must never see")
        if _within(p, sandboxes) or _within(sandboxes, p):
            raise RunnerError(f"expose: {p} overlaps {sandboxes}, which holds every attempt's sandbox")
        for r in map(Path, RESERVED_IN_BWRAP):
            if _within(p, r) or _within(r, p):
                raise RunnerError(f"expose: {p} overlaps {r}, which the sandbox mounts itself")
        why = unreachable_for_agent(p)
        if why:
            raise RunnerError(f"expose: the sandbox runs as uid {HOST_AGENT_UID} on the host and cannot read {p}: "
                              f"{why}; install the agent where others can read it, or open the path (chmod o+rx)")
        out.append(p)
    return out


# ------------------------------------------------------------------------------------ boxes


@dataclass
class Sandbox:
    """One attempt's directories on the host and the paths the agent sees."""

    attempt_dir: Path
    box: Path
    io: Path
    inside: Path  # the box as the agent sees it

    def agent_paths(self) -> dict[str, str]:
        return {
            "task": str(self.inside / "task.json"),
            "instructions": str(self.inside / "instructions.md"),
            "solution": str(self.inside / "solution.json"),
            "workdir": str(self.inside),
        }

    @property
    def solution(self) -> Path:
        return self.box / "solution.json"

    def remove(self) -> None:
        _rmtree(self.attempt_dir)


def _start_ticks(pid: int) -> str | None:
    """A process's start time (clock ticks since boot, ``/proc/<pid>/stat`` field 22): with the
    pid it names one process for good, where the pid alone is reused."""
    try:
        data = Path(f"/proc/{pid}/stat").read_bytes()
    except OSError:
        return None
    fields = data[data.rfind(b")") + 2:].split()
    return fields[19].decode() if len(fields) > 19 else None


def make_sandbox(root: Path, isolation: str) -> Sandbox:
    # The owner's pid is in the directory's name (``a-<pid>-XXXX``) as well as in ``io/owner``
    # (pid and start time): the name goes last in clean-up, so even a sandbox whose clean-up
    # was cut short still names the run it belongs to.
    pid = os.getpid()
    d = Path(tempfile.mkdtemp(prefix=f"a-{pid}-", dir=root))
    box, io = d / "box", d / "io"
    box.mkdir(mode=0o755)
    io.mkdir(mode=0o700)
    (io / "owner").write_text(f"{pid} {_start_ticks(pid) or ''}".strip())
    if isolation == "bwrap" and host_agent_ids():
        os.chmod(d, 0o711)  # the sandbox's host user passes through to its box and lists nothing
    inside = Path(BOX_IN_BWRAP) if isolation == "bwrap" else box
    return Sandbox(d, box, io, inside)


def hand_over(box: Path) -> None:
    """Give the box and what the runner put in it (task, instructions, copied home files) to
    the sandbox's host user, so the agent may write and change its own files as before; the
    runner, root, still reads and deletes everything. Symlinks are re-owned, never followed."""
    ids = host_agent_ids()
    if ids is None:
        return
    uid, gid = ids
    os.lchown(box, uid, gid)
    os.chmod(box, 0o700)  # the agent's alone (root passes anyway)
    todo = [str(box)]
    while todo:  # iterative: copied home trees may be deep
        with os.scandir(todo.pop()) as it:
            for e in it:
                os.lchown(e.path, uid, gid)
                if e.is_dir(follow_symlinks=False):
                    todo.append(e.path)


#: A sandbox directory that names no owner (made by an older version, which recorded the owner
#: only in ``io/owner`` and could delete that first) is abandoned once untouched this long. A live
#: one lacks its owner only between ``mkdtemp`` and writing ``io/owner`` — microseconds — so the
#: margin only has to cover clock steps and slow file systems; an hour is generous.
UNOWNED_STALE_AFTER_S = 3600.0


#: Kinds of the runner's temporary directories under :func:`temp_root`, each named
#: ``<kind>-<pid>-...``: ``a`` an attempt's sandbox (:func:`make_sandbox`); ``f`` a fleet tool
#: server's own directory and ``s`` its short socket directory (:func:`psab.fleet.server.serve_attempt`);
#: ``p`` one call of the fleet ``python`` tool (:func:`psab.fleet.tools.run_python`). A runner
#: killed mid-attempt leaves any of them; :func:`remove_stale` reclaims them by one rule.
OWNED_KINDS = ("a", "f", "s", "p")


def owned_tempdir(kind: str, root: Path) -> Path:
    """A fresh directory ``<kind>-<pid>-<start ticks>-XXXXXXXX`` under ``root``, made by
    ``mkdtemp`` (0700). Its owner is in its name from the moment it exists, so no window leaves
    it unowned, and nothing is written inside it: the fleet server's short socket directory is
    bound into the sandbox, where an owner file would be one more thing for the agent to read."""
    if kind not in OWNED_KINDS:
        raise ValueError(f"kind must be one of {OWNED_KINDS}")
    pid = os.getpid()
    ticks = _start_ticks(pid)
    return Path(tempfile.mkdtemp(prefix=f"{kind}-{pid}-{ticks}-" if ticks else f"{kind}-{pid}-", dir=root))


def _owner(d: Path) -> tuple[int | None, str | None]:
    """(pid, start ticks) of the run that made directory ``d``, as far as it still says: a
    sandbox's ``io/owner``, else its name (``<kind>-<pid>-XXXX``, or ``<kind>-<pid>-<ticks>-XXXX``
    from :func:`owned_tempdir`; ``mkdtemp``'s random part never holds a '-')."""
    pid: int | None = None
    ticks: str | None = None
    try:
        parts = (d / "io" / "owner").read_text().split()
        pid = int(parts[0])
        ticks = parts[1] if len(parts) > 1 else None
    except (OSError, ValueError, IndexError):
        pass
    if pid is None:
        name = d.name.split("-")
        if len(name) >= 3 and name[1].isdigit():
            pid = int(name[1])
            if len(name) == 4 and name[2].isdigit():
                ticks = name[2]
    return pid, ticks


def remove_stale(root: Path, *, now: float | None = None) -> int:
    """Remove sandboxes and the other temporary directories of :data:`OWNED_KINDS` (the fleet
    tool server's ``f-``/``s-``, the python tool's ``p-``) left by runners that died (killed
    mid-attempt or mid-clean-up); returns how many.

    A directory is a dead run's when its owner process is gone, or when its pid now names another
    process (the start time differs from the recorded one); one that names no owner at all is
    abandoned once older than :data:`UNOWNED_STALE_AFTER_S`. A concurrent live run's is kept.
    (A socket directory that had to go to ``/tmp`` itself, when even this root's path was too
    long for AF_UNIX, is not looked for: ``/tmp`` holds other programs' directories.)
    """
    now = time.time() if now is None else now
    n = 0
    for d in sorted(p for k in OWNED_KINDS for p in root.glob(f"{k}-*")):
        try:
            st = d.lstat()
        except OSError:
            continue
        if not stat.S_ISDIR(st.st_mode) or st.st_uid != os.geteuid():
            continue  # not a sandbox of this user's runs
        pid, ticks = _owner(d)
        if pid is None:
            if now - st.st_mtime < UNOWNED_STALE_AFTER_S:
                continue
        elif pid == os.getpid():
            continue
        else:
            try:
                os.kill(pid, 0)
                alive = ticks is None or _start_ticks(pid) in (None, ticks)
            except ProcessLookupError:
                alive = False
            except PermissionError:
                alive = True  # another user's process holds the pid: not ours to judge
            if alive:
                continue
        if _rmtree(d):
            n += 1
    return n


def copy_home(sandbox: Sandbox, items: tuple[str, ...]) -> None:
    """Copy an agent's login/config files into the box's ``$HOME`` at the same relative place."""
    home = Path.home()
    for raw in items:
        src = Path(os.path.expanduser(raw))
        try:
            rel = src.resolve().relative_to(home.resolve())
        except ValueError:
            raise RunnerError(f"copy_home: {src} is not under the home directory {home}") from None
        dst = sandbox.box / rel
        if not src.exists():
            raise RunnerError(f"copy_home: {src} does not exist")
        dst.parent.mkdir(parents=True, exist_ok=True)
        if src.is_dir():
            shutil.copytree(src, dst, symlinks=True, dirs_exist_ok=True)
        else:
            shutil.copy2(src, dst)


_DIR_FLAGS = os.O_RDONLY | os.O_DIRECTORY | os.O_NOFOLLOW | os.O_CLOEXEC


def _rmtree(path: Path) -> bool:
    """Delete the tree at ``path`` as an agent may have left it; returns whether it is gone.

    Iterative — a 3,000-deep tree written by an agent made ``shutil.rmtree`` raise
    ``RecursionError`` (issue 12) — and bounded: one directory open at a time, every operation
    relative to it (so depth past ``PATH_MAX`` is fine), memory in proportion to the names still
    to visit. Symlinks are unlinked, never followed; read-only or unsearchable directories are
    opened up first; a directory on another file system (a mount an agent made under
    relocation) is not entered. Going back up, the parent reached through ``..`` must be the
    directory that was entered, else clean-up stops rather than delete elsewhere. Never raises:
    whatever is left is reclaimed by :func:`remove_stale` once this run is gone.
    """
    try:
        return _rmtree_fd(path)
    except OSError:
        return False


def _rmtree_fd(path: Path) -> bool:
    try:
        cur = os.open(path, _DIR_FLAGS)
    except FileNotFoundError:
        return True
    except OSError as exc:
        if exc.errno not in (errno.ENOTDIR, errno.ELOOP):
            raise
        os.unlink(path)  # a file or a symlink: never followed
        return True
    try:
        st = os.fstat(cur)
        dev, cur_id = st.st_dev, (st.st_dev, st.st_ino)
        _open_up(cur, st)
        pending = _clear_files(cur)
        # each frame: an ancestor's identity, its subdirectories still to visit, and the name
        # of the one being visited now
        stack: list[tuple[tuple[int, int], list[str], str]] = []
        while True:
            nxt = None
            while pending and nxt is None:
                name = pending.pop()
                nxt = _enter(cur, name, dev)
            if nxt is not None:
                stack.append((cur_id, pending, name))
                os.close(cur)
                cur, cur_id = nxt
                pending = _clear_files(cur)
                continue
            if not stack:
                break
            parent_id, pending, name = stack.pop()
            up = os.open("..", _DIR_FLAGS, dir_fd=cur)
            ust = os.fstat(up)
            if (ust.st_dev, ust.st_ino) != parent_id:
                os.close(up)
                return False  # moved under us: stop rather than delete elsewhere
            os.close(cur)
            cur, cur_id = up, parent_id
            _remove(cur, name, os.rmdir)
    finally:
        os.close(cur)
    try:
        os.rmdir(path)
    except FileNotFoundError:
        pass
    return not os.path.lexists(path)


def _open_up(fd: int, st: os.stat_result) -> None:
    """Make a directory the runner owns (not being root) readable, writable and searchable."""
    if os.geteuid() != 0 and st.st_uid == os.geteuid() and stat.S_IMODE(st.st_mode) & 0o700 != 0o700:
        os.fchmod(fd, stat.S_IMODE(st.st_mode) | 0o700)


def _remove(dir_fd: int, name: str, how) -> None:  # type: ignore[no-untyped-def]
    try:
        how(name, dir_fd=dir_fd)
    except FileNotFoundError:
        pass
    except OSError:
        pass  # not empty (a mount, an entry that would not go): left for remove_stale


def _clear_files(fd: int) -> list[str]:
    """Unlink every entry of the open directory ``fd`` but subdirectories; return those."""
    subdirs = []
    try:
        with os.scandir(fd) as it:
            entries = [(e.name, e.is_dir(follow_symlinks=False)) for e in it]
    except OSError:
        return []
    for name, is_dir in entries:
        if is_dir:
            subdirs.append(name)
        else:
            _remove(fd, name, os.unlink)
    return subdirs


def _enter(parent: int, name: str, dev: int) -> tuple[int, tuple[int, int]] | None:
    """Open subdirectory ``name`` of ``parent`` (never through a symlink, never onto another
    file system), opening up its permissions if it was closed to the runner."""
    try:
        fd = os.open(name, _DIR_FLAGS, dir_fd=parent)
    except PermissionError:
        try:
            os.chmod(name, 0o700, dir_fd=parent)  # a directory (scandir said so), not a link
            fd = os.open(name, _DIR_FLAGS, dir_fd=parent)
        except OSError:
            return None
    except OSError:
        return None
    st = os.fstat(fd)
    if st.st_dev != dev:
        os.close(fd)
        return None
    try:
        _open_up(fd, st)
    except OSError:
        pass
    return fd, (st.st_dev, st.st_ino)


def read_solution(path: Path, limit: int) -> tuple[bool, bytes | None, str]:
    """Read what the agent left at ``path`` without trusting it.

    Returns (present, bytes, note). A symlink, FIFO or directory is not a solution (the runner
    must not follow a link out of the sandbox or block on a pipe); content beyond ``limit``
    bytes is cut off, which makes the JSON malformed and the attempt an agent failure.
    """
    try:
        fd = os.open(path, os.O_RDONLY | os.O_NOFOLLOW | os.O_NONBLOCK)
    except FileNotFoundError:
        return False, None, "no solution file"
    except OSError as exc:
        return True, None, f"solution path is not a regular file ({exc.strerror})"
    try:
        st = os.fstat(fd)
        if not stat.S_ISREG(st.st_mode):
            return True, None, "solution path is not a regular file"
        chunks, size = [], 0
        while size <= limit:
            block = os.read(fd, min(1 << 20, limit + 1 - size))
            if not block:
                break
            chunks.append(block)
            size += len(block)
        data = b"".join(chunks)
        if len(data) > limit:
            return True, data[:limit], f"solution file larger than {limit} bytes (cut off)"
        return True, data, ""
    finally:
        os.close(fd)


# ------------------------------------------------------------------------------ environment


def agent_env(*, home: str, tmpdir: str, pass_env: tuple[str, ...], hidden: list[Path],
              visible: tuple[Path, ...] | None) -> dict[str, str]:
    """The scrubbed environment: the allowlist, HOME, TMPDIR, a PATH without psab's
    environment, and the variables the user chose to pass through."""
    env = {k: os.environ[k] for k in ENV_ALLOWLIST if k in os.environ}
    user_home = Path.home().resolve()
    # The home directory may hold an agent's own install (~/.local/bin); psab's is refused.
    refused = [str(h) for h in hidden if h != user_home]
    shown = [str(v) for v in visible] if visible is not None else None

    def inside(path: str, roots: list[str]) -> bool:
        return any(path == r or path.startswith(r.rstrip("/") + "/") for r in roots)

    entries: list[str] = []
    for e in [*os.environ.get("PATH", "").split(os.pathsep), *SYSTEM_PATH]:
        if not e or not os.path.isabs(e) or e in entries:
            continue
        e = os.path.normpath(e)
        if inside(e, refused) or inside(os.path.realpath(e), refused):
            continue
        if shown is not None and not inside(e, shown):
            continue
        entries.append(e)
    env["PATH"] = os.pathsep.join(entries)
    env["HOME"] = home
    env["TMPDIR"] = tmpdir
    for k in pass_env:
        if k in os.environ:
            env[k] = os.environ[k]
    return env


# ------------------------------------------------------------------------------------ bwrap


@cache
def _bwrap_supports(option: str) -> bool:
    exe = shutil.which("bwrap")
    if exe is None:
        return False
    try:
        r = subprocess.run([exe, "--help"], capture_output=True, text=True, timeout=10)
    except (OSError, subprocess.SubprocessError):
        return False
    return option in r.stdout + r.stderr


def bwrap_args(box: Path, *, network: bool, expose: list[Path], hidden: list[Path],
               binds: tuple[Path, ...] = (), tmp_mb: float | None = None) -> list[str]:
    """bwrap's arguments (before ``--``) for one attempt.

    The agent is uid/gid :data:`SANDBOX_UID` of a new user namespace with every capability
    dropped and ``no_new_privs`` (bwrap sets it), so it can neither mount (a read-only bind
    stays read-only) nor gain privilege through a setuid binary; ``--disable-userns`` (bwrap
    0.8+) refuses it a nested user namespace too. Mount order matters: a later mount covers an
    earlier one, so the private ``/proc``, ``/dev`` and ``/tmp`` come first and the exposed
    directories after them (an exposed directory under ``/tmp`` stays visible, issue 15), and the
    masks that cover psab inside a visible tree come last.

    ``binds`` are paths the runner itself made for this attempt (the fleet tier's tool socket
    and its stdlib client, :func:`psab.fleet.server.serve_attempt`), bound read-only at the same
    path; unlike ``expose`` they are not the user's choice, so :func:`check_expose` (which
    refuses anything under the sandboxes' root) does not apply to them.

    Every tmpfs the agent may write has a size (issue 32, item 7): ``/tmp`` ``tmp_mb`` (None: the
    kernel's default, half the memory), ``/dev/shm`` :data:`SHM_LIMIT_MB`; bwrap's own root tmpfs,
    ``/dev`` and the masks are remounted read-only (they were writable, without bound, by the
    agent, which owns them in its namespace). Only the box is written to the host's disk.
    """
    args = ["--die-with-parent", "--new-session", "--unshare-all",
            "--unshare-user", "--uid", str(SANDBOX_UID), "--gid", str(SANDBOX_GID), "--cap-drop", "ALL"]
    if _bwrap_supports("--disable-userns"):
        args.append("--disable-userns")
    if network:
        args.append("--share-net")
    for d in SYSTEM_DIRS:
        args += ["--ro-bind", d, d]
    for d in LIB_DIRS:
        if os.path.islink(d):
            args += ["--symlink", os.readlink(d), d]
        elif os.path.isdir(d):
            args += ["--ro-bind", d, d]
    if network:
        # DNS: /etc/resolv.conf may point into /run (systemd-resolved), which is not mounted.
        real = os.path.realpath("/etc/resolv.conf")
        if not real.startswith(("/etc/", "/usr/")) and os.path.exists(real):
            args += ["--ro-bind", real, real]
    args += ["--proc", "/proc", "--dev", "/dev"]
    args += [*(["--size", str(int(tmp_mb * 2**20))] if tmp_mb else []), "--tmpfs", "/tmp"]
    args += ["--size", str(int(SHM_LIMIT_MB * 2**20)), "--tmpfs", "/dev/shm", "--remount-ro", "/dev"]
    args += ["--bind", str(box), BOX_IN_BWRAP]
    for p in expose:
        args += ["--ro-bind", str(p), str(p)]
    for p in binds:
        args += ["--ro-bind", str(p), str(p)]
    # Anything of psab that happens to live inside a visible tree (a system-wide install under
    # /usr, a config file in /etc) is covered up.
    visible_roots = [Path(d) for d in (*SYSTEM_DIRS, *LIB_DIRS)] + expose
    for m in masks(hidden, visible_roots):
        args += (["--tmpfs", str(m), "--remount-ro", str(m)] if m.is_dir() else ["--ro-bind", "/dev/null", str(m)])
    args += ["--remount-ro", "/", "--chdir", BOX_IN_BWRAP]
    return args


def masks(hidden: list[Path], visible_roots: list[Path]) -> list[Path]:
    """Hidden paths (and psab-named entries of /etc) that lie inside a visible tree."""
    out = [h for h in hidden if any(_within(h, v) for v in visible_roots)]
    out += [p for p in _psab_named_in_etc() if p not in out]
    return out


@cache
def _psab_named_in_etc(etc: str = "/etc") -> tuple[Path, ...]:
    hits = []
    for root, dirs, files in os.walk(etc, onerror=lambda e: None):
        for n in dirs + files:
            if "psab" in n.lower():
                hits.append(Path(root) / n)
    return tuple(hits)


_PROBE: dict[bool, str | None] = {}
_PROBE_LOCK = threading.Lock()


def bwrap_problem(network: bool = True) -> str | None:
    """``None`` when bwrap can run an agent here, else why not (cached per process)."""
    with _PROBE_LOCK:
        if network in _PROBE:
            return _PROBE[network]
        exe = shutil.which("bwrap")
        if exe is None:
            problem: str | None = "bwrap is not installed"
        elif (why := unreachable_for_agent(temp_root(), read=False)) is not None:
            problem = (f"the sandbox root {temp_root()} is closed to uid {HOST_AGENT_UID}, the host user the sandbox "
                       f"runs as ({why}); set TMPDIR to a directory others may pass through, such as /tmp")
        else:
            root = temp_root()
            sb = make_sandbox(root, "bwrap")
            try:
                r = launch(["/bin/sh", "-c", "test -d /sandbox"], sb,
                           env={"PATH": "/usr/bin:/bin"}, isolation="bwrap", network=network, expose=[],
                           hidden=[], timeout_s=30, stdin_bytes=None)
                problem = None if r.exit_code == 0 else f"bwrap failed (exit {r.exit_code}): {r.stderr_tail.strip()[-300:]}"
                if problem and host_agent_ids():
                    # a root runner starts bwrap as uid 65534, which needs unprivileged user
                    # namespaces (root alone no longer suffices)
                    problem += (f" (bwrap runs as the unprivileged uid {HOST_AGENT_UID}: the kernel must allow it user "
                                "namespaces — user.max_user_namespaces > 0, kernel.unprivileged_userns_clone = 1, "
                                "kernel.apparmor_restrict_unprivileged_userns = 0 or an AppArmor profile for bwrap)")
            finally:
                sb.remove()
        _PROBE[network] = problem
        return problem


#: How a user gets the namespace sandbox (Debian/Ubuntu; ``make run`` and ``make test`` run
#: scripts/install-system-deps.sh, which installs it where it can: root and apt).
BWRAP_INSTALL = "sudo apt-get install bubblewrap (Debian/Ubuntu), or make system-deps as root"


def relocation_notice(problem: str) -> str:
    """The one line a run that falls back to relocation prints at its start (issue 34, item 2):
    why bwrap is not used, what relocation leaves open (docs/runner.md, "relocate") and how to
    get bwrap."""
    return (f"psab: warning: isolation relocate, not the bwrap sandbox ({problem}): the agents run as you in a fresh "
            "directory with a scrubbed environment and can still read every file you can by absolute path (psab, "
            "the cases' keys, the run directory, your home), the runner's /proc (its arguments and environment, API "
            "keys included) and the other attempts' sandboxes, and reach the network — fine for trying psab, not for "
            f"publishing scores; to get the sandbox: {BWRAP_INSTALL} (--isolation bwrap refuses to run without it)")


def isolation_notice(requested: str, network: bool) -> str | None:
    """:func:`relocation_notice` when ``requested`` isolation (``auto``) will fall back to
    relocation here, else None (``bwrap`` and ``relocate`` were chosen; an unusable ``bwrap``
    is the run's error, said by :func:`resolve_isolation`)."""
    if requested != "auto" or not network:
        return None
    problem = bwrap_problem(network)
    return None if problem is None else relocation_notice(problem)


def resolve_isolation(requested: str, network: bool) -> str:
    """``auto`` → ``bwrap`` if it works here, else ``relocate``; ``bwrap`` insists."""
    if requested not in ISOLATIONS:
        raise RunnerError(f"--isolation must be one of {', '.join(ISOLATIONS)}")
    if requested == "relocate":
        if not network:
            raise RunnerError("--no-network needs the bwrap sandbox (--isolation bwrap); relocation cannot cut the network")
        return "relocate"
    problem = bwrap_problem(network)
    if problem is None:
        return "bwrap"
    if requested == "bwrap" or not network:
        fix = f" (install it: {BWRAP_INSTALL})" if shutil.which("bwrap") is None else ""
        raise RunnerError(f"--isolation bwrap{' (needed by --no-network)' if not network else ''}: {problem}{fix}")
    return "relocate"


# ----------------------------------------------------------------------------------- launch


#: The largest file an agent may write unless the run says otherwise (``--file-limit``).
DEFAULT_FILE_LIMIT_MB = 1024.0
#: Above this (1 EiB) a limit in bytes would not fit the kernel's 64-bit rlimit.
MAX_LIMIT_MB = float(2**40)


def check_limit_mb(what: str, mb: float | None) -> None:
    """Refuse a resource limit that is not a number of MB in [0, 2**40] (0: no limit)."""
    if mb is not None and not (isinstance(mb, int | float) and 0 <= mb <= MAX_LIMIT_MB):
        raise RunnerError(f"{what} must be a number of MB between 0 (no limit) and {MAX_LIMIT_MB:.0f}, not {mb!r}")


@dataclass(frozen=True)
class Limits:
    """Resource limits (``setrlimit``) on an agent and every process it starts, in MB
    (``None``: no limit).

    ``memory_mb`` caps each process's address space (``RLIMIT_AS``): virtual memory, not
    resident, so runtimes that reserve large address ranges up front (Node/V8, the JVM, Go)
    need a generous value or none; a refused allocation ends the agent however its runtime
    handles it. ``file_mb`` caps every file a process writes (``RLIMIT_FSIZE``) — its stdout and
    stderr logs and, under bwrap, the in-memory ``/tmp`` included; a write past it kills the
    process with ``SIGXFSZ``. Limits are per process, not per agent: capping the sum takes a
    cgroup, which containers seldom grant.
    """

    memory_mb: float | None = None
    file_mb: float | None = None

    @classmethod
    def resolve(cls, agent_memory_mb: float | None, run_memory_mb: float | None,
                agent_file_mb: float | None, run_file_mb: float | None) -> Limits:
        """An agent's own value wins over the run's; 0 means no limit."""
        def pick(own: float | None, run: float | None) -> float | None:
            value = run if own is None else own
            return value if value else None

        return cls(pick(agent_memory_mb, run_memory_mb), pick(agent_file_mb, run_file_mb))

    def to_dict(self) -> dict[str, float | None]:
        return {"memory_mb": self.memory_mb, "file_mb": self.file_mb}

    def prefix(self) -> list[str]:
        """The command that sets the limits and then runs the agent (bwrap included)."""
        values = {name: int(mb * 2**20) for name, mb in (("as", self.memory_mb), ("fsize", self.file_mb)) if mb}
        if not values:
            return []
        prlimit = _prlimit()
        if prlimit:
            return [prlimit, *(f"--{name}={v}" for name, v in values.items()), "--"]
        # the system interpreter: under a root runner the shim already runs as the sandbox's
        # host user, who may not reach a virtual environment kept under /root
        return [system_python(), "-I", "-S", "-c", _RLIMIT_SHIM, str(values.get("as", -1)), str(values.get("fsize", -1))]


# Where util-linux's prlimit is missing: the same in Python, then exec. prlimit costs about
# 1 ms per attempt here, the Python shim about 15 ms (an interpreter start).
_RLIMIT_SHIM = (
    "import os, resource as r, sys\n"
    "for res, v in ((r.RLIMIT_AS, int(sys.argv[1])), (r.RLIMIT_FSIZE, int(sys.argv[2]))):\n"
    "    if v >= 0: r.setrlimit(res, (v, v))\n"
    "os.execvp(sys.argv[3], sys.argv[3:])\n"
)


#: An attempt without resource limits.
NO_LIMITS = Limits()

#: Processes and threads one bwrap sandbox may hold at once unless the run says otherwise
#: (``--process-limit``). A real agent holds tens (a Node or Rust client's threads, a shell, a
#: Python with a BLAS pool per core); 2048 leaves room for a 64-core BLAS pool in several
#: processes, while eight sandboxes at their limit stay under Linux's default pid_max of 32768.
DEFAULT_PROCESS_LIMIT = 2048
#: The size of the sandbox's private ``/tmp`` (a tmpfs: memory) unless the run says otherwise
#: (``--tmp-limit``); unset, the kernel gives every tmpfs half the machine's memory.
DEFAULT_TMP_LIMIT_MB = 2048.0
#: The size of ``/dev/shm`` in the sandbox: Docker's default, which agents' tools (Chromium,
#: Python's multiprocessing) are used to.
SHM_LIMIT_MB = 64.0
#: What the box (the agent's working directory, on the host's disk) may hold at most unless the
#: run says otherwise (``--disk-limit``), and how many entries (inodes) it may hold at all.
DEFAULT_DISK_LIMIT_MB = 8192.0
MAX_BOX_ENTRIES = 500_000
#: The disk watcher's pause between two measurements of the box: at least this, and at least
#: :data:`DISK_WATCH_FACTOR` times the last measurement took (so it costs at most ~5% of a core).
DISK_WATCH_MIN_S = 1.0
DISK_WATCH_FACTOR = 20.0


def check_process_limit(n: int | None) -> None:
    if n is not None and not (isinstance(n, int) and not isinstance(n, bool) and 0 <= n <= 2**22):
        raise RunnerError(f"--process-limit must be a whole number of processes between 0 (no limit) and {2**22}, "
                          f"not {n!r}")


@dataclass(frozen=True)
class Totals:
    """What one attempt may use in all, beyond each process's :class:`Limits` (issue 32, item 7).

    ``processes`` bounds the processes and threads of the sandbox together (``RLIMIT_NPROC`` set
    inside the bwrap user namespace: since Linux 5.14 the kernel counts it per user of each user
    namespace, so each sandbox has its own count — where the host's uid 65534, which every
    sandbox runs as, would be shared by all; root is exempt from RLIMIT_NPROC, so relocation
    run by root has no process limit). ``tmp_mb`` is the size of the sandbox's private ``/tmp``
    (bwrap only; relocation's ``$TMPDIR`` is in the box). ``disk_mb`` bounds what the box holds
    (bytes allocated, both isolations): a watcher measures it every few seconds and ends the
    agent past it (or past :data:`MAX_BOX_ENTRIES` entries), so an agent writing fast may pass it
    by what it writes between two measurements — each file is also capped by ``Limits.file_mb``.
    ``None``: no such limit.
    """

    processes: int | None = None
    tmp_mb: float | None = None
    disk_mb: float | None = None

    @classmethod
    def of(cls, processes: int | None, tmp_mb: float | None, disk_mb: float | None) -> Totals:
        """0 means no limit (as for :class:`Limits`)."""
        return cls(processes or None, tmp_mb or None, disk_mb or None)

    def to_dict(self) -> dict[str, float | None]:
        return {"processes": self.processes, "tmp_mb": self.tmp_mb, "disk_mb": self.disk_mb}

    def inner_prefix(self) -> list[str]:
        """The command that sets the process limit inside the sandbox, then runs the agent."""
        if not self.processes:
            return []
        if _prlimit():
            return [_prlimit() or "prlimit", f"--nproc={self.processes}", "--"]
        return [system_python(), "-I", "-S", "-c", _RLIMIT_SHIM.replace("RLIMIT_AS", "RLIMIT_NPROC"),
                str(self.processes), "-1"]


#: An attempt without totals.
NO_TOTALS = Totals()


@cache
def _prlimit() -> str | None:
    return shutil.which("prlimit")


@dataclass(frozen=True)
class Launch:
    exit_code: int | None
    timed_out: bool
    wall_s: float
    stdout_tail: str
    stderr_tail: str
    stderr_scan: str
    stdout_scan: str
    #: Why the disk watcher ended the agent (the box past ``Totals.disk_mb``), else None.
    disk_exceeded: str | None = None


#: Process groups of running agents, so an interrupted run can stop exactly what it started.
LIVE: dict[int, Path] = {}
_LIVE_LOCK = threading.Lock()
#: Set when the run is being stopped: no new agent starts after that.
STOP = threading.Event()

TAIL_CHARS = 4000
SCAN_BYTES = 64 * 1024


def launch(argv: list[str], sb: Sandbox, *, env: dict[str, str], isolation: str, network: bool,
           expose: list[Path], hidden: list[Path], timeout_s: float, stdin_bytes: bytes | None,
           limits: Limits = NO_LIMITS, binds: tuple[Path, ...] = (), totals: Totals = NO_TOTALS) -> Launch:
    """Run one agent process under ``limits`` and ``totals`` to completion or timeout; kill
    everything it started. ``binds``: runner-made paths shown read-only at the same place (see
    :func:`bwrap_args`)."""
    if STOP.is_set():
        raise RunnerError("the run is stopping; no new agent is started")
    out_path, err_path = sb.io / "stdout.log", sb.io / "stderr.log"
    pass_fds: tuple[int, ...] = ()
    args_r = None
    if isolation == "bwrap":
        args_r, args_w = os.pipe()
        payload = b"\0".join(a.encode() for a in bwrap_args(sb.box, network=network, expose=expose, hidden=hidden,
                                                             binds=binds, tmp_mb=totals.tmp_mb)) + b"\0"
        # bwrap reads the pipe before it forks; the arguments are a few kilobytes, well
        # under a pipe's buffer, so writing first cannot block.
        os.write(args_w, payload)
        os.close(args_w)
        pass_fds = (args_r,)
        # the process limit is set inside the namespace: counted for this sandbox alone (Totals)
        argv = [shutil.which("bwrap") or "bwrap", "--args", str(args_r), "--", *totals.inner_prefix(), *argv]
    # Outside bwrap, so the limits hold for the namespace's every process and the agent cannot
    # raise them back (an unprivileged process may only lower a hard limit).
    argv = [*limits.prefix(), *argv]
    stdin_file = None
    if stdin_bytes is not None:
        stdin_path = sb.io / "stdin"
        # 0400: not even its owner may reopen it for writing through /proc/self/fd/0
        fd = os.open(stdin_path, os.O_WRONLY | os.O_CREAT | os.O_EXCL, 0o400)
        os.write(fd, stdin_bytes)
        os.close(fd)
        stdin_file = open(stdin_path, "rb")  # noqa: SIM115 - closed below
        stdin_path.unlink()  # the open descriptor is the only way to the payload now
    ids = host_agent_ids() if isolation == "bwrap" else None
    as_user: dict[str, object] = {}
    if ids is not None:
        hand_over(sb.box)
        as_user = {"user": ids[0], "group": ids[1], "extra_groups": []}
    started = time.perf_counter()
    # 0600 logs: the agent writes them through the descriptors it inherits and cannot reopen
    # them through /proc/self/fd (under bwrap it is another user).
    with _private_file(out_path) as out, _private_file(err_path) as err:
        try:
            proc = subprocess.Popen(
                argv, cwd=sb.box, env=env, stdin=stdin_file if stdin_file else subprocess.DEVNULL,
                stdout=out, stderr=err, start_new_session=True, close_fds=True, pass_fds=pass_fds,
                **as_user,  # type: ignore[arg-type]
            )
        except OSError as exc:
            err.write(f"cannot start the agent: {exc}\n".encode())
            proc = None
        finally:
            if args_r is not None:
                os.close(args_r)
            if stdin_file is not None:
                stdin_file.close()
        timed_out = False
        code: int | None = None
        watcher: _DiskWatcher | None = None
        if proc is not None:
            with _LIVE_LOCK:
                LIVE[proc.pid] = sb.box
                stopping = STOP.is_set()
            if stopping:  # the run was interrupted while this agent was starting
                kill_group(proc.pid)
            if totals.disk_mb:
                watcher = _DiskWatcher(sb.box, totals.disk_mb, proc.pid)
                watcher.start()
            try:
                code = proc.wait(timeout=timeout_s)
            except subprocess.TimeoutExpired:
                timed_out = True
                kill_group(proc.pid)
                code = proc.wait()
            finally:
                # Whatever the agent left running in its group dies with it.
                kill_group(proc.pid)
                if watcher is not None:
                    watcher.stop()
                if isolation == "relocate":
                    sweep(sb.box)
                with _LIVE_LOCK:
                    LIVE.pop(proc.pid, None)
        else:
            code = 127
    wall = time.perf_counter() - started
    return Launch(
        exit_code=None if timed_out else code,
        timed_out=timed_out,
        wall_s=wall,
        stdout_tail=_tail(out_path, TAIL_CHARS),
        stderr_tail=_tail(err_path, TAIL_CHARS),
        stderr_scan=_tail(err_path, SCAN_BYTES),
        stdout_scan=_tail(out_path, SCAN_BYTES),
        disk_exceeded=watcher.exceeded if watcher is not None else None,
    )


def box_usage(box: Path, max_entries: int = MAX_BOX_ENTRIES) -> tuple[int, int]:
    """(bytes allocated, entries) under ``box``: every entry ``lstat``-ed once (``st_blocks``, so a
    sparse file counts what it holds), symlinks never followed, other file systems not entered;
    the walk stops once it has seen more than ``max_entries``."""
    try:
        dev = os.lstat(box).st_dev
    except OSError:
        return 0, 0
    total = entries = 0
    todo = [str(box)]
    while todo and entries <= max_entries:
        try:
            it = os.scandir(todo.pop())
        except OSError:
            continue
        with it:
            for e in it:
                entries += 1
                try:
                    st = e.stat(follow_symlinks=False)
                except OSError:
                    continue
                total += st.st_blocks * 512
                if stat.S_ISDIR(st.st_mode) and st.st_dev == dev:
                    todo.append(e.path)
    return total, entries


class _DiskWatcher(threading.Thread):
    """Measures the box while the agent runs; past the cap it ends the agent's process group."""

    def __init__(self, box: Path, cap_mb: float, pgid: int) -> None:
        super().__init__(daemon=True, name="box-disk-watcher")
        self.box, self.cap, self.pgid = box, int(cap_mb * 2**20), pgid
        self.cap_mb = cap_mb
        self.done = threading.Event()
        self.exceeded: str | None = None

    def run(self) -> None:
        pause = DISK_WATCH_MIN_S
        while not self.done.wait(pause):
            t0 = time.perf_counter()
            used, entries = box_usage(self.box)
            pause = max(DISK_WATCH_MIN_S, DISK_WATCH_FACTOR * (time.perf_counter() - t0))
            if used > self.cap or entries > MAX_BOX_ENTRIES:
                self.exceeded = (f"the agent's working directory held {used / 2**20:.0f} MB in {entries} entries, "
                                 f"past the disk limit of {self.cap_mb:g} MB" if used > self.cap else
                                 f"the agent's working directory held more than {MAX_BOX_ENTRIES} entries")
                kill_group(self.pgid)
                return

    def stop(self) -> None:
        self.done.set()
        self.join(timeout=30)


def _private_file(path: Path):  # type: ignore[no-untyped-def]
    return open(os.open(path, os.O_WRONLY | os.O_CREAT | os.O_TRUNC | os.O_CLOEXEC, 0o600), "wb")


def kill_group(pgid: int) -> None:
    try:
        os.killpg(pgid, signal.SIGKILL)
    except (ProcessLookupError, PermissionError):
        pass


def sweep(box: Path) -> None:
    """Relocate mode: kill processes still working in the box (an agent's child that left
    the process group with setsid is found by its working directory)."""
    me = os.getpid()
    prefix = str(box)
    for entry in os.listdir("/proc"):
        if not entry.isdigit() or int(entry) == me:
            continue
        try:
            cwd = os.readlink(f"/proc/{entry}/cwd")
        except OSError:
            continue
        if cwd == prefix or cwd.startswith(prefix + "/"):
            try:
                os.kill(int(entry), signal.SIGKILL)
            except (ProcessLookupError, PermissionError):
                pass


def kill_all_live() -> None:
    """Stop every agent this process started and has not reaped (on interruption)."""
    STOP.set()
    with _LIVE_LOCK:
        items = list(LIVE.items())
    for pid, box in items:
        kill_group(pid)
        sweep(box)


def _tail(path: Path, n: int) -> str:
    try:
        with open(path, "rb") as f:
            f.seek(0, os.SEEK_END)
            size = f.tell()
            f.seek(max(0, size - n))
            return f.read().decode("utf-8", "replace")
    except OSError:
        return ""
