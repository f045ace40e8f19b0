"""The psab command: each core subcommand, and one-line errors with non-zero exits."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

import pytest

import psab
from psab.cli import main
from psab.paths import case_dir

FAMILY = "ybus_construction"


def run(capsys: pytest.CaptureFixture[str], *argv: str) -> tuple[int, str, str]:
    code = main(list(argv))
    out, err = capsys.readouterr()
    return code, out, err


def test_list_names_every_family(capsys: pytest.CaptureFixture[str]) -> None:
    code, out, _ = run(capsys, "list")
    assert code == 0
    for spec in psab.families():
        assert spec.id in out
    code, out, _ = run(capsys, "list", "--json")
    assert {row["id"] for row in json.loads(out)} == {s.id for s in psab.families()}


def test_show_in_both_languages(capsys: pytest.CaptureFixture[str]) -> None:
    code, en, _ = run(capsys, "show", FAMILY)
    assert code == 0 and "Bus admittance" in en
    code, ru, _ = run(capsys, "show", FAMILY, "--lang", "ru")
    assert code == 0 and "проводимостей" in ru


def test_solve_then_evaluate(capsys: pytest.CaptureFixture[str], tmp_path: Path) -> None:
    out_file = tmp_path / "sol.json"
    code, _, _ = run(capsys, "solve", str(case_dir(FAMILY)), "--out", str(out_file))
    assert code == 0
    code, out, _ = run(capsys, "evaluate", str(case_dir(FAMILY)), str(out_file), "--json")
    result = json.loads(out)
    assert code == 0 and result["feasible"] and result["score"] == 1.0
    # stdout of solve is pure JSON (nothing else printed)
    code, out, _ = run(capsys, "solve", str(case_dir(FAMILY)))
    assert json.loads(out)["answer"]


def test_evaluate_reports_violations_in_words(capsys: pytest.CaptureFixture[str], tmp_path: Path) -> None:
    bad = tmp_path / "bad.json"
    bad.write_text('{"answer": {"bus_order": []}}')
    code, out, _ = run(capsys, "evaluate", str(case_dir(FAMILY)), str(bad))
    assert code == 0 and "INFEASIBLE" in out and "/ybus_real_pu: required field is missing" in out


def test_generate_keeps_keys_out_of_the_agent_views(capsys: pytest.CaptureFixture[str], tmp_path: Path) -> None:
    code, out, _ = run(capsys, "generate", "--family", FAMILY, "--seed", "secret-77", "--count", "2", "--out", str(tmp_path / "views"))
    assert code == 0
    tasks = sorted((tmp_path / "views").glob("*/task.json"))
    assert len(tasks) == 2
    for t in tasks:
        assert "secret-77" not in t.read_text()
        assert not (t.parent / "key.json").exists()


def test_check_passes_on_the_shipped_cases(capsys: pytest.CaptureFixture[str]) -> None:
    code, out, err = run(capsys, "check", "--backend", "surrogate")
    assert code == 0, err
    assert "all checks passed" in out


@pytest.mark.parametrize(
    ("argv", "message"),
    [
        (["show", "nope"], "unknown family 'nope'"),
        (["evaluate", "/no/such/case", "x.json"], "no such case directory"),
        (["evaluate", str(case_dir(FAMILY)), str(case_dir(FAMILY) / "solution.json"), "--backend", "matlab"], "unknown backend"),
    ],
)
def test_errors_are_one_line_and_non_zero(argv: list[str], message: str) -> None:
    proc = subprocess.run([sys.executable, "-m", "psab.cli", *argv], capture_output=True, text=True)
    assert proc.returncode == 2
    lines = proc.stderr.strip().splitlines()
    assert len(lines) == 1 and lines[0].startswith("psab: error:") and message in lines[0]
    assert "Traceback" not in proc.stderr
