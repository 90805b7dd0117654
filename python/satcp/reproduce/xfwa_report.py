"""``satcp reproduce xfwa [--quick]``: run the XFWA study
(``reproduce/xfwa.py``) through the platform and ns-2 2.35's plain
NewReno beside it, write ``DIR/index.html`` and ``DIR/report.md`` (Fig. 5
and Figs. 6-14 and 17 redrawn from our runs, each with the paper's claim
and our verdict; every number the paper's text prints beside ours), and
print a summary. Exit status as ``satcp reproduce adalr``.
"""

from __future__ import annotations

import json
import math
import os
import sys
import time
from pathlib import Path
from typing import TextIO

import numpy as np
import pandas as pd

from .. import engine
from ..tables import format_table
from . import runner, xfwa
from .report import Doc, claims_table, header_rows, print_claims

COLORS = {"tcp": "tab:red", "xfwa": "tab:blue"}


def _plt():
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    return plt


def fig5(cells: pd.DataFrame, experiment: str, schedules: tuple[str, ...]):
    """Utilisation, loss rate and fairness per link type x scenario, TCP
    beside XFWA (Fig. 5; Fig. 17 for different RTTs)."""
    c = cells[(cells["experiment"] == experiment) & cells["scheme"].isin(["tcp", "xfwa"])]
    if c.empty:
        return None
    plt = _plt()
    fig, axes = plt.subplots(1, 3, figsize=(13, 3.6))
    links = [lk for lk in xfwa.LINK_TYPES if lk in set(c["link"])]
    labels = [f"{lk}/{s}" for lk in links for s in schedules if ((c["link"] == lk) & (c["schedule"] == s)).any()]
    x = np.arange(len(labels))
    for ax, m, title in zip(axes, ("utilization", "loss_rate", "fairness"), ("link utilisation", "loss rate",
                                                                               "fairness index")):
        for k, scheme in enumerate(("tcp", "xfwa")):
            v = [c[(c["scheme"] == scheme) & (c["link"] + "/" + c["schedule"] == lab)][m].mean() for lab in labels]
            ax.bar(x + (k - 0.5) * 0.4, v, 0.4, color=COLORS[scheme], label="NewReno" if scheme == "tcp" else "XFWA")
        ax.set_xticks(x)
        ax.set_xticklabels(labels, rotation=90, fontsize=7)
        ax.set_title(title)
        ax.grid(True, axis="y", alpha=0.3)
    axes[0].legend(fontsize=8)
    if experiment == "equal":
        axes[0].set_ylim(0.85, 1.0)
        axes[2].set_ylim(0.5, 1.02)
    fig.tight_layout()
    return fig


def sweep_figure(cells: pd.DataFrame, experiment: str, xlabel: str):
    """Utilisation, loss and fairness against the swept value (Figs. 11, 14)."""
    c = cells[cells["experiment"] == experiment]
    x = c[c["scheme"] == "xfwa"].sort_values("value")
    t = c[c["scheme"] == "tcp"]
    if x.empty:
        return None
    plt = _plt()
    fig, axes = plt.subplots(1, 3, figsize=(12, 3.3))
    for ax, m, title in zip(axes, ("utilization", "loss_rate", "fairness"), ("link utilisation", "loss rate",
                                                                               "fairness index")):
        ax.plot(x["value"], x[m], "o-", color=COLORS["xfwa"], label="XFWA")
        if not t.empty:
            ax.axhline(t[m].mean(), color=COLORS["tcp"], ls="--", label="NewReno")
        ax.set_xlabel(xlabel)
        ax.set_title(title)
        ax.grid(True, alpha=0.3)
    axes[0].legend(fontsize=8)
    fig.tight_layout()
    return fig


def rerun(stored_json: str):
    """A stored run again with 100 ms samples (deterministic: the same run)."""
    d = json.loads(stored_json)
    d.setdefault("run", {})["sample_interval"] = "100ms"
    return engine.run(d)


