"""``psab report``: what one or several runs show, as Markdown, HTML and PNG plots.

Privacy: held-out per-case material stays private. Without ``include_private`` the report says
nothing about the held-out split finer than agent × split aggregates (and their intervals and
paired differences, which are aggregates too); per-family tables and the shortfall list cover
the public split only. The held-out seed is never in a run directory, so never in a report.
"""

from __future__ import annotations

import datetime as _dt
from collections import Counter
from collections.abc import Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from psab.reports import analysis, doc
from psab.reports.doc import Block, Heading, Image, Items, Para, Table, b, c, cell, t, tone
from psab.reports.load import Entry, Runs, condition, load_runs
from psab.reports.qc import unanimous_cases
from psab.reports.stats import CONFIDENCE, FEW_CASES, RESAMPLES, SEED, Interval
from psab.runner.execute import AGENT_FAILURE, INFRA_FAILURE

SPLIT_TITLE = {"public": "Public split", "heldout": "Held-out split"}
MAX_VIOLATIONS = 8


@dataclass
class ReportOptions:
    include_private: bool = False
    separate_runs: bool = False
    resamples: int = RESAMPLES
    seed: int = SEED
    confidence: float = CONFIDENCE
    plots: bool = True
    embed: bool = True
    title: str | None = None


@dataclass
class ReportFiles:
    markdown: Path
    html: Path
    plots: list[Path] = field(default_factory=list)
    text: str = ""


# ----------------------------------------------------------------------------- formatting


def _frac(k: int, n: int) -> str:
    return f"{(k / n if n else 0):.0%} ({k}/{n})"


def _split_word(split: str) -> str:
    return "held-out" if split == "heldout" else split


def _created(text: str) -> str:
    return text.replace("T", " ").replace("Z", " UTC")[:20].rstrip() if text else ""


def _area_title(area: str) -> str:
    """The registry's English title of an area ("Microgrids and dispatch"); an area this
    installation does not know (an old run) keeps its id, made readable."""
    from psab.registry import AREAS

    return AREAS[area][0] if area in AREAS else area.replace("_", " ")


def _ci_cell(ci: Interval | None) -> doc.Cell:
    if ci is None:
        return cell("—")
    spans = [t(ci.text())]
    if ci.few:
        spans.append(t(" †"))
    return doc.Cell(spans, tone="muted" if ci.few else "")


def _score_cell(s: analysis.Stats | None, *, show_perfect: bool) -> doc.Cell:
    if s is None:
        return cell("—", tone="muted")
    text = f"{s.mean:.3f}"
    if show_perfect or s.n > 1:
        text += f" · {s.perfect}/{s.n}"
    return cell(text, heat=s.mean)


# ----------------------------------------------------------------------------- sections


def _runs_section(runs: Runs) -> list[Block]:
    out: list[Block] = []
    header = ["run", "run id", "created", "psab", "isolation", "backend", "presentation", "level", "agents", "splits",
              "recorded"]
    rows = []
    warnings: list[str] = []
    for r in runs.runs:
        m = r.manifest
        recorded = sum(1 for e in runs.entries if e.run is r)  # load_runs makes one entry per record
        planned = int(m.get("planned_cases", recorded))
        rec_cell = cell(f"{recorded}/{planned}", tone="" if recorded == planned else "warn")
        rows.append([cell(c(r.label)), cell(r.run_id), cell(_created(str(m.get("created", "")))), cell(str(m.get("psab_version", ""))),
                     cell(str(m.get("isolation", "")), tone="warn" if m.get("isolation") == "relocate" else ""),
                     *[cell(str(v)) for v in condition(r).values()],
                     cell(", ".join(str(a.get("name")) for a in r.agent_specs)),
                     cell(", ".join(m.get("splits") or [])), rec_cell])
        if recorded < planned:
            warnings.append(f"run {r.label} is incomplete ({recorded} of {planned} cases recorded): its numbers cover "
                            "only the recorded cases")
        if m.get("isolation") == "relocate":
            warnings.append(f"run {r.label} ran without the bwrap sandbox (relocation only): agents could have "
                            "reached psab's files; do not publish a comparison made this way")
    out.append(Table(header, rows, ["l"] * (len(header) - 1) + ["r"]))
    commitments = sorted({(r.label, r.manifest["heldout"]["seed_commitment"]) for r in runs.runs if "heldout" in r.manifest})
    if commitments:
        out.append(Para([t("Held-out draws were made from private seeds committed as: ")]
                        + [s for lbl, com in commitments for s in (c(lbl), t(" "), c(com), t("; "))][:-1]
                        + [t(". The seeds themselves are in no run directory and in no report.")], note=True))
    for w in warnings:
        out.append(Para([tone("warning", "warn"), t(" " + w)]))
    return out


