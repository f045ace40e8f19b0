"""Lead-station handover and secondary-frequency allocation in a multi-agent scheme.

A multi-agent secondary-frequency controller of an active distribution network has one lead
agent that computes the area's secondary response and shares it among the stations it can
reach. When the lead fails the surviving agents elect a new one over the communication graph
and the new lead re-allocates the response. The rules are the case's own (stated in the task):

- **election** — the healthy stations and the healthy links between two healthy stations form
  the surviving graph; a station is eligible when its connected component holds a strict
  majority of the healthy stations (quorum, so two halves of a partitioned graph never both
  elect); the new lead is the eligible station of highest priority (larger number wins), ties
  broken by the smaller id in character order; no component with a majority → no lead;
- **required response** — ΔP = −β·Δf (MW), β the area's frequency bias (MW/Hz): positive
  (raise output) for under-frequency, negative for over-frequency;
- **allocation** — the healthy stations of the lead's component share |ΔP| in proportion to
  their droop participation K_i = P_rated,i / (s_i·f_n) (s_i the per-unit droop), each capped at
  its reserve in the needed direction; what a capped station cannot take is re-shared, in the
  same proportion, among the uncapped ones, until nobody exceeds a cap (water-filling); the rest
  is the shortfall.

Source: the leader-election-by-quorum and proportional participation rules of multi-agent
secondary control (e.g. Dörfler et al., IEEE TCNS 2016; IEC 61850-7-420 DER agents) written as
a deterministic procedure; the droop participation is the classical K = P_n/(s·f_n)
(Kundur, *Power System Stability and Control*, 1994, §11.1.2).
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass


@dataclass(frozen=True)
class Station:
    id: str
    healthy: bool
    priority: int
    rated_mw: float
    droop_pct: float
    reserve_up_mw: float
    reserve_down_mw: float

    def k_mw_per_hz(self, f_nominal_hz: float) -> float:
        """Droop participation K = P_rated / (s·f_n) (MW/Hz)."""
        return self.rated_mw / (self.droop_pct / 100.0 * f_nominal_hz)


@dataclass(frozen=True)
class Handover:
    lead: str | None
    component: tuple[str, ...]
    required_mw: float
    allocation_mw: dict[str, float]
    shortfall_mw: float


def components(nodes: Sequence[str], edges: Sequence[tuple[str, str]]) -> list[list[str]]:
    """Connected components of an undirected graph, each sorted, in order of first node."""
    adj: dict[str, set[str]] = {n: set() for n in nodes}
    for a, b in edges:
        if a in adj and b in adj:
            adj[a].add(b)
            adj[b].add(a)
    seen: set[str] = set()
    out = []
    for n in nodes:
        if n in seen:
            continue
        stack, comp = [n], []
        seen.add(n)
        while stack:
            u = stack.pop()
            comp.append(u)
            for v in adj[u]:
                if v not in seen:
                    seen.add(v)
                    stack.append(v)
        out.append(sorted(comp))
    return out


def elect(stations: Sequence[Station], links: Sequence[tuple[str, str]]) -> tuple[str | None, tuple[str, ...]]:
    """The new lead and its component (quorum rule of the module docstring); (None, ()) without quorum."""
    healthy = [s.id for s in stations if s.healthy]
    prio = {s.id: s.priority for s in stations}
    for comp in components(healthy, links):
        if 2 * len(comp) > len(healthy):
            lead = min(comp, key=lambda i: (-prio[i], i))
            return lead, tuple(comp)
    return None, ()


def allocate(demand_mw: float, k: Mapping[str, float], cap: Mapping[str, float]) -> tuple[dict[str, float], float]:
    """Share ``demand_mw`` ≥ 0 in proportion to ``k``, each share capped at ``cap``, the excess
    re-shared among the uncapped (water-filling). Returns the shares and the shortfall."""
    share = {i: 0.0 for i in k}
    free = [i for i in k if cap[i] > 0.0 and k[i] > 0.0]
    remaining = demand_mw
    while free and remaining > 0.0:
        total_k = sum(k[i] for i in free)
        over = [i for i in free if remaining * k[i] / total_k >= cap[i]]
        if not over:
            for i in free:
                share[i] = remaining * k[i] / total_k
            remaining = 0.0
            break
        for i in over:
            share[i] = cap[i]
            remaining -= cap[i]
        free = [i for i in free if i not in over]
    return share, max(remaining, 0.0)


def handover(stations: Sequence[Station], links: Sequence[tuple[str, str]], *, df_hz: float, bias_mw_per_hz: float,
             f_nominal_hz: float) -> Handover:
    """Election, required response ΔP = −β·Δf and the capped proportional allocation (signed MW)."""
    lead, comp = elect(stations, links)
    required = -bias_mw_per_hz * df_hz
    by_id = {s.id: s for s in stations}
    up = required >= 0.0
    k = {i: by_id[i].k_mw_per_hz(f_nominal_hz) for i in comp}
    cap = {i: (by_id[i].reserve_up_mw if up else by_id[i].reserve_down_mw) for i in comp}
    share, shortfall = allocate(abs(required), k, cap)
    sign = 1.0 if up else -1.0
    alloc = {s.id: sign * share.get(s.id, 0.0) + 0.0 for s in stations}  # + 0.0: no -0.0 in JSON
    if lead is None:
        shortfall = abs(required)
    return Handover(lead=lead, component=comp, required_mw=required, allocation_mw=alloc, shortfall_mw=shortfall)
