"""Run summaries: per agent and split, on first attempts only and with infrastructure retries.

A case's outcome on a basis is the attempt that basis looks at — the first one, or the last one
(after infrastructure retries). Feasible, perfect and mean score are over *all* cases of the
agent and split: an infrastructure failure counts as an unsolved case with score 0 and is also
counted on its own, so a provider's bad day is visible rather than silently dropped from the
denominator. The difference between the two bases is what the retries recovered.

For the held-out split only these aggregates are published; nothing per case.
"""

from __future__ import annotations

from collections.abc import Iterable, Sequence
from dataclasses import asdict, dataclass
from typing import Any

from psab.runner.execute import AGENT_FAILURE, INFRA_FAILURE
from psab.runner.store import SPLITS

BASES = ("retries", "first")


@dataclass(frozen=True)
class Row:
    agent: str
    split: str
    basis: str
    cases: int
    feasible: int
    perfect: int
    mean_score: float
    infra_failures: int
    agent_failures: int
    attempts: int

    @property
    def feasible_rate(self) -> float:
        return self.feasible / self.cases if self.cases else 0.0

    @property
    def perfect_rate(self) -> float:
        return self.perfect / self.cases if self.cases else 0.0

    def to_dict(self) -> dict[str, Any]:
        out = asdict(self)
        out["feasible_rate"] = round(self.feasible_rate, 6)
        out["perfect_rate"] = round(self.perfect_rate, 6)
        out["mean_score"] = round(self.mean_score, 6)
        return out


def outcome(record: dict[str, Any], basis: str) -> tuple[str, bool, bool, float]:
    """(class, feasible, perfect, score) of a record on a basis."""
    att = record["attempts"][0] if basis == "first" else record["attempts"][-1]
    res = att.get("result") or {}
    feasible = bool(res.get("feasible"))
    score = float(res.get("score", 0.0)) if feasible else 0.0
    return att["class"], feasible, bool(res.get("perfect")) and feasible, score


def aggregate(records: Iterable[dict[str, Any]], agents: Sequence[str] = ()) -> list[Row]:
    """Rows per (agent, split, basis), agents in the given order, then splits public/held-out."""
    groups: dict[tuple[str, str], list[dict[str, Any]]] = {}
    for r in records:
        groups.setdefault((r["agent"], r["split"]), []).append(r)
    order = list(agents) + sorted({a for a, _ in groups} - set(agents))
    rows = []
    for agent in order:
        for split in SPLITS:
            recs = groups.get((agent, split))
            if not recs:
                continue
            for basis in BASES:
                outs = [outcome(r, basis) for r in recs]
                n = len(outs)
                rows.append(Row(
                    agent=agent, split=split, basis=basis, cases=n,
                    feasible=sum(o[1] for o in outs),
                    perfect=sum(o[2] for o in outs),
                    mean_score=sum(o[3] for o in outs) / n,
                    infra_failures=sum(o[0] == INFRA_FAILURE for o in outs),
                    agent_failures=sum(o[0] == AGENT_FAILURE for o in outs),
                    attempts=sum(1 if basis == "first" else len(r["attempts"]) for r in recs),
                ))
    return rows


def table_rows(rows: Sequence[Row]) -> tuple[list[tuple[str, ...]], tuple[str, ...]]:
    header = ("agent", "split", "basis", "cases", "feasible", "perfect", "mean", "infra fail", "agent fail", "attempts")
    out = [
        (r.agent, r.split, "first attempt" if r.basis == "first" else "with retries", str(r.cases),
         f"{r.feasible}/{r.cases}", f"{r.perfect}/{r.cases}", f"{r.mean_score:.3f}",
         str(r.infra_failures), str(r.agent_failures), str(r.attempts))
        for r in rows
    ]
    return out, header


def text_table(rows: Sequence[Row]) -> str:
    from psab.cli import table

    body, header = table_rows(rows)
    return table(body, header)


