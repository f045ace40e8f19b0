"""The fleet tier in ``psab report``: PowerBench's tables and radar plots from fleet runs.

Per agent × family (PowerBench Tables 4 and 5), each case's final attempt:

- **JA** joint accuracy (every field right), **FA** field accuracy, **VS** schema validity,
  **RER** / **AER** retrieved- and available-evidence recall of the evidence the *tools* returned
  (:func:`psab.fleet.grading.recall`) — each a mean over questions with its percentile-bootstrap
  interval (:func:`psab.reports.stats.bootstrap_mean`);
- **TR** tool reliability, 100 − tool error rate (Table 5's caption): the share of the family's
  tool calls that did not error, pooled over its questions; its interval resamples questions
  (a ratio of sums);
- **TE** task-wise relative tool efficiency (Table 5's caption): within each family the agent
  with the fewest mean tool calls per question scores 100, another ``100 · fewest / its mean``
  (means floored at one call, :func:`_te`); a relative, between-agent number (no interval),
  meaningful with two agents or more;
- **TBR** tool-budget-reached rate, mean **calls** and tool **latency** per question (Tables 8, 9).

Percentages are shown as in the paper. A fleet run's records carry ``tier: fleet`` (see
:mod:`psab.runner.fleet`); runs without them are reported exactly as before.
"""

from __future__ import annotations

from collections.abc import Sequence
from pathlib import Path
from typing import Any

import numpy as np

from psab.reports.stats import CONFIDENCE, RESAMPLES, SEED, bootstrap_mean

FAMILIES = ("temporal", "contextual", "comparative", "causal")
#: The radar's axes, in the paper's order (Table 5 after JA and FA of Table 4).
AXES = ("JA", "FA", "RER", "AER", "VS", "TR", "TE")
_MEAN_METRICS = (("JA", "joint"), ("FA", "field_accuracy"), ("RER", "rer"), ("AER", "aer"), ("VS", "schema_valid"))


def is_fleet_record(rec: dict[str, Any]) -> bool:
    return rec.get("tier") == "fleet"


def case_values(rec: dict[str, Any]) -> dict[str, float]:
    """One record's numbers (its final attempt): an infrastructure failure counts as 0 for every
    accuracy and recall (an unsolved question, as the runner's summary counts it)."""
    att = rec["attempts"][-1]
    fl = ((att.get("result") or {}).get("fleet")) or {}
    tools = att.get("tools") or {}
    out = {name: float(fl.get(key, 0.0)) for name, key in _MEAN_METRICS}
    out["calls"] = float(tools.get("calls", 0))
    out["errors"] = float(tools.get("errors", 0))
    out["budget_reached"] = float(bool(tools.get("budget_reached")))
    out["latency_s"] = float(tools.get("latency_ms", 0.0)) / 1000.0
    out["wall_s"] = float(att.get("wall_s") or 0.0)
    return out


def _ratio_interval(num: np.ndarray, den: np.ndarray, resamples: int, confidence: float,
                    seed: int) -> tuple[float, float, float]:
    """sum(num)/sum(den) and its percentile-bootstrap interval over cases (1 when no calls)."""
    if den.sum() <= 0:
        return 1.0, 1.0, 1.0
    point = float(num.sum() / den.sum())
    if num.size < 2 or np.all(num == num[0]) and np.all(den == den[0]):
        return point, point, point
    r = np.random.default_rng(seed)
    idx = r.integers(0, num.size, size=(resamples, num.size))
    d = den[idx].sum(axis=1)
    vals = np.where(d > 0, num[idx].sum(axis=1) / np.where(d > 0, d, 1), 1.0)
    a = (1.0 - confidence) / 2.0
    lo, hi = np.quantile(vals, [a, 1.0 - a])
    return point, float(lo), float(hi)


