"""Broken tasks are the caller's error, named by field (issue 32, items 1-4 and 9).

Each test below reproduces one break the issue's adversarial run found on main — a non-psab
exception, a broken task accepted whose own reference then fails, a non-finite tolerance
accepted, a repeated id read as a parallel element, an unbounded list — or one of the smaller
item-9 defects. ``test_the_broken_task_sweep_sample_is_clean`` runs a deterministic sample of
the full sweep (``benchmarks/bench_broken_tasks.py``; ``PSAB_THOROUGH=1`` widens it).
"""

from __future__ import annotations

import copy
import json
import math
import tempfile
import warnings
from pathlib import Path
from typing import Any

import pytest

import psab
from benchmarks import bench_broken_tasks as sweep
from psab.contract import Task
from psab.errors import InvalidArgumentError, InvalidTaskError
from tests.conftest import budget, need_backend
from tests.families_under_test import FAMILIES


def _public(family: str) -> Task:
    return psab.get_family(family).public_task()


def _posed(family: str, edit: Any, *, rebuild: bool = True) -> Task:
    """The public task of ``family`` with ``edit`` applied to a copy of its inputs; the
    submission schema rebuilt from them (as a generator would) or kept (a hand-edited file)."""
    spec = psab.get_family(family)
    public = spec.public_task()
    inputs = copy.deepcopy(public.public_inputs)
    edit(inputs)
    if rebuild:
        return spec.make_task(task_id=public.id, split=public.split, public_inputs=inputs, key=copy.deepcopy(public.key))
    data = public.to_dict()
    data["public_inputs"] = inputs
    return Task.from_dict(data, key=copy.deepcopy(public.key))


def _refused(task: Task, backend: str, pointer: str) -> None:
    """``solve`` and ``evaluate`` both raise InvalidTaskError naming ``pointer``."""
    if backend != "surrogate":
        need_backend(backend)
    with pytest.raises(InvalidTaskError, match=pointer + r"\b"):
        psab.solve(task, backend)
    with pytest.raises(InvalidTaskError, match=pointer + r"\b"):
        psab.evaluate(task, {"answer": {}}, backend)


def _set(path: tuple[Any, ...], value: Any) -> Any:
    def edit(inputs: dict[str, Any]) -> None:
        node = inputs
        for part in path[:-1]:
            node = node[part]
        node[path[-1]] = value
    return edit


def _drop(path: tuple[Any, ...]) -> Any:
    def edit(inputs: dict[str, Any]) -> None:
        node = inputs
        for part in path[:-1]:
            node = node[part]
        del node[path[-1]]
    return edit


def _first(inputs: dict[str, Any], key: str, pred: Any) -> int:
    return next(i for i, x in enumerate(inputs[key]) if pred(x))


# ------------------------------------------------------------------ item 1: non-psab exceptions

