"""The XFWA study (Taleb, Kato and Nemoto, IEEE JSAC 2003; spec
``/work/shared/specs/004-xfwa.md``) as platform sweeps, with ns-2 2.35's
plain NewReno on scenario A beside ours.

Networks: ``scenarios/xfwa/equal_rtts.toml`` (Topology(3, 1, MAX, 0, 0))
and ``different_rtts.toml`` (Topology(3, 4, MAX/4, i - 1, i - 1)), both
written with ``[multihop]``. Experiments:

* ``equal`` (section V-A, Figs. 5-10): T1, T2, T3, OC3 (MAX 8, 32, 128,
  512 flows) x scenarios A-D, plain NewReno on drop-tail against NewReno
  with XFWA;
* ``alpha`` (V-B, Figs. 11-12): different RTTs, T1, scenario A, XFWA's
  skew factor alpha swept (the paper does not print its values: 0.25 to
  4 here) beside plain NewReno;
* ``rtts`` (V-B, Figs. 13 and 17): different RTTs on every link type,
  scenario A, alpha = 1;
* ``rtt_error`` (V-C, Fig. 14): different RTTs, T1, scenario A, each
  flow's RTT estimate off by e ~ U[-sigma, sigma] (the paper's ns
  ``min_ = -sigma, max_ = sigma``; sigma values not printed: 0 to 0.5);
* ``onoff`` (V-D, Figs. 15-16): T2, ten persistent FTP flows and
  Count_OnOff ON-OFF TCP sources (Pareto, 160 ms mean ON and OFF) from 5
  to 15 s (``scenarios/xfwa/onoff.toml``; the counts are not printed: 0 to
  60 here);
* ns-2 2.35 (``crosscheck/ns2/xfwa_chain.tcl``) runs plain NewReno on
  scenario A at every link type of ``equal``, cached per run in
  ``DIR/ns2/``.

Metrics (spec section 3, choices A12): utilisation = the bottleneck's busy
fraction; loss rate = queue drops / packets offered to the bottleneck
(retransmissions included); average queue = the time average of packets
waiting (the paper samples it every 100 ms); Jain's index over the flows of
x_i / b_i, x_i a flow's goodput over its life (start to stop or the end),
b_i the mean over that life of the fair share C / N(t) (N(t) the flows
running at t), so a flow that lived while few others did is owed more.
"""

from __future__ import annotations

import json
import math
import subprocess
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path
from typing import Any

import numpy as np
import pandas as pd

from ..paths import ROOT
from ..store import Store
from .catalogue import Arm, Experiment, Factor, PlannedRun
from .runner import stored_tables, stored_runs

REPO_ROOT = ROOT  # the repository, or the wheel's copy (satcp/paths.py)
PUBLISHED = REPO_ROOT / "data" / "published" / "xfwa_claims.csv"
EQUAL = "scenarios/xfwa/equal_rtts.toml"
DIFFERENT = "scenarios/xfwa/different_rtts.toml"
ONOFF = "scenarios/xfwa/onoff.toml"
ONOFF_COUNTS = (0, 15, 30, 45, 60)
TCL = REPO_ROOT / "crosscheck" / "ns2" / "xfwa_chain.tcl"
STOP_S = 20.0
LINK_TYPES = ("T1", "T2", "T3", "OC3")
RATE_BPS = {"T1": 1.5e6, "T2": 10e6, "T3": 45e6, "OC3": 155e6}
MAX_FLOWS = {"T1": 8, "T2": 32, "T3": 128, "OC3": 512}
SCHEDULES = ("A", "B", "C", "D")
ALPHAS = (0.25, 0.5, 1.0, 1.5, 2.0, 4.0)
SIGMAS = (0.0, 0.05, 0.1, 0.2, 0.3, 0.5)
BOTTLENECK = "b1->b2"
REPLICATIONS, QUICK_REPLICATIONS = 5, 2

TCP = Arm("tcp", {"multihop.xfwa": False}, {})
XFWA = Arm("xfwa", {"multihop.xfwa": True}, {})


def _bottleneck(values=LINK_TYPES, quick=("T1", "T2")) -> Factor:
    return Factor("link", "multihop.bottleneck", tuple(values), tuple(quick))