def _usage_section(runs: Runs) -> list[Block]:
    """Model API usage per run and agent, as the runner's recording proxy saw it (issue 32,
    item 5): requests, failed requests, tokens and cost over every attempt. Nothing when no
    attempt of these runs went through the proxy."""
    from psab.runner.summary import model_api_usage

    rows = []
    for r in runs.runs:
        recs = [e.record for e in runs.entries if e.run is r]
        for u in model_api_usage(recs, [str(a.get("name")) for a in r.agent_specs]):
            rows.append([cell(c(r.label)), cell(b(u["agent"])), cell(str(u["attempts"])), cell(str(u["requests"])),
                         cell(str(u["failed_requests"]), tone="warn" if u["failed_requests"] else ""),
                         cell(str(u["input_tokens"])), cell(str(u["output_tokens"])),
                         cell("—" if u["cost_usd"] is None else f"{u['cost_usd']:.4f}")])
    if not rows:
        return []
    header = ["run", "agent", "attempts", "requests", "failed", "input tokens", "output tokens", "cost (USD)"]
    return [Heading(2, "Model API usage", "usage"), Table(header, rows, ["l", "l"] + ["r"] * 6),
            Para([t("Every attempt, retries included, as the runner's recording proxy saw it: the tokens the upstream "
                    "reported, priced at each agent's price_per_mtok (— where it names none).")], note=True)]


def _glance_section(runs: Runs, rows: list[analysis.SplitRow]) -> list[Block]:
    """The few facts an engineer looks for first, each a sentence."""
    items: list[tuple[doc.Inline, list[doc.Inline]]] = []
    for split in runs.splits:
        srows = sorted((r for r in rows if r.split == split), key=lambda r: -r.retries.mean_score)
        if srows:
            line: doc.Inline = [b(f"{SPLIT_TITLE[split]}"), t(" — mean score with retries: ")]
            line += _join([t(f"{r.agent} {r.retries.mean_score:.3f}") for r in srows], " · ")
            items.append((line, []))
    pub = {r.agent: r for r in rows if r.split == "public"}
    held = {r.agent: r for r in rows if r.split == "heldout"}
    both = [a for a in runs.agents if a in pub and a in held]
    if both:
        gaps = [(a, pub[a].retries.mean_score - held[a].retries.mean_score) for a in both]
        high = [(a, g) for a, g in gaps if g > 0.10]
        if high:
            items.append(([tone("check", "warn"), t(" Public above held-out by more than 0.10 — the signature "
                           "contamination would leave (or harder held-out draws): ")]
                          + _join([t(f"{a} ({pub[a].retries.mean_score:.3f} against {held[a].retries.mean_score:.3f})")
                                   for a, _ in high]), []))
        else:
            items.append(([t("No agent scores more than 0.10 higher on the public split than on the held-out one "
                             "(no contamination signature).")], []))
    recovered = [r for r in rows if r.retries.mean_score - r.first.mean_score > 1e-9]
    if recovered:
        items.append(([t("Infrastructure retries recovered: ")]
                      + _join([t(f"{r.agent} on {_split_word(r.split)} (mean {r.first.mean_score:.3f} → {r.retries.mean_score:.3f}, "
                                 f"{r.first.infra_failures} first-attempt infrastructure failure(s))") for r in recovered]),
                      []))
    subopt = [r for r in rows if r.retries.feasible > r.retries.perfect]
    if subopt:
        items.append(([t("Feasible but below the optimum (admissible, not optimal): ")]
                      + _join([t(f"{r.agent} {r.retries.feasible - r.retries.perfect}/{r.retries.cases} on {_split_word(r.split)}")
                               for r in subopt]), []))
    failed = _unanimous_count(runs)
    if any(failed.values()):
        words = ", ".join(f"{n} {('public' if s == 'public' else 'held-out')}" for s, n in failed.items() if n)
        items.append(([tone("qc", "bad"), t(f" Cases no agent solved: {words}. Run "), c("psab qc"),
                       t(" on these runs: a case every agent fails the same way is a likely task or evaluator defect "
                         "(paper, section 8.2).")], []))
    elif len(runs.agents) > 1:
        items.append(([t("Every case was solved by at least one agent.")], []))
    if not items:
        return []
    return [Heading(2, "At a glance", "glance"), Items(items)]


