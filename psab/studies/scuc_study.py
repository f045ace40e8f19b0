"""scuc_study — a day-ahead security-constrained unit commitment of a real-size public system
(study 4 of ``shared/spec/studies.md``; issue 35 item 2).

The agent receives ``study.json`` and the model in the field's own files: the PGLib-OPF
MATPOWER case118 (``model/pglib_opf_case118_ieee.m``: network, reactances, ratings, bus loads),
the unit-commitment data of its 54 generator rows (``model/units.csv``) and the hourly profiles
(``model/profiles.csv``). The task states the scenario over them (the season, the load scale,
the wind and PV plants, the spinning-reserve requirement, the listed single-branch outages). It
delivers:

- ``decision`` — the commitment (on/off per unit and hour) and the dispatch (MW per unit,
  wind and PV plant and hour) meeting every constraint in every hour: power balance, unit
  limits, ramps, minimum up and down times, spinning reserve, the DC flow limit of every branch
  in the intact network and after every listed single-branch outage (LODF); its cost = energy
  (piecewise-linear) + start-ups, scored against the reference's proven bound;
- ``binding_constraints`` — the (hour, branch, contingency) triples at their limit within the
  stated tolerance in the agent's OWN dispatch, scored against psab's recomputation of it.

Physics (the evaluator): psab's numpy DC model (:mod:`psab.surrogates.dc_flow` — PTDF with the
type-3 bus balancing, LODF), every listed contingency in every hour at once, vectorised.

The reference (:func:`solve_uc`): a MILP (the three-binary formulation of Morales-España,
Latorre & Ramos, IEEE Trans. Power Syst. 28(4), 2013, with Rajan & Takriti's minimum up/down
inequalities), built directly as sparse matrices for HiGHS (``highspy``), with **constraint
generation** for the network: solve without flow limits, recompute every N-0 and N-1 flow of
every hour, add the violated (hour, branch, outage) rows, resolve, until none is violated. The
final MILP is a relaxation of the full problem, so its dual bound bounds the full problem and
the incumbent (which meets every constraint) is within the proven gap of it. A second,
independent formulation (Pyomo + HiGHS, :func:`solve_uc_pyomo`) agrees on the public case and
on held-out draws (tests/studies/test_scuc_study.py).

Level 2 (:data:`CASE300`, PGLib-OPF IEEE 300) is staged, not registered (``levels=(1,)``): the
data, the phase-shifter flows, the outage screens (:func:`unsecurable`, :func:`screen_outages`,
:func:`jointly_insecure`) and ``generate(public, rng, 2)`` are in place, but the reference MILP is
infeasible on the draws tried (the class rule's Pmin against the case's ratings; docs/studies.md).
"""

from __future__ import annotations

import functools
import io
import math
import time
from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any

import numpy as np

from psab.contract import Task, Violation
from psab.errors import InvalidTaskError, SolverError
from psab.evaluators import answer_schema as s
from psab.registry import Assessment, Deliverable, FamilySpec, Generated, Reference, register
from psab.studies import model as study_model
from psab.surrogates import dc_flow as dc
from psab.surrogates import matpower_file as mp

STUDY_ID = "scuc_study"
PROFILES_FILE = "scuc_profiles.csv"
PGLIB_COMMIT = "dc6be4b2f85ca0e776952ec22cbd4c22396ea5a3"
HOURS = 24

DELIVERABLES = (
    Deliverable("binding_constraints", "analysis", 1.0,
                "the (hour, branch, contingency) flow limits binding in your own dispatch (abs(flow) within binding_tolerance_mw of the limit)",
                "ограничения перетоков (час, ветвь, авария), достигнутые в вашем собственном режиме (abs(переток) в пределах binding_tolerance_mw от предела)"),
    Deliverable("decision", "decision", 4.0,
                "the commitment and dispatch of every unit and renewable plant in every hour (cost in USD)",
                "состав включённого оборудования и загрузка каждого блока и ВИЭ в каждый час (стоимость, долл.)"),
)

#: How far beyond a limit a value may sit before it fails (MW; solver and JSON rounding).
SLACK_MW = 0.01
#: The don't-care band around the binding tolerance (MW): a flow whose distance to its limit is
#: within this of ``binding_tolerance_mw`` counts right whether listed or not.
BINDING_BAND_MW = 0.01
#: Most binding triples an answer may list (the hardening cap; a day has tens to hundreds).
MAX_BINDING = 20000
#: HiGHS relative MIP gap of the reference, and a time budget per MILP round that is a safety
#: net only: the reference must not depend on the machine's load (one thread, seed 0, the gap
#: decides), so it is far above the solve's time (about a minute on a loaded two-core machine).
MIP_REL_GAP = 5e-4
MIP_TIME_LIMIT_S = 3600.0
#: Most violated rows added per constraint-generation round (the worst first).
CUTS_PER_ROUND = 400

# ---------------------------------------------------------------------------- vendored data

#: MATPOWER case118.m (MATPOWER 7.1, BSD-3; the same 54 generator rows, in the same bus order,
#: as PGLib's case118, whose own ``gen`` table keeps only 19 of them as generators): bus,
#: Pmax (MW), c2 ($/MW²h), c1 ($/MWh); c0 = 0 for every unit.
MATPOWER_CASE118_GEN = (
    (1, 100.0, 0.01, 40.0), (4, 100.0, 0.01, 40.0), (6, 100.0, 0.01, 40.0), (8, 100.0, 0.01, 40.0),
    (10, 550.0, 0.0222222, 20.0), (12, 185.0, 0.117647, 20.0), (15, 100.0, 0.01, 40.0), (18, 100.0, 0.01, 40.0),
    (19, 100.0, 0.01, 40.0), (24, 100.0, 0.01, 40.0), (25, 320.0, 0.0454545, 20.0), (26, 414.0, 0.0318471, 20.0),
    (27, 100.0, 0.01, 40.0), (31, 107.0, 1.42857, 20.0), (32, 100.0, 0.01, 40.0), (34, 100.0, 0.01, 40.0),
    (36, 100.0, 0.01, 40.0), (40, 100.0, 0.01, 40.0), (42, 100.0, 0.01, 40.0), (46, 119.0, 0.526316, 20.0),
    (49, 304.0, 0.0490196, 20.0), (54, 148.0, 0.208333, 20.0), (55, 100.0, 0.01, 40.0), (56, 100.0, 0.01, 40.0),
    (59, 255.0, 0.0645161, 20.0), (61, 260.0, 0.0625, 20.0), (62, 100.0, 0.01, 40.0), (65, 491.0, 0.0255754, 20.0),
    (66, 492.0, 0.0255102, 20.0), (69, 805.2, 0.0193648, 20.0), (70, 100.0, 0.01, 40.0), (72, 100.0, 0.01, 40.0),
    (73, 100.0, 0.01, 40.0), (74, 100.0, 0.01, 40.0), (76, 100.0, 0.01, 40.0), (77, 100.0, 0.01, 40.0),
    (80, 577.0, 0.0209644, 20.0), (85, 100.0, 0.01, 40.0), (87, 104.0, 2.5, 20.0), (89, 707.0, 0.0164745, 20.0),
    (90, 100.0, 0.01, 40.0), (91, 100.0, 0.01, 40.0), (92, 100.0, 0.01, 40.0), (99, 100.0, 0.01, 40.0),
    (100, 352.0, 0.0396825, 20.0), (103, 140.0, 0.25, 20.0), (104, 100.0, 0.01, 40.0), (105, 100.0, 0.01, 40.0),
    (107, 100.0, 0.01, 40.0), (110, 100.0, 0.01, 40.0), (111, 136.0, 0.277778, 20.0), (112, 100.0, 0.01, 40.0),
    (113, 100.0, 0.01, 40.0), (116, 100.0, 0.01, 40.0),
)

#: psab's unit-class rule (IEEE RTS-96 Table 7's structure: minimum stable load, minimum up and
#: down times and ramp rates grow with unit size and steam technology): by Pmax,
#: (upper Pmax bound MW, Pmin share, min up h, min down h, ramp share of Pmax per h, start-up $/MW of Pmax).
UNIT_CLASSES = (
    (150.0, 0.30, 3, 2, 0.50, 40.0),
    (400.0, 0.40, 6, 4, 0.30, 80.0),
    (math.inf, 0.50, 10, 8, 0.20, 120.0),
)
#: Segments of the piecewise-linear cost between Pmin and Pmax (equal widths, secants of the
#: quadratic), the 10-minute spinning-reserve share of the hourly ramp, the initial state.
N_SEGMENTS = 3
RESERVE_MINUTES = 10.0
INITIAL_ON_HOURS = 8

#: IEEE RTS (1979; RTS-96 Table 5) hourly load in % of the daily peak, weekday, winter
#: (weeks 1-8 and 44-52) and summer (weeks 18-30), hour 1 = 00:00-01:00.
RTS_WINTER_WEEKDAY_PCT = (67, 63, 60, 59, 59, 60, 74, 86, 95, 96, 96, 95, 95, 95, 93, 94, 99, 100, 100, 96, 91, 83, 73, 63)
RTS_SUMMER_WEEKDAY_PCT = (64, 60, 58, 56, 56, 58, 64, 76, 87, 95, 99, 100, 99, 100, 100, 97, 96, 96, 93, 92, 92, 93, 87, 72)
#: The stated hub-height wind speed (m/s, hour h mid-point): a nocturnal low-level-jet diurnal
#: cycle typical of the US Midwest, 8.5 ± 2.5 m/s with its maximum at 03:00.
WIND_MEAN_MS, WIND_SWING_MS, WIND_PEAK_HOUR = 8.5, 2.5, 3.0
WIND_TURBINE = "E-126/4200"
#: PV site (Columbus, Ohio — the AEP system IEEE 118 represents) and days (a winter and a summer weekday).
PV_SITE = (39.96, -83.00)
PV_DAYS = {"winter": "2019-01-16", "summer": "2019-07-17"}


@dataclass(frozen=True)
class CaseData:
    """One level's vendored case: the PGLib-OPF network file, its derived unit table, where the
    draws place renewable plants and how large (MW), and the words of its model entry. Every
    other rule (unit classes, profiles, constraints, reference) is shared by all levels."""

    level: int
    case_file: str
    units_file: str
    wind_buses: tuple[str, ...]
    pv_buses: tuple[str, ...]
    wind_mw: tuple[float, float]
    pv_mw: tuple[float, float]
    unit_source: str
    note: Mapping[str, str] | None = None
    #: The draws' spinning-reserve requirement (% of load) and load scale (× the case's Pd).
    reserve_pct: tuple[float, float] = (3.0, 7.0)
    scale: tuple[float, float] = (0.9, 1.05)
    #: Branches whose outage the draws never list: :func:`screen_outages` at the top of
    #: ``scale`` (kept here so that a draw costs no LP; the tests recompute it).
    screened: tuple[str, ...] = ()


#: Level 1: IEEE 118 with the 54 units of MATPOWER's case118. Renewable buses: HV buses with 3+
#: branches, spread over the three areas of the case.
CASE118 = CaseData(
    1, "pglib_opf_case118_ieee.m", "scuc_case118_units.csv",
    ("17", "26", "37", "49", "59", "66", "69", "80", "92", "100"),
    ("12", "25", "46", "54", "61", "77", "89", "103", "110"),
    (100.0, 400.0), (100.0, 300.0), "unit data from MATPOWER case118")
#: Level 2: IEEE 300 (PGLib-OPF pglib_opf_case300_ieee: 300 buses, 411 branches, 69 gen rows of
#: which 57 have Pmax > 0 — the 12 with Pmax = 0 are PGLib's synchronous condensers, not units),
#: Pmax and cost from the file's own gen/gencost rows (PGLib's fuel-type linear costs). Renewable
#: buses: 230/345 kV buses with 3+ branches and no generator, spread over the bus numbering; the
#: plants are sized to the system (23.5 GW of load against 4.2 GW in case118).
CASE300 = CaseData(
    2, "pglib_opf_case300_ieee.m", "scuc_case300_units.csv",
    ("16", "42", "46", "81", "129", "157", "194", "219", "231", "237"),
    ("3", "21", "45", "74", "87", "133", "159", "188", "225"),
    (300.0, 1200.0), (200.0, 800.0), "unit data from the case's own gen/gencost rows with Pmax > 0",
    {"en": ("This task's case is IEEE 300 (model/pglib_opf_case300_ieee.m, 300 buses, 411 branches): read "
            "'IEEE 118' and 'model/pglib_opf_case118_ieee.m' in the statement as this case, and 'the 54 units' as "
            "the 57 units of model/units.csv (gen = 1-based row of mpc.gen; the 12 rows with Pmax = 0 are synchronous "
            "condensers and are not units). Branch 390 (196-2040) is a phase shifter (shift −11.4°): the DC flows "
            "are MATPOWER makeBdc's, f = PTDF × (net bus injections) + f_φ, where f_φ are the flows the shifter "
            "alone drives with zero injections (Pfinj/Pbusinj); LODF applies to the total flows."),
     "ru": ("Схема этой задачи — IEEE 300 (model/pglib_opf_case300_ieee.m, 300 узлов, 411 ветвей): 'IEEE 118' и "
            "'model/pglib_opf_case118_ieee.m' в условии читать как эту схему, а '54 блока' — как 57 блоков "
            "model/units.csv (gen — номер строки mpc.gen с единицы; 12 строк с Pmax = 0 — синхронные компенсаторы, "
            "не блоки). Ветвь 390 (196-2040) — фазоповоротный трансформатор (сдвиг −11,4°): DC-перетоки по makeBdc "
            "MATPOWER, f = PTDF × (небалансы узлов) + f_φ, где f_φ — перетоки от одного сдвига фаз при нулевых "
             "небалансах (Pfinj/Pbusinj); LODF применяется к полным перетокам.")},
    # the 10-minute reserve the 57 units can carry at all is 1321 MW (5.3 % of the 1.05 × peak
    # load; their ramps are 20-50 %/h of Pmax as in case118), so 2-4 % keeps the draws feasible
    # while committing most of that capability
    reserve_pct=(2.0, 4.0),
    # at 1.05 × Pd the intact network is not DC-feasible (PGLib's loads are its AC-OPF point),
    # and at 1.0 × Pd 26 outages cannot be secured together with the rest: the draws stay at or
    # below the case's loads and do not list those 26 (measured: 23 of them at 0.95 × Pd)
    scale=(0.85, 1.0),
    screened=("176", "177", "180", "182", "188", "189", "193", "194", "195", "196", "197", "199", "203", "204",
              "205", "211", "239", "255", "257", "268", "309", "359", "362", "364", "367", "371"))
