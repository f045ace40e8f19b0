"""Unit tests of the runner's pure parts: agent specs, infrastructure rules, classification,
instructions, summaries (no agent processes)."""

from __future__ import annotations

import json

import pytest

import psab
from psab.errors import RunnerError
from psab.paths import case_dir
from psab.runner.agents import (
    DEFAULT_INFRA_RULES,
    AgentSpec,
    InfraRule,
    fill,
    load_agents_file,
    parse_agent_arg,
)
from psab.runner.execute import AGENT_FAILURE, INFRA_FAILURE, SCORED, classify
from psab.runner.instructions import instructions
from psab.runner.sandbox import Launch, Limits, agent_env, masks
from psab.runner.summary import aggregate

# ------------------------------------------------------------------------------ agent specs


def test_parse_agent_forms():
    ref = parse_agent_arg("builtin:reference")
    assert (ref.name, ref.builtin, ref.command) == ("reference", "reference", None)
    slow = parse_agent_arg("slow=builtin:reference,sleep=0.5")
    assert (slow.name, slow.builtin, dict(slow.options)) == ("slow", "reference", {"sleep": 0.5})
    cmd = parse_agent_arg("cmd:mine=my-agent {task} {solution}")
    assert (cmd.name, cmd.command) == ("mine", "my-agent {task} {solution}")
    plain = parse_agent_arg("other=opencode run \"$(cat {instructions})\"")
    assert plain.name == "other" and plain.command.startswith("opencode run")


@pytest.mark.parametrize("bad", ["builtin:oracle", "builtin:reference,sleep", "builtin:reference,speed=2",
                                 "builtin:reference,sleep=fast", "cmd:noname", "lonely", "bad name=echo hi",
                                 "x=  "])
def test_parse_agent_rejects(bad):
    with pytest.raises(RunnerError):
        parse_agent_arg(bad)


def test_templates_fill_only_placeholders_and_quote_paths():
    paths = {"task": "/s b/task.json", "instructions": "/s b/i.md", "solution": "/s b/solution.json", "workdir": "/s b"}
    argv = AgentSpec(name="a", command='agent --home ${HOME} "$(cat {instructions})" {solution}').argv(paths, "py", "")
    assert argv[:2] == ["/bin/sh", "-c"]
    assert argv[2] == "agent --home ${HOME} \"$(cat '/s b/i.md')\" '/s b/solution.json'"
    argv = AgentSpec(name="a", command=("agent", "{task}", "--out={solution}")).argv(paths, "py", "")
    assert argv == ["agent", "/s b/task.json", "--out=/s b/solution.json"]
    assert fill("{tasks} {task}", paths) == "{tasks} /s b/task.json"


def test_agents_file_toml_and_json(tmp_path):
    toml = tmp_path / "agents.toml"
    toml.write_text(
        """
[defaults]
timeout_s = 900
pass_env = ["OPENAI_API_KEY"]

[agents.codex]
command = 'codex exec --skip-git-repo-check "$(cat {instructions})"'
retry_delay_s = 30

[agents.direct]
argv = ["my-agent", "{task}", "{solution}"]
timeout_s = 60
default_infra_rules = false
infra_rules = [{ name = "gateway-hiccup", patterns = ["upstream hiccup"], exit_codes = [9] }]

[agents.mut]
builtin = "mutant"
options = { sleep = 0.1 }
"""
    )
    agents = load_agents_file(toml)
    assert list(agents) == ["codex", "direct", "mut"]
    codex = agents["codex"]
    assert codex.timeout_s == 900 and codex.pass_env == ("OPENAI_API_KEY",) and codex.retry_delay_s == 30
    assert [r.name for r in codex.infra_rules] == [r.name for r in DEFAULT_INFRA_RULES]
    direct = agents["direct"]
    assert direct.command == ("my-agent", "{task}", "{solution}") and direct.timeout_s == 60
    assert [r.name for r in direct.infra_rules] == ["gateway-hiccup"]
    assert agents["mut"].builtin == "mutant" and agents["mut"].options == {"sleep": 0.1}
    # the same agents as JSON, and a manifest round trip
    js = tmp_path / "agents.json"
    js.write_text(json.dumps({"agents": {"direct": {"argv": ["my-agent", "{task}"], "timeout_s": 5}}}))
    d = load_agents_file(js)["direct"]
    assert AgentSpec.from_dict(d.to_dict()) == d
    assert AgentSpec.from_dict(codex.to_dict()) == codex