def _unanimous_count(runs: Runs) -> dict[str, int]:
    out = {s: 0 for s in runs.splits}
    for (split, _), _, _ in unanimous_cases(runs):
        out[split] += 1
    return out


def _split_section(runs: Runs, rows: list[analysis.SplitRow], opts: ReportOptions) -> list[Block]:
    out: list[Block] = [Heading(2, "Results per split", "results")]
    pct = int(round(opts.confidence * 100))
    header = ["agent", "cases", "feasible", "perfect", "mean score", f"{pct} % CI", "feasible 1st",
              "perfect 1st", "mean 1st", "infra fail 1st / final", "agent fail", "attempts"]
    align = ["l"] + ["r"] * (len(header) - 1)
    any_few = False
    for split in runs.splits:
        srows = [r for r in rows if r.split == split]
        if not srows:
            continue
        out.append(Heading(3, SPLIT_TITLE[split], f"split-{split}"))
        body = []
        for r in srows:
            f, s = r.first, r.retries
            any_few |= bool(r.ci and r.ci.few)
            body.append([
                cell(b(r.agent)), cell(str(s.cases) if r.distinct_cases == s.cases else f"{s.cases} ({r.distinct_cases} distinct)"),
                cell(_frac(s.feasible, s.cases), heat=s.feasible_rate), cell(_frac(s.perfect, s.cases), heat=s.perfect_rate),
                cell(f"{s.mean_score:.3f}", heat=s.mean_score), _ci_cell(r.ci),
                cell(f"{f.feasible}/{f.cases}", tone="muted"), cell(f"{f.perfect}/{f.cases}", tone="muted"),
                cell(f"{f.mean_score:.3f}", tone="muted"),
                cell(f"{f.infra_failures} / {s.infra_failures}", tone="warn" if f.infra_failures else ""),
                cell(str(s.agent_failures), tone="bad" if s.agent_failures else ""), cell(str(s.attempts)),
            ])
        out.append(Table(header, body, align))
    notes = [t("Feasible, perfect and mean score are "), b("with retries"), t(" (each case's last attempt); the "), b("1st"),
             t(" columns count each case's first attempt only, as if there were no infrastructure retries — the "
               "difference is what the retries recovered. Rates are over all cases: an infrastructure failure counts "
               "as unsolved with score 0 and is also counted on its own (infra fail: cases whose first / final attempt "
               "was an infrastructure failure). Perfect = feasible and score 1. "
               "These counts are computed by the runner's own summary code, so they match each run's "
               "summary.json.")]
    if len(runs.runs) > 1:
        notes.append(t(" With several runs, a case run by the same agent in two runs counts twice in these columns "
                       "(\"16 (4 distinct)\": 16 records of 4 cases); the interval is over distinct cases."))
    out.append(Para(notes, note=True))
    if any_few:
        out.append(Para([t(f"† fewer than {FEW_CASES} cases: the interval is computed but means little "
                           "(see Uncertainty).")], note=True))
    return out


def _family_table(runs: Runs, split: str) -> Table:
    fstats = analysis.family_stats(runs, split)
    astats = analysis.area_stats(runs, split)
    header = ["area / family", "cases"] + list(runs.agents)
    align = ["l", "r"] + ["r"] * len(runs.agents)
    rows: list[list[doc.Cell]] = []
    groups: set[int] = set()
    fams = runs.families(split)
    area_of = {e.family: e.area for e in runs.entries}
    for area in runs.areas(split):
        in_area = [f for f in fams if area_of[f] == area]
        cases = len({e.case_key for e in runs.split_entries(split) if e.area == area})
        groups.add(len(rows))
        rows.append([cell(_area_title(area)), cell(str(cases))]
                    + [_score_cell(astats.get((a, area)), show_perfect=True) for a in runs.agents])
        for fam in in_area:
            n_cases = len({e.case_key for e in runs.split_entries(split) if e.family == fam})
            rows.append([cell([t("   "), c(fam)]), cell(str(n_cases))]
                        + [_score_cell(fstats.get((a, fam)), show_perfect=False) for a in runs.agents])
    return Table(header, rows, align, group_rows=groups)


