"""``psab report`` on real runs of the built-in agents: tables agree with the records, plots are
real PNGs, held-out details stay private, agent-written text cannot inject markup."""

from __future__ import annotations

import html as _html
import json
import re
import subprocess
import sys
from pathlib import Path

import pytest
from report_helpers import BUILTINS, SEED, cli, make_run, md_table, records, two_families

import psab
from psab.registry import AREAS

PNG_SIGNATURE = b"\x89PNG\r\n\x1a\n"


@pytest.fixture(scope="module")
def run(tmp_path_factory: pytest.TempPathFactory) -> Path:
    return make_run(tmp_path_factory, "builtins", BUILTINS)


@pytest.fixture(scope="module")
def report(run: Path, tmp_path_factory: pytest.TempPathFactory) -> Path:
    out = tmp_path_factory.mktemp("report")
    code, text = cli("report", str(run), "--out", str(out))
    assert code == 0, text
    return out


def _outcome(rec: dict, first: bool = False) -> tuple[bool, bool, float]:
    """(feasible, perfect, score) of a record, read straight from its JSON."""
    res = rec["attempts"][0 if first else -1].get("result") or {}
    feasible = bool(res.get("feasible"))
    score = float(res.get("score", 0.0)) if feasible else 0.0
    return feasible, feasible and score == 1.0, score


def _count(cell: str) -> tuple[int, int]:
    m = re.search(r"(\d+)/(\d+)", cell)
    assert m, cell
    return int(m.group(1)), int(m.group(2))


def test_split_table_matches_the_records(run: Path, report: Path) -> None:
    md = (report / "report.md").read_text(encoding="utf-8")
    rows = {r[0].strip("*"): r for r in md_table(md, "### Public split")}
    recs = records(run)
    assert set(rows) == {"reference", "mutant", "crash", "flaky"}
    for agent, row in rows.items():
        mine = [r for r in recs if r["agent"] == agent]
        n = len(mine)
        assert n == len(two_families())
        final = [_outcome(r) for r in mine]
        first = [_outcome(r, first=True) for r in mine]
        # agent | cases | feasible | perfect | mean | CI | feasible 1st | perfect 1st | mean 1st | infra | agent fail | attempts
        assert int(row[1]) == n
        assert _count(row[2]) == (sum(f for f, _, _ in final), n)
        assert _count(row[3]) == (sum(p for _, p, _ in final), n)
        assert float(row[4]) == pytest.approx(sum(s for _, _, s in final) / n, abs=5e-4)
        assert _count(row[6]) == (sum(f for f, _, _ in first), n)
        assert _count(row[7]) == (sum(p for _, p, _ in first), n)
        assert float(row[8]) == pytest.approx(sum(s for _, _, s in first) / n, abs=5e-4)
        assert int(row[11]) == sum(len(r["attempts"]) for r in mine)
    # What the built-in agents are built to do, seen through the report.
    assert _count(rows["reference"][3])[0] == len(two_families())
    assert _count(rows["mutant"][3])[0] == 0
    assert _count(rows["flaky"][3])[0] == len(two_families()) and _count(rows["flaky"][7])[0] == 0
    assert rows["flaky"][9] == f"{len(two_families())} / 0"  # infra failures: first attempt / final
    assert int(rows["crash"][10]) == len(two_families())


def test_family_table_matches_the_records(run: Path, report: Path) -> None:
    md = (report / "report.md").read_text(encoding="utf-8")
    rows = md_table(md, "## Per area and family")
    header_agents = ["reference", "mutant", "crash", "flaky"]
    recs = records(run)
    fam_rows = {re.sub(r"[`\\ ]", "", r[0]): r for r in rows if "`" in r[0]}
    assert set(fam_rows) == set(two_families())
    for fam, row in fam_rows.items():
        for j, agent in enumerate(header_agents):
            (rec,) = [r for r in recs if r["agent"] == agent and r["family"] == fam]
            assert float(row[2 + j].split()[0]) == pytest.approx(_outcome(rec)[2], abs=5e-4)
    areas = {AREAS[psab.get_family(f).area][0] for f in two_families()}  # the registry's titles, as written
    assert {r[0].strip("*") for r in rows if "`" not in r[0]} == areas


