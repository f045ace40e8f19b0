"""The family registry: :class:`FamilySpec`, :func:`register`, and the explicit family lists.

Every family module under :mod:`psab.families` ends with ``SPEC = register(FamilySpec(...))``;
so does every study of the study tier under :mod:`psab.studies` (``tier="study"``, scoring kind
``study``, its :class:`Deliverable` list). The modules to load are listed explicitly in
:data:`FAMILY_MODULES` and :data:`STUDY_MODULES` (a test checks those lists against the files),
and they are imported only when the registry is first asked for, so ``import psab`` stays
light. The family modules import this one, never the other way round: it loads them by name
with :func:`importlib.import_module`.

:func:`families` lists the compact tier (the 41 families) and :func:`studies` the study tier;
:func:`get_family` finds either, so ``psab.evaluate``, ``solve``, ``generate``, ``check`` and
``qc`` take a study exactly as they take a family.
"""

from __future__ import annotations

import importlib
import math
import threading
from collections.abc import Callable, Iterable, Mapping
from dataclasses import dataclass, field
from typing import Any

from psab.backends import BACKENDS
from psab.contract import SCORING_KINDS, Task, Violation, to_jsonable
from psab.errors import InvalidTaskError, PsabError, UnknownFamilyError

#: The eight areas of the benchmark (docs/families.md §1–§8), id → English and Russian titles.
AREAS: dict[str, tuple[str, str]] = {
    "network": ("Network analysis and operating constraints", "Анализ сети и режимные ограничения"),
    "short_circuit_protection": ("Short circuit and protection", "Короткие замыкания и релейная защита"),
    "stability_grid_code": (
        "Stability, grid code, and inverter-based resources",
        "Устойчивость, сетевые кодексы и инверторные источники",
    ),
    "der_storage": (
        "Distributed resources, PV, EV, and storage",
        "Распределённые ресурсы, СЭС, электромобили и накопители",
    ),
    "microgrids_dispatch": ("Microgrids and dispatch", "Микросети и диспетчеризация"),
    "reliability_restoration": ("Reliability and restoration", "Надёжность и восстановление"),
    "quality_standards_assets_cyber": (
        "Power quality, standards, assets, and cybersecurity",
        "Качество электроэнергии, стандарты, оборудование и кибербезопасность",
    ),
    "forecasting": ("Forecasting under uncertainty", "Прогнозирование в условиях неопределённости"),
}

CONFIDENCE_LEVELS = ("high", "medium", "low")

#: The family modules under :mod:`psab.families` the registry loads, in catalogue order
#: (``docs/families.md``): add a new family's module name here.
FAMILY_MODULES: tuple[str, ...] = (
    # 1. Network analysis and operating constraints
    "ybus_construction",
    "pf_voltage_repair",
    "contingency_screening",
    "corrective_transmission_switching",
    "dynamic_thermal_rating",
    # 2. Short circuit and protection
    "three_phase_short_circuit",
    "earth_fault_calculation",
    "breaker_relay_short_circuit",
    "distance_protection_settings",
    "overcurrent_protection",
    "cable_ampacity_sizing",
    # 3. Stability, grid code, and inverter-based resources
    "critical_clearing_time",
    "transient_stability_prediction",
    "frt_compliance",
    "ibr_short_circuit_frt",
    "min_synchronous_share",
    # 4. Distributed resources, PV, EV, and storage
    "pv_volt_var",
    "ev_v2g_outage_schedule",
    "ev_v2g_voltage_support",
    "bess_ancillary_response",
    "commercial_pv_lcoe_uncertainty",
    # 5. Microgrids and dispatch
    "microgrid_economic_dispatch",
    "rolling_microgrid_dispatch",
    "islanded_microgrid_pq_dispatch",
    "dispatch_uncertainty",
    "hydro_thermal_storage_uc",
    "n1_generation_commitment",
    # 6. Reliability and restoration
    "flisr_restoration",
    "fault_section_localization",
    "fci_placement",
    "fci_saidi_caidi",
    "operator_breaker_load_actions",
    # 7. Power quality, standards, assets, and cybersecurity
    "en50160_voltage_compliance",
    "power_quality_event_classification",
    "harmonic_ieee519_compliance",
    "transformer_thermal_loading",
    "fdi_state_estimation",
    "protected_meter_placement",
    "mas_frequency_handover",
    # 8. Forecasting under uncertainty
    "wind_power_forecast",
    "wind_prediction_interval",
)