def _family_section(runs: Runs, opts: ReportOptions) -> list[Block]:
    out: list[Block] = [Heading(2, "Per area and family", "families")]
    splits = [s for s in runs.splits if s == "public" or opts.include_private]
    if not splits:
        out.append(Para([t("These runs have no public cases.")]))
    for split in splits:
        if len(splits) > 1 or split == "heldout":
            out.append(Heading(3, SPLIT_TITLE[split], f"families-{split}"))
        out.append(_family_table(runs, split))
    if splits:
        out.append(Para([t("Each cell is the mean score with retries; an area row also gives perfect / records, and a "
                           "family row does when it has more than one record. Shading runs from red (0) to green (1).")],
                        note=True))
    if "heldout" in runs.splits and not opts.include_private:
        out.append(Para([t("The held-out split is shown only as the per-split aggregates above: per-family held-out "
                           "results stay private (")] + [c("--include-private"), t(" shows them, for internal use).")],
                        note=True))
    return out


def _plots_section(runs: Runs, rows: list[analysis.SplitRow], out_dir: Path, opts: ReportOptions) -> tuple[list[Block], list[Path]]:
    from psab.reports import plots

    blocks: list[Block] = [Heading(2, "Plots", "plots")]
    files: list[Path] = []
    pct = int(round(opts.confidence * 100))
    area_split = "public" if "public" in runs.splits else ("heldout" if opts.include_private else None)
    if area_split:
        astats = analysis.area_stats(runs, area_split)
        ivs = analysis.area_intervals(runs, area_split, resamples=opts.resamples, seed=opts.seed, confidence=opts.confidence)
        areas = runs.areas(area_split)
        counts = {a: len({e.case_key for e in runs.split_entries(area_split) if e.area == a}) for a in areas}
        p = plots.grouped_bars(
            out_dir / "mean_score_by_area.png", [_area_title(a) for a in areas], runs.agents,
            {(ag, _area_title(ar)): s.mean for (ag, ar), s in astats.items()},
            {(ag, _area_title(ar)): (iv.low, iv.high) for (ag, ar), iv in ivs.items()},
            title=f"Mean score per area ({'public' if area_split == 'public' else 'held-out'} split, with retries)",
            ylabel="mean score", counts={_area_title(a): n for a, n in counts.items()})
        files.append(p)
        blocks.append(Image(p, "mean score per area and agent",
                            f"Mean score per area and agent; whiskers: {pct} % bootstrap interval over the area's cases "
                            "(none when every case scored the same)."))
    pub = {r.agent: r.retries.mean_score for r in rows if r.split == "public"}
    held = {r.agent: r.retries.mean_score for r in rows if r.split == "heldout"}
    ivs2 = {(r.agent, r.split): (r.ci.low, r.ci.high) for r in rows if r.ci is not None}
    p = plots.split_bars(out_dir / "public_vs_heldout.png", runs.agents, pub, held, ivs2,
                         title="Public against held-out mean score per agent")
    files.append(p)
    blocks.append(Image(p, "public against held-out mean score per agent",
                        "Public split against held-out split; a public score well above the held-out one is the "
                        f"signature of contamination. Whiskers: {pct} % bootstrap intervals."))
    main_split = "public" if "public" in runs.splits else "heldout"
    feas = {r.agent: r.retries.feasible_rate for r in rows if r.split == main_split}
    perf = {r.agent: r.retries.perfect_rate for r in rows if r.split == main_split}
    p = plots.rate_bars(out_dir / "feasible_vs_perfect.png", runs.agents, feas, perf,
                        title=f"Feasible rate against perfect rate ({'public' if main_split == 'public' else 'held-out'} split)")
    files.append(p)
    blocks.append(Image(p, "feasible rate against perfect rate per agent",
                        "The gap between the two bars is feasible but suboptimal work: admissible answers that "
                        "did not reach the reference optimum."))
    return blocks, files


