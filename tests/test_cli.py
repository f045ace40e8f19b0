"""The psab command: each core subcommand, and one-line errors with non-zero exits."""

from __future__ import annotations

import argparse
import json
import re
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
    for spec in (*psab.families(), *psab.studies()):
        assert spec.id in out
    code, out, _ = run(capsys, "list", "--json")
    rows = json.loads(out)
    assert {row["id"] for row in rows} == {s.id for s in (*psab.families(), *psab.studies())}
    # a study says so and states its deliverables; a family's row is as it always was
    assert {row["id"] for row in rows if row.get("tier") == "study"} == {s.id for s in psab.studies()}
    assert all(row["deliverables"] for row in rows if row.get("tier") == "study")
    assert not any("tier" in row for row in rows if row["id"] in {s.id for s in psab.families()})


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


# ------------------------------------------------------------------ first use (issue 14)


def _commands(parser: argparse.ArgumentParser, prefix: str = "psab") -> list[tuple[str, argparse.ArgumentParser]]:
    """Every command and subcommand parser, by its full name."""
    out = []
    for action in parser._actions:
        if isinstance(action, argparse._SubParsersAction):
            for name, sub in action.choices.items():
                out.append((f"{prefix} {name}", sub))
                out += _commands(sub, f"{prefix} {name}")
    return out


def test_every_command_has_a_description_an_example_and_help_for_every_argument() -> None:
    from psab.backends import BACKENDS
    from psab.cli import build_parser

    commands = _commands(build_parser())
    names = {n for n, _ in commands}
    assert {"psab show", "psab evaluate", "psab seed new", "psab seed verify", "psab regrade"} <= names
    for name, p in commands:
        assert p.description and len(p.description) > 20, f"{name}: no description"
        # an "examples" block with at least one indented command line
        assert p.epilog and "examples" in p.epilog and re.search(r"^  (PSAB_SEED=\S+ )?psab ", p.epilog, re.M), \
            f"{name}: no example"
        for action in p._actions:
            if isinstance(action, (argparse._HelpAction, argparse._SubParsersAction)):
                continue
            label = "/".join(action.option_strings) or action.dest
            assert action.help and action.help != argparse.SUPPRESS, f"{name} {label}: no help"
            if "--backend" in action.option_strings:
                assert all(b in action.help for b in BACKENDS), f"{name} --backend does not list {BACKENDS}"


def test_help_renders_for_every_command(capsys: pytest.CaptureFixture[str]) -> None:
    from psab.cli import build_parser

    for name, _ in _commands(build_parser()):
        with pytest.raises(SystemExit) as exit_:
            main([*name.split()[1:], "--help"])
        assert exit_.value.code == 0
        out = capsys.readouterr().out
        assert out.startswith(f"usage: {name}") and "examples" in out


def _sample(family: str) -> dict:
    return json.loads((case_dir(family) / "solution.json").read_text(encoding="utf-8"))


def test_evaluate_strict_exit_status(capsys: pytest.CaptureFixture[str], tmp_path: Path) -> None:
    from psab.cli import EXIT_INFEASIBLE, EXIT_NOT_PERFECT

    fam = "contingency_screening"  # classify: a well-formed answer with one miss is feasible, below 1
    perfect, bad, partial = tmp_path / "perfect.json", tmp_path / "bad.json", tmp_path / "partial.json"
    perfect.write_text(json.dumps(_sample(fam)))
    bad.write_text('{"answer": {}}')
    sol = _sample(fam)
    outage = next(k for k, v in sol["answer"]["outages"].items() if v["status"] == "overload")
    sol["answer"]["outages"][outage] = {"status": "secure", "overloaded_branch_ids": []}
    partial.write_text(json.dumps(sol))
    judged = psab.evaluate(psab.load_case(case_dir(fam)), sol)
    assert judged.feasible and 0 < judged.score < 1  # the premise of the middle case
    assert {EXIT_INFEASIBLE, EXIT_NOT_PERFECT}.isdisjoint({0, 1, 2})  # never psab's own error statuses
    for path, strict in ((perfect, 0), (partial, EXIT_NOT_PERFECT), (bad, EXIT_INFEASIBLE)):
        code, _, _ = run(capsys, "evaluate", str(case_dir(fam)), str(path))
        assert code == 0  # without --strict a judged answer is a successful command
        code, _, _ = run(capsys, "evaluate", str(case_dir(fam)), str(path), "--strict")
        assert code == strict, path.name


def test_solve_out_says_where_it_wrote(capsys: pytest.CaptureFixture[str], tmp_path: Path) -> None:
    out_file = tmp_path / "sol.json"
    code, out, _ = run(capsys, "solve", str(case_dir(FAMILY)), "--out", str(out_file))
    assert code == 0 and str(out_file) in out and json.loads(out_file.read_text())["answer"]