#: (family, backend, edit, pointer): the issue's escapes, each now a named InvalidTaskError.
ESCAPES = [
    # TypeError for a null number
    ("pv_volt_var", "surrogate", _set(("inverters", 0, "p_mw"), None), "/inverters/0/p_mw"),
    ("pv_volt_var", "pandapower", _set(("feeder", "base_kv"), None), "/feeder/base_kv"),
    ("ev_v2g_voltage_support", "pandapower", _set(("loads", 1, "p_mw"), None), "/loads/1/p_mw"),
    ("ev_v2g_outage_schedule", "surrogate", _set(("evs", 0, "p_charge_max_kw"), None), "/evs/0/p_charge_max_kw"),
    ("flisr_restoration", "pandapower", _set(("loads", 0, "p_mw"), None), "/loads/0/p_mw"),
    ("operator_breaker_load_actions", "pandapower", _set(("branches", 5, "r_pu"), None), "/branches/5/r_pu"),
    ("operator_breaker_load_actions", "pandapower", _set(("slack_vm_pu",), None), "/slack_vm_pu"),
    # KeyError for a key only the pandapower adapter reads
    ("flisr_restoration", "pandapower", _drop(("branches", 0, "transformer", "vk_percent")),
     "/branches/0/transformer/vk_percent"),
    ("operator_breaker_load_actions", "pandapower", _drop(("branches", 0, "r_pu")), "/branches/0/r_pu"),
    ("operator_breaker_load_actions", "pandapower", _drop(("buses", 1, "vn_kv")), "/buses/1/vn_kv"),
    # a string for a number
    ("pv_volt_var", "surrogate", _set(("loads", 2, "q_mvar"), "1.0"), "/loads/2/q_mvar"),
    ("flisr_restoration", "pandapower", _set(("branches", 9, "rating_ka"), "1.0"), "/branches/9/rating_ka"),
    # zero or 1e-300 bases, voltages, impedances (ZeroDivisionError, FloatingPointError, ...)
    ("pv_volt_var", "surrogate", _set(("feeder", "base_kv"), 1e-300), "/feeder/base_kv"),
    ("flisr_restoration", "surrogate", _set(("base_kv",), 1e-300), "/base_kv"),
    ("operator_breaker_load_actions", "pandapower", _set(("buses", 2, "vn_kv"), 0), "/buses/2/vn_kv"),
    ("ybus_construction", "pandapower", _set(("branches", 8, "r_pu"), 1e-300), "/branches/8/r_pu"),
    ("three_phase_short_circuit", "surrogate", _set(("buses", 0, "vn_kv"), 1e-300), "/buses/0/vn_kv"),
    ("earth_fault_calculation", "pandapower", _set(("transformers", 0, "vn_lv_kv"), 1e-300), "/transformers/0/vn_lv_kv"),
    ("transient_stability_prediction", "surrogate", _set(("base_mva",), 1e-300), "/base_mva"),
    # a negative demand or forecast: an infeasible reference dispatch (SolverError) on main
    ("microgrid_economic_dispatch", "surrogate", _set(("load_mw", 1), -1.0), "/load_mw/1"),
    ("hydro_thermal_storage_uc", "surrogate", _set(("demand_mw", 0), -1.0), "/demand_mw/0"),
    ("dispatch_uncertainty", "surrogate", _set(("load_lower_mw", 0), -1.0), "/load_lower_mw/0"),
]


@pytest.mark.parametrize(("family", "backend", "edit", "pointer"), ESCAPES,
                         ids=[f"{f}-{b}{p}" for f, b, _, p in ESCAPES])
def test_a_broken_number_or_key_is_a_named_caller_error(family: str, backend: str, edit: Any, pointer: str) -> None:
    _refused(_posed(family, edit), backend, pointer)


def test_pandapower_ybus_of_a_purely_resistive_branch_needs_no_converged_power_flow() -> None:
    """ybus_construction, x_pu = 0 on one branch: pandapower's power flow (run only to make it
    assemble Y_bus) does not converge, and main raised LoadflowNotConverged. Y_bus does not
    depend on the operating point: the matrix pandapower assembled is the reference, and the
    surrogate's textbook stamp of the same network scores 1 against it."""
    need_backend("pandapower")
    task = _posed("ybus_construction", _set(("branches", 8, "x_pu"), 0))
    reference = psab.solve(task, "pandapower")
    assert psab.evaluate(task, reference, "pandapower").score == 1.0
    assert psab.evaluate(task, psab.solve(task, "surrogate"), "pandapower").score == 1.0


def test_a_duplicated_bus_is_named_not_a_diverging_power_flow() -> None:
    """transient_stability_prediction with its last bus repeated: PowerFlowDidNotConverge on main."""
    def edit(inputs: dict[str, Any]) -> None:
        inputs["buses"].append(copy.deepcopy(inputs["buses"][-1]))
    n = len(_public("transient_stability_prediction").public_inputs["buses"])
    _refused(_posed("transient_stability_prediction", edit), "surrogate", f"/buses/{n}/id")