def _uncertainty_section(runs: Runs, rows: list[analysis.SplitRow], opts: ReportOptions) -> list[Block]:
    pct = int(round(opts.confidence * 100))
    out: list[Block] = [Heading(2, "Uncertainty", "uncertainty")]
    out.append(Para([
        t(f"Intervals are {pct} % percentile-bootstrap intervals over cases: {opts.resamples} resamples of the cases "
          f"with replacement (generator seeded with {opts.seed}, so the report is reproducible), the interval being "
          "the quantiles of the resampled mean scores. A case is one task of one split; an agent that ran a case in "
          "several runs scores the mean of those runs on it. For two agents, the paired difference resamples the "
          "per-case differences of their scores on the cases both ran; wins / ties / losses count the cases where "
          "the first agent scored higher / the same / lower.")]))
    counts = sorted({r.distinct_cases for r in rows})
    few = [n for n in counts if n < FEW_CASES]
    if few:
        out.append(Para([tone("caution", "warn"), t(
            f" Some intervals rest on fewer than {FEW_CASES} cases (n = {', '.join(map(str, few))}). With so few "
            "cases the bootstrap is too narrow — it sees only the variation the sample happens to contain, and a "
            "score that is the same on every case gives a zero-width interval however uncertain the agent is. "
            "Read such intervals as a description of these cases, not as a statement about the agents; run more "
            "held-out draws per family (psab run --split heldout --count N) or repeat the runs to tighten them.")]))
    per_agent_case = Counter((e.agent, e.case_key) for e in runs.entries)
    replicated = {key for (_, key), n in per_agent_case.items() if n > 1}
    if replicated:
        out.append(Para([t(f"{len(replicated)} case(s) were run more than once by the same agent; their per-case "
                           "scores are averaged before resampling.")], note=True))
    header = ["agent A", "agent B", "cases", "mean A − B", f"{pct} % CI", "A wins", "ties", "B wins"]
    align = ["l", "l", "r", "r", "r", "r", "r", "r"]
    any_pairs = False
    for split in runs.splits:
        pairs = analysis.paired_differences(runs, split, resamples=opts.resamples, seed=opts.seed, confidence=opts.confidence)
        if not pairs:
            continue
        any_pairs = True
        out.append(Heading(3, f"Paired differences — {SPLIT_TITLE[split].lower()}", f"paired-{split}"))
        body = []
        for pr in pairs:
            d = pr.diff
            sig = d.low > 0 or d.high < 0
            body.append([cell(b(pr.a)), cell(b(pr.b)), cell(str(d.n)),
                         cell(f"{d.mean:+.3f}", tone=("good" if d.mean > 0 else "bad") if sig else ""),
                         _ci_cell(d), cell(str(pr.wins)), cell(str(pr.ties)), cell(str(pr.losses))])
        out.append(Table(header, body, align))
    if any_pairs:
        out.append(Para([t("A difference is shaded when its interval excludes 0. † marks intervals over fewer than "
                           f"{FEW_CASES} cases.")], note=True))
    else:
        out.append(Para([t("No two agents ran the same cases, so there is no paired comparison.")], note=True))
    return out


def _describe_violation(v: dict[str, Any]) -> doc.Inline:
    if "described" in v:  # parsed back from the record's summary
        return [t(str(v["described"]))]
    from psab.contract import Violation

    return [t(Violation.from_dict(v).describe())]


def _shortfall_item(e: Entry, runs: Runs) -> tuple[doc.Inline, list[doc.Inline]]:
    att = e.final_attempt
    cls = e.final.cls
    head: doc.Inline = [b(e.agent)]
    if len(runs.runs) > 1 and not runs.separate_runs:
        head.append(t(f" (run {e.run.label})"))
    if e.final.feasible:
        head += [t(" — "), tone(f"score {e.final.score:.3f}", "warn"), t(" feasible, below the reference optimum")]
    else:
        head += [t(" — "), tone("infeasible", "bad")]
    if cls == AGENT_FAILURE:
        head.append(t(f"; agent failure: {att.get('reason') or att.get('rule')}"))
    elif cls == INFRA_FAILURE:
        head.append(t(f"; infrastructure failure on every attempt ({att.get('rule')}): no answer to score"))
    if att.get("note"):
        head += [t("; the built-in mutant's mistake: "), c(str(att["note"]))]
    if att.get("evaluator_error"):
        head += [t("; "), tone("evaluator error", "bad"), t(" "), c(str(att["evaluator_error"]))]
    subs: list[doc.Inline] = []
    if cls == AGENT_FAILURE:
        last = _last_line(str(att.get("stderr_tail") or ""))
        if last:
            subs.append([t("the agent's last words on stderr: "), c(last)])
    full = e.full_result() if cls != INFRA_FAILURE else None
    ev = full.get("evidence") if isinstance(full, dict) else None
    if e.final.feasible and isinstance(ev, dict) and isinstance(ev.get("objective"), (int, float)) \
            and isinstance(ev.get("reference_objective"), (int, float)):
        unit = _objective_unit(e.family)
        obj, ref = float(ev["objective"]), float(ev["reference_objective"])
        gap = f" ({(obj - ref) / abs(ref):+.1%})" if ref else ""
        subs.append([t(f"no violation; objective {obj:.4g}{unit} against the reference's {ref:.4g}{unit}{gap}")])
    if cls != INFRA_FAILURE:
        vs = e.violations(full=full)
        total = max(len(vs), e.violation_count(vs))
        for v in vs[:MAX_VIOLATIONS]:
            subs.append(_describe_violation(v))
        if total > MAX_VIOLATIONS:
            rel = e.attempt_dir().relative_to(e.run.path) / "result.json"
            subs.append([t(f"… and {total - MAX_VIOLATIONS} more (all in "), c(f"{e.run.label}/{rel.as_posix()}"), t(")")])
        if not vs and e.final.feasible and not any(sp.text.startswith("no violation") for sub in subs for sp in sub):
            subs.append([t("no violation: the answer is admissible but its objective is worse than the reference's")])
    return head, subs


