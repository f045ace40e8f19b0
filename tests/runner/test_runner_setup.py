"""What a run checks and says before it starts (issue 34, items 2 and 3): a run that falls back
to relocation says so in its first line, with what stays open and how to get bwrap, ``make run``
installs bwrap where it can, and a client whose interpreter the sandbox cannot reach is refused
before any attempt (its attempts would all end ``not found``, exit 127)."""

from __future__ import annotations

import json
import os
import re
import shutil
import tempfile
from collections.abc import Iterator
from pathlib import Path

import pytest

from psab.errors import RunnerError
from psab.runner import sandbox
from psab.runner.agents import AgentSpec, check_client_interpreters

from conftest import need_bwrap
from runner_helpers import FAMILY

ROOT = Path(__file__).resolve().parents[2]


def test_make_run_installs_bubblewrap_first() -> None:
    makefile = (ROOT / "Makefile").read_text()
    prereqs = re.search(r"^run:(.*)$", makefile, re.MULTILINE)
    assert prereqs and "system-deps" in prereqs.group(1).split()


def test_a_relocated_run_says_so_in_its_first_line(tmp_path: Path, capsys: pytest.CaptureFixture[str],
                                                   monkeypatch: pytest.MonkeyPatch) -> None:
    from psab.cli import main

    monkeypatch.setitem(sandbox._PROBE, True, "bwrap is not installed")  # as on a machine without it
    code = main(["run", "--agent", "builtin:reference", "--family", FAMILY, "--out", str(tmp_path / "r"),
                 "--progress", "none"])
    captured = capsys.readouterr()
    assert code == 0 and "isolation relocate" in captured.out
    first = captured.err.splitlines()[0]
    assert first == sandbox.relocation_notice("bwrap is not installed")
    for words in ("absolute path", "/proc", "network", "apt-get install bubblewrap", "--isolation bwrap"):
        assert words in first


