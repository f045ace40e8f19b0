"""The family catalogue users read: ``docs/families.md``, generated from the registry.

Every fact in it comes from the :class:`~psab.registry.FamilySpec` declarations (area, scoring
kind, backends, confidence, version, provenance) so the document cannot drift from the code:
``scripts/gen_families_md.py`` writes it and ``tests/test_catalogue.py`` fails when the file in
the repository differs from :func:`markdown`. Areas are numbered §1–§8 in :data:`AREAS` order,
the numbering the provenance locators use ("psab families.md §5, <family id>").
"""

from __future__ import annotations

from pathlib import Path

#: Where the catalogue lives in the repository.
CATALOGUE_PATH = Path("docs/families.md")

# The scoring rules in words (the README's table; psab.evaluators.scoring implements them).
_SCORING_KINDS = """\
| kind | feasible when | score when feasible |
|---|---|---|
| exact | every value matches the independent recomputation (relative 1e-3, absolute floor per field) | 1 |
| optimize | every hard constraint holds, recomputed by the evaluator | `1 − gap / max(\\|optimum\\|, floor)`, with a case-independent floor; a better-than-reference answer scores 1 and is flagged in evidence |
| classify | the answer is well formed (right ids, no duplicates) | share of items classified correctly (each miss and false alarm named) |
| comply | well formed and the verdict matches | 1, with the diagnostic fields checked as exact |
| forecast | every value physically admissible | skill relative to the reference method on the hidden realized series, capped at 1 |
"""

_PRESENTATIONS = ("Every statement is well-posed: an agent can reach the reference's answer from it alone. "
                  "A family may pose its task in two presentations (`psab show FAMILY --presentation ...`, "
                  "`psab run --presentation ...`): **guided** spells out the method step by step (the paper's "
                  "tasks, the default); **expert** names the standard, edition and clause, the quantities and the "
                  "case's own choices where the standard leaves one open — no formula, no step list. **Levels** "
                  "are the difficulty levels of a family's held-out draws (`psab run --level N`).")

_CONFIDENCE = ("**Confidence** of a source: high — a named standard or canonical textbook method followed "
               "directly; medium — an identified primary source or a universally taught method written as "
               "equations; low — an adaptation in the spirit of a method.")


def _cell(text: str) -> str:
    """Text safe inside a Markdown table cell."""
    return " ".join(str(text).split()).replace("|", "\\|")


def markdown() -> str:
    """The catalogue as Markdown: one section per area, one entry per registered family."""
    import psab
    from psab.registry import AREAS

    specs = psab.families()
    lines = [
        "# The family catalogue",
        "",
        "<!-- Generated from the family registry by scripts/gen_families_md.py; do not edit by hand.",
        "     tests/test_catalogue.py fails when this file is out of date. -->",
        "",
        f"{len(specs)} families are implemented, in {sum(any(s.area == a for s in specs) for a in AREAS)} of the "
        f"benchmark's {len(AREAS)} areas. `psab list` prints the same table; `psab show FAMILY` prints a "
        "family's public task as the agent reads it. Sections are numbered as the provenance locators cite "
        "them (\"psab families.md §5, <family>\" is the family's entry under §5 below).",
        "",
        "## Scoring kinds",
        "",
        _SCORING_KINDS.rstrip("\n"),
        "",
        _CONFIDENCE,
        "",
        "## Presentations",
        "",
        _PRESENTATIONS,
        "",
    ]
    for number, (area, (title_en, _title_ru)) in enumerate(AREAS.items(), start=1):
        members = [s for s in specs if s.area == area]
        lines += [f"## §{number}. {title_en}", "", f"Area id `{area}`.", ""]
        if not members:
            lines += ["No family of this area is implemented yet.", ""]
            continue
        lines += ["| family | title | kind | backends | confidence | presentations | levels | version |",
                  "|---|---|---|---|---|---|---|---|"]
        for s in members:
            shown = "guided, expert" if s.expert is not None else "guided"
            levels = ", ".join(str(n) for n in s.levels)
            lines.append(f"| `{s.id}` | {_cell(s.presentation['en']['title'])} | {s.scoring_kind} | "
                         f"{', '.join(s.backends)} | {s.confidence} | {shown} | {levels} | {s.version} |")
        lines.append("")
        for s in members:
            lines += [f"### {s.id}", "", f"{_cell(s.presentation['en']['title'])}. Sources:", ""]
            for p in s.provenance:
                lines.append(f"- {_cell(p.get('title', ''))} — {_cell(p.get('locator', ''))} "
                             f"({p.get('confidence', '?')}). {_cell(p.get('note', ''))}".rstrip())
            lines.append("")
    return "\n".join(lines).rstrip("\n") + "\n"
