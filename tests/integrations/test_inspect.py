"""psab in inspect-ai (issue 15): a mockllm model scripted to answer the reference scores 1, one
answering garbage scores 0 — offline (usage is set on every scripted output, so inspect never
counts tokens with tiktoken, which would download its encoding) — and a held-out seed never
reaches the log."""

from __future__ import annotations

import json

import pytest

import psab
from psab.paths import case_dir

inspect_ai = pytest.importorskip("inspect_ai", reason="needs the inspect extra: pip install 'psab[inspect]'")

from inspect_ai import eval as inspect_eval  # noqa: E402
from inspect_ai.model import ModelOutput, ModelUsage, get_model  # noqa: E402

from psab.integrations.inspect import psab_dataset, psab_task  # noqa: E402

FAMILY = "ybus_construction"


def _output(text: str) -> ModelOutput:
    out = ModelOutput.from_content(model="mockllm/model", content=text)
    out.usage = ModelUsage(input_tokens=10, output_tokens=10, total_tokens=20)
    return out


def _run(tmp_path, replies, **task_args):
    model = get_model("mockllm/model", custom_outputs=[_output(r) for r in replies])
    (log,) = inspect_eval(psab_task(families=FAMILY, **task_args), model=model, log_dir=str(tmp_path),
                          display="none", max_samples=1, log_format="json")
    assert log.status == "success", log.error
    return log


def _reference_reply(task) -> str:
    sol = psab.solve(task)
    return "Here it is:\n```json\n" + json.dumps({"answer": sol.answer, "rationale": "reference"}) + "\n```"


def test_reference_scores_one(tmp_path):
    log = _run(tmp_path, [_reference_reply(psab.load_case(case_dir(FAMILY)))])
    (sample,) = log.samples
    (score,) = sample.scores.values()
    assert score.value == 1.0 and score.metadata["feasible"] and score.metadata["perfect"]
    assert score.explanation == "no violations"
    # the model saw what psab run gives an agent: the instructions and the task file
    text = sample.messages[1].text
    assert psab.instructions_for(psab.load_case(case_dir(FAMILY))) in text and "submission_schema" in text


@pytest.mark.parametrize("reply", ["I cannot solve this.", '{"answer": {"nonsense": true}}'])
def test_garbage_scores_zero_with_violations(tmp_path, reply):
    log = _run(tmp_path, [reply])
    (score,) = log.samples[0].scores.values()
    assert score.value == 0.0 and not score.metadata["feasible"]
    assert score.metadata["n_violations"] >= 1 and score.explanation != "no violations"


def test_heldout_seed_stays_out_of_args_and_logs(tmp_path, monkeypatch):
    secret = "inspect-private-seed-7f3a"
    monkeypatch.setenv("PSAB_SEED", secret)
    task = psab.generate(FAMILY, secret, 0)
    log = _run(tmp_path, [_reference_reply(task)], split="heldout", count=1)
    (score,) = log.samples[0].scores.values()
    assert score.value == 1.0
    # the log is plain JSON (log_format="json"), so a search of its text is a search of all of it
    blob = "".join(p.read_text(errors="replace") for p in tmp_path.rglob("*") if p.is_file())
    assert '"heldout"' in blob and secret not in blob and "PSAB_SEED" not in json.dumps(log.eval.task_args)


def test_heldout_without_seed_is_refused(monkeypatch):
    from psab.errors import RunnerError

    monkeypatch.delenv("PSAB_SEED", raising=False)
    with pytest.raises(RunnerError, match="PSAB_SEED"):
        psab_dataset(FAMILY, split="heldout")


# ---------------------------------------------------------------- the agentic solver (issue 34, item 4)


def _call(tool: str, **arguments) -> ModelOutput:
    out = ModelOutput.for_tool_call(model="mockllm/model", tool_name=tool, tool_arguments=arguments)
    out.usage = ModelUsage(input_tokens=10, output_tokens=10, total_tokens=20)
    return out


def _agent_run(tmp_path, outputs):
    model = get_model("mockllm/model", custom_outputs=outputs)
    (log,) = inspect_eval(psab_task(families=FAMILY, solver="agent", message_limit=20), model=model,
                          log_dir=str(tmp_path), display="none", max_samples=1, log_format="json")
    assert log.status == "success", log.error
    (sample,) = log.samples
    (score,) = sample.scores.values()
    return sample, score


def _tool_outputs(sample) -> str:
    return "\n".join(m.text for m in sample.messages if m.role == "tool")


def test_agent_reads_the_task_file_and_its_solution_file_is_scored(tmp_path):
    """A scripted agent: ``cat task.json`` with bash, writes the reference answer to
    ``solution.json`` with python, submits — the file it wrote scores 1."""
    answer = psab.solve(psab.load_case(case_dir(FAMILY))).answer
    code = f"import json\njson.dump({{'answer': {answer!r}, 'rationale': 'reference'}}, open('solution.json', 'w'))"
    sample, score = _agent_run(tmp_path, [_call("bash", command="cat task.json; ls"), _call("python", code=code),
                                          _call("submit", answer="solution.json written")])
    tools = _tool_outputs(sample)
    assert "submission_schema" in tools and "instructions.md" in tools  # the task files were in the sandbox
    assert score.value == 1.0 and score.metadata["feasible"] and score.metadata["perfect"]


