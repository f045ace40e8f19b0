"""``psab export harbor``: one Harbor task directory per psab case (``harbor`` on the package
index runs them on its own infrastructure).

Harbor's task layout (harborframework.com/docs/tasks; ``harbor init --task`` of harbor 0.26
writes the same, task.toml schema 1.4)::

    <task>/
      task.toml             [task], [metadata], [verifier], [agent], [environment], artifacts
      instruction.md        what the agent is told
      environment/          the agent's container: a Dockerfile and its build context
      tests/Dockerfile      the verifier's own container (environment_mode = "separate")
      tests/test.sh         the verifier; writes /logs/verifier/reward.txt
      solution/solve.sh     the oracle (optional): the reference solution

What goes where follows psab's own isolation: the agent's container holds the task's agent
view (``/workspace/task.json``), the field's libraries at the toolbox's pins (the same
``psab/toolbox/requirements.txt`` a local run's toolbox is built from, copied into the build
context as ``toolbox-requirements.txt`` and installed into the image's Python; ``--no-toolbox``
leaves the bare image) and nothing of psab, and the agent works as an unprivileged user; the verifier runs in a container of its own, built from ``tests/`` with psab installed,
which receives the agent's ``/workspace/solution.json`` as an artifact, runs ``psab evaluate``
and writes the score (0 to 1) as the reward. The instruction is :func:`psab.instructions_for`
with the container's paths — the text ``psab run`` gives every agent. A held-out export puts
the keys in ``tests/``: keep such a directory as private as the seed.
"""

from __future__ import annotations

import argparse
import json
import shutil
import sys
from pathlib import Path
from typing import Any

import psab
from psab.errors import PsabError

WORKDIR = "/workspace"

#: The paths the agent sees inside the container (instructions name them).
AGENT_PATHS = {"task": f"{WORKDIR}/task.json", "instructions": f"{WORKDIR}/instruction.md",
               "solution": f"{WORKDIR}/solution.json", "workdir": WORKDIR}

DOCKERFILE = """\
{header}
FROM {image}
WORKDIR {workdir}
{toolbox}{copies}
RUN useradd --create-home agent && chown -R agent {workdir}
"""

#: The build context's copy of the toolbox's pins (psab/toolbox/requirements.txt, comments dropped).
TOOLBOX_REQUIREMENTS = "toolbox-requirements.txt"

VERIFIER_DOCKERFILE = """\
# The verifier's container: psab and the case with its key, never shown to the agent.
FROM {image}
COPY . /tests/
RUN {install}
"""

TEST_SH = """\
#!/bin/bash
# psab's verifier for Harbor (psab is installed in its image, tests/Dockerfile): judge the
# agent's solution (collected from its container as an artifact) with `psab evaluate` and
# write the score (0..1) to /logs/verifier/reward.txt. A missing or unreadable solution is
# judged like any other (infeasible, score 0); a verifier that cannot run psab writes 0.
set -u
LOGS="${{PSAB_HARBOR_LOGS:-/logs/verifier}}"        # Harbor's verifier log directory
WORKSPACE="${{PSAB_HARBOR_WORKSPACE:-{workdir}}}"   # where the agent worked
mkdir -p "$LOGS"
TESTS="$(cd "$(dirname "$0")" && pwd)"
SOLUTION="$WORKSPACE/solution.json"
if [ ! -f "$SOLUTION" ]; then
  printf '{{}}' > "$LOGS/empty-solution.json"   # no file: judged as an empty answer (score 0)
  SOLUTION="$LOGS/empty-solution.json"
fi
if psab evaluate "$TESTS/case" "$SOLUTION" --backend {backend} --json > "$LOGS/result.json"; then
  python3 -c 'import json,sys; print(float(json.load(open(sys.argv[1]))["score"]))' "$LOGS/result.json" \\
    > "$LOGS/reward.txt" || echo 0 > "$LOGS/reward.txt"
else
  echo 0 > "$LOGS/reward.txt"
fi
cat "$LOGS/result.json" 2>/dev/null || true
"""

SOLVE_SH = """\
#!/bin/bash
# The oracle: psab's reference solution for this case.
cat > "${{PSAB_HARBOR_WORKSPACE:-{workdir}}}/solution.json" <<'PSAB_REFERENCE'
{solution}
PSAB_REFERENCE
"""


def _toolbox_sha() -> str:
    from psab.toolbox import requirements_sha256

    return requirements_sha256()


