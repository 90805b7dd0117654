"""The quic-geo study's results: one observation per run from the store's
flow rows (completion, goodput, page response time, QUIC's handshake and
lost packets, TCP's retransmissions and timeouts), means with 95%
Student-t intervals over the seeds per cell, and the findings, computed
from the runs (no published numbers exist for this study).
"""

from __future__ import annotations

import math

import pandas as pd

from ...store import Store
from ..kit import data
from ..kit.catalogue import Experiment, PlannedRun
from ..kit.cells import CellAnalysis, cell, cell_table, one
from ..kit.claims import Claim, judged
from ..kit.study import Context
from .experiments import COUNTERPART, NAMES, ORDER, RATE_BPS, RTT_S, spec


#: the factor columns: a cell is (experiment, arm) and these
LEVELS = ["per", "size_kb", "pipelining", "stream_window"]
COLUMNS = ["experiment", "path", "kind", "arm", "transport", "cc", "iw", *LEVELS, "key", "status", "completed",
           "completion_s", "goodput_bps", "page_response_s", "pages_completed", "handshake_s", "lost_packets",
           "retransmissions", "timeouts", "packets_sent"]
METRICS = ("completion_s", "goodput_bps", "page_response_s", "handshake_s", "lost_packets", "retransmissions",
           "timeouts")


def _num(v) -> float:
    return math.nan if v is None or pd.isna(v) else float(v)


def collect(store: Store, runs: list[PlannedRun], experiments: list[Experiment]) -> pd.DataFrame:
    """One row per run (``COLUMNS``) from the flow ``transfer``. For QUIC,
    ``lost_packets`` is what quinn declared lost and ``retransmissions``
    the same count (QUIC resends frames, not packets); ``handshake_s`` is
    QUIC's only (TCP's summary has no handshake time: its set-up shows in
    the 1 KB transfers' completion)."""
    if not runs:
        return pd.DataFrame(columns=COLUMNS)
    got = data.stored(store, runs, ("flows",))
    rows = []
    for p, status, flows in got.each(runs):
        s = spec(p.arm)
        kind, path = p.experiment.split("-", 1)
        row = dict(experiment=p.experiment, path=path, kind=kind, arm=p.arm, transport=s.transport, cc=s.cc,
                   iw=s.iw, key=p.run.key, status=status, **{c: p.levels.get(c) for c in LEVELS})
        if flows is not None:
            f = flows[flows["flow"] == "transfer"].iloc[0]
            quic = s.transport == "quic"
            done = bool(f["completed"])
            row.update(completed=done, completion_s=_num(f["completion_s"]) if done else math.nan,
                       goodput_bps=_num(f["goodput_bps"]) if done and kind != "http" else math.nan,
                       page_response_s=_num(f["mean_page_response_s"]) if kind == "http" else math.nan,
                       pages_completed=int(f["pages_completed"]),
                       handshake_s=_num(f["quic_handshake_s"]) if quic else math.nan,
                       lost_packets=int(f["quic_lost_packets"]) if quic else int(f["retransmissions"]),
                       retransmissions=int(f["retransmissions"]), timeouts=int(f["timeouts"]),
                       packets_sent=int(f["segments_sent"]))
        rows.append(row)
    return pd.DataFrame(rows, columns=COLUMNS)


def table(obs: pd.DataFrame) -> pd.DataFrame:
    """Per experiment, arm and factor levels: runs, completed runs, and
    each metric's mean with its interval's half-width."""
    order = {k: i for i, k in enumerate(ORDER)}
    return cell_table(obs, ["experiment", "path", "kind", "arm", "transport", "cc", "iw"], LEVELS, METRICS, lambda r: order[(r["transport"], r["cc"])], ["experiment", "size_kb", "pipelining", "stream_window", "per", "iw"])


def name(transport: str, cc: str) -> str:
    return NAMES[(transport, cc)]