def test_family_and_families_are_one_option(capsys: pytest.CaptureFixture[str], tmp_path: Path) -> None:
    docs = []
    for flag in ("--family", "--families"):
        out = tmp_path / f"m{flag}.json"
        code, _, _ = run(capsys, "seed", "manifest", "--seed", "flag-test-seed", flag, FAMILY, "--count", "1",
                         "--out", str(out), "--progress", "none")
        assert code == 0
        docs.append(json.loads(out.read_text()))
    assert docs[0] == docs[1] and {c["family"] for c in docs[0]["cases"]} == {FAMILY}
    code, _, _ = run(capsys, "generate", "--families", FAMILY, "--seed", "flag-test-seed", "--out",
                     str(tmp_path / "views"), "--progress", "none")
    assert code == 0 and len(list((tmp_path / "views").glob("*/task.json"))) == 1


def test_long_commands_report_progress_in_lines_off_a_terminal(capsys: pytest.CaptureFixture[str],
                                                               tmp_path: Path) -> None:
    code, out, err = run(capsys, "generate", "--family", FAMILY, "--seed", "progress-seed", "--count", "2",
                         "--out", str(tmp_path / "views"))
    assert code == 0 and "wrote 2 held-out tasks" in out  # stdout keeps the result only
    assert f"[2/2] {FAMILY}: 2 drawn" in err.splitlines()
    assert "progress-seed" not in err


class _Stream:
    def __init__(self, tty: bool) -> None:
        self.tty, self.text = tty, ""

    def isatty(self) -> bool:
        return self.tty

    def write(self, s: str) -> None:
        self.text += s

    def flush(self) -> None:
        pass


def test_steps_draw_a_bar_on_a_terminal_and_lines_otherwise() -> None:
    from psab.runner.progress import Steps

    tty = _Stream(True)
    bar = Steps(3, "draws", stream=tty)
    bar.advance(2, "a: 2 drawn")
    bar.close()
    assert tty.text.startswith("\r[") and "2/3 draws" in tty.text and tty.text.endswith("\n")
    plain = _Stream(False)
    lines = Steps(3, "draws", stream=plain)
    lines.advance(2, "a: 2 drawn")
    lines.advance(1, "b: 1 drawn")
    lines.close()
    assert plain.text.splitlines() == ["[2/3] a: 2 drawn", "[3/3] b: 1 drawn"]
    quiet = _Stream(False)
    Steps(1, "draws", stream=quiet, mode="none").advance(1, "x")
    assert quiet.text == ""


def test_qc_sweep_reports_progress_per_family(capsys: pytest.CaptureFixture[str]) -> None:
    code, out, err = run(capsys, "qc", "--sensitivity", "--family", FAMILY, "--progress", "lines")
    assert code == 0 and "direct sweep" in out
    assert err.splitlines()[0].startswith(f"[1/1] {FAMILY}:")


def test_pandapower_far_from_generators_notice_is_not_shown(caplog: pytest.LogCaptureFixture) -> None:
    # three_phase_short_circuit tells the agent its convention (I_th with n = 1, the far-from-
    # generators value of IEC 60909-0 eq. (102)); pandapower's warning restating it opened every
    # `psab check`.
    from conftest import need_backend

    need_backend("pandapower")
    from psab.paths import data_root

    # the golden IEC TR 60909-4 network has generators, the case pandapower warns about
    task = psab.load_case(data_root() / "golden" / "three_phase_short_circuit" / "iec_tr_60909_4_hv_network")
    assert "n = 1" in task.presentation["en"]["statement"] and (task.public_inputs["generators"] or task.public_inputs["power_station_units"])
    with caplog.at_level("WARNING"):
        result = psab.evaluate(task, psab.solve(task, "pandapower"), backend="pandapower")
    assert result.perfect
    assert not [r for r in caplog.records if "aperiodic" in r.getMessage()]


def test_a_demo_round_can_silence_the_weak_seed_warning(capsys: pytest.CaptureFixture[str], tmp_path: Path) -> None:
    common = ["run", "--agent", "builtin:reference", "--split", "heldout", "--family", FAMILY, "--seed", "demo-seed",
              "--progress", "none", "--timeout", "30"]
    code, out, err = run(capsys, *common, "--out", str(tmp_path / "warned"))
    assert code == 0 and "warning:" in err  # a guessable seed is worth a warning in a real round
    code, out, err = run(capsys, *common, "--allow-weak-seed", "--out", str(tmp_path / "quiet"))
    assert code == 0 and "warning:" not in err and "1 case run now" in out