def _toml_str(s: str) -> str:
    return json.dumps(s)  # a JSON string is a valid TOML basic string


#: Per tier: (agent timeout, verifier timeout) in seconds, cpus, memory (MB). A study is an hour's
#: work for an agent (psab run --tier study's default), and its verifier recomputes the proven
#: reference — seconds to minutes on two cores (docs/studies.md, "Measured difficulty"), more on
#: one — and holds a real-size model (a SimBench year of profiles, IEEE 118 × 24 h × N-1).
TIER_RESOURCES = {"compact": (600.0, 300.0, 1, 2048), "study": (3600.0, 3600.0, 2, 8192)}


def task_toml(task: psab.Task, split: str, *, agent_timeout_s: float, verifier_timeout_s: float,
              allow_internet: bool, backend: str, presentation: str, lang: str, toolbox: bool = True,
              cpus: int = 1, memory_mb: int = 2048) -> str:
    title = task.presentation.get(lang, task.presentation.get("en", {})).get("title", task.id)
    return "\n".join([
        'schema_version = "1.4"',
        # the agent's answer, carried into the separate verifier at the same path
        f"artifacts = [{_toml_str(AGENT_PATHS['solution'])}]",
        "",
        "[task]",
        f"name = {_toml_str('psab/' + task.id)}",
        f"version = {_toml_str(psab.__version__)}",
        f"description = {_toml_str(str(title))}",
        f"keywords = {json.dumps(['psab', 'electric-power-engineering', task.family, split])}",
        "",
        "[metadata]",
        f"psab_family = {_toml_str(task.family)}",
        f"psab_family_version = {_toml_str(str(task.family_version))}",
        f"psab_task_id = {_toml_str(task.id)}",
        f"psab_task_digest = {_toml_str(task.digest)}",
        f"psab_split = {_toml_str(split)}",
        f"psab_backend = {_toml_str(backend)}",
        f"psab_presentation = {_toml_str(presentation)}",
        f"psab_lang = {_toml_str(lang)}",
        *([f"psab_toolbox_requirements_sha256 = {_toml_str(_toolbox_sha())}"] if toolbox else []),
        "",
        "[verifier]",
        f"timeout_sec = {float(verifier_timeout_s)}",
        'environment_mode = "separate"',
        "",
        "[agent]",
        f"timeout_sec = {float(agent_timeout_s)}",
        'user = "agent"',
        "",
        "[environment]",
        f"network_mode = {_toml_str('public' if allow_internet else 'no-network')}",
        # installing the toolbox (about 700 MB of wheels) and generating ANDES's code takes minutes
        f"build_timeout_sec = {1800.0 if toolbox else 600.0}",
        f"cpus = {int(cpus)}",
        f"memory_mb = {int(memory_mb)}",
        "storage_mb = 10240",
        "",
    ])


def agent_dockerfile(image: str, toolbox: bool = True, view: tuple[str, ...] = ("task.json",)) -> str:
    """The agent's Dockerfile: ``image``, with the toolbox's pins installed unless ``toolbox``
    is false (then the bare image, as before issue 34), and the agent view's files and folders
    ``view`` (a study's ``study.json`` and its model folder) copied into the working directory."""
    import textwrap

    from psab.toolbox import dockerfile_lines

    # the pins installed into the image's Python, then ANDES's model code generated once (as
    # `psab toolbox build` does), so the agent's first ANDES system does not spend 30-45 s on it
    lines = dockerfile_lines(TOOLBOX_REQUIREMENTS) if toolbox else ""
    contents = (f"a Python image, the field's libraries at the toolbox's pins ({TOOLBOX_REQUIREMENTS}) and the "
                "task's agent view" if toolbox else "a Python image and the task's agent view")
    header = textwrap.fill(f"The agent's container: {contents}, nothing of psab (the verifier judges in a container "
                           "of its own, tests/Dockerfile). The agent is not root.", 94, initial_indent="# ", break_on_hyphens=False,
                           subsequent_indent="# ")
    copies = "\n".join(f"COPY {name} {WORKDIR}/{name}" for name in view)
    return DOCKERFILE.format(header=header, image=image, workdir=WORKDIR, toolbox=lines, copies=copies)


