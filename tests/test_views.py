"""What an agent reads: one statement of its presentation level, and the backend that judges it."""

from __future__ import annotations

import dataclasses

import pytest

import psab
from psab.contract import Task
from psab.errors import BackendNotSupportedError, InvalidArgumentError
from psab.evaluators import answer_schema as s
from psab.generators.acceptance import check_level, heldout_task_id
from psab.generators.rng import family_rng
from psab.runner.instructions import instructions
from psab.views import agent_view

from families_under_test import FAMILY_BACKENDS

PATHS = {"task": "/sandbox/task.json", "instructions": "/sandbox/instructions.md",
         "solution": "/sandbox/solution.json", "workdir": "/sandbox"}


@pytest.mark.parametrize(("family", "backend"), FAMILY_BACKENDS)
def test_every_agent_is_told_which_backend_judges_it(family: str, backend: str) -> None:
    spec = psab.get_family(family)
    view = agent_view(spec.public_task(), backend=backend)
    assert view.judging == {"backend": backend, "presentation": "guided"}
    # the view is a valid task artifact and round-trips with its judging record
    again = Task.from_json(view.to_json())
    assert again.judging == view.judging and again.to_json() == view.to_json()
    for lang in ("en", "ru"):
        rule = view.presentation[lang]["judged_by"]
        assert rule and "expert_statement" not in view.presentation[lang]
        text = instructions(view, lang, PATHS)
        assert rule.strip() in text
        assert view.presentation[lang]["statement"].strip() in text
    if spec.judged_by and backend in spec.judged_by:
        assert view.presentation["en"]["judged_by"] == spec.judged_by[backend]["en"]


def test_an_undeclared_backend_or_level_is_refused() -> None:
    spec = psab.get_family("microgrid_economic_dispatch")
    assert "pandapower" not in spec.backends
    with pytest.raises(BackendNotSupportedError):
        agent_view(spec.public_task(), backend="pandapower")
    with pytest.raises(InvalidArgumentError):
        agent_view(spec.public_task(), presentation="terse")
    with pytest.raises(InvalidArgumentError):
        check_level(spec, 0)
    with pytest.raises(InvalidArgumentError):
        check_level(spec, max(spec.levels) + 1)


def test_the_expert_view_carries_only_the_expert_statement() -> None:
    base = psab.get_family("three_phase_short_circuit")
    expert = {"en": {"statement": "Compute I″k max/min, i_p, S″k and I_th by IEC 60909-0:2016."},
              "ru": {"statement": "Рассчитайте I″k max/min, i_p, S″k и I_th по МЭК 60909-0:2016."}}
    spec = dataclasses.replace(base, expert=expert)
    task = spec.make_task(task_id="x-public", split="public", public_inputs=base.public_task().public_inputs)
    assert task.presentation["en"]["expert_statement"] == expert["en"]["statement"]
    try:
        from psab import registry

        registry._REGISTRY[spec.id] = spec
        view = agent_view(task, presentation="expert")
    finally:
        registry._REGISTRY[base.id] = base
    for lang in ("en", "ru"):
        assert view.presentation[lang]["statement"] == expert[lang]["statement"]
        assert base.presentation[lang]["statement"] not in instructions(view, lang, PATHS)
    assert view.judging == {"backend": "surrogate", "presentation": "expert"}


def test_a_spec_refuses_a_half_written_expert_presentation_or_bad_levels() -> None:
    base = psab.get_family("three_phase_short_circuit")
    with pytest.raises(ValueError, match="expert"):
        dataclasses.replace(base, expert={"en": {"statement": "x"}})
    with pytest.raises(ValueError, match="judged_by"):
        dataclasses.replace(base, judged_by={"andes": {"en": "x", "ru": "y"}})
    with pytest.raises(ValueError, match="levels"):
        dataclasses.replace(base, levels=(2, 3))


def test_russian_instructions_word_the_schema_in_russian() -> None:
    schema = s.submission({"p_mw": s.number("active power, MW", ru="активная мощность, МВт")}, "dispatch",
                          ru="диспетчеризация")
    assert s.localized(schema, "ru")["properties"]["p_mw"]["description"] == "активная мощность, МВт"
    assert s.localized(schema, "ru")["title"] == "диспетчеризация"
    en = s.localized(schema, "en")
    assert en["properties"]["p_mw"] == {"type": "number", "description": "active power, MW"}
    assert s.RU not in str(en) and s.RU_TITLE not in str(en)


def test_level_one_keeps_its_stream_and_higher_levels_have_their_own() -> None:
    a = family_rng(7, "ybus_construction", 3).random(4)
    assert (family_rng(7, "ybus_construction", 3, 0, 1).random(4) == a).all()
    b = family_rng(7, "ybus_construction", 3, 0, 2).random(4)
    assert not (a == b).any()
    assert heldout_task_id("f", 3) == "f-heldout-00003"
    assert heldout_task_id("f", 3, 2) == "f-heldout-L2-00003"


def test_the_russian_wording_keeps_the_fast_validation_path() -> None:
    """The wording keywords are annotations: validation treats a worded schema exactly like a
    bare one (same violations), and a worded schema stays on the fast path (a 50 MB string is
    not copied into jsonschema's error text)."""
    from psab.evaluators import validation

    assert {s.RU, s.RU_TITLE} <= validation._FAST_KEYWORDS
    worded = s.submission({"p_mw": s.number("power, MW", minimum=0, ru="мощность, МВт")}, "x", ru="икс")
    bare = s.localized(worded, "en")
    for answer in ({"p_mw": -1}, {"p_mw": "a"}, {}, {"p_mw": 1, "q": 2}):
        assert validation.answer_violations(worded, answer) == validation.answer_violations(bare, answer)
