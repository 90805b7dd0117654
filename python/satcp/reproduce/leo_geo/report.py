"""The leo-geo study's report: ``DIR/index.html`` and ``DIR/report.md``
(per path, variant and size: completion time, goodput, retransmissions,
timeouts, spurious timeouts, handovers, with 95% intervals over the start
times; the figure; the computed findings; ``table.csv`` and ``runs.csv``
beside them), and the summary ``satcp reproduce leo-geo`` prints.
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


def display(rows: pd.DataFrame) -> pd.DataFrame:
    return pd.DataFrame([{
        "size MB": r["size_mb"], "path": r["path"].upper(), "variant": NAMES.get(r["variant"], r["variant"]),
        "runs": f"{r['completed']}/{r['runs']}",
        "completion s": _pm(r["completion_s"], r["completion_s_ci"]),
        "goodput Mb/s": _pm(r["goodput_bps"], r["goodput_bps_ci"], 1e-6, 1),
        "retransmissions": _pm(r["retransmissions"], r["retransmissions_ci"], digits=0),
        "timeouts": _pm(r["timeouts"], r["timeouts_ci"], digits=1),
        "spurious": _pm(r["spurious_rtos"], r["spurious_rtos_ci"], digits=1),
        "handovers": _pm(r["handovers"], r["handovers_ci"], digits=1) if r["path"] == "leo" else "-",
        "lost at handovers": _pm(r["down_drops"], r["down_drops_ci"], digits=0) if r["path"] == "leo" else "-",
    } for _, r in rows.iterrows()])


def write(ctx: Context, a: Analysis, findings: list[Claim]) -> tuple[Path, Path]:
    rows = a.rows
    rows.to_csv(ctx.out / "table.csv", index=False)
    a.observations.to_csv(ctx.out / "runs.csv", index=False)
    doc = Doc.opened(ctx, "LEO against GEO: TCP between two cities", (
        "An experiment beyond the papers: no published numbers to stand beside. Every value is a mean over "
        "the transfers' start times (the constellation's phase) with its 95% Student-t half-width. Networks "
        "and choices: docs/reproduce-leo-geo.md."))
    doc.claims(findings, "statement", heading="Findings")
    doc.heading(2, "Per path, variant and size")
    doc.table(display(rows), left=("path", "variant")) if not rows.empty else doc.para("(no runs)", note=True)
    doc.figure(figures.completion_figure(a.observations, ctx.study.profile.name), "completion",
               f"Completion time per variant and transfer size, LEO beside GEO, over the start times ({INTERVAL_NOTE}; "
               "the table's Student-t half-widths can reach below zero over three runs, these cannot)")
    return doc.close(a.runs)


def summary(a: Analysis, findings: list[Claim]) -> str:
    """The table of means, then every finding."""
    parts = []
    if not a.rows.empty:
        d = display(a.rows)
        parts.append(format_table(list(d.columns), [tuple(r) for r in d.itertuples(index=False)], "rll" + "r" * 8))
    parts.append(kit_claims.lines(findings))
    return "\n".join(parts)
