"""A scripted baseline of the interconnection study, written from the statement only (as an agent
with the toolbox would): run it in a directory holding study.json and model/ (``psab show`` /
``materialize``); it writes answer.json. Uses pandapower (from_mpc, runpp with lightsim2grid,
calc_sc) and numpy, never psab. The decision is the simplest safe plan: the cheapest adequate
breaker replacement per overdutied breaker and the export limit at the largest export without
reinforcement. Measured on the public case (2 cores, loaded machine): ~325 s, score 0.872
(violations 1, short_circuit 1, max_export 1, decision 0.743)."""
# ruff: noqa
# Written from the statement only: pandapower from_mpc + runpp, own bookkeeping.
import json, math, time, warnings, numpy as np
warnings.filterwarnings("ignore")
import pandapower as pp, pandapower.converter.matpower as pcm
T0 = time.time()
S = json.load(open("study.json")); P = S["plant"]["p_mw"]
net = pcm.from_mpc("model/" + S["case"]["name"] + ".m", f_hz=60)
disp = [l.strip().split(",") for l in open("model/base_dispatch.csv").read().splitlines()[1:]]
bus_of = {str(int(b)): i for i, b in enumerate(pcm.CaseFrames("model/" + S["case"]["name"] + ".m").bus["BUS_I"])} if False else None
import matpowercaseframes as mcf
cf = mcf.CaseFrames("model/" + S["case"]["name"] + ".m")
bus_ids = [str(int(b)) for b in cf.bus["BUS_I"]]; bix = {b: i for i, b in enumerate(bus_ids)}
# gens: first at slack bus is ext_grid (the converter's rule, learned by inspecting net)
gp = {}
gi = 0; eg = False
gbus = [str(int(b)) for b in cf.gen["GEN_BUS"]]
slack_bus = bus_ids[int(net.ext_grid.bus.iloc[0])]
elem = []
for k, b in enumerate(gbus):
    if b == slack_bus and not eg: elem.append(("ext_grid", 0)); eg = True
    else: elem.append(("gen", net.gen.index[gi])); gi += 1
base_p = {}
for (g, b, stt, p, vm), (kind, idx) in zip(disp, elem):
    base_p[g] = float(p)
    if kind == "gen": net.gen.at[idx, "p_mw"] = float(p); net.gen.at[idx, "vm_pu"] = float(vm); net.gen.at[idx, "in_service"] = stt == "1"
    else: net.ext_grid.at[idx, "vm_pu"] = float(vm)
room = {g: max(0.0, base_p[g]) for g in base_p}  # pro rata to base output (the statement: Pmin not enforced)
sink = S["balancing"]["gen_ids"]; tot = sum(room[g] for g in sink)
sg = pp.create_sgen(net, bix[S["plant"]["poc_bus_id"]], 0.0, 0.0)
# branches: lines then trafos in file order by the converter's rule
br = cf.branch; rows = []
li = ti = ii = 0
kv = cf.bus.set_index("BUS_I")["BASE_KV"]
for k in range(len(br)):
    tap, sh = br["TAP"].iloc[k], br["SHIFT"].iloc[k]
    if (tap not in (0, 1)) or sh != 0: rows.append(("trafo", net.trafo.index[ti])); ti += 1
    elif kv[br["F_BUS"].iloc[k]] == kv[br["T_BUS"].iloc[k]]: rows.append(("line", net.line.index[li])); li += 1
    else: rows.append(("impedance", net.impedance.index[ii])); ii += 1
rate = br["RATE_A"].to_numpy(float)
def run(p, out=None):
    for g, (kind, idx) in zip([d[0] for d in disp], elem):
        if kind == "gen": net.gen.at[idx, "p_mw"] = base_p[g] - (p * room[g] / tot if g in sink else 0)
    net.sgen.at[sg, "p_mw"] = p; net.sgen.at[sg, "q_mvar"] = p * S["plant"]["q_mvar_per_mw"]
    if out is not None: net[rows[out][0]].at[rows[out][1], "in_service"] = False
    try:
        pp.runpp(net, lightsim2grid=True, tolerance_mva=1e-8, init="dc", numba=False); ok = net.converged
    except Exception: ok = False
    if out is not None: net[rows[out][0]].at[rows[out][1], "in_service"] = True
    if not ok: return None
    s = np.full(len(br), np.nan)
    for k, (kind, idx) in enumerate(rows):
        if k == out: continue
        r = net["res_" + kind]
        a = ("p_from_mw", "q_from_mvar", "p_to_mw", "q_to_mvar") if kind != "trafo" else ("p_hv_mw", "q_hv_mvar", "p_lv_mw", "q_lv_mvar")
        s[k] = max(math.hypot(r.at[idx, a[0]], r.at[idx, a[1]]), math.hypot(r.at[idx, a[2]], r.at[idx, a[3]]))
    return net.res_bus.vm_pu.to_numpy().copy(), s
vmin, vmax = cf.bus["VMIN"].to_numpy(float), cf.bus["VMAX"].to_numpy(float)
m, mv = S["criteria"]["worsen_margin_loading_pct"], S["criteria"]["worsen_margin_vm_pu"]
conts = [("N-0", None)] + [(c["id"], int(c["branch_id"]) - 1) for c in S["contingencies"]]
pre = {cid: run(0.0, o) for cid, o in conts}
def fails(p, first=False):
    th, vo, dv = [], [], []
    for cid, o in conts:
        r = run(p, o)
        if r is None: dv.append(cid); continue
        vm, s = r; vp, sp = pre[cid]
        allowed = np.maximum(rate, sp + m * rate / 100)
        for k in np.flatnonzero(s > allowed + 1e-4 * rate): th.append({"contingency_id": cid, "branch_id": str(k + 1), "loading_pct": 100 * s[k] / rate[k]})
        for i in np.flatnonzero(((vm < vmin - 1e-5) & (vm < vp - mv - 1e-5)) | ((vm > vmax + 1e-5) & (vm > vp + mv + 1e-5))):
            vo.append({"contingency_id": cid, "bus_id": bus_ids[i], "vm_pu": vm[i]})
        if first and (th or vo or dv): break
    return th, vo, dv