def pick(runs: pd.DataFrame, obs: pd.DataFrame, **want) -> dict[str, str]:
    """The stored scenario of the first replication of each scheme in the
    cell ``want`` (experiment, link, schedule, arm values)."""
    o = obs[(obs["status"] == "ok") & (obs["replication"] == obs["replication"].min())]
    for k, v in want.items():
        o = o[o[k] == v]
    by_key = runs.set_index("key")
    return {r["arm"]: by_key.loc[r["key"], "scenario_json"] for _, r in o.iterrows() if r["key"] in by_key.index}


def sequence_figure(results: dict[str, object], title: str):
    """Per-flow segment numbers over time (top) and each flow's throughput
    over 500 ms windows (bottom), NewReno beside XFWA (Figs. 6-8, 12, 16)."""
    if not results:
        return None
    plt = _plt()
    fig, axes = plt.subplots(2, len(results), figsize=(5.5 * len(results), 6.2), sharex=True, squeeze=False)
    for k, (arm, res) in enumerate(results.items()):
        s = res.series
        top, bottom = axes[0][k], axes[1][k]
        for name, g in s.groupby("flow_name", sort=False):
            t, b = g["time_s"].to_numpy(), g["delivered_bytes"].to_numpy(dtype=float)
            line, = top.plot(t, b / 1000, lw=1, label=name)
            w = 5  # samples of 100 ms
            if len(t) > w:
                bottom.plot(t[w:], (b[w:] - b[:-w]) * 8 / (t[w:] - t[:-w]) / 1e3, lw=0.8, color=line.get_color())
        top.set_title(f"({'a' if arm == 'tcp' else 'b'}) {'NewReno' if arm == 'tcp' else 'XFWA'}: {title}")
        bottom.set_xlabel("time (s)")
        for ax in (top, bottom):
            ax.grid(True, alpha=0.3)
    axes[0][0].set_ylabel("segment number (delivered)")
    axes[1][0].set_ylabel("throughput (kb/s, 500 ms)")
    if len(s["flow_name"].unique()) <= 8:
        axes[0][0].legend(fontsize=7, ncol=2)
    fig.tight_layout()
    return fig


def near_capacity(res, rate_bps: float) -> float:
    """The fraction of 100 ms intervals in which the bottleneck carried at
    least 90% of its capacity (Fig. 10's "near capacity")."""
    ls = res.link_series[res.link_series["link_name"] == xfwa.BOTTLENECK]
    t = ls["time_s"].to_numpy()
    sent = (ls["bytes_tx"] - ls["queue_bytes"]).to_numpy(dtype=float)
    thr = np.diff(sent) * 8 / np.diff(t) / rate_bps
    return float((thr >= 0.9).mean()) if len(thr) else math.nan


def link_figure(results: dict[str, object], what: str, rate_bps: float):
    """The bottleneck's queue (Fig. 9) or throughput per 100 ms (Fig. 10)."""
    if not results:
        return None
    plt = _plt()
    fig, ax = plt.subplots(figsize=(7, 3.3))
    for arm, res in results.items():
        ls = res.link_series[res.link_series["link_name"] == xfwa.BOTTLENECK]
        t = ls["time_s"].to_numpy()
        if what == "queue":
            y = ls["queue_packets"].to_numpy()
            ax.set_ylabel("queue (packets)")
        else:
            # bytes accepted less bytes waiting: what left the queue
            sent = (ls["bytes_tx"] - ls["queue_bytes"]).to_numpy(dtype=float)
            y = np.r_[np.nan, np.diff(sent) * 8 / np.diff(t)] / rate_bps
            ax.set_ylabel("throughput / capacity")
        ax.plot(t, y, color=COLORS["tcp" if arm == "tcp" else "xfwa"], lw=1,
                label="NewReno" if arm == "tcp" else "XFWA")
    ax.set_xlabel("time (s)")
    ax.grid(True, alpha=0.3)
    ax.legend(fontsize=8)
    fig.tight_layout()
    return fig


