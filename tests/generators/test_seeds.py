"""Seed commitment, round manifests and verification; the seed is never written anywhere."""

from __future__ import annotations

import json
from pathlib import Path

from psab.cli import main
from psab.generators.rng import seed_int
from psab.generators.seeds import PrivateSeed, commitment, weak_seed_reason

STRONG = "340282366920938463463374607431768211297"
PASSPHRASE = "grid-frequency 49.8 Hz at dawn, tap 7"
FAMILY = "ybus_construction"


def _run(capsys, *argv: str) -> tuple[int, str, str]:
    rc = main(list(argv))
    out = capsys.readouterr()
    return rc, out.out, out.err


def test_commit_manifest_verify_round_trip(tmp_path: Path, capsys) -> None:
    rc, out, _ = _run(capsys, "seed", "commit", "--seed", STRONG)
    published = out.strip()
    assert rc == 0 and len(published) == 64 and int(published, 16) >= 0
    assert published == commitment(STRONG)

    manifest = tmp_path / "round.json"
    rc, _, _ = _run(capsys, "seed", "manifest", "--seed", STRONG, "--families", FAMILY, "--count", "3", "--out", str(manifest))
    assert rc == 0
    doc = json.loads(manifest.read_text(encoding="utf-8"))
    assert doc["commitment"] == published
    assert [(c["family"], c["index"]) for c in doc["cases"]] == [(FAMILY, 0), (FAMILY, 1), (FAMILY, 2)]

    rc, out, _ = _run(capsys, "seed", "verify", "--seed", STRONG, "--manifest", str(manifest), "--commitment", published)
    assert rc == 0 and "reproduces all 3 cases" in out

    # a wrong seed fails on the commitment, before anything is redrawn
    rc, _, err = _run(capsys, "seed", "verify", "--seed", STRONG[:-1] + "8", "--manifest", str(manifest))
    assert rc == 1 and "commitment" in err

    # the right seed against another published commitment fails
    rc, _, err = _run(capsys, "seed", "verify", "--seed", STRONG, "--manifest", str(manifest), "--commitment", "0" * 64)
    assert rc == 1 and "published commitment" in err

    # a manifest whose case was altered after the round fails, naming the case
    doc["cases"][1]["task_digest"] = "f" * 64
    manifest.write_text(json.dumps(doc), encoding="utf-8")
    rc, _, err = _run(capsys, "seed", "verify", "--seed", STRONG, "--manifest", str(manifest))
    assert rc == 1 and f"{FAMILY} index 1" in err


def test_a_guessable_seed_is_not_committed_to(capsys) -> None:
    assert weak_seed_reason("1234") is not None and weak_seed_reason("hunter2") is not None
    assert weak_seed_reason(STRONG) is None and weak_seed_reason(PASSPHRASE) is None
    rc, out, err = _run(capsys, "seed", "commit", "--seed", "1234")
    assert rc == 2 and not out.strip() and "seed new" in err
    rc, out, _ = _run(capsys, "seed", "commit", "--seed", "1234", "--allow-weak-seed")
    assert rc == 0 and out.strip() == commitment(1234)


def test_seed_new_is_strong_and_fresh(tmp_path: Path, capsys) -> None:
    rc, out, _ = _run(capsys, "seed", "new")
    rc2, out2, _ = _run(capsys, "seed", "new")
    assert rc == rc2 == 0 and out != out2 and weak_seed_reason(out.strip()) is None
    path = tmp_path / "seed.txt"
    assert _run(capsys, "seed", "new", "--out", str(path))[0] == 0
    assert path.stat().st_mode & 0o777 == 0o600
    assert _run(capsys, "seed", "commit", "--seed-file", str(path))[0] == 0


def test_the_seed_is_never_written(tmp_path: Path, capsys, monkeypatch) -> None:
    secrets = {PASSPHRASE, str(seed_int(PASSPHRASE)), STRONG}
    printed = []
    for seed in (PASSPHRASE, STRONG):
        d = tmp_path / str(len(printed))
        printed.append(_run(capsys, "generate", "--family", FAMILY, "--seed", seed, "--count", "2", "--out", str(d / "out"))[1:])
        printed.append(_run(capsys, "seed", "manifest", "--seed", seed, "--families", FAMILY, "--count", "2", "--out", str(d / "m.json"))[1:])
        printed.append(_run(capsys, "validate-generators", "--variants", "2", "--seed", seed, "--json", str(d / "v.json"))[1:])
        printed.append(_run(capsys, "seed", "commit", "--seed", seed)[1:])
    monkeypatch.setenv("PSAB_SEED", STRONG)
    printed.append(_run(capsys, "generate", "--family", FAMILY, "--count", "1", "--out", str(tmp_path / "env" / "out"))[1:])
    files = [p for p in tmp_path.rglob("*") if p.is_file()]
    assert len(files) >= 12
    for p in files:
        text = p.read_text(encoding="utf-8")
        assert not any(s in text for s in secrets), p
    for out, err in printed:
        assert not any(s in out or s in err for s in secrets)
    assert STRONG not in repr(PrivateSeed(STRONG)) and STRONG not in str(PrivateSeed(STRONG))
