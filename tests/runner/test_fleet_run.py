"""``psab run --tier fleet``: the reference agent reaches JA = 1 through both tool faces, the weak
agent moves the metrics, the failure classes, retries and resume are the compact tier's, the
agent never sees a key, and the visible-corpus option (PowerBench Table 9) works."""

from __future__ import annotations

import json
import os
from pathlib import Path
from typing import Any

import pytest

pytest.importorskip("duckdb")
pytest.importorskip("pyarrow")

from psab.errors import RunnerError  # noqa: E402
from psab.runner import fleet  # noqa: E402
from psab.runner.agents import parse_agent_arg  # noqa: E402


@pytest.fixture(scope="module")
def world(tmp_path_factory: pytest.TempPathFactory) -> dict[str, Path]:
    """A test-size world and two questions per family, built once (about a second)."""
    from psab.fleet import questions
    from psab.fleet.cli import build_world

    base = tmp_path_factory.mktemp("fleet-world")
    w = base / "world"
    build_world("fleet-run-test", "test", w)
    qs, keys = questions.generate(w, 2)
    questions.write(qs, keys, base / "q", base / "q-keys")
    return {"world": w, "questions": base / "q", "keys": base / "q-keys"}


def _run(world: dict[str, Path], out: Path, *agents: str, workers: int = 1, **kw: Any) -> fleet.FleetReport:
    opts = fleet.FleetOptions(agents=[parse_agent_arg(a) for a in agents], world=str(world["world"]),
                              questions=str(world["questions"]), keys=str(world["keys"]),
                              limit=kw.pop("limit", 1), **kw)
    return fleet.start(opts, out=out, progress="none", workers=workers)


def _records(run_dir: Path) -> list[dict[str, Any]]:
    return [json.loads(x) for x in (run_dir / "records.jsonl").read_text().splitlines() if x.strip()]


def _by_agent(rows: list[dict[str, Any]], agent: str) -> dict[str, Any]:
    return next(r for r in rows if r["agent"] == agent and r["family"] == "ALL")


@pytest.mark.parametrize("face,isolation", [("cli", "auto"), ("mcp", "auto"), ("cli", "relocate")])
def test_reference_reaches_joint_accuracy_one_through_each_face(world: dict[str, Path], tmp_path: Path,
                                                                face: str, isolation: str) -> None:
    rep = _run(world, tmp_path / "run", f"ref=builtin:fleet-reference,face={face}", isolation=isolation)
    recs = _records(tmp_path / "run")
    assert rep.summary["complete"] and len(recs) == 3  # one question of each family
    assert {r["family"] for r in recs} == {"temporal", "contextual", "comparative"}
    for r in recs:
        att = r["attempts"][-1]
        assert r["final_class"] == "scored", att["stderr_tail"]
        fl = att["result"]["fleet"]
        # JA = 1 and the required evidence was returned by the tools themselves (RER = 1)
        assert fl["joint"] and fl["schema_valid"] and fl["rer"] == 1.0, (r["task_id"], att)
        assert att["tools"]["calls"] >= 1 and att["tools"]["errors"] == 0 and not att["tools"]["budget_reached"]
        log = (tmp_path / "run" / "artifacts" / "ref" / r["task_id"] / "attempt-1" / "tools.jsonl").read_text()
        assert len(log.splitlines()) == att["tools"]["calls"] == len(att["tool_calls"])
        first = json.loads(log.splitlines()[0])
        assert att["tool_calls"][0]["tool"] == first["tool"] and json.loads(att["tool_calls"][0]["args"]) == first["args"]
    row = _by_agent(rep.summary["fleet_rows"], "ref")
    assert row["JA"]["mean"] == 1.0 and row["TR"]["mean"] == 1.0


def test_the_quality_blind_agent_answers_level_1_exactly_in_a_sandbox(world: dict[str, Path], tmp_path: Path) -> None:
    """builtin:fleet-quality-blind (issue 36) through the runner: it has no key, executes the
    rules itself and follows the documents, and at level 1 every answer is right."""
    rep = _run(world, tmp_path / "run", "builtin:fleet-quality-blind")
    recs = _records(tmp_path / "run")
    assert rep.summary["complete"] and len(recs) == 3
    for r in recs:
        att = r["attempts"][-1]
        assert r["final_class"] == "scored", att["stderr_tail"]
        assert att["result"]["fleet"]["joint"], (r["task_id"], att["result"])