def experiments() -> list[Experiment]:
    reps = dict(replications=REPLICATIONS, quick_replications=QUICK_REPLICATIONS)
    return [
        Experiment("equal", "Equal RTTs: link types x scenarios A-D", EQUAL, "ftp", (TCP, XFWA),
                   (_bottleneck(), Factor("schedule", "multihop.schedule", SCHEDULES, SCHEDULES)),
                   figures=("5", "6", "7", "8", "9", "10"), link="isl1", **reps),
        Experiment("alpha", "Different RTTs: the skew factor alpha (T1, scenario A)", DIFFERENT, "ftp",
                   (TCP,) + tuple(Arm(f"xfwa_alpha{a:g}", {"multihop.xfwa": {"alpha": a}}, {}) for a in ALPHAS),
                   (), figures=("11", "12"), link="isl1", **reps),
        Experiment("rtts", "Different RTTs on every link type (scenario A, alpha = 1)", DIFFERENT, "ftp",
                   (TCP, XFWA), (_bottleneck(),), figures=("13", "17"), link="isl1", **reps),
        Experiment("rtt_error", "RTT estimation errors (T1, scenario A, different RTTs)", DIFFERENT, "ftp",
                   (TCP,) + tuple(Arm(f"xfwa_sigma{s:g}", {"multihop.xfwa": {"rtt_error": s}}, {}) for s in SIGMAS),
                   (), figures=("14",), link="isl1", **reps),
        Experiment("onoff", "ON-OFF TCP cross traffic (T2, ten persistent flows)", ONOFF, "ftp", (TCP, XFWA),
                   (Factor("onoff", "multihop.groups.1.flows", ONOFF_COUNTS, (15, 45)),),
                   figures=("15", "16"), link="isl1", **reps),
    ]


def catalogue(quick: bool) -> list[Experiment]:
    return experiments()


def arm_value(arm: str) -> tuple[str, float]:
    """("tcp" | "xfwa", the swept value: alpha, sigma or NaN)."""
    if arm.startswith("xfwa_alpha"):
        return "xfwa", float(arm[len("xfwa_alpha"):])
    if arm.startswith("xfwa_sigma"):
        return "xfwa", float(arm[len("xfwa_sigma"):])
    return arm, math.nan


# ----- metrics -----------------------------------------------------------------

def fairness(goodput: np.ndarray, start: np.ndarray, stop: np.ndarray, end: float = STOP_S) -> float:
    """Jain's index of x_i / b_i with b_i the mean fair share over flow i's
    life [start_i, stop_i) (C cancels: b_i is the mean of 1 / N(t))."""
    edges = np.unique(np.concatenate([start, stop, [0.0, end]]))
    edges = edges[(edges >= 0) & (edges <= end)]
    share = np.zeros(len(goodput))
    for a, b in zip(edges[:-1], edges[1:]):
        if b <= a:
            continue
        mid = (a + b) / 2
        on = (start <= mid) & (stop > mid)
        n = on.sum()
        if n:
            share[on] += (b - a) / n
    life = stop - start
    ok = (life > 0) & (share > 0)
    if not ok.any():
        return math.nan
    z = goodput[ok] / (share[ok] / life[ok])
    return float(z.sum() ** 2 / (len(z) * (z ** 2).sum()))


COLUMNS = ["experiment", "arm", "scheme", "value", "link", "schedule", "onoff", "replication", "seed", "key", "status",
           "utilization", "loss_rate", "mean_queue", "drops", "fairness", "flows", "goodput_bps", "agent_rtt_avg_ms",
           "timeouts"]


def agent_rtt_avg_ms(store: Store, keys: list[str]) -> dict[str, float]:
    """Each XFWA run's last RTT_avg as its agent computed it (Eq. 1 from
    the TTLs), from the stored summaries."""
    if not keys:
        return {}
    q = store.query("SELECT key, summary_json FROM runs WHERE key IN (SELECT unnest(?))", [keys])
    out = {}
    for k, sj in zip(q["key"], q["summary_json"]):
        agents = json.loads(sj).get("agents") or [] if isinstance(sj, str) else []
        for a in agents:
            if a.get("kind") == "xfwa":
                out[k] = a["counters"]["rtt_avg_us_last"] / 1e3
    return out