def findings(rows: pd.DataFrame) -> list[Claim]:
    """What the runs show, each with the numbers it rests on: computed
    statements about our own runs, no published numbers to set them
    beside."""
    out: list[Claim] = []
    if rows.empty:
        return out
    bulk = rows[rows["kind"] == "bulk"]
    if not bulk.empty:
        big = bulk["size_kb"].max()
        clean = cell(bulk, size_kb=big, per=0.0)
        q = clean[clean["transport"] == "quic"]
        if not q.empty:
            shares = [(r["path"], r["cc"], r["iw"], r["goodput_bps"] / RATE_BPS[r["path"]]) for _, r in q.iterrows()]
            out.append(judged(
                "quic_fills_geo", f"QUIC fills the GEO downlink: every QUIC controller's loss-free {big / 1000:g} MB "
                                  "goodput is at least 80% of the downlink's rate",
                all(s >= 0.8 for *_, s in shares),
                "goodput / downlink rate: " + "; ".join(f"{p} {name('quic', c)} IW{iw} {s:.0%}"
                                                         for p, c, iw, s in shares)))
        pairs = []
        for _, r in q.iterrows():
            t = one(clean, "completion_s", path=r["path"], transport="tcp", cc=COUNTERPART[r["cc"]], iw=r["iw"])
            if t == t:
                pairs.append((r["path"], r["cc"], r["iw"], r["completion_s"] / t))
        if pairs:
            out.append(judged(
                "same_controller_within_10pct", f"The same controller on QUIC and on TCP (SACK, the same initial "
                                                f"window) completes {big / 1000:g} MB loss-free within 10% (issue "
                                                "41's bound)",
                all(abs(x - 1) <= 0.10 for *_, x in pairs),
                "QUIC / TCP completion time: " + "; ".join(
                    f"{p} {name('quic', c)} vs {name('tcp', COUNTERPART[c])} IW{iw} x{x:.3f}" for p, c, iw, x in pairs)))
        hs = bulk[(bulk["transport"] == "quic") & (bulk["per"] == 0.0)]
        if not hs.empty:
            by_path = hs.groupby("path")["handshake_s"].agg(["min", "max"])
            out.append(judged(
                "quic_handshake_one_rtt", f"QUIC's handshake (TLS 1.3 inside) takes one round trip: between the "
                                          f"path's {RTT_S * 1e3:.0f} ms propagation RTT and 10% more, loss-free",
                bool(((by_path["min"] >= RTT_S) & (by_path["max"] <= 1.1 * RTT_S)).all()),
                "; ".join(f"{p}: {r['min'] * 1e3:.1f} to {r['max'] * 1e3:.1f} ms" for p, r in by_path.iterrows())))
        small = cell(bulk, size_kb=bulk["size_kb"].min(), per=0.0, iw=10)
        if not small.empty:
            ratios = []
            for p in sorted(small["path"].unique()):
                qt = cell(small, path=p, transport="quic")["completion_s"].mean()
                tt = cell(small, path=p, transport="tcp")["completion_s"].mean()
                ratios.append((p, qt, tt))
            out.append(judged(
                "first_response_two_rtt", "A 1 KB request and response takes two round trips on both: QUIC's "
                                          "handshake carries TLS, TCP's here carries none (satcp does not model TLS "
                                          "over TCP, which would add a round trip)",
                all(2 * RTT_S <= x <= 2.3 * RTT_S for _, a, b in ratios for x in (a, b)),
                "; ".join(f"{p}: QUIC {a:.3f} s, TCP {b:.3f} s ({a / RTT_S:.2f} and {b / RTT_S:.2f} RTT)"
                          for p, a, b in ratios)))
        lossy = bulk[bulk["size_kb"] == big]
        worse = []
        for (p, arm), g in lossy.groupby(["path", "arm"]):
            g = g.set_index("per")
            if 0.0 in g.index and g.index.max() > 0:
                worse.append((p, arm, g.loc[g.index.max(), "completion_s"] / g.loc[0.0, "completion_s"]))
        if worse:
            out.append(judged(
                "loss_slows_every_arm", f"Every arm completes {big / 1000:g} MB later at the highest PER than "
                                        "loss-free",
                all(x > 1 for *_, x in worse),
                f"completion at PER {lossy['per'].max():g} / loss-free: from x{min(x for *_, x in worse):.2f} to "
                f"x{max(x for *_, x in worse):.2f} over {len(worse)} arm-path pairs"))
        hi = cell(bulk, size_kb=big, per=bulk["per"].max())
        pq = []
        for _, r in hi[hi["transport"] == "quic"].iterrows():
            t = one(hi, "completion_s", path=r["path"], transport="tcp", cc=COUNTERPART[r["cc"]], iw=r["iw"])
            if t == t:
                pq.append((r["path"], r["cc"], r["iw"], r["completion_s"] / t))
        if pq and bulk["per"].max() > 0:
            n_faster = sum(x < 1 for *_, x in pq)
            out.append(judged(
                "quic_vs_tcp_under_loss", f"At PER {bulk['per'].max():g}, QUIC completes {big / 1000:g} MB sooner "
                                          "than TCP with the same controller in most pairs",
                n_faster > len(pq) / 2,
                f"QUIC faster in {n_faster} of {len(pq)}; QUIC / TCP completion: "
                + "; ".join(f"{p} {c} IW{iw} x{x:.2f}" for p, c, iw, x in pq)))
        sizes = sorted(s for s in bulk["size_kb"].unique() if s >= 1000)
        mid = cell(bulk, size_kb=sizes[0], per=0.0) if sizes else bulk.iloc[:0]
        if not mid.empty and {10, 32} <= set(mid["iw"]):
            gains = []
            for (p, t, c), g in mid.groupby(["path", "transport", "cc"]):
                g = g.set_index("iw")
                if 10 in g.index and 32 in g.index:
                    gains.append((p, t, c, g.loc[10, "completion_s"] - g.loc[32, "completion_s"]))
            out.append(judged(
                "iw32_shortens_transfers", "An initial window of 32 packets instead of 10 shortens a loss-free "
                                           f"{sizes[0] / 1000:g} MB transfer on every arm and path",
                all(x > 0 for *_, x in gains),
                "IW10 - IW32 completion: " + "; ".join(f"{p} {name(t, c)} {x:+.2f} s" for p, t, c, x in gains)))
    http = rows[(rows["kind"] == "http") & (rows["iw"] == 10)]
    if not http.empty:
        ev = []
        for (p, per), g in http.groupby(["path", "per"]):
            qp = cell(g, transport="quic", pipelining=True)["page_response_s"]
            tp = cell(g, transport="tcp", pipelining=True)["page_response_s"]
            tn = cell(g, transport="tcp", pipelining=False)["page_response_s"]
            if len(qp) and len(tp):
                ev.append((p, per, qp.mean(), tp.mean(), tn.mean() if len(tn) else math.nan))
        if ev:
            out.append(judged(
                "quic_pages_faster", "QUIC's parallel streams on one connection load a page sooner than TCP's "
                                     "persistent connection, pipelined (mean over the controllers, IW 10)",
                all(a < b for _, _, a, b, _ in ev),
                "page response QUIC / TCP pipelined / TCP one at a time: " + "; ".join(
                    f"{p} PER {per:g}: {a:.2f} / {b:.2f} / " + (f"{c:.2f} s" if c == c else "-")
                    for p, per, a, b, c in ev)))
    out += resume_findings(rows[rows["kind"] == "resume"])
    out += leo_findings(rows[rows["kind"] == "leo"])
    out += big_findings(rows[rows["kind"] == "big"])
    win = rows[rows["kind"] == "window"]
    if not win.empty:
        w = cell(win, per=0.0)
        top = w["stream_window"].max()
        ev, limited = [], []
        from .experiments import QUINN_STREAM_WINDOW
        for c, g in w.groupby("cc"):
            g = g.set_index("stream_window")
            if QUINN_STREAM_WINDOW in g.index and top in g.index:
                d, t = g.loc[QUINN_STREAM_WINDOW, "goodput_bps"], g.loc[top, "goodput_bps"]
                ev.append((c, d, t))
                limited.append(d < 0.95 * t)
        if ev:
            out.append(judged(
                "quinn_default_window_limits_20mbps", "quinn's default stream window (1.25 MB, about one "
                                                      "bandwidth-delay product of the 20 Mb/s GEO path) holds a "
                                                      "loss-free 50 MB transfer below 95% of what a window of "
                                                      f"{top / 1e6:.2f} MB reaches",
                all(limited),
                "goodput at 1.25 MB / at the largest window: " + "; ".join(
                    f"{name('quic', c)} {d / 1e6:.2f} / {t / 1e6:.2f} Mb/s" for c, d, t in ev)))
        lo = w["stream_window"].min()
        caps = [(c, float(g["goodput_bps"].iloc[0])) for c, g in cell(w, stream_window=lo).groupby("cc")]
        if caps:
            bound = lo * 8 / RTT_S
            out.append(judged(
                "small_window_caps_goodput", f"A stream window of {lo / 1e6:.2f} MB caps goodput at about window / "
                                             f"RTT ({bound / 1e6:.1f} Mb/s) whatever the controller",
                all(g <= bound * 1.02 for _, g in caps),
                "; ".join(f"{name('quic', c)} {g / 1e6:.2f} Mb/s" for c, g in caps)))
    return out


