"""The starlink-trace study's report: ``DIR/index.html`` and
``DIR/report.md`` (the traces it ran on and whether they are synthetic;
per queue and controller: goodput, its per-second percentiles, goodput /
capacity, RTT inflation, retransmissions, timeouts and spurious timeouts
after reconfigurations and elsewhere, with 95% intervals over the
replications; the figures; measured beside simulated when the traces came
with a measured series; the findings; ``table.csv`` and ``runs.csv``
beside them), and the summary ``satcp reproduce starlink-trace`` prints.
"""

from __future__ import annotations

from pathlib import Path

import pandas as pd

from ... import report_measured
from ...tables import format_table
from ..kit import claims as kit_claims
from ..kit.claims import Claim
from ..kit.document import Doc
from ..kit.figures import INTERVAL_NOTE
from ..kit.study import Context
from . import figures
from .experiments import NAMES, QUEUES
from .results import Analysis


def _pm(mean: float, half: float, scale: float = 1.0, digits: int = 2) -> str:
    if mean != mean:
        return "-"
    s = f"{mean * scale:.{digits}f}"
    return s if half != half else f"{s} +- {half * scale:.{digits}f}"


def display(rows: pd.DataFrame) -> pd.DataFrame:
    return pd.DataFrame([{
        "queue": QUEUES[r["queue"]][0], "controller": NAMES.get(r["variant"], r["variant"]), "runs": r["runs"],
        "goodput Mb/s": _pm(r["goodput_bps"], r["goodput_bps_ci"], 1e-6, 1),
        "per-second p10/p50/p90 Mb/s": f"{r['per_second_p10_bps'] / 1e6:.1f} / {r['per_second_p50_bps'] / 1e6:.1f}"
                                       f" / {r['per_second_p90_bps'] / 1e6:.1f}",
        "of capacity": _pm(r["utilisation"], r["utilisation_ci"]),
        "RTT infl. p50 ms": _pm(r["inflation_p50_s"], r["inflation_p50_s_ci"], 1e3, 0),
        "RTT infl. p95 ms": _pm(r["inflation_p95_s"], r["inflation_p95_s_ci"], 1e3, 0),
        "retransmissions": _pm(r["retransmissions"], r["retransmissions_ci"], digits=0),
        "timeouts": _pm(r["timeouts"], r["timeouts_ci"], digits=1),
        "RTO/min after reconf. / else": f"{r['timeouts_near_per_min']:.2f} / {r['timeouts_else_per_min']:.2f}",
        "spurious after / else": f"{r['spurious_near']} / {r['spurious_else']}",
    } for _, r in rows.iterrows()])


def _traces_note(a: Analysis) -> str:
    synth = [s for s in a.trace_sets if s.synthetic]
    if synth:
        return ("The traces are SYNTHETIC: drawn by satcp's Starlink-like model (`satcp trace synth`, "
                "python/satcp/traces/synthetic.py, whose header gives each parameter's source), seeds "
                + ", ".join(s.label.split()[-1] for s in synth)
                + ", 600 s each: capacity 5-70 Mb/s around a 25 Mb/s mean, one-way delay stepping at the "
                  "reconfigurations 12, 27, 42, 57 s past each minute, 0.1-0.5% random loss, short outages. "
                  "No measured Starlink trace ships with satcp; run the study on your own with --traces DIR.")
    s = a.trace_sets[0]
    return (f"The traces are the user's (--traces): capacity {s.capacity}, delay {s.delay} every "
            f"{s.delay_interval}" + (f", loss {s.loss} every {s.loss_interval}" if s.loss else ", no loss trace")
            + ". Reconfiguration instants are taken at 12, 27, 42, 57 s past each minute of trace time.")


def write(ctx: Context, a: Analysis, findings: list[Claim]) -> tuple[Path, Path]:
    rows = a.rows
    rows.to_csv(ctx.out / "table.csv", index=False)
    obs = a.observations.copy()
    if "per_second_bps" in obs:
        obs["per_second_bps"] = obs["per_second_bps"].map(lambda v: " ".join(f"{x:.0f}" for x in v)
                                                          if isinstance(v, list) else "")
    obs.to_csv(ctx.out / "runs.csv", index=False)
    doc = Doc.opened(ctx, "TCP over Starlink-like traces", (
        "An experiment of our own: no published numbers exist for it, so every number here is ours, with no "
        "source to stand beside. " + _traces_note(a) + f" Each transfer is a {a.duration_s}-s bulk download; "
        "values are means over the replications (trace seeds x start offsets) with their 95% Student-t "
        "half-widths. Network and choices: docs/reproduce-starlink-trace.md."))
    doc.claims(findings, "statement", heading="Findings")
    doc.heading(2, "Per queue and controller")
    doc.table(display(rows), left=("queue", "controller")) if not rows.empty else doc.para("(no runs)", note=True)
    doc.figure(figures.per_cell_figure(a.observations, ctx.study.profile.name), "goodput_inflation",
               "Goodput (left) and the 95th percentile of RTT inflation, srtt minus the path's base RTT (right), "
               f"per controller and queue over the replications ({INTERVAL_NOTE})")
    doc.figure(figures.per_second_figure(a.observations, ctx.study.profile.name), "per_second",
               "Goodput per second of transfer, pooled over each cell's replications: box 25-75%, whiskers 5-95%")
    if a.examples:
        first = a.trace_sets[0]
        start = float(a.observations["offset_s"].min())
        doc.figure(figures.timeline_figure(a.examples, first, start, a.duration_s, ctx.study.profile.name),
                   "timeline", f"One transfer per controller over trace {first.label} from {start:g} s, drop-tail: "
                               "goodput per second against the trace's capacity (top), srtt against the base RTT "
                               "(bottom); dotted lines: reconfigurations")
    doc.figure(figures.timeouts_figure(rows, ctx.study.profile.name), "timeouts",
               "Retransmission timeouts per minute within 1 s after a reconfiguration and elsewhere (pooled runs)")
    if a.measured is not None and a.examples:
        sims = [report_measured.simulated_per_bin(a.examples[v], report_measured.bin_width(a.measured))
                for v in a.examples]
        labels = [f"{NAMES[v]}, drop-tail" for v in a.examples]
        doc.heading(2, "Measured and simulated")
        doc.figure(report_measured.figure(sims, labels, a.measured, "measured.csv"), "measured",
                   "Goodput and RTT per bin: the measurement beside each controller's run from trace time 0 "
                   "(simulated RTT: the sender's srtt)")
    return doc.close(a.runs)


def summary(a: Analysis, findings: list[Claim]) -> str:
    parts = []
    if not a.rows.empty:
        d = display(a.rows)
        parts.append(format_table(list(d.columns), [tuple(r) for r in d.itertuples(index=False)], "ll" + "r" * 10))
    parts.append(kit_claims.lines(findings))
    return "\n".join(parts)
