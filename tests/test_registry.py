"""The registry: the explicit family list matches the files, ids are unique, specs are complete."""

from __future__ import annotations

from pathlib import Path

import pytest

import psab
from psab.families import FAMILY_MODULES
from psab.registry import AREAS, FamilySpec


def test_family_list_matches_the_files() -> None:
    files = {p.stem for p in Path(psab.__file__).parent.joinpath("families").glob("*.py") if not p.stem.startswith("_")}
    assert set(FAMILY_MODULES) == files
    assert len(FAMILY_MODULES) == len(set(FAMILY_MODULES))


def test_study_list_matches_the_files() -> None:
    from psab.registry import STUDY_MODULES

    files = {p.stem for p in Path(psab.__file__).parent.joinpath("studies").glob("*.py")
             if not p.stem.startswith("_") and p.stem != "model"}
    assert set(STUDY_MODULES) == files
    assert len(STUDY_MODULES) == len(set(STUDY_MODULES))
    assert all(s.tier == "study" and s.scoring_kind == "study" for s in psab.studies())
    assert not {s.id for s in psab.studies()} & {s.id for s in psab.families()}


def test_ids_unique_and_specs_complete() -> None:
    specs = psab.families()
    ids = [s.id for s in specs]
    assert len(ids) == len(set(ids)) == len(FAMILY_MODULES)
    for s in specs:
        assert s.area in AREAS
        assert s.presentation["en"]["statement"] and s.presentation["ru"]["statement"]
        # every hard constraint is translated, and the translation is not the English text
        ru = s.presentation["ru"]["hard_constraints"]
        assert len(ru) == len(s.hard_constraints) and not set(ru) & set(s.hard_constraints)
        assert s.provenance and all(p["locator"] and p["confidence"] in ("high", "medium", "low") for p in s.provenance)
        assert s.hard_constraints
        assert psab.get_family(s.id) is s


def test_families_call_works_even_after_the_package_is_imported() -> None:
    import psab.families as package  # binds psab.families to the package

    assert [s.id for s in package()] == [s.id for s in psab.families()]


def test_unknown_family_lists_the_known_ones() -> None:
    with pytest.raises(psab.UnknownFamilyError, match="ybus_construction"):
        psab.get_family("no_such_family")


def test_spec_rejects_incoherent_declarations() -> None:
    base = psab.get_family("ybus_construction")
    kwargs = {f: getattr(base, f) for f in FamilySpec.__dataclass_fields__}
    with pytest.raises(ValueError, match="objective_sense"):
        FamilySpec(**{**kwargs, "id": "x", "scoring_kind": "optimize"})
    with pytest.raises(ValueError, match="area"):
        FamilySpec(**{**kwargs, "id": "x", "area": "astrology"})
    with pytest.raises(ValueError, match="surrogate"):
        FamilySpec(**{**kwargs, "id": "x", "backends": ("pandapower",)})
    ru = dict(base.presentation["ru"])
    with pytest.raises(ValueError, match="translate each of the 2"):
        FamilySpec(**{**kwargs, "id": "x", "presentation": {**base.presentation, "ru": {**ru, "hard_constraints": ("одно",)}}})
    with pytest.raises(ValueError, match="must not repeat"):
        en = {**base.presentation["en"], "hard_constraints": base.hard_constraints}
        FamilySpec(**{**kwargs, "id": "x", "presentation": {**base.presentation, "en": en}})
