"""ANDES time-domain simulation of classical-model machines (the ``andes`` backend).

ANDES (Cui, Li, Tomsovic, "Hybrid symbolic-numeric framework for power system modeling and
analysis", IEEE Trans. Power Systems 36(2), 2021; https://docs.andes.app) generates the numerical
code of its models from their symbolic definitions the first time a ``System`` is created (about
30–45 s on this machine) and loads it afterwards (about 1 s per ``System``). psab keeps that code in
a directory it controls — ``$PSAB_ANDES_PYCODE`` or ``~/.cache/psab/andes-<version>/pycode`` — and
generates it once per machine with :func:`warm` (``python -m psab.backends.andes_tds`` does it too),
never inside an evaluation: :func:`system` refuses to run code generation implicitly.

Systems are built in code (Bus, Line, PV, Slack, GENCLS, Fault, Toggle), never from spreadsheets.
The integrator is ANDES's implicit trapezoidal rule with the fixed step :data:`STEP_S`; fault and
breaker instants are ANDES switch times, hit exactly. A run stops early by the first-swing criterion
(:func:`simulate`). ``andes`` is imported inside functions only, so ``import psab`` stays light.
"""

from __future__ import annotations

import math
import os
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import numpy as np

#: Fixed integration step of ANDES's trapezoidal rule (s).
STEP_S = 0.005
#: The fault is applied at this instant of the ANDES run (ANDES stores pre-fault voltages at the
#: first switch time, so the fault cannot sit at t = 0); results are shifted back to t = 0.
T_FAULT_S = 0.02
#: Rotor angle beyond which a run is declared unstable (rad): past the post-fault unstable
#: equilibrium an undamped classical machine only accelerates, so 180° is reached for certain.
UNSTABLE_RAD = math.pi


def pycode_dir() -> Path:
    """Where psab keeps ANDES's generated code."""
    override = os.environ.get("PSAB_ANDES_PYCODE")
    if override:
        return Path(override)
    from importlib.metadata import version

    return Path.home() / ".cache" / "psab" / f"andes-{version('andes')}" / "pycode"


def is_warm() -> bool:
    return (pycode_dir() / "__init__.py").is_file()


def _quiet() -> None:
    import andes

    andes.config_logger(stream_level=50)


def warm() -> Path:
    """Generate ANDES's model code into :func:`pycode_dir` (once per machine; ~30–45 s).

    Safe against concurrent callers (test workers, run workers on a fresh machine): one process
    generates under an exclusive lock, into a temporary directory that is renamed into place
    only when complete, so no process ever loads half-written code.
    """
    import fcntl
    import shutil

    import andes

    _quiet()
    path = pycode_dir()
    path.parent.mkdir(parents=True, exist_ok=True)
    with open(path.parent / ".pycode.lock", "w") as lock:
        fcntl.flock(lock, fcntl.LOCK_EX)
        if not is_warm():
            tmp = path.parent / f"{path.name}.tmp-{os.getpid()}"
            shutil.rmtree(tmp, ignore_errors=True)
            tmp.mkdir()
            andes.prepare(quick=True, incremental=False, pycode_path=str(tmp))
            shutil.rmtree(path, ignore_errors=True)  # an incomplete directory left by an older psab
            os.rename(tmp, path)
    return path


def system() -> Any:
    """A fresh, empty ``andes.System`` loading the code in :func:`pycode_dir` (warming it first when
    absent: the one-time cost falls on the first call on a machine, never again). Loading costs about
    1 s per system (ANDES re-imports its generated modules; a deep copy of an empty template system
    does not survive ``setup`` in ANDES 2.0.0)."""
    import andes

    if not is_warm():
        warm()
    _quiet()
    return andes.System(pycode_path=str(pycode_dir()), default_config=True, no_output=True, autogen_stale=False)


@dataclass(frozen=True)
class Machine:
    """A classical generator: terminal bus, transient reactance and inertia on its own rating."""

    bus: str
    sn_mva: float
    xd1_pu: float
    h_s: float
    p_pu: float
    v_terminal_pu: float
    frequency_hz: float


@dataclass(frozen=True)
class Network:
    """Buses (id → kV), lines (id, from, to, x in pu of the system base), the machine, the
    infinite bus (a slack bus held at v∠0), the faulted bus with its fault reactance (pu of the
    system base) and the lines opened at clearing."""

    buses: tuple[str, ...]
    lines: tuple[tuple[str, str, str, float], ...]
    machine: Machine
    infinite_bus: str
    v_inf_pu: float
    fault_bus: str
    fault_x_pu: float
    trip_lines: tuple[str, ...] = field(default=())
    base_mva: float = 100.0
    vn_kv: float = 100.0


@dataclass(frozen=True)
class Run:
    stable: bool
    t_s: np.ndarray
    delta_rad: np.ndarray
    delta0_rad: float