def fleet_rows(records: Sequence[dict[str, Any]], agents: Sequence[str] = (), *, resamples: int = RESAMPLES,
               confidence: float = CONFIDENCE, seed: int = SEED, group: str | None = None) -> list[dict[str, Any]]:
    """Rows per agent × family (and ``ALL``), each metric ``{"mean", "low", "high"}`` in [0, 1]
    (TE without interval). ``group`` names a record field to split by as well (``corpus_devices``
    for the Table 9 study, ``n_devices`` for Table 8)."""
    recs = [r for r in records if is_fleet_record(r)]
    order = list(agents) + sorted({str(r["agent"]) for r in recs} - set(agents))
    groups = sorted({r.get(group) for r in recs}, key=lambda v: (v is None, v)) if group else [None]
    rows: list[dict[str, Any]] = []
    for g in groups:
        grecs = [r for r in recs if group is None or r.get(group) == g]
        cells: dict[tuple[str, str], list[dict[str, float]]] = {}
        for r in grecs:
            cells.setdefault((str(r["agent"]), str(r["family"])), []).append(case_values(r))
        fams = [f for f in FAMILIES if any(k[1] == f for k in cells)] + sorted(
            {k[1] for k in cells} - set(FAMILIES))
        fewest = {f: min((np.mean([v["calls"] for v in vals]) for (a, ff), vals in cells.items() if ff == f),
                         default=0.0) for f in fams}
        for agent in order:
            for fam in [*fams, "ALL"]:
                vals = [v for (a, f), vs in cells.items() if a == agent and (f == fam or fam == "ALL") for v in vs]
                if not vals:
                    continue
                row: dict[str, Any] = {"agent": agent, "family": fam, "n": len(vals)}
                if group:
                    row[group] = g
                for name, _ in _MEAN_METRICS:
                    iv = bootstrap_mean([v[name] for v in vals], resamples=resamples, confidence=confidence, seed=seed)
                    row[name] = {"mean": iv.mean, "low": iv.low, "high": iv.high}
                calls = np.array([v["calls"] for v in vals])
                errors = np.array([v["errors"] for v in vals])
                tr, lo, hi = _ratio_interval(calls - errors, calls, resamples, confidence, seed)
                row["TR"] = {"mean": tr, "low": lo, "high": hi}
                mean_calls = float(calls.mean())
                if fam == "ALL":
                    # the mean of the agent's per-family TE (each family has its own fewest)
                    tes = [_te(fewest[f], float(np.mean([v["calls"] for v in cells[(agent, f)]])))
                           for f in fams if (agent, f) in cells]
                    row["TE"] = {"mean": float(np.mean(tes))}
                else:
                    row["TE"] = {"mean": _te(fewest[fam], mean_calls)}
                row["TBR"] = {"mean": float(np.mean([v["budget_reached"] for v in vals]))}
                row["calls"] = mean_calls
                row["latency_s"] = float(np.mean([v["latency_s"] for v in vals]))
                row["wall_s"] = float(np.mean([v["wall_s"] for v in vals]))
                rows.append(row)
    return rows


def _te(fewest: float, mine: float) -> float:
    """PowerBench Table 5: the fewest mean calls in the family score 100 (here 1.0), another
    agent ``fewest / its mean``. Both means are floored at one call: an agent that answers
    without any call (a guess) would otherwise drive every other agent's TE to 0, and no
    question can be justified by evidence with fewer than one call."""
    return float(max(fewest, 1.0) / max(mine, 1.0))


def _pct(m: dict[str, Any], ci: bool = True) -> str:
    s = f"{100 * m['mean']:.1f}"
    if ci and "low" in m and (m["high"] - m["low"]) > 0:
        s += f" [{100 * m['low']:.1f}, {100 * m['high']:.1f}]"
    return s


def table(rows: Sequence[dict[str, Any]], group: str | None = None) -> tuple[list[str], list[list[str]]]:
    """Header and body (strings) of the fleet table, PowerBench Tables 4/5 in one."""
    header = ([group] if group else []) + ["agent", "family", "n", "JA", "FA", "RER", "AER", "VS", "TR", "TE",
                                           "TBR", "calls", "tool s"]
    body = []
    for r in rows:
        g = r.get(group) if group else None
        body.append(([("all" if g is None else str(g))] if group else []) + [
            r["agent"], r["family"], str(r["n"]), _pct(r["JA"]), _pct(r["FA"]), _pct(r["RER"]), _pct(r["AER"]),
            _pct(r["VS"]), _pct(r["TR"]), _pct(r["TE"], False), _pct(r["TBR"], False), f"{r['calls']:.1f}",
            f"{r['latency_s']:.2f}"])
    return header, body


def rows_markdown(rows: Sequence[dict[str, Any]], group: str | None = None) -> str:
    header, body = table(rows, group)
    lines = ["| " + " | ".join(header) + " |", "|" + "---|" * len(header)]
    lines += ["| " + " | ".join(b) + " |" for b in body]
    lines += ["", "All values in % (PowerBench Tables 4/5): JA joint accuracy, FA field accuracy, RER/AER retrieved/"
              "available evidence recall of what the tools returned, VS schema validity, TR tool reliability (100 − "
              "tool error rate), TE relative tool efficiency (fewest mean calls in the family = 100), TBR tool budget "
              "reached; calls and tool seconds are per question. Brackets: 95 % percentile-bootstrap intervals over "
              "questions."]
    return "\n".join(lines)


def rows_text(rows: Sequence[dict[str, Any]], group: str | None = None) -> str:
    from psab.cli import table as text_table

    header, body = table(rows, group)
    return text_table([tuple(b) for b in body], tuple(header))


# ---------------------------------------------------------------------------- plots


