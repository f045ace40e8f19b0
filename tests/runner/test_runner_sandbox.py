"""The bwrap sandbox's guarantees (issue 12 items 1 and 4, issue 14 item 14, issue 15): an
unprivileged agent that cannot remount, unshare, trace or write its way out; exposed paths
under /tmp that stay visible; planted canaries no agent can find; clean-up of any tree an
agent leaves, and of sandboxes whose runner died."""

from __future__ import annotations

import json
import os
import secrets
import shutil
import stat
import subprocess
import sys
import tempfile
import time
from pathlib import Path

import pytest

import psab
from psab.errors import RunnerError
from psab.paths import case_dir
from psab.runner import AgentSpec
from psab.runner.execute import SCORED, CaseJob, Settings, run_case
from psab.runner.sandbox import (
    HOST_AGENT_UID,
    SANDBOX_GID,
    SANDBOX_UID,
    UNOWNED_STALE_AFTER_S,
    _rmtree,
    _start_ticks,
    bwrap_args,
    check_expose,
    hidden_roots,
    launch,
    make_sandbox,
    owned_tempdir,
    remove_stale,
    temp_root,
)

from runner_helpers import FAMILY, artifact, by_agent, need_working_bwrap, records, run

PY = "/usr/bin/python3"


def _exposable_dir() -> Path:
    """A directory under /tmp that the sandbox's host user may read (pytest's tmp_path is 0700)."""
    d = Path(tempfile.mkdtemp(prefix="exposed-", dir="/tmp"))
    d.chmod(0o755)
    return d


# ------------------------------------------------------------------- privilege (issue 12.1)

PRIVILEGE_PROBE = r"""
cat /proc/self/status; echo ===; cat /proc/self/uid_map; echo ===
for m in / /etc /usr /sandbox /tmp; do
  mount -o remount,bind,rw "$m" 2>/dev/null && echo "REMOUNTED $m"
  mount -o remount,rw "$m" 2>/dev/null && echo "REMOUNTED-SUPERBLOCK $m"
done
unshare -Ur true 2>/dev/null && echo "UNSHARED"
[ -w /etc ] && echo "WRITABLE-ETC"  # access(2) only: a failing run must not write to the host
echo made > /sandbox/made-by-agent
"""


def test_the_agent_is_an_unprivileged_user_that_cannot_remount():
    """Regression for issue 12.1: run as root, the old sandbox mapped the agent to host uid 0
    with CapEff 000001fffeffffff, and `mount -o remount,bind,rw /etc` succeeded."""
    need_working_bwrap()
    sb = make_sandbox(temp_root(), "bwrap")
    try:
        r = launch(["/bin/sh", "-c", PRIVILEGE_PROBE], sb, env={"PATH": "/usr/sbin:/usr/bin:/sbin:/bin"},
                   isolation="bwrap", network=True, expose=[], hidden=hidden_roots(None), timeout_s=60,
                   stdin_bytes=None)
        assert r.exit_code == 0, r.stderr_tail
        status_text, uid_map, rest = (sb.io / "stdout.log").read_text().split("===\n")
        status = {k: v.split() for k, _, v in (line.partition(":") for line in status_text.splitlines())}
        assert status["Uid"] == [str(SANDBOX_UID)] * 4 and status["Gid"] == [str(SANDBOX_GID)] * 4
        assert SANDBOX_UID != 0
        assert int(status["CapEff"][0], 16) == 0 and int(status["CapPrm"][0], 16) == 0
        assert int(status["CapBnd"][0], 16) == 0 and status["NoNewPrivs"] == ["1"]
        assert uid_map.split()[0] == str(SANDBOX_UID)
        assert "REMOUNTED" not in rest and "UNSHARED" not in rest and "WRITABLE-ETC" not in rest, rest
        # On the host, what the agent made is not root's (and the runner can still read it).
        made = sb.box / "made-by-agent"
        assert made.read_text() == "made\n"
        assert made.stat().st_uid == (HOST_AGENT_UID if os.geteuid() == 0 else os.getuid())
        assert made.stat().st_uid != 0 or os.geteuid() != 0
    finally:
        sb.remove()
    assert not sb.attempt_dir.exists()