def _only_flows(res, names: set[str]):
    """The result with its flow series cut to the named flows."""
    res.series = res.series[res.series["flow_name"].isin(names)]
    return res


def onoff_figure(cells: pd.DataFrame):
    """Utilisation and loss against the ON-OFF count (Fig. 15)."""
    c = cells[cells["experiment"] == "onoff"]
    if c.empty:
        return None
    plt = _plt()
    fig, axes = plt.subplots(1, 2, figsize=(9, 3.3))
    for ax, m, title in zip(axes, ("utilization", "loss_rate"), ("link utilisation", "loss rate")):
        for scheme in ("tcp", "xfwa"):
            s = c[c["scheme"] == scheme].sort_values("onoff")
            ax.plot(s["onoff"], s[m], "o-", color=COLORS[scheme], label="NewReno" if scheme == "tcp" else "XFWA")
        ax.set_xlabel("ON-OFF sources")
        ax.set_title(title)
        ax.grid(True, alpha=0.3)
    axes[0].legend(fontsize=8)
    fig.tight_layout()
    return fig


def per_flow_figure(obs_runs: dict[str, dict[str, object]]):
    """Each flow's packets delivered, per link type (Fig. 13)."""
    if not obs_runs:
        return None
    plt = _plt()
    fig, axes = plt.subplots(1, len(obs_runs), figsize=(3.6 * len(obs_runs), 3.2), squeeze=False)
    for ax, (lk, res_by_arm) in zip(axes[0], obs_runs.items()):
        for k, (arm, res) in enumerate(res_by_arm.items()):
            last = res.series.groupby("flow", sort=True)["delivered_bytes"].max() / 1000
            ax.bar(np.arange(len(last)) + (k - 0.5) * 0.4, last.to_numpy(), 0.4, color=COLORS[arm],
                   label="NewReno" if arm == "tcp" else "XFWA")
        ax.set_title(lk)
        ax.set_xlabel("flow (RTT rises in groups)")
        ax.grid(True, axis="y", alpha=0.3)
    axes[0][0].set_ylabel("packets delivered")
    axes[0][0].legend(fontsize=8)
    fig.tight_layout()
    return fig


def paper_numbers(cells: pd.DataFrame, obs: pd.DataFrame) -> pd.DataFrame:
    """Every number the paper's text prints, with ours beside it."""
    pub = pd.read_csv(xfwa.PUBLISHED, comment="#")
    ours: dict[str, str] = {}
    # Eq. 1 as our agent computed it from the TTLs (its last RTT_avg)
    a = obs[(obs["experiment"] == "equal") & (obs["scheme"] == "xfwa") & (obs["schedule"] == "A")]["agent_rtt_avg_ms"]
    if a.notna().any():
        ours["rtt_equal_ms"] = f"{a.min():.0f} to {a.max():.0f} (our agent's RTT_avg from the TTLs)"
    # Table I flow counts: what our runs had
    eq = obs[(obs["experiment"] == "equal") & (obs["status"] == "ok") & (obs["schedule"] == "A")]
    for lk in xfwa.LINK_TYPES:
        e = eq[eq["link"] == lk]
        ours[f"max_{lk}"] = str(int(e["flows"].iloc[0])) if not e.empty else "-"
        if not e.empty:
            share = e[e["scheme"] == "xfwa"]["goodput_bps"].mean() / e["flows"].iloc[0] / 1e6
            ours[f"fair_share_{lk}"] = f"{share:.4f} (XFWA's mean goodput per flow)"
    # Appendix II: the error bounds, measured on our Eq. 2 with e in [0, 0.15]
    lo, hi, dr = appendix2()
    ours["psi_ratio_low"], ours["psi_ratio_high"] = f"{lo:.3f}", f"{hi:.3f}"
    ours["budget_error_high_pkts"] = f"{dr:.3f}"
    rows = []
    for _, r in pub.iterrows():
        rows.append({"quantity": r["quantity"], "paper": r["paper"], "satcp": ours.get(r["id"], "-"),
                     "where": r["where"]})
    return pd.DataFrame(rows)