class Simulator:
    """One ANDES system for ``net``, built, solved by power flow and initialized for TDS, for one
    run. (A fresh system per run: re-running one system after ``TDS.reinit`` with moved event times
    did not re-apply the fault in ANDES 2.0.0, so psab does not rely on it.)"""

    def __init__(self, net: Network, horizon_s: float = 4.0) -> None:
        ss = system()
        sb, vn = net.base_mva, net.vn_kv
        for b in net.buses:
            ss.add("Bus", {"idx": b, "name": b, "Vn": vn})
        for idx, a, b, x in net.lines:
            ss.add("Line", {"idx": idx, "bus1": a, "bus2": b, "r": 0.0, "x": x, "b": 0.0, "Vn1": vn, "Vn2": vn, "Sn": sb})
        m = net.machine
        ss.add("PV", {"idx": "PV1", "bus": m.bus, "p0": m.p_pu, "v0": m.v_terminal_pu, "Vn": vn, "Sn": sb,
                      "pmax": 99.0, "pmin": -99.0, "qmax": 99.0, "qmin": -99.0})
        ss.add("Slack", {"idx": "SL1", "bus": net.infinite_bus, "v0": net.v_inf_pu, "a0": 0.0, "Vn": vn, "Sn": sb,
                         "pmax": 99.0, "pmin": -99.0, "qmax": 99.0, "qmin": -99.0})
        ss.add("GENCLS", {"idx": "G1", "bus": m.bus, "gen": "PV1", "xd1": m.xd1_pu, "M": 2.0 * m.h_s, "D": 0.0,
                          "ra": 0.0, "fn": m.frequency_hz, "Sn": m.sn_mva, "Vn": vn})
        tc = T_FAULT_S + 0.1
        ss.add("Fault", {"idx": "F1", "bus": net.fault_bus, "tf": T_FAULT_S, "tc": tc, "xf": net.fault_x_pu, "rf": 0.0})
        for i, line in enumerate(net.trip_lines):
            ss.add("Toggle", {"idx": f"T{i}", "model": "Line", "dev": line, "t": tc})
        ss.setup()
        ss.PFlow.run()
        if not ss.PFlow.converged:
            raise ValueError("ANDES power flow did not converge")
        cfg = ss.TDS.config
        # fixed step, allowed to shrink only where Newton fails to converge (at the fault instant)
        cfg.tf, cfg.tstep, cfg.fixt, cfg.shrinkt, cfg.criteria, cfg.no_tqdm = T_FAULT_S + horizon_s, STEP_S, 1, 1, 0, 1
        ss.TDS.init()
        self.ss = ss
        self.a_delta, self.a_omega = int(ss.GENCLS.delta.a[0]), int(ss.GENCLS.omega.a[0])
        self.delta0_rad = float(ss.GENCLS.delta0.v[0])
        self.runs = 0

    def run(self, t_clear_s: float) -> Run:
        """Fault at t = 0 (ANDES time :data:`T_FAULT_S`), cleared at ``t_clear_s`` together with the
        opening of the network's ``trip_lines``; trapezoidal rule, fixed step :data:`STEP_S`.

        First-swing criterion: stable when the rotor speed is back at synchronous speed after
        clearing with δ below 180°; unstable when δ (against the infinite bus) reaches 180°."""
        ss = self.ss
        if self.runs:
            raise RuntimeError("a Simulator runs once; build another for the next clearing time")
        self.runs += 1
        tc = T_FAULT_S + t_clear_s
        ss.Fault.tc.v[:] = tc
        if ss.Toggle.n:
            ss.Toggle.t.v[:] = tc
        ss.store_switch_times(ss.exist.tds)
        ss.TDS._switch_idx = 0
        ss.TDS.busted = False
        a_delta, a_omega = self.a_delta, self.a_omega
        verdict: dict[str, bool] = {}

        def stop(t: float, sysm: Any) -> None:
            x = sysm.dae.x
            if x[a_delta] >= UNSTABLE_RAD:
                verdict["stable"] = False
            elif t > tc + 1e-9 and x[a_omega] <= 1.0:
                verdict["stable"] = True
            else:
                return
            sysm.TDS.busted = True

        ss.TDS.callpert = stop
        ss.TDS.run(no_summary=True)
        t = np.asarray(ss.dae.ts.t, dtype=float) - T_FAULT_S
        d = np.asarray(ss.dae.ts.x[:, a_delta], dtype=float)
        keep = t >= -1e-12
        t, d = t[keep], d[keep]
        if "stable" not in verdict:
            raise ValueError(f"ANDES TDS ended without a verdict at t = {float(t[-1]) if len(t) else 0.0:.4f} s: "
                             f"{ss.TDS.err_msg}")
        return Run(stable=verdict["stable"], t_s=t, delta_rad=d, delta0_rad=self.delta0_rad)


def simulate(net: Network, t_clear_s: float, horizon_s: float = 4.0) -> Run:
    """One run of :class:`Simulator` on a freshly built system."""
    return Simulator(net, horizon_s).run(t_clear_s)


def critical_clearing_time(net: Network, seed_s: float, precision_s: float,
                           half_width_s: float) -> tuple[float, float, Run]:
    """Bisection on the clearing time with ANDES runs, seeded with a bracket
    [seed − half_width, seed + half_width] (the surrogate's critical clearing time); the bracket is
    widened (doubled) until its ends are stable and unstable, then halved to ``precision_s``.
    Returns (t_stable, t_unstable, the run at t_stable)."""
    w = half_width_s
    while True:
        lo, hi = max(seed_s - w, 1e-3), seed_s + w
        run_lo = simulate(net, lo)
        if run_lo.stable and not simulate(net, hi).stable:
            break
        w *= 2.0
        if w > 5.0:
            raise ValueError("ANDES finds no critical clearing time near the seed")
    while hi - lo > precision_s:
        mid = 0.5 * (lo + hi)
        run = simulate(net, mid)
        if run.stable:
            lo, run_lo = mid, run
        else:
            hi = mid
    return lo, hi, run_lo


if __name__ == "__main__":  # pragma: no cover - the one-time warm-up step
    print(f"ANDES code in {warm()}")