#: The study modules under :mod:`psab.studies`, in catalogue order (``docs/studies.md``).
STUDY_MODULES: tuple[str, ...] = (
    "interconnection_study",
    "hosting_capacity_study",
    "protection_coordination_study",
    "scuc_study",
    "dynamic_security_study",
)

#: The tiers a :class:`FamilySpec` belongs to: the compact families and the studies (the fleet
#: tier's questions are not tasks of the registry; :mod:`psab.fleet`).
TIERS = ("compact", "study")

#: What a study's deliverable is: an analysis result checked against psab's recomputation, or
#: the decision, applied to the model and re-simulated under every criterion.
DELIVERABLE_KINDS = ("analysis", "decision")

#: How much of the method a task's statement spells out (docs/families.md, "Presentations"):
#: ``guided`` gives the method step by step (the paper's tasks, the default); ``expert`` names the standard, edition and clause, the quantities and
#: the case's own choices where the standard leaves one open — no formula, no step list.
PRESENTATION_LEVELS = ("guided", "expert")


@dataclass(frozen=True)
class Reference:
    """A family's reference solution for one task under one backend.

    ``answer`` satisfies the task's submission schema; ``objective`` is the solver's own
    optimum for optimize families (the evaluator recomputes it from ``answer`` as well, and a
    test keeps the two equal); ``evidence`` carries what the reference computed along the way.
    """

    answer: dict[str, Any]
    objective: float | None = None
    evidence: dict[str, Any] = field(default_factory=dict)
    method: str = ""


@dataclass(frozen=True)
class Deliverable:
    """One deliverable of a study: a top-level field of the answer.

    ``weight`` is its share of the score (``score = Σ wᵢ·sᵢ / Σ wᵢ`` over every deliverable,
    the decision's ``sᵢ`` its optimize score); ``en``/``ru`` say in one line what it is, for the
    statement's table of deliverables.
    """

    name: str
    kind: str
    weight: float
    en: str
    ru: str

    def to_dict(self) -> dict[str, Any]:
        return {"name": self.name, "kind": self.kind, "weight": self.weight}


@dataclass
class Assessment:
    """What a family's evaluator found in one schema-valid answer.

    The kernel turns it into a result: ``violations`` decide feasibility; ``objective``
    (optimize), ``correct``/``total`` (classify) or ``skill`` (forecast) decide the score.
    """

    violations: list[Violation] = field(default_factory=list)
    objective: float | None = None
    correct: int | None = None
    total: int | None = None
    skill: float | None = None
    evidence: dict[str, Any] = field(default_factory=dict)
    #: Study: the score in [0, 1] of each *analysis* deliverable (by name); the kernel adds the
    #: decision's. ``violations`` are then the decision's criteria failures only.
    deliverable_scores: dict[str, float] | None = None


@dataclass(frozen=True)
class Generated:
    """One held-out draw: new public inputs and, where evaluation needs hidden data, a key."""

    public_inputs: dict[str, Any]
    key: dict[str, Any] | None = None


#: ``solve(task, backend) -> Reference``
SolveFn = Callable[[Task, str], Reference]
#: ``evaluate(task, answer, ctx) -> Assessment`` — ``answer`` already satisfies the schema.
EvaluateFn = Callable[[Task, dict[str, Any], Any], Assessment]
#: ``generate(public_task, rng) -> Generated``, or ``generate(public_task, rng, level)`` for a
#: family that declares more than one difficulty level.
GenerateFn = Callable[..., Generated]


