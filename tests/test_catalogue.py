"""docs/families.md is the registry's catalogue (psab.catalogue), kept in sync by this test."""

from __future__ import annotations

import re
from pathlib import Path

import psab
from psab.catalogue import CATALOGUE_PATH, markdown
from psab.registry import AREAS

ROOT = Path(__file__).resolve().parents[1]


def test_docs_families_md_is_generated_from_the_registry() -> None:
    shipped = (ROOT / CATALOGUE_PATH).read_text(encoding="utf-8")
    assert shipped == markdown(), "docs/families.md is out of date: run python scripts/gen_families_md.py"


def test_every_family_appears_under_its_area_with_its_sources() -> None:
    text = markdown()
    sections = re.split(r"^## ", text, flags=re.M)
    by_title = {s.split("\n", 1)[0]: s for s in sections}
    for number, (area, (title, _)) in enumerate(AREAS.items(), start=1):
        assert f"§{number}. {title}" in by_title, f"area {area} has no section"
    for spec in psab.families():
        number = list(AREAS).index(spec.area) + 1
        section = by_title[f"§{number}. {AREAS[spec.area][0]}"]
        row = next(line for line in section.splitlines() if line.startswith(f"| `{spec.id}` |"))
        assert f"| {spec.scoring_kind} | {', '.join(spec.backends)} | {spec.confidence} |" in row
        for source in spec.provenance:
            assert " ".join(source["locator"].split()).replace("|", "\\|") in section


def test_provenance_locators_citing_the_catalogue_resolve() -> None:
    # "psab families.md §N, <id>" must name the §N section that lists <id>.
    text = markdown()
    for spec in psab.families():
        for source in spec.provenance:
            m = re.match(r"psab families\.md §(\d+), (\w+)", source["locator"])
            if not m:
                continue
            number, fid = int(m.group(1)), m.group(2)
            assert fid == spec.id
            section = text.split(f"## §{number}. ", 1)[1].split("\n## ", 1)[0]
            assert f"### {fid}" in section, f"{spec.id}: §{number} does not list it"


def test_every_mention_of_the_catalogue_names_a_file_that_exists() -> None:
    # The catalogue used to be cited as "families.md", a file no checkout had.
    paths = [ROOT / "README.md", *sorted((ROOT / "docs").glob("*.md")), *sorted((ROOT / "psab").rglob("*.py"))]
    for path in paths:
        for ref in re.findall(r"(?<![\w/.-])(?<!psab )[\w/.-]*families\.md", path.read_text(encoding="utf-8")):
            ok = (path.parent / ref).is_file() or (ROOT / ref).is_file()
            assert ok, f"{path.relative_to(ROOT)} cites {ref}, which is not in the repository"