def test_bwrap_arguments_drop_privilege_and_mount_exposes_after_tmp(tmp_path):
    expose = [Path("/tmp/some-agent"), Path("/opt/agent")]
    args = bwrap_args(tmp_path, network=True, expose=expose, hidden=[])
    for flag in ("--unshare-user", "--new-session", "--die-with-parent"):
        assert flag in args
    assert args[args.index("--uid") + 1] == str(SANDBOX_UID) != "0"
    assert args[args.index("--gid") + 1] != "0"
    assert args[args.index("--cap-drop") + 1] == "ALL"
    last_private = max(args.index("--proc"), args.index("--dev"), args.index("--tmpfs"))
    for p in expose:
        i = [k for k, a in enumerate(args) if a == str(p) and args[k - 1] == "--ro-bind"]
        assert i and i[0] > last_private, f"{p} is mounted before /tmp, /proc or /dev and would be covered"


@pytest.mark.parametrize("path", ["/proc", "/proc/self", "/dev", "/tmp"])
def test_exposing_what_the_sandbox_mounts_itself_is_refused(path):
    if not Path(path).exists():
        pytest.skip(f"{path} does not exist here")
    with pytest.raises(RunnerError, match="overlaps"):
        check_expose((path,), hidden_roots(None))


def test_a_directory_of_sandboxes_cannot_be_exposed():
    with pytest.raises(RunnerError, match="every attempt's sandbox"):
        check_expose((str(temp_root()),), hidden_roots(None))


def test_an_expose_closed_to_the_sandbox_user_is_a_clear_error(tmp_path):
    if os.geteuid() != 0:
        pytest.skip("only a root runner starts the sandbox as another user")
    closed = tmp_path / "closed"  # pytest's tmp_path root is 0700
    closed.mkdir()
    with pytest.raises(RunnerError, match=f"uid {HOST_AGENT_UID}"):
        check_expose((str(closed),), hidden_roots(None))


# ---------------------------------------------------------------------- expose under /tmp (15)


def test_a_tool_exposed_under_tmp_runs_inside_bwrap(tmp_path, monkeypatch):
    """Issue 15: the exposes were mounted before the sandbox's --tmpfs /tmp, which covered them;
    the agent found its tool missing (exit 127)."""
    need_working_bwrap()
    tools = _exposable_dir()
    try:
        tool = tools / "exposed-tool"
        tool.write_text('#!/bin/sh\necho \'{"answer": null, "rationale": "exposed tool ran"}\'\n')
        tool.chmod(0o755)
        monkeypatch.setenv("PATH", f"{tools}{os.pathsep}{os.environ.get('PATH', '')}")
        agent = AgentSpec(name="tool", command="exposed-tool > {solution}", expose=(str(tools),), retry_delay_s=0)
        report = run(tmp_path, [agent], isolation="bwrap")
        a = by_agent(records(report.run_dir))["tool"]["attempts"][0]
        assert (a["class"], a["exit_code"]) == (SCORED, 0), a["stderr_tail"]
        assert json.loads(artifact(report.run_dir, "tool").read_text())["rationale"] == "exposed tool ran"
    finally:
        shutil.rmtree(tools)


# ----------------------------------------------------------------- escape with canaries (14.14)


