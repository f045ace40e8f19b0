"""Issue 36: the fleet world's level 2 (the data as utilities keep it), the causal family and the
quality-blind baseline.

- level 1 is byte-identical to the world and questions main wrote before issue 36 (digests
  recorded from main at b49ec95, tiny world, seed 0);
- a hand-built historian record (gap, replay, flags, meter change) is recovered as the type
  sheets' treatment says, and a gap breaks a consecutive run where a blind reading fires;
- at level 2 every rule's events on the treated record are the level-1 events (the documents
  cannot contradict a key), every defect class occurs, renames and supersessions are linked;
- the quality-blind agent answers every level-1 question exactly (an implementation of rule
  execution independent of the key generator's), is wrong on defect questions the aware
  reading (an independent implementation of the treatment) answers exactly;
- a causal key follows its cause: removing the chain's causing action removes the link.
"""

from __future__ import annotations

import hashlib
import json
from datetime import UTC, datetime
from pathlib import Path
from typing import Any

import numpy as np
import pytest

pytest.importorskip("duckdb")
pytest.importorskip("pyarrow")

from psab.fleet import agents, causal, grading, quality, questions, store  # noqa: E402
from psab.fleet.index import ensure_index  # noqa: E402
from psab.fleet.rules import rule_events  # noqa: E402
from psab.fleet.tools import ToolSession  # noqa: E402
from psab.runner.fleet import question_view  # noqa: E402

#: Recorded from main (b49ec95, before issue 36) with pyarrow 26.0.1 and numpy 2.4.6: the tiny
#: world of seed "0" — every file but the telemetry, the telemetry's Parquet files — and its
#: questions and keys at 10 per family.
MAIN_TINY = {"text": "e631c072cb4efcede697598dd09e9778da2a73cca16a9df121e056034d155e5a",
             "parquet": "6a5683d814603f80853317c012e60b2d0b6ba135fa9e95566aebe89799034c8d",
             "questions": "36032abff334f321e00aa90b92a13563ed7a9975bdc2039fd25e46caded47fa9",
             "keys": "3309ef7fc44b68278c88aa7cc9b1f8efa7b1c3ea5915d9f97eb1ac9ccd8e695f"}
MAIN_VERSIONS = ("26.0.1", "2.4.6")


def _digest(root: Path, files: list[Path]) -> str:
    h = hashlib.sha256()
    for p in files:
        h.update(str(p.relative_to(root)).encode())
        h.update(hashlib.sha256(p.read_bytes()).digest())
    return h.hexdigest()


def test_level_1_is_the_world_and_questions_main_wrote(tmp_path: Path) -> None:
    import pyarrow

    if (pyarrow.__version__, np.__version__) != MAIN_VERSIONS:
        pytest.skip(f"digests recorded with pyarrow/numpy {MAIN_VERSIONS}")
    root = tmp_path / "w"
    store.build_world("0", "tiny", root, level=1)
    files = sorted(p for p in root.rglob("*") if p.is_file())
    assert _digest(root, [p for p in files if not p.relative_to(root).parts[0] == "telemetry"]) == MAIN_TINY["text"]
    assert _digest(root, [p for p in files if p.relative_to(root).parts[0] == "telemetry"]) == MAIN_TINY["parquet"]
    qs, keys = questions.generate(root, 10)
    questions.write(qs, keys, tmp_path / "q", tmp_path / "k")
    assert hashlib.sha256((tmp_path / "q" / "questions.jsonl").read_bytes()).hexdigest() == MAIN_TINY["questions"]
    assert hashlib.sha256((tmp_path / "k" / "keys.jsonl").read_bytes()).hexdigest() == MAIN_TINY["keys"]


# ---------------------------------------------------------------- the treatment, by hand


def test_a_hand_built_record_is_recovered_and_a_gap_breaks_a_run(tmp_path: Path) -> None:
    """x is 11 at hours 0-9; the rule x >= 10 on 3 consecutive points fires once on it (run 0-9).
    The record: hours 5-6 missing (an outage), hours 1-2 written twice (a replay), a meter change
    from hour 7 (recorded ×2), a spike flagged at hour 8. Treated: 11 at 0-4 and at 7 and 9,
    missing at 5, 6, 8 — one run 0-4 (fires at 2); hours 7 and 9 are single points, too short.
    A blind reading of the ten rows one after another sees one run of ten rows."""
    from psab.fleet.catalog import Rule

    start = datetime(2024, 1, 1, tzinfo=UTC)
    true = {"x": np.full(10, 11.0)}
    plan = quality.Plan(gaps=[(5, 7)], dups=[(1, 3)], meter=("x", 7, 2.0), flags={"x": [(8, 9, quality.SPIKE, 99.0)]})
    idx, cols = quality.recorded(true, plan, 10)
    assert idx.tolist() == [0, 1, 1, 2, 2, 3, 4, 7, 8, 9]  # hours 5-6 missing, 1-2 twice
    assert cols["x"].tolist() == [11.0] * 7 + [22.0, 198.0, 22.0] and cols["x_quality"].tolist()[8] == quality.SPIKE
    quality._write_partition(tmp_path, "DEV-0001", start, idx, cols)
    cfg = {"data_quality": {"quality_columns": ["x_quality"],
                            "meter_changes": [{"metric": "x", "from": "2024-01-01T07:00:00Z", "recorded_per_unit": 2.0}]}}
    got = quality.treated(tmp_path, "DEV-0001", cfg, 10, start)["x"]
    assert np.array_equal(np.isnan(got), np.isin(np.arange(10), [5, 6, 8]))
    assert got[~np.isnan(got)].tolist() == [11.0] * 7  # hours 0-4, 7, 9
    rule = Rule("K1", "T", "x", "common", (), ("x",), ">=", 10.0, 3, "alarm", "hand")
    assert [(e.start, e.fire, e.end) for e in rule_events(rule, {"x": got})] == [(0, 2, 4)]
    assert [(e.start, e.fire, e.end) for e in rule_events(rule, true)] == [(0, 2, 9)]
    # the blind reading: the ten rows one after another, flags and meter ignored — one run of 10
    blind = agents.fire_events(rule.as_json(), cols["x"].tolist())
    assert blind == [(0, 2, 9)]


