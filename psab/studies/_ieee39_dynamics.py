"""The IEEE 39-bus (New England) system with detailed dynamic models, in ANDES: the study's engine.

The model an agent receives is two PSS/E files:

- ``ieee39.raw`` — the PSS/E v33 power-flow case shipped with ANDES 2.0.0 (``andes/cases/ieee39/ieee39.raw``,
  "NEW ENGLAND TEST SYSTEM, 39 BUSES … UPDATED BY JOSE CONTO"), copied byte for byte from the installed
  package (ANDES is GPL-3.0; psab does not vendor it, it copies the file from the package the toolbox pins);
- ``ieee39.dyr`` — written by psab from :data:`DYR_ROWS`: the GENROU, IEEEX1 and TGOV1 parameters of
  ANDES's own ``ieee39_full.xlsx`` (the same package; the standard New England data of Athay, Podmore and
  Virmani, IEEE PAS-98(2), 1979, as re-expressed by ANDES), on the .raw's machine bases (MBASE): where
  the spreadsheet's ``Sn`` differs from the .raw's MBASE (bus 30: 1040 MVA there, 275 MVA in the .raw)
  the inertia and reactances are converted to the .raw's base so that each machine is the same physical
  machine. The spreadsheet's PSS (IEEEST) is not carried over: the study's machines have a machine, an
  exciter and a governor model each.

:class:`Simulation` builds one ANDES system from the two files for one operating point (load scale and
dispatch), with a ``Fault`` at every listed bus and a ``Toggle`` on every listed line, all parked
beyond the horizon, and runs one scenario after another on it (``TDS.reinit`` between runs, as
:class:`psab.backends.andes_tds.GridSimulator` does for the compact family).

At clearing, ANDES's Newton iteration starts from its restored pre-fault algebraic values
(``Fault.config.restore = 1``) with the bus voltage angles re-guessed (:meth:`Simulation._angle_guess`):
pre-fault angles plus the rotor-angle change since the fault, spread over the buses by a DC network
with every machine an internal node behind x′_d. Without it ANDES's Newton iteration diverges at the
clearing step after faults longer than ~0.15 s on this case (the fault-on bus angles are far from the
post-fault solution); the converged post-fault solution is the same from either guess.
"""

from __future__ import annotations

import contextlib
import math
import os
import tempfile
import threading
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import numpy as np

#: ANDES time of the fault (the pre-fault state is initialised at t = 0; the first switch time
#: must be after it). Times in the study are from the fault instant.
T_FAULT_S = 0.02
#: Parked events sit here (s of ANDES time), beyond any horizon.
PARKED_S = 1000.0
#: Bolted three-phase fault: ANDES Fault reactance to ground (pu of the system base), resistance 0.
FAULT_X_PU = 1e-4