def test_weak_agent_moves_the_metrics(world: dict[str, Path], tmp_path: Path) -> None:
    rep = _run(world, tmp_path / "run", "builtin:fleet-reference", "builtin:fleet-weak", limit=2)
    rows = rep.summary["fleet_rows"]
    ref, weak = _by_agent(rows, "fleet-reference"), _by_agent(rows, "fleet-weak")
    assert ref["JA"]["mean"] == 1.0
    # the weak agent ranks comparative devices in the question's order without reading any
    # series: it cannot retrieve their required evidence, so its RER and JA must fall
    assert weak["JA"]["mean"] < 1.0 and weak["RER"]["mean"] < ref["RER"]["mean"]
    comp = next(r for r in rows if r["agent"] == "fleet-weak" and r["family"] == "comparative")
    assert comp["RER"]["mean"] == 0.0
    for r in _records(tmp_path / "run"):
        assert r["final_class"] == "scored", r["attempts"][-1]["stderr_tail"]


def test_failure_classes_and_retries_are_the_compact_tiers(world: dict[str, Path], tmp_path: Path) -> None:
    _run(world, tmp_path / "run", "builtin:silent", "builtin:crash", "builtin:provider-error,status=502",
         "builtin:malformed", "builtin:hang", families=["temporal"], timeout_s=3.0, workers=2)
    recs = {r["agent"]: r for r in _records(tmp_path / "run")}
    assert recs["malformed"]["attempts"][0]["rule"] == "malformed-solution"
    assert recs["hang"]["final_class"] == "agent_failure" and recs["hang"]["attempts"][0]["rule"] == "timeout"
    assert recs["hang"]["n_attempts"] == 1  # a timeout is never retried
    assert recs["silent"]["final_class"] == "agent_failure" and recs["silent"]["attempts"][0]["rule"] == "no-solution"
    assert recs["crash"]["final_class"] == "agent_failure" and recs["crash"]["attempts"][0]["rule"] == "exit-status"
    pe = recs["provider-error"]
    assert pe["final_class"] == "infra_failure" and pe["n_attempts"] == 2 and pe["result"] is None
    for name in ("silent", "crash"):
        res = recs[name]["result"]
        assert res["feasible"] is False and res["score"] == 0.0 and res["fleet"]["joint"] is False


def test_resume_runs_only_the_missing_cases(world: dict[str, Path], tmp_path: Path) -> None:
    run = tmp_path / "run"
    _run(world, run, "builtin:fleet-weak")
    lines = (run / "records.jsonl").read_text().splitlines()
    (run / "records.jsonl").write_text(lines[0] + "\n" + lines[1][:20])  # one kept, one torn, one gone
    from psab.runner import run as runner

    rep = runner.resume(run, progress="none")
    assert rep.ran == 2 and rep.skipped == 1 and rep.summary["complete"]
    assert len(_records(run)) == 3


def test_the_agent_sees_the_question_never_the_key(world: dict[str, Path], tmp_path: Path) -> None:
    q = json.loads((world["questions"] / "questions.jsonl").read_text().splitlines()[0])
    view = fleet.question_view(q, "ru")
    assert view["question"] == q["text_ru"] and "answer" not in view and "required_evidence" not in view
    assert not set(view) & {"text_en", "text_ru"}


def test_corpus_size_study_reference_stays_exact(world: dict[str, Path], tmp_path: Path) -> None:
    """PowerBench Table 9: the visible corpus grown; the reference reads its targets, which are
    always visible, so it stays at JA = 1 at every size."""
    for n in (6, 25):
        rep = _run(world, tmp_path / f"run{n}", "builtin:fleet-reference", "builtin:fleet-weak", corpus_devices=n)
        ref = _by_agent(rep.summary["fleet_rows"], "fleet-reference")
        assert ref["JA"]["mean"] == 1.0, n
        assert all(r["corpus_devices"] == n for r in _records(tmp_path / f"run{n}"))