def collect(store: Store, runs: list[PlannedRun], experiments: list[Experiment]) -> pd.DataFrame:
    """One row per run (``COLUMNS``)."""
    if not runs:
        return pd.DataFrame(columns=COLUMNS)
    run_t, flow_t, link_t = stored_tables(store, runs, link=BOTTLENECK)
    links = {k: g.iloc[0] for k, g in link_t.groupby("key")} if not link_t.empty else {}
    rtt_avg = agent_rtt_avg_ms(store, sorted({p.run.key for p in runs if p.arm != "tcp"}))
    rows = []
    for p, status, flows in stored_runs(runs, run_t, flow_t):
        scheme, value = arm_value(p.arm)
        ident = dict(experiment=p.experiment, arm=p.arm, scheme=scheme, value=value,
                     link=p.levels.get("link", "T2" if p.experiment == "onoff" else "T1"),
                     schedule=p.levels.get("schedule", "A"), onoff=p.levels.get("onoff", math.nan),
                     replication=p.run.replication, seed=p.run.seed, key=p.run.key, status=status)
        if flows is None or p.run.key not in links:
            rows.append(ident)
            continue
        lk = links[p.run.key]
        offered = float(lk["packets_tx"]) + float(lk["drops_queue"])
        if p.experiment == "onoff":
            # fairness among the persistent flows (f1 .. f10; the ON-OFF
            # sources are not greedy): Fig. 16's view
            persistent = flows[flows["flow"].isin([f"f{i}" for i in range(1, 11)])]
        else:
            persistent = flows
        g = persistent["bytes_delivered"].to_numpy(dtype=float) * 8
        start = persistent["start_s"].to_numpy(dtype=float)
        stop = persistent["stop_s"].to_numpy(dtype=float) if "stop_s" in persistent else np.full(len(g), np.nan)
        stop = np.where(np.isnan(stop), STOP_S, stop)
        rates = g / np.maximum(stop - start, 1e-9)
        rows.append(dict(ident, utilization=float(lk["utilization"]), loss_rate=float(lk["drops_queue"]) / offered,
                         mean_queue=float(lk["mean_queue_packets"]), drops=int(lk["drops_queue"]),
                         fairness=fairness(rates, start, stop), flows=len(flows),
                         goodput_bps=float(flows["bytes_delivered"].sum() * 8 / STOP_S),
                         agent_rtt_avg_ms=rtt_avg.get(p.run.key, math.nan), timeouts=int(flows["timeouts"].sum())))
    return pd.DataFrame(rows, columns=COLUMNS)


def cells(obs: pd.DataFrame) -> pd.DataFrame:
    """Means over replications per experiment x arm x link x schedule."""
    ok = obs[obs["status"] == "ok"]
    if ok.empty:
        return pd.DataFrame()
    g = ok.groupby(["experiment", "arm", "scheme", "value", "link", "schedule", "onoff"], dropna=False)
    out = g[["utilization", "loss_rate", "mean_queue", "fairness", "timeouts", "drops"]].mean()
    out["n"] = g.size()
    return out.reset_index()


# ----- ns-2 --------------------------------------------------------------------

def ns2_qlim(link: str) -> int:
    """ns-2's qlim_ for [multihop]'s "bdp" buffer (one BDP at 160 ms in
    1040-byte packets): one more, as ns-2's DropTail holds qlim_ - 1
    waiting packets (docs/models/network.md)."""
    return max(1, round(RATE_BPS[link] * 0.160 / (8 * 1040))) + 1


def ns2_args(link: str, seed: int) -> list[str]:
    return [f"flows={MAX_FLOWS[link]}", f"rate={RATE_BPS[link] / 1e6:g}Mb", f"qlim={ns2_qlim(link)}",
            f"stop={STOP_S:g}", f"seed={seed}"]