#: GENROU (T'do, T''do, T'qo, T''qo, H, D, Xd, Xq, X'd, X'q, X''d, Xl, S(1.0), S(1.2)),
#: IEEEX1 (TR, KA, TA, TB, TC, VRMAX, VRMIN, KE, TE, KF, TF, Switch, E1, SE(E1), E2, SE(E2)) and
#: TGOV1 (R, T1, VMAX, VMIN, T2, T3, Dt) per machine bus, from ANDES 2.0.0's ieee39_full.xlsx
#: (GENROU, IEEEX1, TGOV1N sheets; H = M / 2), on the spreadsheet's machine base ``XLSX_SN_MVA``.
DYR_ROWS: tuple[tuple[int, tuple[float, ...], tuple[float, ...], tuple[float, ...]], ...] = (
    (30, (10.2, 0.03, 1.5, 0.04, 4.2, 0.0, 1.0, 0.69, 0.31, 0.31, 0.00792, 0.125, 0.0, 0.0), (0.0, 10.1, 0.06, 0.0, 0.0, 8.0, -8.0, -0.05, 0.25, 0.23, 1.3, 0.0, 1.7, 0.5, 3.0, 2.0), (0.05, 0.05, 1.01, 0.1, 1.0, 2.1, 0.0)),
    (31, (6.56, 0.03, 1.5, 0.04, 3.03, 0.0, 2.95, 2.82, 0.697, 0.697, 0.29779, 0.35, 0.0, 0.0), (0.0, 10.1, 0.05, 0.0, 0.0, 5.2, -5.0, -0.05, 0.41, 0.23, 1.3, 0.0, 3.0, 0.66, 4.0, 0.88), (0.05, 0.05, 1.05, 0.1, 1.0, 2.1, 0.0)),
    (32, (5.7, 0.03, 1.5, 0.04, 3.58, 0.0, 2.495, 2.37, 0.531, 0.531, 0.02566, 0.304, 0.0, 0.0), (0.0, 10.1, 0.06, 0.0, 0.0, 5.0, -5.0, -0.02, 0.5, 0.23, 1.3, 0.0, 3.0, 0.13, 4.0, 0.34), (0.05, 0.05, 1.05, 0.1, 1.0, 2.1, 0.0)),
    (33, (5.69, 0.03, 1.5, 0.04, 2.86, 0.0, 2.62, 2.58, 0.436, 0.436, 0.00803, 0.295, 0.0, 0.0), (0.0, 10.1, 0.06, 0.0, 0.0, 5.0, -5.0, -0.05, 0.5, 0.23, 1.3, 0.0, 3.0, 0.08, 4.0, 0.31), (0.05, 0.05, 1.05, 0.1, 1.0, 2.1, 0.0)),
    (34, (5.4, 0.03, 0.44, 0.04, 2.6, 0.0, 6.7, 6.2, 1.32, 1.32, 0.00571, 0.54, 0.0, 0.0), (0.0, 40.0, 0.02, 0.0, 0.0, 9.9, -9.9, -0.04, 0.785, 0.23, 1.3, 0.0, 3.0, 0.03, 4.0, 0.91), (0.05, 0.05, 1.05, 0.1, 1.0, 2.1, 0.0)),
    (35, (7.3, 0.03, 0.4, 0.04, 3.48, 0.0, 2.54, 2.41, 0.5, 0.5, 0.46538, 0.224, 0.0, 0.0), (0.0, 10.1, 0.02, 0.0, 0.0, 5.0, -5.0, 1.0, 0.471, 0.23, 1.3, 0.0, 3.0, 0.08, 4.0, 0.25), (0.05, 0.05, 1.05, 0.1, 1.0, 2.1, 0.0)),
    (36, (5.66, 0.03, 1.5, 0.04, 2.64, 0.0, 2.95, 2.92, 0.49, 0.49, 0.02141, 0.322, 0.0, 0.0), (0.0, 40.0, 0.02, 0.0, 0.0, 6.5, -6.5, 1.0, 0.73, 0.23, 1.3, 0.0, 3.0, 0.03, 4.0, 0.74), (0.05, 0.05, 1.05, 0.1, 1.0, 2.1, 0.0)),
    (37, (6.7, 0.03, 0.41, 0.04, 2.43, 0.0, 2.9, 2.8, 0.57, 0.57, 0.06076, 0.28, 0.0, 0.0), (0.0, 10.1, 0.02, 0.0, 0.0, 5.0, -5.0, -0.05, 0.528, 0.23, 1.3, 0.0, 3.0, 0.09, 4.0, 0.28), (0.05, 0.05, 1.05, 0.1, 1.0, 2.1, 0.0)),
    (38, (4.79, 0.03, 1.96, 0.04, 3.45, 0.0, 2.106, 2.05, 0.57, 0.57, 0.01174, 0.298, 0.0, 0.0), (0.0, 40.0, 0.02, 0.0, 0.0, 9.9, -9.9, 1.0, 0.95, 0.23, 1.3, 0.0, 3.0, 0.03, 4.0, 0.85), (0.05, 0.05, 1.05, 0.1, 1.0, 2.1, 0.0)),
    (39, (7.0, 0.03, 0.7, 0.04, 50.0, 0.0, 0.2, 0.19, 0.06, 0.06, 0.0026, 0.03, 0.0, 0.0), (0.0, 10.1, 0.02, 0.0, 0.0, 9.9, -9.9, 1.0, 0.95, 0.23, 1.3, 0.0, 3.0, 0.03, 4.0, 0.85), (0.05, 0.05, 1.05, 0.1, 1.0, 2.1, 0.0)),
)
#: The spreadsheet's machine bases (MVA) where they differ from the .raw's MBASE.
XLSX_SN_MVA = {30: 1040.0}
#: The .raw's MBASE (MVA) of those machines.
RAW_MBASE_MVA = {30: 275.0}
#: Generators of the .raw that are wind plants (WMOD = 2) without a dynamic model: out of service.
WIND_BUSES = (2, 10, 20, 25)
RAW_NAME = "ieee39.raw"
DYR_NAME = "ieee39.dyr"


def _fmt(v: float) -> str:
    return repr(float(v))


