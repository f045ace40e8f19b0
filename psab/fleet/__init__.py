"""The fleet tier: a physics-consistent operational world, its questions and computed truth.

Implements the generation framework of the second seed paper (PowerBench; its Figure 1 "all
datasets come from the same structured state", Table 2 statistics, Table 6 rule schema) on
psab's own physics (``/work/shared/spec/fleet.md``). One seed drives one dependency chain:

    seed → catalogue of device types (metrics, config fields, rules) → instances in a
    substation/feeder hierarchy → weather → feeder load → transformer load → IEC 60076-7
    top-oil / hot-spot / ageing, PV output, battery SOC, breaker operations from protection
    events → rule firings → documents (alarms, work orders, maintenance logs, inspections,
    configuration sheets) → questions whose truth is obtained by executing the rules.

Importing this package needs only numpy; pyarrow and duckdb (the ``fleet`` extra) are loaded
by :mod:`psab.fleet.store` when a world is written or read.
"""

from __future__ import annotations

SIZES = ("tiny", "test", "full")
