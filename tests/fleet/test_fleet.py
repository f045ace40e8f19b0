"""The fleet tier: rule execution against hand-computed cases, the computed world's physics,
byte identity, the store, questions with keys apart, and grading of hostile answers."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from psab.fleet import catalog, documents, rules, world

pytest.importorskip("duckdb")
pytest.importorskip("pyarrow")

from psab.fleet import grading, questions, store  # noqa: E402

ROOT = Path(__file__).resolve().parents[2]


# ---------------------------------------------------------------- rule execution, by hand


def test_consecutive_point_rule_fires_where_counted_by_hand() -> None:
    # Hand count: threshold 120 °C, 2 consecutive points. Samples >= 120 at indices 2,3,4 (a run
    # of 3 -> fires at index 3, the 2nd point), 6 (run of 1: too short), 8,9 (run of 2 -> fires at 9).
    hs = [100, 119.9, 120, 125, 121, 110, 130, 90, 120, 120, 80]
    ev = rules.events(np.array(hs), ">=", 120.0, 2)
    assert [(e.start, e.fire, e.end, e.length, e.peak) for e in ev] == [(2, 3, 4, 3, 125.0), (8, 9, 9, 2, 120.0)]


def test_single_point_and_below_rules_by_hand() -> None:
    # SF6 density <= 0.90: single point fires at every run start (1, 4); NaN breaks a run.
    x = np.array([0.95, 0.90, 0.89, np.nan, 0.85, 0.91])
    assert [(e.start, e.fire, e.end) for e in rules.events(x, "<=", 0.90, 1)] == [(1, 1, 2), (4, 4, 4)]
    assert rules.events(x, "<=", 0.90, 3) == []
    with pytest.raises(ValueError):
        rules.events(x, "<=", 0.9, 0)


def test_work_order_process_by_hand() -> None:
    """Two alarms of one rule: the second fires while the first's order is open, so it joins it."""
    r = catalog.Rule("K1", "T", "hot_spot_c", "common", (), ("hot_spot_c",), ">=", 120.0, 1, "alarm", "s")
    o, c = world.maintenance_delay_h("D", r.key, 5)
    alarms = [documents.Alarm("A1", "D", r, rules.Event(5, 5, 6, 121.0)),
              documents.Alarm("A2", "D", r, rules.Event(5 + o, 5 + o, 5 + o, 122.0))]
    wos = documents.work_orders("D", alarms, 10_000)
    assert len(wos) == 1 and wos[0].alarms == ["A1", "A2"] and wos[0].opened == 5 + o and wos[0].closed == 5 + o + c


# ---------------------------------------------------------------- catalogue and physics


def test_catalogue_has_100_types_with_units_and_table6_rules() -> None:
    types = catalog.build_catalog()
    assert len(types) == 100 and len({t.type_id for t in types}) == 100  # PowerBench Table 2: 100 types
    for t in types:
        assert all(m.unit for m in t.metrics)
        names = {m.name for m in t.metrics}
        for r in t.rules:
            # an atomic rule targets one of the type's metrics; a derived one names its own series
            assert (r.target_metric in names) != bool(r.derive) and set(r.inputs) <= names and r.consecutive_points >= 1
            assert r.derive in ("",) + rules.DERIVED_KINDS
    n_rules = sum(len(t.rules) for t in types)
    assert abs(n_rules - 2044) / 2044 < 0.05  # PowerBench Table 2: 2,044 rules
    n_metrics = sum(len(t.metrics) for t in types)
    assert abs(n_metrics - 1478) / 1478 < 0.1  # PowerBench Table 2: 1,275 + 203 = 1,478 metrics
    # the split of Table 2's metrics: 1,275 common, 203 special (type-specific)
    n_common = sum(1 for t in types for m in t.metrics if m.object_class == "common")
    assert abs(n_common - 1275) / 1275 < 0.02 and abs((n_metrics - n_common) - 203) / 203 < 0.05
    assert sum(1 for t in types for r in t.rules if r.derive) >= 300
    # every derived kind is used, and derived rules fire on single or consecutive points
    assert {r.derive for t in types for r in t.rules} >= set(rules.DERIVED_KINDS)
    assert {r.consecutive_points > 1 for t in types for r in t.rules if r.derive} == {True, False}