def dyr_text() -> bytes:
    """The study's .dyr (PSS/E dynamic data, one record per model, ``/``-terminated), on the .raw's
    machine bases: for a machine whose spreadsheet base differs, H × Sn_xlsx / MBASE and every
    reactance × MBASE / Sn_xlsx (the time constants and saturation are base-free)."""
    lines = ["/ IEEE 39-bus (New England) dynamic data for psab's dynamic_security_study: GENROU, IEEEX1, TGOV1",
             "/ from ANDES 2.0.0 cases/ieee39/ieee39_full.xlsx, on the MBASE of cases/ieee39/ieee39.raw"]
    for bus, g, e, t in DYR_ROWS:
        g = list(g)
        if bus in XLSX_SN_MVA:
            k = RAW_MBASE_MVA[bus] / XLSX_SN_MVA[bus]
            g[4] = g[4] / k
            for i in (6, 7, 8, 9, 10, 11):
                g[i] = g[i] * k
        lines.append(f"{bus} 'GENROU' 1 " + " ".join(_fmt(v) for v in g) + " /")
        lines.append(f"{bus} 'IEEEX1' 1 " + " ".join(_fmt(v) for v in e) + " /")
        lines.append(f"{bus} 'TGOV1' 1 " + " ".join(_fmt(v) for v in t) + " /")
    return ("\n".join(lines) + "\n").encode()


def raw_bytes() -> bytes:
    """ANDES's ieee39.raw, from the installed package."""
    import andes

    return Path(andes.get_case("ieee39/ieee39.raw")).read_bytes()


_FILES_LOCK = threading.Lock()


def model_dir() -> Path:
    """A directory holding both files, as ANDES reads files by path: under psab's cache
    (``$PSAB_CACHE_DIR`` or ``~/.cache/psab``) ``studies/ieee39-<digest>/``, named by the files'
    digest and written once, atomically (a rename), so concurrent processes share it and nothing
    is left in /tmp."""
    import hashlib

    from psab.studies._simbench_grid import cache_root

    raw, dyr = raw_bytes(), dyr_text()
    digest = hashlib.sha256(raw + b"\0" + dyr).hexdigest()[:16]
    d = cache_root() / f"ieee39-{digest}"
    with _FILES_LOCK:
        if not (d / DYR_NAME).is_file():
            d.parent.mkdir(parents=True, exist_ok=True)
            tmp = Path(tempfile.mkdtemp(prefix=f".ieee39-{digest}-", dir=d.parent))
            (tmp / RAW_NAME).write_bytes(raw)
            (tmp / DYR_NAME).write_bytes(dyr)
            try:
                os.rename(tmp, d)
            except OSError:  # another process was first: its files are the same bytes
                import shutil

                shutil.rmtree(tmp, ignore_errors=True)
        return d


_RELOAD_LOCK = threading.Lock()


@contextlib.contextmanager
def _no_pycode_reload() -> Iterator[None]:
    """ANDES 2.0.0 re-executes every module of its generated code (``importlib.reload`` of ~100
    modules, ``andes.system.codegen.import_pycode``) each time a System is created — about half of
    a 0.5 s load of this case. The code cannot change between two loads here (it is generated
    once by :func:`psab.backends.andes_tds.warm`, and loaded with ``autogen_stale=False``), so
    within this block an already imported ``pycode`` package is reused as it is; the first load
    of a process still imports it from disk."""
    import sys

    import andes.system.codegen as cg

    with _RELOAD_LOCK:
        original = cg.reload_submodules

        def reuse(module_name: str) -> Any:
            return sys.modules.get(module_name)

        cg.reload_submodules = reuse
        try:
            yield
        finally:
            cg.reload_submodules = original


@dataclass(frozen=True)
class Verdict:
    stable: bool
    #: largest rotor-angle separation reached (deg) — up to the verdict when unstable
    worst_separation_deg: float
    #: time from the fault at which the verdict was reached (s)
    t_verdict_s: float
    newton_failed: bool = False