@dataclass(frozen=True)
class FamilySpec:
    """Everything the kernels need to know about a family, in one declaration.

    Parameters
    ----------
    id, area, scoring_kind, confidence, version
        Identity and classification (``docs/families.md``); bump ``version`` whenever a change
        could alter a verdict.
    provenance
        Source entries: ``title``, ``locator`` (DOI, clause or full citation), ``note`` (how
        the source maps onto the case), ``confidence``.
    submission_schema
        ``public_inputs -> JSON Schema`` of the answer. Built per task so that lengths and ids
        are exact (``minItems``/``maxItems``, ``enum`` of bus ids), and with
        ``additionalProperties: false`` so a misspelt field is reported, not ignored.
    hard_constraints, metrics
        Words for the agent. ``metrics`` lists family-specific metrics beyond the ones every
        task reports (feasible, score, and the objective of optimize families).
    tolerances
        ``relative`` (default 1e-3), ``absolute_floors`` (field pattern → floor in the
        field's unit, ``"default"`` for the rest), ``feasibility`` (constraint → slack) and,
        for optimize families, ``objective`` (``relative``/``absolute`` gap treated as a tie).
    presentation
        ``{"en": {...}, "ru": {...}}`` with ``title``, ``statement``, ``answer_notes``; the
        Russian one also carries ``hard_constraints``, a translation of each entry of
        ``hard_constraints`` in order (the English list is ``hard_constraints`` itself).
    backends
        Backends the family supports; ``"surrogate"`` is always first.
    solve, evaluate, generate
        The reference solver, the evaluator and the held-out generator.
    objective_sense, objective_unit, objective_scale_floor
        Optimize families: whether the objective is minimized or maximized, its unit, and the
        case-independent floor of the normalization scale (``score = 1 - gap / max(|ref|, floor)``).
    accept
        Optional family acceptance rule for held-out draws: ``(task, reference) -> reason`` to
        reject, or ``None`` to accept (margins that keep backends in agreement, no trivial answer).
    inputs_schema
        Optional JSON Schema of ``public_inputs``; a task that fails it is the caller's error.
    validate_inputs
        Optional physical sanity check of schema-valid ``public_inputs`` (references that
        resolve, series lengths that agree, ordered bounds, a connected network): returns a
        list of ``"<JSON pointer>: <problem>"`` strings, empty when the task is usable
        (helpers in :mod:`psab.evaluators.input_checks`).
    mutation_exempt
        Answer field patterns (``/schedule/*/soc_mwh``) whose small nudges may legitimately stay
        optimal (a free variable at a flat optimum); the conformance suite skips their ×1.05
        mutation. Each needs a reason in the family module.
    other_readings
        Optional ``task -> [(name, answer), ...]``: the answer an engineer would give under each
        *other* reading of a convention the statement fixes (repair timed from switching instead
        of from location, ageing rate at the step's end instead of its start), computed by the
        family's own method with only that choice changed. Each reading that differs beyond
        tolerance must score below 1 — the evidence that the evaluator tells the stated
        convention from its neighbour (``psab qc --sensitivity`` lists them as kind
        ``other_reading``; the conformance suite requires each to be caught). Names are short
        ``snake_case`` phrases of the other reading (``repair_after_switching``).
    neighbourhood
        Optional ``(task, answer) -> [(description, perturbed answer), ...]`` used by held-out
        acceptance to check that no small perturbation of the reference beats it; the default
        nudges every number up and down and flips every boolean, one at a time.
    redraw_budget
        Held-out draws tried per index before :class:`~psab.errors.GenerationError`.
    trivial_answer
        Optional ``task -> answer | None``: the answer a guesser would give without solving
        (held-out acceptance rejects a draw on which it scores 1). When unset, the kernel
        builds one from the submission schema (zeros, ``false``, first enum values, empty
        sets); a callable returning ``None`` turns the check off for the family.
    min_distinct_fraction
        Share of K validation variants that must be distinct instances (``psab
        validate-generators``). 1 for continuous families; a categorical family drawing from a
        small discrete set (a fault location among a few sections) declares less.
    expert
        The expert presentation: ``{"en": {"statement": ...}, "ru": {"statement": ...}}`` — the
        standard, edition and clause, the quantities asked and the case's own choices where the
        standard leaves one open; no formula, no factor, no step list. Title, answer notes, hard
        constraints, inputs, evaluator and reference are the guided presentation's.
    judged_by
        Per declared backend, ``{"en": ..., "ru": ...}``: which physics judges an answer under
        that backend and by which rule (an agent is told it in its instructions, so that no
        answer is right under one backend and wrong under the one the agent was not told of).
    naive_answer
        Optional ``task -> answer``: the naive baseline — what an engineer following the guided
        text's simplest reading would submit (nominal values where the case says otherwise, a
        skipped correction factor, a merit-order schedule that ignores a coupling). The
        difficulty table (``benchmarks/bench_difficulty.py``) scores it per level, so it shows
        where the levels make a family harder.
    levels
        Difficulty levels the generator honours (``generate(public, rng, level)``): 1 is the
        public case's kind of instance; higher levels make the engineering harder (more
        equipment types and couplings, realistic size, data as an engineer receives it).
    tier
        ``compact`` (a family) or ``study`` (the study tier: scoring kind ``study``, listed in
        :data:`STUDY_MODULES`).
    deliverables
        Study: its deliverables in the statement's order, exactly one of kind ``decision``.
    materialize
        Study: ``(task, directory) -> None`` writes the model files the task lists in
        ``public_inputs["model"]["files"]`` (a MATPOWER case, a SimBench CSV folder, profile
        CSVs) under ``directory`` at their relative paths, each checked against its sha256
        (:func:`psab.studies.model.write_files`); the runner fills a sandbox with it.
    """

    id: str
    area: str
    scoring_kind: str
    confidence: str
    version: str
    provenance: tuple[dict[str, str], ...]
    submission_schema: Callable[[Mapping[str, Any]], dict[str, Any]]
    hard_constraints: tuple[str, ...]
    metrics: tuple[dict[str, str], ...]
    tolerances: Mapping[str, Any]
    presentation: Mapping[str, Mapping[str, Any]]
    backends: tuple[str, ...]
    solve: SolveFn
    evaluate: EvaluateFn
    generate: GenerateFn
    objective_sense: str | None = None
    objective_unit: str | None = None
    objective_scale_floor: float = 1.0
    accept: Callable[[Task, Reference], str | None] | None = None
    inputs_schema: Mapping[str, Any] | None = None
    validate_inputs: Callable[[Mapping[str, Any]], list[str]] | None = None
    mutation_exempt: tuple[str, ...] = ()
    other_readings: Callable[[Task], Iterable[tuple[str, dict[str, Any]]]] | None = None
    neighbourhood: Callable[[Task, dict[str, Any]], Iterable[tuple[str, dict[str, Any]]]] | None = None
    redraw_budget: int = 20
    trivial_answer: Callable[[Task], dict[str, Any] | None] | None = None
    min_distinct_fraction: float = 1.0
    expert: Mapping[str, Mapping[str, str]] | None = None
    judged_by: Mapping[str, Mapping[str, str]] | None = None
    levels: tuple[int, ...] = (1,)
    naive_answer: Callable[[Task], dict[str, Any]] | None = None
    tier: str = "compact"
    deliverables: tuple[Deliverable, ...] = ()
    materialize: Callable[[Task, Any], None] | None = None

    def __post_init__(self) -> None:
        problems = self._tier_problems()
        if self.area not in AREAS:
            problems.append(f"area {self.area!r} is not one of {sorted(AREAS)}")
        if self.scoring_kind not in SCORING_KINDS:
            problems.append(f"scoring_kind {self.scoring_kind!r} is not one of {SCORING_KINDS}")
        if self.confidence not in CONFIDENCE_LEVELS:
            problems.append(f"confidence {self.confidence!r} is not one of {CONFIDENCE_LEVELS}")
        if not self.backends or self.backends[0] != "surrogate":
            problems.append("backends must start with 'surrogate'")
        if any(b not in BACKENDS for b in self.backends):
            problems.append(f"backends must be among {BACKENDS}")
        if self.scoring_kind == "optimize" and self.objective_sense not in ("minimize", "maximize"):
            problems.append("an optimize family must set objective_sense to 'minimize' or 'maximize'")
        if set(self.presentation) != {"en", "ru"}:
            problems.append("presentation must have exactly 'en' and 'ru'")
        if "hard_constraints" in self.presentation.get("en", {}):
            problems.append("presentation['en'] must not repeat hard_constraints (the spec's list is the English one)")
        translated = self.presentation.get("ru", {}).get("hard_constraints")
        if translated is None or len(translated) != len(self.hard_constraints):
            problems.append(f"presentation['ru']['hard_constraints'] must translate each of the {len(self.hard_constraints)} "
                            "hard_constraints, in order")
        if not self.provenance:
            problems.append("provenance must name at least one source")
        if self.redraw_budget < 1:
            problems.append("redraw_budget must be at least 1")
        if not 0.0 < self.min_distinct_fraction <= 1.0:
            problems.append("min_distinct_fraction must lie in (0, 1]")
        problems += self._presentation_problems()
        if problems:
            raise ValueError(f"FamilySpec {self.id!r}: " + "; ".join(problems))

    def _tier_problems(self) -> list[str]:
        problems = []
        if self.tier not in TIERS:
            return [f"tier {self.tier!r} is not one of {TIERS}"]
        if (self.tier == "study") != (self.scoring_kind == "study"):
            problems.append("a study (tier 'study') and only a study has scoring_kind 'study'")
        if self.tier != "study":
            if self.deliverables or self.materialize is not None:
                problems.append("only a study declares deliverables and materialize")
            return problems
        names = [d.name for d in self.deliverables]
        if len(set(names)) != len(names):
            problems.append("deliverable names must be unique")
        if [d.kind for d in self.deliverables].count("decision") != 1:
            problems.append("a study has exactly one deliverable of kind 'decision'")
        for d in self.deliverables:
            if d.kind not in DELIVERABLE_KINDS:
                problems.append(f"deliverable {d.name!r}: kind must be one of {DELIVERABLE_KINDS}")
            if not (isinstance(d.weight, int | float) and d.weight > 0 and math.isfinite(d.weight)):
                problems.append(f"deliverable {d.name!r}: weight must be a positive number")
            if not (d.en.strip() and d.ru.strip()):
                problems.append(f"deliverable {d.name!r}: en and ru descriptions are required")
        if self.materialize is None:
            problems.append("a study must declare materialize (its model files)")
        if self.objective_sense not in ("minimize", "maximize"):
            problems.append("a study's decision needs objective_sense 'minimize' or 'maximize'")
        return problems

    def deliverable_weights(self) -> dict[str, float]:
        """Study: deliverable name → weight, in the statement's order."""
        return {d.name: float(d.weight) for d in self.deliverables}

    def _presentation_problems(self) -> list[str]:
        problems = []
        if self.expert is not None:
            if set(self.expert) != {"en", "ru"} or not all(
                    isinstance(self.expert[lang].get("statement"), str) and self.expert[lang]["statement"].strip()
                    for lang in ("en", "ru") if lang in self.expert):
                problems.append("expert must be {'en': {'statement': ...}, 'ru': {'statement': ...}} with non-empty statements")
            elif set(self.expert["en"]) - {"statement"} or set(self.expert["ru"]) - {"statement"}:
                problems.append("expert carries only 'statement' per language (title, notes and constraints are shared)")
        for backend, words in (self.judged_by or {}).items():
            if backend not in self.backends:
                problems.append(f"judged_by names backend {backend!r}, which the family does not declare")
            elif set(words) != {"en", "ru"} or not all(isinstance(w, str) and w.strip() for w in words.values()):
                problems.append(f"judged_by[{backend!r}] must be {{'en': ..., 'ru': ...}} with non-empty text")
        if not self.levels or self.levels[0] != 1 or list(self.levels) != sorted(set(self.levels)) \
                or not all(isinstance(v, int) and not isinstance(v, bool) for v in self.levels):
            problems.append("levels must be increasing integers starting at 1")
        return problems

    def missing_pieces(self) -> list[str]:
        """What this family still lacks of a complete family (docs/adding-a-family.md): the
        expert presentation, a judging rule per backend, a second difficulty level. The
        conformance suite asserts the list is empty; ``psab check`` prints it."""
        missing = []
        if self.expert is None:
            missing.append("an expert presentation (FamilySpec.expert, en and ru)")
        for backend in self.backends:
            if backend not in (self.judged_by or {}):
                missing.append(f"the judging rule under backend {backend!r} (FamilySpec.judged_by, en and ru)")
        if len(self.levels) < 2:
            missing.append("a second difficulty level (FamilySpec.levels and generate(public, rng, level))")
        return missing

    # ------------------------------------------------------------------ tasks

    def task_tolerances(self) -> dict[str, Any]:
        tol = {"relative": 1e-3, "absolute_floors": {"default": 1e-9}}
        tol.update({k: dict(v) if isinstance(v, Mapping) else v for k, v in self.tolerances.items()})
        return tol

    def make_task(
        self,
        *,
        task_id: str,
        split: str,
        public_inputs: dict[str, Any],
        key: dict[str, Any] | None = None,
    ) -> Task:
        """Pose ``public_inputs`` as a task of this family: schema, constraints, words."""
        metrics = default_metrics(self) + [dict(m) for m in self.metrics]
        try:
            submission = self.submission_schema(public_inputs)
        except PsabError:
            raise
        except Exception as exc:  # noqa: BLE001 - the schema is built from the caller's inputs
            raise InvalidTaskError(
                f"task {task_id}: the {self.id} answer schema cannot be built from public_inputs "
                f"({type(exc).__name__}: {exc}); the inputs are malformed"
            ) from None
        return Task(
            id=task_id,
            family=self.id,
            family_version=self.version,
            area=self.area,
            scoring_kind=self.scoring_kind,
            split=split,
            public_inputs=public_inputs,
            submission_schema=submission,
            hard_constraints=list(self.hard_constraints),
            metrics=metrics,
            tolerances=self.task_tolerances(),
            provenance=[dict(p) for p in self.provenance],
            presentation=self._presentation_for_task(),
            key=key,
        )

    def _presentation_for_task(self) -> dict[str, dict[str, Any]]:
        out = {lang: {k: list(v) if isinstance(v, tuple | list) else v for k, v in text.items()}
               for lang, text in self.presentation.items()}
        if self.expert is not None:
            for lang, text in out.items():
                text["expert_statement"] = self.expert[lang]["statement"]
        return out

    def public_task(self) -> Task:
        """The family's public case, from ``cases/<id>/``."""
        from psab.io import load_case
        from psab.paths import case_dir

        return load_case(case_dir(self.id))

    def check_inputs(self, task: Task) -> None:
        """Raise :class:`InvalidTaskError` when the task's inputs do not fit this family.

        Four checks, in order: the family's input schema, every number finite, the family's
        :attr:`validate_inputs` sanity hook (run only on schema-valid inputs, so it may rely
        on the schema's types), and the task's submission schema being the one the family
        builds from these inputs. The message names the offending field as a JSON
        pointer into ``public_inputs``. Every evaluation, solve and held-out draw asks; a task
        whose inputs passed is remembered by its digest, so the checks (milliseconds for a
        network case) run once per task, not once per answer.
        """
        key = (self.id, task.digest)
        if key in _INPUTS_CHECKED:
            return
        from psab.evaluators.input_checks import MAX_MAGNITUDE, MIN_MAGNITUDE, nonfinite_pointers
        from psab.evaluators.validation import schema_violations

        if not isinstance(task.public_inputs, Mapping):
            raise InvalidTaskError(f"task {task.id}: public_inputs must be a JSON object")
        from psab.contract import tolerance_problems

        bad_tolerances = tolerance_problems(task.tolerances)  # a Task built in Python skips the task schema
        if bad_tolerances:
            raise InvalidTaskError(f"task {task.id}: tolerances{bad_tolerances[0]}")
        if self.inputs_schema is not None:
            problems = schema_violations(self.inputs_schema, task.public_inputs)
            if problems:
                v = problems[0]
                raise InvalidTaskError(
                    f"task {task.id}: public_inputs{v.field} {v.constraint}; "
                    f"a {self.id} task needs inputs matching the family's input schema"
                )
        bad = nonfinite_pointers(task.public_inputs)
        if bad:
            raise InvalidTaskError(f"task {task.id}: public_inputs{bad[0]} must be a finite number, zero or of "
                                   f"magnitude in [{MIN_MAGNITUDE:g}, {MAX_MAGNITUDE:g}]"
                                   + (f" (and {len(bad) - 1} more)" if len(bad) > 1 else ""))
        if self.validate_inputs is not None:
            try:
                found = list(self.validate_inputs(task.public_inputs))
            except PsabError:
                raise
            except Exception as exc:  # noqa: BLE001 - the hook reads the caller's inputs
                # A check that trips over the inputs it is checking has still found them unusable.
                raise InvalidTaskError(
                    f"task {task.id}: public_inputs cannot be read as a {self.id} task "
                    f"({type(exc).__name__}: {exc})"
                ) from None
            if found:
                more = f" (and {len(found) - 1} more)" if len(found) > 1 else ""
                raise InvalidTaskError(f"task {task.id}: public_inputs{found[0]}{more}")
        try:
            expected = self.submission_schema(task.public_inputs)
        except PsabError:
            raise
        except Exception as exc:  # noqa: BLE001 - built from the caller's inputs
            raise InvalidTaskError(f"task {task.id}: the answer schema cannot be built from public_inputs "
                                   f"({type(exc).__name__}: {exc})") from None
        if _structure(to_jsonable(expected)) != _structure(task.submission_schema):
            # The evaluator reads the answer by the ids and lengths of public_inputs; a schema
            # built for other inputs would let through answers it cannot read. Only the words
            # (descriptions, translations) may differ: a task file written before they changed.
            raise InvalidTaskError(f"task {task.id}: submission_schema is not the one a {self.id} task "
                                   "builds from its public_inputs (edited inputs or a stale task file)")
        if len(_INPUTS_CHECKED) > 4096:
            _INPUTS_CHECKED.clear()
        _INPUTS_CHECKED.add(key)


