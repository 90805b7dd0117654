"""The pep study's report: ``DIR/index.html`` and ``DIR/report.md`` (the
findings; per experiment, arm and level: completion, first byte, page
response time, the real ends' and the PEPs' retransmissions and timeouts,
connections split, waited and passed, with 95% intervals over the seeds;
the figures; ``table.csv`` and ``runs.csv`` beside them), and the summary
``satcp reproduce pep`` prints.
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
from .experiments import CC_NAMES, SETUP_NAMES
from .results import Analysis


def _pm(mean: float, half: float, scale: float = 1.0, digits: int = 2) -> str:
    if mean != mean:
        return "-"
    s = f"{mean * scale:.{digits}f}"
    return s if half != half else f"{s} +- {half * scale:.{digits}f}"


POOL_NAMES = {"e2e": "end to end", "all_wait": "pool fits 6", "two_wait": "pool fits 2, wait",
              "two_pass": "pool fits 2, pass"}


def display(rows: pd.DataFrame) -> pd.DataFrame:
    out = []
    for _, r in rows.iterrows():
        pool = r["kind"] == "pool"
        sized = r["kind"] in ("bulk", "schemes")
        level = f"{r['size_kb'] / 1000:g} MB" if sized else ("6 x 1 MB" if pool else "3 pages")
        out.append({
            "experiment": r["experiment"], "level": level, "PER": f"{r['per']:g}",
            "transport": CC_NAMES[r["cc"]],
            "set-up": POOL_NAMES[r["setup"]] if pool else SETUP_NAMES[r["setup"]],
            "runs": f"{r['completed']}/{r['runs']}",
            "completion s": _pm(r["completion_s"], r["completion_s_ci"]),
            "last s": _pm(r["last_completion_s"], r["last_completion_s_ci"]),
            "page s": _pm(r["page_response_s"], r["page_response_s_ci"]),
            "first byte s": _pm(r["first_byte_s"], r["first_byte_s_ci"], digits=3),
            "ends' retx": _pm(r["retransmissions"], r["retransmissions_ci"], digits=0),
            "PEP legs' retx": _pm(r["pep_retransmissions"], r["pep_retransmissions_ci"], digits=0),
            "PEP timeouts": _pm(r["pep_timeouts"], r["pep_timeouts_ci"], digits=1),
            "split/waited/passed": f"{r['split']:.0f}/{r['waited']:.0f}/{r['passed_pool_full']:.0f}",
        })
    return pd.DataFrame(out)


def write(ctx: Context, a: Analysis, findings: list[Claim]) -> tuple[Path, Path]:
    rows = a.rows
    rows.to_csv(ctx.out / "table.csv", index=False)
    a.observations.to_csv(ctx.out / "runs.csv", index=False)
    doc = Doc.opened(ctx, "Split-TCP PEPs against end-to-end transport over GEO", (
        "An experiment of our own: no published numbers exist for this study, so nothing stands beside ours; "
        "the findings are statements computed from these runs. TCP is satcp's under the linux profile at the ends "
        "and at the PEPs (docs/models/pep.md); QUIC is quinn-proto 0.11.19 and passes a PEP unsplit. Every value "
        "is a mean over the seeds with its 95% Student-t half-width (a loss-free cell's seeds are the same run). "
        "'ends' retx' are the real ends' retransmitted segments, 'PEP legs' retx' those the PEPs' own ends sent on "
        "every leg; first byte and completion are as the client sees them, from the flow's start. Paths, arms and "
        "choices: docs/reproduce-pep.md."))
    doc.claims(findings, "statement", heading="Findings")
    for exp in ctx.experiments:
        r = rows[rows["experiment"] == exp.id] if not rows.empty else rows
        doc.heading(2, exp.title)
        if r.empty:
            doc.para("(no runs)", note=True)
            continue
        d = display(r).drop(columns=["experiment"])
        if exp.id.startswith("http"):
            d = d.drop(columns=["completion s", "last s", "split/waited/passed"])
        elif exp.id.startswith(("bulk", "schemes")):
            d = d.drop(columns=["page s", "last s", "split/waited/passed"])
        else:
            d = d.drop(columns=["page s"])
        doc.table(d, left=("level", "transport", "set-up"))
    profile = ctx.study.profile.name
    obs = a.observations
    if not obs.empty and (obs["kind"] == "bulk").any():
        big = obs.loc[obs["kind"] == "bulk", "size_kb"].max()
        doc.figure(figures.setup_figure(obs, "bulk", "completion_s", "completion time", profile, size_kb=big,
                                        per=0.0),
                   "bulk", f"Completion time of {big / 1000:g} MB loss-free per transport and set-up ({INTERVAL_NOTE})")
        lossy = obs.loc[obs["kind"] == "bulk", "per"].max()
        if lossy > 0:
            doc.figure(figures.setup_figure(obs, "bulk", "completion_s", "completion time", profile, size_kb=big,
                                            per=lossy),
                       "bulk-lossy", f"Completion time of {big / 1000:g} MB at PER {lossy:g} per transport and "
                                     f"set-up ({INTERVAL_NOTE})")
    if not obs.empty and (obs["kind"] == "http").any():
        doc.figure(figures.setup_figure(obs, "http", "first_byte_s", "first byte", profile, per=0.0),
                   "first-byte", f"Time to the first byte of the first page, loss-free, per transport and set-up "
                                 f"({INTERVAL_NOTE})")
        doc.figure(figures.setup_figure(obs, "http", "page_response_s", "mean page response time", profile),
                   "http", f"Mean page response time over every PER level's runs, per transport and set-up "
                           f"({INTERVAL_NOTE})")
    return doc.close(a.runs)


def summary(a: Analysis, findings: list[Claim]) -> str:
    """The largest bulk transfer's and the pool's cells, then every
    finding."""
    parts = []
    if not a.rows.empty:
        r = a.rows[a.rows["kind"] != "http"]
        r = r[~r["kind"].isin(["bulk", "schemes"]) | (r["size_kb"] == r["size_kb"].max())]
        if not r.empty:
            d = display(r).drop(columns=["page s"])
            parts.append(format_table(list(d.columns), [tuple(x) for x in d.itertuples(index=False)],
                                      "lllll" + "r" * (len(d.columns) - 5)))
    parts.append(kit_claims.lines(findings))
    return "\n".join(parts)