@pytest.fixture
def canaries(tmp_path):
    """Unique canary files for this test run in three hidden places: a fake key in the home
    directory, a fake record in a run-like directory, a fake package in a venv-like directory.
    Each file's name and content carry the run's token, so seeing or reading one is unambiguous
    (and an unrelated host file named psab is not)."""
    token = secrets.token_hex(8)
    home_dir = Path.home() / f".canary-{token}"
    run_like = tmp_path / f"run-{token}"
    venv_like = tmp_path / f"venv-{token}"
    files = {
        home_dir / f"key-{token}.json": json.dumps({"canary": token, "kind": "key", "ybus_real_pu": [[1.0]]}),
        run_like / "private" / f"records-{token}.jsonl": json.dumps({"canary": token, "kind": "record"}) + "\n",
        venv_like / "lib" / "python3" / "site-packages" / f"canary_{token}" / "__init__.py": f"CANARY = {token!r}\n",
    }
    (venv_like / "pyvenv.cfg").parent.mkdir(parents=True)
    (venv_like / "pyvenv.cfg").write_text("home = /usr/bin\n")
    for path, text in files.items():
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text(text)
    try:
        yield {"token": token, "paths": list(files), "hidden": (str(run_like), str(venv_like))}
    finally:
        shutil.rmtree(home_dir, ignore_errors=True)


def _escape(isolation: str, canaries: dict, expose: tuple[str, ...] = (), walk: int = 1) -> list[dict]:
    task = psab.load_case(case_dir(FAMILY))
    agent = AgentSpec(name="escape", builtin="escape", timeout_s=300, retry_delay_s=0, expose=expose,
                      options={"walk": walk, "canaries": canaries["token"],
                               "canary_paths": ":".join(str(p) for p in canaries["paths"])})
    job = CaseJob(agent=agent, split="public", index=None, task=task.to_dict(), task_key=None,
                  settings=Settings(isolation=isolation, default_timeout_s=300, extra_hidden=canaries["hidden"]))
    outcome = run_case(job)
    attempt = outcome.record["attempts"][0]
    assert attempt["class"] == SCORED, attempt
    return json.loads(outcome.artifacts["attempt-1/solution.json"])["answer"]["findings"]


def test_escape_under_bwrap_finds_nothing(canaries):
    """The escape agent, run as root in CI, with an exposed directory under /tmp: no canary, no
    hidden path, no privilege, no remount, no namespace, no setuid, no descriptor, no trace, no
    write outside its box."""
    need_working_bwrap()
    exposed = _exposable_dir()
    try:
        (exposed / "tool").write_text("#!/bin/sh\n")
        findings = _escape("bwrap", canaries, expose=(str(exposed),))
        assert sorted(p.name for p in exposed.iterdir()) == ["tool"]
    finally:
        shutil.rmtree(exposed)
    assert findings == [], "\n".join(f"{f['route']}: {f['path']} — {f['why']} {f['detail']}" for f in findings)


def test_escape_under_relocation_finds_the_canaries(canaries):
    """The same agent without a wall does find them: the check can fail, and a finding says
    where and why."""
    findings = _escape("relocate", canaries, walk=0)
    found = {f["path"]: f for f in findings if f["route"] == "canary"}
    for p in canaries["paths"]:
        assert str(p) in found, f"relocation should expose {p}"
        assert found[str(p)]["why"].endswith("readable") and canaries["token"] in found[str(p)]["detail"]


# ---------------------------------------------------------------------- clean-up (issue 12.4)

DEEP_TREE = r"""
import os, sys
open(sys.argv[1], "w").write('{"answer": null}')
os.symlink(sys.argv[2], "link-out")
for i in range(3000):
    os.mkdir("d")
    os.chdir("d")
    if i % 1000 == 999:
        os.symlink(sys.argv[2], "deep-link")
        open("f", "w").write("x")
for i in range(3000):
    os.chdir("..")
    if i % 300 == 0:
        os.chmod("d", 0o500)
os.mkdir("locked")
os.chmod("locked", 0)
"""


def _outside(tmp_path: Path) -> Path:
    outside = tmp_path / "outside"
    outside.mkdir()
    (outside / "keep.txt").write_text("must survive clean-up")
    return outside