@pytest.fixture(scope="module")
def test_world() -> world.World:
    return world.build("fleet-test", "test")


def test_transformer_telemetry_is_the_iec_difference_equations(test_world: world.World) -> None:
    """Recompute one transformer's hot-spot with a plain loop of IEC 60076-7 eqs. at 3 min."""
    from psab.fleet.world import THERMAL_DT_MIN, _thermal_params

    # a unit without a fan or pump failure (the failed period runs on ONAN / ONAF parameters)
    d = next(d for d in test_world.devices if d.device_class == "transformer" and d.device_id not in test_world.degraded_cooling
             and d.device_id not in test_world.degraded_pumps)
    x = test_world.telemetry[d.device_id]
    p = _thermal_params(test_world.type_of(d).variant)
    k, ta = np.repeat(x["load_pu"], 20), np.repeat(x["ambient_c"], 20)
    o = ta[0] + ((1 + k[0] ** 2 * p.r) / (1 + p.r)) ** p.x * p.delta_theta_or_k
    h1, h2 = p.k21 * p.h_gr_k * k[0] ** p.y, (p.k21 - 1) * p.h_gr_k * k[0] ** p.y
    dt = THERMAL_DT_MIN
    hot = []
    for kn, an in zip(k, ta, strict=True):
        o += dt / (p.k11 * p.tau_o_min) * (((1 + kn * kn * p.r) / (1 + p.r)) ** p.x * p.delta_theta_or_k - (o - an))
        h1 += dt / (p.k22 * p.tau_w_min) * (p.k21 * p.h_gr_k * kn ** p.y - h1)
        h2 += dt / (p.tau_o_min / p.k22) * ((p.k21 - 1) * p.h_gr_k * kn ** p.y - h2)
        hot.append(o + h1 - h2)
    np.testing.assert_allclose(x["hot_spot_c"], np.array(hot)[19::20], atol=1e-3)
    # loss of life accumulates the relative ageing rate (§6.3): increments equal V
    np.testing.assert_allclose(np.diff(x["loss_of_life_h"]), x["ageing_rate_pu"][1:], atol=2e-4)


def test_chain_properties(test_world: world.World) -> None:
    tel = test_world.telemetry
    for d in test_world.devices:
        s = tel[d.device_id]
        if d.device_class == "battery":
            assert s["soc_pu"].min() >= 0.05 - 1e-9 and s["soc_pu"].max() <= 1.0 + 1e-9
        if d.device_class == "pv_inverter":
            night = s["irradiance_wm2"] == 0
            assert night.any() and np.all(s["ac_power_kw"][night] == 0)
        if d.device_class == "breaker":
            assert np.all(np.diff(s["operations_total"]) >= 0)
    assert len(test_world.devices) >= 20 and test_world.hours == 21 * 24


def test_same_seed_same_bytes_and_different_seed_differs(tmp_path: Path) -> None:
    digests = []
    for i, seed in enumerate(("a", "a", "b")):
        w = world.build(seed, "tiny")
        store.write_world(w, tmp_path / str(i), documents.generate(w))
        digests.append(store.tree_digest(tmp_path / str(i)))
    assert digests[0] == digests[1] != digests[2]
    w = world.build("a", "tiny")
    store.write_world(w, tmp_path / "workers", documents.generate(w), workers=2)
    assert store.tree_digest(tmp_path / "workers") == digests[0]  # sharded writing: same bytes


# ---------------------------------------------------------------- store, questions, grading


@pytest.fixture(scope="module")
def stored(tmp_path_factory: pytest.TempPathFactory) -> Path:
    out = tmp_path_factory.mktemp("world")
    w = world.build("fleet-test", "test")
    store.write_world(w, out, documents.generate(w))
    return out


