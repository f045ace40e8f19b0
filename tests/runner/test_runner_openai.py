"""``builtin:openai`` against a stub OpenAI-compatible server on 127.0.0.1 (issue 15): a perfect
model scores 1, garbage is the agent's failure (or a scored zero when it is a JSON object), a
provider's 429 and 500 are infrastructure failures and are retried, a reply that is not a chat
completion is the agent's failure."""

from __future__ import annotations

import json
from dataclasses import replace

import pytest

import psab
from psab.errors import RunnerError
from psab.paths import case_dir
from psab.runner import parse_agent_arg

from openai_stub import stub_server
from runner_helpers import FAMILY, by_agent, need_working_bwrap, records, run


@pytest.fixture
def stub():
    with stub_server() as (url, state):
        task = psab.load_case(case_dir(FAMILY))
        solution = psab.solve(task)
        state.reply = json.dumps({"answer": solution.answer, "rationale": "reference"})
        yield url, state


def _agent(url: str, name: str = "model"):
    spec = parse_agent_arg(f"{name}=builtin:openai,model=stub-model,base_url={url},api_key_env=STUB_KEY,"
                           "request_timeout_s=10")
    return replace(spec, retry_delay_s=0.0)


def _one(tmp_path, url, mode_name, isolation="auto"):
    report = run(tmp_path, [_agent(url)], name=mode_name, isolation=isolation)
    return by_agent(records(report.run_dir))["model"]


@pytest.mark.parametrize("isolation", ["bwrap", "relocate"])
def test_perfect_model_scores_one(tmp_path, stub, isolation):
    if isolation == "bwrap":
        need_working_bwrap()  # the sandbox shares the host's loopback unless --no-network
    url, state = stub
    rec = _one(tmp_path, url, "perfect", isolation)
    assert rec["isolation"] == isolation
    assert rec["final_class"] == "scored" and rec["n_attempts"] == 1
    assert rec["result"]["score"] == 1.0 and rec["result"]["perfect"]
    # one request, carrying the instructions and the task file, and the model the agent named
    (req,) = state.requests
    assert req["model"] == "stub-model"
    text = req["messages"][-1]["content"]
    assert "submission_schema" in text and FAMILY in text


def test_garbage_prose_is_an_agent_failure(tmp_path, stub):
    url, state = stub
    state.mode = "garbage"
    rec = _one(tmp_path, url, "garbage")
    assert rec["final_class"] == "agent_failure" and rec["attempts"][0]["rule"] == "malformed-solution"
    assert rec["n_attempts"] == 1 and rec["result"]["score"] == 0.0


def test_json_that_is_no_answer_is_scored_zero(tmp_path, stub):
    url, state = stub
    state.mode = "wrong"
    rec = _one(tmp_path, url, "wrong")
    assert rec["final_class"] == "scored" and rec["result"]["score"] == 0.0 and not rec["result"]["feasible"]


def test_malformed_reply_is_an_agent_failure(tmp_path, stub):
    url, state = stub
    state.mode = "malformed"
    rec = _one(tmp_path, url, "malformed")
    assert rec["final_class"] == "agent_failure" and rec["attempts"][0]["rule"] == "exit-status"
    assert "malformed reply" in rec["attempts"][0]["stderr_tail"] and len(state.requests) == 1


# builtin:openai goes through the runner's recording proxy (issue 32, item 5): the rule is what
# the proxy saw upstream, not what the agent printed
@pytest.mark.parametrize("status, rule", [("429", "proxy-rate-limit"), ("500", "proxy-server-error")])
def test_provider_errors_are_infrastructure_failures_and_retried(tmp_path, stub, status, rule):
    url, state = stub
    state.mode = status
    rec = _one(tmp_path, url, f"e{status}")
    assert [a["class"] for a in rec["attempts"]] == ["infra_failure", "infra_failure"]
    assert rec["attempts"][0]["rule"] == rule and rec["attempts"][0]["exit_code"] == 75
    assert rec["attempts"][0]["rule_basis"] == "proxy" and f"status {status}" in rec["attempts"][0]["reason"]
    assert rec["attempts"][0]["model_api"]["requests"][0]["status"] == int(status)
    assert len(state.requests) == 2 and rec["result"] is None


def test_a_retry_after_429_scores(tmp_path, stub):
    url, state = stub
    state.mode = "flaky"
    rec = _one(tmp_path, url, "flaky")
    assert [a["class"] for a in rec["attempts"]] == ["infra_failure", "scored"]
    assert rec["result"]["score"] == 1.0


def test_unreachable_server_is_a_transport_failure(tmp_path):
    with stub_server() as (url, _state):
        pass  # closed: nothing listens on that port any more
    rec = _one(tmp_path, url, "down")
    assert rec["attempts"][0]["class"] == "infra_failure" and rec["attempts"][0]["rule"] == "proxy-transport"
    assert rec["attempts"][0]["model_api"]["requests"][0]["status"] is None


def test_options_are_checked_and_the_key_is_passed_by_name():
    spec = parse_agent_arg("builtin:openai,model=m,api_key_env=MY_KEY")
    assert spec.pass_env == ("MY_KEY",) and spec.options["base_url"] == "https://api.openai.com/v1"
    assert "MY_KEY" in json.dumps(spec.to_dict()) and spec.retry_delay_s == 5.0
    for bad in ("builtin:openai", "builtin:openai,model=m,base_url=ftp://x", "builtin:openai,model=m,status=429",
                "builtin:reference,model=m", "builtin:openai,model=m,api_key_env=1X"):
        with pytest.raises(RunnerError):
            parse_agent_arg(bad)