def test_tiers_refuse_each_others_builtins(world: dict[str, Path], tmp_path: Path) -> None:
    with pytest.raises(RunnerError, match="compact tasks"):
        _run(world, tmp_path / "a", "builtin:reference")
    from psab.runner import run as runner

    with pytest.raises(RunnerError, match="--tier fleet"):
        runner.start(runner.RunOptions(agents=[parse_agent_arg("builtin:fleet-reference")]), out=tmp_path / "b")
    with pytest.raises(RunnerError, match="face"):
        _run(world, tmp_path / "c", "builtin:fleet-reference,face=smoke")


@pytest.mark.parametrize("lang", ["en", "ru"])
def test_instructions_name_both_faces_and_the_table7_budgets(world: dict[str, Path], tmp_path: Path,
                                                             lang: str) -> None:
    from psab.fleet.server import serve_attempt, tools_text
    from psab.fleet.tools import Budget

    q = json.loads((world["questions"] / "questions.jsonl").read_text().splitlines()[0])
    paths = {"task": "/sandbox/question.json", "solution": "/sandbox/solution.json", "workdir": "/sandbox",
             "instructions": "/sandbox/instructions.md"}
    with serve_attempt(world["world"], Budget(), None, tmp_path / "log.jsonl", tmp_path) as server:
        text = fleet.instructions(fleet.question_view(q, lang), lang, paths, tools_text(server, lang))
        tool = str(server.bin_dir / "fleet-tool")
    assert q[f"text_{lang}"] in text and tool in text and f"{tool} mcp" in text
    for number in ("50", "240", "500", "1,500,000", "12,000"):  # PowerBench Table 7
        assert number in text, number
    assert "/sandbox/solution.json" in text and "required_evidence" not in text


@pytest.mark.parametrize("short_socket", [False, True])
def test_escape_agent_on_a_fleet_question_finds_nothing_under_bwrap(world: dict[str, Path], tmp_path: Path,
                                                                    monkeypatch: pytest.MonkeyPatch,
                                                                    short_socket: bool) -> None:
    """The compact tier's escape agent on a fleet question, the tool server running beside it:
    no hidden path (psab, the run, the world, the questions, the keys), no 'psab' in its
    environment or in any process it can see, the keys file and world.json unreachable. With
    ``short_socket`` the socket is moved to a short directory of its own (the AF_UNIX path
    limit), so the agent gets the server's variables too: their names must not say 'psab'."""
    from psab.runner.sandbox import bwrap_problem

    if bwrap_problem(True) is not None:
        pytest.skip("bwrap does not work here")
    if short_socket:
        monkeypatch.setattr("psab.fleet.server.MAX_SOCKET_PATH", 0)
    from psab.runner.agents import AgentSpec

    canaries = f"{world['keys'] / 'keys.jsonl'}:{world['world'] / 'world.json'}"
    agent = AgentSpec(name="escape", builtin="escape", timeout_s=300, retry_delay_s=0,
                      options={"walk": 0, "canary_paths": canaries})
    fleet.start(fleet.FleetOptions(agents=[agent], world=str(world["world"]), questions=str(world["questions"]),
                                   keys=str(world["keys"]), limit=1, families=["temporal"], isolation="bwrap"),
                out=tmp_path / "run", progress="none")
    (rec,) = _records(tmp_path / "run")
    assert rec["final_class"] == "scored", rec["attempts"][-1]["stderr_tail"]
    sol = json.loads((tmp_path / "run" / "artifacts" / "escape" / rec["task_id"] / "attempt-1" / "solution.json").read_text())
    findings = sol["answer"]["findings"]
    assert findings == [], "\n".join(f"{f['route']}: {f['path']} — {f['why']} {f['detail']}" for f in findings)


