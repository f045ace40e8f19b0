"""Small timing helpers shared by the benchmark scripts: medians of repeats, plain tables."""

from __future__ import annotations

import statistics
import subprocess
import sys
import time
from collections.abc import Callable, Sequence
from typing import Any


def median_time(fn: Callable[[], Any], repeat: int = 25, setup: Callable[[], Any] | None = None, warmup: int = 1) -> float:
    """Median wall time of ``fn()`` in seconds (``setup()`` runs before each call, untimed)."""
    for _ in range(warmup):
        if setup:
            setup()
        fn()
    samples = []
    for _ in range(repeat):
        if setup:
            setup()
        t0 = time.perf_counter()
        fn()
        samples.append(time.perf_counter() - t0)
    return statistics.median(samples)


def interleaved_process_times(snippets: dict[str, str], repeat: int = 9) -> dict[str, float]:
    """Median wall time of ``python -c SNIPPET`` per snippet, runs interleaved (fair on a noisy box)."""
    samples: dict[str, list[float]] = {k: [] for k in snippets}
    for _ in range(repeat):
        for name, code in snippets.items():
            t0 = time.perf_counter()
            subprocess.run([sys.executable, "-c", code], check=True, capture_output=True)
            samples[name].append(time.perf_counter() - t0)
    return {k: statistics.median(v) for k, v in samples.items()}


def fmt_ms(seconds: float) -> str:
    ms = seconds * 1e3
    return f"{ms:.3f}" if ms < 1 else f"{ms:.2f}" if ms < 100 else f"{ms:.0f}"


def print_table(title: str, header: Sequence[str], rows: Sequence[Sequence[Any]]) -> None:
    cells = [[str(h) for h in header]] + [[str(c) for c in r] for r in rows]
    widths = [max(len(r[i]) for r in cells) for i in range(len(header))]
    print(f"\n## {title}\n")
    print("| " + " | ".join(h.ljust(w) for h, w in zip(cells[0], widths)) + " |")
    print("|" + "|".join("-" * (w + 2) for w in widths) + "|")
    for r in cells[1:]:
        print("| " + " | ".join(c.ljust(w) for c, w in zip(r, widths)) + " |")
    sys.stdout.flush()


def family_table(families: Sequence[str], repeat: int) -> None:
    """The per-family table every area benchmark prints: for each family (in the given order) and
    each backend it declares, the median evaluation of its public case's reference answer with
    the reference cached and uncached, and the reference solve itself (ms). Simulator backends
    get a fifth of the repeats (at least 5)."""
    import psab
    from psab import backends
    from psab.evaluators.cache import clear_reference_cache
    from psab.paths import case_dir

    rows = []
    for family in families:
        spec = psab.get_family(family)
        task = psab.load_case(case_dir(family))
        for backend in spec.backends:
            if not backends.available(backend):
                rows.append((family, backend, "not installed", "", ""))
                continue
            solution = psab.solve(task, backend)  # warms imports, nets and the cache
            n = repeat if backend == "surrogate" else max(5, repeat // 5)

            def evaluate(task=task, solution=solution, backend=backend):  # bind this iteration's values
                return psab.evaluate(task, solution, backend)

            cached = median_time(evaluate, repeat=n)
            uncached = median_time(evaluate, repeat=n, setup=clear_reference_cache)
            solve = median_time(lambda task=task, backend=backend: psab.solve(task, backend), repeat=n, setup=clear_reference_cache)
            rows.append((family, backend, fmt_ms(cached), fmt_ms(uncached), fmt_ms(solve)))
    print_table("Evaluation and reference solve per family (median ms)",
                ("family", "backend", "evaluate, ref cached", "evaluate, ref uncached", "reference solve"), rows)
