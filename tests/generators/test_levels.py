"""Difficulty levels through the generation command line: a level-2 round is drawn, fixed in a
manifest, verified from the revealed seed, and validated one row per family and level."""

from __future__ import annotations

import contextlib
import io
import json

import psab
import psab.cli

FAMILY = "ybus_construction"


def _cli(*args: str) -> tuple[int, str]:
    out = io.StringIO()
    with contextlib.redirect_stdout(out), contextlib.redirect_stderr(io.StringIO()):
        code = psab.cli.main(list(args))
    return code, out.getvalue()


def test_a_level_two_round_is_drawn_fixed_and_verified(tmp_path) -> None:
    assert 2 in psab.get_family(FAMILY).levels
    seed = tmp_path / "seed.txt"
    seed.write_text("levels-test-seed-0b7e", encoding="utf-8")
    code, _ = _cli("generate", "--family", FAMILY, "--seed-file", str(seed), "--count", "2", "--level", "2",
                   "--out", str(tmp_path / "views"), "--progress", "none")
    assert code == 0
    ids = sorted(p.name for p in (tmp_path / "views").iterdir())
    assert ids == [f"{FAMILY}-heldout-L2-00000", f"{FAMILY}-heldout-L2-00001"]
    manifest = json.loads((tmp_path / "views-keys" / "manifest.json").read_text())
    assert {c["level"] for c in manifest["cases"]} == {2}
    level1 = psab.generate(FAMILY, "levels-test-seed-0b7e", 0)
    assert manifest["cases"][0]["task_digest"] != level1.digest
    code, text = _cli("seed", "verify", "--seed-file", str(seed), "--manifest",
                      str(tmp_path / "views-keys" / "manifest.json"), "--progress", "none")
    assert code == 0 and "reproduces all 2 cases" in text
    # the same manifest claimed for level 1 no longer verifies
    for c in manifest["cases"]:
        del c["level"]
    (tmp_path / "m1.json").write_text(json.dumps(manifest), encoding="utf-8")
    code, _ = _cli("seed", "verify", "--seed-file", str(seed), "--manifest", str(tmp_path / "m1.json"),
                   "--progress", "none")
    assert code == 1


def test_a_level_the_family_does_not_offer_is_one_clear_error(tmp_path) -> None:
    top = max(psab.get_family(FAMILY).levels) + 1
    code, _ = _cli("generate", "--family", FAMILY, "--seed", "x" * 24, "--level", str(top),
                   "--out", str(tmp_path / "v"), "--progress", "none")
    assert code != 0


def test_validate_generators_reports_each_level(tmp_path) -> None:
    code, text = _cli("validate-generators", "--family", FAMILY, "--variants", "2", "--level", "all",
                      "--json", str(tmp_path / "v.json"))
    doc = json.loads((tmp_path / "v.json").read_text())
    levels = [row["level"] for row in doc["families"]]
    assert levels == list(psab.get_family(FAMILY).levels)
    assert code == 0, text
