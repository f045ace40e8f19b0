"""The toolbox (studies.md, "The toolbox"; psab/toolbox): the pins, where a toolbox is found,
what a build refuses, and — on the toolbox ``make test`` builds before pytest — that every
pinned package imports in its python, psab does not, a rebuild changes nothing, and the
toolbox runs inside the runner's bwrap sandbox with only :func:`psab.toolbox.sandbox_binds`."""

from __future__ import annotations

import json
import os
import sys
from pathlib import Path

import pytest

from psab import toolbox
from psab.cli import main

from conftest import need, need_bwrap

#: The libraries studies.md ("The toolbox") names, as distributions (HiGHS's Python package is
#: highspy), and jsonschema, to check an answer against its JSON Schema (a fresh agent in a trial
#: had none and checked its answer by hand): the pins must be exactly these.
SPEC_LIBRARIES = {"pandapower", "lightsim2grid", "power-grid-model", "pypsa", "andes", "pyomo", "highspy",
                  "simbench", "matpowercaseframes", "numpy", "scipy", "pandas", "jsonschema"}


def test_the_pins_are_the_spec_libraries_each_at_one_version():
    pins = toolbox.required()
    assert set(pins) == SPEC_LIBRARIES == set(toolbox.IMPORTS)
    assert "psab" not in pins
    for name, version in pins.items():
        assert version[0].isdigit() and not set(version) & set("<>=!~*,"), (name, version)


def test_the_pins_keep_pandapower_35_beside_pandas_2():
    # pyproject: pandapower 3.5.x with pandas<3 (pandas 3 breaks pandapower 3.5; issue 25 pins 3.5.6)
    pins = toolbox.required()
    assert pins["pandapower"].startswith("3.5.") and int(pins["pandas"].split(".")[0]) < 3


def _reqs(tmp_path: Path, text: str) -> Path:
    p = tmp_path / "requirements.txt"
    p.write_text(text)
    return p


def test_the_digest_follows_the_pins_and_the_python_not_the_comments(tmp_path):
    a = toolbox.digest("3.11.2", _reqs(tmp_path, "numpy==2.4.6\nscipy==1.17.1\n"))
    assert a == toolbox.digest("3.11.2", _reqs(tmp_path, "# why\nnumpy==2.4.6  # pinned\n\nscipy==1.17.1\n"))
    assert a != toolbox.digest("3.12.1", _reqs(tmp_path, "numpy==2.4.6\nscipy==1.17.1\n"))
    assert a != toolbox.digest("3.11.2", _reqs(tmp_path, "numpy==2.4.5\nscipy==1.17.1\n"))
    assert len(a) == 12 and toolbox.default_root("3.11.2").name == f"toolbox-{toolbox.digest('3.11.2')}"


def test_a_pin_that_is_not_exact_is_refused(tmp_path):
    with pytest.raises(toolbox.ToolboxError, match="not an exact pin"):
        toolbox.required(_reqs(tmp_path, "numpy>=2\n"))


def test_the_default_location_names_neither_psab_nor_a_closed_home():
    # the toolbox is bound into the sandbox at its own path, where the agent sees it
    assert "psab" not in str(toolbox.cache_root()).lower()
    if os.geteuid() == 0:  # a root runner's sandbox is uid 65534, which cannot pass /root
        assert not toolbox.cache_root().is_relative_to(Path.home())


def _fake(root: Path, **info) -> Path:
    (root / "bin").mkdir(parents=True)
    (root / "bin" / "python").symlink_to(sys.executable)
    (root / toolbox.VERSIONS_FILE).write_text(json.dumps({"python": "3.11.2", "packages": {"numpy": "2.4.6"}, **info}))
    return root


def test_locate_takes_a_built_toolbox_only(tmp_path, monkeypatch):
    assert toolbox.locate(tmp_path) is None  # empty: not built
    root = _fake(tmp_path / "tb")
    assert toolbox.locate(root) == root
    monkeypatch.setenv("PSAB_TOOLBOX", str(root))
    assert toolbox.locate() == root
    monkeypatch.setenv("PSAB_TOOLBOX", str(tmp_path))
    assert toolbox.locate() is None
    assert toolbox.versions(root) == {"python": "3.11.2", "numpy": "2.4.6"}


def test_sandbox_binds_add_a_base_prefix_the_sandbox_does_not_show(tmp_path):
    usr = _fake(tmp_path / "a", base_prefix="/usr", base_exec_prefix="/usr")
    assert toolbox.sandbox_binds(usr) == [usr]
    opt = _fake(tmp_path / "b", base_prefix=str(tmp_path / "py"), base_exec_prefix=str(tmp_path / "py"))
    assert toolbox.sandbox_binds(opt) == [opt, tmp_path / "py"]


def test_build_refuses_a_directory_that_is_not_a_toolbox(tmp_path):
    (tmp_path / "notes.txt").write_text("mine")
    with pytest.raises(toolbox.ToolboxError, match="is not a toolbox"):
        toolbox.build(out=tmp_path)
    assert [p.name for p in tmp_path.iterdir()] == ["notes.txt"]


def test_build_refuses_a_python_that_does_not_run(tmp_path):
    with pytest.raises(toolbox.ToolboxError, match="not a working Python"):
        toolbox.build(out=tmp_path / "tb", python=str(tmp_path / "no-such-python"))