def run_ns2(link: str, seed: int, cache: Path) -> str:
    from ..crosscheck_ns2 import ns_binary
    f = cache / f"{link}_q{ns2_qlim(link)}_seed{seed}.txt"
    if f.is_file():
        return f.read_text()
    p = subprocess.run([ns_binary(), str(TCL), *ns2_args(link, seed)], capture_output=True, text=True, timeout=3600)
    if p.returncode != 0 or "bottleneck" not in p.stdout:
        raise RuntimeError(f"ns-2 failed on {link} seed {seed}: {p.stderr[-1500:]}")
    cache.mkdir(parents=True, exist_ok=True)
    tmp = f.with_suffix(".tmp")
    tmp.write_text(p.stdout)
    tmp.replace(f)
    return p.stdout


def parse_ns2(text: str) -> dict[str, float]:
    line = next(x for x in text.splitlines() if x.startswith("bottleneck"))
    w = line.split()
    v = {w[i]: float(w[i + 1]) for i in range(1, len(w) - 1, 2)}
    return dict(utilization=v["util"], loss_rate=v["drops"] / max(v["arrivals"], 1), mean_queue=v["qavg"],
                drops=v["drops"])


def ns2_runs(quick: bool, cache: Path, workers: int) -> pd.DataFrame:
    """Plain NewReno on scenario A at each link type, the replications'
    seeds (ns-2's own random stream: the start times)."""
    links = ("T1", "T2") if quick else LINK_TYPES
    reps = QUICK_REPLICATIONS if quick else REPLICATIONS
    tasks = [(lk, s) for lk in links for s in range(1, reps + 1)]
    with ThreadPoolExecutor(max_workers=max(1, workers)) as pool:
        outs = list(pool.map(lambda t: run_ns2(*t, cache), tasks))
    return pd.DataFrame([dict(link=lk, seed=s, **parse_ns2(o)) for (lk, s), o in zip(tasks, outs)])


def ns2_beside(cell_t: pd.DataFrame, ns2: pd.DataFrame) -> pd.DataFrame:
    """Scenario A plain NewReno: ours and ns-2's utilisation, loss rate and
    average queue per link type, with the relative differences."""
    if cell_t.empty or ns2.empty:
        return pd.DataFrame()
    ours = cell_t[(cell_t["experiment"] == "equal") & (cell_t["arm"] == "tcp") & (cell_t["schedule"] == "A")]
    theirs = ns2.groupby("link")[["utilization", "loss_rate", "mean_queue"]].mean()
    rows = []
    for _, r in ours.iterrows():
        if r["link"] not in theirs.index:
            continue
        t = theirs.loc[r["link"]]
        row = dict(link=r["link"])
        for m in ("utilization", "loss_rate", "mean_queue"):
            row[f"{m}_satcp"], row[f"{m}_ns2"] = r[m], t[m]
            row[f"{m}_diff_pct"] = (r[m] / t[m] - 1) * 100 if t[m] else math.nan
        rows.append(row)
    return pd.DataFrame(rows).sort_values("link", key=lambda s: s.map(LINK_TYPES.index))


# ----- the paper's claims --------------------------------------------------------