def test_store_window_read_and_manifest(stored: Path) -> None:
    d = "TRA-0001"
    x = store.read_window(stored, d, "2024-07-02T00:00:00Z", "2024-07-02T05:00:00Z", ["hot_spot_c"])
    full = store.read_device(stored, d)
    assert list(x["ts"]) == [f"2024-07-02T0{h}:00:00Z" for h in range(5)]
    np.testing.assert_array_equal(x["hot_spot_c"], full["hot_spot_c"][24:29])
    man = store.read_manifest(stored)
    assert all((stored / m["path"]).is_file() for m in man)
    ids = {m["doc_id"] for m in man}
    # documents refer to each other: every alarm names a work order that exists
    for m in man:
        if m["kind"] == "alarm":
            assert m["refs"][0] in ids
    with pytest.raises(KeyError):
        store.read_window(stored, "NOPE-1")


def test_questions_truth_matches_documents_and_keys_apart(stored: Path, tmp_path: Path) -> None:
    qs, keys = questions.generate(stored, 6)
    fams = {q["family"] for q in qs}
    # without the world's seed there is no causal question (its keys come from the chain)
    assert fams == set(questions.FAMILIES) - {"causal"}
    for q in qs:
        assert "answer" not in q and q["text_ru"] and q["text_en"]
    man = {m["doc_id"]: m for m in store.read_manifest(stored)}
    for q, k in zip(qs, keys, strict=True):
        assert k["required_evidence"] and all(r in k["available_evidence"] for r in k["required_evidence"])
        if k["family"] == "contextual":
            # the key was computed from the rules; the documents (written independently) agree
            wo = (stored / man[k["answer"]["work_order_id"]]["path"]).read_text()
            assert k["answer"]["cause"] in wo and k["answer"]["closed_at"] in wo
        if k["family"] == "comparative":
            assert 3 <= len(q["targets"]) <= 5 and sorted(k["answer"]["ranking"]) == sorted(q["targets"])
        if k["family"] == "temporal":
            dev = q["targets"][0]
            rid = q["rule"].split(".")[-1]
            cfg = json.loads((stored / man[dev]["path"]).read_text())
            assert rid in cfg["applicable_rules"]
    questions.write(qs, keys, tmp_path / "q", tmp_path / "k")
    assert "work_order_id\": \"WO" not in (tmp_path / "q" / "questions.jsonl").read_text()


def test_grading_perfect_partial_and_hostile(stored: Path) -> None:
    qs, keys = questions.generate(stored, 4)
    perfect = [{"question_id": k["question_id"], "answer": k["answer"], "evidence": k["available_evidence"]} for k in keys]
    res = grading.grade(keys, perfect, resamples=200)
    assert res["macro_joint_accuracy"] == 1.0
    for fam in res["families"].values():
        assert fam["retrieved_evidence_recall"]["mean"] == 1.0 and fam["available_evidence_recall"]["mean"] == 1.0
    hostile: list = [None, 3, "x", {"question_id": keys[0]["question_id"], "answer": [1], "evidence": "no"},
                     {"question_id": keys[1]["question_id"], "answer": {"first_fire_time": 1e308, "ranking": [None]},
                      "evidence": [None, {"kind": "series", "device_id": [], "start": "x" * 10**6}]}]
    res = grading.grade(keys, hostile, resamples=50)
    assert res["macro_joint_accuracy"] == 0.0
    assert all(not r["schema_valid"] and r["infeasible"] for r in res["per_question"])
    # one field wrong: joint fails, field accuracy counts the rest
    k = next(k for k in keys if k["family"] == "temporal")
    bad = dict(k["answer"], fire_count=k["answer"]["fire_count"] + 1)
    one = grading.grade_one(k, {"question_id": k["question_id"], "answer": bad, "evidence": []})
    assert one["schema_valid"] and not one["joint"] and one["field_accuracy"] == pytest.approx(2 / 3) and one["rer"] == 0.0