def test_cli_path_and_show_without_a_toolbox_say_one_line(tmp_path, capsys):
    for action in ("path", "show"):
        assert main(["toolbox", action, str(tmp_path)]) == 2
        err = capsys.readouterr().err.strip()
        assert len(err.splitlines()) == 1 and "psab toolbox build" in err


# ------------------------------------------------------------------ the built toolbox


@pytest.fixture(scope="module")
def built() -> Path:
    root = toolbox.locate()
    need(root is not None, "no toolbox is built (make toolbox, or psab toolbox build)")
    assert root is not None
    return root


def test_versions_list_every_pin_as_installed(built):
    v = toolbox.versions(built)
    assert {k: v[k] for k in SPEC_LIBRARIES} == toolbox.required()
    assert v["python"].count(".") == 2
    assert toolbox.info(built)["requirements_sha256"] == toolbox.requirements_sha256()


def test_every_package_imports_and_psab_does_not(built):
    report = toolbox.check(built)  # raises on a failed import or an importable psab
    assert report["psab"] is None and not report["failed"] and report["andes_pycode"]
    assert "psab" not in {n.lower() for n in report["installed"]}


def test_a_rebuild_with_the_same_pins_changes_nothing(built):
    before = {p.name: p.stat().st_mtime_ns for p in built.iterdir()}
    # the interpreter it was built from: another Python would rightly rebuild it
    assert toolbox.build(out=built, python=toolbox.info(built)["base_python"]) == built
    assert {p.name: p.stat().st_mtime_ns for p in built.iterdir()} == before


def test_cli_show_and_path(built, capsys):
    assert main(["toolbox", "path", str(built)]) == 0
    assert capsys.readouterr().out.strip() == str(built)
    assert main(["toolbox", "show", str(built), "--json"]) == 0
    shown = json.loads(capsys.readouterr().out)
    assert shown["root"] == str(built) and shown["packages"] == toolbox.required()
    assert shown["sandbox_binds"] == [str(p) for p in toolbox.sandbox_binds(built)]


def test_the_toolbox_runs_in_the_bwrap_sandbox_without_psab(built):
    need_bwrap()
    from psab.runner import sandbox as sbx

    need(sbx.bwrap_problem(network=False) is None, f"bwrap cannot run here: {sbx.bwrap_problem(network=False)}")
    code = ("import numpy, power_grid_model, sys\n"
            "try:\n    import psab\n    print('psab imported from', psab.__file__)\n"
            "except ImportError:\n    print('no psab')\n"
            "print(sys.prefix)\n")
    sb = sbx.make_sandbox(sbx.temp_root(), "bwrap")
    try:
        r = sbx.launch([str(toolbox.python(built)), "-c", code], sb,
                       env={"PATH": "/usr/bin:/bin", "HOME": sbx.BOX_IN_BWRAP, "TMPDIR": "/tmp"},
                       isolation="bwrap", network=False, expose=[], hidden=sbx.hidden_roots(), timeout_s=300,
                       stdin_bytes=None, binds=tuple(toolbox.sandbox_binds(built)))
    finally:
        sb.remove()
    assert r.exit_code == 0, r.stderr_tail
    assert r.stdout_tail.split() == ["no", "psab", str(built)]


#: The call each model format's reader hint names (psab.runner.instructions.MODEL_READERS), as
#: code run in the toolbox's python on a study's materialized model; it prints what it read.
READER_CALLS = {
    "matpower": ("pandapower.converter.matpower.from_mpc(path, f_hz=60)",
                 "import glob, pandapower.converter.matpower as m; net = m.from_mpc(glob.glob('model/*.m')[0], f_hz=60); "
                 "print(len(net.bus))"),
    "simbench-csv": ("simbench.csv2pp(folder)",
                     "import glob, os, simbench; d = os.path.dirname(glob.glob('model/**/Node.csv', recursive=True)[0]); "
                     "net = simbench.csv2pp(d); print(len(net.bus))"),
    "psse": ("andes.load(raw_path, addfile=dyr_path)",
             "import glob, andes; andes.config_logger(stream_level=50); "
             "ss = andes.load(glob.glob('model/*.raw')[0], addfile=glob.glob('model/*.dyr')[0], setup=False); "
             "print(ss.Bus.n)"),
}


@pytest.mark.parametrize("fmt", sorted(READER_CALLS))
def test_the_instructions_reader_of_each_model_format_reads_a_studys_model(built, fmt, tmp_path):
    """The reader the study instructions name for a model format reads a study's files in the
    toolbox (a fresh agent, not finding ``pandapower.converter.from_mpc``, wrote its own parser)."""
    import subprocess

    import psab
    from psab.runner.instructions import MODEL_READERS

    call, code = READER_CALLS[fmt]
    assert call in MODEL_READERS[fmt]["en"] and call in MODEL_READERS[fmt]["ru"]
    spec = next(s for s in psab.studies() if s.public_task().public_inputs["model"]["format"] == fmt)
    spec.materialize(spec.public_task(), tmp_path)
    env = {k: v for k, v in os.environ.items() if k not in ("PYTHONPATH", "VIRTUAL_ENV")}
    r = subprocess.run([toolbox.python(built), "-c", code], cwd=tmp_path, capture_output=True, text=True, timeout=600,
                       env=env)
    assert r.returncode == 0, r.stderr[-2000:]
    assert int(r.stdout.split()[-1]) > 10  # buses read
