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