def appendix2(n_draws: int = 20000, seed: int = 7) -> tuple[float, float, float]:
    """Appendix II's bounds measured: RTTs of the equal-RTT T1 case (8 x 160
    ms) with errors e ~ U[0, 0.15] (e_min 0, e_max 0.15): the range of
    Psi_hat / Psi over the draws, and the largest R_hat - R in packets."""
    rng = np.random.default_rng(seed)
    rtt = np.full(8, 0.160)
    bw = 1.544e6 / 8000  # packets per second (the appendix's 1.544 Mb, 1 kB)
    psi = rtt / rtt.sum()
    ratios, dr = [], 0.0
    for _ in range(n_draws):
        r = rtt * (1 + rng.uniform(0, 0.15, size=rtt.size))
        ratios.append((r / r.sum()) / psi)
        dr = max(dr, bw * (r.mean() - rtt.mean()))
    ratios = np.concatenate(ratios)
    return float(ratios.min()), float(ratios.max()), dr


def write_report(out: Path, cells: pd.DataFrame, obs: pd.DataFrame, runs: pd.DataFrame, beside: pd.DataFrame,
                 claim_list: list[dict], header: list[tuple[str, str]], title: str,
                 quick: bool) -> tuple[tuple[Path, Path], list[dict]]:
    # the first replication of T1 in scenarios B-D again, sampled: Figs. 6-10
    t1_runs = {sched: {a: rerun(j) for a, j in pick(runs, obs, experiment="equal", link="T1", schedule=sched).items()}
               for sched in ("B", "C", "D")}
    if {"tcp", "xfwa"} <= set(t1_runs["D"]):
        near = {a: near_capacity(r, xfwa.RATE_BPS["T1"]) for a, r in t1_runs["D"].items()}
        claim_list = claim_list + [dict(
            id="fig10_near_capacity",
            wording="T1, scenario D: with XFWA the bottleneck runs near capacity most of the time; TCP's throughput "
                    "fluctuates (Fig. 10)",
            holds=bool(near["xfwa"] > 0.9 and near["xfwa"] > near["tcp"]),
            evidence=f"100 ms intervals at 90% of capacity or more: NewReno {near['tcp']:.0%}, XFWA {near['xfwa']:.0%} "
                     "(first replication; criterion: XFWA over 90% and above NewReno)")]
    doc = Doc(out)
    doc.heading(1, title)
    doc.para("Our runs of the paper's experiments (docs/reproduce-xfwa.md): plain NewReno on drop-tail against "
             "NewReno with XFWA at the bottleneck's first satellite. Means over the replications. The paper prints "
             "no numeric results for its figures (spec 004): each figure's claim is its text's, judged on our "
             "runs.", note=True)
    doc.table(pd.DataFrame(header, columns=["", "value"]), left=("", "value"))
    doc.heading(2, "The paper's claims")
    claims_table(doc, claim_list, "paper")
    doc.heading(2, "Numbers the paper's text prints, and ours")
    doc.table(paper_numbers(cells, obs), left=("quantity", "paper", "satcp", "where"))
    doc.heading(2, "Plain NewReno on scenario A beside ns-2 2.35")
    if beside.empty:
        doc.para("(ns-2 not run)", note=True)
    else:
        f = beside.copy()
        for m in ("utilization", "loss_rate", "mean_queue"):
            f[m] = [f"{a:.4g} / {b:.4g} ({d:+.1f}%)" for a, b, d in zip(f[f"{m}_satcp"], f[f"{m}_ns2"],
                                                                       f[f"{m}_diff_pct"])]
        doc.table(f[["link", "utilization", "loss_rate", "mean_queue"]].rename(
            columns={"utilization": "utilisation satcp / ns-2", "loss_rate": "loss rate satcp / ns-2",
                     "mean_queue": "average queue (packets) satcp / ns-2"}), left=("link",))
    doc.heading(2, "Fig. 5: overall performance, equal RTTs")
    doc.figure(fig5(cells, "equal", xfwa.SCHEDULES), "fig5",
               "Fig. 5: bottleneck utilisation, loss rate and fairness index per link type and flow-count scenario, "
               "NewReno (red) and XFWA (blue). Paper: no case where XFWA performs worse; higher fairness, higher "
               "utilisation, fewer drops.")
    eqc = cells[cells["experiment"] == "equal"]
    if not eqc.empty:
        t = eqc.pivot_table(index=["link", "schedule"], columns="scheme",
                            values=["utilization", "loss_rate", "mean_queue", "fairness"]).reset_index()
        t.columns = [" ".join(c).strip() for c in t.columns]
        t = t.sort_values(["link", "schedule"], key=lambda s: s.map(lambda v: xfwa.LINK_TYPES.index(v)
                                                                   if v in xfwa.LINK_TYPES else v))
        doc.table(t.round(4), left=("link", "schedule"))
    # time series of the first replication, T1
    for number, sched in (("6", "B"), ("7", "C"), ("8", "D")):
        res = t1_runs[sched]
        doc.figure(sequence_figure(res, f"T1, scenario {sched}"), f"fig{number}",
                   f"Fig. {number}: segment numbers over time, equal RTTs, T1, scenario {sched}. Paper: with TCP "
                   "flows fall below or grow above their share and suffer timeouts; with XFWA the lines run "
                   "parallel and change slope together when flows enter or leave.")
        if sched == "D":
            doc.figure(link_figure(res, "queue", xfwa.RATE_BPS["T1"]), "fig9",
                       "Fig. 9: the bottleneck queue every 100 ms, T1, scenario D. Paper: TCP overflows, oscillates, "
                       "overshoots at flow changes and underflows; XFWA never overflows, brief underflows only at "
                       "traffic changes.")
            doc.figure(link_figure(res, "throughput", xfwa.RATE_BPS["T1"]), "fig10",
                       "Fig. 10: bottleneck throughput per 100 ms, T1, scenario D. Paper: TCP fluctuates; XFWA near "
                       "capacity except when many flows enter (0 and 5 s).")
    doc.heading(2, "Figs. 11-14 and 17: different RTTs")
    doc.figure(sweep_figure(cells, "alpha", "skew factor alpha"), "fig11",
               "Fig. 11: utilisation, loss rate and fairness against XFWA's skew factor alpha (T1, scenario A, "
               "different RTTs), NewReno dashed. Paper: alpha = 1 is best; other values lower fairness, raise "
               "loss and lower utilisation (the alphas it tried are not printed).")
    res = pick(runs, obs, experiment="alpha", link="T1", schedule="A")
    res = {("tcp" if a == "tcp" else "xfwa"): rerun(j) for a, j in res.items() if a in ("tcp", "xfwa_alpha1")}
    doc.figure(sequence_figure(res, "different RTTs, T1, A"), "fig12",
               "Fig. 12: segment numbers over time, RTTs 160/240/320/400 ms (two flows each), T1, scenario A. "
               "Paper: TCP is grossly unfair to long-RTT flows; XFWA's lines run parallel.")
    per_link = {}
    for lk in xfwa.LINK_TYPES:
        got = pick(runs, obs, experiment="rtts", link=lk, schedule="A")
        if got:
            per_link[lk] = {a: rerun(j) for a, j in got.items()}
    doc.figure(per_flow_figure(per_link), "fig13",
               "Fig. 13: packets each flow delivered in 20 s, different RTTs, scenario A, per link type. Paper: with "
               "XFWA all flows send nearly the same; with TCP the short-RTT flows send far more.")
    doc.figure(sweep_figure(cells, "rtt_error", "RTT estimation error sigma (e ~ U[-sigma, sigma])"), "fig14",
               "Fig. 14: utilisation, loss rate and fairness against the RTT estimation error (T1, scenario A, "
               "different RTTs). Paper: small errors keep better utilisation and fairness than TCP; large ones "
               "degrade them (its sigmas are not printed).")
    doc.figure(fig5(cells, "rtts", ("A",)), "fig17",
               "Fig. 17: overall performance with different RTTs (alpha = 1), scenario A, per link type.")
    doc.heading(2, "Figs. 15-16: ON-OFF cross traffic")
    doc.figure(onoff_figure(cells), "fig15",
               "Fig. 15: utilisation and loss rate against the number of ON-OFF TCP sources (T2, ten persistent "
               "flows; sources on from 5 to 15 s). Paper: XFWA has higher utilisation and significantly fewer drops, "
               "even at high ON-OFF counts.")
    res = {a: rerun(j) for a, j in pick(runs, obs, experiment="onoff", onoff=45).items()}
    shown = {f"f{i}" for i in range(1, 11)} | {f"f{k}" for k in range(15, 56, 5)}
    res = {a: _only_flows(r, shown) for a, r in res.items()}
    doc.figure(sequence_figure(res, "10 persistent + 45 ON-OFF, T2"), "fig16",
               "Fig. 16: segment numbers over time of the ten persistent flows and ON-OFF sources 15, 20, ..., 55 "
               "(T2, 45 ON-OFF sources from 5 to 15 s). Paper: with XFWA the persistent flows stay fair and change "
               "slope at 5 and 15 s, and the ON-OFF traffic is not penalised for being idle; with TCP both deviate "
               "greatly.")
    doc.failed_runs(runs)
    return doc.write(out, title), claim_list