def resume_findings(rows: pd.DataFrame) -> list[Claim]:
    """The resume experiments' findings: Careful Resume against the same
    CUBIC without it, BBR on QUIC against BBR on TCP and against CUBIC
    under loss."""
    out: list[Claim] = []
    if rows.empty:
        return out
    clean = cell(rows, per=0.0)
    gains, retreats = [], []
    for (p, size), g in clean.groupby(["path", "size_kb"]):
        base = one(g, "completion_s", cc="cubic", transport="quic")
        fit = one(g, "completion_s", cc="cubic+cr", transport="quic")
        big = one(g, "completion_s", cc="cubic+cr4", transport="quic")
        if base == base and fit == fit:
            gains.append((p, size, base, fit))
        if base == base and big == big:
            retreats.append((p, size, base, big, int(one(g, "completed", cc="cubic+cr4")), int(one(g, "runs", cc="cubic+cr4"))))
    if gains:
        out.append(judged(
            "careful_resume_sooner", "Careful Resume from a saved state that fits the path completes every loss-free "
                                     "transfer sooner than the same CUBIC on QUIC without it",
            all(f < b for *_, b, f in gains),
            "without / with: " + "; ".join(f"{p} {s / 1000:g} MB {b:.2f} / {f:.2f} s" for p, s, b, f in gains)))
    if retreats:
        out.append(judged(
            "careful_resume_retreats_safely", "From a saved window four times too large, Careful Resume still "
                                              "completes every loss-free transfer, no more than 10% later than "
                                              "CUBIC without it",
            all(d == n and x <= 1.1 * b for _, _, b, x, d, n in retreats),
            "without / with the 4x window: " + "; ".join(f"{p} {s / 1000:g} MB {b:.2f} / {x:.2f} s ({d}/{n} runs)"
                                                         for p, s, b, x, d, n in retreats)))
    big = rows["size_kb"].max()
    pairs = []
    for c in ("bbr", "bbr3"):
        for p in sorted(clean["path"].unique()):
            q = one(clean, "completion_s", path=p, size_kb=big, transport="quic", cc=c)
            t = one(clean, "completion_s", path=p, size_kb=big, transport="tcp", cc=c)
            if q == q and t == t:
                pairs.append((p, c, q / t))
    if pairs:
        out.append(judged(
            "bbr_quic_near_tcp", f"BBR v1 and v3 on QUIC (through the adapter, paced by quinn from the window) "
                                 f"complete {big / 1000:g} MB loss-free within 10% of the same BBR on TCP",
            all(abs(x - 1) <= 0.10 for *_, x in pairs),
            "QUIC / TCP: " + "; ".join(f"{p} {c} x{x:.3f}" for p, c, x in pairs)))
    top = rows["per"].max()
    if top > 0:
        lossy = cell(rows, per=top, size_kb=big, transport="quic")
        ratios = []
        for p in sorted(lossy["path"].unique()):
            cu = one(lossy, "completion_s", path=p, cc="cubic")
            for c in ("bbr", "bbr3"):
                b = one(lossy, "completion_s", path=p, cc=c)
                if cu == cu and b == b:
                    ratios.append((p, c, cu / b))
        if ratios:
            out.append(judged(
                "bbr_rides_out_loss", f"At PER {top:g}, BBR v1 and v3 on QUIC complete {big / 1000:g} MB at least "
                                      "twice as fast as CUBIC on QUIC (BBR does not take random loss for congestion)",
                all(x >= 2 for *_, x in ratios),
                "CUBIC / BBR completion: " + "; ".join(f"{p} {c} x{x:.1f}" for p, c, x in ratios)))
    return out