def claims(cell_t: pd.DataFrame, beside: pd.DataFrame) -> list[dict[str, Any]]:
    """The paper's claims judged on our runs, each with its criterion."""
    out = []
    eq = cell_t[cell_t["experiment"] == "equal"] if not cell_t.empty else cell_t
    if not eq.empty:
        piv = eq.pivot_table(index=["link", "schedule"], columns="scheme", values=["fairness", "loss_rate",
                                                                                  "utilization"])
        piv = piv.dropna()
        fair_ok, loss_ok, worse = [], [], []
        for (lk, sc), r in piv.iterrows():
            f_ok = r[("fairness", "xfwa")] > r[("fairness", "tcp")]
            l_ok = r[("loss_rate", "xfwa")] < r[("loss_rate", "tcp")]
            if lk in ("T1", "T2"):
                fair_ok.append((lk, sc, f_ok))
                loss_ok.append((lk, sc, l_ok))
            if not (f_ok and l_ok and r[("utilization", "xfwa")] >= r[("utilization", "tcp")] - 0.005):
                worse.append(f"{lk}/{sc}")
        miss = [f"{lk}/{sc}" for lk, sc, ok in fair_ok if not ok] + [f"{lk}/{sc} loss" for lk, sc, ok in loss_ok if not ok]
        out.append(dict(id="fig5_fairer_and_fewer_losses",
                        wording="XFWA's fairness is higher and its loss rate lower than plain NewReno's in every "
                                "scenario A-D at T1 and T2 (Fig. 5)",
                        holds=(not miss) if fair_ok else None,
                        evidence=f"{len(fair_ok)} cells at T1/T2; " + ("all hold" if not miss else "not in " + ", ".join(miss))))
        out.append(dict(id="fig5_never_worse",
                        wording="No case where XFWA performs worse than TCP (utilisation, drops, fairness; all link "
                                "types and scenarios)",
                        holds=(not worse) if len(piv) else None,
                        evidence=f"{len(piv)} cells; " + ("none worse" if not worse else "worse in " + ", ".join(worse))
                                 + " (utilisation within 0.5 point counts as not worse)"))
        t1 = eq[(eq["link"] == "T1") & eq["schedule"].isin(["B", "C", "D"])].pivot_table(
            index="schedule", columns="scheme", values=["timeouts", "drops"])
        if len(t1) and ("timeouts", "xfwa") in t1:
            out.append(dict(id="figs6_8_no_timeouts",
                            wording="T1, scenarios B-D: no timeouts with XFWA; TCP flows suffer timeouts (Figs. 6-8)",
                            holds=bool((t1[("timeouts", "xfwa")] == 0).all() and (t1[("timeouts", "tcp")] > 0).any()),
                            evidence="timeouts per run, NewReno / XFWA: " + "; ".join(
                                f"{sc} {r[('timeouts', 'tcp')]:.1f} / {r[('timeouts', 'xfwa')]:.1f}" for sc, r in t1.iterrows())))
            d = t1.loc["D"] if "D" in t1.index else None
            if d is not None:
                out.append(dict(id="fig9_no_overflow",
                                wording="T1, scenario D: the bottleneck queue never overflows with XFWA; TCP's does "
                                        "repeatedly (Fig. 9)",
                                holds=bool(d[("drops", "xfwa")] == 0 and d[("drops", "tcp")] > 0),
                                evidence=f"queue drops per run: NewReno {d[('drops', 'tcp')]:.1f}, XFWA "
                                         f"{d[('drops', 'xfwa')]:.1f} (XFWA's come when four flows enter at 5 s "
                                         "into the standing queue Q_size = capacity builds)"))
        a = eq[(eq["schedule"] == "A")].pivot_table(index="link", columns="scheme", values="loss_rate")
        if "tcp" in a:
            out.append(dict(id="tcp_loss_significant_in_a",
                            wording="Plain TCP's loss rate is significant in scenario A (synchronised losses)",
                            holds=bool((a["tcp"] > 0.005).all()),
                            evidence="; ".join(f"{lk} {v * 100:.2f}%" for lk, v in a["tcp"].items()) + " (criterion: over 0.5%)"))
    al = cell_t[cell_t["experiment"] == "alpha"] if not cell_t.empty else cell_t
    x = al[al["scheme"] == "xfwa"].sort_values("value") if not al.empty else al
    if not x.empty and (x["value"] == 1.0).any():
        f = dict(zip(x["value"], x["fairness"]))
        best_v = max(f, key=f.get)
        ties = [v for v in f if v != 1.0 and f[v] >= f[1.0] - 0.005]
        extremes_lower = all(f[v] < f[1.0] for v in f if v <= 0.25 or v >= 2.0)
        note = ""
        if ties:
            note = (f"; alpha {', '.join(f'{v:g}' for v in ties)} within 0.005 of alpha = 1 (best: {best_v:g}): the "
                    "standing queue Q_size = capacity builds delays every flow alike, so RTT-proportional windows "
                    "(alpha = 1) slightly favour the long flows and an alpha just under 1 offsets it")
        out.append(dict(id="fig11_alpha_one_best",
                        wording="alpha = 1 gives the best fairness (Fig. 11); other values lower it",
                        holds=bool(f[1.0] >= f[best_v] - 0.005 and extremes_lower),
                        evidence="fairness by alpha: " + ", ".join(f"{v:g}: {f[v]:.3f}" for v in sorted(f))
                                 + " (criterion: alpha = 1 within 0.005 of the best, alpha <= 0.25 and >= 2 below it)"
                                 + note))
    rt = cell_t[cell_t["experiment"] == "rtts"] if not cell_t.empty else cell_t
    if not rt.empty:
        p = rt.pivot_table(index="link", columns="scheme", values="fairness").dropna()
        out.append(dict(id="fig13_rtt_fair",
                        wording="With different RTTs XFWA gives every flow nearly the same throughput where TCP "
                                "favours short RTTs (Figs. 12, 13)",
                        holds=bool(((p["xfwa"] > 0.95) & (p["xfwa"] > p["tcp"])).all()) if len(p) else None,
                        evidence="; ".join(f"{lk}: XFWA {r['xfwa']:.3f}, TCP {r['tcp']:.3f}" for lk, r in p.iterrows())
                                 + " (criterion: XFWA above 0.95 and above TCP)"))
    er = cell_t[cell_t["experiment"] == "rtt_error"] if not cell_t.empty else cell_t
    if not er.empty:
        tcp = er[er["scheme"] == "tcp"]
        xe = er[er["scheme"] == "xfwa"].sort_values("value")
        small = xe[xe["value"] <= 0.1]
        if not tcp.empty and not small.empty:
            t = tcp.iloc[0]
            ok = bool(((small["fairness"] > t["fairness"]) & (small["utilization"] > t["utilization"])).all())
            out.append(dict(id="fig14_resilient_to_small_errors",
                            wording="With small RTT estimation errors XFWA keeps better utilisation and fairness "
                                    "than TCP; large errors degrade it (Fig. 14)",
                            holds=ok and xe["fairness"].iloc[-1] < xe["fairness"].iloc[0],
                            evidence="fairness by sigma: " + ", ".join(f"{v:g}: {f:.3f}" for v, f in
                                                                       zip(xe["value"], xe["fairness"]))
                                     + f"; TCP {t['fairness']:.3f}"))
    oo = cell_t[cell_t["experiment"] == "onoff"] if not cell_t.empty else cell_t
    if not oo.empty:
        p = oo.pivot_table(index="onoff", columns="scheme", values=["utilization", "loss_rate"]).dropna()
        with_onoff = p[p.index > 0]
        ok = bool(((with_onoff[("utilization", "xfwa")] > with_onoff[("utilization", "tcp")])
                   & (with_onoff[("loss_rate", "xfwa")] < 0.5 * with_onoff[("loss_rate", "tcp")])).all())
        out.append(dict(id="fig15_onoff",
                        wording="With ON-OFF TCP cross traffic XFWA keeps higher utilisation and significantly fewer "
                                "drops, even at high ON-OFF counts (Fig. 15)",
                        holds=ok if len(with_onoff) else None,
                        evidence="; ".join(f"{int(c)} ON-OFF: util {r[('utilization', 'tcp')]:.3f} -> "
                                           f"{r[('utilization', 'xfwa')]:.3f}, loss {r[('loss_rate', 'tcp')] * 100:.2f}% -> "
                                           f"{r[('loss_rate', 'xfwa')] * 100:.2f}%" for c, r in with_onoff.iterrows())
                                 + " (criterion: higher utilisation and under half the loss rate)"))
    if beside is not None and not beside.empty:
        diffs = beside[[c for c in beside.columns if c.endswith("_diff_pct")]].abs()
        out.append(dict(id="ns2_scenario_a",
                        wording="Plain NewReno on scenario A: utilisation, loss rate and average queue within 10% "
                                "of ns-2 2.35's",
                        holds=bool((diffs <= 10).all().all()),
                        evidence="; ".join(f"{r['link']}: util {r['utilization_diff_pct']:+.1f}%, loss "
                                           f"{r['loss_rate_diff_pct']:+.1f}%, queue {r['mean_queue_diff_pct']:+.1f}%"
                                           for _, r in beside.iterrows())))
    return out
