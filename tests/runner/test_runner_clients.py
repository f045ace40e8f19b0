"""Classification of what real clients print (issue 15): every recorded message of llm, aider,
codex and opencode (``fixtures/clients/*.json``, each citing where it comes from) is an
infrastructure failure or the agent's own, as recorded; and a solution file the runner
pre-wrote as a placeholder and the agent left untouched is no solution."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from psab.runner.agents import CLIENT_INFRA_RULES, DEFAULT_INFRA_RULES, agent_from_entry
from psab.runner.execute import AGENT_FAILURE, INFRA_FAILURE, SCORED, classify
from psab.runner.sandbox import Launch

from runner_helpers import by_agent, records, run

FIXTURES = Path(__file__).parent / "fixtures" / "clients"


def _messages():
    for path in sorted(FIXTURES.glob("*.json")):
        data = json.loads(path.read_text(encoding="utf-8"))
        for i, m in enumerate(data["messages"]):
            yield pytest.param(data["client"], m, id=f"{data['client']}-{i}-{m['expect']}")


def _launch(m):
    out = m["text"] if m["stream"] == "stdout" else ""
    err = m["text"] if m["stream"] == "stderr" else ""
    return Launch(exit_code=m["exit_code"], timed_out=False, wall_s=1.0, stdout_tail=out, stderr_tail=err,
                  stdout_scan=out, stderr_scan=err)


def test_every_client_has_recorded_messages_with_sources():
    seen = {json.loads(p.read_text())["client"] for p in FIXTURES.glob("*.json")}
    assert seen == set(CLIENT_INFRA_RULES) == {"llm", "aider", "codex", "opencode"}
    for p in FIXTURES.glob("*.json"):
        msgs = json.loads(p.read_text())["messages"]
        assert {m["expect"] for m in msgs} == {"infra", "agent"}, f"{p.name}: both kinds recorded"
        assert all(m["source"].strip() for m in msgs)


@pytest.mark.parametrize("client, message", list(_messages()))
def test_client_message_is_classified_as_recorded(client, message):
    spec = agent_from_entry("c", {"command": "true", "client": client})
    cls, rule, _ = classify(_launch(message), False, None, spec.infra_rules)
    if message["expect"] == "infra":
        assert cls == INFRA_FAILURE, f"{client}: {message['text']!r} must be retried"
    else:
        assert cls == AGENT_FAILURE, f"{client}: {message['text']!r} matched {rule!r}, but is the agent's own"


@pytest.mark.parametrize("client, text", [
    ("llm", "Error: Connection error.\n"),
    ("codex", "ERROR: We're currently experiencing high demand, which may cause temporary errors.\n"),
    ("opencode", "Error: AI_RetryError: Failed after 3 attempts. Last error: Provider is overloaded\n"),
])
def test_the_defaults_alone_miss_what_the_client_rules_catch(client, text):
    m = {"text": text, "stream": "stderr", "exit_code": 1}
    assert classify(_launch(m), False, None, DEFAULT_INFRA_RULES)[0] == AGENT_FAILURE
    spec = agent_from_entry("c", {"command": "true", "client": client})
    cls, rule, _ = classify(_launch(m), False, None, spec.infra_rules)
    assert cls == INFRA_FAILURE and rule.startswith(client)


def test_default_rules_read_stdout_too():
    m = {"text": "HTTP 502 Bad Gateway\n", "stream": "stdout", "exit_code": 0}
    assert classify(_launch(m), False, None, DEFAULT_INFRA_RULES)[:2] == (INFRA_FAILURE, "server-error")


def test_unknown_client_is_refused():
    from psab.errors import RunnerError

    with pytest.raises(RunnerError, match="known clients"):
        agent_from_entry("c", {"command": "true", "client": "nope"})


def _entry(name, command, **extra):
    return agent_from_entry(name, {"command": command, "placeholder": "{}", "retry_delay_s": 0, **extra})


def test_untouched_placeholder_is_no_solution_and_a_provider_error_beside_it_is_retried(tmp_path):
    """aider exits 0 with the pre-written ``{}`` in place after a 429 (issue 15): retried, not
    scored; left untouched with no provider error it is the agent's failure ``no-solution``;
    an agent that replaces it is scored as usual."""
    lazy = _entry("lazy", "true")
    limited = _entry("limited", "echo 'litellm.RateLimitError: RateLimitError: OpenAIException - Rate limit'", client="aider")
    edits = _entry("edits", 'printf \'{"answer": {}, "rationale": "x"}\' > {solution}')
    recs = by_agent(records(run(tmp_path, [lazy, limited, edits], isolation="relocate").run_dir))
    a = recs["lazy"]["attempts"][0]
    assert (a["class"], a["rule"], recs["lazy"]["n_attempts"]) == (AGENT_FAILURE, "no-solution", 1)
    assert "placeholder" in a["reason"] and recs["lazy"]["result"]["score"] == 0.0
    assert "the placeholder, untouched" in recs["lazy"]["result"]["violations"][0]
    assert [x["class"] for x in recs["limited"]["attempts"]] == [INFRA_FAILURE, INFRA_FAILURE]
    assert recs["limited"]["attempts"][0]["rule"] == "aider-litellm"
    assert recs["edits"]["final_class"] == SCORED


def test_placeholder_is_recorded_and_checked():
    from psab.errors import RunnerError
    from psab.runner.agents import AgentSpec

    spec = _entry("a", "true")
    assert AgentSpec.from_dict(spec.to_dict()) == spec and spec.placeholder == "{}"
    with pytest.raises(RunnerError, match="placeholder"):
        agent_from_entry("a", {"command": "true", "placeholder": 1})