def test_cli_build_and_questions(tmp_path: Path) -> None:
    env_py = [sys.executable, "-m", "psab.cli", "fleet"]
    import os

    env = dict(os.environ, PYTHONPATH=str(ROOT))
    subprocess.run(env_py + ["build", "--size", "tiny", "--seed", "1", "--out", str(tmp_path / "w")], check=True, env=env,
                   capture_output=True)
    subprocess.run(env_py + ["questions", "--world", str(tmp_path / "w"), "--out", str(tmp_path / "q"), "--keys-out",
                             str(tmp_path / "k"), "--per-family", "2"], check=True, env=env, capture_output=True)
    assert (tmp_path / "q" / "questions.jsonl").is_file() and (tmp_path / "k" / "keys.jsonl").is_file()
    keys = [json.loads(x) for x in (tmp_path / "k" / "keys.jsonl").read_text().splitlines()]
    ans = tmp_path / "a.jsonl"
    ans.write_text("not json\n" + json.dumps({"question_id": keys[0]["question_id"], "answer": keys[0]["answer"],
                                               "evidence": keys[0]["required_evidence"]}) + "\n")
    r = subprocess.run(env_py + ["grade", "--keys", str(tmp_path / "k"), "--answers", str(ans), "--json",
                                 str(tmp_path / "g.json")], env=env, capture_output=True, text=True)
    assert r.returncode == 0, r.stderr
    g = json.loads((tmp_path / "g.json").read_text())
    assert sum(q["joint"] for q in g["per_question"]) == 1 and len(g["per_question"]) == len(keys)
    # the grade carries the kernel's results, one per key
    assert [x["task_id"] for x in g["results"]] == [k["question_id"] for k in keys]
    assert sum(x["score"] for x in g["results"]) == 1.0
    # the statistics table sits beside PowerBench Table 2's own numbers
    r = subprocess.run(env_py + ["stats", "--world", str(tmp_path / "w")], env=env, capture_output=True, text=True, check=True)
    info = json.loads((tmp_path / "w" / "world.json").read_text())["statistics"]
    for paper in ("| 761 |", "1,275+203=1,478", "| 2,044 |", "13,350,984", "24,939"):
        assert paper in r.stdout
    assert f"| Rule | {info['rules']:,} |" in r.stdout


def test_time_fields_accept_equivalent_utc_spellings_only() -> None:
    want = "2024-07-03T14:00:00Z"
    for ok in ("2024-07-03T14:00:00Z", "2024-07-03T14:00:00", "2024-07-03T16:00:00+02:00", " 2024-07-03 14:00 "):
        assert grading.field_correct("temporal", "first_fire_time", ok, want), ok
    for bad in ("2024-07-03T15:00:00Z", "2024-07-03T14:00:00-01:00", "", None, 14, "x" * 100):
        assert not grading.field_correct("temporal", "first_fire_time", bad, want), bad


def test_macro_interval_brackets_the_macro_mean_and_is_a_point_when_constant() -> None:
    lo, hi = grading.macro_interval([[1.0, 0.0, 1.0, 1.0], [0.0, 0.0, 1.0], [1.0, 1.0]], 500)
    macro = (0.75 + 1 / 3 + 1.0) / 3
    assert lo <= macro <= hi and lo < hi
    assert grading.macro_interval([[1.0, 1.0], [0.0]], 100) == (0.5, 0.5)


def test_questions_are_deterministic(stored: Path) -> None:
    assert questions.generate(stored, 3) == questions.generate(stored, 3)


def test_import_is_light() -> None:
    code = ("import sys, psab.fleet, psab.fleet.world, psab.fleet.questions, psab.fleet.grading, psab.fleet.cli;"
            "bad=[m for m in ('pyarrow','duckdb','pandapower','pyomo','pandas') if m in sys.modules]; print(bad)")
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True,
                         env={"PYTHONPATH": str(ROOT)})
    assert out.stdout.strip() == "[]"