th, vo, dv = fails(P)
lo, hi = 0, int(P // S["export_search"]["resolution_mw"])
while hi - lo > 1:
    mid = (lo + hi) // 2
    if any(fails(mid * S["export_search"]["resolution_mw"], True)): hi = mid
    else: lo = mid
ans = {"violations": {"thermal": th, "voltage": vo, "diverged_contingency_ids": dv},
       "short_circuit": {"fault_levels": [{"bus_id": b, "ikss_before_ka": 1.0, "ikss_after_ka": 1.0} for b in S["short_circuit"]["fault_bus_ids"]], "overdutied_breaker_ids": []},
       "max_export_mw": lo * S["export_search"]["resolution_mw"], "decision": {"candidate_ids": [], "export_limit_mw": lo * S["export_search"]["resolution_mw"]}}
json.dump(ans, open("answer.json", "w"), default=float)
import json, math, time, warnings, copy, itertools
warnings.filterwarnings("ignore")
import numpy as np, pandapower as pp, pandapower.shortcircuit as sc, pandapower.converter.matpower as pcm, matpowercaseframes as mcf
A = json.load(open("answer.json"))
name = "model/" + S["case"]["name"] + ".m"
net = pcm.from_mpc(name, f_hz=60); cf = mcf.CaseFrames(name)
bus_ids = [str(int(b)) for b in cf.bus["BUS_I"]]; bix = {b: i for i, b in enumerate(bus_ids)}
disp = {l.split(",")[0]: l.split(",") for l in open("model/base_dispatch.csv").read().splitlines()[1:]}
scd = S["short_circuit"]; c = scd["c_max"]; xd, cphi, rx = scd["machine_xdss_pu"], scd["machine_cos_phi"], scd["machine_r_over_x"]
gen = cf.gen; vn = net.bus.vn_kv.to_numpy()
slack_bus = int(net.ext_grid.bus.iloc[0]); gi = 0; eg = False
for k in range(len(gen)):
    b = bix[str(int(gen["GEN_BUS"].iloc[k]))]
    on = gen["GEN_STATUS"].iloc[k] > 0 and disp[str(k + 1)][2] == "1"
    srg = max(1.0, math.hypot(gen["PMAX"].iloc[k], max(abs(gen["QMAX"].iloc[k]), abs(gen["QMIN"].iloc[k]))))
    if b == slack_bus and not eg:
        eg = True
        kg = c / (1 + xd * math.sqrt(1 - cphi ** 2))
        net.ext_grid.at[net.ext_grid.index[0], "s_sc_max_mva"] = c * srg / (kg * xd * math.hypot(1, rx))
        net.ext_grid.at[net.ext_grid.index[0], "rx_max"] = rx
        continue
    idx = net.gen.index[gi]; gi += 1
    net.gen.loc[idx, ["sn_mva", "xdss_pu", "cos_phi", "vn_kv", "rdss_ohm", "in_service"]] = [srg, xd, cphi, vn[b], rx * xd * vn[b] ** 2 / srg, on]
fb = [bix[b] for b in scd["fault_bus_ids"]]
sc.calc_sc(net, case="max", ip=False, ith=False); before = net.res_bus_sc.ikss_ka.to_numpy()[fb].copy()
p = S["plant"]; poc = bix[p["poc_bus_id"]]
aux = pp.create_bus(net, vn_kv=vn[poc]); pp.create_impedance(net, poc, aux, rft_pu=0, xft_pu=1e-9, sn_mva=100)  # own bus: calc_sc has one K_G per bus
pp.create_gen(net, aux, 0, 1.0, sn_mva=p["sn_mva"], xdss_pu=p["xdss_pu"], cos_phi=p["cos_phi"], vn_kv=vn[poc], rdss_ohm=p["r_over_x"] * p["xdss_pu"] * vn[poc] ** 2 / p["sn_mva"])
sc.calc_sc(net, case="max", ip=False, ith=False); after_all = net.res_bus_sc.ikss_ka.to_numpy()
after = after_all[fb]
A["short_circuit"]["fault_levels"] = [{"bus_id": b, "ikss_before_ka": float(x), "ikss_after_ka": float(y)} for b, x, y in zip(scd["fault_bus_ids"], before, after)]
over = [br["id"] for br in scd["breakers"] if after_all[bix[br["bus_id"]]] > br["rating_ka"]]
A["short_circuit"]["overdutied_breaker_ids"] = over
cands = S["catalogue"]["candidates"]
brk = []
for b in over:
    opts = sorted((x["cost_musd"], x["id"]) for x in cands if x["kind"] == "breaker" and x["breaker_id"] == b and x["new_rating_ka"] >= after_all[bix[[y for y in scd["breakers"] if y["id"] == b][0]["bus_id"]]])
    brk.append(opts[0][1])
# decision heuristic: SPS covering contingencies + export limit = max export (feasible by construction)
A["decision"] = {"candidate_ids": brk, "export_limit_mw": A["max_export_mw"]}
json.dump(A, open("answer.json", "w")); print("time_s", round(time.time() - T0, 1))
