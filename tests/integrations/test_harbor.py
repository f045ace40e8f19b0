"""``psab export harbor`` (issue 15): the layout Harbor documents for a task directory
(harborframework.com/docs/tasks: task.toml, instruction.md, environment/Dockerfile,
tests/test.sh writing /logs/verifier/reward.txt, solution/solve.sh), checked here without
installing harbor (it needs Python >= 3.12; docs/runner.md says how the export was validated
with Harbor's own loader) — and the verifier script itself, run on the oracle's answer
(reward 1), on garbage and on no answer (reward 0)."""

from __future__ import annotations

import json
import os
import subprocess
import sys
import tomllib
from pathlib import Path

import pytest

import psab
from psab import toolbox
from psab.cli import main
from psab.integrations.harbor import AGENT_PATHS, export
from psab.paths import case_dir

FAMILY = "ybus_construction"
ROOT = Path(__file__).resolve().parents[2]


@pytest.fixture
def exported(tmp_path):
    (d,) = export(tmp_path / "harbor", [FAMILY], install="true")
    return d


def test_layout_is_harbors(exported):
    files = {str(p.relative_to(exported)) for p in exported.rglob("*") if p.is_file()}
    assert {"task.toml", "instruction.md", "environment/Dockerfile", "environment/task.json",
            "environment/toolbox-requirements.txt", "tests/Dockerfile", "tests/test.sh", "solution/solve.sh",
            "tests/case/task.json"} == files
    cfg = tomllib.loads((exported / "task.toml").read_text())
    assert cfg["schema_version"] == "1.4" and {"task", "metadata", "verifier", "agent", "environment"} <= set(cfg)
    assert cfg["task"]["name"] == f"psab/{FAMILY}-public" and cfg["metadata"]["psab_task_id"] == f"{FAMILY}-public"
    assert cfg["agent"]["timeout_sec"] > 0 and cfg["verifier"]["timeout_sec"] > 0
    # the verifier judges in its own container, which receives the agent's solution as an artifact
    assert cfg["verifier"]["environment_mode"] == "separate" and cfg["artifacts"] == [AGENT_PATHS["solution"]]
    assert cfg["agent"]["user"] == "agent" and "useradd --create-home agent" in (exported / "environment/Dockerfile").read_text()
    assert "COPY . /tests/" in (exported / "tests/Dockerfile").read_text()
    for script in ("tests/test.sh", "solution/solve.sh"):
        assert os.access(exported / script, os.X_OK)
        subprocess.run(["bash", "-n", str(exported / script)], check=True)
    assert "COPY task.json /workspace/task.json" in (exported / "environment/Dockerfile").read_text()


def test_agent_sees_what_psab_run_gives_and_no_key(exported):
    task = psab.load_case(case_dir(FAMILY))
    assert (exported / "instruction.md").read_text() == psab.instructions_for(task, paths=AGENT_PATHS)
    view = json.loads((exported / "environment/task.json").read_text())
    assert view["id"] == task.id and "key" not in view
    instructions = [line for line in (exported / "environment/Dockerfile").read_text().splitlines()
                    if line and not line.startswith("#")]
    assert not any("psab" in line.lower() for line in instructions)  # nothing of psab in the agent's image
    # what the Dockerfile copies into the image names nothing of psab either
    assert "psab" not in (exported / "environment/toolbox-requirements.txt").read_text().lower()


def test_the_agents_image_gets_the_toolbox_at_its_pins(exported, tmp_path):
    # issue 34 item 5: the field's libraries, the same pins a local run's toolbox is built from
    env = exported / "environment"
    assert (env / "toolbox-requirements.txt").read_text().splitlines() == toolbox.pins()
    dockerfile = (env / "Dockerfile").read_text()
    assert "COPY toolbox-requirements.txt /opt/toolbox/requirements.txt" in dockerfile
    run = dockerfile.split("\nRUN python3 -m pip install", 1)[1].split("\nCOPY", 1)[0]
    assert "-r /opt/toolbox/requirements.txt" in run and "andes.prepare(" in run
    assert dockerfile.index("/opt/toolbox") < dockerfile.index("COPY task.json")  # the image caches the toolbox layer
    script = tmp_path / "run.sh"
    script.write_text("python3 -m pip install" + run)
    subprocess.run(["bash", "-n", str(script)], check=True)  # the RUN line is valid shell
    cfg = tomllib.loads((exported / "task.toml").read_text())
    assert cfg["metadata"]["psab_toolbox_requirements_sha256"] == toolbox.requirements_sha256()
    assert cfg["environment"]["build_timeout_sec"] >= 1200  # installing ~110 distributions takes minutes