def test_temporal_truth_in_a_tiny_world_matches_a_hand_count(tmp_path: Path) -> None:
    """A tiny world whose first transformer's hot-spot is replaced by a hand-made series: 125 °C
    at hours 30–33 and 50–51, 121 °C at hour 70 alone, 80 °C elsewhere. Rule K1 (hot-spot ≥ 120 °C,
    2 consecutive points, IEC 60076-7 Table 4) fires, by hand, at hour 31 (breach 4 h) and 51
    (breach 2 h); hour 70 is a single point and does not fire. Every temporal question the
    generator asks about K1 must agree with this hand count."""
    w = world.build("hand", "tiny")
    dev = next(d for d in w.devices if d.device_class == "transformer")
    k1 = next(r for r in w.type_of(dev).rules if r.rule_id == "K1")
    assert (k1.target_metric, k1.op, k1.threshold, k1.consecutive_points, k1.applicability) == ("hot_spot_c", ">=", 120.0, 2, ())
    hs = np.full(w.hours, 80.0)
    hs[30:34] = 125.0
    hs[50:52] = 125.0
    hs[70] = 121.0
    w.telemetry[dev.device_id]["hot_spot_c"] = hs
    store.write_world(w, tmp_path, documents.generate(w))
    hand = [(31, 4), (51, 2)]  # (fire hour, breach hours)
    sw = questions.StoredWorld(tmp_path)
    rng = np.random.default_rng(0)
    seen = 0
    for i in range(30):
        q, k = questions._temporal(sw, rng, [(dev.device_id, k1)], f"T{i}")
        a = (questions.datetime.strptime(q["window"][0], "%Y-%m-%dT%H:%M:%SZ") - sw.start.replace(tzinfo=None)).total_seconds() / 3600
        b = (questions.datetime.strptime(q["window"][1], "%Y-%m-%dT%H:%M:%SZ") - sw.start.replace(tzinfo=None)).total_seconds() / 3600
        inside = [(f, n) for f, n in hand if a <= f < b]
        assert k["answer"] == {"first_fire_time": sw.ts(inside[0][0]), "breach_duration_h": inside[0][1],
                               "fire_count": len(inside)}
        seen += 1
    assert seen == 30
    # and the alarm documents written for the same world say the same
    alarms = [json.loads((tmp_path / m["path"]).read_text()) for m in store.read_manifest(tmp_path)
              if m["kind"] == "alarm" and m["device_ids"] == [dev.device_id] and m["refs"][1] == k1.key]
    assert sorted(a["raised_at"] for a in alarms) == [sw.ts(31), sw.ts(51)]


_JSON = st.recursive(st.none() | st.booleans() | st.floats() | st.integers() | st.text(max_size=30),
                     lambda c: st.lists(c, max_size=4) | st.dictionaries(st.text(max_size=12), c, max_size=4),
                     max_leaves=12)


@settings(max_examples=150, deadline=None)
@given(answer=_JSON | st.dictionaries(st.sampled_from(["first_fire_time", "breach_duration_h", "fire_count", "ranking",
                                                      "top_device", "top_value"]), _JSON),
       evidence=_JSON | st.lists(st.fixed_dictionaries({"kind": st.sampled_from(["series", "document"]),
                                                        "device_id": _JSON, "start": _JSON, "end": _JSON,
                                                        "path": _JSON}), max_size=3))
def test_grading_never_raises_on_arbitrary_json(answer: object, evidence: object) -> None:
    keys = [
        {"question_id": "T", "family": "temporal", "answer": {"first_fire_time": "2024-07-01T03:00:00Z",
                                                               "breach_duration_h": 2, "fire_count": 1},
         "required_evidence": [{"kind": "series", "device_id": "D", "start": "2024-07-01T02:00:00Z",
                                "end": "2024-07-01T04:00:00Z", "metrics": ["m"]}],
         "available_evidence": [{"kind": "document", "path": "documents/x.json"}]},
        {"question_id": "C", "family": "comparative", "answer": {"ranking": ["A", "B", "C"], "top_device": "A", "top_value": 1.5},
         "required_evidence": [], "available_evidence": []},
    ]
    for k in keys:
        r = grading.grade_one(k, {"question_id": k["question_id"], "answer": answer, "evidence": evidence})
        assert 0.0 <= r["field_accuracy"] <= 1.0 and 0.0 <= r["rer"] <= 1.0 and 0.0 <= r["aer"] <= 1.0
        assert r["joint"] is False or r["schema_valid"]
    grading.grade(keys, [answer, evidence], resamples=10)
    assert not grading.field_correct("comparative", "top_value", 10**400, 1.5)