CASES = {c.level: c for c in (CASE118, CASE300)}
#: Level 1's names (the public case; kept as the module's defaults).
CASE_FILE = CASE118.case_file
UNITS_FILE = CASE118.units_file


def _class_of(pmax: float) -> tuple[float, ...]:
    return next(c for c in UNIT_CLASSES if pmax < c[0])


def gen_rows(case: CaseData = CASE118) -> list[tuple[int, int, float, float, float]]:
    """The commitment units of a case as (1-based row of mpc.gen, bus, Pmax MW, c2 $/MW²h,
    c1 $/MWh). Level 1: :data:`MATPOWER_CASE118_GEN` (row k + 1). Level 2: the vendored PGLib
    file's gen rows with Pmax > 0 and their gencost rows (polynomial, c0 = 0 in PGLib v23.07)."""
    if case.level == 1:
        return [(k + 1, bus, pmax, c2, c1) for k, (bus, pmax, c2, c1) in enumerate(MATPOWER_CASE118_GEN)]
    mc = mp.parse_matpower(_file_bytes(case.case_file).decode("utf-8"))
    out = []
    for k, (g, c) in enumerate(zip(mc.gen, mc.gencost, strict=True)):
        if g[8] <= 0:
            continue
        if int(c[0]) != 2 or int(c[3]) != 3 or c[6] != 0:
            raise InvalidTaskError(f"{STUDY_ID}: {case.case_file} gencost row {k + 1} is not a quadratic with c0 = 0")
        out.append((k + 1, int(g[0]), float(g[8]), float(c[4]), float(c[5])))
    return out


def build_units_csv(case: CaseData = CASE118) -> str:
    """``units.csv`` from :func:`gen_rows` and the stated rules (:data:`UNIT_CLASSES`): the
    quadratic cost's secants over ``N_SEGMENTS`` equal widths of [Pmin, Pmax] (equal slopes for
    a linear cost); start-up and shut-down ramps = max(Pmin, ramp); 10-minute reserve = ramp/6;
    initially on for 8 h (units with c1 < 30 $/MWh: case118's 20 $/MWh units) or off for 8 h
    (the dearer ones: case118's 40 $/MWh units)."""
    head = ["gen", "bus", "pmin_mw", "pmax_mw", "cost_at_pmin_usd_per_h"]
    head += [f"seg{k + 1}_{x}" for k in range(N_SEGMENTS) for x in ("mw", "usd_per_mwh")]
    head += ["min_up_h", "min_down_h", "ramp_up_mw_per_h", "ramp_down_mw_per_h", "startup_ramp_mw_per_h",
             "shutdown_ramp_mw_per_h", "startup_cost_usd", "reserve_cap_mw", "initial_status_h"]
    rows = [",".join(head)]
    for row, bus, pmax, c2, c1 in gen_rows(case):
        _, share, up, down, ramp_share, su = _class_of(pmax)
        pmin = round(share * pmax, 2)
        ramp = round(ramp_share * pmax, 2)

        def cost(p: float, c1: float = c1, c2: float = c2) -> float:
            return c1 * p + c2 * p * p

        width = (pmax - pmin) / N_SEGMENTS
        segs = []
        for j in range(N_SEGMENTS):
            a, b = pmin + j * width, pmin + (j + 1) * width
            segs += [f"{width:.4f}", f"{(cost(b) - cost(a)) / width:.4f}"]
        init = INITIAL_ON_HOURS if c1 < 30 else -INITIAL_ON_HOURS
        vals = [str(row), str(bus), f"{pmin:g}", f"{pmax:g}", f"{cost(pmin):.4f}", *segs, str(up), str(down),
                f"{ramp:g}", f"{ramp:g}", f"{max(pmin, ramp):g}", f"{max(pmin, ramp):g}", f"{su * pmax:.2f}",
                f"{ramp * RESERVE_MINUTES / 60.0:.4f}", str(init)]
        rows.append(",".join(vals))
    return "\n".join(rows) + "\n"


def build_profiles_csv() -> str:
    """``profiles.csv``: the RTS load shapes, the wind plant's per-unit output (windpowerlib's
    power curve of :data:`WIND_TURBINE` at the stated speeds) and the PV per-unit output
    (pvlib's Haurwitz clear-sky GHI at :data:`PV_SITE` on the stated days, ÷ 1000 W/m², hour
    mid-points, local standard time)."""
    import pandas as pd
    import pvlib
    from windpowerlib import WindTurbine

    turbine = WindTurbine(turbine_type=WIND_TURBINE, hub_height=135)
    curve = turbine.power_curve
    hours = np.arange(HOURS) + 0.5
    speed = WIND_MEAN_MS + WIND_SWING_MS * np.cos(2 * np.pi * (hours - WIND_PEAK_HOUR) / 24.0)
    wind = np.interp(speed, curve["wind_speed"].to_numpy(float), curve["value"].to_numpy(float)) / float(turbine.nominal_power)
    loc = pvlib.location.Location(*PV_SITE, tz="Etc/GMT+5")
    pv = {}
    for season, day in PV_DAYS.items():
        times = pd.date_range(f"{day} 00:30", periods=HOURS, freq="h", tz="Etc/GMT+5")
        ghi = loc.get_clearsky(times, model="haurwitz")["ghi"].to_numpy(float)
        pv[season] = np.clip(ghi / 1000.0, 0.0, 1.0)
    rows = ["hour,load_winter_pu,load_summer_pu,wind_pu,pv_winter_pu,pv_summer_pu"]
    for h in range(HOURS):
        rows.append(f"{h + 1},{RTS_WINTER_WEEKDAY_PCT[h] / 100:.2f},{RTS_SUMMER_WEEKDAY_PCT[h] / 100:.2f},"
                    f"{wind[h]:.4f},{pv['winter'][h]:.4f},{pv['summer'][h]:.4f}")
    return "\n".join(rows) + "\n"


@functools.lru_cache(maxsize=8)
def _file_bytes(name: str) -> bytes:
    path = study_model.vendored(name)
    if not path.is_file():
        raise InvalidTaskError(f"{STUDY_ID}: the vendored model file {name!r} is missing from psab/studies/data")
    return path.read_bytes()


def model_paths(case: CaseData = CASE118) -> dict[str, str]:
    """The agent's model files of a case → the vendored files they are copied from."""
    return {f"model/{case.case_file}": case.case_file, "model/units.csv": case.units_file, "model/profiles.csv": PROFILES_FILE}


MODEL_PATHS = model_paths(CASE118)


def case_of(inputs: Mapping[str, Any]) -> CaseData:
    """The vendored case a task names (``public_inputs/case/name``)."""
    name = str(inputs.get("case", {}).get("name", "")) if isinstance(inputs.get("case"), Mapping) else ""
    for case in CASES.values():
        if case.case_file == f"{name}.m":
            return case
    raise InvalidTaskError(f"{STUDY_ID}: public_inputs/case/name must be one of "
                           f"{sorted(c.case_file[:-2] for c in CASES.values())}")


def materialize(task: Task, directory: Any) -> None:
    """Write the task's model files (the case, the unit data, the profiles) under ``directory``."""
    paths = model_paths(case_of(task.public_inputs))
    study_model.write_files(task, directory, {p: (lambda n=n: _file_bytes(n)) for p, n in paths.items()})


def model_files_entry(case: CaseData = CASE118) -> dict[str, Any]:
    return {"format": "matpower",
            "source": f"pglib-opf v23.07 {case.case_file} (commit {PGLIB_COMMIT[:7]}); {case.unit_source} "
                      "and psab's stated class rules; RTS load shapes, pvlib/windpowerlib renewable profiles",
            "files": [{"path": p, "sha256": study_model.sha256(_file_bytes(n))} for p, n in model_paths(case).items()]}


def _read_csv(name: str) -> tuple[list[str], np.ndarray]:
    text = _file_bytes(name).decode("utf-8")
    lines = [ln for ln in text.splitlines() if ln.strip()]
    head = lines[0].split(",")
    data = np.loadtxt(io.StringIO("\n".join(lines[1:])), delimiter=",", ndmin=2)
    return head, data


# ---------------------------------------------------------------------------- the study


@dataclass
class Study:
    """A task's scenario over the model, resolved to arrays (hours × ...)."""

    inputs: Mapping[str, Any]
    n_bus: int
    bus_ids: list[str]
    branch_ids: list[str]
    net: dc.DcNetwork
    ptdf: np.ndarray          # branch × bus
    lodf: np.ndarray          # branch × branch (column k = outage of k)
    rate_n0_mw: np.ndarray    # branch
    rate_n1_mw: np.ndarray    # branch
    cont_ids: list[str]
    cont_branch: np.ndarray   # contingency → branch index
    gen_ids: list[str]
    gen_bus: np.ndarray       # unit → bus index
    pmin: np.ndarray
    pmax: np.ndarray
    cost_pmin: np.ndarray
    seg_mw: np.ndarray        # unit × segment
    seg_cost: np.ndarray      # unit × segment ($/MWh)
    min_up: np.ndarray
    min_down: np.ndarray
    ramp_up: np.ndarray
    ramp_down: np.ndarray
    su_ramp: np.ndarray
    sd_ramp: np.ndarray
    su_cost: np.ndarray
    reserve_cap: np.ndarray
    init_status: np.ndarray   # +h on for h hours, −h off
    load_bus: np.ndarray      # hour × bus (MW)
    plant_ids: list[str]
    plant_bus: np.ndarray
    avail: np.ndarray         # hour × plant (MW)
    reserve_req: np.ndarray   # hour (MW)
    binding_tol: float
    shift_mw: np.ndarray      # branch: the flows the phase shifters drive alone (MW; zero in case118)

    @property
    def n_gen(self) -> int:
        return len(self.gen_ids)

    @property
    def n_plant(self) -> int:
        return len(self.plant_ids)

    @property
    def load_total(self) -> np.ndarray:
        return self.load_bus.sum(axis=1)

    @property
    def init_on(self) -> np.ndarray:
        return self.init_status > 0


@functools.lru_cache(maxsize=4)
def _network(case_file: str = CASE_FILE) -> tuple[mp.MatpowerCase, dc.DcNetwork, np.ndarray, np.ndarray]:
    case = mp.parse_matpower(_file_bytes(case_file).decode("utf-8"))
    bix = case.bus_index()
    br = case.branch
    on = br[:, 10] > 0
    if not on.all():
        raise InvalidTaskError(f"{STUDY_ID}: every branch of {case_file} is expected in service")
    slack = int(np.flatnonzero(case.bus[:, 1] == 3)[0])
    net = dc.DcNetwork.build(len(case.bus), [bix[int(f)] for f in br[:, 0]], [bix[int(t)] for t in br[:, 1]],
                             br[:, 3], [t if t != 0 else 1.0 for t in br[:, 8]], br[:, 9], slack=slack,
                             base_mva=case.base_mva)
    P = dc.ptdf(net)
    L = dc.lodf(net, P)
    return case, net, P, L.lodf


@functools.lru_cache(maxsize=4)
def bridges(case_file: str = CASE_FILE) -> frozenset[int]:
    """Branch indices whose outage islands a bus (no LODF exists)."""
    _, net, P, _ = _network(case_file)
    return frozenset(int(k) for k in np.flatnonzero(dc.lodf(net, P).bridge))


#: The system-load multipliers (load.scale × the hour's shape) at which :func:`unsecurable`
#: screens the outages: the draws' range, 0.9 × the lowest RTS hour (0.56) to 1.05 × the peak.
SCREEN_LOAD_PU = tuple(round(0.5 + 0.05 * i, 2) for i in range(12))