def test_a_negative_voltage_measurement_is_named_before_pandapower_estimates() -> None:
    """fdi_state_estimation under pandapower: a pandas KeyError inside the estimator on main."""
    inputs = _public("fdi_state_estimation").public_inputs
    i = _first(inputs, "measurements", lambda m: m["quantity"] == "v_pu")
    task = _posed("fdi_state_estimation", _set(("measurements", i, "value"), -1.03))
    _refused(task, "pandapower", f"/measurements/{i}/value")


# ------------------------------------------------------------------ item 2: tolerances


@pytest.mark.parametrize("value", [math.nan, math.inf, 1e300, 0.0, -1e-3])
@pytest.mark.parametrize("where", [("relative",), ("absolute_floors", "default")])
def test_a_tolerance_must_be_finite_positive_and_bounded(value: float, where: tuple[str, ...]) -> None:
    """``"relative": NaN`` made the exact reference infeasible and ``Infinity`` let a garbage
    answer score 1; both were accepted on main (as was 1e300)."""
    public = _public("ybus_construction")
    data = copy.deepcopy(public.to_dict())
    node = data["tolerances"]
    for part in where[:-1]:
        node = node[part]
    node[where[-1]] = value
    with pytest.raises(InvalidTaskError, match="tolerances"):
        Task.from_dict(data, key=public.key)
    built = Task(**{**{f: getattr(public, f) for f in public.__dataclass_fields__}, "tolerances": data["tolerances"]})
    with pytest.raises(InvalidTaskError, match="tolerances/" + "/".join(where)):
        psab.evaluate(built, {"answer": {}})


@pytest.mark.parametrize("constant", ["NaN", "Infinity", "-Infinity"])
def test_task_json_with_a_non_json_constant_is_refused(constant: str, tmp_path: Path) -> None:
    """Python's json module reads NaN and Infinity; RFC 8259 has neither."""
    public = _public("ybus_construction")
    text = public.to_json().replace('"relative": 0.001', f'"relative": {constant}')
    assert constant in text
    with pytest.raises(InvalidTaskError, match="not valid JSON"):
        Task.from_json(text, key=public.key)
    (tmp_path / "task.json").write_text(text, encoding="utf-8")
    with pytest.raises(InvalidArgumentError, match="not valid JSON"):
        psab.load_case(tmp_path)


def test_the_schema_bounds_every_tolerance_every_family_declares() -> None:
    """The bounds hold the families' own tolerances (so no valid task changes)."""
    from psab.contract import tolerance_problems

    for family in FAMILIES:
        assert tolerance_problems(psab.get_family(family).task_tolerances()) == [], family


# ------------------------------------------------------------------ item 3: accepted, reference fails


def test_one_nwp_value_too_many_is_refused_not_an_evaluator_error() -> None:
    """wind_power_forecast with 25 NWP values for a 24-hour key: IndexError in the evaluator."""
    def edit(inputs: dict[str, Any]) -> None:
        inputs["nwp_wind_speed_m_s"].append(inputs["nwp_wind_speed_m_s"][-1])
    task = _posed("wind_power_forecast", edit)
    with pytest.raises(InvalidTaskError, match="nwp_wind_speed_m_s"):
        psab.evaluate(task, psab.solve(task))


@pytest.mark.parametrize("value", [True, -20.0])
def test_flisr_bus_voltage_must_be_a_positive_number(value: Any) -> None:
    _refused(_posed("flisr_restoration", _set(("buses", 1, "vn_kv"), value)), "pandapower", "/buses/1/vn_kv")


@pytest.mark.parametrize("value", [7, None])
@pytest.mark.parametrize(("family", "path"), [("operator_breaker_load_actions", ("loads", 0, "id")),
                                               ("ev_v2g_voltage_support", ("feeder", "branches", 8, "id")),
                                               ("ev_v2g_voltage_support", ("ev_hubs", 0, "bus"))])