@pytest.mark.parametrize("body", [
    '[agents.x]\ncommand = "a"\ncolour = "red"\n',
    "[agents.x]\ntimeout_s = 5\n",
    '[agents.x]\ncommand = "a"\ninfra_rules = [{ name = "r", patterns = ["(unclosed"] }]\n',
    '[agents.x]\ncommand = "a"\ninfra_rules = [{ name = "r" }]\n',
    '[agents.x]\nbuiltin = "oracle"\n',
    "[defaults]\ntimeout_s = 5\n",
])
def test_agents_file_errors(tmp_path, body):
    p = tmp_path / "agents.toml"
    p.write_text(body)
    with pytest.raises(RunnerError):
        load_agents_file(p)


# ------------------------------------------------------------------------------ infra rules


def _matching_rule(stderr: str, exit_code: int = 1) -> str | None:
    for rule in DEFAULT_INFRA_RULES:
        if rule.matches(exit_code, stderr, ""):
            return rule.name
    return None


@pytest.mark.parametrize(("stderr", "rule"), [
    ("Error: 429 Too Many Requests / rate limit", "rate-limit"),
    ("openai.RateLimitError: Error code: 429 - {'error': {'message': 'Rate limit reached for gpt-4o'}}", "rate-limit"),
    ("You have been rate limited, try again in 20s", "rate-limit"),
    ("You exceeded your current quota, please check your plan and billing details.", "quota"),
    ("google.api_core.exceptions.ResourceExhausted: 429 RESOURCE_EXHAUSTED", "quota"),
    ("Error: request failed: 502 Bad Gateway", "server-error"),
    ("HTTP 503 Service Unavailable", "server-error"),
    ("anthropic.InternalServerError: Error code: 529 - {'type': 'overloaded_error'}", "server-error"),
    ("httpx.ConnectError: [Errno 111] Connection refused", "transport"),
    ("Error: read ECONNRESET", "transport"),
    ("request timed out while connecting to the provider", "transport"),
    ("stream disconnected before completion: error sending request", "transport"),
    ("Error: 401 Unauthorized: invalid api key", "auth"),
])
def test_default_rules_recognise_provider_errors(stderr, rule):
    assert _matching_rule(stderr) == rule


@pytest.mark.parametrize("stderr", [
    "Traceback (most recent call last):\nZeroDivisionError: division by zero",
    "AssertionError: expected 429 rows, got 428",
    "ValueError: ramp rate limit of 5 MW/min violated at step 3",
    "KeyError: 'bus_5029'",
    "error: the schedule has 503 entries",
    "the emission quota is a soft constraint here",
    "",
])
def test_default_rules_leave_agent_errors_alone(stderr):
    assert _matching_rule(stderr) is None


def test_rule_with_code_and_pattern_needs_both():
    rule = InfraRule("hiccup", patterns=("upstream hiccup",), exit_codes=(9,))
    assert rule.matches(9, "upstream hiccup", "")
    assert not rule.matches(1, "upstream hiccup", "")
    assert not rule.matches(9, "something else", "")
    stdout_rule = InfraRule("out", patterns=("quota gone",), streams=("stdout",))
    assert stdout_rule.matches(0, "", "... quota gone ...") and not stdout_rule.matches(0, "quota gone", "")


# ---------------------------------------------------------------------------- classification


def _launch(code=0, timed_out=False, stderr="", stdout=""):
    return Launch(exit_code=code, timed_out=timed_out, wall_s=0.1, stdout_tail=stdout, stderr_tail=stderr,
                  stderr_scan=stderr, stdout_scan=stdout)


R = DEFAULT_INFRA_RULES


@pytest.mark.parametrize(("launch", "present", "parsed", "expected"), [
    # a JSON object after exit 0 is scored, whatever the output says
    (_launch(0, stderr="retrying after 429 Too Many Requests"), True, {"answer": {}}, (SCORED, None)),
    (_launch(0), True, {"no": "answer"}, (SCORED, None)),
    # timeouts are the agent's, even with a provider error in the output
    (_launch(None, True, stderr="Error: 502 Bad Gateway"), False, None, (AGENT_FAILURE, "timeout")),
    (_launch(None, True), True, {"answer": {}}, (AGENT_FAILURE, "timeout")),
    (_launch(3, stderr="ZeroDivisionError"), False, None, (AGENT_FAILURE, "exit-status")),
    (_launch(1), True, {"answer": {}}, (AGENT_FAILURE, "exit-status")),
    (_launch(0), False, None, (AGENT_FAILURE, "no-solution")),
    (_launch(0), True, None, (AGENT_FAILURE, "malformed-solution")),
    (_launch(0), True, [1, 2], (AGENT_FAILURE, "malformed-solution")),
    # provider errors without an acceptable solution are infrastructure failures
    (_launch(1, stderr="Error: 429 Too Many Requests"), False, None, (INFRA_FAILURE, "rate-limit")),
    (_launch(0, stderr="Error: 502 Bad Gateway"), False, None, (INFRA_FAILURE, "server-error")),
    (_launch(1, stderr="Error: 502 Bad Gateway"), True, {"answer": {}}, (INFRA_FAILURE, "server-error")),
    (_launch(75), False, None, (INFRA_FAILURE, "exit-75-tempfail")),
])
def test_classification(launch, present, parsed, expected):
    cls, rule, reason = classify(launch, present, parsed, R)
    assert (cls, rule) == expected
    assert (reason == "") == (cls == SCORED)


