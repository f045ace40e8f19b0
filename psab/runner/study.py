"""``psab run --tier study``: the study tier (shared/spec/studies.md) on the one run loop.

A study is a case of the registry like a compact family (``psab.studies()``; public case and
held-out draws exactly as for the compact tier, ``psab.generate`` with its level), judged by
``psab.evaluate``. What differs, per attempt:

- the agent's view is ``study.json`` (the task's agent view, what the compact tier writes as
  ``task.json``) **plus the model files** the study writes (``spec.materialize``) at the
  relative paths ``public_inputs["model"]["files"]`` lists, beside it in the working directory;
- the instructions are a study's (:func:`study_instructions`): the brief, the deliverables
  with their weights, where the model files are, the answer file and its schema — and the
  toolbox (on by default here: ``--no-toolbox`` turns it off; a run that asks for it refuses
  when it is not built);
- the record's result carries the deliverable scores (``evidence["deliverable_scores"]``) and
  the weights, so the summary and ``psab report`` show a per-deliverable table
  (:func:`deliverable_rows`, :mod:`psab.reports.study`);
- the default time per attempt is an hour (:data:`DEFAULT_TIMEOUT_S`): a study is a day's work
  for an engineer, not a minute's.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass, replace
from pathlib import Path
from typing import Any, ClassVar

from psab.contract import EvaluationResult
from psab.errors import RunnerError
from psab.runner.execute import CaseJob, CompactCase, _summary
from psab.runner.instructions import VIEW_FILE, study_instructions
from psab.runner.run import CompactTier, RunOptions
from psab.runner.tiers import Case, Service

TIER = "study"
#: The study tier's default per-attempt timeout, seconds.
DEFAULT_TIMEOUT_S = 3600.0


@dataclass
class StudyOptions(RunOptions):
    """A study run's options: the compact tier's, with an hour per attempt and the toolbox on."""

    timeout_s: float = DEFAULT_TIMEOUT_S


@dataclass(frozen=True)
class StudyJob(CaseJob):
    def open(self, hidden: list[Path]) -> Case:
        return StudyCase(self, hidden)


class StudyCase(CompactCase):
    """A study on the worker: ``study.json`` and the model files, the study's instructions,
    ``psab.evaluate`` with the deliverable scores in the record."""

    canonical_reference = True

    def write_view(self, box: Path, paths: dict[str, str]) -> Any:
        import psab

        s = self.job.settings
        from psab.views import agent_view

        view = agent_view(self.task, presentation=s.presentation, backend=s.backend)
        paths["task"] = str(Path(paths["workdir"]) / VIEW_FILE)
        (box / VIEW_FILE).write_text(view.to_json(), encoding="utf-8")
        spec = psab.get_family(self.task.family)
        # the model in the field's own files, each checked against its sha256 by the study
        # (a missing or different file is the study's InvalidTaskError, not the agent's)
        spec.materialize(self.task, box)  # type: ignore[misc]
        return view

    def instructions(self, view: Any, lang: str, paths: dict[str, str], service: Service) -> str:
        return study_instructions(view, lang, paths)

    def result_summary(self, result: EvaluationResult) -> dict[str, Any]:
        return study_summary(result)

    def record(self, attempts: list[dict[str, Any]]) -> dict[str, Any]:
        return {**super().record(attempts), "tier": TIER}


def study_summary(result: EvaluationResult) -> dict[str, Any]:
    """The record's ``result`` of a study: the compact tier's, and the score of every
    deliverable (decision included) with the weights, as the kernel put them in the evidence."""
    out = _summary(result) or {}
    scores = result.evidence.get("deliverable_scores")
    if isinstance(scores, dict):
        out["deliverable_scores"] = {str(k): float(v) for k, v in scores.items()}
    weights = result.evidence.get("weights")
    if isinstance(weights, dict):
        out["weights"] = {str(k): float(v) for k, v in weights.items()}
    return out


# ------------------------------------------------------------------------------ summaries


def deliverable_rows(records: Sequence[dict[str, Any]], agents: Sequence[str] = (),
                     splits: Sequence[str] = ("public",)) -> list[dict[str, Any]]:
    """Per agent × split × study: cases, the mean score and the mean score of every deliverable
    (each case's final attempt; a case without deliverable scores — an infrastructure failure —
    counts 0 for each, as the runner's summary counts it unsolved). Deliverables in the study's
    order. Only the ``splits`` given (the summary publishes the public split's)."""
    import psab

    groups: dict[tuple[str, str, str], list[dict[str, Any]]] = {}
    for r in records:
        if r.get("tier") != TIER or r["split"] not in splits:
            continue
        groups.setdefault((str(r["agent"]), str(r["split"]), str(r["family"])), []).append(r)
    order = list(agents) + sorted({a for a, _, _ in groups} - set(agents))
    rows = []
    for agent in order:
        for split in splits:
            for study in sorted({f for a, s, f in groups if a == agent and s == split}):
                recs = groups[(agent, split, study)]
                try:
                    names = [d.name for d in psab.get_family(study).deliverables]
                except Exception:  # noqa: BLE001 - a study this installation does not know (an old run)
                    names = sorted({k for r in recs for k in ((r["attempts"][-1].get("result") or {})
                                                              .get("deliverable_scores") or {})})
                finals = [(r["attempts"][-1].get("result") or {}) for r in recs]
                n = len(finals)
                row: dict[str, Any] = {
                    "agent": agent, "split": split, "study": study, "cases": n,
                    "mean_score": round(sum(float(f.get("score") or 0.0) if f.get("feasible") else 0.0
                                            for f in finals) / n, 6),
                    "deliverables": {name: round(sum(float((f.get("deliverable_scores") or {}).get(name, 0.0))
                                                     for f in finals) / n, 6) for name in names},
                    "weights": next((dict(f["weights"]) for f in finals if f.get("weights")), {}),
                }
                rows.append(row)
    return rows


def deliverable_tables(rows: Sequence[dict[str, Any]]) -> list[tuple[str, tuple[str, ...], list[tuple[str, ...]]]]:
    """(study, header, body) per study: agent, split, cases, score, then each deliverable (its weight)."""
    out = []
    for study in dict.fromkeys(r["study"] for r in rows):
        rs = [r for r in rows if r["study"] == study]
        names = list(rs[0]["deliverables"])
        w = rs[0].get("weights") or {}
        header = ("agent", "split", "cases", "score", *(f"{n} ×{w[n]:g}" if n in w else n for n in names))
        body = [(r["agent"], r["split"], str(r["cases"]), f"{r['mean_score']:.3f}",
                 *(f"{r['deliverables'].get(n, 0.0):.3f}" for n in names)) for r in rs]
        out.append((study, header, body))
    return out


class StudyTier(CompactTier):
    """The study tier: the compact tier's planning over ``psab.studies()``, with the study's
    view, instructions and per-deliverable summary."""

    name = TIER
    toolbox_default = True
    options_class: ClassVar[type[RunOptions]] = StudyOptions

    def catalogue(self) -> list[Any] | None:
        return list(study_specs())

    def check(self) -> None:
        if not self.catalogue():
            raise RunnerError("no study is registered in this psab (psab.registry.STUDY_MODULES is empty)")
        super().check()

    def job(self, t: Any, agent: Any, settings: Any) -> Any:
        return StudyJob(agent=agent, split=t.split, index=t.index, task=t.task, task_key=t.key, settings=settings)

    def summary(self, manifest: dict[str, Any], records: list[dict[str, Any]],
                rows: list[Any]) -> tuple[dict[str, Any], str, str]:
        from psab.cli import table

        extra, section, text = super().summary(manifest, records, rows)
        agents = [a["name"] for a in manifest["agents"]]
        drows = deliverable_rows(records, agents)
        extra["deliverable_rows"] = drows
        md = ["", "## Deliverables (public split)", ""]
        for study, header, body in deliverable_tables(drows):
            md += [f"### {study}", "", "| " + " | ".join(header) + " |", "|" + "---|" * len(header)]
            md += ["| " + " | ".join(b) + " |" for b in body] + [""]
            text += f"\n\n{study}\n" + table(body, header)
        return extra, section + "\n".join(md), text


def study_specs() -> tuple[Any, ...]:
    """The study tier's cases: :func:`psab.studies` (a test may stand in its own)."""
    import psab

    return tuple(psab.studies())


def options(**given: Any) -> StudyOptions:
    """:class:`StudyOptions` from the command line's values (None: the default)."""
    return replace(StudyOptions(agents=given.pop("agents")), **{k: v for k, v in given.items() if v is not None})