def test_a_3000_deep_tree_is_cleaned_up_and_the_case_recorded(tmp_path):
    """Regression for issue 12.4: ``shutil.rmtree`` raised RecursionError on this tree, the run
    exited 1 with no record and left the sandbox behind. Under bwrap, so the tree is the
    sandbox user's and root's clean-up of another user's read-only directories is covered."""
    need_working_bwrap()
    isolation = "bwrap"
    outside = _outside(tmp_path)
    agent = AgentSpec(name="deep", command=(PY, "-c", DEEP_TREE, "{solution}", str(outside)), retry_delay_s=0)
    report = run(tmp_path, [agent], isolation=isolation)
    rec = by_agent(records(report.run_dir))["deep"]
    assert rec["final_class"] == SCORED and report.summary["complete"], rec["attempts"][0]["stderr_tail"]
    assert list(temp_root().glob(f"a-{os.getpid()}-*")) == [], "the sandbox must be gone"
    assert (outside / "keep.txt").read_text() == "must survive clean-up", "a symlink was followed"


def _deep_tree(root: Path, depth: int, outside: Path) -> None:
    """``depth`` nested directories below ``root``, built relative to open descriptors (the
    path is longer than PATH_MAX), some read-only, with symlinks out."""
    fd = os.open(root, os.O_RDONLY | os.O_DIRECTORY)
    for i in range(depth):
        os.mkdir("d", dir_fd=fd)
        os.symlink(str(outside), "out", dir_fd=fd)
        nxt = os.open("d", os.O_RDONLY | os.O_DIRECTORY, dir_fd=fd)
        if i % 700 == 0:
            os.fchmod(fd, 0o500)
        os.close(fd)
        fd = nxt
    os.close(fd)


@pytest.fixture
def fast_dir():
    """A scratch directory in memory where there is one (/dev/shm): a 3,000-deep tree costs
    about 12 s to remove on this machine's disk (4 ms a rmdir) and milliseconds in tmpfs. Not
    pytest's tmp_path: a deep tree left there by a failing test would make pytest's own
    clean-up of old test directories (``shutil.rmtree``) raise RecursionError in later sessions."""
    shm = "/dev/shm" if os.path.isdir("/dev/shm") and os.access("/dev/shm", os.W_OK) else None
    d = Path(tempfile.mkdtemp(prefix="rmtree-test-", dir=shm))
    try:
        yield d
    finally:
        _rmtree(d)


def test_rmtree_is_iterative_and_never_follows_links(fast_dir, tmp_path):
    outside = _outside(tmp_path)
    victim = fast_dir / "victim"
    victim.mkdir()
    _deep_tree(victim, 3000, outside)
    assert _rmtree(victim) is True
    assert not victim.exists() and (outside / "keep.txt").exists()
    link = tmp_path / "link"
    link.symlink_to(outside)
    assert _rmtree(link) is True and not link.exists() and (outside / "keep.txt").exists()


def _dead_pid() -> int:
    p = subprocess.Popen(["true"])
    p.wait()
    return p.pid


def test_stale_sandboxes_are_reclaimed_even_half_deleted(fast_dir, tmp_path):
    root = fast_dir / "sandboxes"
    root.mkdir()
    outside = _outside(tmp_path)
    parent = os.getppid()
    dead = _dead_pid()
    half_deleted = root / f"a-{dead}-halfgone"  # its io/owner already removed
    (half_deleted / "box").mkdir(parents=True)
    _deep_tree(half_deleted / "box", 3000, outside)
    reused = root / f"a-{parent}-reused"  # the pid now names another process
    (reused / "io").mkdir(parents=True)
    (reused / "io" / "owner").write_text(f"{parent} 1")
    live = root / f"a-{parent}-live"
    (live / "io").mkdir(parents=True)
    (live / "io" / "owner").write_text(f"{parent} {_start_ticks(parent)}")
    legacy_old, legacy_new = root / "a-legacyold", root / "a-legacynew"  # older versions' names
    for d in (legacy_old, legacy_new):
        (d / "box").mkdir(parents=True)
    long_ago = time.time() - UNOWNED_STALE_AFTER_S - 60
    os.utime(legacy_old, (long_ago, long_ago))
    assert remove_stale(root) == 3
    assert not half_deleted.exists() and not reused.exists() and not legacy_old.exists()
    assert live.exists() and legacy_new.exists()
    assert (outside / "keep.txt").exists()