@pytest.mark.parametrize(("command", "note"), [
    ("echo thinking", "the agent wrote no solution.json"),
    ("printf '{\"answer\": ' > solution.json", ""),
    ("head -c 100 /dev/urandom > solution.json", ""),
])
def test_agent_without_a_readable_solution_scores_zero(tmp_path, command, note):
    sample, score = _agent_run(tmp_path, [_call("bash", command=command), _call("submit", answer="done")])
    assert score.value == 0.0 and not score.metadata["feasible"] and score.metadata["n_violations"] >= 1
    assert score.explanation.startswith(note)


def test_an_unknown_solver_is_refused():
    from psab.errors import RunnerError

    with pytest.raises(RunnerError, match="solver must be one of generate, agent"):
        psab_task(families=FAMILY, solver="react")


# ---------------------------------------------------------------- the inspect_ai entry point (issue 34, item 4)

ROOT = __import__("pathlib").Path(__file__).resolve().parents[2]

EVAL_BY_NAME = """
import sys
from inspect_ai import eval as inspect_eval
from inspect_ai.model import ModelOutput, ModelUsage, get_model

out = ModelOutput.from_content(model="mockllm/model", content="no idea")
out.usage = ModelUsage(input_tokens=10, output_tokens=10, total_tokens=20)  # no tiktoken download
(log,) = inspect_eval("psab/psab_task", task_args={"families": sys.argv[1]}, model=get_model("mockllm/model",
                      custom_outputs=[out]), log_dir=sys.argv[2], display="none")
print(log.status, log.eval.task, len(log.samples))
"""


def _declared_entry_points() -> dict:
    import tomllib

    return tomllib.loads((ROOT / "pyproject.toml").read_text())["project"]["entry-points"]["inspect_ai"]


def test_pyproject_registers_the_tasks_through_the_inspect_ai_entry_point():
    from importlib.metadata import EntryPoint

    from inspect_ai._util.registry import registry_lookup

    eps = _declared_entry_points()
    assert eps == {"psab": "psab._registry"}
    EntryPoint(name="psab", value=eps["psab"], group="inspect_ai").load()
    assert registry_lookup("task", "psab/psab_task") is not None


def test_inspect_finds_psab_psab_task_from_any_directory(tmp_path):
    """``inspect eval psab/psab_task`` resolves the name through the entry point psab's
    distribution declares (written here from pyproject.toml, as pip writes it), in a directory
    that holds no psab source."""
    import subprocess
    import sys

    site = tmp_path / "site"
    dist = site / "psab_entry_point_check-0.dist-info"
    dist.mkdir(parents=True)
    (dist / "METADATA").write_text("Metadata-Version: 2.1\nName: psab-entry-point-check\nVersion: 0\n")
    (dist / "entry_points.txt").write_text("[inspect_ai]\n" + "".join(f"{k} = {v}\n" for k, v in _declared_entry_points().items()))
    elsewhere = tmp_path / "elsewhere"
    elsewhere.mkdir()
    env = {**__import__("os").environ, "PYTHONPATH": f"{site}:{ROOT}"}
    proc = subprocess.run([sys.executable, "-c", EVAL_BY_NAME, FAMILY, str(tmp_path / "logs")], cwd=elsewhere, env=env,
                          capture_output=True, text=True, timeout=600)
    assert proc.returncode == 0, proc.stderr[-3000:]
    assert proc.stdout.split()[-3:] == ["success", "psab-public", "1"]


# ---------------------------------------------------------------- a study (issue 31 item 2)

STUDY = "interconnection_study"


def test_a_study_is_solved_from_its_files_in_the_sandbox(tmp_path):
    """The agentic solver on a study: the sandbox holds study.json and the model files (the
    agent lists and reads them); the reference answer it writes scores 1."""
    task = psab.load_case(case_dir(STUDY))
    answer = json.dumps({"answer": psab.solve(task).answer, "rationale": "reference"})
    model = get_model("mockllm/model", custom_outputs=[
        _call("bash", command="ls -R; grep -m1 '^function' model/pglib_opf_case118_ieee.m; grep -c deliverables study.json"),
        _call("bash", command=f"cat > solution.json <<'EOF'\n{answer}\nEOF\nwc -c solution.json"),
        _call("submit", answer="done")])
    (log,) = inspect_eval(psab_task(families=STUDY, solver="agent", message_limit=20), model=model,
                          log_dir=str(tmp_path), display="none", max_samples=1, log_format="json")
    assert log.status == "success", log.error
    (sample,) = log.samples
    (score,) = sample.scores.values()
    tools = _tool_outputs(sample)
    assert "base_dispatch.csv" in tools and "function mpc = pglib_opf_case118_ieee" in tools
    assert score.value == 1.0 and score.metadata["perfect"], (score.explanation, tools[-2000:])


def test_a_study_needs_the_agentic_solver():
    from psab.errors import InvalidArgumentError

    with pytest.raises(InvalidArgumentError, match="use -T solver=agent"):
        psab_dataset(STUDY)
