"""Determinism at scale: the same seed, family and index give byte-identical output serially,
on local worker processes (forkserver and spawn) and on a two-worker Dask cluster."""

from __future__ import annotations

import json
from pathlib import Path

from psab.cli import main
from psab.generators.parallel import draw, plan_jobs, run_jobs
from psab.generators.seeds import PrivateSeed

SEED = "340282366920938463463374607431768211297"
FAMILY = "ybus_construction"


def _tree(root: Path) -> dict[str, bytes]:
    return {str(p.relative_to(root)): p.read_bytes() for p in sorted(root.rglob("*")) if p.is_file()}


def test_generate_is_byte_identical_serially_on_workers_and_on_dask(tmp_path: Path, dask_cluster, capsys) -> None:
    common = ["generate", "--family", FAMILY, "--seed", SEED, "--count", "6", "--start", "3"]
    runs = {
        "serial": [],
        "local": ["--workers", "2"],
        "dask": ["--dask", dask_cluster.scheduler_address],
    }
    for name, extra in runs.items():
        assert main([*common, "--out", str(tmp_path / name / "out"), *extra]) == 0
    capsys.readouterr()
    serial = _tree(tmp_path / "serial")
    names = sorted(serial)
    assert names == ["out-keys/manifest.json"] + [f"out/{FAMILY}-heldout-{i:05d}/task.json" for i in range(3, 9)]
    assert _tree(tmp_path / "local") == serial
    assert _tree(tmp_path / "dask") == serial
    # ... and the Dask run really ran on the cluster's worker processes
    from distributed import Client

    with Client(dask_cluster) as client:
        ran = client.run(lambda: __import__("sys").modules.get("psab.generators.worker") is not None)
    assert len(ran) == 2 and any(ran.values())


def test_validation_report_is_the_same_serially_on_workers_and_on_dask(tmp_path: Path, dask_cluster, capsys) -> None:
    docs = []
    for extra in ([], ["--workers", "2"], ["--dask", dask_cluster.scheduler_address]):
        out = tmp_path / f"v{len(docs)}.json"
        assert main(["validate-generators", "--variants", "4", "--family", FAMILY, "--json", str(out), *extra]) == 0
        doc = json.loads(out.read_text(encoding="utf-8"))
        for row in doc["families"]:
            row.pop("seconds")
        docs.append(doc)
    capsys.readouterr()
    assert docs[0] == docs[1] == docs[2]


def test_results_come_back_in_job_order_whatever_the_start_method() -> None:
    seed = PrivateSeed(SEED)
    jobs = plan_jobs([FAMILY], range(5), seed=seed, workers=2, chunk=1)
    assert [j.indices for j in jobs] == [(0,), (1,), (2,), (3,), (4,)]
    serial = [o.task.to_json() for o in run_jobs(jobs)]
    spawned = [o.task.to_json() for o in run_jobs(jobs, workers=2, start_method="spawn")]
    assert spawned == serial
    assert [o.index for o in draw([FAMILY], [4, 0, 2], SEED)] == [4, 0, 2]


def test_jobs_never_mix_families_and_cover_every_index() -> None:
    jobs = plan_jobs([FAMILY], range(10), seed=PrivateSeed(1), workers=2)
    assert sorted(i for j in jobs for i in j.indices) == list(range(10))
    assert all(j.family == FAMILY for j in jobs) and len(jobs) > 2
    # Every family is split as finely as if it were drawn alone, however many families share
    # the round: a slow family must not end up in a few long jobs beside fast ones.
    fams = ["ybus_construction", "three_phase_short_circuit", "microgrid_economic_dispatch"]
    mixed = plan_jobs(fams, range(160), seed=PrivateSeed(1), workers=2)
    alone = plan_jobs([fams[2]], range(160), seed=PrivateSeed(1), workers=2)
    assert [j.indices for j in mixed if j.family == fams[2]] == [j.indices for j in alone]
    assert len(alone) == 16
    for f in fams:
        assert sorted(i for j in mixed if j.family == f for i in j.indices) == list(range(160))
    assert "340282366920938463463374607431768211297" not in repr(plan_jobs([FAMILY], range(2), seed=PrivateSeed(SEED)))


def test_a_family_workers_cannot_load_is_refused_up_front(register_fake) -> None:
    import pytest

    from psab.errors import InvalidArgumentError

    from .gen_fakes import double_family

    register_fake(double_family("gen_test_local_only"))
    assert len(draw(["gen_test_local_only"], range(2), 1)) == 2
    with pytest.raises(InvalidArgumentError, match="workers=1"):
        draw(["gen_test_local_only"], range(2), 1, workers=2)


def test_a_worker_running_other_code_refuses_to_draw() -> None:
    import dataclasses

    [job] = plan_jobs([FAMILY], range(2), seed=PrivateSeed(3))
    stale = dataclasses.replace(job, expect=(job.expect[0], "0" * 16))
    outcomes = run_jobs([stale])
    assert [o.task for o in outcomes] == [None, None]
    assert all("install the same psab on every worker" in o.error for o in outcomes)


PLAIN_SCRIPT = '''\
import json
import os
import sys

from psab import processes
from psab.generators.parallel import WARM_MODULES, draw

with open(sys.argv[1], "a") as fh:  # one line per run of this module's top level
    fh.write(f"{os.getpid()}\\n")

seed = "340282366920938463463374607431768211297"
serial = [o.task.to_json() for o in draw(["ybus_construction"], range(6), seed)]
first = [o.task.to_json() for o in draw(["ybus_construction"], range(6), seed, workers=2, chunk=1)]
second = [o.task.to_json() for o in draw(["ybus_construction"], range(6), seed, workers=2, chunk=1)]
server = processes._SERVERS.get(tuple(WARM_MODULES))
print(json.dumps({"same": serial == first == second,
                  "server_started": server is not None and server._forkserver_pid is not None}))
'''


def test_drawing_on_workers_from_a_plain_script_without_a_main_guard(tmp_path: Path) -> None:
    """A script without ``if __name__ == "__main__":`` that draws on local workers: the workers
    (forked from psab's own fork server) must not re-run it — on main every forkserver worker
    re-imported the script as ``__mp_main__``, ran its draw again and broke the pool — and the
    draws must equal the serial ones."""
    import os
    import subprocess
    import sys

    import psab

    script = tmp_path / "plain.py"
    script.write_text(PLAIN_SCRIPT)
    runs = tmp_path / "runs.txt"
    root = str(Path(psab.__file__).resolve().parent.parent)
    proc = subprocess.run([sys.executable, str(script), str(runs)], capture_output=True, text=True, cwd=tmp_path,
                          env={**os.environ, "PYTHONPATH": root}, timeout=600)
    assert proc.returncode == 0, proc.stderr[-3000:]
    out = json.loads(proc.stdout.strip().splitlines()[-1])
    assert runs.read_text().count("\n") == 1  # the workers did not re-run the script
    assert out["same"]
    assert out["server_started"]  # worker processes were started (from psab's fork server)