def radar(path: Path, agent: str, rows: Sequence[dict[str, Any]], title: str | None = None) -> Path:
    """The paper's radar plot for one agent: one polygon per family over JA, FA, RER, AER, VS,
    TR, TE (in %)."""
    from psab.reports.plots import _plt, _save, colours

    plt = _plt()
    mine = [r for r in rows if r["agent"] == agent and r["family"] != "ALL"]
    angles = np.linspace(0, 2 * np.pi, len(AXES), endpoint=False).tolist()
    fig = plt.figure(figsize=(6.0, 6.0))
    ax = fig.add_subplot(111, polar=True)
    for r, col in zip(mine, colours(len(mine)), strict=True):
        vals = [100 * r[a]["mean"] for a in AXES]
        ax.plot(angles + angles[:1], vals + vals[:1], color=col, linewidth=1.8, label=f"{r['family']} (n={r['n']})")
        ax.fill(angles + angles[:1], vals + vals[:1], color=col, alpha=0.12)
    ax.set_xticks(angles)
    ax.set_xticklabels(AXES)
    ax.set_ylim(0, 100)
    ax.set_yticks([25, 50, 75, 100])
    ax.set_title(title or f"{agent}: fleet tier by family (%)", pad=18)
    ax.legend(loc="upper right", bbox_to_anchor=(1.3, 1.1), frameon=False, fontsize=8)
    return _save(fig, path)


# ---------------------------------------------------------------------------- report sections


def partition(runs: Any) -> tuple[Any, Any]:
    """(fleet runs, the other runs) of a :class:`psab.reports.load.Runs`; with no fleet run the
    second is ``runs`` itself, so a compact report is built exactly as before."""
    from psab.reports.load import Runs

    fleet = [r for r in runs.runs if r.manifest.get("tier") == "fleet"]
    if not fleet:
        return None, runs
    ids = {id(r) for r in fleet}

    def sub(keep: bool) -> Runs:
        rs = [r for r in runs.runs if (id(r) in ids) == keep]
        es = [e for e in runs.entries if (id(e.run) in ids) == keep]
        ags = [a for a in runs.agents if any(e.agent == a for e in es)]
        return Runs(runs=rs, entries=es, agents=ags, separate_runs=runs.separate_runs)

    return sub(True), sub(False)


def section(runs: Any, out_dir: Path, *, plots: bool = True, resamples: int = RESAMPLES, seed: int = SEED,
            confidence: float = CONFIDENCE) -> tuple[list[Any], list[Path]]:
    """The report's fleet section: the per agent × family table, one radar per agent, and — when
    the runs cover several visible-corpus sizes — the Table 9 study (each size then counts as
    its own agent in the table and the radars)."""
    from psab.reports.doc import Heading, Image, Para, Table, cell, t

    records = [{**e.record, "agent": e.agent} for e in runs.entries]
    sizes = sorted({r.get("corpus_devices") for r in records}, key=lambda v: (v is None, v))
    # Runs at several visible-corpus sizes are different conditions: the main table and the
    # radars keep them apart ("agent [N=200]"); the Table 9 section compares them.
    labelled, agents = records, list(runs.agents)
    if len(sizes) > 1:
        def label(agent: str, n: Any) -> str:
            return f"{agent} [N={'all' if n is None else n}]"

        labelled = [{**r, "agent": label(r["agent"], r.get("corpus_devices"))} for r in records]
        agents = [label(a, n) for a in runs.agents for n in sizes]
    rows = fleet_rows(labelled, agents, resamples=resamples, confidence=confidence, seed=seed)
    blocks: list[Any] = [Heading(2, "Fleet tier (PowerBench)", "fleet")]
    if not rows:
        blocks.append(Para([t("No fleet question is recorded in these runs yet.")]))
        return blocks, []
    header, body = table(rows)
    blocks.append(Table(header, [[cell(x) for x in b] for b in body], ["l", "l"] + ["r"] * (len(header) - 2)))
    pct = int(round(confidence * 100))
    blocks.append(Para([t(
        f"Values in % (PowerBench Tables 4 and 5), each question's final attempt. JA joint accuracy, FA field "
        f"accuracy, RER / AER recall of the required / available evidence among what the tools returned, VS schema "
        f"validity, TR tool reliability (100 − tool error rate, pooled over the family's calls), TE task-wise relative "
        f"tool efficiency (the fewest mean tool calls in the family score 100), TBR share of questions that reached a "
        f"tool budget; calls and tool seconds per question. Brackets: {pct} % percentile-bootstrap intervals over "
        f"questions ({resamples} resamples).")], note=True))
    files: list[Path] = []
    blocks += _by_targets(labelled, agents, resamples, confidence, seed)
    if len(sizes) > 1:
        grows = [r for r in fleet_rows(records, runs.agents, resamples=resamples, confidence=confidence, seed=seed,
                                       group="corpus_devices") if r["family"] == "ALL"]
        blocks.append(Heading(3, "Visible corpus size (PowerBench Table 9)", "fleet-corpus"))
        gh = ["corpus devices", "agent", "n", "JA", "FA", "RER", "AER", "TBR", "calls"]
        gb = [[cell("all" if r["corpus_devices"] is None else str(r["corpus_devices"])), cell(r["agent"]),
               cell(str(r["n"])), cell(_pct(r["JA"])), cell(_pct(r["FA"])), cell(_pct(r["RER"])), cell(_pct(r["AER"])),
               cell(_pct(r["TBR"], False)), cell(f"{r['calls']:.1f}")] for r in grows]
        blocks.append(Table(gh, gb, ["r", "l"] + ["r"] * 7))
    if plots:
        for agent in agents:
            if not any(r["agent"] == agent for r in rows):
                continue
            safe = "".join(ch if ch.isalnum() or ch in "-_." else "_" for ch in agent)
            p = radar(out_dir / f"fleet_radar_{safe}.png", agent, rows)
            files.append(p)
            blocks.append(Image(p, f"fleet radar of {agent}",
                                f"{agent}: JA, FA, RER, AER, VS, TR, TE per family (%), as PowerBench's radar plots."))
    return blocks, files