def test_shortfalls_list_every_public_miss_with_its_violations(run: Path, report: Path) -> None:
    from psab.contract import Violation

    md = (report / "report.md").read_text(encoding="utf-8")
    section = md.split("## Shortfalls", 1)[1]
    misses = [r for r in records(run) if not _outcome(r)[1]]
    assert f"{len(misses)} of {len(records(run))} records below 1" in section
    html = (report / "report.html").read_text(encoding="utf-8")
    for r in misses:
        assert f"**{r['agent']}**" in section
        res = json.loads((run / "artifacts" / r["agent"] / r["task_id"] / f"attempt-{len(r['attempts'])}" / "result.json").read_text())
        first = Violation.from_dict(res["violations"][0]).describe()
        # the same words in the HTML (escaped as HTML) and in the Markdown (escaped as Markdown)
        assert _html.escape(first, quote=True) in html
        assert first in re.sub(r"\\([\\`*_\[\]<>|#])", r"\1", section)  # Markdown escapes undone
    for r in records(run):
        if r["agent"] == "mutant":
            assert r["attempts"][-1]["note"] in section  # the mistake the mutant made is named


def test_plots_are_real_pngs(report: Path) -> None:
    import matplotlib.image as mpimg
    from PIL import Image

    pngs = sorted(report.glob("*.png"))
    assert {p.name for p in pngs} == {"mean_score_by_area.png", "public_vs_heldout.png", "feasible_vs_perfect.png"}
    html = (report / "report.html").read_text(encoding="utf-8")
    md = (report / "report.md").read_text(encoding="utf-8")
    for p in pngs:
        data = p.read_bytes()
        assert data.startswith(PNG_SIGNATURE) and len(data) > 2000
        with Image.open(p) as im:
            im.verify()
        with Image.open(p) as im:
            w, h = im.size
            assert w > 200 and h > 200
        arr = mpimg.imread(p)
        assert arr.shape[0] == h and arr.shape[1] == w
        assert arr.std() > 0.01  # not a blank canvas
        assert f"]({p.name})" in md
    assert html.count("data:image/png;base64,") == 3
    assert "<script" not in html.lower()


def test_report_of_several_runs_and_uncertainty_notes(run: Path, tmp_path_factory: pytest.TempPathFactory) -> None:
    other = make_run(tmp_path_factory, "builtins-seed2", ["builtin:reference", "builtin:mutant"], "--run-seed", "2")
    out = tmp_path_factory.mktemp("report2")
    code, text = cli("report", str(run), str(other), "--out", str(out), "--no-plots")
    assert code == 0, text
    md = (out / "report.md").read_text(encoding="utf-8")
    rows = {r[0].strip("*"): r for r in md_table(md, "### Public split")}
    n = len(two_families())
    assert rows["reference"][1] == f"{2 * n} ({n} distinct)"  # pooled over the two runs
    assert "percentile-bootstrap" in md and "2000 resamples" in md
    assert f"fewer than 10 cases (n = {n})" in md
    # separate runs keep the agents apart
    out2 = tmp_path_factory.mktemp("report3")
    code, _ = cli("report", str(run), str(other), "--out", str(out2), "--no-plots", "--separate-runs")
    assert code == 0
    rows2 = {r[0].strip("*") for r in md_table((out2 / "report.md").read_text(encoding="utf-8"), "### Public split")}
    assert {f"reference@{run.name}", f"reference@{other.name}"} <= rows2
    assert not list(out.glob("*.png"))