@functools.lru_cache(maxsize=4)
def unsecurable(case_file: str = CASE_FILE) -> frozenset[int]:
    """Branch indices whose outage overloads some other branch beyond its post-contingency
    rating (rate_c) whatever the dispatch, at some system load in :data:`SCREEN_LOAD_PU` (every
    bus load scaled alike): the flow's least and greatest values over all dispatches of the
    units in [0, Pmax] that meet the load (a fractional knapsack on the outage's distribution
    factors, renewables curtailed — they only widen the range) both lie beyond ±rate_c. No
    commitment secures such an outage (a remedial action scheme would), so it is not listed.
    Empty for case118; nine branches of case300 (e.g. branch 268's outage puts 840 MW of load
    flow on branch 269, rated 610 MW)."""
    cdata = next(c for c in CASES.values() if c.case_file == case_file)
    case, net, P, L = _network(case_file)
    bix = case.bus_index()
    uh, ud = _read_csv(cdata.units_file)
    gen_bus = np.array([bix[int(b)] for b in ud[:, uh.index("bus")]])
    pmax = ud[:, uh.index("pmax_mw")]
    rate_c = case.branch[:, 7].astype(float)
    shift = _shift_flows(case_file)
    out: set[int] = set()
    skip = bridges(case_file)
    for k in range(net.n_branch):
        if k in skip:
            continue
        M = P[:, gen_bus] + L[:, k][:, None] * P[k, gen_bus][None, :]
        M[k] = 0.0
        # the greatest flow fills the units in falling sensitivity, the least in rising
        fills = []
        for order in (np.argsort(-M, axis=1, kind="stable"), np.argsort(M, axis=1, kind="stable")):
            pm = pmax[order]
            fills.append((np.take_along_axis(M, order, 1), pm, np.cumsum(pm, axis=1) - pm))
        for x in SCREEN_LOAD_PU:
            load = x * case.bus[:, 2]
            f_load = -(P @ load) + shift
            const = f_load + L[:, k] * f_load[k]
            const[k] = 0.0
            demand = float(load.sum())
            hi, lo = (const + (Ms * np.clip(demand - before, 0.0, pm)).sum(axis=1) for Ms, pm, before in fills)
            if np.any((lo > rate_c + SLACK_MW) | (hi < -rate_c - SLACK_MW)):
                out.add(k)
                break
    return frozenset(out)


def jointly_insecure(st: Study, load_pu: float, *, commit: bool = False) -> tuple[list[int], float]:
    """The listed outages (positions in ``st.cont_branch``) that no dispatch secures together
    with the intact network and the other outages at one system load (every bus at ``load_pu``
    × its Pd, units continuous in [0, Pmax], no renewables): the elastic DC-OPF LP (HiGHS)
    minimising the total MW by which the N-0 and N-1 flow limits must be stretched, and the
    outages whose rows needed stretching. Returns (those outages, −1 for the intact network;
    the total stretch, MW). Rows no dispatch can bind (their range over [0, Pmax] is inside
    the limit) are left out of the LP. ``commit``: each unit on (in [Pmin, Pmax]) or off (0) —
    a MILP with one binary per unit, the hour's commitment free (HiGHS, one thread, seed 0)."""
    import highspy

    G = st.gen_bus
    load = load_pu * _network(case_of(st.inputs).case_file)[0].bus[:, 2]
    f_load = -(st.ptdf @ load) + st.shift_mw
    rows = []
    for c in [-1, *range(len(st.cont_ids))]:
        if c < 0:
            A, lim, const = st.ptdf[:, G], st.rate_n0_mw, f_load
        else:
            k = st.cont_branch[c]
            A = (st.ptdf + st.lodf[:, k][:, None] * st.ptdf[k][None, :])[:, G]
            lim, const = st.rate_n1_mw, f_load + st.lodf[:, k] * f_load[k]
        hi = (np.clip(A, 0, None) * st.pmax).sum(axis=1)
        lo = (np.clip(A, None, 0) * st.pmax).sum(axis=1)
        for b in np.flatnonzero((hi > lim - const) | (lo < -lim - const)):
            if c < 0 or b != st.cont_branch[c]:
                rows.append((A[b], -lim[b] - const[b], lim[b] - const[b], c))
    n, R = st.n_gen, len(rows)
    from psab.solvers.core import _new_highs

    h = _new_highs()  # psab's one HiGHS constructor (no banner on stdout)
    h.setOptionValue("output_flag", False)
    h.setOptionValue("threads", 1)
    h.addVars(n + 2 * R, np.zeros(n + 2 * R), np.concatenate([st.pmax, np.full(2 * R, np.inf)]))
    h.changeColsCost(n + 2 * R, np.arange(n + 2 * R, dtype=np.int32), np.concatenate([np.zeros(n), np.ones(2 * R)]))
    h.addRow(float(load.sum()), float(load.sum()), n, np.arange(n, dtype=np.int32), np.ones(n))
    for i, (a, lo_, hi_, _) in enumerate(rows):
        h.addRow(float(lo_), float(hi_), n + 2, np.concatenate([np.arange(n), [n + i, n + R + i]]).astype(np.int32),
                 np.concatenate([a, [-1.0, 1.0]]))
    if commit:  # u_g binary: Pmin·u ≤ p ≤ Pmax·u
        u0 = n + 2 * R
        h.addVars(n, np.zeros(n), np.ones(n))
        h.changeColsIntegrality(n, np.arange(u0, u0 + n, dtype=np.int32), np.full(n, highspy.HighsVarType.kInteger))
        for g in range(n):
            h.addRow(0.0, np.inf, 2, np.array([g, u0 + g], dtype=np.int32), np.array([1.0, -st.pmin[g]]))
            h.addRow(-np.inf, 0.0, 2, np.array([g, u0 + g], dtype=np.int32), np.array([1.0, -st.pmax[g]]))
        h.setOptionValue("random_seed", 0)
    h.run()
    x = np.asarray(h.getSolution().col_value)
    stretch = x[n:n + R] + x[n + R:n + 2 * R]
    return sorted({rows[i][3] for i in np.flatnonzero(stretch > 1e-3)}), float(h.getInfo().objective_function_value)


def screen_outages(case: CaseData, load_pu: float) -> list[str]:
    """The branches (ids) whose outage :func:`jointly_insecure` drops, round by round (drop the
    outages that needed stretching, solve again) until the intact network and the rest are
    secured together at ``load_pu``; the branches already not listed (bridges, :func:`unsecurable`)
    are not counted. Raises :class:`InvalidTaskError` when the intact network itself cannot be."""
    outs = [str(k + 1) for k in range(len(_network(case.case_file)[0].branch))
            if k not in bridges(case.case_file) | unsecurable(case.case_file)]
    dropped: list[str] = []
    while True:
        inputs = scenario_inputs("winter", 1.0, [], 0.0, [b for b in outs if b not in dropped], case=case)
        st = study_of(inputs)
        bad, _ = jointly_insecure(st, load_pu)
        if not bad:
            return sorted(dropped, key=int)
        if -1 in bad:
            raise InvalidTaskError(f"{STUDY_ID}: {case.case_file}: the intact network is not secure at {load_pu} × Pd")
        dropped += [st.branch_ids[st.cont_branch[c]] for c in bad]


@functools.lru_cache(maxsize=4)
def _shift_flows(case_file: str = CASE_FILE) -> np.ndarray:
    """The branch flows (MW) the phase shifters drive with zero bus injections — MATPOWER
    makeBdc's Pfinj/Pbusinj terms (:func:`psab.surrogates.dc_flow.shift_flow_mw`); all zero
    without a shifter (case118)."""
    return dc.shift_flow_mw(_network(case_file)[1])


def study_of(inputs: Mapping[str, Any]) -> Study:
    """Resolve a task's scenario against the model (:class:`InvalidTaskError` naming the field)."""
    cdata = case_of(inputs)
    case, net, P, L = _network(cdata.case_file)
    bus_ids = [str(int(b)) for b in case.bus_ids]
    bix = {b: i for i, b in enumerate(bus_ids)}
    n_br = net.n_branch
    branch_ids = [str(k + 1) for k in range(n_br)]
    uh, ud = _read_csv(cdata.units_file)
    col = {h: ud[:, i] for i, h in enumerate(uh)}
    gen_bus = np.array([bix[str(int(b))] for b in col["bus"]])
    seg_mw = np.stack([col[f"seg{k + 1}_mw"] for k in range(N_SEGMENTS)], axis=1)
    seg_cost = np.stack([col[f"seg{k + 1}_usd_per_mwh"] for k in range(N_SEGMENTS)], axis=1)
    ph, pd_ = _read_csv(PROFILES_FILE)
    prof = {h: pd_[:, i] for i, h in enumerate(ph)}
    season = inputs["load"]["season"]
    if season not in ("winter", "summer"):
        raise InvalidTaskError(f"{STUDY_ID}: public_inputs/load/season must be 'winter' or 'summer'")
    shape = prof[f"load_{season}_pu"]
    scale = float(inputs["load"]["scale"])
    load_bus = scale * shape[:, None] * case.bus[:, 2][None, :]
    plant_ids, plant_bus, avail = [], [], []
    for i, p in enumerate(inputs["renewables"]):
        if p["bus_id"] not in bix:
            raise InvalidTaskError(f"{STUDY_ID}: public_inputs/renewables/{i}/bus_id {p['bus_id']!r} is not a bus")
        if p["kind"] not in ("wind", "pv"):
            raise InvalidTaskError(f"{STUDY_ID}: public_inputs/renewables/{i}/kind must be 'wind' or 'pv'")
        plant_ids.append(str(p["id"]))
        plant_bus.append(bix[p["bus_id"]])
        pu = prof["wind_pu"] if p["kind"] == "wind" else prof[f"pv_{season}_pu"]
        avail.append(float(p["capacity_mw"]) * pu)
    if len(set(plant_ids)) != len(plant_ids):
        raise InvalidTaskError(f"{STUDY_ID}: public_inputs/renewables: plant ids must be unique")
    sec = inputs["security"]
    brx = {b: k for k, b in enumerate(branch_ids)}
    cont_ids, cont_branch = [], []
    br_bridge = bridges(cdata.case_file)
    br_unsecurable = unsecurable(cdata.case_file)
    for i, c in enumerate(sec["contingencies"]):
        if c["branch_id"] not in brx:
            raise InvalidTaskError(f"{STUDY_ID}: public_inputs/security/contingencies/{i}/branch_id {c['branch_id']!r} is not a branch")
        if brx[c["branch_id"]] in br_bridge:
            raise InvalidTaskError(f"{STUDY_ID}: public_inputs/security/contingencies/{i}: branch {c['branch_id']} is a bridge "
                                   "(its outage islands part of the network)")
        if brx[c["branch_id"]] in br_unsecurable:
            raise InvalidTaskError(f"{STUDY_ID}: public_inputs/security/contingencies/{i}: no dispatch keeps every branch "
                                   f"within its rating after the outage of branch {c['branch_id']} (scuc_study.unsecurable)")
        cont_ids.append(str(c["id"]))
        cont_branch.append(brx[c["branch_id"]])
    if len(set(cont_ids)) != len(cont_ids) or "N-0" in cont_ids:
        raise InvalidTaskError(f"{STUDY_ID}: public_inputs/security/contingencies: ids must be unique and not 'N-0'")
    rate_a = case.branch[:, 5].astype(float)
    rate_c = case.branch[:, 7].astype(float)
    load_total = load_bus.sum(axis=1)
    reserve = float(inputs["reserve"]["requirement_pct_of_load"]) / 100.0 * load_total
    return Study(
        inputs=inputs, n_bus=len(bus_ids), bus_ids=bus_ids, branch_ids=branch_ids, net=net, ptdf=P, lodf=L,
        rate_n0_mw=rate_a, rate_n1_mw=rate_c * float(sec["post_contingency_rating_factor"]),
        cont_ids=cont_ids, cont_branch=np.array(cont_branch, dtype=int),
        gen_ids=[str(int(g)) for g in col["gen"]], gen_bus=gen_bus, pmin=col["pmin_mw"], pmax=col["pmax_mw"],
        cost_pmin=col["cost_at_pmin_usd_per_h"], seg_mw=seg_mw, seg_cost=seg_cost,
        min_up=col["min_up_h"].astype(int), min_down=col["min_down_h"].astype(int),
        ramp_up=col["ramp_up_mw_per_h"], ramp_down=col["ramp_down_mw_per_h"],
        su_ramp=col["startup_ramp_mw_per_h"], sd_ramp=col["shutdown_ramp_mw_per_h"],
        su_cost=col["startup_cost_usd"], reserve_cap=col["reserve_cap_mw"], init_status=col["initial_status_h"].astype(int),
        load_bus=load_bus, plant_ids=plant_ids, plant_bus=np.array(plant_bus, dtype=int),
        avail=np.array(avail).T if avail else np.zeros((HOURS, 0)), reserve_req=reserve,
        binding_tol=float(inputs["binding_tolerance_mw"]), shift_mw=_shift_flows(cdata.case_file),
    )


_STUDIES = study_model.Memo(32)


def _study(task: Task) -> Study:
    return _STUDIES.get(task.digest, lambda: study_of(task.public_inputs))


# ---------------------------------------------------------------------------- physics


