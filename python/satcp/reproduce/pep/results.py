"""The pep study's results: one observation per run (completion, first
byte and page response time as the client sees them from the flow rows;
the real ends' retransmissions; the PEPs' legs' retransmissions and their
split, waited and passed connections from the run's summary), means with
95% Student-t intervals over the seeds per cell, and the findings,
computed from the runs (no published numbers exist for this study).
The pool experiment's run is its six flows: their mean and last
completion, their mean first byte.
"""

from __future__ import annotations

import json
import math

import pandas as pd

from ...store import Store
from ..kit import data
from ..kit.catalogue import Experiment, PlannedRun
from ..kit.cells import CellAnalysis, cell, cell_table, one
from ..kit.claims import Claim, judged
from ..kit.study import Context
from .experiments import CC_NAMES, QUIC_CC, SAT_RTT_S, SCHEMES, SETUP_NAMES, SETUPS, TCP_CCS, spec


#: the factor columns: a cell is (experiment, arm) and these
LEVELS = ["per", "size_kb"]
COLUMNS = ["experiment", "path", "kind", "arm", "setup", "cc", "transport", *LEVELS, "key", "status", "completed",
           "completion_s", "last_completion_s", "first_byte_s", "page_response_s", "retransmissions", "timeouts",
           "pep_retransmissions", "pep_timeouts", "split", "waited", "passed_pool_full", "pool_peak_bytes"]
METRICS = ("completion_s", "last_completion_s", "first_byte_s", "page_response_s", "retransmissions", "timeouts",
           "pep_retransmissions", "pep_timeouts", "split", "waited", "passed_pool_full", "pool_peak_bytes")


def _num(v) -> float:
    return math.nan if v is None or pd.isna(v) else float(v)


def pep_counts(summary: dict) -> dict:
    """The PEPs' part of a run: retransmissions and timeouts their ends
    sent on every leg (a pair's satellite leg counted at both of its
    ends: the data sender's and the ACK sender's), connections split
    (distinct flows any PEP holds), held at a full pool, passed for want
    of pool, and the highest pool use of any PEP."""
    peps = summary.get("peps") or []
    legs = [leg for p in peps for c in p["connections"] for leg in c["legs"]]
    counters = [p["counters"] for p in peps]
    return dict(pep_retransmissions=float(sum(leg["retransmissions"] for leg in legs)),
                pep_timeouts=float(sum(leg["timeouts"] for leg in legs)),
                split=float(len({c["flow"] for p in peps for c in p["connections"]})),
                waited=float(sum(c["waited"] for c in counters)),
                passed_pool_full=float(sum(c["passed_pool_full"] for c in counters)),
                pool_peak_bytes=float(max((c["pool_peak_bytes"] for c in counters), default=0)))


def collect(store: Store, runs: list[PlannedRun], experiments: list[Experiment]) -> pd.DataFrame:
    """One row per run (``COLUMNS``). A run counts as completed when all
    of its flows completed; completion and first byte are the mean over
    its flows (one flow outside the pool experiment)."""
    if not runs:
        return pd.DataFrame(columns=COLUMNS)
    got = data.stored(store, runs, ("flows",), run_columns=("status", "summary_json"))
    rows = []
    for p, status, flows in got.each(runs):
        s = spec(p.arm)
        kind, path = p.experiment.split("-", 1)
        setup = s.setup.removeprefix("pool") if kind == "pool" else s.setup
        row = dict(experiment=p.experiment, path=path, kind=kind, arm=p.arm, setup=setup, cc=s.cc,
                   transport=s.transport, key=p.run.key, status=status, **{c: p.levels.get(c) for c in LEVELS})
        if flows is not None:
            done = bool(flows["completed"].all())
            comp = flows["completion_s"].astype(float)
            row.update(completed=done, completion_s=float(comp.mean()) if done else math.nan,
                       last_completion_s=float(comp.max()) if done else math.nan,
                       first_byte_s=float(flows["first_byte_s"].astype(float).mean()),
                       page_response_s=(_num(flows["mean_page_response_s"].iloc[0]) if kind == "http"
                                        else math.nan),
                       retransmissions=float(flows["retransmissions"].sum()),
                       timeouts=float(flows["timeouts"].sum()),
                       **pep_counts(json.loads(got.runs.loc[p.run.key, "summary_json"])))
        rows.append(row)
    return pd.DataFrame(rows, columns=COLUMNS)


ORDER = [(st, cc) for cc in (*TCP_CCS, QUIC_CC, *SCHEMES)
         for st in (*SETUPS, "all_wait", "two_wait", "two_pass")]


def table(obs: pd.DataFrame) -> pd.DataFrame:
    """Per experiment, arm and factor levels: runs, completed runs, and
    each metric's mean with its interval's half-width."""
    order = {k: i for i, k in enumerate(ORDER)}
    return cell_table(obs, ["experiment", "path", "kind", "arm", "setup", "cc", "transport"], LEVELS, METRICS, lambda r: order[(r["setup"], r["cc"])], ["experiment", "size_kb", "per"])