def _last_line(text: str, limit: int = 160) -> str:
    lines = [ln.strip() for ln in text.splitlines() if ln.strip()]
    if not lines:
        return ""
    last = lines[-1]
    return last if len(last) <= limit else last[: limit - 1] + "…"


def _objective_unit(family: str) -> str:
    import psab
    from psab.errors import UnknownFamilyError

    try:
        unit = getattr(psab.get_family(family), "objective_unit", "") or ""
    except UnknownFamilyError:
        return ""
    return f" {unit}" if unit else ""


def _shortfall_section(runs: Runs, opts: ReportOptions) -> list[Block]:
    out: list[Block] = [Heading(2, "Shortfalls", "shortfalls")]
    splits = [s for s in runs.splits if s == "public" or opts.include_private]
    for split in splits:
        bad = analysis.shortfalls(runs, split)
        total = len(runs.split_entries(split))
        out.append(Heading(3, f"{SPLIT_TITLE[split]}: {len(bad)} of {total} records below 1", f"shortfalls-{split}"))
        if not bad:
            out.append(Para([t("Every record scored 1.")]))
            continue
        out.append(Para([t("Every record that did not score 1 (with retries), with the evaluator's violations in words "
                           f"(at most {MAX_VIOLATIONS} per record).")], note=True))
        by_task: dict[tuple[str, str], list[Entry]] = {}
        for e in bad:
            by_task.setdefault((e.family, e.task_id), []).append(e)
        for (fam, task_id), es in by_task.items():
            title = f"{fam}" if task_id == f"{fam}-public" else f"{fam} — {task_id}"
            out.append(Heading(4, title, doc.slug(f"{split}-{task_id}")))
            agents_all = {x.agent for x in runs.split_entries(split) if x.task_id == task_id}
            failed = {x.agent for x in es}
            if len(agents_all) > 1 and failed == agents_all:
                out.append(Para([tone("all agents failed", "bad"), t(" — run "), c("psab qc"),
                                 t(" to see whether they failed the same way (a likely task or evaluator defect).")]))
            out.append(Items([_shortfall_item(e, runs) for e in es]))
    if "heldout" in runs.splits and not opts.include_private:
        held = runs.split_entries("heldout")
        n_bad = sum(1 for e in held if not e.final.perfect)
        out.append(Heading(3, "Held-out split", "shortfalls-heldout"))
        out.append(Para([t(f"{n_bad} of {len(held)} held-out records scored below 1. Their cases, answers and "
                           "violations are private (they disclose held-out answers) and are not in this report.")]))
    return out


# ----------------------------------------------------------------------------- assembly