def terminal(runs: Any, opts: Any) -> str:
    """What ``psab report`` prints for fleet runs: each agent's all-family row."""
    records = [{**e.record, "agent": e.agent} for e in runs.entries if is_fleet_record(e.record)]
    rows = [r for r in fleet_rows(records, runs.agents, resamples=opts.resamples, confidence=opts.confidence,
                                  seed=opts.seed) if r["family"] == "ALL"]
    return rows_text(rows)


def _by_targets(records: list[dict[str, Any]], agents: Sequence[str], resamples: int, confidence: float,
                seed: int) -> list[Any]:
    """PowerBench Table 8: comparative questions by their number of target devices."""
    from psab.reports.doc import Heading, Table, cell

    comp = [r for r in records if r.get("family") == "comparative" and r.get("n_devices")]
    if len({r["n_devices"] for r in comp}) < 2:
        return []
    rows = [r for r in fleet_rows(comp, agents, resamples=resamples, confidence=confidence, seed=seed,
                                  group="n_devices") if r["family"] == "comparative"]
    header = ["agent", "devices", "n", "JA", "FA", "calls", "tool s", "wall s", "TBR"]
    body = [[cell(r["agent"]), cell(str(r["n_devices"])), cell(str(r["n"])), cell(_pct(r["JA"])), cell(_pct(r["FA"])),
             cell(f"{r['calls']:.1f}"), cell(f"{r['latency_s']:.2f}"), cell(f"{r['wall_s']:.1f}"),
             cell(_pct(r["TBR"], False))] for r in sorted(rows, key=lambda r: (list(agents).index(r["agent"])
                                                                               if r["agent"] in agents else 99,
                                                                               r["n_devices"]))]
    return [Heading(3, "Comparative questions by number of target devices (PowerBench Table 8)", "fleet-targets"),
            Table(header, body, ["l"] + ["r"] * 8)]


def build(runs: Any, out_dir: Path, opts: Any) -> tuple[list[Any], list[Path]]:
    """A report of fleet runs only: the runs, then the fleet section."""
    from psab.reports.doc import Heading, Para, Table, b, cell, t

    title = opts.title or "psab report — " + ", ".join(r.label for r in runs.runs)
    blocks: list[Any] = [Heading(1, title, "top")]
    blocks.append(Para([t(f"{len(runs.runs)} fleet run(s) · {len(runs.agents)} agent(s): "),
                        b(", ".join(runs.agents) or "none")]))
    header = ["run", "run id", "created", "isolation", "world", "corpus devices", "agents", "recorded"]
    rows = []
    for r in runs.runs:
        m = r.manifest
        fl = m.get("fleet") or {}
        recorded = sum(1 for e in runs.entries if e.run is r)
        rows.append([cell(r.label), cell(str(m.get("run_id", ""))), cell(str(m.get("created", ""))),
                     cell(str(m.get("isolation", ""))), cell(str(fl.get("world_size", ""))),
                     cell(str(fl.get("corpus_devices") or "all")),
                     cell(", ".join(str(a.get("name")) for a in r.agent_specs)),
                     cell(f"{recorded}/{m.get('planned_cases', recorded)}")])
    blocks.append(Table(header, rows, ["l"] * 7 + ["r"]))
    sec, files = section(runs, out_dir, plots=opts.plots, resamples=opts.resamples, seed=opts.seed,
                         confidence=opts.confidence)
    return blocks + sec, files
