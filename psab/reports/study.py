"""The study tier in ``psab report``: one table per study of the mean score of every
deliverable (shared/spec/studies.md, "The evaluation": the result's evidence carries one score
per deliverable; the score is their stated weighted mean when the decision meets every
criterion, else 0).

A study run's records carry ``tier: study`` and, in each attempt's result, the
``deliverable_scores`` and ``weights`` the kernel computed (:mod:`psab.runner.study`); the
report reads them from the final attempt. Privacy as elsewhere in the report: the public
split's tables always, the held-out split's only with ``include_private``.
"""

from __future__ import annotations

from typing import Any

from psab.reports.doc import Block, Heading, Para, Table, c, cell, t


def has_studies(runs: Any) -> bool:
    return any(e.record.get("tier") == "study" for e in runs.entries)


def section(runs: Any, opts: Any) -> list[Block]:
    """The "Deliverables" section: per split shown, per study, a row per agent."""
    from psab.runner.study import deliverable_rows, deliverable_tables

    records = [{**e.record, "agent": e.agent} for e in runs.entries if e.record.get("tier") == "study"]
    splits = [s for s in runs.splits if s == "public" or opts.include_private]
    out: list[Block] = [Heading(2, "Deliverables (study tier)", "deliverables")]
    if not splits:
        out.append(Para([t("These runs have no public study cases.")]))
    for split in splits:
        rows = deliverable_rows(records, runs.agents, splits=(split,))
        for study, header, body in deliverable_tables(rows):
            out.append(Heading(3, f"{study} — {'held-out' if split == 'heldout' else split} split",
                               f"deliverables-{split}-{study}"))
            out.append(Table(list(header), [[cell(x) if i < 3 else _score_cell(x) for i, x in enumerate(r)]
                                            for r in body],
                             ["l", "l"] + ["r"] * (len(header) - 2)))
    out.append(Para([t("Each deliverable's cell is its mean score over the cases (final attempt; the column names "
                       "its weight). The score column is the case score's mean: the weighted mean of the "
                       "deliverables when the decision meets every criterion, 0 when it does not — so a row can "
                       "show right analyses beside a score of 0. Per case, see "), c("result.json"),
                     t(" (evidence.deliverables: the mismatches per deliverable).")], note=True))
    return out


def _score_cell(text: str) -> Any:
    try:
        v = float(text)
    except ValueError:
        return cell(text)
    return cell(text, heat=v)
