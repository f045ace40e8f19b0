"""The numbers a report shows, computed from runs (no rendering here).

Counts and means per agent and split come from :func:`psab.runner.summary.aggregate` — the
same function that writes a run's ``summary.json`` — so a report and a run's summary always
agree. Everything finer (per family, per area, per case) uses the same per-record outcome
(:func:`psab.runner.summary.outcome`, "with retries" basis unless said otherwise).
"""

from __future__ import annotations

from collections.abc import Callable, Iterable
from dataclasses import dataclass
from itertools import combinations

from psab.reports.load import Entry, Runs, runs_records
from psab.reports.stats import Interval, Paired, bootstrap_mean, paired_difference
from psab.runner.store import SPLITS
from psab.runner.summary import Row, aggregate


@dataclass(frozen=True)
class SplitRow:
    """One agent on one split, on both bases, with the interval of its mean score."""

    agent: str
    split: str
    first: Row
    retries: Row
    ci: Interval | None
    distinct_cases: int


@dataclass(frozen=True)
class Stats:
    """Aggregate of some records (with-retries basis)."""

    n: int
    feasible: int
    perfect: int
    mean: float

    @classmethod
    def of(cls, entries: Iterable[Entry]) -> Stats | None:
        es = list(entries)
        if not es:
            return None
        return cls(len(es), sum(e.final.feasible for e in es), sum(e.final.perfect for e in es),
                   sum(e.final.score for e in es) / len(es))


def case_scores(entries: Iterable[Entry]) -> dict[tuple[str, str], float]:
    """Each case's score (with retries), averaged over the runs that recorded it."""
    acc: dict[tuple[str, str], list[float]] = {}
    for e in entries:
        acc.setdefault(e.case_key, []).append(e.final.score)
    return {k: sum(v) / len(v) for k, v in acc.items()}


def split_rows(runs: Runs, *, resamples: int, seed: int, confidence: float) -> list[SplitRow]:
    """Per agent and split: the run summary's rows for both bases, and the bootstrap interval."""
    rows = aggregate(runs_records(runs), runs.agents)
    by_key: dict[tuple[str, str, str], Row] = {(r.agent, r.split, r.basis): r for r in rows}
    out = []
    for agent in runs.agents:
        for split in SPLITS:
            if (agent, split, "retries") not in by_key:
                continue
            scores = case_scores(e for e in runs.entries if e.agent == agent and e.split == split)
            ci = bootstrap_mean(list(scores.values()), resamples=resamples, seed=seed, confidence=confidence) if scores else None
            out.append(SplitRow(agent, split, by_key[(agent, split, "first")], by_key[(agent, split, "retries")], ci,
                                len(scores)))
    return out


def _stats_by(runs: Runs, split: str, key: Callable[[Entry], str]) -> dict[tuple[str, str], Stats]:
    """``(agent, key(entry)) -> Stats`` on one split."""
    groups: dict[tuple[str, str], list[Entry]] = {}
    for e in runs.split_entries(split):
        groups.setdefault((e.agent, key(e)), []).append(e)
    return {k: s for k, v in groups.items() if (s := Stats.of(v)) is not None}


def family_stats(runs: Runs, split: str) -> dict[tuple[str, str], Stats]:
    """``(agent, family) -> Stats`` on one split."""
    return _stats_by(runs, split, lambda e: e.family)


def area_stats(runs: Runs, split: str) -> dict[tuple[str, str], Stats]:
    """``(agent, area) -> Stats`` on one split (every record of the area's families)."""
    return _stats_by(runs, split, lambda e: e.area)


def area_intervals(runs: Runs, split: str, *, resamples: int, seed: int, confidence: float) -> dict[tuple[str, str], Interval]:
    out = {}
    for agent in runs.agents:
        for area in runs.areas(split):
            scores = case_scores(e for e in runs.split_entries(split) if e.agent == agent and e.area == area)
            if scores:
                out[(agent, area)] = bootstrap_mean(list(scores.values()), resamples=resamples, seed=seed,
                                                    confidence=confidence)
    return out


def paired_differences(runs: Runs, split: str, *, resamples: int, seed: int, confidence: float) -> list[Paired]:
    """Every pair of agents with cases in common on ``split``: the paired bootstrap of a − b."""
    per_agent = {a: case_scores(e for e in runs.split_entries(split) if e.agent == a) for a in runs.agents}
    out = []
    for a, b in combinations(runs.agents, 2):
        common = sorted(set(per_agent[a]) & set(per_agent[b]))
        if not common:
            continue
        out.append(paired_difference([per_agent[a][k] for k in common], [per_agent[b][k] for k in common],
                                     names=(a, b), resamples=resamples, seed=seed, confidence=confidence))
    return out


def shortfalls(runs: Runs, split: str) -> list[Entry]:
    """Every record of ``split`` not scoring 1 (with retries), in family then agent order."""
    fam_order = {f: i for i, f in enumerate(runs.families())}
    agent_order = {a: i for i, a in enumerate(runs.agents)}
    bad = [e for e in runs.split_entries(split) if not e.final.perfect]
    return sorted(bad, key=lambda e: (fam_order.get(e.family, 1 << 30), e.task_id, agent_order.get(e.agent, 1 << 30),
                                      e.run.label))