# ---------------------------------------------------------------- the level-2 world


@pytest.fixture(scope="module")
def worlds(tmp_path_factory: pytest.TempPathFactory) -> dict[str, Path]:
    base = tmp_path_factory.mktemp("fleet-quality")
    out = {}
    for level in (1, 2):
        root = base / f"w{level}"
        store.build_world("0", "test", root, level=level)
        ensure_index(root)
        qs, keys = questions.generate(root, 6, world_seed="0")
        questions.write(qs, keys, base / f"q{level}", base / f"k{level}")
        out[f"w{level}"], out[f"q{level}"], out[f"k{level}"] = root, base / f"q{level}", base / f"k{level}"
    return out


def test_level_2_keeps_every_rule_event_and_holds_every_defect_class(worlds: dict[str, Path]) -> None:
    w1, w2 = questions.StoredWorld(worlds["w1"]), questions.StoredWorld(worlds["w2"])
    assert w2.level == 2 and "level" not in w1.info
    counts = w2.info["statistics"]["data_quality_defects"]
    assert set(counts) == set(quality.DEFECTS) and all(v > 0 for v in counts.values()), counts
    blanked = 0
    for dev, cfg in w2.configs.items():
        if cfg.get("renamed_to"):
            continue
        true, rec = w1.series(w2.origin(dev)), w2.series(dev)
        for m, v in true.items():
            ok = ~np.isnan(rec[m])
            blanked += int((~ok).sum())
            assert np.array_equal(rec[m][ok], v[ok]), (dev, m)
        for r in w1.rules(w2.origin(dev)):
            assert rule_events(r, rec) == rule_events(r, true), (dev, r.key)
    assert blanked > 0


def test_renames_and_supersessions_are_linked_in_the_documents(worlds: dict[str, Path]) -> None:
    root = worlds["w2"]
    w = questions.StoredWorld(root)
    news = [d for d, c in w.configs.items() if c.get("renamed_from")]
    assert news
    for new in news:
        old = w.configs[new]["renamed_from"]
        assert w.configs[old]["renamed_to"] == new and w.configs[old]["renamed_at"] == w.configs[new]["renamed_at"]
        r = w.configs[new]["renamed_at"].replace("Z", "")
        old_ts = store.read_window(root, old)["ts"]
        new_ts = store.read_window(root, new)["ts"]
        assert max(old_ts) < r <= min(new_ts)
    sup = [m for m in w.manifest if m["kind"] == "work_order" and "Supersedes" in (root / m["path"]).read_text()]
    assert sup
    for m in sup:
        text = (root / m["path"]).read_text()
        orig = next(x for x in text.splitlines() if x.startswith("- Supersedes:")).split(": ")[1]
        otext = (root / w.path_of[orig]).read_text()
        assert f"- Superseded by: {m['doc_id']}" in otext and "- Status: superseded" in otext
        closed = next(x for x in text.splitlines() if x.startswith("- Closed:"))
        assert closed != "- Closed: -"


def _run_agent(root: Path, qdir: Path, kdir: Path, aware: str) -> list[tuple[dict[str, Any], dict[str, Any], bool]]:
    qs = [json.loads(x) for x in (qdir / "questions.jsonl").read_text().splitlines()]
    keys = {k["question_id"]: k for k in (json.loads(x) for x in (kdir / "keys.jsonl").read_text().splitlines())}
    out = []
    for q in qs:
        sub = agents.quality_blind(ToolSession(root), question_view(q, "en"), {"aware": aware})
        out.append((q, keys[q["question_id"]], grading.grade_one(keys[q["question_id"]], sub)["joint"]))
    return out