def test_an_id_is_a_string(family: str, path: tuple[Any, ...], value: Any) -> None:
    _refused(_posed(family, _set(path, value)), "surrogate", "/" + "/".join(map(str, path)))


# ------------------------------------------------------------------ item 4: unique ids, bounded lists

#: (family, list path): a list whose ids were read as parallel elements when repeated.
DUPLICATES = [
    ("pv_volt_var", ("feeder", "branches")),
    ("ev_v2g_voltage_support", ("feeder", "branches")),
    ("flisr_restoration", ("branches",)),
    ("flisr_restoration", ("loads",)),
    ("operator_breaker_load_actions", ("branches",)),
    ("operator_breaker_load_actions", ("loads",)),
    ("three_phase_short_circuit", ("lines",)),
    ("breaker_relay_short_circuit", ("transformers",)),
    ("breaker_relay_short_circuit", ("relays",)),
    ("transient_stability_prediction", ("machines",)),
    ("fault_section_localization", ("events",)),
    ("mas_frequency_handover", ("links",)),
    ("protected_meter_placement", ("measurements",)),
]


@pytest.mark.parametrize(("family", "path"), DUPLICATES, ids=[f"{f}-{'/'.join(p)}" for f, p in DUPLICATES])
def test_a_repeated_id_is_named(family: str, path: tuple[str, ...]) -> None:
    def edit(inputs: dict[str, Any]) -> None:
        node: Any = inputs
        for part in path:
            node = node[part]
        node[1]["id"] = node[0]["id"]
    _refused(_posed(family, edit), "surrogate", "/" + "/".join(path) + "/1/id")


@pytest.mark.parametrize("family", FAMILIES)
def test_no_list_of_elements_takes_a_repeated_id(family: str) -> None:
    """Every list of the public case whose items carry an ``id``: the second item given the
    first one's id is refused, in every family."""
    spec = psab.get_family(family)
    public = spec.public_task()
    lists = [p for p, v in sweep.spots(public.public_inputs)
             if isinstance(v, list) and len(v) >= 2 and all(isinstance(x, dict) and "id" in x for x in v)]
    for path in lists:
        def edit(inputs: dict[str, Any], path: tuple[Any, ...] = path) -> None:
            node: Any = inputs
            for part in path:
                node = node[part]
            node[1]["id"] = node[0]["id"]
        with pytest.raises(InvalidTaskError):
            psab.solve(_posed(family, edit))


def _arrays_without_bound(node: Any, where: str = "") -> list[str]:
    out = []
    if isinstance(node, dict):
        if node.get("type") == "array" and "maxItems" not in node:
            out.append(where or "/")
        for k, v in node.items():
            out += _arrays_without_bound(v, f"{where}/{k}")
    elif isinstance(node, list):
        for i, v in enumerate(node):
            out += _arrays_without_bound(v, f"{where}/{i}")
    return out


def _undeclared_lists(schema: Any, value: Any, where: str = "") -> list[str]:
    """Lists of ``value`` (a public case's inputs) that no bounded array of ``schema`` covers."""
    out = []
    if isinstance(schema, dict) and "anyOf" in schema:
        arrays = [b for b in schema["anyOf"] if isinstance(b, dict) and b.get("type") == "array"]
        schema = arrays[0] if isinstance(value, list) and arrays else schema
    if isinstance(value, list):
        if not isinstance(schema, dict) or "maxItems" not in schema:
            out.append(where)
        for i, v in enumerate(value[:3]):
            out += _undeclared_lists(schema.get("items") if isinstance(schema, dict) else None, v, f"{where}/{i}")
    elif isinstance(value, dict):
        for k, v in value.items():
            sub = None
            if isinstance(schema, dict):
                sub = (schema.get("properties") or {}).get(k)
                if sub is None and isinstance(schema.get("additionalProperties"), dict):
                    sub = schema["additionalProperties"]
            out += _undeclared_lists(sub, v, f"{where}/{k}")
    return out