@pytest.mark.parametrize("short_socket", [False, True])
def test_nothing_the_agent_is_given_names_the_benchmark(world: dict[str, Path], tmp_path: Path,
                                                        monkeypatch: pytest.MonkeyPatch, short_socket: bool) -> None:
    """Issue 23: the agent must not learn it is benchmarked by psab from its environment, from
    the ``fleet-tool`` client copied beside it (which it may read), or from the tools' own
    answers. A command agent prints all three; 'psab' must appear in none, whether the socket
    sits beside the client or had to move to a short directory (then found by its variable)."""
    if short_socket:
        monkeypatch.setattr("psab.fleet.server.MAX_SOCKET_PATH", 0)
    template = ("sh=env; cat \"$FLEET_TOOL\"; fleet-tool tools; fleet-tool --help; fleet-tool read ../x; "
                "echo '{\"question_id\": \"x\", \"answer\": {}}' > {solution}")
    _run(world, tmp_path / "run", template, families=["contextual"])
    (rec,) = _records(tmp_path / "run")
    att = rec["attempts"][-1]
    assert rec["final_class"] == "scored", att["stderr_tail"]
    out = (tmp_path / "run" / "artifacts" / "sh" / rec["task_id"] / "attempt-1" / "stdout.txt").read_text()
    # the three parts are there (a vacuous pass on an empty output is not one) ...
    assert "FLEET_TOOL=" in out and "def main(" in out and '"budget"' in out and "'..' is not allowed" in out
    assert ("FLEET_TOOL_SOCKET=" in out) or not short_socket
    assert att["tools"]["calls"] == 1  # the read (the hello is not a tool call)
    # ... and none names the benchmark
    assert "psab" not in out.lower(), [x for x in out.splitlines() if "psab" in x.lower()]


def test_a_command_agent_finds_fleet_tool_on_its_path(world: dict[str, Path], tmp_path: Path) -> None:
    """Any command-line agent: ``fleet-tool`` is first on its PATH inside the sandbox, and its
    calls are in the attempt's log."""
    template = ("sh=fleet-tool search alarm > {workdir}/hits.json && fleet-tool list documents/alarms > /dev/null "
                "&& echo '{\"question_id\": \"x\", \"answer\": {}}' > {solution}")
    _run(world, tmp_path / "run", template, families=["contextual"])
    (rec,) = _records(tmp_path / "run")
    att = rec["attempts"][-1]
    assert rec["final_class"] == "scored", att["stderr_tail"]
    assert att["tools"]["calls"] == 2 and att["tools"]["per_tool"] == {"list_corpus": 1, "search_corpus": 1}
    assert att["result"]["feasible"] is False and att["result"]["fleet"]["schema_valid"] is False


def test_a_tight_call_budget_is_reached_and_counted(world: dict[str, Path], tmp_path: Path) -> None:
    """With two calls a question (PowerBench Table 7 says 50), the reference cannot read the
    3–5 windows of a comparative question: the server refuses the third call, the attempt
    counts as budget-reached (TBR), its retrieved-evidence recall falls below 1 — and its
    answer, taken from the key, is still right: the budget limits retrieval, not the answer."""
    rep = _run(world, tmp_path / "run", "builtin:fleet-reference", families=["comparative"], budget={"calls": 2})
    (rec,) = _records(tmp_path / "run")
    att = rec["attempts"][-1]
    assert att["tools"]["budget_reached"] and att["tools"]["errors"] >= 1
    assert att["result"]["fleet"]["joint"] and att["result"]["fleet"]["rer"] < 1.0
    row = _by_agent(rep.summary["fleet_rows"], "fleet-reference")
    assert row["TBR"]["mean"] == 1.0 and row["TR"]["mean"] < 1.0
    with pytest.raises(RunnerError, match="budget's fields"):
        _run(world, tmp_path / "bad", "builtin:fleet-reference", budget={"cals": 2})