def export_case(task: psab.Task, out: Path, split: str = "public", *, lang: str = "en", presentation: str = "guided",
                backend: str = "surrogate", image: str = "python:3.11-slim", install: str | None = None,
                wheel: Path | None = None, agent_timeout_s: float | None = None, verifier_timeout_s: float | None = None,
                allow_internet: bool = True, oracle: bool = True, toolbox: bool = True) -> Path:
    """Write one Harbor task directory for ``task`` under ``out`` and return it (timeouts left
    ``None`` are the task's tier's, :data:`TIER_RESOURCES`)."""
    from psab import toolbox as tb
    from psab.views import agent_view

    d = out / f"psab-{task.id}"
    d.mkdir(parents=True, exist_ok=True)
    spec = psab.get_family(task.family)
    view = agent_view(task, presentation=presentation, backend=backend)
    study = spec.tier == "study"
    agent_default, verifier_default, cpus, memory_mb = TIER_RESOURCES["study" if study else "compact"]
    if study:
        # a study's agent reads study.json beside the model in the field's own files, as under
        # psab run --tier study; the verifier's psab needs the studies extra (SimBench, power-grid-model)
        from psab.runner.instructions import VIEW_FILE, study_instructions
        from psab.studies.model import model_files

        paths = {**AGENT_PATHS, "task": f"{WORKDIR}/{VIEW_FILE}"}
        (d / "instruction.md").write_text(study_instructions(view, lang, paths), encoding="utf-8")
        tops = sorted({f["path"].split("/")[0] for f in model_files(task.id, task.public_inputs)})
        copied: tuple[str, ...] = (VIEW_FILE, *tops)
        if install is None and wheel is None:
            install = f'python3 -m pip install --no-cache-dir "psab[studies]=={psab.__version__}"'
    else:
        (d / "instruction.md").write_text(psab.instructions_for(task, lang, presentation, backend, AGENT_PATHS),
                                          encoding="utf-8")
        copied = ("task.json",)
    (d / "task.toml").write_text(task_toml(task, split, agent_timeout_s=agent_timeout_s or agent_default,
                                           verifier_timeout_s=verifier_timeout_s or verifier_default,
                                           allow_internet=allow_internet, backend=backend, presentation=presentation,
                                           lang=lang, toolbox=toolbox, cpus=cpus, memory_mb=memory_mb),
                                 encoding="utf-8")
    env = d / "environment"
    env.mkdir(exist_ok=True)
    (env / "Dockerfile").write_text(agent_dockerfile(image, toolbox, copied), encoding="utf-8")
    if toolbox:
        # the pins only: the agent's image holds nothing that names psab
        (env / TOOLBOX_REQUIREMENTS).write_text("\n".join(tb.pins()) + "\n", encoding="utf-8")
    (env / copied[0]).write_text(view.to_json(), encoding="utf-8")
    if study:
        spec.materialize(task, env)  # type: ignore[misc]
    tests = d / "tests"
    case = tests / "case"
    case.mkdir(parents=True, exist_ok=True)
    (case / "task.json").write_text(task.to_json(), encoding="utf-8")
    if task.key is not None:
        (case / "key.json").write_text(json.dumps(task.key, indent=2, sort_keys=True), encoding="utf-8")
    if wheel is not None:
        shutil.copy2(wheel, tests / wheel.name)
        install = f"python3 -m pip install --no-cache-dir /tests/{wheel.name}"
    elif install is None:
        install = f'python3 -m pip install --no-cache-dir "psab=={psab.__version__}"'
    (tests / "Dockerfile").write_text(VERIFIER_DOCKERFILE.format(image=image, install=install), encoding="utf-8")
    test_sh = tests / "test.sh"
    test_sh.write_text(TEST_SH.format(workdir=WORKDIR, backend=backend), encoding="utf-8")
    test_sh.chmod(0o755)
    if oracle:
        sol = d / "solution"
        sol.mkdir(exist_ok=True)
        reference = psab.solve(task, backend)
        text = json.dumps({"answer": reference.answer, "rationale": "psab reference"}, indent=2, sort_keys=True)
        (sol / "solve.sh").write_text(SOLVE_SH.format(workdir=WORKDIR, solution=text), encoding="utf-8")
        (sol / "solve.sh").chmod(0o755)
    return d