def test_heldout_stays_private(tmp_path_factory: pytest.TempPathFactory) -> None:
    heldout = make_run(tmp_path_factory, "heldout", ["builtin:reference", "builtin:mutant"], "--split", "public",
                       "--split", "heldout", "--seed", SEED, families=["ybus_construction"])
    out = tmp_path_factory.mktemp("report-private")
    code, _ = cli("report", str(heldout), "--out", str(out))
    assert code == 0
    held_ids = {r["task_id"] for r in records(heldout, "heldout")}
    held_violations = {v for r in records(heldout, "heldout") for v in (r["result"] or {}).get("violations", [])}
    assert held_ids and held_violations
    for name in ("report.md", "report.html"):
        text = (out / name).read_text(encoding="utf-8").replace("\\", "")  # Markdown escapes removed
        assert SEED not in text
        assert "Held-out split" in text  # the aggregates are there
        for tid in held_ids:
            assert tid not in text
        for v in held_violations:
            assert v not in text and _html.escape(v, quote=True) not in text
    # --include-private shows them (for internal use), and still never the seed
    out2 = tmp_path_factory.mktemp("report-private2")
    code, _ = cli("report", str(heldout), "--out", str(out2), "--include-private", "--no-plots")
    assert code == 0
    text = (out2 / "report.md").read_text(encoding="utf-8").replace("\\", "")
    assert SEED not in text
    assert all(tid in text for tid in held_ids)


def test_agent_written_text_cannot_inject_markup(tmp_path_factory: pytest.TempPathFactory) -> None:
    evil = '<script>alert(1)</script>|**x**'
    answer = json.dumps({"answer": {"bus_order": [evil]}})
    agent = f"cmd:evil=printf '%s' '{answer}' > {{solution}}"
    run = make_run(tmp_path_factory, "evil", [agent, "builtin:reference"], families=["ybus_construction"])
    out = tmp_path_factory.mktemp("report-evil")
    code, _ = cli("report", str(run), "--out", str(out), "--no-plots")
    assert code == 0
    html = (out / "report.html").read_text(encoding="utf-8")
    assert "<script" not in html and "&lt;script&gt;alert(1)&lt;/script&gt;" in html
    md = (out / "report.md").read_text(encoding="utf-8")
    assert "\\<script>" in md and not re.search(r"(?<!\\)<script", md)  # every "<" escaped


def test_report_commands_keep_psab_light() -> None:
    code = ("import sys, psab.cli; psab.cli.build_parser(); "
            "print(','.join(m for m in ('matplotlib', 'psab.reports.report', 'PIL') if m in sys.modules))")
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True)
    assert out.stdout.strip() == ""


def test_usage_errors_are_one_line(tmp_path: Path) -> None:
    code, _ = cli("report", str(tmp_path))
    assert code == 2
    code, _ = cli("report", str(tmp_path), str(tmp_path / "x"))
    assert code == 2


def test_a_folder_of_runs_is_read_as_its_runs(run: Path, tmp_path: Path) -> None:
    # `make run` announces runs/make-run-<stamp>/, which holds public/, heldout/ and report/.
    from report_helpers import copy_run

    from psab.reports.load import load_runs

    folder = tmp_path / "make-run"
    copy_run(run, folder / "public")
    copy_run(run, folder / "again")
    (folder / "report").mkdir()
    runs = load_runs([folder])
    assert [r.path.name for r in runs.runs] == ["again", "public"]
    assert len(runs.entries) == 2 * len(records(run))
    code, text = cli("report", str(folder), "--no-plots")
    assert code == 0, text
    assert (folder / "report" / "report.md").is_file()
    code, text = cli("qc", str(folder))
    assert code in (0, 1), text  # 2 would be the usage error "not a psab run directory"


def test_runs_under_other_conditions_are_reported_apart(tmp_path_factory, tmp_path):
    """A run judged under pandapower is another sample of an agent than one under the
    surrogate: the report keeps them apart and its runs table names each run's conditions."""
    from psab.reports.load import load_runs

    fam = ["ybus_construction"]
    a = make_run(tmp_path_factory, "cond-surrogate", ["builtin:reference"], families=fam)
    b = make_run(tmp_path_factory, "cond-pandapower", ["builtin:reference"], "--backend", "pandapower", families=fam)
    m = json.loads((b / "manifest.json").read_text())
    assert m["options"]["backend"] == "pandapower" and m["options"]["presentation"] == "guided"
    runs = load_runs([a, b])
    assert runs.agents == ["reference [surrogate]", "reference [pandapower]"]
    code, _ = cli("report", str(a), str(b), "--out", str(tmp_path / "r"))
    assert code == 0
    text = (tmp_path / "r" / "report.md").read_text()
    assert "reference [pandapower]" in text and "presentation" in text