def injections(st: Study, p: np.ndarray, w: np.ndarray) -> np.ndarray:
    """Net bus injections (hour × bus, MW): units + renewables − load."""
    inj = -st.load_bus.copy()
    np.add.at(inj.T, st.gen_bus, p.T)
    if st.n_plant:
        np.add.at(inj.T, st.plant_bus, w.T)
    return inj


def flows(st: Study, p: np.ndarray, w: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """Intact flows (hour × branch) and post-contingency flows (hour × branch × contingency),
    MW, from→to; the type-3 bus absorbs any imbalance (PTDF with its column zero). The outaged
    branch's own post-contingency flow is 0."""
    f0 = injections(st, p, w) @ st.ptdf.T
    if st.shift_mw.any():  # only a case with a phase shifter (level 1's flows stay bit for bit)
        f0 = f0 + st.shift_mw[None, :]
    k = st.cont_branch
    f1 = f0[:, :, None] + st.lodf[None, :, k] * f0[:, None, k]
    f1[:, k, np.arange(len(k))] = 0.0
    return f0, f1


def unit_cost(st: Study, u: np.ndarray, p: np.ndarray) -> np.ndarray:
    """Energy cost (hour × unit, $): cost at Pmin when on, plus the segments filled in order
    (convex, so the cheapest first) up to p."""
    extra = np.clip(p - st.pmin[None, :], 0.0, None)
    cost = u * st.cost_pmin[None, :]
    lo = np.concatenate([np.zeros((st.n_gen, 1)), np.cumsum(st.seg_mw, axis=1)[:, :-1]], axis=1)
    for j in range(N_SEGMENTS):
        fill = np.clip(extra - lo[None, :, j], 0.0, st.seg_mw[None, :, j])
        cost = cost + u * fill * st.seg_cost[None, :, j]
    return cost


def startups(st: Study, u: np.ndarray) -> np.ndarray:
    prev = np.vstack([st.init_on[None, :].astype(float), u[:-1]])
    return np.clip(u - prev, 0.0, None)


def total_cost(st: Study, u: np.ndarray, p: np.ndarray) -> float:
    return float(unit_cost(st, u, p).sum() + (startups(st, u) * st.su_cost[None, :]).sum())


def reserve_provided(st: Study, u: np.ndarray, p: np.ndarray) -> np.ndarray:
    """Spinning reserve per hour (MW): Σ over committed units of min(Pmax − p, reserve_cap)."""
    return (u * np.clip(np.minimum(st.pmax[None, :] - p, st.reserve_cap[None, :]), 0.0, None)).sum(axis=1)


@dataclass(frozen=True)
class Failure:
    kind: str
    hour: int           # 1-based
    element: str        # unit / plant / branch id
    contingency: str    # "N-0", an id, or ""
    value: float
    limit: float

    def words(self) -> str:
        h = f"hour {self.hour}"
        if self.kind == "flow":
            after = "intact network" if self.contingency == "N-0" else f"after outage {self.contingency}"
            return f"DC flow: branch {self.element} at {self.value:.2f} MW, limit {self.limit:.2f} MW, {after}, {h}"
        return f"{self.kind}: {self.element} {h}: {self.value:.4g} against {self.limit:.4g}"


def failures(st: Study, u: np.ndarray, p: np.ndarray, w: np.ndarray, *, limit: int = 100000) -> list[Failure]:
    """Every constraint the schedule breaks (beyond :data:`SLACK_MW`), every hour, every flow."""
    out: list[Failure] = []
    tol = SLACK_MW

    def add(kind: str, mask: np.ndarray, val: np.ndarray, lim: np.ndarray, names: list[str], cont: str = "") -> None:
        for t, j in zip(*np.nonzero(mask), strict=True):
            if len(out) < limit:
                out.append(Failure(kind, int(t) + 1, names[int(j)], cont, float(val[t, j]), float(lim[t, j])))

    T = u.shape[0]
    gid = st.gen_ids
    pmin, pmax = np.broadcast_to(st.pmin, u.shape), np.broadcast_to(st.pmax, u.shape)
    add("output of a unit that is off (MW)", (u == 0) & (np.abs(p) > tol), p, np.zeros_like(p), gid)
    add("unit below Pmin (MW)", (u == 1) & (p < pmin - tol), p, pmin, gid)
    add("unit above Pmax (MW)", (u == 1) & (p > pmax + tol), p, pmax, gid)
    if st.n_plant:
        add("renewable output below 0 (MW)", w < -tol, w, np.zeros_like(w), st.plant_ids)
        add("renewable output above its availability (MW)", w > st.avail + tol, w, st.avail, st.plant_ids)
    mismatch = p.sum(axis=1) + w.sum(axis=1) - st.load_total
    for t in np.flatnonzero(~(np.abs(mismatch) <= tol)):
        out.append(Failure("power balance: generation − load (MW)", int(t) + 1, "system", "", float(mismatch[t]), 0.0))
    res = reserve_provided(st, u, p)
    for t in np.flatnonzero(res < st.reserve_req - tol):
        out.append(Failure("spinning reserve (MW)", int(t) + 1, "system", "", float(res[t]), float(st.reserve_req[t])))
    # ramps (hour 1 is free of the previous day's output)
    if T > 1:
        up = p[1:] - p[:-1]
        lim_up = st.ramp_up[None, :] * u[:-1] + st.su_ramp[None, :] * np.clip(u[1:] - u[:-1], 0, None)
        add_shift = np.zeros((1, st.n_gen), dtype=bool)
        m = np.vstack([add_shift, up > lim_up + tol])
        add("ramp up (MW/h)", m, np.vstack([np.zeros((1, st.n_gen)), up]), np.vstack([np.zeros((1, st.n_gen)), lim_up]), gid)
        down = p[:-1] - p[1:]
        lim_dn = st.ramp_down[None, :] * u[1:] + st.sd_ramp[None, :] * np.clip(u[:-1] - u[1:], 0, None)
        m = np.vstack([add_shift, down > lim_dn + tol])
        add("ramp down (MW/h)", m, np.vstack([np.zeros((1, st.n_gen)), down]), np.vstack([np.zeros((1, st.n_gen)), lim_dn]), gid)
    # minimum up / down times (a start at hour t keeps the unit on through t + UT − 1 within
    # the horizon; the initial state carries over)
    for g in range(st.n_gen):
        ug = u[:, g]
        prev = 1 if st.init_on[g] else 0
        run = abs(int(st.init_status[g]))
        state = prev
        for t in range(T):
            if ug[t] == state:
                run += 1
                continue
            # a switch at hour t: the previous state lasted `run` hours
            need = st.min_up[g] if state == 1 else st.min_down[g]
            if run < need:
                out.append(Failure("minimum up time (h)" if state == 1 else "minimum down time (h)", t + 1, gid[g], "",
                                   float(run), float(need)))
            state, run = int(ug[t]), 1
    # flows
    f0, f1 = flows(st, p, w)
    # "not within the limit" rather than "above it": a non-finite flow (an absurd schedule) fails too
    over0 = ~(np.abs(f0) <= st.rate_n0_mw[None, :] + tol)
    add("flow", over0, np.abs(f0), np.broadcast_to(st.rate_n0_mw, f0.shape), st.branch_ids, "N-0")
    over1 = ~(np.abs(f1) <= st.rate_n1_mw[None, :, None] + tol)
    for t, b, c in zip(*np.nonzero(over1), strict=True):
        if len(out) >= limit:
            break
        out.append(Failure("flow", int(t) + 1, st.branch_ids[int(b)], st.cont_ids[int(c)], float(abs(f1[t, b, c])),
                           float(st.rate_n1_mw[b])))
    return out


def binding_set(st: Study, p: np.ndarray, w: np.ndarray, tol: float) -> tuple[set[tuple[int, str, str]], set[tuple[int, str, str]]]:
    """The flow limits within ``tol`` MW of binding in the schedule (|flow| ≥ limit − tol), and
    the triples in the don't-care band (|limit − |flow| − tol| ≤ :data:`BINDING_BAND_MW`)."""
    f0, f1 = flows(st, p, w)
    d0 = st.rate_n0_mw[None, :] - np.abs(f0)
    d1 = st.rate_n1_mw[None, :, None] - np.abs(f1)
    k = st.cont_branch
    d1[:, k, np.arange(len(k))] = np.inf  # the outaged branch itself is not monitored
    sure, band = set(), set()
    for t, b in zip(*np.nonzero(d0 <= tol + BINDING_BAND_MW), strict=True):
        key = (int(t) + 1, st.branch_ids[b], "N-0")
        (band if abs(d0[t, b] - tol) <= BINDING_BAND_MW else sure).add(key)
    for t, b, c in zip(*np.nonzero(d1 <= tol + BINDING_BAND_MW), strict=True):
        key = (int(t) + 1, st.branch_ids[b], st.cont_ids[c])
        (band if abs(d1[t, b, c] - tol) <= BINDING_BAND_MW else sure).add(key)
    return sure, band


# ---------------------------------------------------------------------------- the reference MILP


class _Layout:
    """Column positions of the MILP: per (hour, unit) u, v (start), w (stop), p, the segments,
    r (reserve); per (hour, plant) the renewable output."""

    def __init__(self, st: Study) -> None:
        T, G, Q, J = HOURS, st.n_gen, st.n_plant, N_SEGMENTS
        self.T, self.G, self.Q, self.J = T, G, Q, J
        n = 0

        def block(*shape: int) -> np.ndarray:
            nonlocal n
            size = int(np.prod(shape))
            out = np.arange(n, n + size).reshape(shape)
            n += size
            return out

        self.u, self.v, self.w, self.p = block(T, G), block(T, G), block(T, G), block(T, G)
        self.seg, self.r, self.ren = block(T, G, J), block(T, G), block(T, Q)
        self.n = n


class _Rows:
    def __init__(self) -> None:
        self.lo: list[float] = []
        self.hi: list[float] = []
        self.idx: list[np.ndarray] = []
        self.val: list[np.ndarray] = []

    def add(self, idx: Any, val: Any, lo: float, hi: float) -> None:
        self.idx.append(np.asarray(idx, dtype=np.int32).ravel())
        self.val.append(np.asarray(val, dtype=float).ravel())
        self.lo.append(float(lo))
        self.hi.append(float(hi))

    def push(self, h: Any) -> None:
        if not self.lo:
            return
        starts = np.cumsum([0] + [len(i) for i in self.idx[:-1]]).astype(np.int32)
        h.addRows(len(self.lo), np.array(self.lo), np.array(self.hi), int(sum(len(i) for i in self.idx)), starts,
                  np.concatenate(self.idx), np.concatenate(self.val))
        self.__init__()


def _flow_row(st: Study, lay: _Layout, t: int, b: int, c: int | None) -> tuple[np.ndarray, np.ndarray, float, float]:
    """The flow on branch b in hour t (c = None: intact; else contingency position) as a row
    over p and the renewables, its constant (loads) moved to the bounds."""
    m = st.ptdf[b].copy()
    if c is not None:
        k = st.cont_branch[c]
        m = m + st.lodf[b, k] * st.ptdf[k]
    lim = st.rate_n0_mw[b] if c is None else st.rate_n1_mw[b]
    const = -float(m @ st.load_bus[t])
    if st.shift_mw.any():  # the shifters' flows: f_b + LODF[b, k]·f_k of the shift flows
        const += float(st.shift_mw[b] + (0.0 if c is None else st.lodf[b, st.cont_branch[c]] * st.shift_mw[st.cont_branch[c]]))
    idx = np.concatenate([lay.p[t], lay.ren[t]])
    val = np.concatenate([m[st.gen_bus], m[st.plant_bus]])
    keep = np.abs(val) > 1e-10
    return idx[keep], val[keep], -lim - const, lim - const


def _build(st: Study, lay: _Layout, *, relax_network: bool = True) -> Any:
    import highspy

    from psab.solvers.core import _new_highs

    # psab's one HiGHS constructor: the first construction in a process prints a banner on fd 1
    h = _new_highs()
    h.setOptionValue("output_flag", False)
    T, G, Q, J = lay.T, lay.G, lay.Q, lay.J
    lb = np.zeros(lay.n)
    ub = np.full(lay.n, np.inf)
    ub[lay.u.ravel()] = ub[lay.v.ravel()] = ub[lay.w.ravel()] = 1.0
    ub[lay.seg] = np.broadcast_to(st.seg_mw[None, :, :], (T, G, J))
    if Q:
        ub[lay.ren] = st.avail
    # the initial state carries over: a unit on for h < UT hours stays on UT − h more hours
    for g in range(G):
        h0 = int(st.init_status[g])
        if h0 > 0:
            lb[lay.u[: max(0, st.min_up[g] - h0), g]] = 1.0
        else:
            ub[lay.u[: max(0, st.min_down[g] + h0), g]] = 0.0
    cost = np.zeros(lay.n)
    cost[lay.u] = np.broadcast_to(st.cost_pmin, (T, G))
    cost[lay.seg] = np.broadcast_to(st.seg_cost[None], (T, G, J))
    cost[lay.v] = np.broadcast_to(st.su_cost, (T, G))
    h.addVars(lay.n, lb, ub)
    h.changeColsCost(lay.n, np.arange(lay.n, dtype=np.int32), cost)
    ints = np.concatenate([lay.u.ravel(), lay.v.ravel(), lay.w.ravel()]).astype(np.int32)
    h.changeColsIntegrality(len(ints), ints, np.full(len(ints), highspy.HighsVarType.kInteger))
    rows = _Rows()
    init = st.init_on.astype(float)
    for t in range(T):
        for g in range(G):
            # p = Pmin·u + Σ seg ; seg_j ≤ width_j·u
            rows.add([lay.p[t, g], lay.u[t, g], *lay.seg[t, g]], [1.0, -st.pmin[g], *([-1.0] * J)], 0.0, 0.0)
            for j in range(J):
                rows.add([lay.seg[t, g, j], lay.u[t, g]], [1.0, -st.seg_mw[g, j]], -np.inf, 0.0)
            # logic u_t − u_{t−1} = v_t − w_t, one of v, w at most
            if t == 0:
                rows.add([lay.u[t, g], lay.v[t, g], lay.w[t, g]], [1.0, -1.0, 1.0], init[g], init[g])
            else:
                rows.add([lay.u[t, g], lay.u[t - 1, g], lay.v[t, g], lay.w[t, g]], [1.0, -1.0, -1.0, 1.0], 0.0, 0.0)
            rows.add([lay.v[t, g], lay.w[t, g]], [1.0, 1.0], -np.inf, 1.0)
            # minimum up / down (Rajan & Takriti): Σ_{τ=t−UT+1..t} v_τ ≤ u_t, Σ_{τ=t−DT+1..t} w_τ ≤ 1 − u_t
            ups = lay.v[max(0, t - st.min_up[g] + 1): t + 1, g]
            rows.add([*ups, lay.u[t, g]], [*([1.0] * len(ups)), -1.0], -np.inf, 0.0)
            dns = lay.w[max(0, t - st.min_down[g] + 1): t + 1, g]
            rows.add([*dns, lay.u[t, g]], [*([1.0] * len(dns)), 1.0], -np.inf, 1.0)
            # ramps (from hour 2)
            if t > 0:
                rows.add([lay.p[t, g], lay.p[t - 1, g], lay.u[t - 1, g], lay.v[t, g]],
                         [1.0, -1.0, -st.ramp_up[g], -st.su_ramp[g]], -np.inf, 0.0)
                rows.add([lay.p[t - 1, g], lay.p[t, g], lay.u[t, g], lay.w[t, g]],
                         [1.0, -1.0, -st.ramp_down[g], -st.sd_ramp[g]], -np.inf, 0.0)
            # reserve r ≤ Pmax·u − p, r ≤ cap·u
            rows.add([lay.r[t, g], lay.p[t, g], lay.u[t, g]], [1.0, 1.0, -st.pmax[g]], -np.inf, 0.0)
            rows.add([lay.r[t, g], lay.u[t, g]], [1.0, -st.reserve_cap[g]], -np.inf, 0.0)
        rows.add(lay.r[t], np.ones(G), float(st.reserve_req[t]), np.inf)
        bal = np.concatenate([lay.p[t], lay.ren[t]])
        rows.add(bal, np.ones(len(bal)), float(st.load_total[t]), float(st.load_total[t]))
    rows.push(h)
    return h


def _schedule(st: Study, lay: _Layout, x: np.ndarray) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    u = np.round(x[lay.u]).astype(float)
    p = np.where(u > 0, x[lay.p], 0.0)
    w = x[lay.ren] if st.n_plant else np.zeros((HOURS, 0))
    return u, p, w


def _cuts(st: Study, p: np.ndarray, w: np.ndarray, have: set[tuple[int, int, int]], per_round: int) -> list[tuple[int, int, int]]:
    """The violated (hour, branch, contingency position or −1 for N-0) flow limits of a
    schedule, worst first, at most ``per_round``, none already in the model."""
    f0, f1 = flows(st, p, w)
    out: list[tuple[float, tuple[int, int, int]]] = []
    e0 = np.abs(f0) - st.rate_n0_mw[None, :]
    for t, b in zip(*np.nonzero(e0 > SLACK_MW / 10), strict=True):
        key = (int(t), int(b), -1)
        if key not in have:
            out.append((float(e0[t, b]), key))
    if not len(st.cont_ids):
        out.sort(key=lambda x: -x[0])
        return [k for _, k in out[:per_round]]
    e1 = np.abs(f1) - st.rate_n1_mw[None, :, None]
    # per (hour, branch) the worst outage only: its row usually covers the others
    worst = np.argmax(e1, axis=2)
    ev = np.take_along_axis(e1, worst[:, :, None], axis=2)[:, :, 0]
    for t, b in zip(*np.nonzero(ev > SLACK_MW / 10), strict=True):
        key = (int(t), int(b), int(worst[t, b]))
        if key not in have:
            out.append((float(ev[t, b]), key))
        else:  # the worst is in already: take every violated outage of this (hour, branch)
            for c in np.flatnonzero(e1[t, b] > SLACK_MW / 10):
                k2 = (int(t), int(b), int(c))
                if k2 not in have:
                    out.append((float(e1[t, b, c]), k2))
    out.sort(key=lambda x: -x[0])
    return [k for _, k in out[:per_round]]


def solve_uc(st: Study, *, network: str = "n-1", time_limit_s: float = MIP_TIME_LIMIT_S,
             max_rounds: int = 40, mip_rel_gap: float = MIP_REL_GAP) -> tuple[dict[str, Any], dict[str, Any]]:
    """The reference SCUC by constraint generation (module docstring). ``network``: "n-1"
    (every listed outage), "n-0" (intact limits only: the DC-only baseline), "none" (copper
    plate). Returns (decision answer, evidence with bound, incumbent, gap, rounds, cuts)."""
    import highspy

    t0 = time.perf_counter()
    lay = _Layout(st)
    h = _build(st, lay)
    h.setOptionValue("time_limit", float(time_limit_s))
    h.setOptionValue("threads", 1)
    h.setOptionValue("random_seed", 0)
    have: set[tuple[int, int, int]] = set()
    scoped = st
    if network == "n-0":
        scoped = _without_contingencies(st)
    rounds = 0
    bound = incumbent = math.nan
    status = ""
    # a loose gap while the flow rows are found (any schedule's violations are valid rows),
    # the stated gap once none is violated; a row found for one hour is added for every hour
    # (the day's flow patterns repeat), which saves rounds
    # the LP relaxation first (phase "lp"; its violations are rows too, found in a second each)
    phases: list[Any] = ["lp", float(mip_rel_gap)]
    phase = 0
    log: list[tuple[Any, float]] = []
    ints = np.concatenate([lay.u.ravel(), lay.v.ravel(), lay.w.ravel()]).astype(np.int32)
    h.changeColsIntegrality(len(ints), ints, np.full(len(ints), highspy.HighsVarType.kContinuous))
    while True:
        rounds += 1
        tr = time.perf_counter()
        h.run()
        if h.getModelStatus() == highspy.HighsModelStatus.kInfeasible:
            # a warm-started re-solve after added rows can end "infeasible" on numerics (seen on
            # case300: its ratings span 6-9900 MW); the verdict stands only when a cold solve agrees
            h.clearSolver()
            h.run()
            if h.getModelStatus() == highspy.HighsModelStatus.kInfeasible:  # and without presolve
                h.setOptionValue("presolve", "off")
                h.clearSolver()
                h.run()
                h.setOptionValue("presolve", "choose")
        log.append((phases[phase], round(time.perf_counter() - tr, 2)))
        status = h.modelStatusToString(h.getModelStatus())
        if h.getModelStatus() not in (highspy.HighsModelStatus.kOptimal, highspy.HighsModelStatus.kTimeLimit) \
                or h.getInfo().primal_solution_status == 0:
            raise SolverError(f"{STUDY_ID}: the MILP has no solution ({status}) in round {rounds} "
                              f"({'LP relaxation' if phases[phase] == 'lp' else 'MILP'}, {len(have)} flow rows)")
        x = np.asarray(h.getSolution().col_value)
        if phases[phase] == "lp":  # the relaxed schedule's flows (p and renewables as solved)
            u, p, w = x[lay.u], x[lay.p], (x[lay.ren] if st.n_plant else np.zeros((HOURS, 0)))
        else:
            u, p, w = _schedule(st, lay, x)
        info = h.getInfo()
        bound, incumbent = float(info.mip_dual_bound), float(info.objective_function_value)
        new = [] if network == "none" else _cuts(scoped, p, w, have, CUTS_PER_ROUND)
        if not new:
            if phase == len(phases) - 1:
                break
            phase += 1
            if phase == 1:
                h.changeColsIntegrality(len(ints), ints, np.full(len(ints), highspy.HighsVarType.kInteger))
            h.setOptionValue("mip_rel_gap", phases[phase])
            continue
        if rounds >= max_rounds:
            raise RuntimeError(f"{STUDY_ID}: constraint generation did not close in {max_rounds} rounds")
        rows = _Rows()
        for _, b, c in new:
            for t in range(HOURS):
                if (t, b, c) not in have:
                    rows.add(*_flow_row(scoped, lay, t, b, None if c < 0 else c))
                    have.add((t, b, c))
        rows.push(h)
    decision = decision_answer(st, u, p, w)
    gap = (incumbent - bound) / max(abs(incumbent), 1.0)
    evidence = {"proven": bool(status == "Optimal" and gap <= mip_rel_gap * (1 + 1e-9) + 1e-12),
                "bound": bound, "incumbent": incumbent, "gap": gap, "mip_status": status, "rounds": rounds,
                "flow_rows": len(have), "time_s": time.perf_counter() - t0, "network": network,
                "round_times_s": log}
    return decision, evidence


def _without_contingencies(st: Study) -> Study:
    import dataclasses

    return dataclasses.replace(st, cont_ids=[], cont_branch=np.zeros(0, dtype=int))


def decision_answer(st: Study, u: np.ndarray, p: np.ndarray, w: np.ndarray) -> dict[str, Any]:
    """A schedule as the answer's decision (MW to 1e-4, as an agent's JSON would carry it)."""
    return {"units": [{"gen_id": g, "on": [int(v) for v in u[:, k]], "p_mw": [round(float(v), 4) + 0.0 for v in p[:, k]]}
                      for k, g in enumerate(st.gen_ids)],
            "renewables": [{"plant_id": q, "p_mw": [round(float(v), 4) + 0.0 for v in w[:, k]]}
                           for k, q in enumerate(st.plant_ids)]}



def solve_uc_pyomo(st: Study, *, network: str = "n-1", mip_rel_gap: float = MIP_REL_GAP,
                   time_limit_s: float = 300.0, max_rounds: int = 40) -> tuple[dict[str, Any], dict[str, Any]]:
    """The second, independent formulation of the reference (Pyomo + HiGHS through appsi): the
    two-binary formulation (u, and a start-up v relaxed to [0, 1] with v ≥ u_t − u_{t−1},
    v ≤ u_t, v ≤ 1 − u_{t−1}; the shut-down w = v − (u_t − u_{t−1}) as an expression),
    minimum up/down as pairwise turn-on/turn-off inequalities (u_t − u_{t−1} ≤ u_τ for the
    next UT − 1 hours; Takriti, Birge & Long 1996), the network written as PTDF expressions
    over bus injections, its own constraint-generation loop (one violated row per
    (hour, branch) and round, the worst outage). Used by the tests to check :func:`solve_uc`."""
    import pyomo.environ as pyo
    from pyomo.contrib.appsi.solvers import Highs

    T, G, Q, J = HOURS, st.n_gen, st.n_plant, N_SEGMENTS
    m = pyo.ConcreteModel()
    m.T, m.G, m.Q, m.J = pyo.RangeSet(0, T - 1), pyo.RangeSet(0, G - 1), pyo.RangeSet(0, Q - 1), pyo.RangeSet(0, J - 1)
    m.u = pyo.Var(m.T, m.G, within=pyo.Binary)
    m.v = pyo.Var(m.T, m.G, bounds=(0, 1))
    m.seg = pyo.Var(m.T, m.G, m.J, within=pyo.NonNegativeReals)
    m.r = pyo.Var(m.T, m.G, within=pyo.NonNegativeReals)
    m.ren = pyo.Var(m.T, m.Q, within=pyo.NonNegativeReals)
    init = [1 if x else 0 for x in st.init_on]

    def prev(t: int, g: int) -> Any:
        return m.u[t - 1, g] if t > 0 else init[g]

    def power(t: int, g: int) -> Any:
        return st.pmin[g] * m.u[t, g] + sum(m.seg[t, g, j] for j in m.J)

    m.c = pyo.ConstraintList()
    for t in m.T:
        for g in m.G:
            for j in m.J:
                m.c.add(m.seg[t, g, j] <= st.seg_mw[g, j] * m.u[t, g])
            m.c.add(m.v[t, g] >= m.u[t, g] - prev(t, g))
            m.c.add(m.v[t, g] <= m.u[t, g])
            m.c.add(m.v[t, g] <= 1 - prev(t, g))
            # pairwise minimum up / down: a switch at t holds for the next UT − 1 (DT − 1) hours
            for tau in range(t + 1, min(T, t + int(st.min_up[g]))):
                m.c.add(m.u[t, g] - prev(t, g) <= m.u[tau, g])
            for tau in range(t + 1, min(T, t + int(st.min_down[g]))):
                m.c.add(prev(t, g) - m.u[t, g] <= 1 - m.u[tau, g])
            if t > 0:
                w_t = m.v[t, g] - (m.u[t, g] - m.u[t - 1, g])
                m.c.add(power(t, g) - power(t - 1, g) <= st.ramp_up[g] * m.u[t - 1, g] + st.su_ramp[g] * m.v[t, g])
                m.c.add(power(t - 1, g) - power(t, g) <= st.ramp_down[g] * m.u[t, g] + st.sd_ramp[g] * w_t)
            m.c.add(m.r[t, g] <= st.pmax[g] * m.u[t, g] - power(t, g))
            m.c.add(m.r[t, g] <= st.reserve_cap[g] * m.u[t, g])
        m.c.add(sum(m.r[t, g] for g in m.G) >= float(st.reserve_req[t]))
        for q in m.Q:
            m.c.add(m.ren[t, q] <= float(st.avail[t, q]))
        m.c.add(sum(power(t, g) for g in m.G) + sum(m.ren[t, q] for q in m.Q) == float(st.load_total[t]))
    # the initial state carries over
    for g in m.G:
        h0 = int(st.init_status[g])
        for t in range(max(0, (st.min_up[g] - h0) if h0 > 0 else (st.min_down[g] + h0))):
            m.u[t, g].fix(1 if h0 > 0 else 0)
    m.obj = pyo.Objective(expr=sum(st.cost_pmin[g] * m.u[t, g] + st.su_cost[g] * m.v[t, g]
                                   + sum(st.seg_cost[g, j] * m.seg[t, g, j] for j in m.J) for t in m.T for g in m.G))
    m.flow = pyo.ConstraintList()
    scoped = _without_contingencies(st) if network == "n-0" else st
    solver = Highs()
    solver.config.mip_gap = float(mip_rel_gap)
    solver.config.time_limit = float(time_limit_s)
    solver.config.load_solution = True
    have: set[tuple[int, int, int]] = set()
    rounds = 0
    while True:
        rounds += 1
        res = solver.solve(m)
        u = np.array([[round(pyo.value(m.u[t, g])) for g in m.G] for t in m.T], dtype=float)
        p = np.array([[pyo.value(power(t, g)) for g in m.G] for t in m.T]) * u
        w = np.array([[pyo.value(m.ren[t, q]) for q in m.Q] for t in m.T]).reshape(T, Q)
        if network == "none":
            break
        e0, e1 = flows(scoped, p, w)
        new = []
        x0 = np.abs(e0) - scoped.rate_n0_mw[None, :]
        for t, b in zip(*np.nonzero(x0 > SLACK_MW / 10), strict=True):
            new.append((int(t), int(b), -1))
        if len(scoped.cont_ids):
            x1 = np.abs(e1) - scoped.rate_n1_mw[None, :, None]
            worst = np.argmax(x1, axis=2)
            for t, b in zip(*np.nonzero(np.max(x1, axis=2) > SLACK_MW / 10), strict=True):
                new.append((int(t), int(b), int(worst[t, b])))
        new = [k for k in new if k not in have]
        if not new:
            break
        if rounds >= max_rounds:
            raise RuntimeError(f"{STUDY_ID}: the Pyomo formulation's constraint generation did not close")
        for t, b, c in new:
            have.add((t, b, c))
            row = scoped.ptdf[b] if c < 0 else scoped.ptdf[b] + scoped.lodf[b, scoped.cont_branch[c]] * scoped.ptdf[scoped.cont_branch[c]]
            lim = scoped.rate_n0_mw[b] if c < 0 else scoped.rate_n1_mw[b]
            fs = st.shift_mw[b] + (0.0 if c < 0 else st.lodf[b, st.cont_branch[c]] * st.shift_mw[st.cont_branch[c]])
            expr = sum(float(row[st.gen_bus[g]]) * power(t, g) for g in m.G if abs(row[st.gen_bus[g]]) > 1e-10) \
                + sum(float(row[st.plant_bus[q]]) * m.ren[t, q] for q in m.Q) - float(row @ st.load_bus[t]) + float(fs)
            m.flow.add(pyo.inequality(-lim, expr, lim))
    bound = float(res.best_objective_bound)
    incumbent = float(res.best_feasible_objective)
    return decision_answer(st, u, p, w), {"bound": bound, "incumbent": incumbent, "rounds": rounds, "flow_rows": len(have),
                                          "gap": (incumbent - bound) / max(abs(incumbent), 1.0),
                                          "termination": str(res.termination_condition)}


# ---------------------------------------------------------------------------- contract


def submission_schema(inputs: Mapping[str, Any]) -> dict[str, Any]:
    st = study_of(inputs)
    hours = HOURS
    unit = s.obj({
        "gen_id": {**s.enum(st.gen_ids, "the unit (gen column of units.csv = 1-based row of mpc.gen)",
                            ru="блок (gen в units.csv = номер строки mpc.gen с единицы)"), "type": "string"},
        "on": s.array({"enum": [0, 1]}, "commitment per hour, hour 1 first (1 = on)", length=hours,
                      ru="состояние по часам, с первого часа (1 — включён)"),
        "p_mw": s.array({"type": "number"}, "output per hour (MW), hour 1 first", length=hours,
                        ru="мощность по часам (МВт), с первого часа"),
    })
    plant = s.obj({
        "plant_id": {**s.enum(st.plant_ids or ["-"], "the renewable plant (renewables id)", ru="станция ВИЭ (id)"),
                     "type": "string"},
        "p_mw": s.array({"type": "number"}, "output per hour (MW), hour 1 first (at most its availability)",
                        length=hours, ru="мощность по часам (МВт), не больше доступной"),
    })
    binding = s.obj({
        "hour": s.integer("the hour (1 = 00:00-01:00)", minimum=1, maximum=hours, ru="час (1 = 00:00-01:00)"),
        "branch_id": {**s.enum(st.branch_ids, "the monitored branch (1-based row of mpc.branch)",
                               ru="контролируемая ветвь (номер строки mpc.branch)"), "type": "string"},
        "contingency_id": {**s.enum(["N-0", *st.cont_ids], "'N-0' (intact network) or the listed outage's id",
                                    ru="'N-0' (нормальная схема) или id аварии"), "type": "string"},
    })
    decision = s.obj({
        "units": s.array(unit, "every unit of units.csv once", length=st.n_gen, ru="каждый блок units.csv один раз"),
        "renewables": s.array(plant, "every renewable plant of the task once", length=st.n_plant,
                              ru="каждая станция ВИЭ задачи один раз"),
    }, "the commitment and dispatch", ru="состав и загрузка оборудования")
    return s.submission({
        "binding_constraints": s.array(binding, "flow limits binding in your dispatch (each triple once)",
                                       max_items=MAX_BINDING, ru="достигнутые пределы перетоков в вашем режиме"),
        "decision": decision,
    }, "security-constrained unit commitment study", ru="расчёт выбора состава оборудования с учётом надёжности (SCUC)")


def schedule_of(st: Study, decision: Mapping[str, Any]) -> tuple[np.ndarray, np.ndarray, np.ndarray, list[Violation]]:
    """The answer's schedule as arrays; units or plants listed twice are violations (the
    first listing counts), a missing one is off / at 0 MW (schema lengths make that a
    duplicate elsewhere)."""
    gi = {g: k for k, g in enumerate(st.gen_ids)}
    qi = {q: k for k, q in enumerate(st.plant_ids)}
    u = np.zeros((HOURS, st.n_gen))
    p = np.zeros((HOURS, st.n_gen))
    w = np.zeros((HOURS, st.n_plant))
    bad: list[Violation] = []
    seen: set[int] = set()
    for i, x in enumerate(decision["units"]):
        k = gi.get(x["gen_id"])
        if k is None or k in seen:
            bad.append(Violation(f"/decision/units/{i}/gen_id", "every unit listed exactly once", "a unit not yet listed", x["gen_id"]))
            continue
        seen.add(k)
        u[:, k] = np.asarray(x["on"], dtype=float)
        p[:, k] = np.asarray(x["p_mw"], dtype=float)
    seen = set()
    for i, x in enumerate(decision["renewables"]):
        k = qi.get(x["plant_id"])
        if k is None or k in seen:
            bad.append(Violation(f"/decision/renewables/{i}/plant_id", "every plant listed exactly once", "a plant not yet listed",
                                 x["plant_id"]))
            continue
        seen.add(k)
        w[:, k] = np.asarray(x["p_mw"], dtype=float)
    return u, p, w, bad


def _binding_list(st: Study, u: np.ndarray, p: np.ndarray, w: np.ndarray) -> list[dict[str, Any]]:
    sure, _ = binding_set(st, p, w, st.binding_tol)
    return [{"hour": t, "branch_id": b, "contingency_id": c} for t, b, c in sorted(sure, key=lambda k: (k[0], int(k[1]), k[2]))]


def solve(task: Task, backend: str) -> Reference:
    st = _study(task)
    decision, ev = solve_uc(st)
    u, p, w, _ = schedule_of(st, decision)
    answer = {"binding_constraints": _binding_list(st, u, p, w), "decision": decision}
    return Reference(answer=answer, objective=total_cost(st, u, p), evidence=ev,
                     method="three-binary SCUC MILP (HiGHS via highspy) with N-0/N-1 DC flow rows by constraint generation")


def _failure_field(st: Study, f: Failure) -> str:
    if f.element in st.gen_ids and f.kind != "flow":
        return f"/decision/units/{st.gen_ids.index(f.element)}"
    if f.element in st.plant_ids and f.kind != "flow":
        return f"/decision/renewables/{st.plant_ids.index(f.element)}"
    return "/decision"


def _expected(f: Failure) -> str:
    if f.kind.startswith("power balance"):
        return f"0 ± {SLACK_MW} MW"
    if f.kind.startswith(("minimum", "unit below", "spinning", "renewable output below")):
        return f">= {f.limit:.6g}"
    return f"<= {f.limit:.6g}"


def evaluate(task: Task, answer: dict[str, Any], ctx: Any) -> Assessment:
    st = _study(task)
    u, p, w, bad = schedule_of(st, answer["decision"])
    fails = failures(st, u, p, w, limit=5000)
    violations = bad + [Violation(_failure_field(st, f), f.words(), _expected(f), round(f.value, 6)) for f in fails]
    cost = total_cost(st, u, p)
    # binding constraints: the agent's list against psab's recomputation of the agent's own dispatch
    sure, band = binding_set(st, p, w, st.binding_tol)
    listed: set[tuple[int, str, str]] = set()
    mism: list[dict[str, Any]] = []
    dup = 0
    for i, x in enumerate(answer["binding_constraints"]):
        key = (int(x["hour"]), x["branch_id"], x["contingency_id"])
        if key in listed:
            dup += 1
            mism.append({"field": f"/binding_constraints/{i}", "expected": "each triple once", "found": list(key)})
        listed.add(key)
    listed -= band
    right = len(sure & listed)
    total = len(sure | listed) + dup
    for k in sorted(sure - listed)[:10]:
        mism.append({"field": "/binding_constraints", "expected": {"missing": list(k)}, "found": None})
    for k in sorted(listed - sure)[:10]:
        mism.append({"field": "/binding_constraints", "expected": "not binding in this dispatch", "found": list(k)})
    scores = {"binding_constraints": right / total if total else 1.0}
    evidence: dict[str, Any] = {"deliverables": {"binding_constraints": {"mismatches": mism[:20], "n_items": total, "n_right": right}},
                                "decision_failures": len(fails) + len(bad), "decision_cost_usd": cost,
                                "reference_bound_usd": ctx.reference().evidence.get("bound"),
                                "reference_gap": ctx.reference().evidence.get("gap")}
    return Assessment(violations=violations[:200], objective=cost, evidence=evidence, deliverable_scores=scores)


def model_size(task: Task) -> dict[str, Any]:
    """The study's size for ``benchmarks/bench_studies.py``: the case, buses, branches, units,
    hours, listed contingencies, renewable plants."""
    st = _study(task)
    return {"case": case_of(st.inputs).case_file[:-2], "buses": st.n_bus, "branches": len(st.branch_ids), "units": st.n_gen, "hours": HOURS,
            "contingencies": len(st.cont_ids), "renewable plants": st.n_plant}


# ---------------------------------------------------------------------------- baselines


def do_nothing_answer(task: Task) -> dict[str, Any]:
    """The initial commitment held all day, committed units at Pmin, renewables at 0, nothing binding."""
    st = _study(task)
    u = np.broadcast_to(st.init_on.astype(float), (HOURS, st.n_gen)).copy()
    p = u * st.pmin[None, :]
    return {"binding_constraints": [], "decision": decision_answer(st, u, p, np.zeros((HOURS, st.n_plant)))}


def _merit_dispatch(st: Study, u: np.ndarray, net_load: float, t: int) -> np.ndarray:
    """Copper-plate economic dispatch of the committed units in hour t: Pmin, then the segments
    cheapest first until the net load is met (the committed capacity covers it)."""
    p = u * st.pmin
    rest = net_load - p.sum()
    segs = sorted((st.seg_cost[g, j], g, j) for g in range(st.n_gen) if u[g] for j in range(N_SEGMENTS))
    for _, g, j in segs:
        if rest <= 0:
            break
        take = min(st.seg_mw[g, j], rest)
        p[g] += take
        rest -= take
    return p


def naive_answer(task: Task) -> dict[str, Any]:
    """Priority-list commitment and copper-plate economic dispatch: each hour, units in order of
    full-load average cost until the committed capacity covers load + reserve; renewables at
    their availability (curtailed only below the committed Pmin); no network, no ramps, no
    minimum up/down. Its binding list is computed honestly on its own dispatch."""
    st = _study(task)
    avg = (st.cost_pmin + (st.seg_mw * st.seg_cost).sum(axis=1)) / st.pmax
    order = np.argsort(avg, kind="stable")
    u = np.zeros((HOURS, st.n_gen))
    p = np.zeros((HOURS, st.n_gen))
    w = st.avail.copy()
    for t in range(HOURS):
        need = st.load_total[t] + st.reserve_req[t]
        cap = 0.0
        for g in order:
            if cap >= need:
                break
            u[t, g] = 1.0
            cap += st.pmax[g]
        net_load = st.load_total[t] - w[t].sum()
        floor = float((u[t] * st.pmin).sum())
        if net_load < floor and st.n_plant:  # curtail renewables pro rata down to the committed Pmin
            w[t] *= max(0.0, (st.load_total[t] - floor)) / max(w[t].sum(), 1e-9)
            net_load = st.load_total[t] - w[t].sum()
        p[t] = _merit_dispatch(st, u[t], net_load, t)
    return {"binding_constraints": _binding_list(st, u, p, w), "decision": decision_answer(st, u, p, w)}


def dc_only_answer(task: Task) -> dict[str, Any]:
    """The same MILP with the intact-network flow limits only (no contingency rows): the
    commitment a DC-OPF-based UC without N-1 gives; its binding list on its own dispatch."""
    st = _study(task)
    decision, _ = solve_uc(st, network="n-0")
    u, p, w, _ = schedule_of(st, decision)
    return {"binding_constraints": _binding_list(st, u, p, w), "decision": decision}


# ---------------------------------------------------------------------------- generation

#: Buses where level 1's draws place wind and PV plants (:data:`CASE118`).
WIND_BUSES = CASE118.wind_buses
PV_BUSES = CASE118.pv_buses


def scenario_inputs(season: str, scale: float, renewables: list[dict[str, Any]], reserve_pct: float,
                    outage_branch_ids: list[str], rating_factor: float = 1.0, case: CaseData = CASE118) -> dict[str, Any]:
    head: dict[str, Any] = {"name": case.case_file[:-2]}
    if case.note is not None:  # the family's words name case118; a larger case says how to read them
        head["note"] = dict(case.note)
    return {
        "case": head,
        "model": model_files_entry(case),
        "deliverables": [d.to_dict() for d in DELIVERABLES],
        "horizon_h": HOURS,
        "load": {"season": season, "scale": round(float(scale), 4)},
        "renewables": renewables,
        "reserve": {"requirement_pct_of_load": round(float(reserve_pct), 2)},
        "security": {"post_contingency_rating_factor": float(rating_factor),
                     "contingencies": [{"id": f"C{b}", "branch_id": b} for b in outage_branch_ids]},
        "binding_tolerance_mw": 0.1,
    }


def _all_outages(case: CaseData = CASE118) -> list[str]:
    """Every branch whose outage neither islands a bus nor is :func:`unsecurable`."""
    drop = bridges(case.case_file) | unsecurable(case.case_file)
    return [str(k + 1) for k in range(len(_network(case.case_file)[0].branch)) if k not in drop]


def _public_inputs() -> dict[str, Any]:
    return scenario_inputs("winter", 1.0, [
        {"id": "W1", "kind": "wind", "bus_id": "59", "capacity_mw": 400.0},
        {"id": "W2", "kind": "wind", "bus_id": "17", "capacity_mw": 300.0},
        {"id": "PV1", "kind": "pv", "bus_id": "100", "capacity_mw": 300.0}], 5.0, _all_outages())


def generate(public: Task | None, rng: np.random.Generator, level: int = 1) -> Generated:
    """A held-out day of the level's case (:data:`CASES`: 1 = IEEE 118, 2 = IEEE 300): the
    season, the load scale (level 1: 0.9–1.05, level 2: 0.85–1.0 of the case's loads at the
    daily peak), one to three wind
    plants and one or two PV plants at the case's listed buses (level 1: 100–400 and 100–300 MW;
    level 2: 300–1200 and 200–800 MW), the reserve requirement (level 1: 3–7 %, level 2: 2–4 % of
    load) and the outage list (a random 70–100 % of the branches whose outage neither islands a
    bus nor is :func:`unsecurable` nor in the case's ``screened`` list)."""
    if level not in CASES:
        raise InvalidTaskError(f"{STUDY_ID}: level must be one of {sorted(CASES)}")
    case = CASES[level]
    season = str(rng.choice(["winter", "summer"]))
    scale = float(rng.uniform(*case.scale))
    ren = []
    for i, b in enumerate(rng.choice(case.wind_buses, size=int(rng.integers(1, 4)), replace=False)):
        ren.append({"id": f"W{i + 1}", "kind": "wind", "bus_id": str(b), "capacity_mw": float(round(rng.uniform(*case.wind_mw) / 10) * 10)})
    for i, b in enumerate(rng.choice(case.pv_buses, size=int(rng.integers(1, 3)), replace=False)):
        ren.append({"id": f"PV{i + 1}", "kind": "pv", "bus_id": str(b), "capacity_mw": float(round(rng.uniform(*case.pv_mw) / 10) * 10)})
    outs = [b for b in _all_outages(case) if b not in case.screened]
    keep = int(round(rng.uniform(0.7, 1.0) * len(outs)))
    chosen = sorted(rng.choice(len(outs), size=keep, replace=False).tolist())
    return Generated(public_inputs=scenario_inputs(season, scale, ren, float(rng.uniform(*case.reserve_pct)),
                                                   [outs[k] for k in chosen], case=case))


def accept(task: Task, reference: Reference) -> str | None:
    """Reject unless the reference is proven, do-nothing fails, the naive schedule is infeasible
    or dearer than the reference beyond its gap, and some post-contingency limit binds in the
    reference (the N-1 criterion shapes the answer)."""
    st = _study(task)
    if not reference.evidence.get("proven"):
        return "the reference's MIP gap did not close to the stated tolerance"
    dn = do_nothing_answer(task)["decision"]
    if not failures(st, *schedule_of(st, dn)[:3], limit=1):
        return "do-nothing meets every constraint"
    nv = naive_answer(task)["decision"]
    nu, np_, nw, _ = schedule_of(st, nv)
    if not failures(st, nu, np_, nw, limit=1) and total_cost(st, nu, np_) <= (reference.objective or 0.0) * (1 + 1e-9):
        return "the naive schedule is optimal"
    if not any(b["contingency_id"] != "N-0" for b in reference.answer["binding_constraints"]):
        return "no post-contingency limit binds in the reference: the N-1 criterion does not matter"
    return None


# ---------------------------------------------------------------------------- words

_STATEMENT_EN = (
    "Day-ahead security-constrained unit commitment (SCUC) of IEEE 118. Model: model/pglib_opf_case118_ieee.m "
    "(MATPOWER format, PGLib-OPF v23.07) gives the network (branch r, x, tap, rate_a, rate_c; every branch in "
    "service) and the bus loads Pd; its gen and gencost tables are NOT used — model/units.csv gives the 54 units "
    "(gen = 1-based row of mpc.gen, at that row's bus): pmin_mw, pmax_mw, cost_at_pmin_usd_per_h, three cost "
    "segments segK_mw (width above Pmin) at segK_usd_per_mwh (convex: filled in order), min_up_h, min_down_h, "
    "ramp_up/ramp_down_mw_per_h, startup/shutdown_ramp_mw_per_h, startup_cost_usd, reserve_cap_mw, "
    "initial_status_h (+h: on for h hours before hour 1; −h: off for h hours). model/profiles.csv gives per hour "
    "(1 = 00:00–01:00 … 24) the load shape load_<season>_pu and the per-unit availability wind_pu and "
    "pv_<season>_pu. Scenario: 24 hours; the load of bus i in hour t is Pd_i × load.scale × load_<season>_pu[t]; "
    "each renewable plant's availability is capacity_mw × its profile (wind_pu, or pv_<season>_pu), its output any "
    "value in [0, availability] at no cost (curtailment free). "
    "Constraints, every hour t (a value may pass a limit by at most 0.01 MW): power balance Σ units + Σ renewables "
    "= Σ loads (lossless DC, within 0.01 MW); a unit off (on = 0) produces 0, on produces in [Pmin, Pmax]; ramps from "
    "hour 2: p_t − p_{t−1} ≤ ramp_up·u_{t−1} + startup_ramp·max(0, u_t − u_{t−1}) and p_{t−1} − p_t ≤ "
    "ramp_down·u_t + shutdown_ramp·max(0, u_{t−1} − u_t) (hour 1 is free of the previous day's output); minimum up "
    "and down times: every run of consecutive on (off) hours that ends inside the horizon lasts at least min_up_h "
    "(min_down_h), the hours before hour 1 counted from initial_status_h (runs still going at hour 24 are not "
    "checked); spinning reserve Σ over on units of min(Pmax − p, reserve_cap_mw) ≥ reserve.requirement_pct_of_load "
    "% of the hour's total load; DC flows: the branch flows f = PTDF × (net bus injections) with the DC model of "
    "MATPOWER's makeBdc (b = 1/(x·tap), tap 0 = 1, angles of the type-3 bus zero — that bus absorbs any "
    "imbalance), |f| ≤ rate_a in the intact network, and after each listed single-branch outage "
    "(security.contingencies) every other branch's |f + LODF[:, k]·f_k| ≤ post_contingency_rating_factor × "
    "rate_c (LODF[l, k] = H[l, k]/(1 − H[k, k]), H[l, k] = PTDF[l, from_k] − PTDF[l, to_k]). "
    "Cost (USD) = Σ_t Σ_units [on·cost_at_pmin + the segments filled above Pmin] + Σ start-ups × startup_cost_usd "
    "(a start-up = off in the previous hour, or initially off, and on in this one); no shut-down cost. "
    "Deliverables: (1) decision — for every unit its on (0/1) and p_mw per hour and for every renewable plant its "
    "p_mw per hour; every constraint is re-checked in every hour for the intact network and every listed outage; "
    "an infeasible schedule scores 0; a feasible one scores 1 if its cost is within the reference's proven MIP gap "
    "(the bound, the incumbent and the gap are in the result's evidence; stated gap 5e-4), else "
    "1 − (cost − reference cost)/reference cost. (2) binding_constraints — every (hour, branch_id, contingency_id) "
    "('N-0' for the intact network; the outaged branch itself is not monitored after its own outage) whose flow in "
    "YOUR OWN dispatch is within binding_tolerance_mw of its limit (|f| ≥ limit − tolerance), each once; scored as "
    "the share right over the union of listed and expected triples, against psab's recomputation of your dispatch "
    "(a triple whose distance to the limit lies within 0.01 MW of the tolerance counts either way; a repeated "
    "triple is one more wrong item). Weights: decision 4, binding_constraints 1."
)

_STATEMENT_RU = (
    "Выбор состава включённого оборудования на сутки вперёд с учётом надёжности сети (SCUC) для схемы IEEE 118. "
    "Модель: model/pglib_opf_case118_ieee.m (формат MATPOWER, PGLib-OPF v23.07) задаёт сеть (r, x, коэффициент "
    "трансформации, rate_a, rate_c ветвей; все ветви включены) и нагрузки узлов Pd; таблицы gen и gencost файла НЕ "
    "используются — model/units.csv задаёт 54 блока (gen — номер строки mpc.gen с единицы, в узле этой строки): "
    "pmin_mw, pmax_mw, cost_at_pmin_usd_per_h, три участка затрат segK_mw (ширина над Pmin) по segK_usd_per_mwh "
    "(выпуклые: заполняются по порядку), min_up_h, min_down_h, ramp_up/ramp_down_mw_per_h, "
    "startup/shutdown_ramp_mw_per_h, startup_cost_usd, reserve_cap_mw, initial_status_h (+h: включён h часов до "
    "часа 1; −h: отключён h часов). model/profiles.csv задаёт по часам (1 = 00:00–01:00 … 24) форму нагрузки "
    "load_<season>_pu и доступность в о.е. wind_pu и pv_<season>_pu. Сценарий: 24 часа; нагрузка узла i в час t — "
    "Pd_i × load.scale × load_<season>_pu[t]; доступная мощность станции ВИЭ — capacity_mw × её профиль (wind_pu "
    "или pv_<season>_pu), выдача — любое значение в [0, доступная] без затрат (ограничение бесплатно). "
    "Ограничения в каждый час t (превышение предела допускается не более чем на 0,01 МВт): баланс Σ блоков + Σ ВИЭ = "
    "Σ нагрузок (DC без потерь, с точностью 0,01 МВт); отключённый блок (on = 0) выдаёт 0, включённый — в [Pmin, "
    "Pmax]; скорость изменения мощности со второго часа: p_t − p_{t−1} ≤ ramp_up·u_{t−1} + "
    "startup_ramp·max(0, u_t − u_{t−1}) и p_{t−1} − p_t ≤ ramp_down·u_t + shutdown_ramp·max(0, u_{t−1} − u_t) (час 1 "
    "не связан с мощностью предыдущих суток); минимальное время работы и простоя: каждый отрезок подряд идущих часов "
    "во включённом (отключённом) состоянии, заканчивающийся внутри горизонта, длится не меньше min_up_h (min_down_h), "
    "часы до часа 1 берутся из initial_status_h (отрезки, продолжающиеся в час 24, не проверяются); вращающийся резерв "
    "Σ по включённым блокам min(Pmax − p, reserve_cap_mw) ≥ reserve.requirement_pct_of_load % суммарной нагрузки "
    "часа; перетоки DC: f = PTDF × (небалансы узлов) по модели makeBdc MATPOWER (b = 1/(x·tap), tap 0 = 1, угол "
    "узла типа 3 равен нулю — он берёт небаланс), |f| ≤ rate_a в нормальной схеме, а после каждого перечисленного "
    "отключения одной ветви (security.contingencies) для каждой другой ветви |f + LODF[:, k]·f_k| ≤ "
    "post_contingency_rating_factor × rate_c (LODF[l, k] = H[l, k]/(1 − H[k, k]), H[l, k] = PTDF[l, from_k] − "
    "PTDF[l, to_k]). Затраты (долл.) = Σ_t Σ_блоков [on·cost_at_pmin + заполненные участки над Pmin] + Σ пусков × "
    "startup_cost_usd (пуск — блок отключён в предыдущий час или изначально и включён в этот); затрат на останов нет. "
    "Результаты: (1) decision — для каждого блока on (0/1) и p_mw по часам, для каждой станции ВИЭ p_mw по часам; все "
    "ограничения проверяются заново в каждый час в нормальной схеме и после каждой аварии; недопустимый график "
    "оценивается 0; допустимый — 1, если его затраты в пределах доказанного разрыва MIP эталона (граница, решение и "
    "разрыв — в evidence результата; заданный разрыв 5e-4), иначе 1 − (затраты − затраты эталона)/затраты эталона. "
    "(2) binding_constraints — каждая тройка (hour, branch_id, contingency_id) ('N-0' — нормальная схема; "
    "отключённая ветвь после своей аварии не контролируется), у которой переток в ВАШЕМ режиме в пределах "
    "binding_tolerance_mw от предела (|f| ≥ предел − допуск), по одному разу; оценка — доля верных от объединения "
    "указанных и ожидаемых троек по пересчёту psab вашего режима (тройка, у которой запас до предела отличается от "
    "допуска не более чем на 0,01 МВт, засчитывается в любом случае; повтор — ещё одна неверная запись). Веса: "
    "decision 4, binding_constraints 1."
)

PRESENTATION = {
    "en": {"title": "Security-constrained unit commitment study (IEEE 118, 24 h, N-1 DC)",
           "statement": _STATEMENT_EN,
           "answer_notes": ("One JSON object with binding_constraints and decision; ids are strings as listed; "
                            "score = (1·binding_constraints + 4·decision)/5 when the schedule meets every constraint, else 0.")},
    "ru": {"title": "Выбор состава оборудования с учётом надёжности (IEEE 118, 24 ч, N-1 по DC)",
           "statement": _STATEMENT_RU,
           "answer_notes": ("Один объект JSON с binding_constraints и decision; идентификаторы — строки, как в задаче; "
                            "оценка = (1·binding_constraints + 4·decision)/5, если график выполняет все ограничения, иначе 0."),
           "hard_constraints": (
               "в каждый час: баланс мощности, пределы блоков, скорости изменения мощности, минимальные времена "
               "работы и простоя, вращающийся резерв",
               "в каждый час: DC-перетоки не выше rate_a в нормальной схеме и не выше "
               "post_contingency_rating_factor × rate_c после каждой перечисленной аварии",
           )},
}

HARD_CONSTRAINTS = (
    "every hour: power balance, unit limits, ramps, minimum up and down times, spinning reserve",
    "every hour: DC flows within rate_a in the intact network and within post_contingency_rating_factor × rate_c "
    "after every listed single-branch outage",
)

EXPERT = {
    "en": {"statement": (
        "Day-ahead SCUC of model/pglib_opf_case118_ieee.m (network and Pd only) with the 54 units of model/units.csv "
        "and the profiles of model/profiles.csv, scenario in study.json: 24 h, bus load Pd × scale × shape, free "
        "renewable curtailment; three-segment convex costs above Pmin, start-up costs, ramps (hour 1 free), minimum "
        "up/down with the initial state, 10-minute spinning reserve min(Pmax − p, reserve_cap) ≥ the stated share of "
        "load, lossless DC flows (makeBdc, type-3 bus slack) within rate_a in N-0 and "
        "post_contingency_rating_factor × rate_c after each listed outage (LODF), 0.01 MW slack. Deliver the "
        "schedule (scored against the reference's proven MIP bound: within its gap = 1) and the (hour, branch, "
        "contingency) limits binding within binding_tolerance_mw in your own dispatch.")},
    "ru": {"statement": (
        "SCUC на сутки вперёд для model/pglib_opf_case118_ieee.m (только сеть и Pd) с 54 блоками model/units.csv и "
        "профилями model/profiles.csv, сценарий в study.json: 24 ч, нагрузка узла Pd × scale × форма, бесплатное "
        "ограничение ВИЭ; выпуклые затраты из трёх участков над Pmin, затраты на пуск, скорости (час 1 свободен), "
        "минимальные времена работы/простоя с начальным состоянием, 10-минутный вращающийся резерв "
        "min(Pmax − p, reserve_cap) ≥ заданной доли нагрузки, DC-перетоки без потерь (makeBdc, баланс в узле типа 3) "
        "не выше rate_a в N-0 и post_contingency_rating_factor × rate_c после каждой аварии (LODF), допуск 0,01 МВт. "
        "Сдать график (оценка относительно доказанной границы MIP эталона: в пределах разрыва — 1) и тройки (час, "
        "ветвь, авария), достигнутые в пределах binding_tolerance_mw в вашем режиме.")},
}

JUDGED_BY = {
    "surrogate": {
        "en": ("psab's numpy DC model: PTDF and LODF of the case (psab.surrogates.dc_flow), every listed outage in "
               "every hour at once; every unit constraint re-checked in every hour; the cost recomputed from the "
               "schedule and scored against the reference MILP's proven bound."),
        "ru": ("DC-модель psab на numpy: PTDF и LODF схемы, все аварии во все часы сразу; все ограничения блоков "
               "проверяются в каждый час; затраты пересчитываются по графику и сравниваются с доказанной границей "
               "MILP эталона."),
    },
}


def validate_inputs(inputs: Mapping[str, Any]) -> list[str]:
    problems = study_model.deliverable_problems(SPEC, inputs)
    try:
        st = study_of(inputs)
    except InvalidTaskError as exc:
        return [*problems, f"/: {exc}"]
    if inputs.get("horizon_h") != HOURS:
        problems.append(f"/horizon_h: must be {HOURS}")
    if np.any(st.pmax.sum() < st.load_total + st.reserve_req):
        problems.append("/load/scale: the units cannot cover load + reserve in some hour")
    if np.any(st.reserve_cap.sum() < st.reserve_req):
        problems.append("/reserve/requirement_pct_of_load: above the reserve all the units can carry (Σ reserve_cap_mw)")
    return problems


def _obj_schema(props: dict[str, Any], required: list[str]) -> dict[str, Any]:
    return {"type": "object", "properties": props, "required": required}


INPUTS_SCHEMA = _obj_schema({
    "case": _obj_schema({"name": {"type": "string"}}, ["name"]),
    "model": {"type": "object"},
    "deliverables": {"type": "array"},
    "horizon_h": {"type": "integer"},
    "load": _obj_schema({"season": {"enum": ["winter", "summer"]}, "scale": {"type": "number", "exclusiveMinimum": 0, "maximum": 2}},
                        ["season", "scale"]),
    "renewables": {"type": "array", "maxItems": 50, "items": _obj_schema({
        "id": {"type": "string", "minLength": 1}, "kind": {"enum": ["wind", "pv"]}, "bus_id": {"type": "string"},
        "capacity_mw": {"type": "number", "minimum": 0, "maximum": 5000}}, ["id", "kind", "bus_id", "capacity_mw"])},
    "reserve": _obj_schema({"requirement_pct_of_load": {"type": "number", "minimum": 0, "maximum": 50}}, ["requirement_pct_of_load"]),
    "security": _obj_schema({
        "post_contingency_rating_factor": {"type": "number", "exclusiveMinimum": 0, "maximum": 3},
        "contingencies": {"type": "array", "maxItems": 500,
                          "items": _obj_schema({"id": {"type": "string", "minLength": 1}, "branch_id": {"type": "string"}},
                                               ["id", "branch_id"])}},
        ["post_contingency_rating_factor", "contingencies"]),
    "binding_tolerance_mw": {"type": "number", "exclusiveMinimum": 0, "maximum": 100},
}, ["case", "model", "deliverables", "horizon_h", "load", "renewables", "reserve", "security", "binding_tolerance_mw"])


SPEC = register(FamilySpec(
    id=STUDY_ID,
    area="microgrids_dispatch",
    scoring_kind="study",
    tier="study",
    confidence="medium",
    version="1",
    provenance=(
        {"title": "PGLib-OPF v23.07, pglib_opf_case118_ieee (network, ratings, bus loads)",
         "locator": f"github.com/power-grid-lib/pglib-opf, commit {PGLIB_COMMIT}; data CC BY 4.0 (psab/studies/data/LICENSE-pglib-opf)",
         "note": "Branch reactances, taps and rate_a/rate_c as published; the gen/gencost tables are not used (PGLib keeps 19 of the 54 rows as generators, the rest as condensers).",
         "confidence": "high"},
        {"title": "MATPOWER 7.1 case118.m (generator Pmax and quadratic costs of the 54 units)",
         "locator": "github.com/MATPOWER/matpower data/case118.m (BSD-3); the same rows as pandapower.networks.case118",
         "note": "Pmax and c1, c2 of every unit; the costs are linearized into three equal-width secant segments above Pmin.",
         "confidence": "high"},
        {"title": "IEEE Reliability Test System Task Force, 'The IEEE Reliability Test System - 1996', IEEE Trans. Power Syst. 14(3), 1999",
         "locator": "Table 5 (hourly load in % of the daily peak, winter and summer weekday) — the load shapes; Table 7 (unit operating data by class) — the structure of psab's unit-class rule",
         "note": "The load shapes are copied; Pmin shares, minimum up/down times, ramps and start-up costs per size class (UNIT_CLASSES) are psab's stated assumptions in RTS-96's structure, not copied values.",
         "confidence": "low"},
        {"title": "pvlib (Haurwitz clear-sky GHI) and windpowerlib (OEDB power curve of the Enercon E-126/4200)",
         "locator": "pvlib.location.Location.get_clearsky(model='haurwitz'); windpowerlib.WindTurbine('E-126/4200').power_curve",
         "note": "PV per-unit = clear-sky GHI/1000 at Columbus, Ohio on 2019-01-16 and 2019-07-17; wind per-unit from the power curve at a stated 8.5 ± 2.5 m/s nocturnal-jet diurnal speed series (a stated shape, not a measurement).",
         "confidence": "medium"},
        {"title": "Morales-España, Latorre & Ramos, 'Tight and compact MILP formulation for the thermal unit commitment problem', IEEE Trans. Power Syst. 28(4), 2013; Rajan & Takriti, IBM RC23628 (2005)",
         "locator": "three-binary (u, v, w) logic, ramps with start-up/shut-down ramps, minimum up/down turn-on/turn-off inequalities",
         "note": "The reference MILP's formulation; N-1 by LODF (Wood & Wollenberg 3rd ed. §7.3) with constraint generation.",
         "confidence": "high"},
    ),
    submission_schema=submission_schema,
    hard_constraints=HARD_CONSTRAINTS,
    metrics=(),
    tolerances={"relative": 1e-3, "absolute_floors": {"default": 1e-6}, "objective": {"relative": 1e-4, "absolute": 1.0}},
    presentation=PRESENTATION,
    backends=("surrogate",),
    solve=solve,
    evaluate=evaluate,
    generate=generate,
    objective_sense="minimize",
    objective_unit="USD",
    objective_scale_floor=1.0,
    accept=accept,
    inputs_schema=INPUTS_SCHEMA,
    validate_inputs=validate_inputs,
    trivial_answer=do_nothing_answer,
    expert=EXPERT,
    judged_by=JUDGED_BY,
    levels=(1,),
    naive_answer=naive_answer,
    deliverables=DELIVERABLES,
    materialize=materialize,
))