def export(out: str | Path, families: list[str] | None = None, split: str = "public", count: int = 1, start: int = 0,
           seed: str | None = None, force: bool = False, **kw: Any) -> list[Path]:
    """One Harbor task directory per case: every selected family's public case, or ``count``
    held-out draws per family under ``seed``."""
    from psab.errors import InvalidArgumentError

    out = Path(out)
    if out.exists() and any(out.iterdir()) and not force:
        raise InvalidArgumentError(f"{out} is not empty (use --force to write into it)")
    backend = kw.get("backend", "surrogate")
    ids = families or [s.id for s in psab.families() if backend in s.backends]
    for f in ids:
        psab.get_family(f)
    written = []
    if split == "public":
        for f in ids:
            written.append(export_case(psab.get_family(f).public_task(), out, "public", **kw))
    elif split == "heldout":
        if not seed:
            raise InvalidArgumentError("the held-out split needs a private seed: --seed or $PSAB_SEED")
        for f in ids:
            for i in range(start, start + count):
                written.append(export_case(psab.generate(f, seed, i, backend=backend), out, "heldout", **kw))
    else:
        raise InvalidArgumentError(f"split must be public or heldout, not {split!r}")
    write_dataset_manifest(out, split)
    return written


# ------------------------------------------------------------------ the dataset manifest (issue 34, item 5)

#: Harbor's manifest that makes a directory of task directories a dataset
#: (``harbor.models.dataset.paths.DatasetPaths.MANIFEST_FILENAME``, harbor 0.26).
DATASET_MANIFEST = "dataset.toml"
#: What Harbor's content hash of a task covers (``harbor.publisher.packager.Packager.collect_files``):
#: these files at the task's top, and every file under these directories.
_HASHED_FILES = ("task.toml", "instruction.md", "README.md", "trajectory.json")
_HASHED_DIRS = ("environment", "tests", "solution", "steps")
#: Packager's ``DEFAULT_IGNORES`` (gitignore patterns; psab writes no .gitignore of its own).
_IGNORED = ("*.pyc", ".DS_Store", "*.swp", "*.swo", "*~")


def task_digest(task_dir: Path) -> str:
    """Harbor's content digest of a task directory, ``sha256:<hex>``: SHA-256 over one line
    ``<relative path>\\0<SHA-256 of the file>\\n`` per hashed file, in path order (harbor 0.26,
    ``Packager.compute_content_hash``; directories are walked without following their
    symlinks, ``__pycache__`` and the default ignores left out) — the digest ``harbor sync``
    and ``harbor init --dataset`` write for a local task."""
    import fnmatch
    import hashlib

    task_dir = Path(task_dir).resolve()
    files = [task_dir / name for name in _HASHED_FILES if (task_dir / name).exists()]

    def visit(d: Path) -> None:
        for p in sorted(d.iterdir()):
            if p.name == ".harborignore":  # Harbor's own rules file, never hashed
                continue
            if p.is_dir() and not p.is_symlink():
                if p.name != "__pycache__":
                    visit(p)
            elif p.is_file() and not any(fnmatch.fnmatch(p.name, pat) for pat in _IGNORED):
                files.append(p)

    for name in _HASHED_DIRS:
        if (task_dir / name).is_dir():
            visit(task_dir / name)
    outer = hashlib.sha256()
    for f in sorted(files, key=lambda f: f.relative_to(task_dir).as_posix()):
        outer.update(f"{f.relative_to(task_dir).as_posix()}\0{hashlib.sha256(f.read_bytes()).hexdigest()}\n".encode())
    return "sha256:" + outer.hexdigest()


def write_dataset_manifest(out: Path, split: str) -> Path:
    """Write ``out/dataset.toml``, the manifest Harbor expects of a dataset directory (the form
    ``harbor init --dataset`` writes): ``[dataset]`` (name ``psab/<split>``, psab's version, a
    description) and one ``[[tasks]]`` entry (the name in the task's ``task.toml`` and its
    :func:`task_digest`) per task directory in ``out``, in directory order — so ``harbor sync``
    finds every digest current and ``harbor publish`` can publish the export as it stands."""
    import tomllib

    tasks = []
    for d in sorted(p for p in Path(out).iterdir() if p.is_dir() and (p / "task.toml").is_file()):
        name = tomllib.loads((d / "task.toml").read_text(encoding="utf-8")).get("task", {}).get("name")
        if isinstance(name, str):
            tasks.append((name, task_digest(d)))
    lines = [
        f"# Harbor dataset manifest written by psab export harbor (psab {psab.__version__}).",
        "# Run the tasks: harbor run -p <this directory> -a <agent>; check one: harbor lint <task directory>",
        "",
        "[dataset]",
        f"name = {_toml_str('psab/' + split)}",
        f"version = {_toml_str(psab.__version__)}",
        f"description = {_toml_str(f'psab (power-engineering tasks for AI agents), {split} split: {len(tasks)} tasks')}",
        "authors = []",
        f"keywords = [{_toml_str('psab')}, {_toml_str('power-engineering')}]",
    ]
    for name, digest in tasks:
        lines += ["", "[[tasks]]", f"name = {_toml_str(name)}", f"digest = {_toml_str(digest)}"]
    path = Path(out) / DATASET_MANIFEST
    path.write_text("\n".join(lines) + "\n", encoding="utf-8")
    return path