def _structure(schema: Any) -> Any:
    """``schema`` without its words (``description``, ``title``, ``$comment``, ``x-…`` keys)."""
    if isinstance(schema, Mapping):
        return {k: _structure(v) for k, v in schema.items()
                if k not in ("description", "title", "$comment") and not str(k).startswith("x-")}
    if isinstance(schema, list):
        return [_structure(v) for v in schema]
    return schema


#: (family id, task digest) of tasks whose inputs passed their family's input schema.
_INPUTS_CHECKED: set[tuple[str, str]] = set()


def default_metrics(spec: FamilySpec) -> list[dict[str, str]]:
    """The metrics every task reports: feasibility and the normalized score."""
    out = [
        {"name": "feasible", "direction": "boolean", "description": "every hard constraint holds"},
        {"name": "score", "direction": "maximize", "description": _SCORE_WORDS[spec.scoring_kind]},
    ]
    if spec.scoring_kind in ("optimize", "study"):
        out.append(
            {
                "name": "objective",
                "direction": spec.objective_sense or "minimize",
                "description": "the objective recomputed from the answer" if spec.scoring_kind == "optimize"
                else "the decision's cost recomputed from the answer",
                "unit": spec.objective_unit or "",
            }
        )
    return out


_SCORE_WORDS = {
    "exact": "1 when every value matches the independent recomputation within tolerance, else 0",
    "optimize": "1 at the reference optimum, 1 - gap/max(|optimum|, scale floor) when worse, 0 when infeasible",
    "classify": "share of items classified correctly",
    "comply": "1 when the verdict and every diagnostic field are right, else 0",
    "forecast": "skill relative to the reference method on the hidden realized series, capped at 1",
    "study": "the stated weighted mean of the deliverables' scores (each analysis: share of items right; "
             "the decision: 1 at the reference optimum, 1 - gap/max(|optimum|, scale floor) when dearer) "
             "when the decision meets every criterion, else 0",
}


