"""The XFWA study's report: ``DIR/index.html`` and ``DIR/report.md`` (Fig.
5 and Figs. 6-17 redrawn from our runs, each with the paper's claim and
our verdict; every number the paper's text prints beside ours; plain
NewReno beside ns-2 2.35; ``runs.csv`` beside them), and the summary
``satcp reproduce xfwa`` prints.
"""

from __future__ import annotations

from pathlib import Path

from ...tables import format_table
from ..kit import claims as kit_claims
from ..kit.claims import Claim
from ..kit.document import Doc
from ..kit.study import Context
from . import figures
from .experiments import LINK_TYPES, RATE_BPS, SCHEDULES
from .results import Analysis, paper_numbers


def write(ctx: Context, a: Analysis, claim_list: list[Claim]) -> tuple[Path, Path]:
    cells, obs, runs, beside, t1_runs = a.cells, a.observations, a.runs, a.beside, a.t1
    profile = ctx.study.profile.name
    obs.to_csv(ctx.out / "runs.csv", index=False)
    doc = Doc.opened(ctx, "satcp reproduction of XFWA (Taleb, Kato and Nemoto, IEEE JSAC 2003)", (
        "Our runs of the paper's experiments (docs/reproduce-xfwa.md): plain NewReno on drop-tail against "
        "NewReno with XFWA at the bottleneck's first satellite. Means over the replications. The paper prints "
        "no numeric results for its figures (spec 004): each figure's claim is its text's, judged on our "
        "runs."))
    doc.claims(claim_list, "paper", heading="The paper's claims")
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
    doc.figure(figures.fig5(cells, "equal", SCHEDULES, profile), "fig5",
               "Fig. 5: bottleneck utilisation, loss rate and fairness index per link type and flow-count scenario, "
               "NewReno (red) and XFWA (blue). Paper: no case where XFWA performs worse; higher fairness, higher "
               "utilisation, fewer drops.")
    eqc = cells[cells["experiment"] == "equal"]
    if not eqc.empty:
        t = eqc.pivot_table(index=["link", "schedule"], columns="scheme",
                            values=["utilization", "loss_rate", "mean_queue", "fairness"]).reset_index()
        t.columns = [" ".join(c).strip() for c in t.columns]
        t = t.sort_values(["link", "schedule"], key=lambda s: s.map(lambda v: LINK_TYPES.index(v)
                                                                   if v in LINK_TYPES else v))
        doc.table(t.round(4), left=("link", "schedule"))
    # time series of the first replication, T1
    for number, sched in (("6", "B"), ("7", "C"), ("8", "D")):
        res = t1_runs[sched]
        doc.figure(figures.sequence_figure(res, f"T1, scenario {sched}", profile), f"fig{number}",
                   f"Fig. {number}: segment numbers over time, equal RTTs, T1, scenario {sched}. Paper: with TCP "
                   "flows fall below or grow above their share and suffer timeouts; with XFWA the lines run "
                   "parallel and change slope together when flows enter or leave.")
        if sched == "D":
            doc.figure(figures.link_figure(res, "queue", RATE_BPS["T1"], profile), "fig9",
                       "Fig. 9: the bottleneck queue every 100 ms, T1, scenario D. Paper: TCP overflows, oscillates, "
                       "overshoots at flow changes and underflows; XFWA never overflows, brief underflows only at "
                       "traffic changes.")
            doc.figure(figures.link_figure(res, "throughput", RATE_BPS["T1"], profile), "fig10",
                       "Fig. 10: bottleneck throughput per 100 ms, T1, scenario D. Paper: TCP fluctuates; XFWA near "
                       "capacity except when many flows enter (0 and 5 s).")
    doc.heading(2, "Figs. 11-14 and 17: different RTTs")
    doc.figure(figures.sweep_figure(cells, "alpha", "skew factor alpha (dimensionless)", profile), "fig11",
               "Fig. 11: utilisation, loss rate and fairness against XFWA's skew factor alpha (T1, scenario A, "
               "different RTTs), NewReno dashed. Paper: alpha = 1 is best; other values lower fairness, raise "
               "loss and lower utilisation (the alphas it tried are not printed).")
    doc.figure(figures.sequence_figure(a.alpha, "different RTTs, T1, A", profile), "fig12",
               "Fig. 12: segment numbers over time, RTTs 160/240/320/400 ms (two flows each), T1, scenario A. "
               "Paper: TCP is grossly unfair to long-RTT flows; XFWA's lines run parallel.")
    doc.figure(figures.per_flow_figure(a.rtts, profile), "fig13",
               "Fig. 13: packets each flow delivered in 20 s, different RTTs, scenario A, per link type. Paper: with "
               "XFWA all flows send nearly the same; with TCP the short-RTT flows send far more.")
    doc.figure(figures.sweep_figure(cells, "rtt_error", "RTT estimation error sigma (e ~ U[-sigma, sigma])",
                                    profile), "fig14",
               "Fig. 14: utilisation, loss rate and fairness against the RTT estimation error (T1, scenario A, "
               "different RTTs). Paper: small errors keep better utilisation and fairness than TCP; large ones "
               "degrade them (its sigmas are not printed).")
    doc.figure(figures.fig5(cells, "rtts", ("A",), profile), "fig17",
               "Fig. 17: overall performance with different RTTs (alpha = 1), scenario A, per link type.")
    doc.heading(2, "Figs. 15-16: ON-OFF cross traffic")
    doc.figure(figures.onoff_figure(cells, profile), "fig15",
               "Fig. 15: utilisation and loss rate against the number of ON-OFF TCP sources (T2, ten persistent "
               "flows; sources on from 5 to 15 s). Paper: XFWA has higher utilisation and significantly fewer drops, "
               "even at high ON-OFF counts.")
    shown = {f"f{i}" for i in range(1, 11)} | {f"f{k}" for k in range(15, 56, 5)}
    res = {s: figures.only_flows(r, shown) for s, r in a.onoff.items()}
    doc.figure(figures.sequence_figure(res, "10 persistent + 45 ON-OFF, T2", profile), "fig16",
               "Fig. 16: segment numbers over time of the ten persistent flows and ON-OFF sources 15, 20, ..., 55 "
               "(T2, 45 ON-OFF sources from 5 to 15 s). Paper: with XFWA the persistent flows stay fair and change "
               "slope at 5 and 15 s, and the ON-OFF traffic is not penalised for being idle; with TCP both deviate "
               "greatly.")
    return doc.close(runs)


def summary(a: Analysis, claims: list[Claim]) -> str:
    """Fairness and loss of NewReno and XFWA per link type and scenario
    (equal RTTs), then every claim."""
    eq = a.cells[a.cells["experiment"] == "equal"] if not a.cells.empty else a.cells
    parts = []
    if not eq.empty:
        t = eq.pivot_table(index=["link", "schedule"], columns="scheme", values=["fairness", "loss_rate"])
        parts.append(format_table(["link", "scenario", "fairness TCP", "fairness XFWA", "loss TCP", "loss XFWA"],
                                  [(lk, sc, f"{r[('fairness', 'tcp')]:.3f}", f"{r[('fairness', 'xfwa')]:.3f}",
                                    f"{r[('loss_rate', 'tcp')] * 100:.2f}%", f"{r[('loss_rate', 'xfwa')] * 100:.2f}%")
                                   for (lk, sc), r in t.iterrows()], "llrrrr"))
    parts.append(kit_claims.lines(claims))
    return "\n".join(parts)