def name(setup: str, cc: str) -> str:
    return f"{CC_NAMES[cc]}, {SETUP_NAMES.get(setup, setup)}"


def _pairs(rows: pd.DataFrame, col: str, setup: str, cc_set, by=("path", "per", "size_kb")) -> list:
    """(cell levels, cc, the set-up's value, end to end's value) for every
    cell where both exist."""
    out = []
    for _, r in rows[(rows["setup"] == setup) & rows["cc"].isin(cc_set)].iterrows():
        eq = {k: r[k] for k in by if r[k] == r[k] and r[k] is not None}
        e = one(rows, col, experiment=r["experiment"], setup="e2e", cc=r["cc"], **eq)
        if e == e and r[col] == r[col]:
            out.append((eq, r["cc"], float(r[col]), e))
    return out


def _lv(eq: dict) -> str:
    parts = [eq["path"]]
    if "size_kb" in eq:
        parts.append(f"{eq['size_kb'] / 1000:g} MB")
    if "per" in eq:
        parts.append(f"PER {eq['per']:g}")
    return " ".join(parts)


def findings(rows: pd.DataFrame) -> list[Claim]:
    """What the runs show, each with the numbers it rests on: computed
    statements about our own runs, no published numbers to set them
    beside."""
    out: list[Claim] = []
    if rows.empty:
        return out
    main = rows[rows["kind"].isin(["bulk", "http"])]
    tcp = main[main["transport"] == "tcp"]
    # first byte: a PEP never later than end to end (a few ms of slack)
    fb = [(s, *p) for s in ("pep1", "pep2", "pep2same") for p in _pairs(tcp, "first_byte_s", s, TCP_CCS)]
    if fb:
        worst = max(fb, key=lambda x: x[3] - x[4])
        out.append(judged(
            "pep_first_byte_never_later", "A PEP's first byte is never more than 5 ms later than end to end's, in "
                                          "any TCP cell",
            all(a - e <= 0.005 for *_, a, e in fb),
            f"{len(fb)} cells; the largest PEP - end to end: {(worst[3] - worst[4]) * 1e3:+.1f} ms "
            f"({name(worst[0], worst[2])}, {_lv(worst[1])})"))
    clean = tcp[tcp["per"] == 0.0]
    gains = [p for p in _pairs(clean, "first_byte_s", "pep2", TCP_CCS)]
    if gains:
        rtts = [(eq, cc, (e - a) / SAT_RTT_S[eq["path"]]) for eq, cc, a, e in gains]
        out.append(judged(
            "pair_saves_a_satellite_rtt", "Loss-free, the PEP pair (pre-opened satellite leg) brings the first byte "
                                          "at least one satellite round trip sooner than end to end",
            all(x >= 1.0 for *_, x in rtts),
            f"saving in satellite RTTs over {len(rtts)} cells: from {min(x for *_, x in rtts):.2f} to "
            f"{max(x for *_, x in rtts):.2f}"))
    bulk = tcp[tcp["kind"] == "bulk"]
    if not bulk.empty:
        big = bulk["size_kb"].max()
        for path in sorted(bulk["path"].unique()):
            c = cell(bulk, path=path, size_kb=big, per=0.0)
            e2e = c[c["setup"] == "e2e"]
            pair = c[(c["setup"] == "pep2")]
            if e2e.empty or pair.empty:
                continue
            best = e2e.loc[e2e["completion_s"].idxmin()]
            hy = pair[pair["cc"] == pair["cc"].iloc[0]]["completion_s"].min()
            out.append(judged(
                f"pair_beats_best_e2e_{path}", f"On the {path} path, {big / 1000:g} MB loss-free through the PEP "
                                               "pair with Hybla on the satellite leg completes sooner than the best "
                                               "end-to-end TCP variant",
                bool((pair["completion_s"] < best["completion_s"]).all()),
                f"best end to end: {CC_NAMES[best['cc']]} {best['completion_s']:.2f} s; through the pair: "
                + "; ".join(f"{CC_NAMES[r['cc']]} {r['completion_s']:.2f} s" for _, r in pair.iterrows())
                + f" (fastest {hy:.2f} s)"))
        lossy = []
        for (exp, arm, size), g in bulk.groupby(["experiment", "arm", "size_kb"]):
            g = g.set_index("per")
            if 0.0 in g.index and g.index.max() > 0:
                lossy.append((exp, arm, g.loc[g.index.max(), "completion_s"] / g.loc[0.0, "completion_s"]))
        if lossy:
            out.append(judged(
                "loss_slows_every_arm", "Every TCP arm completes its transfer later at the highest PER than "
                                        "loss-free",
                all(x > 1 for *_, x in lossy),
                f"completion at PER {bulk['per'].max():g} / loss-free: from x{min(x for *_, x in lossy):.2f} to "
                f"x{max(x for *_, x in lossy):.2f} over {len(lossy)} arm-size pairs"))
        hi = bulk[bulk["per"] == bulk["per"].max()]
        if bulk["per"].max() > 0:
            pairs = _pairs(hi, "completion_s", "pep2", TCP_CCS)
            if pairs:
                out.append(judged(
                    "pair_faster_under_loss", f"At PER {bulk['per'].max():g} the PEP pair completes sooner than "
                                                  "end to end in every TCP cell",
                    all(a < e for *_, a, e in pairs),
                    "pair / end to end: " + "; ".join(f"{_lv(eq)} {cc} x{a / e:.2f}" for eq, cc, a, e in pairs)))
    quic = main[main["transport"] == "quic"]
    if not quic.empty:
        same = []
        for (exp, per, size), g in quic.groupby(["experiment", "per", "size_kb"], dropna=False):
            a, b = cell(g, setup="e2e"), cell(g, setup="pep2")
            if len(a) and len(b):
                for col in ("completion_s", "first_byte_s", "page_response_s"):
                    x, y = float(a[col].iloc[0]), float(b[col].iloc[0])
                    same.append((exp, per, col, x, y))
        if same:
            diff = [s for s in same if not (s[3] == s[4] or (s[3] != s[3] and s[4] != s[4]))]
            out.append(judged(
                "quic_passes_unsplit", "QUIC passes the PEP pair unsplit: its completion, first byte and page "
                                       "response are the same with and without the PEPs, in every cell",
                not diff and bool((quic["split"] == 0).all()),
                f"{len(same)} values compared, {len(diff)} differ; PEP connections for QUIC: "
                f"{int(quic['split'].max())}"))
    http = tcp[(tcp["kind"] == "http")]
    if not http.empty:
        ev = _pairs(http, "page_response_s", "pep2", TCP_CCS, by=("path", "per"))
        if ev:
            out.append(judged(
                "pair_pages_faster", "The PEP pair shortens the mean page response time against end to end in "
                                     "every TCP cell",
                all(a < e for *_, a, e in ev),
                "pair / end to end: from x" + f"{min(a / e for *_, a, e in ev):.2f} to x"
                + f"{max(a / e for *_, a, e in ev):.2f} over {len(ev)} cells"))
    sch = rows[rows["kind"] == "schemes"]
    if not sch.empty and sch["per"].max() > 0:
        hi = sch[sch["per"] == sch["per"].max()]
        ev = []
        for (path, size), g in hi.groupby(["path", "size_kb"]):
            ref = one(g, "completion_s", setup="pep2", cc="cubic")
            for cc in SCHEMES:
                e = one(g, "completion_s", setup="e2e", cc=cc)
                if ref == ref and e == e:
                    ev.append((path, size, cc, ref, e))
        if ev:
            out.append(judged(
                "pair_beats_seed_schemes_under_loss", f"At PER {sch['per'].max():g}, the PEP pair (Hybla leg, CUBIC "
                                                      "ends) completes sooner than TRANSAT's enhanced TCP and "
                                                      "TCP-ADaLR end to end on every path and size",
                all(r < e for *_, r, e in ev),
                "pair / scheme end to end: " + "; ".join(f"{p} {s / 1000:g} MB {cc} {r:.1f} / {e:.1f} s"
                                                         for p, s, cc, r, e in ev)))
    pool = rows[(rows["kind"] == "pool") & (rows["per"] == 0.0)]
    if not pool.empty:
        get = {r["setup"]: r for _, r in pool.iterrows()}
        if {"all_wait", "two_wait", "two_pass"} <= set(get):
            aw, tw, tp = get["all_wait"], get["two_wait"], get["two_pass"]
            out.append(judged(
                "small_pool_splits_fewer", "A pool that fits two connections splits two of the six at a time: "
                                           "with 'wait' all six are split in turn (four wait), with 'pass' four go "
                                           "end to end",
                aw["split"] == 6 and tw["split"] == 6 and tw["waited"] >= 4 and tp["split"] == 2
                and tp["passed_pool_full"] == 4,
                f"split / waited / passed: all-wait {aw['split']:.0f}/{aw['waited']:.0f}/{aw['passed_pool_full']:.0f};"
                f" two-wait {tw['split']:.0f}/{tw['waited']:.0f}/{tw['passed_pool_full']:.0f}; two-pass "
                f"{tp['split']:.0f}/{tp['waited']:.0f}/{tp['passed_pool_full']:.0f}"))
            ev = "; ".join(f"{k} {get[k]['last_completion_s']:.2f} s (first byte {get[k]['first_byte_s']:.2f} s)"
                           for k in ("e2e", "all_wait", "two_wait", "two_pass") if k in get)
            out.append(judged(
                "full_pool_wait_delays", "Loss-free, with the pool too small, waiting for it delays the last of "
                                         "six downloads beyond the pool that fits all",
                tw["last_completion_s"] > aw["last_completion_s"],
                "last completion: " + ev))
    return out


Analysis = CellAnalysis


def analyse(ctx: Context) -> Analysis:
    return Analysis(ctx.observations, ctx.runs, table(ctx.observations))


def claims(a: Analysis) -> list[Claim]:
    return findings(a.rows)
