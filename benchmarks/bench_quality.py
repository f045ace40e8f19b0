"""Power quality, standards and assets: evaluation per family and backend, and the standards'
kernels on long series (what the fleet tier will call).

Run: ``PYTHONPATH=. python benchmarks/bench_quality.py [--quick] [--repeat N]``. Prints two
Markdown tables of medians (the machine is shared and noisy: trust ratios more than absolute
times):

- per family and backend: evaluating the public case's reference answer with the reference
  cached and uncached, and the reference solve alone;
- kernels on a year of 10-min values (52,560 points): the IEC 60076-7 difference equations
  (numpy block recursion) against the same equations as a plain Python loop and against
  transformer-thermal-model's ``Model.run`` (its own loop) on the same year; the EN 50160 weekly
  test; IEEE 519 TDD/THD and limit checks on 52,560 spectra of 49 orders; and the IEC 61000-4-30
  event detector on an hour of three-channel half-cycle values (360,000 × 3).
"""

from __future__ import annotations

import argparse
import sys
from pathlib import Path

import numpy as np

sys.path.insert(0, str(Path(__file__).resolve().parent))

from common import family_table, fmt_ms, median_time, print_table  # noqa: E402

FAMILIES = ("en50160_voltage_compliance", "power_quality_event_classification", "harmonic_ieee519_compliance",
            "transformer_thermal_loading")
YEAR = 52_560


def _thermal_loop(p, k, ta, dt, o):  # type: ignore[no-untyped-def]
    h1 = h2 = 0.0
    top = np.empty(k.size)
    for n in range(k.size):
        o += dt / (p.k11 * p.tau_o_min) * (((1 + k[n] ** 2 * p.r) / (1 + p.r)) ** p.x * p.delta_theta_or_k - (o - ta[n]))
        h1 += dt / (p.k22 * p.tau_w_min) * (p.k21 * p.h_gr_k * k[n] ** p.y - h1)
        h2 += dt / (p.tau_o_min / p.k22) * ((p.k21 - 1) * p.h_gr_k * k[n] ** p.y - h2)
        top[n] = o
    return top


def kernel_rows(repeat: int) -> None:
    from psab import backends
    from psab.surrogates import en50160, iec60076_7, iec61000_4_30, ieee519

    rng = np.random.default_rng(2026)
    t_h = np.arange(YEAR) / 6.0
    load = 0.75 + 0.3 * np.sin(2 * np.pi * (t_h - 9.0) / 24.0) + 0.05 * rng.standard_normal(YEAR)
    amb = 10.0 + 10.0 * np.sin(2 * np.pi * (t_h / 24.0 - 110.0) / 365.0) + 5.0 * np.sin(2 * np.pi * (t_h - 9.0) / 24.0)
    onan = iec60076_7.ThermalParameters(55.0, 23.0, 6.0, 0.8, 1.3, 0.5, 2.0, 2.0, 210.0, 10.0)
    rows = []

    def thermal():
        return iec60076_7.thermal_response(onan, load, amb, 10.0, initial_top_oil_c=40.0, paper="normal")

    t_np = median_time(thermal, repeat=repeat)
    t_loop = median_time(lambda: _thermal_loop(onan, load, amb, 10.0, 40.0), repeat=max(3, repeat // 5))
    rows.append(("IEC 60076-7 difference equations, numpy blocks (θo, θh, V, L)", "52,560 steps", fmt_ms(t_np), "1.00"))
    rows.append(("  the same equations as a plain Python loop (θo, θh)", "52,560 steps", fmt_ms(t_loop), f"{t_loop / t_np:.1f}"))
    if backends.available("transformer_thermal_model"):
        from psab.backends import transformer_thermal_model_thermal as ttm

        t_pkg = median_time(lambda: ttm.simulate(onan, load, amb, 10.0, initial={"kind": "top_oil", "top_oil_c": 40.0},
                                                 paper="normal"), repeat=3, warmup=1)
        rows.append(("  transformer-thermal-model Model.run + ageing (backend adapter)", "52,560 steps", fmt_ms(t_pkg), f"{t_pkg / t_np:.1f}"))

    u = 230.0 * (1.0 + 0.04 * np.sin(2 * np.pi * t_h / 24.0) + 0.02 * rng.standard_normal(YEAR))
    t_en = median_time(lambda: en50160.weekly(u, 230.0, "LV"), repeat=repeat)
    rows.append(("EN 50160 supply-voltage variation, every week of a year", "52,560 values", fmt_ms(t_en), ""))

    spectra = np.abs(rng.normal(0.0, 5.0, (YEAR, 49)))
    orders = np.arange(2, 51)

    def harmonics():
        lim = ieee519.current_limits_pct(13.8, 120.0, orders)
        return ieee519.tdd_pct(spectra, 1000.0), ieee519.thd_pct(spectra * 0.01, 100.0), (spectra > lim * 10.0).any(axis=1)

    t_h519 = median_time(harmonics, repeat=repeat)
    rows.append(("IEEE 519 TDD, THD and individual limits, a year of 10-min spectra", "52,560 × 49", fmt_ms(t_h519), ""))

    n_hc = 360_000
    rec = 100.0 + 0.2 * rng.standard_normal((3, n_hc))
    for s in rng.choice(n_hc - 200, size=100, replace=False):
        rec[int(rng.integers(0, 3)), s:s + int(rng.integers(3, 60))] = float(rng.uniform(20.0, 85.0))
    t_ev = median_time(lambda: iec61000_4_30.detect(rec, dip_pct=90.0, swell_pct=110.0, interruption_pct=5.0,
                                                    hysteresis_pct=2.0), repeat=max(5, repeat // 3))
    rows.append(("IEC 61000-4-30 dips/swells/interruptions, 1 h of Urms(1/2), 3 channels", "360,000 × 3", fmt_ms(t_ev), ""))
    print_table("Standards' kernels on long series (median ms; ratio to the numpy thermal kernel)",
                ("kernel", "size", "ms", "ratio"), rows)


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__)
    ap.add_argument("--quick", action="store_true", help="fewer repeats")
    ap.add_argument("--repeat", type=int, default=None)
    args = ap.parse_args()
    repeat = args.repeat or (7 if args.quick else 21)
    family_table(FAMILIES, repeat)
    kernel_rows(repeat)


if __name__ == "__main__":
    main()