def test_classification_uses_the_agents_own_rules():
    mine = (InfraRule("gateway-hiccup", patterns=("upstream hiccup",)),)
    assert classify(_launch(1, stderr="upstream hiccup"), False, None, mine)[:2] == (INFRA_FAILURE, "gateway-hiccup")
    assert classify(_launch(1, stderr="Error: 502 Bad Gateway"), False, None, mine)[:2] == (AGENT_FAILURE, "exit-status")


def test_classification_names_the_limit_that_ended_an_attempt():
    # SIGXFSZ (25) as a signal or as a shell/bwrap reports it (128 + 25), under a file limit
    for code in (-25, 153):
        cls, rule, reason = classify(_launch(code), False, None, R, limits=Limits(file_mb=8))
        assert (cls, rule) == (AGENT_FAILURE, "file-limit") and "8 MB" in reason
        assert classify(_launch(code), False, None, R)[:2] == (AGENT_FAILURE, "exit-status")
    assert "within 42 s" in classify(_launch(None, True), False, None, R, timeout_s=42)[2]


# ------------------------------------------------------------------------------ environment


def test_environment_is_an_allowlist(monkeypatch, tmp_path):
    monkeypatch.setenv("OPENAI_API_KEY", "sk-test")
    monkeypatch.setenv("PSAB_SEED", "private")
    monkeypatch.setenv("AWS_SECRET_ACCESS_KEY", "nope")
    monkeypatch.setenv("LANG", "C.UTF-8")
    venv_bin = tmp_path / "venv" / "bin"
    monkeypatch.setenv("PATH", f"{venv_bin}:/usr/bin:/bin")
    env = agent_env(home="/sandbox", tmpdir="/tmp", pass_env=("OPENAI_API_KEY",), hidden=[tmp_path / "venv"],
                    visible=None)
    assert env["HOME"] == "/sandbox" and env["TMPDIR"] == "/tmp" and env["LANG"] == "C.UTF-8"
    assert env["OPENAI_API_KEY"] == "sk-test"
    assert "PSAB_SEED" not in env and "AWS_SECRET_ACCESS_KEY" not in env
    assert str(venv_bin) not in env["PATH"].split(":") and "/usr/bin" in env["PATH"].split(":")
    assert "OPENAI_API_KEY" not in agent_env(home="/h", tmpdir="/t", pass_env=(), hidden=[], visible=None)


def test_psab_inside_a_visible_tree_is_masked(tmp_path):
    from pathlib import Path

    hidden = [Path("/usr/lib/python3/dist-packages/psab"), Path("/work/repo")]
    got = masks(hidden, [Path("/usr"), Path("/etc")])
    assert Path("/usr/lib/python3/dist-packages/psab") in got and Path("/work/repo") not in got


def test_a_system_prefix_is_not_hidden_wholesale(monkeypatch):
    import sys
    from pathlib import Path

    from psab.runner.sandbox import hidden_roots

    monkeypatch.setattr(sys, "prefix", "/usr")
    monkeypatch.setattr(sys, "base_prefix", "/usr")
    hidden = hidden_roots(None)
    assert Path("/usr") not in hidden and Path("/") not in hidden
    assert Path(psab.__file__).resolve().parent in hidden


def test_psab_named_entries_of_etc_are_found_for_masking(tmp_path):
    """The masks cover psab-named entries of /etc; whether this host has any is not the test's
    business (an unrelated file named psab must not fail the suite, issue 14 item 14)."""
    from psab.runner.sandbox import _psab_named_in_etc

    (tmp_path / "conf.d").mkdir()
    (tmp_path / "conf.d" / "PSAB.conf").write_text("x")
    (tmp_path / "unrelated").write_text("x")
    assert _psab_named_in_etc(str(tmp_path)) == (tmp_path / "conf.d" / "PSAB.conf",)


# ----------------------------------------------------------------------------- instructions