def test_no_toolbox_leaves_the_bare_image(tmp_path):
    (d,) = export(tmp_path / "bare", [FAMILY], install="true", toolbox=False, oracle=False)
    assert not (d / "environment/toolbox-requirements.txt").exists()
    lines = [line for line in (d / "environment/Dockerfile").read_text().splitlines() if not line.startswith("#")]
    assert lines == ["FROM python:3.11-slim", "WORKDIR /workspace", "COPY task.json /workspace/task.json",
                     "RUN useradd --create-home agent && chown -R agent /workspace"]
    assert "psab_toolbox_requirements_sha256" not in tomllib.loads((d / "task.toml").read_text())["metadata"]


def _verify(exported, tmp_path, solution: str | None) -> float:
    work, logs, bin_ = tmp_path / "work", tmp_path / "logs", tmp_path / "bin"
    for d in (work, logs, bin_):
        d.mkdir(exist_ok=True)
    # `psab` as the verifier's pip install would put it on PATH
    shim = bin_ / "psab"
    shim.write_text(f"#!/bin/sh\nPYTHONPATH={ROOT} exec {sys.executable} -m psab.cli \"$@\"\n")
    shim.chmod(0o755)
    env = {**os.environ, "PATH": f"{bin_}:{os.environ['PATH']}", "PSAB_HARBOR_WORKSPACE": str(work),
           "PSAB_HARBOR_LOGS": str(logs)}
    if solution == "oracle":
        subprocess.run(["bash", str(exported / "solution/solve.sh")], env=env, check=True, timeout=60)
    elif solution is not None:
        (work / "solution.json").write_text(solution)
    subprocess.run(["bash", str(exported / "tests/test.sh")], env=env, check=True, timeout=120, capture_output=True)
    return float((logs / "reward.txt").read_text())


def test_verifier_rewards_the_oracle_one_and_garbage_zero(exported, tmp_path):
    assert _verify(exported, tmp_path, "oracle") == 1.0
    assert _verify(exported, tmp_path, "not json at all") == 0.0
    assert _verify(exported, tmp_path, '{"answer": {"Y_bus": 3}}') == 0.0
    (tmp_path / "work" / "solution.json").unlink()
    assert _verify(exported, tmp_path, None) == 0.0


def test_cli_export_and_refusals(tmp_path, capsys):
    out = tmp_path / "cli"
    assert main(["export", "harbor", "--out", str(out), "--family", FAMILY, "--no-oracle"]) == 0
    assert (out / f"psab-{FAMILY}-public" / "task.toml").is_file()
    assert not (out / f"psab-{FAMILY}-public" / "solution").exists()
    assert main(["export", "harbor", "--out", str(out), "--family", FAMILY]) != 0  # not empty
    assert "not empty" in capsys.readouterr().err


def test_heldout_export_keeps_the_key_in_tests_only(tmp_path):
    (d,) = export(tmp_path / "h", [FAMILY], split="heldout", seed="harbor-test-seed", install="true")
    task = psab.generate(FAMILY, "harbor-test-seed", 0)
    assert (d / "tests/case/key.json").is_file() == (task.key is not None)
    assert psab.load_case(d / "tests/case").digest == task.digest
    assert _verify(d, tmp_path, "oracle") == 1.0
    assert "key" not in json.loads((d / "environment/task.json").read_text())
    assert "harbor-test-seed" not in "".join(p.read_text() for p in d.rglob("*") if p.is_file())


# ---------------------------------------------------------------- the dataset manifest (issue 34, item 5)


def _fixture_task(d: Path) -> Path:
    """A small task directory with the files Harbor hashes, the ones it leaves out (a .pyc under
    __pycache__, an editor backup, a .harborignore) and a nested one."""
    for sub in ("environment/sub", "environment/__pycache__", "tests", "solution"):
        (d / sub).mkdir(parents=True, exist_ok=True)
    files = {"task.toml": '[task]\nname = "psab/fixture"\n', "instruction.md": "Solve it.\n",
             "environment/Dockerfile": "FROM python:3.11-slim\n", "environment/sub/task.json": '{"a": 1}\n',
             "environment/__pycache__/m.cpython-311.pyc": "x", "environment/notes.txt~": "junk",
             "tests/test.sh": "#!/bin/sh\necho 1 > /logs/verifier/reward.txt\n", "tests/.harborignore": "ignored.txt\n",
             "solution/solve.sh": "#!/bin/sh\n"}
    for name, text in files.items():
        (d / name).write_text(text)
    return d


def test_task_digest_is_harbors_content_hash(tmp_path):
    from psab.integrations.harbor import task_digest

    # harbor 0.26.0's harbor.publisher.packager.Packager.compute_content_hash of this directory
    # (Python 3.12 venv, `pip install harbor`), the digest harbor sync / harbor init --dataset write
    expected = "sha256:c17562786a034e0c9517b4b77198926c29fd24bf519f6e03584c10e560153d20"
    assert task_digest(_fixture_task(tmp_path / "t")) == expected