def build(runs: Runs, out_dir: Path, opts: ReportOptions) -> tuple[list[Block], list[Path], list[analysis.SplitRow]]:
    from psab.reports import fleet as fleet_report

    # Fleet runs have their own tables (PowerBench's); without one, ``runs`` is untouched.
    fleet_runs, runs = fleet_report.partition(runs)
    if fleet_runs is not None and not runs.runs:
        fblocks, ffiles = fleet_report.build(fleet_runs, out_dir, opts)
        return fblocks, ffiles, []
    rows = analysis.split_rows(runs, resamples=opts.resamples, seed=opts.seed, confidence=opts.confidence)
    title = opts.title or "psab report — " + ", ".join(r.label for r in runs.runs)
    fams = runs.families()
    blocks: list[Block] = [Heading(1, title, "top")]
    blocks.append(Para([t(f"{len(runs.runs)} run(s) · {len(runs.agents)} agent(s): "), *_join([b(a) for a in runs.agents]),
                        t(f" · {len(fams)} famil{'y' if len(fams) == 1 else 'ies'} in {len(runs.areas())} area(s) · splits: "
                          + ", ".join(runs.splits or ["none"]))]))
    blocks += _runs_section(runs)
    if not runs.entries:
        blocks.append(Para([t("No case is recorded in these runs yet: there is nothing to report.")]))
        return blocks, [], rows
    blocks += _glance_section(runs, rows)
    blocks += _split_section(runs, rows, opts)
    blocks += _family_section(runs, opts)
    from psab.reports import study as study_report

    if study_report.has_studies(runs):
        blocks += study_report.section(runs, opts)
    files: list[Path] = []
    if opts.plots and runs.entries:
        pb, files = _plots_section(runs, rows, out_dir, opts)
        blocks += pb
    blocks += _uncertainty_section(runs, rows, opts)
    blocks += _usage_section(runs)
    blocks += _shortfall_section(runs, opts)
    if fleet_runs is not None:
        fblocks, ffiles = fleet_report.section(fleet_runs, out_dir, plots=opts.plots, resamples=opts.resamples,
                                               seed=opts.seed, confidence=opts.confidence)
        blocks += fblocks
        files += ffiles
    import psab

    stamp = _dt.datetime.now(_dt.UTC).strftime("%Y-%m-%d %H:%M UTC")
    blocks.append(Para([t(f"Generated by psab {psab.__version__} on {stamp} from "),
                        *_join([c(str(r.path)) for r in runs.runs]),
                        t(". Per-case details of the public split come from each run's records and artifacts; "
                          "scores are the evaluator's, normalized to each task's reference optimum.")], note=True))
    return blocks, files, rows


def _join(spans: Sequence[doc.Span], sep: str = ", ") -> list[doc.Span]:
    out: list[doc.Span] = []
    for i, s in enumerate(spans):
        if i:
            out.append(t(sep))
        out.append(s)
    return out


def write_report(paths: Sequence[str | Path], out: str | Path | None = None, opts: ReportOptions | None = None) -> ReportFiles:
    """Read the runs, write ``report.md``, ``report.html`` and the plots into ``out``.

    ``out`` defaults to ``RUN_DIR/report`` for one run, and is required for several.
    """
    opts = opts or ReportOptions()
    if out is None:
        if len(paths) != 1:
            from psab.errors import InvalidArgumentError

            raise InvalidArgumentError("several runs need --out DIR for the report")
        out = Path(paths[0]) / "report"
    out_dir = Path(out)
    runs = load_runs(list(paths), separate_runs=opts.separate_runs)
    out_dir.mkdir(parents=True, exist_ok=True)
    blocks, files, rows = build(runs, out_dir, opts)
    title = next((blk.text for blk in blocks if isinstance(blk, Heading)), "psab report")
    md_path = out_dir / "report.md"
    html_path = out_dir / "report.html"
    md_path.write_text(doc.markdown(blocks, out_dir), encoding="utf-8")
    html_path.write_text(doc.html(blocks, title, embed=opts.embed), encoding="utf-8")
    if not rows and any(r.manifest.get("tier") == "fleet" for r in runs.runs):
        from psab.reports import fleet as fleet_report

        return ReportFiles(md_path, html_path, files, fleet_report.terminal(runs, opts))
    return ReportFiles(md_path, html_path, files, _terminal_summary(rows, opts.confidence))


def _terminal_summary(rows: list[analysis.SplitRow], confidence: float) -> str:
    from psab.cli import table

    body = [(r.agent, r.split, str(r.retries.cases), f"{r.retries.feasible}/{r.retries.cases}",
             f"{r.retries.perfect}/{r.retries.cases}", f"{r.retries.mean_score:.3f}",
             r.ci.text() if r.ci else "—") for r in rows]
    return table(body, ("agent", "split", "cases", "feasible", "perfect", "mean", f"{confidence:.0%} CI"))