def test_instructions_in_both_languages():
    task = psab.load_case(case_dir("ybus_construction"))
    paths = {"task": "/sandbox/task.json", "instructions": "/sandbox/instructions.md",
             "solution": "/sandbox/solution.json", "workdir": "/sandbox"}
    en = instructions(task, "en", paths)
    ru = instructions(task, "ru", paths)
    for text in (en, ru):
        assert "/sandbox/task.json" in text and "/sandbox/solution.json" in text
        assert '"answer"' in text and '"rationale"' in text
        assert '"ybus_real_pu"' in text  # the submission schema is quoted
    assert task.presentation["en"]["statement"].strip() in en
    assert task.presentation["ru"]["statement"].strip() in ru
    assert "Запишите решение" in ru and "Write your solution" in en
    # Each language lists the hard constraints in its own words, all of them.
    for c in task.hard_constraints:
        assert f"- {c}" in en and c not in ru
    for c in task.presentation["ru"]["hard_constraints"]:
        assert f"- {c}" in ru
    assert "матрицы квадратные" in ru  # ybus_construction's second constraint, in Russian


# --------------------------------------------------------------------------------- summaries


def _rec(agent, classes_scores, split="public"):
    attempts = []
    for cls, feasible, score in classes_scores:
        res = None if cls == INFRA_FAILURE else {"feasible": feasible, "score": score, "perfect": feasible and score == 1.0}
        attempts.append({"class": cls, "result": res})
    return {"agent": agent, "split": split, "attempts": attempts}


def test_summary_with_and_without_retries():
    recs = [
        _rec("a", [(SCORED, True, 1.0)]),
        _rec("a", [(SCORED, True, 0.5)]),
        _rec("a", [(INFRA_FAILURE, False, 0), (SCORED, True, 1.0)]),
        _rec("a", [(INFRA_FAILURE, False, 0), (INFRA_FAILURE, False, 0)]),
        _rec("a", [(AGENT_FAILURE, False, 0.0)]),
        _rec("a", [(SCORED, False, 0.0)], split="heldout"),
    ]
    rows = {(r.split, r.basis): r for r in aggregate(recs, ["a"])}
    first, retries = rows[("public", "first")], rows[("public", "retries")]
    # first attempts: 1.0, 0.5, infra, infra, agent failure → 2 feasible, 1 perfect, mean 1.5/5
    assert (first.cases, first.feasible, first.perfect) == (5, 2, 1)
    assert first.mean_score == pytest.approx(0.3)
    assert (first.infra_failures, first.agent_failures, first.attempts) == (2, 1, 5)
    # with retries the third case is recovered: 3 feasible, 2 perfect, mean 2.5/5; one infra left
    assert (retries.feasible, retries.perfect) == (3, 2)
    assert retries.mean_score == pytest.approx(0.5)
    assert (retries.infra_failures, retries.agent_failures, retries.attempts) == (1, 1, 7)
    held = rows[("heldout", "retries")]
    assert (held.cases, held.feasible, held.mean_score) == (1, 0, 0.0)


# ---------------------------------------------------------------------------------- progress


class _Stream:
    def __init__(self, tty: bool) -> None:
        self.tty, self.text = tty, ""

    def isatty(self) -> bool:
        return self.tty

    def write(self, s: str) -> None:
        self.text += s

    def flush(self) -> None:
        pass


def test_progress_bar_on_a_terminal_lines_otherwise():
    from psab.runner.progress import Progress

    pub_res, held_res = {"feasible": True, "score": 0.5}, {"feasible": False, "score": 0.0}
    pub = {"agent": "a", "split": "public", "task_id": "fam-public", "final_class": SCORED, "n_attempts": 1,
           "attempts": [{"n": 1, "class": SCORED, "result": pub_res}], "result": pub_res}
    held = {"agent": "a", "split": "heldout", "task_id": "fam-heldout-00003", "final_class": AGENT_FAILURE,
            "n_attempts": 1, "attempts": [{"n": 1, "class": AGENT_FAILURE, "result": held_res}], "result": held_res}
    tty = _Stream(True)
    bar = Progress(total=4, done=1, stream=tty)
    bar.update(pub)
    bar.update(held)
    bar.close()
    assert tty.text.startswith("\r[") and "3/4" in tty.text and "mean 0.250" in tty.text
    assert "agent failures 1" in tty.text and tty.text.endswith("\n")
    plain = _Stream(False)
    lines = Progress(total=2, stream=plain)
    lines.update(pub)
    lines.update(held)
    out = plain.text.splitlines()
    assert out[0] == "[1/2] a fam-public: scored, score 0.500; running mean 0.500"
    # a held-out case is reported by count only: no task id, no score of its own
    assert out[1] == "[2/2] a heldout case: agent_failure; running mean 0.250"