def reproduce(*, quick: bool = False, out: str | Path | None = None, store: str | Path | None = None,
              workers: int | None = None, only: list[str] | None = None, root: Path | None = None,
              stdout: TextIO = sys.stdout) -> int:
    t0 = time.perf_counter()
    started = runner.setup_and_run("xfwa", xfwa.catalogue(quick), quick=quick, out=out, store=store, workers=workers,
                                   only=only, root=root, default_root=xfwa.REPO_ROOT, collect=xfwa.collect)
    if isinstance(started, int):
        return started
    s, outcome = started
    obs = outcome.observations
    cells = xfwa.cells(obs)
    ns2 = pd.DataFrame()
    if not only or "equal" in only:
        try:
            ns2 = xfwa.ns2_runs(quick, s.out / "ns2", workers or os.cpu_count() or 1)
        except (FileNotFoundError, RuntimeError) as e:
            print(f"ns-2 not run: {e}", file=stdout)
    beside = xfwa.ns2_beside(cells, ns2)
    claim_list = xfwa.claims(cells, beside)
    obs.to_csv(s.out / "runs.csv", index=False)
    header = header_rows("xfwa", quick, outcome.report, obs, time.perf_counter() - t0)
    (html_path, md_path), claim_list = write_report(s.out, cells, obs, outcome.runs, beside, claim_list, header,
                                      "satcp reproduction of XFWA (Taleb, Kato and Nemoto, IEEE JSAC 2003)"
                                      + (" (quick)" if quick else ""), quick)
    eq = cells[cells["experiment"] == "equal"] if not cells.empty else cells
    if not eq.empty:
        t = eq.pivot_table(index=["link", "schedule"], columns="scheme", values=["fairness", "loss_rate"])
        print(format_table(["link", "scenario", "fairness TCP", "fairness XFWA", "loss TCP", "loss XFWA"],
                           [(lk, sc, f"{r[('fairness', 'tcp')]:.3f}", f"{r[('fairness', 'xfwa')]:.3f}",
                             f"{r[('loss_rate', 'tcp')] * 100:.2f}%", f"{r[('loss_rate', 'xfwa')] * 100:.2f}%")
                            for (lk, sc), r in t.iterrows()], "llrrrr"), file=stdout)
    print_claims(claim_list, stdout)
    return runner.finish(outcome, s, (html_path, md_path), t0, stdout)
