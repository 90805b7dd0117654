"""``satcp reproduce leo-geo [--quick]``: run the LEO-against-GEO study
(``reproduce/leo_geo.py``), write ``DIR/index.html`` and ``DIR/report.md``
(per path, variant and size: completion time, goodput, retransmissions,
timeouts, spurious timeouts, handovers, with 95% intervals over the start
times; figures; the computed findings) and print a summary. Exit status as
``satcp reproduce adalr``.
"""

from __future__ import annotations

import math
import sys
import time
from pathlib import Path
from typing import TextIO

import pandas as pd

from ..plotting import pyplot
from ..tables import format_table
from . import PROFILES, leo_geo, runner
from .report import Doc, claims_table, header_rows, print_claims


def _pm(mean: float, half: float, scale: float = 1.0, digits: int = 2) -> str:
    if mean != mean:
        return "-"
    s = f"{mean * scale:.{digits}f}"
    return s if half != half else f"{s} +- {half * scale:.{digits}f}"


def display(rows: pd.DataFrame) -> pd.DataFrame:
    return pd.DataFrame([{
        "size MB": r["size_mb"], "path": r["path"].upper(), "variant": leo_geo.NAMES.get(r["variant"], r["variant"]),
        "runs": f"{r['completed']}/{r['runs']}",
        "completion s": _pm(r["completion_s"], r["completion_s_ci"]),
        "goodput Mb/s": _pm(r["goodput_bps"], r["goodput_bps_ci"], 1e-6, 1),
        "retransmissions": _pm(r["retransmissions"], r["retransmissions_ci"], digits=0),
        "timeouts": _pm(r["timeouts"], r["timeouts_ci"], digits=1),
        "spurious": _pm(r["spurious_rtos"], r["spurious_rtos_ci"], digits=1),
        "handovers": _pm(r["handovers"], r["handovers_ci"], digits=1) if r["path"] == "leo" else "-",
        "lost at handovers": _pm(r["down_drops"], r["down_drops_ci"], digits=0) if r["path"] == "leo" else "-",
    } for _, r in rows.iterrows()])


def completion_figure(rows: pd.DataFrame):
    if rows.empty:
        return None
    plt = pyplot()
    sizes = sorted(rows["size_mb"].unique())
    fig, axes = plt.subplots(1, len(sizes), figsize=(4.2 * len(sizes), 4), squeeze=False)
    for ax, size in zip(axes[0], sizes):
        d = rows[rows["size_mb"] == size]
        for k, path in enumerate(("leo", "geo")):
            p = d[d["path"] == path].set_index("variant")
            xs = [i + (k - 0.5) * 0.38 for i, v in enumerate(leo_geo.VARIANTS)]
            ys = [p.loc[v, "completion_s"] if v in p.index else math.nan for v in leo_geo.VARIANTS]
            es = [p.loc[v, "completion_s_ci"] if v in p.index else math.nan for v in leo_geo.VARIANTS]
            ax.bar(xs, ys, width=0.38, yerr=[0 if e != e else e for e in es], capsize=3, label=path.upper())
        ax.set_xticks(range(len(leo_geo.VARIANTS)), [leo_geo.NAMES[v] for v in leo_geo.VARIANTS], rotation=30)
        ax.set_title(f"{size} MB")
        ax.set_ylabel("completion time (s)")
        ax.grid(True, axis="y", alpha=0.3)
        ax.legend(fontsize="small")
    fig.tight_layout()
    return fig


def write_report(out: Path, rows: pd.DataFrame, findings: list[dict], header: list[tuple[str, str]],
                 runs: pd.DataFrame, title: str) -> tuple[Path, Path]:
    doc = Doc(out)
    doc.heading(1, title)
    doc.para("An experiment beyond the papers: no published numbers to stand beside. Every value is a mean over "
             "the transfers' start times (the constellation's phase) with its 95% Student-t half-width. "
             "Networks and choices: docs/reproduce-leo-geo.md.", note=True)
    doc.table(pd.DataFrame(header, columns=["", "value"]), left=("", "value"))
    doc.heading(2, "Findings")
    claims_table(doc, findings, "statement")
    doc.heading(2, "Per path, variant and size")
    doc.table(display(rows), left=("path", "variant")) if not rows.empty else doc.para("(no runs)", note=True)
    doc.figure(completion_figure(rows), "completion", "Completion time per variant, LEO beside GEO (95% intervals)")
    doc.failed_runs(runs)
    return doc.write(out, title)


def reproduce(*, quick: bool = False, out: str | Path | None = None, store: str | Path | None = None,
              workers: int | None = None, only: list[str] | None = None, root: Path | None = None,
              stdout: TextIO = sys.stdout) -> int:
    t0 = time.perf_counter()
    started = runner.setup_and_run("leo-geo", leo_geo.catalogue(quick), quick=quick, out=out, store=store,
                                   workers=workers, only=only, root=root, default_root=leo_geo.REPO_ROOT,
                                   collect=leo_geo.collect)
    if isinstance(started, int):
        return started
    s, outcome = started
    rows = leo_geo.table(outcome.observations)
    found = leo_geo.findings(rows)
    rows.to_csv(s.out / "table.csv", index=False)
    outcome.observations.to_csv(s.out / "runs.csv", index=False)
    header = header_rows("leo-geo", quick, outcome.report, outcome.observations, time.perf_counter() - t0)
    html_path, md_path = write_report(s.out, rows, found, header, outcome.runs,
                                      "LEO against GEO: TCP between two cities" + (" (quick)" if quick else ""))
    profile, why = PROFILES["leo-geo"]
    print(f"TCP profile: {profile} ({why})", file=stdout)
    if not rows.empty:
        d = display(rows)
        print(format_table(list(d.columns), [tuple(r) for r in d.itertuples(index=False)], "rll" + "r" * 8), file=stdout)
    print_claims(found, stdout)
    return runner.finish(outcome, s, (html_path, md_path), t0, stdout)