class Simulation:
    """One ANDES system of the 39-bus case at one operating point, reused for every scenario.

    ``dispatch_mw``: active power set-points of the .raw's PV generators by bus (the slack's output is
    the power-flow result); ``load_scale``: every load's P and Q multiplied; ``fault_buses`` and
    ``trip_lines`` (``"<from>-<to>"`` of the .raw's branch records): the devices to park."""

    def __init__(self, dispatch_mw: dict[int, float], load_scale: float, fault_buses: tuple[int, ...],
                 trip_lines: tuple[str, ...], horizon_s: float, step_s: float, limit_deg: float,
                 dynamics: str = "detailed") -> None:
        import andes

        from psab.backends import andes_tds as at

        if not at.is_warm():
            at.warm()
        at._quiet()
        d = model_dir()
        kwargs: dict[str, Any] = {"setup": False, "no_output": True, "default_config": True,
                                  "pycode_path": str(at.pycode_dir()), "autogen_stale": False}
        with _no_pycode_reload():
            if dynamics == "detailed":
                ss = andes.load(str(d / RAW_NAME), addfile=str(d / DYR_NAME), **kwargs)
            else:
                ss = andes.load(str(d / RAW_NAME), **kwargs)
        if ss is None:
            raise ValueError("ANDES could not read the 39-bus case")
        self.line_of = {f"{int(a)}-{int(b)}": idx for idx, a, b in zip(ss.Line.idx.v, ss.Line.bus1.v, ss.Line.bus2.v, strict=True)}
        for b in fault_buses:
            ss.add("Fault", {"idx": f"F{b}", "bus": b, "tf": PARKED_S, "tc": PARKED_S + 1.0, "xf": FAULT_X_PU, "rf": 0.0})
        for ln in trip_lines:
            ss.add("Toggle", {"idx": f"T{ln}", "model": "Line", "dev": self.line_of[ln], "t": PARKED_S})
        if dynamics == "classical":
            self._add_classical(ss)
        pv = ss.PV
        for k, bus in enumerate(pv.bus.v):  # before setup: ANDES reads the statuses there
            if int(bus) in WIND_BUSES:
                pv.u.v[k] = 0
        ss.setup()
        for k, bus in enumerate(pv.bus.v):
            if int(bus) in dispatch_mw:
                pv.p0.v[k] = dispatch_mw[int(bus)] / ss.config.mva
        ss.PQ.p0.v[:] = np.asarray(ss.PQ.p0.v) * load_scale
        ss.PQ.q0.v[:] = np.asarray(ss.PQ.q0.v) * load_scale
        ss.PFlow.run()
        if not ss.PFlow.converged:
            raise PowerFlowFailed("ANDES power flow did not converge")
        self.slack_mw = float(ss.dae.y[ss.Slack.p.a][0]) * ss.config.mva
        self.pf_bus_v = np.asarray(ss.dae.y[ss.Bus.v.a], dtype=float).copy()
        cfg = ss.TDS.config
        cfg.tf, cfg.tstep, cfg.fixt, cfg.shrinkt, cfg.criteria, cfg.no_tqdm = T_FAULT_S + horizon_s, step_s, 1, 1, 0, 1
        cfg.method = "trapezoid"
        ss.Fault.config.restore = 1
        ss.TDS.init()
        if not ss.TDS.initialized:
            raise PowerFlowFailed("ANDES could not initialise the dynamic models at this operating point")
        self.ss = ss
        self.horizon_s = horizon_s
        self.limit_rad = math.radians(limit_deg)
        gen = ss.GENROU if dynamics == "detailed" else ss.GENCLS
        self.a_delta = np.asarray(gen.delta.a, dtype=int)
        self.delta0 = ss.dae.x[self.a_delta].copy()
        self.a_angle = np.asarray(ss.Bus.a.a, dtype=int)
        self.angle0 = ss.dae.y[self.a_angle].copy()
        self.bus_pos = {int(b): i for i, b in enumerate(ss.Bus.idx.v)}
        self.gen_pos = np.array([self.bus_pos[int(b)] for b in gen.bus.v])
        self.gen_y = 1.0 / np.asarray(gen.xd1.v, dtype=float)  # system base after setup
        self.runs = 0

    @staticmethod
    def _add_classical(ss: Any) -> None:
        """GENCLS at every non-wind generator: H and x′_d of :data:`DYR_ROWS` on the .raw's MBASE."""
        gens = {int(b): (idx, sn) for idx, b, sn in zip(ss.PV.idx.v, ss.PV.bus.v, ss.PV.Sn.v, strict=True)}
        gens |= {int(b): (idx, sn) for idx, b, sn in zip(ss.Slack.idx.v, ss.Slack.bus.v, ss.Slack.Sn.v, strict=True)}
        for bus, g, _, _ in DYR_ROWS:
            idx, sn = gens[bus]
            h, xd1 = g[4], g[8]
            if bus in XLSX_SN_MVA:
                k = RAW_MBASE_MVA[bus] / XLSX_SN_MVA[bus]
                h, xd1 = h / k, xd1 * k
            ss.add("GENCLS", {"idx": f"GC{bus}", "bus": bus, "gen": idx, "Sn": sn, "xd1": xd1, "M": 2.0 * h, "D": 0.0,
                              "ra": 0.0, "fn": 60.0, "Vn": float(ss.Bus.Vn.v[ss.Bus.idx2uid(bus)])})

    def _angle_guess(self, trip_line: str) -> None:
        """Bus angles at the clearing step: pre-fault angles + B⁻¹·(y_g·Δδ_g) on the post-fault DC
        network with each machine an internal node behind x′_d (see the module docstring)."""
        ss = self.ss
        n = len(self.bus_pos)
        b = np.zeros((n, n))
        tripped = self.line_of[trip_line]
        for idx, a, c, x, u in zip(ss.Line.idx.v, ss.Line.bus1.v, ss.Line.bus2.v, ss.Line.x.v, ss.Line.u.v, strict=True):
            if idx == tripped or u == 0:
                continue
            i, j, y = self.bus_pos[int(a)], self.bus_pos[int(c)], 1.0 / x
            b[i, i] += y
            b[j, j] += y
            b[i, j] -= y
            b[j, i] -= y
        b[self.gen_pos, self.gen_pos] += self.gen_y
        inj = np.zeros(n)
        np.add.at(inj, self.gen_pos, self.gen_y * (ss.dae.x[self.a_delta] - self.delta0))
        ss.dae.y[self.a_angle] = self.angle0 + np.linalg.solve(b, inj)
        ss.vars_to_models()

    def run(self, fault_bus: int, trip_line: str, t_clear_s: float, stop_early: bool = True) -> Verdict:
        """A bolted three-phase fault at ``fault_bus`` at t = 0, cleared at ``t_clear_s`` by opening
        ``trip_line``; unstable as soon as the largest rotor-angle separation exceeds the limit
        (the run stops there: the rest cannot change the verdict; ``stop_early=False`` runs on to
        the horizon, for checking that)."""
        ss = self.ss
        if self.runs:
            ss.TDS.reinit()
        self.runs += 1
        tf, tc = T_FAULT_S, T_FAULT_S + t_clear_s
        ss.Fault.tf.v[:], ss.Fault.tc.v[:], ss.Toggle.t.v[:] = PARKED_S, PARKED_S + 1.0, PARKED_S
        fi = ss.Fault.idx2uid(f"F{fault_bus}")
        ss.Fault.tf.v[fi], ss.Fault.tc.v[fi] = tf, tc
        ss.Toggle.t.v[ss.Toggle.idx2uid(f"T{trip_line}")] = tc
        ss.switch_dict.clear()
        ss.store_switch_times(ss.exist.tds)
        ss.TDS._switch_idx = 0
        ss.TDS.busted = False
        a_delta, limit = self.a_delta, self.limit_rad
        state: dict[str, Any] = {"worst": 0.0, "stable": True, "guessed": False, "t": 0.0}

        def watch(t: float, sysm: Any) -> None:
            d = sysm.dae.x[a_delta]
            sep = float(d.max() - d.min())
            state["worst"] = max(state["worst"], sep)
            if sep > limit and state["stable"]:
                state["stable"], state["t"] = False, float(t) - T_FAULT_S
                if stop_early:
                    sysm.TDS.busted = True
                    return
            if not state["guessed"] and t > tc + 1e-9:
                self._angle_guess(trip_line)
                state["guessed"] = True

        ss.TDS.callpert = watch
        ss.TDS.run(no_summary=True)
        t = np.asarray(ss.dae.ts.t, dtype=float)
        if not state["stable"]:
            return Verdict(False, math.degrees(state["worst"]), state["t"])
        x = np.asarray(ss.dae.ts.x[:, a_delta], dtype=float)
        sep = x.max(axis=1) - x.min(axis=1)
        worst = max(state["worst"], float(sep.max()))
        t_end = float(t[-1]) - T_FAULT_S
        if ss.TDS.busted or t_end < self.horizon_s - 1e-6:
            # Newton failed (the step shrank to nothing): counted as loss of stability (stated)
            return Verdict(False, math.degrees(worst), t_end, newton_failed=True)
        if worst > limit:
            return Verdict(False, math.degrees(worst), t_end)
        return Verdict(True, math.degrees(worst), t_end)


class PowerFlowFailed(ValueError):
    """The operating point has no ANDES power flow or dynamic initialisation."""


if __name__ == "__main__":  # pragma: no cover - a quick look at the case
    sim = Simulation({}, 1.0, (16,), ("16-17",), 2.0, 0.01, 180.0)
    print("slack MW", sim.slack_mw, os.getpid())
    print(sim.run(16, "16-17", 0.1))
