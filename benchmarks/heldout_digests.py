"""Digests of held-out draws, to prove a change to generation left them byte-identical.

Run from the repository root, before and after the change::

    python benchmarks/heldout_digests.py [--family ID ...] [--kind optimize] [--seed 20261130] [--count 10]

For every family of the kind (all optimize families by default) and every level it offers,
one SHA-256 over draws ``0 .. count-1`` of ``psab.generate(family, seed, index, level=level)``:
each task's JSON, its key and its reference solution's JSON (a draw that raises contributes its
error text). Prints one line per family and level — ``family@level digest`` — so two runs
compare with ``diff``.
"""

from __future__ import annotations

import argparse
import hashlib
import json


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--family", action="append", default=None)
    ap.add_argument("--kind", default="optimize", help="scoring kind of the families to draw ('' for all)")
    ap.add_argument("--seed", type=int, default=20261130)
    ap.add_argument("--count", type=int, default=10)
    args = ap.parse_args()

    import psab

    for spec in psab.families():
        if (args.family and spec.id not in args.family) or (args.kind and spec.scoring_kind != args.kind):
            continue
        for level in spec.levels:
            h = hashlib.sha256()
            for index in range(args.count):
                try:
                    task = psab.generate(spec.id, args.seed, index, level=level)
                except psab.PsabError as exc:
                    h.update(f"{type(exc).__name__}: {exc}".encode())
                    continue
                h.update(task.to_json().encode())
                h.update(json.dumps(task.key, sort_keys=True).encode())
                h.update(json.dumps(psab.solve(task).to_dict(), sort_keys=True, default=str).encode())
            print(f"{spec.id}@{level} {h.hexdigest()}", flush=True)


if __name__ == "__main__":
    main()