def test_a_sandboxed_run_prints_no_notice(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    need_bwrap()
    from psab.cli import main

    code = main(["run", "--agent", "builtin:reference", "--family", FAMILY, "--out", str(tmp_path / "r"),
                 "--progress", "none"])
    captured = capsys.readouterr()
    assert code == 0 and "isolation bwrap" in captured.out and "relocate" not in captured.err


@pytest.fixture
def clients() -> Iterator[Path]:
    """Two clients as ``docs/runner.md`` installs them, in a directory the sandbox's host user
    (uid 65534 under a root runner) can read: ``good`` is a venv-like tree whose ``bin/python``
    links to the system interpreter; in ``bad`` it links into a directory the sandbox does not
    show (as a venv made by a pyenv or conda python does), which links on to the system one."""
    base = Path(tempfile.mkdtemp(prefix="clients-", dir="/tmp"))
    os.chmod(base, 0o755)
    python = sandbox.system_python()
    try:
        (base / "interp").mkdir()
        os.symlink(python, base / "interp" / "python3")
        for name, target in (("good", python), ("bad", str(base / "interp" / "python3"))):
            bindir = base / name / "bin"
            bindir.mkdir(parents=True)
            os.symlink(target, bindir / "python")
            tool = bindir / "tool"
            tool.write_text(f"#!{bindir / 'python'}\nprint('started')\n")
            tool.chmod(0o755)
        for d in [base, *base.rglob("*")]:
            if d.is_dir() and not d.is_symlink():
                os.chmod(d, 0o755)
        yield base
    finally:
        shutil.rmtree(base, ignore_errors=True)


def _agent(base: Path, name: str) -> AgentSpec:
    return AgentSpec(name=f"{name}-client", command=f"{base / name / 'bin' / 'tool'} > {{solution}}",
                     expose=(str(base / name),))


def test_the_client_check_agrees_with_a_real_bwrap_launch(clients: Path) -> None:
    """The check's verdict is what bwrap does: the bad client exits 127 inside the sandbox (the
    shell's 'not found'), the good one starts; on the host (relocation) both start."""
    need_bwrap()
    for name, expected in (("good", 0), ("bad", 127)):
        exposed = sandbox.check_expose((str(clients / name),), [])
        sb = sandbox.make_sandbox(sandbox.temp_root(), "bwrap")
        try:
            r = sandbox.launch(["/bin/sh", "-c", str(clients / name / "bin" / "tool")], sb, env={"PATH": "/usr/bin:/bin"},
                               isolation="bwrap", network=False, expose=exposed, hidden=[], timeout_s=60,
                               stdin_bytes=None)
        finally:
            sb.remove()
        assert r.exit_code == expected, (name, r.stderr_tail)
        check_client_interpreters(_agent(clients, name), "relocate")  # on the host both run
    check_client_interpreters(_agent(clients, "good"), "bwrap")
    with pytest.raises(RunnerError) as err:
        check_client_interpreters(_agent(clients, "bad"), "bwrap")
    text = str(err.value)
    assert str(clients / "bad" / "bin" / "tool") in text and str(clients / "interp" / "python3") in text
    assert "/usr/bin/python3 -m venv" in text and "127" in text


def test_a_missing_interpreter_is_refused_in_every_isolation(clients: Path) -> None:
    bindir = clients / "client" / "bin"
    bindir.mkdir(parents=True)
    os.chmod(clients / "client", 0o755)
    os.chmod(bindir, 0o755)
    tool = bindir / "tool"
    tool.write_text("#!/nonexistent/python3\n")
    tool.chmod(0o755)
    agent = AgentSpec(name="gone", command=f"{tool} > {{solution}}", expose=(str(clients / "client"),))
    for isolation in ("bwrap", "relocate"):
        with pytest.raises(RunnerError, match=r"/nonexistent/python3, which does not exist"):
            check_client_interpreters(agent, isolation)


def test_the_cli_refuses_such_a_client_before_the_run_starts(clients: Path, tmp_path: Path,
                                                              capsys: pytest.CaptureFixture[str]) -> None:
    need_bwrap()
    from psab.cli import main

    agents = tmp_path / "agents.toml"
    agents.write_text(f"[agents.bad]\ncommand = '{clients / 'bad' / 'bin' / 'tool'} > {{solution}}'\n"
                      f"expose = ['{clients / 'bad'}']\n")
    out = tmp_path / "run"
    for tier in (["--family", FAMILY], ["--tier", "fleet"]):
        code = main(["run", "--agents-file", str(agents), *tier, "--out", str(out), "--progress", "none"])
        err = capsys.readouterr().err
        assert code != 0 and "psab: error: agent 'bad'" in err and str(clients / "interp" / "python3") in err
        assert not out.exists()  # refused before anything ran or was written


def test_127_is_a_set_up_error_of_the_run_not_an_agent_failure(tmp_path: Path) -> None:
    """An agent whose command the sandbox cannot find (exit 127, no answer) is counted as an
    infrastructure failure of the run's set-up — not against the agent — and is not retried (a
    missing program does not appear on a second try, so exiting 127 earns an agent nothing)."""
    from psab.runner import run
    from psab.runner.execute import AGENT_FAILURE, INFRA_FAILURE, SET_UP_ERROR

    gone = AgentSpec(name="gone", command="/nonexistent/bin/llm > {solution}")
    wrote = AgentSpec(name="wrote", command="cp {task} {solution}; exit 127")  # a JSON object, then 127
    report = run.start(run.RunOptions(agents=[gone, wrote], families=[FAMILY], isolation="relocate"),
                       out=tmp_path / "run", progress="none")
    lines = report.run_dir.joinpath("records.jsonl").read_text().splitlines()
    recs = {r["agent"]: r for r in map(json.loads, lines)}
    a = recs["gone"]
    assert a["final_class"] == INFRA_FAILURE and a["n_attempts"] == 1
    assert a["attempts"][0]["rule"] == SET_UP_ERROR and a["attempts"][0]["exit_code"] == 127
    # a 127 after writing a solution is the agent's own exit status, judged as usual
    assert recs["wrote"]["final_class"] == AGENT_FAILURE and recs["wrote"]["attempts"][0]["rule"] == "exit-status"