def test_export_writes_the_dataset_manifest_harbor_expects(tmp_path):
    from psab.integrations.harbor import task_digest

    out = tmp_path / "harbor"
    dirs = export(out, [FAMILY, "en50160_voltage_compliance"], install="true")
    manifest = tomllib.loads((out / "dataset.toml").read_text())
    assert manifest["dataset"]["name"] == "psab/public" and manifest["dataset"]["version"] == psab.__version__
    names = [tomllib.loads((d / "task.toml").read_text())["task"]["name"] for d in sorted(dirs)]
    assert [t["name"] for t in manifest["tasks"]] == names
    assert [t["digest"] for t in manifest["tasks"]] == [task_digest(d) for d in sorted(dirs)]
    assert all(len(t["digest"]) == len("sha256:") + 64 for t in manifest["tasks"])


HARBOR = Path(os.environ.get("PSAB_HARBOR_VENV", "/tmp/harbor-venv")) / "bin"


def test_harbor_itself_accepts_the_manifest(tmp_path):
    """Where harbor is installed (a Python >= 3.12 venv, docs/runner.md): its own model parses the
    manifest, ``harbor sync`` finds every digest current, and its local-dataset loader (what
    ``harbor run -p DIR`` uses) finds every task — two compact families and a study."""
    if not (HARBOR / "harbor").exists():
        pytest.skip(f"harbor is not installed in {HARBOR.parent} (it needs Python >= 3.12; see docs/runner.md)")
    out = tmp_path / "harbor"
    export(out, [FAMILY, "en50160_voltage_compliance", "interconnection_study"], install="true")
    sync = subprocess.run([str(HARBOR / "harbor"), "sync", str(out)], capture_output=True, text=True, timeout=300)
    assert sync.returncode == 0 and "Updated 0 digest(s)" in sync.stdout, sync.stdout + sync.stderr
    check = ("import asyncio, sys; from pathlib import Path; from harbor.models.dataset.manifest import DatasetManifest; "
             "from harbor.models.job.config import DatasetConfig; "
             "m = DatasetManifest.from_toml_file(Path(sys.argv[1]) / 'dataset.toml'); "
             "c = asyncio.run(DatasetConfig(path=Path(sys.argv[1])).get_task_configs()); "
             "print(m.dataset.name, m.task_count, len(c))")
    r = subprocess.run([str(HARBOR / "python"), "-c", check, str(out)], capture_output=True, text=True, timeout=300)
    assert r.stdout.split() == ["psab/public", "3", "3"], r.stderr[-2000:]


@pytest.mark.parametrize("study", [s.id for s in psab.studies()])
def test_a_study_exports_its_model_files_and_a_studys_time(study, tmp_path):
    """Every study exports as psab run --tier study lays it out: study.json and the model in the
    field's own files (each with the sha256 the task lists) copied into the agent's image, the
    study's instructions, an hour for the agent, room for the verifier's reference."""
    import hashlib

    from psab.integrations.harbor import TIER_RESOURCES

    (d,) = export(tmp_path / "harbor", [study], oracle=False)
    assert f'"psab[studies]=={psab.__version__}"' in (d / "tests/Dockerfile").read_text()  # the verifier's extras
    task = psab.get_family(study).public_task()
    env = d / "environment"
    files = task.public_inputs["model"]["files"]
    assert files
    for f in files:
        assert hashlib.sha256((env / f["path"]).read_bytes()).hexdigest() == f["sha256"], f["path"]
    view = json.loads((env / "study.json").read_text())
    assert view["id"] == task.id and "key" not in view
    dockerfile = (env / "Dockerfile").read_text()
    assert "COPY study.json /workspace/study.json" in dockerfile
    assert {f["path"].split("/")[0] for f in files} <= {line.split()[1] for line in dockerfile.splitlines()
                                                         if line.startswith("COPY ")}
    assert "/workspace/study.json" in (d / "instruction.md").read_text()
    cfg = tomllib.loads((d / "task.toml").read_text())
    agent_s, verifier_s, cpus, memory_mb = TIER_RESOURCES["study"]
    assert (cfg["agent"]["timeout_sec"], cfg["verifier"]["timeout_sec"]) == (agent_s, verifier_s)
    assert (cfg["environment"]["cpus"], cfg["environment"]["memory_mb"]) == (cpus, memory_mb)


def test_a_studys_verifier_rewards_its_oracle_one(tmp_path):
    (d,) = export(tmp_path / "harbor", ["interconnection_study"], install="true")
    assert _verify(d, tmp_path, "oracle") == 1.0
    assert _verify(d, tmp_path, '{"answer": {"decision": {}}}') == 0.0