def test_quality_blind_is_exact_at_level_1_and_moved_by_every_level_2_class(worlds: dict[str, Path]) -> None:
    res1 = _run_agent(worlds["w1"], worlds["q1"], worlds["k1"], "0")
    assert {q["family"] for q, _, _ in res1} == set(questions.FAMILIES)
    assert all(ok for _, _, ok in res1), [q["question_id"] for q, _, ok in res1 if not ok]
    blind = _run_agent(worlds["w2"], worlds["q2"], worlds["k2"], "0")
    aware = _run_agent(worlds["w2"], worlds["q2"], worlds["k2"], "1")
    # the treatment, implemented apart from the key generator, reaches every key
    assert all(ok for _, _, ok in aware), [(q["question_id"], k["defects"]) for q, k, ok in aware if not ok]
    wrong = {c for (_, k, ok) in blind if not ok for c in k["defects"]}
    # a superseded order and a rename always mislead a blind reading; the run-breaking classes
    # do whenever they sit where the question looks, which the world places them to do
    assert {"superseded_work_order", "rename", "gap"} <= wrong, wrong
    defect = [ok for _, k, ok in blind if k.get("defects")]
    assert defect and sum(defect) < len(defect) / 2


def test_weak_agent_answers_causal_questions_schema_valid(worlds: dict[str, Path]) -> None:
    qs = [json.loads(x) for x in (worlds["q1"] / "questions.jsonl").read_text().splitlines()]
    q = next(q for q in qs if q["family"] == "causal")
    sub = agents.weak(ToolSession(worlds["w1"]), question_view(q, "en"))
    assert grading.schema_valid("causal", sub["answer"])


# ---------------------------------------------------------------- causal


def test_a_causal_key_follows_its_cause_in_the_chain() -> None:
    """A cable's relief is caused by its transformer's transfer: the transformer is upstream of
    the cable, its carried load was cut at that hour (load_transferred_pu > 0), and when the
    chain loses that transfer the link (and so the key) is gone."""
    w = causal.chain("0", "test")
    fs = [f for f in causal.facts(w) if f["kind"] == "transfer_relief"]
    assert fs
    f = fs[0]
    by_id = {d.device_id: d for d in w.devices}
    assert by_id[f["effect"]].transformer == f["cause"] and causal._fed_chain(w, f["effect"])[-1] == f["cause"]
    assert w.telemetry[f["cause"]]["load_transferred_pu"][f["hour"]] > 0
    ops = w.operator_actions[f["cause"]]
    w.operator_actions = {**w.operator_actions, f["cause"]: [op for op in ops if op.first != f["hour"]]}
    assert not [g for g in causal.facts(w) if g["document"] == f["document"]]


def test_a_cooling_step_key_is_the_repair_the_chain_made() -> None:
    """A forced-cooled unit whose fans failed: the key's work order is the fan-supervision order
    completed at the repair hour the chain recorded; a world where that repair never completes
    has no such link."""
    w = causal.chain(COOLING_SEED, "test")
    fs = [f for f in causal.facts(w) if f["kind"] == "cooling_step"]
    assert fs
    f = fs[0]
    iv = (w.degraded_cooling if f["action"] == "cooling_repair" else w.degraded_pumps).get(f["cause"])
    if f["action"] in ("cooling_repair", "pump_repair"):
        assert iv is not None and iv[1] == f["hour"]
        # the restored stage's supervision ratio is healthy again after the repair
        on = "fans_on" if f["action"] == "cooling_repair" else "pumps_on"
        assert w.telemetry[f["cause"]][on][f["hour"]:].any()
        if f["action"] == "cooling_repair":
            w.degraded_cooling = {**w.degraded_cooling, f["cause"]: (iv[0], w.hours)}
        else:
            w.degraded_pumps = {**w.degraded_pumps, f["cause"]: (iv[0], w.hours)}
    else:
        w.maintenance_actions = {**w.maintenance_actions, f["cause"]: [
            a for a in w.maintenance_actions[f["cause"]] if a.work_order != f["document"]]}
    assert not [g for g in causal.facts(w) if g["document"] == f["document"]]


COOLING_SEED = "7"  # a test-size world whose forced-cooled units were repaired and ran again (seed 0 has none)


def test_level_2_is_the_same_bytes_serial_and_on_two_workers(tmp_path: Path) -> None:
    a, b = tmp_path / "a", tmp_path / "b"
    store.build_world("q36", "tiny", a, level=2)
    store.build_world("q36", "tiny", b, workers=2, level=2)
    assert store.tree_digest(a) == store.tree_digest(b)
    assert json.loads((a / "world.json").read_text())["level"] == 2


def test_a_runs_manifest_names_the_level_only_when_it_is_2() -> None:
    from psab.runner import fleet
    from psab.runner.agents import parse_agent_arg

    agents = [parse_agent_arg("builtin:fleet-quality-blind,aware=1")]
    assert "level" not in fleet.FleetOptions(agents=agents).to_dict()  # level-1 manifests as before
    assert fleet.FleetOptions(agents=agents, level=2).to_dict()["level"] == 2
    assert agents[0].options == {"aware": 1}