@pytest.mark.parametrize("family", FAMILIES)
def test_every_input_list_has_a_size_bound(family: str) -> None:
    """No list of any family's inputs is unbounded (20,000 lines kept pandapower busy > 120 s):
    every array the input schema declares has a ``maxItems``, and every list of the public
    case is one the schema declares."""
    spec = psab.get_family(family)
    assert spec.inputs_schema is not None
    assert _arrays_without_bound(spec.inputs_schema) == []
    assert _undeclared_lists(spec.inputs_schema, spec.public_task().public_inputs) == []


def test_twenty_thousand_lines_are_refused_before_any_solve() -> None:
    def edit(inputs: dict[str, Any]) -> None:
        inputs["branches"] = [copy.deepcopy(inputs["branches"][0]) for _ in range(20_000)]
    task = _posed("ybus_construction", edit, rebuild=False)
    with pytest.raises(InvalidTaskError, match=r"public_inputs/branches must have at most"):
        psab.solve(task, "pandapower")


# ------------------------------------------------------------------ the sweep, sampled


def test_the_broken_task_sweep_sample_is_clean() -> None:
    """A deterministic sample of the full sweep: for every family, the first spot of each
    mutation kind under the surrogate backend, and under pandapower for the families whose
    adapter broke on main. No non-psab exception, no accepted task whose reference fails, no
    non-finite tolerance accepted. (Times are reported by the script, never asserted here.)"""
    per_kind = budget(1, 4)
    pandapower = ("pv_volt_var", "ev_v2g_voltage_support", "flisr_restoration", "operator_breaker_load_actions")
    bad = []
    for family in FAMILIES:
        backends = ["surrogate"] + (["pandapower"] if family in pandapower else [])
        for backend in backends:
            for case in sweep.cases(family, backend, per_kind):
                o = sweep.run_case(case)
                if o.verdict not in ("refused", "accepted"):
                    bad.append((family, backend, case.kind, case.path, o.verdict, o.detail))
    assert bad == []


# ------------------------------------------------------------------ item 9