def leo_findings(rows: pd.DataFrame) -> list[Claim]:
    """The Starlink experiment's findings: every transfer through the
    reassignment, QUIC against TCP with the same controller, and what a
    PER of 1e-3 on the ground links costs each arm."""
    out: list[Claim] = []
    if rows.empty:
        return out
    done, runs = int(rows["completed"].sum()), int(rows["runs"].sum())
    out.append(judged(
        "starlink_transfers_complete", "Every transfer across the Starlink shell completes, on QUIC and on TCP, "
                                       "through the satellite reassignment inside it (what is on a ground link "
                                       "then is lost)",
        done == runs, f"{done} of {runs} runs completed"))
    big = rows["size_kb"].max()
    clean = cell(rows, per=0.0, size_kb=big)
    pairs = []
    for c in ("quinn-cubic", "cubic", "bbr"):
        q = one(clean, "completion_s", transport="quic", cc=c)
        t = one(clean, "completion_s", transport="tcp", cc=COUNTERPART.get(c, c))
        if q == q and t == t:
            pairs.append((c, q, t))
    if pairs:
        out.append(judged(
            "starlink_same_controller_within_10pct", f"Across the Starlink shell the same controller on QUIC and on "
                                                     f"TCP completes {big / 1000:g} MB loss-free within 10%",
            all(abs(q / t - 1) <= 0.10 for _, q, t in pairs),
            "QUIC / TCP completion: " + "; ".join(
                f"{name('quic', c)} {q:.2f} s vs {name('tcp', COUNTERPART.get(c, c))} {t:.2f} s (x{q / t:.3f})"
                for c, q, t in pairs)))
    top = rows["per"].max()
    if top > 0:
        cost = []
        for (t, c), g in cell(rows, size_kb=big).groupby(["transport", "cc"]):
            a, b = one(g, "completion_s", per=0.0), one(g, "completion_s", per=top)
            if a == a and b == b:
                cost.append((t, c, b / a))
        by = {(t, c): x for t, c, x in cost}
        ev = [(t, by[(t, "cubic")], by[(t, "bbr")]) for t in ("quic", "tcp") if (t, "cubic") in by and (t, "bbr") in by]
        if ev:
            out.append(judged(
                "starlink_loss_costs_cubic_more", f"A PER of {top:g} on every ground-satellite link slows CUBIC's "
                                                  f"{big / 1000:g} MB more than BBR's, on QUIC and on TCP",
                all(cu > bb for _, cu, bb in ev),
                "completion at PER " + f"{top:g} / loss-free: " + "; ".join(
                    f"{name(t, c)} x{x:.2f}" for t, c, x in cost)))
    return out


def big_findings(rows: pd.DataFrame) -> list[Claim]:
    """100 MB over the 20 Mb/s GEO path: does QUIC fill it, and how far
    is it from TCP with the same controller."""
    out: list[Claim] = []
    clean = cell(rows, per=0.0) if not rows.empty else rows
    if clean.empty:
        return out
    rate = RATE_BPS["20mbps"]
    shares = [(t, c, g) for t, c, g in zip(clean["transport"], clean["cc"], clean["goodput_bps"]) if g == g]
    out.append(judged(
        "quic_fills_geo_100mb", "Over 100 MB every QUIC controller's loss-free goodput is at least 80% of the "
                                "20 Mb/s GEO downlink",
        all(g >= 0.8 * rate for t, _, g in shares if t == "quic"),
        "goodput / downlink rate: " + "; ".join(f"{name(t, c)} {g / rate:.0%}" for t, c, g in shares)))
    return out


Analysis = CellAnalysis


def analyse(ctx: Context) -> Analysis:
    return Analysis(ctx.observations, ctx.runs, table(ctx.observations))


def claims(a: Analysis) -> list[Claim]:
    return findings(a.rows)