def test_a_dask_cluster_gives_the_records_threads_give(world: dict[str, Path], tmp_path: Path) -> None:
    """Issue 23: ``psab run --tier fleet --dask ADDRESS`` (it used to be refused): each case runs
    whole on a worker process, tool server included; the grades and tool use are those of a
    run on threads, and the CLI passes the address through."""
    import importlib.util

    from conftest import need

    need(importlib.util.find_spec("distributed") is not None, "dask.distributed is not installed (psab[dask])")
    import distributed

    def essence(run: Path) -> list[tuple[Any, ...]]:
        return sorted((r["agent"], r["task_id"], r["final_class"], json.dumps(r["result"], sort_keys=True),
                       r["attempts"][-1]["tools"]["calls"], json.dumps(r["attempts"][-1]["tools"]["per_tool"]))
                      for r in _records(run))

    agents = ("builtin:fleet-reference", "builtin:fleet-weak")
    _run(world, tmp_path / "threads", *agents, workers=2)
    with distributed.LocalCluster(n_workers=2, threads_per_worker=1, processes=True, dashboard_address=":0") as cluster:
        opts = fleet.FleetOptions(agents=[parse_agent_arg(a) for a in agents], world=str(world["world"]),
                                  questions=str(world["questions"]), keys=str(world["keys"]), limit=1)
        rep = fleet.start(opts, out=tmp_path / "dask", progress="none", dask=cluster.scheduler_address)
        worker_pids = {w.pid for w in cluster.workers.values() if hasattr(w, "pid")}
        # --resume --dask: psab.runner.run.resume hands the address on to the fleet tier
        from psab.runner import run as runner

        (tmp_path / "cut").mkdir()
        for name in ("manifest.json", "records.jsonl"):
            (tmp_path / "cut" / name).write_bytes((tmp_path / "dask" / name).read_bytes())
        (tmp_path / "cut" / "records.jsonl").write_text((tmp_path / "dask" / "records.jsonl").read_text().splitlines()[0] + "\n")
        asked: list[str] = []
        real = fleet._dask_client

        def spy(address: str) -> Any:
            asked.append(address)
            return real(address)

        with pytest.MonkeyPatch.context() as mp:
            mp.setattr(fleet, "_dask_client", spy)
            again = runner.resume(tmp_path / "cut", progress="none", dask=cluster.scheduler_address)
        assert asked == [cluster.scheduler_address]
        assert again.ran == 5 and again.skipped == 1 and essence(tmp_path / "cut") == essence(tmp_path / "threads")
    assert rep.summary["complete"] and rep.ran == 6
    assert essence(tmp_path / "dask") == essence(tmp_path / "threads")
    assert _by_agent(rep.summary["fleet_rows"], "fleet-reference")["JA"]["mean"] == 1.0
    assert worker_pids and os.getpid() not in worker_pids  # the cases ran in other processes
    with pytest.raises(RunnerError, match="cannot connect"):
        fleet.start(opts, out=tmp_path / "nowhere", progress="none", dask="tcp://127.0.0.1:9")
    assert not (tmp_path / "nowhere").exists()  # refused before anything is written


def test_the_cli_passes_dask_to_a_fleet_run(world: dict[str, Path], tmp_path: Path, capsys: pytest.CaptureFixture[str],
                                           monkeypatch: pytest.MonkeyPatch) -> None:
    """``psab run --tier fleet --dask ADDRESS`` reaches the scheduler (it used to be refused
    with 'not available for --tier fleet')."""
    from psab.cli import main

    monkeypatch.setattr(fleet, "_dask_client", lambda address: (_ for _ in ()).throw(RunnerError(f"reached {address}")))
    code = main(["run", "--tier", "fleet", "--agent", "builtin:fleet-reference", "--world", str(world["world"]),
                 "--questions", str(world["questions"]), "--dask", "tcp://10.0.0.1:8786", "--out", str(tmp_path / "r")])
    err = capsys.readouterr().err
    assert code != 0 and "reached tcp://10.0.0.1:8786" in err


@pytest.mark.parametrize("what", ["world", "questions", "keys", "parent"])
def test_preflight_refuses_an_expose_over_the_world_before_the_run_exists(world: dict[str, Path], tmp_path: Path,
                                                                          what: str) -> None:
    """Issue 32 (item 9's leftover): an ``expose`` over --world (or the questions, the keys, or a
    directory holding them) was accepted by preflight, the run created, and its first attempt
    died; now preflight refuses it in one line and no run directory is left."""
    from runner_helpers import need_working_bwrap

    need_working_bwrap()
    path = world["world"].parent if what == "parent" else world[what]
    out = tmp_path / "run"
    import dataclasses

    agent = dataclasses.replace(parse_agent_arg("builtin:fleet-reference"), expose=(str(path),))
    opts = fleet.FleetOptions(agents=[agent], world=str(world["world"]), questions=str(world["questions"]),
                              keys=str(world["keys"]), limit=1, isolation="bwrap")
    with pytest.raises(RunnerError, match="overlaps") as info:
        fleet.start(opts, out=out, progress="none")
    assert "\n" not in str(info.value)
    assert not out.exists()