def test_fleet_server_and_python_tool_dirs_follow_the_sandboxes_rule(fast_dir, tmp_path):
    """Issue 23: the fleet tool server's ``f-``/``s-`` and the python tool's ``p-`` directories
    left by a killed runner are reclaimed by the rule of the ``a-`` sandboxes, and a live run's
    are kept. A real runner stand-in (a child process) makes one of each kind with
    :func:`owned_tempdir`: kept while it lives, removed once it is killed."""
    root = fast_dir / "sandboxes"
    root.mkdir()
    outside = _outside(tmp_path)
    code = ("import sys, time; from pathlib import Path; from psab.runner.sandbox import owned_tempdir\n"
            "for k in 'fsp': (owned_tempdir(k, Path(sys.argv[1])) / 'box').mkdir()\n"
            "print('ready', flush=True); time.sleep(120)")
    env = {**os.environ, "PYTHONPATH": str(Path(psab.__file__).resolve().parents[1])}
    child = subprocess.Popen([sys.executable, "-c", code, str(root)], stdout=subprocess.PIPE, text=True, env=env)
    try:
        assert child.stdout is not None and child.stdout.readline().strip() == "ready"
        made = sorted(root.iterdir())
        assert [d.name[0] for d in made] == ["f", "p", "s"]
        assert all(d.name.split("-")[1] == str(child.pid) for d in made)
        parent, dead = os.getppid(), _dead_pid()
        dead_dirs = [root / f"f-{dead}-{_start_ticks(parent)}-abc", root / f"p-{dead}-oldname",  # gone; older name
                     root / f"s-{parent}-1-reused"]  # the pid now names another process
        for d in dead_dirs:
            (d / "box").mkdir(parents=True)
        _deep_tree(dead_dirs[0] / "box", 50, outside)
        mine = owned_tempdir("p", root)  # this very process's
        others = [root / f"x-{dead}-notours", root / f"server-{dead}"]  # not a kind of the runner's
        for d in others:
            d.mkdir()
        assert remove_stale(root) == 3
        assert not any(d.exists() for d in dead_dirs)
        assert all(d.exists() for d in [*made, mine, *others])  # the live child's, ours, and strangers'
        child.kill()
        child.wait()
        assert remove_stale(root) == 3  # the child is dead now: its three go
        assert not any(d.exists() for d in made) and mine.exists() and (outside / "keep.txt").exists()
    finally:
        if child.poll() is None:
            child.kill()
            child.wait()


def test_a_later_run_reclaims_a_dead_runs_half_deleted_sandbox(tmp_path):
    stale = temp_root() / f"a-{_dead_pid()}-halfgone{secrets.token_hex(3)}"
    (stale / "box" / "deep").mkdir(parents=True)
    (stale / "box" / "deep" / "ro").mkdir(mode=0o500)
    try:
        run(tmp_path, ["builtin:silent"])
        assert not stale.exists()
    finally:
        if stale.exists():
            _rmtree(stale)


def test_the_box_belongs_to_the_sandbox_user_and_the_runner_still_removes_it():
    if os.geteuid() != 0:
        pytest.skip("only a root runner hands the box to another user")
    need_working_bwrap()
    sb = make_sandbox(temp_root(), "bwrap")
    try:
        (sb.box / "task.json").write_text("{}")
        r = launch(["/bin/sh", "-c", "mkdir -p /sandbox/.config/x && echo ok > /sandbox/.config/x/y && chmod 0 /sandbox/.config"],
                   sb, env={"PATH": "/usr/bin:/bin"}, isolation="bwrap", network=True, expose=[],
                   hidden=hidden_roots(None), timeout_s=60, stdin_bytes=None)
        assert r.exit_code == 0, r.stderr_tail
        assert sb.box.stat().st_uid == HOST_AGENT_UID and (sb.box / "task.json").stat().st_uid == HOST_AGENT_UID
        assert stat.S_IMODE(sb.attempt_dir.stat().st_mode) == 0o711 and stat.S_IMODE(sb.io.stat().st_mode) == 0o700
    finally:
        sb.remove()
    assert not sb.attempt_dir.exists()
