"""The quic-geo study's report: ``DIR/index.html`` and ``DIR/report.md``
(the findings; per experiment, arm and level: completion time, goodput or
page response time, QUIC's handshake, lost packets or retransmissions,
TCP's timeouts, with 95% intervals over the seeds; the figures;
``table.csv`` and ``runs.csv`` beside them), and the summary
``satcp reproduce quic-geo`` prints.
"""

from __future__ import annotations

from pathlib import Path

import pandas as pd

from ...tables import format_table
from ..kit import claims as kit_claims
from ..kit.claims import Claim
from ..kit.document import Doc
from ..kit.figures import INTERVAL_NOTE
from ..kit.study import Context
from . import figures
from .experiments import NAMES
from .results import Analysis


def _pm(mean: float, half: float, scale: float = 1.0, digits: int = 2) -> str:
    if mean != mean:
        return "-"
    s = f"{mean * scale:.{digits}f}"
    return s if half != half else f"{s} +- {half * scale:.{digits}f}"


def _level(r) -> str:
    if r["kind"] in ("bulk", "resume", "leo", "big"):
        kb = r["size_kb"]
        return f"{kb / 1000:g} MB" if kb >= 1000 else f"{kb:g} KB"
    if r["kind"] == "http":
        return "all at once" if r["pipelining"] else "one at a time"
    return f"window {r['stream_window'] / 1e6:.3g} MB"


def display(rows: pd.DataFrame) -> pd.DataFrame:
    out = []
    for _, r in rows.iterrows():
        http = r["kind"] == "http"
        out.append({
            "experiment": r["experiment"], "level": _level(r), "PER": f"{r['per']:g}",
            "arm": NAMES[(r["transport"], r["cc"])], "IW": r["iw"], "runs": f"{r['completed']}/{r['runs']}",
            "completion s": _pm(r["completion_s"], r["completion_s_ci"]),
            "goodput Mb/s" if not http else "page s": (_pm(r["page_response_s"], r["page_response_s_ci"]) if http
                                                        else _pm(r["goodput_bps"], r["goodput_bps_ci"], 1e-6)),
            "handshake ms": _pm(r["handshake_s"], r["handshake_s_ci"], 1e3, 1),
            "lost / retx": _pm(r["lost_packets"], r["lost_packets_ci"], digits=0),
            "timeouts": "-" if r["transport"] == "quic" else _pm(r["timeouts"], r["timeouts_ci"], digits=1),
        })
    return pd.DataFrame(out)


def write(ctx: Context, a: Analysis, findings: list[Claim]) -> tuple[Path, Path]:
    rows = a.rows
    rows.to_csv(ctx.out / "table.csv", index=False)
    a.observations.to_csv(ctx.out / "runs.csv", index=False)
    doc = Doc.opened(ctx, "QUIC against TCP over a GEO bent pipe and the Starlink shell", (
        "An experiment of our own: no published numbers exist for this study, so nothing stands beside ours; "
        "the findings are statements computed from these runs. QUIC is quinn-proto 0.11.19 on simulated time "
        "(null crypto: TLS 1.3's flights and sizes); TCP is satcp's under the linux profile. Every value is a "
        "mean over the seeds with its 95% Student-t half-width (a loss-free cell's seeds are the same run). "
        "'lost / retx' is the packets quinn declared lost for QUIC and the retransmitted segments for TCP. "
        "Paths, arms and choices: docs/reproduce-quic-geo.md."))
    doc.claims(findings, "statement", heading="Findings")
    for exp in ctx.experiments:
        r = rows[rows["experiment"] == exp.id] if not rows.empty else rows
        doc.heading(2, exp.title)
        if r.empty:
            doc.para("(no runs)", note=True)
            continue
        d = display(r).drop(columns=["experiment"])
        if exp.id.startswith("http"):
            d = d.drop(columns=["completion s"])
        doc.table(d, left=("level", "arm"))
    profile = ctx.study.profile.name
    obs = a.observations
    if not obs.empty and (obs["kind"] == "bulk").any():
        big = obs.loc[obs["kind"] == "bulk", "size_kb"].max()
        doc.figure(figures.per_arm_figure(obs, "bulk", "completion_s", "completion time", profile, size_kb=big),
                   "bulk", f"Completion time of {big / 1000:g} MB per controller (IW 10) and downlink PER, "
                           f"over the seeds ({INTERVAL_NOTE})")
    if not obs.empty and (obs["kind"] == "resume").any():
        big = obs.loc[obs["kind"] == "resume", "size_kb"].max()
        doc.figure(figures.per_arm_figure(obs, "resume", "completion_s", "completion time", profile, size_kb=big),
                   "resume", f"Completion time of {big / 1000:g} MB with BBR and Careful Resume on QUIC (and BBR on "
                             f"TCP), per arm and downlink PER, over the seeds ({INTERVAL_NOTE})")
    if not obs.empty and (obs["kind"] == "http").any():
        doc.figure(figures.per_arm_figure(obs, "http", "page_response_s", "mean page response time", profile,
                                          pipelining=True),
                   "http", f"Mean page response time, objects requested all at once (QUIC: parallel streams; TCP: "
                           f"pipelined on one persistent connection), per controller (IW 10) and PER ({INTERVAL_NOTE})")
    if not obs.empty and (obs["kind"] == "window").any():
        doc.figure(figures.window_figure(obs, profile), "window",
                   "QUIC's loss-free 50 MB goodput over the 20 Mb/s GEO path against the stream flow-control window "
                   "(quinn's default: 1.25 MB); the dotted line is the downlink's rate")
    return doc.close(a.runs)


def summary(a: Analysis, findings: list[Claim]) -> str:
    """The bulk and window cells' table, then every finding."""
    parts = []
    if not a.rows.empty:
        r = a.rows[a.rows["kind"] != "http"]
        r = r[(r["kind"] != "bulk") | (r["size_kb"] == r["size_kb"].max())]
        if not r.empty:
            d = display(r)
            parts.append(format_table(list(d.columns), [tuple(x) for x in d.itertuples(index=False)],
                                      "llllr" + "r" * (len(d.columns) - 5)))
    parts.append(kit_claims.lines(findings))
    return "\n".join(parts)