def markdown(summary: dict[str, Any], rows: Sequence[Row]) -> str:
    body, header = table_rows(rows)
    lines = [f"# psab run {summary['run_id']}", ""]
    lines.append(f"psab {summary['psab_version']} · isolation {summary['isolation']} · backend {summary['backend']} · "
                 f"{summary['recorded']}/{summary['planned']} cases recorded" + ("" if summary["complete"] else " (incomplete)"))
    held = summary.get("heldout")
    if held:
        lines.append("")
        lines.append(f"Held-out split: {held['cases']} cases from {len(held['families'])} families, seed commitment "
                     f"`{held['seed_commitment']}` (the seed itself is not recorded).")
    lines += ["", "| " + " | ".join(header) + " |", "|" + "---|" * len(header)]
    lines += ["| " + " | ".join(r) + " |" for r in body]
    lines += ["", "Rates are over all cases; an infrastructure failure counts as score 0 and is also counted "
              "on its own. 'first attempt' ignores the infrastructure retries; 'with retries' uses each case's "
              "last attempt.", ""]
    return "\n".join(lines)


def model_api_usage(records: Iterable[dict[str, Any]], agents: Sequence[str] = ()) -> list[dict[str, Any]]:
    """Per agent, over every attempt whose model calls went through the recording proxy
    (:mod:`psab.runner.proxy`): attempts, requests, failed requests, tokens and cost (None
    when the agent names no prices). Empty when no attempt was proxied."""
    acc: dict[str, dict[str, Any]] = {}
    for r in records:
        for a in r.get("attempts") or []:
            m = a.get("model_api")
            if not isinstance(m, dict):
                continue
            row = acc.setdefault(r["agent"], {"agent": r["agent"], "attempts": 0, "requests": 0, "failed_requests": 0,
                                              "input_tokens": 0, "output_tokens": 0, "cost_usd": None})
            row["attempts"] += 1
            row["requests"] += int(m.get("n_requests") or 0)
            row["failed_requests"] += int(m.get("n_failed") or 0)
            row["input_tokens"] += int(m.get("input_tokens") or 0)
            row["output_tokens"] += int(m.get("output_tokens") or 0)
            if m.get("cost_usd") is not None:
                row["cost_usd"] = round((row["cost_usd"] or 0.0) + float(m["cost_usd"]), 8)
    order = [a for a in agents if a in acc] + sorted(set(acc) - set(agents))
    return [acc[a] for a in order]


def usage_markdown(usage: Sequence[dict[str, Any]]) -> str:
    """The summary's section on model API usage (nothing when no attempt was proxied)."""
    if not usage:
        return ""
    lines = ["## Model API usage", "", "| agent | attempts | requests | failed | input tokens | output tokens | cost (USD) |",
             "|---|---|---|---|---|---|---|"]
    for u in usage:
        cost = "—" if u["cost_usd"] is None else f"{u['cost_usd']:.4f}"
        lines.append(f"| {u['agent']} | {u['attempts']} | {u['requests']} | {u['failed_requests']} | "
                     f"{u['input_tokens']} | {u['output_tokens']} | {cost} |")
    lines += ["", "As the runner's recording proxy saw them, every attempt included (the tokens the upstream "
              "reported; the cost at the agent's price_per_mtok).", ""]
    return "\n".join(lines) + "\n"


def public_cases(records: Iterable[dict[str, Any]]) -> list[dict[str, Any]]:
    """Per-case lines for the public split only (publishable: the public answers are public)."""
    out = []
    for r in records:
        if r["split"] != "public":
            continue
        cls, feasible, perfect, score = outcome(r, "retries")
        out.append({"agent": r["agent"], "family": r["family"], "task_id": r["task_id"], "final_class": cls,
                    "feasible": feasible, "perfect": perfect, "score": score, "attempts": len(r["attempts"])})
    return sorted(out, key=lambda c: (c["agent"], c["family"], c["task_id"]))
