"""psab.evaluate_many (issue 24, item 1): the same results as evaluate on each pair, byte for
byte, in input order, serially, on warm local workers and on Dask; nothing an agent wrote raises."""

from __future__ import annotations

import json
import random
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

import psab
from psab.errors import InvalidArgumentError, InvalidTaskError, UnknownFamilyError
from psab.evaluators import batch
from psab.evaluators.batch import SolutionText, evaluate_many
from psab.mutations import realistic_mistake

#: A mix of scoring kinds: exact, comply, classify, forecast and optimize (a dispatch LP).
FAMILIES = ("ybus_construction", "three_phase_short_circuit", "en50160_voltage_compliance",
            "power_quality_event_classification", "wind_power_forecast", "microgrid_economic_dispatch",
            "pf_voltage_repair")


class _HostileMapping(dict):  # type: ignore[type-arg]
    """A mapping whose reads raise (an agent's object, not a document)."""

    def get(self, *args: Any, **kwargs: Any) -> Any:
        raise RuntimeError("boom")


def _answers(task: psab.Task) -> list[Any]:
    ref = psab.solve(task)
    out: list[Any] = [ref, ref.to_dict()]
    for seed in range(4):
        m = realistic_mistake(ref.answer, task.submission_schema, task.id, seed=seed)
        if m is not None:
            out.append({"answer": m.answer})
    out += [
        [1, 2, 3], 7, None, {"rationale": "no answer"}, {"answer": "42"}, {"answer": {"x": float("nan")}},
        {"answer": [[[[]]]] * 50}, SolutionText(b"{not json"), SolutionText(b"[" * 100_000),
        SolutionText(json.dumps(ref.to_dict()).encode()), SolutionText(b"\xff\xfe"), _HostileMapping(answer={}),
        {"answer": {"v": 10 ** 400}},
    ]
    return out


@pytest.fixture(scope="module")
def pairs() -> list[tuple[psab.Task, Any]]:
    out = [(psab.get_family(f).public_task(), a) for f in FAMILIES for a in _answers(psab.get_family(f).public_task())]
    random.Random(24).shuffle(out)  # tasks interleaved: order must come from the input, not the grouping
    return out * 6  # several chunks per task at chunk=16


@pytest.fixture(scope="module")
def expected(pairs: list[tuple[psab.Task, Any]]) -> list[str]:
    texts = []
    for task, solution in pairs:
        if isinstance(solution, SolutionText):  # what evaluate says of a file holding these bytes
            texts.append(_evaluate_bytes(task, solution.raw))
        else:
            texts.append(psab.evaluate(task, solution).to_json())
    return texts


def _evaluate_bytes(task: psab.Task, raw: bytes) -> str:
    import tempfile

    with tempfile.NamedTemporaryFile(suffix=".json") as fh:
        fh.write(raw)
        fh.flush()
        return psab.evaluate(task, fh.name).to_json()


@pytest.fixture
def workers() -> Iterator[None]:
    yield
    batch.shutdown_workers()


def test_serial_batch_is_byte_identical_to_evaluate(pairs: list[tuple[psab.Task, Any]], expected: list[str]) -> None:
    got = [r.to_json() for r in psab.evaluate_many(pairs)]
    assert got == expected
    assert any(json.loads(t)["feasible"] for t in got) and not all(json.loads(t)["feasible"] for t in got)


def test_two_workers_are_byte_identical_and_keep_input_order(pairs: list[tuple[psab.Task, Any]], expected: list[str],
                                                             workers: None) -> None:
    first = [r.to_json() for r in evaluate_many(pairs, workers=2, chunk=16)]
    assert first == expected
    # a second call runs on the warm pool, the tasks routed to the workers holding them
    pool = batch._POOLS[(2, "surrogate")]
    homes = dict(pool.home)
    second = [r.to_json() for r in evaluate_many(list(reversed(pairs)), workers=2, chunk=16)]
    assert second == list(reversed(expected))
    assert set(homes) == {t.digest for t, _ in pairs} and set(homes.values()) <= {0, 1}
    assert all(c > 0 for c in pool.cpu_seconds), "both workers did some of the work"


def test_results_follow_input_order_whatever_the_grouping() -> None:
    tasks = [psab.get_family(f).public_task() for f in FAMILIES]
    refs = {t.digest: psab.solve(t) for t in tasks}
    order = [tasks[k % len(tasks)] for k in range(3 * len(tasks))]
    results = evaluate_many([(t, refs[t.digest]) for t in order], workers=1)
    assert [r.task_id for r in results] == [t.id for t in order]
    assert all(r.perfect for r in results)


def test_assignment_routes_every_task_home_and_balances_counts() -> None:
    from collections import OrderedDict

    tasks = [psab.get_family(f).public_task() for f in FAMILIES]
    groups = [batch._Group(t, [(k * 100 + j, None) for j in range(10 + 7 * k)]) for k, t in enumerate(tasks)]
    home: OrderedDict[str, int] = OrderedDict()
    queues = batch._assign(groups, 2, 8, home)
    placed = sorted(pos for q in queues for c in q for _, items in c for pos, _ in items)
    assert placed == sorted(pos for g in groups for pos, _ in g.items)  # every answer exactly once
    assert all(sum(len(items) for _, items in c) <= 8 for q in queues for c in q)
    loads = [sum(len(items) for c in q for _, items in c) for q in queues]
    assert abs(loads[0] - loads[1]) <= 8
    # groups of one chunk or less: a second batch of the same tasks goes to the workers that
    # hold their references, whatever order its groups come in
    home = OrderedDict()
    first = batch._assign(groups, 2, 64, home)
    again = batch._assign(list(reversed(groups)), 2, 64, OrderedDict(home))
    where = [{t.digest: w for w, q in enumerate(qs) for c in q for t, _ in c} for qs in (first, again)]
    assert where[0] == where[1] == dict(home) and set(home.values()) == {0, 1}