# ---------------------------------------------------------------------- registry

_REGISTRY: dict[str, FamilySpec] = {}
_LOADED = False
_LOCK = threading.RLock()


def register(spec: FamilySpec) -> FamilySpec:
    """Record a family; called once at the end of each family module."""
    with _LOCK:
        other = _REGISTRY.get(spec.id)
        if other is not None and other is not spec and other.solve.__module__ != spec.solve.__module__:
            raise ValueError(f"family id {spec.id!r} is registered twice")
        _REGISTRY[spec.id] = spec
    return spec


def _load_all() -> None:
    global _LOADED
    if _LOADED:
        return
    with _LOCK:
        if _LOADED:
            return
        for package, names, tier in (("psab.families", FAMILY_MODULES, "compact"),
                                     ("psab.studies", STUDY_MODULES, "study")):
            for name in names:
                module = importlib.import_module(f"{package}.{name}")
                spec = getattr(module, "SPEC", None)
                if not isinstance(spec, FamilySpec) or spec.id != name or spec.tier != tier:
                    raise ImportError(f"{package}.{name} must end with SPEC = register(FamilySpec(id={name!r}, "
                                      f"tier={tier!r}, ...))")
        _LOADED = True


def families() -> tuple[FamilySpec, ...]:
    """Every compact-tier family, in the order of :data:`FAMILY_MODULES` (studies: :func:`studies`)."""
    _load_all()
    return tuple(_REGISTRY[name] for name in FAMILY_MODULES)


def studies() -> tuple[FamilySpec, ...]:
    """Every study of the study tier, in the order of :data:`STUDY_MODULES`."""
    _load_all()
    return tuple(_REGISTRY[name] for name in STUDY_MODULES)


def get_family(family_id: str) -> FamilySpec:
    """The family with id ``family_id``; :class:`UnknownFamilyError` names the known ids."""
    _load_all()
    try:
        return _REGISTRY[family_id]
    except KeyError:
        known = ", ".join(sorted(_REGISTRY))
        raise UnknownFamilyError(f"unknown family {family_id!r}; known families: {known}") from None