def test_building_andes_systems_leaves_no_temporary_directories(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """``andes.config_logger`` made a fresh empty /tmp/andes-* directory on every build."""
    need_backend("andes")
    from psab.backends import andes_tds

    andes_tds.system()  # warm and first build outside the watched directory
    monkeypatch.setattr(tempfile, "tempdir", str(tmp_path))
    andes_tds.system()
    andes_tds.system()
    assert list(tmp_path.glob("andes-*")) == []


def test_a_solution_file_with_a_byte_order_mark_is_read_and_noted(tmp_path: Path) -> None:
    task = _public("ybus_construction")
    answer = psab.solve(task).answer
    path = tmp_path / "solution.json"
    path.write_bytes(b"\xef\xbb\xbf" + json.dumps({"answer": answer}).encode("utf-8"))
    result = psab.evaluate(task, path)
    assert result.score == 1.0
    assert "byte order mark" in " ".join(result.evidence["solution_notes"])
    plain = tmp_path / "plain.json"
    plain.write_text(json.dumps({"answer": answer}), encoding="utf-8")
    assert "solution_notes" not in psab.evaluate(task, plain).evidence


def _at_depth(frames: int, fn: Any) -> Any:
    return fn() if frames == 0 else _at_depth(frames - 1, fn)


def test_a_990_deep_valid_document_parses_whatever_the_callers_stack_depth() -> None:
    """Python's recursion limit counts the caller's frames too: called 200 frames deep, main
    reported a valid 990-deep document as "must be a UTF-8 JSON document"."""
    from psab.io import SolutionProblem, parse_solution_text

    text = '{"answer": {"x": ' + "[" * 990 + "]" * 990 + "}}"
    parsed = _at_depth(200, lambda: parse_solution_text(text))
    assert isinstance(parsed["answer"]["x"], list)
    with pytest.raises(SolutionProblem, match="nested more than"):
        _at_depth(200, lambda: parse_solution_text("[" * 5000 + "]" * 5000))


def test_violations_do_not_echo_a_thousand_value_enum_each() -> None:
    """en50160_voltage_compliance: 50 unknown timestamps, each violation echoing the 1,008
    allowed ones, made a 7 KB answer's result 1.6 MB."""
    task = _public("en50160_voltage_compliance")
    answer = psab.solve(task).answer
    answer["intervals_outside_limits"] = [f"2099-01-01T00:{i:02d}:00Z" for i in range(50)]
    result = psab.evaluate(task, {"answer": answer})
    assert not result.feasible
    size = len(result.to_json())
    assert size < 100_000, size
    expected = result.violations[0].expected
    assert isinstance(expected, list) and "1008 values in all" in expected[-1]


def test_fdi_state_estimation_under_pandapower_prints_no_setting_with_copy_warning() -> None:
    need_backend("pandapower")
    import pandas as pd

    from psab.evaluators.cache import clear_reference_cache

    clear_reference_cache()
    task = _public("fdi_state_estimation")
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        psab.evaluate(task, psab.solve(task, "pandapower"), "pandapower")
    assert [w for w in caught if issubclass(w.category, pd.errors.SettingWithCopyWarning)] == []


# ------------------------------------------------------------------ issue 33: solver refusals that named no field

#: (family, backend, edit, pointer): the broken-task sweep's refusals that were a bare
#: SolverError ("HiGHS ended with status 'Infeasible'"), or a non-psab ValueError from pandapower,
#: on main, and name their field now.
UNNAMED = [
    # a dropped R/X of a feeder: the relays' minimum currents need it (pandapower raised ValueError)
    ("breaker_relay_short_circuit", "surrogate", _drop(("feeders", 0, "rx_min")), "/feeders/0/rx_min"),
    ("breaker_relay_short_circuit", "pandapower", _drop(("feeders", 0, "rx_min")), "/feeders/0/rx_min"),
    # a negative voltage limit (the squared-voltage rows then cannot hold)
    ("flisr_restoration", "surrogate", _set(("v_min_pu",), -1.93), "/v_min_pu"),
    # a unit dropped: the pre-contingency dispatch no longer balances the load
    ("corrective_transmission_switching", "surrogate",
     lambda inputs: inputs["generators"].pop(), "/generators"),
]


@pytest.mark.parametrize(("family", "backend", "edit", "pointer"), UNNAMED,
                         ids=[f"{f}-{b}{p}" for f, b, _, p in UNNAMED])
def test_a_solver_refusal_names_its_field(family: str, backend: str, edit: Any, pointer: str) -> None:
    _refused(_posed(family, edit), backend, pointer)


def test_a_task_with_no_feasible_answer_is_the_callers_error_naming_family_and_backend() -> None:
    """corrective_transmission_switching with branch 7's phase shift made -abs(x)-1 (the sweep's
    'negative'): no redispatch or switching relieves the overload, HiGHS proves the corrective
    MILP infeasible. No single field is at fault; the task is still the caller's error, and the
    message says whose task, under which backend, and that the model is infeasible."""
    from psab.errors import InfeasibleTaskError

    task = _posed("corrective_transmission_switching",
                  lambda x: x["branches"][7].__setitem__("phase_shift_deg", -abs(x["branches"][7]["phase_shift_deg"]) - 1))
    answer = psab.solve(_public("corrective_transmission_switching")).to_dict()  # well-formed: the reference is asked
    for call in (lambda: psab.solve(task), lambda: psab.evaluate(task, answer)):
        with pytest.raises(InvalidTaskError, match=r"corrective_transmission_switching: task .* cannot be judged under "
                                                   r"the surrogate backend: the task has no feasible answer") as info:
            call()
        assert isinstance(info.value, InfeasibleTaskError)
