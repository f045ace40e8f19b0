"""No single case may stop a run (issue 12, items 2, 3 and 5): a solution holding lone UTF-16
surrogates or 5,000-digit integers is recorded and the run goes on; ``--resume`` of such a run
works; an exception while evaluating or recording one case becomes an error record for that
case only."""

from __future__ import annotations

import json

from psab.runner import AgentSpec
from psab.runner.execute import SCORED

from runner_helpers import artifact, by_agent, records, resume_run, run

PY = "/usr/bin/python3"


def _writer(name: str, text: str) -> AgentSpec:
    """An agent that writes ``text`` (ASCII JSON, escapes kept) as its solution."""
    code = f"import sys; open(sys.argv[1], 'w').write({text!r})"
    return AgentSpec(name=name, command=f"{PY} -c {json.dumps(code)} {{solution}}", retry_delay_s=0)


SURROGATES = '{"answer": {"bus_order": ["\\ud800"], "\\udfff": "\\ud800"}, "rationale": "\\ud800"}'
BIG_INT = '{"answer": {"bus_order": ' + "7" * 5000 + '}, "rationale": ' + "7" * 5000 + "}"


def test_surrogates_and_huge_integers_are_recorded_and_the_run_goes_on(tmp_path):
    agents = [_writer("surrogates", SURROGATES), _writer("bigint", BIG_INT), "builtin:reference"]
    report = run(tmp_path, agents)
    recs = by_agent(records(report.run_dir))
    assert set(recs) == {"surrogates", "bigint", "reference"} and report.summary["complete"]
    for name in ("surrogates", "bigint"):
        a = recs[name]["attempts"][0]
        assert a["class"] == SCORED and a["result"]["feasible"] is False, name
        assert "evaluator_error" not in a, a.get("evaluator_error")
        result = json.loads(artifact(report.run_dir, name, name="result.json").read_bytes().decode("utf-8"))
        assert not result["feasible"]
    text = (report.run_dir / "records.jsonl").read_bytes().decode("utf-8")  # strict UTF-8
    assert "\\\\ud800" in text  # the surrogate, escaped as text
    assert "/bus_order" in " ".join(recs["bigint"]["result"]["violations"])
    assert recs["reference"]["result"]["perfect"]
    again = resume_run(report.run_dir)
    assert again.ran == 0 and again.skipped == 3 and again.summary["complete"]


def test_an_exception_while_evaluating_a_case_is_that_cases_error(tmp_path, monkeypatch):
    """The net around evaluate+serialize: the case gets an evaluator-error result."""
    from psab.runner import execute

    real = execute._evaluate

    def broken(task, settings, cls, *args):
        if cls == SCORED:
            raise UnicodeEncodeError("utf-8", "\ud800", 0, 1, "surrogates not allowed")
        return real(task, settings, cls, *args)

    monkeypatch.setattr(execute, "_evaluate", broken)
    report = run(tmp_path, ["builtin:reference", "builtin:silent"])
    recs = by_agent(records(report.run_dir))
    ref = recs["reference"]["attempts"][0]
    assert ref["class"] == SCORED and ref["result"]["feasible"] is False
    assert ref["evaluator_error"].startswith("UnicodeEncodeError")
    assert recs["silent"]["result"] is not None and report.summary["complete"]


def test_a_record_that_cannot_be_written_becomes_an_unrecordable_record(tmp_path, monkeypatch):
    """The net around the record line: the case is recorded (so --resume does not run it into
    the same wall forever) and the run goes on."""
    from psab.runner import store

    real = store.record_line

    def broken(record):
        if record["agent"] == "reference" and "record_error" not in record:
            raise ValueError("cannot serialize")
        return real(record)

    monkeypatch.setattr(store, "record_line", broken)
    report = run(tmp_path, ["builtin:reference", "builtin:silent"])
    recs = by_agent(records(report.run_dir))
    assert set(recs) == {"reference", "silent"} and report.summary["complete"]
    assert recs["reference"]["record_error"] == "ValueError: cannot serialize"
    assert recs["reference"]["result"]["feasible"] is False
    monkeypatch.setattr(store, "record_line", real)
    assert resume_run(report.run_dir).ran == 0