def cmd_export_harbor(args: argparse.Namespace) -> int:
    import os

    seed = args.seed or os.environ.get("PSAB_SEED")
    wheel = Path(args.wheel) if args.wheel else None
    if wheel is not None and not wheel.is_file():
        raise PsabError(f"--wheel {wheel}: no such file")
    dirs = export(args.out, args.family, args.split, args.count, args.start, seed, args.force, lang=args.lang,
                  presentation=args.presentation, backend=args.backend, image=args.image, install=args.install,
                  wheel=wheel, agent_timeout_s=args.agent_timeout, allow_internet=not args.no_internet,
                  oracle=not args.no_oracle, toolbox=not args.no_toolbox)
    for d in dirs:
        print(d)
    print(f"wrote {len(dirs)} Harbor task director{'y' if len(dirs) == 1 else 'ies'} under {args.out}", file=sys.stderr)
    return 0


_EPILOG = """\
examples:
  psab export harbor --out harbor-tasks
  psab export harbor --out harbor-tasks --family ybus_construction --wheel dist/psab-0.1.0-py3-none-any.whl
  PSAB_SEED=... psab export harbor --out private/harbor --split heldout --count 3
  harbor run -p harbor-tasks/psab-ybus_construction-public -a oracle
"""


def add_commands(sub: Any) -> None:
    """Add ``export harbor`` to the ``psab`` parser."""
    from psab.cli import HelpFormatter, _backend_help

    p = sub.add_parser("export", help="write psab's cases in another harness's task format",
                       description="Write psab's cases as task directories of another evaluation harness.",
                       epilog=_EPILOG, formatter_class=HelpFormatter)
    formats = p.add_subparsers(dest="format", metavar="FORMAT", required=True)
    h = formats.add_parser("harbor", help="one Harbor task directory per case",
                           description="One Harbor task directory per case: instruction.md (what psab run tells an "
                                       "agent), environment/ (the agent view, no psab), tests/ (a separate verifier image "
                                       "with psab; test.sh runs psab evaluate and writes the reward) and solution/solve.sh "
                                       "(the reference).",
                           epilog=_EPILOG, formatter_class=HelpFormatter)
    h.add_argument("--out", required=True, metavar="DIR", help="directory for the task directories")
    h.add_argument("--family", action="append", metavar="ID", help="only these families (repeatable)")
    h.add_argument("--split", choices=("public", "heldout"), default="public", help="public (default) or heldout")
    h.add_argument("--count", type=int, default=1, metavar="N", help="held-out cases per family (default 1)")
    h.add_argument("--start", type=int, default=0, metavar="N", help="first held-out index (default 0)")
    h.add_argument("--seed", metavar="SEED", help="the private held-out seed (or $PSAB_SEED); the keys go in tests/")
    h.add_argument("--lang", choices=("en", "ru"), default="en", help="language of instruction.md")
    h.add_argument("--presentation", choices=("guided", "expert"), default="guided", help="statement level")
    h.add_argument("--backend", default="surrogate", metavar="NAME", help=_backend_help("backend that judges"))
    h.add_argument("--image", default="python:3.11-slim", metavar="IMAGE",
                   help="base image of both containers (pin it by digest for reproducible builds; the toolbox's "
                        "pins resolve on Python 3.11 to 3.13)")
    h.add_argument("--wheel", metavar="FILE", help="a psab wheel to ship in tests/ and install in the verifier")
    h.add_argument("--install", metavar="CMD",
                   help="how the verifier's image installs psab (default: pip install psab==VERSION)")
    h.add_argument("--agent-timeout", type=float, default=None, metavar="S",
                   help="agent timeout (default 600 s, a study 3600 s)")
    h.add_argument("--no-internet", action="store_true", help="network_mode = \"no-network\" for the agent")
    h.add_argument("--no-oracle", action="store_true", help="no solution/solve.sh")
    h.add_argument("--no-toolbox", action="store_true",
                   help="the agent's image without the toolbox's libraries (default: installed at psab's pins)")
    h.add_argument("--force", action="store_true", help="write into a non-empty directory")
    h.set_defaults(func=cmd_export_harbor)