def test_caller_errors_raise_as_evaluate_would(tmp_path: Path) -> None:
    task = psab.get_family("ybus_construction").public_task()
    ref = psab.solve(task)
    with pytest.raises(InvalidArgumentError, match="no such solution file"):
        evaluate_many([(task, ref), (task, tmp_path / "missing.json")], workers=2)
    bad = dict(task.to_dict(), family="no_such_family")
    with pytest.raises(UnknownFamilyError):
        evaluate_many([(task, ref), (bad, ref)], workers=2)
    with pytest.raises(InvalidTaskError):
        evaluate_many([({"id": 1}, ref)], workers=2)
    with pytest.raises(InvalidArgumentError, match="pairs"):
        evaluate_many([task], workers=1)
    with pytest.raises(InvalidArgumentError, match="workers"):
        evaluate_many([(task, ref)], workers=0)
    assert batch._POOLS == {}, "no worker was started for a batch with a caller error"


def test_solution_files_are_read_like_evaluate_reads_them(tmp_path: Path) -> None:
    task = psab.get_family("three_phase_short_circuit").public_task()
    (tmp_path / "good.json").write_text(psab.solve(task).to_json())
    (tmp_path / "bad.json").write_bytes(b'{"answer": ')
    files = [tmp_path / "good.json", str(tmp_path / "bad.json")]
    got = [r.to_json() for r in evaluate_many([(task, f) for f in files])]
    assert got == [psab.evaluate(task, f).to_json() for f in files]


def test_dask_is_byte_identical(pairs: list[tuple[psab.Task, Any]], expected: list[str]) -> None:
    distributed = pytest.importorskip("distributed")
    with distributed.LocalCluster(n_workers=2, threads_per_worker=1, processes=True, dashboard_address=None) as cluster, \
            distributed.Client(cluster) as client:
        got = [r.to_json() for r in evaluate_many(pairs, dask=client, chunk=16)]
    assert got == expected


def test_cli_judges_a_jsonl_and_a_directory_in_input_order(tmp_path: Path, capsys: pytest.CaptureFixture[str],
                                                           workers: None) -> None:
    from psab.cli import main
    from psab.paths import case_dir

    case = case_dir("three_phase_short_circuit")
    task = psab.load_case(case)
    ref = psab.solve(task).to_dict()
    docs = [json.dumps(ref), "{broken", json.dumps({"answer": {}}), json.dumps(ref)] * 40
    (tmp_path / "answers.jsonl").write_text("\n".join(docs) + "\n")
    expected = [_evaluate_bytes(task, d.encode() + b"\n") for d in docs]
    for extra in ([], ["--workers", "2"]):
        status = main(["evaluate", str(case), str(tmp_path / "answers.jsonl"), "--json", "--strict", *extra])
        lines = capsys.readouterr().out.splitlines()
        assert [json.loads(line) for line in lines] == [json.loads(t) for t in expected]
        assert status == 4  # the worst verdict: infeasible
    d = tmp_path / "dir"
    d.mkdir()
    for k, doc in enumerate(docs[:4]):
        (d / f"{k:02d}.json").write_text(doc)
    assert main(["evaluate", str(case), str(d), "--json"]) == 0
    got = [json.loads(line) for line in capsys.readouterr().out.splitlines()]
    assert got == [json.loads(psab.evaluate(task, d / f"{k:02d}.json").to_json()) for k in range(4)]


PLAIN_SCRIPT = '''
import json, os, sys
import psab
from psab.evaluators import batch

with open(sys.argv[1], "a") as fh:  # one line per run of this module's top level
    fh.write(f"{os.getpid()}\\n")


class Odd:  # an object of this script's __main__, which the workers never import
    pass


task = psab.get_family("ybus_construction").public_task()
ref = psab.solve(task).to_dict()
pairs = [(task, ref)] * 120 + [(task, {"answer": {"y": Odd()}})] * 40
first = psab.evaluate_many(pairs, workers=2)
second = psab.evaluate_many(pairs, workers=2)  # the workers are up now: this one is sent to them
serial = [psab.evaluate(t, s).to_json() for t, s in pairs]
print(json.dumps({"same": [r.to_json() for r in first] == serial == [r.to_json() for r in second],
                  "worker_cpu": sum(sum(p.cpu_seconds) for p in batch._POOLS.values())}))
'''


def test_workers_from_a_plain_script_without_a_main_guard(tmp_path: Path) -> None:
    """Issue 34, item 1: a research script written without ``if __name__ == "__main__":`` used
    to be re-run by every worker (multiprocessing re-imports the parent's ``__main__``), whose
    own ``evaluate_many`` broke the pool. The script must run once, its workers must do work, and
    the results must equal the serial ones, also for answers holding the script's own objects."""
    import subprocess
    import sys

    script = tmp_path / "plain.py"
    script.write_text(PLAIN_SCRIPT)
    runs = tmp_path / "runs.txt"
    root = str(Path(psab.__file__).resolve().parent.parent)
    proc = subprocess.run([sys.executable, str(script), str(runs)], capture_output=True, text=True, cwd=tmp_path,
                          env={**__import__("os").environ, "PYTHONPATH": root}, timeout=600)
    assert proc.returncode == 0, proc.stderr[-3000:]
    out = json.loads(proc.stdout.strip().splitlines()[-1])
    assert runs.read_text().count("\n") == 1  # the workers did not re-run the script
    assert out["same"]
    assert out["worker_cpu"] > 0  # the second call was evaluated by the workers
