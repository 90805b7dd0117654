"""``satcp reproduce ceten [--quick]``: run the CETEN-R study
(``reproduce/ceten.py``) through the platform, write ``DIR/index.html``
and ``DIR/report.md`` (every row of the thesis' Tables 4, 5, 9, 10, 17
and 18 with ours beside it, the ANOVA beside Tables 7, 11 and 15, the
calibration of alpha, the thesis' findings as claims), and print a
summary. Exit status as ``satcp reproduce adalr``.
"""

from __future__ import annotations

import math
import sys
import time
from pathlib import Path
from typing import TextIO

import pandas as pd

from ..tables import format_table
from . import PROFILES, ceten, runner
from .report import Doc, claims_table, header_rows, print_claims

_TITLES = {"4": "Table 4: one client, Reno", "5": "Table 5: one client, NewReno",
           "9": "Table 9: four clients, Reno (per-client mean)", "10": "Table 10: four clients, NewReno",
           "17": "Table 17: four clients, NewReno, one CETEN-R client among three stock (mixed rows)",
           "18": "Table 18: four clients, Reno, mixed rows"}


def _k(x: float) -> str:
    return "-" if x is None or (isinstance(x, float) and math.isnan(x)) else f"{x / 1e3:.1f}"


def table_frame(rows: pd.DataFrame, table: str) -> pd.DataFrame:
    t = rows[rows["table"] == table]
    return pd.DataFrame([{
        "delay ms": r["delay_ms"], "BER": f"{r['ber']:g}", "CETEN-R": r["ceten"],
        "thesis kb/s": f"{_k(r['thesis'])} ({_k(r['thesis_lo'])}-{_k(r['thesis_hi'])})",
        "satcp kb/s": f"{_k(r['ours'])} ({_k(r['ours_lo'])}-{_k(r['ours_hi'])})",
        "dev %": "-" if math.isnan(r["deviation_pct"]) else f"{r['deviation_pct']:+.1f}",
        "verdict": "-" if not isinstance(r["reproduced"], (bool,)) and pd.isna(r["reproduced"]) else
        ("ok" if r["reproduced"] else "x"),
        "erratum": r["erratum"]} for _, r in t.iterrows()])


def calibration_frame(obs: pd.DataFrame, per_rep: pd.DataFrame) -> pd.DataFrame:
    a = obs[(obs["experiment"] == "alpha") & (obs["status"] == "ok")]
    if a.empty:
        return pd.DataFrame()
    pub = ceten.load_published()
    rows = []
    for (arm, d, b), g in a.groupby(["arm", "delay_ms", "ber"]):
        flavour, reading = arm.split(":")
        th = pub[(pub["clients"] == 1) & (pub["variant"] == flavour) & (pub["delay_ms"] == d)
                 & (pub["ber"].astype(float) == b) & (pub["ceten"] == "on") & (pub["env"] == "all")]
        thesis = float(th["mean_bps"].iloc[0]) if not th.empty else math.nan
        ours = g["goodput_bps"].mean()
        rows.append({"variant": flavour, "reading": reading, "delay ms": d, "BER": f"{b:g}",
                     "satcp kb/s": _k(ours), "thesis On kb/s": _k(thesis),
                     "dev %": f"{(ours / thesis - 1) * 100:+.1f}" if thesis == thesis else "-"})
    return pd.DataFrame(rows)


def write_report(out: Path, rows: pd.DataFrame, anovas: dict[str, pd.DataFrame], claims: list[dict],
                 calib: pd.DataFrame, header: list[tuple[str, str]], runs: pd.DataFrame, title: str) -> tuple[Path, Path]:
    doc = Doc(out)
    doc.heading(1, title)
    doc.para("Every row: the thesis' mean goodput per client with its 90% interval "
             "(data/published/ceten_thesis.csv, errata marked) beside ours over the same five replications "
             "(90% Student-t). 'ok': within 10% of the thesis' mean, or its mean inside our interval. "
             "Network, readings and calibration: docs/reproduce-ceten.md.", note=True)
    doc.table(pd.DataFrame(header, columns=["", "value"]), left=("", "value"))
    doc.heading(2, "The thesis' findings")
    claims_table(doc, claims, "thesis")
    counts = []
    for t in _TITLES:
        r = rows[(rows["table"] == t) & (rows["n"] > 0)]
        counts.append((t, len(r), int(r["reproduced"].astype(bool).sum())))
    doc.heading(2, "Rows reproduced")
    doc.table(pd.DataFrame(counts, columns=["table", "rows", "reproduced"]), left=("table",))
    for t, title in _TITLES.items():
        doc.heading(2, title)
        f = table_frame(rows, t)
        doc.table(f, left=("CETEN-R", "erratum")) if not f.empty else doc.para("(not run)", note=True)
    doc.heading(2, "ANOVA: percentage of variation, ours beside the thesis'")
    for scope, t in (("one_client", "Table 7 (one client)"), ("four_clients", "Table 11 (four clients)"),
                     ("all", "Table 15 (all homogeneous runs)")):
        a = anovas.get(scope)
        doc.para(t, note=True)
        if a is None or a.empty:
            doc.para("(not run)", note=True)
            continue
        doc.table(a.assign(ours_pct=a["ours_pct"].map(lambda v: f"{v:.3f}"),
                           thesis_pct=a["thesis_pct"].map(lambda v: "-" if v != v else f"{v:.3f}")),
                  left=("term",))
    doc.heading(2, "Calibration: the readings one at a time (one client, CETEN-R on)")
    if calib.empty:
        doc.para("(the full form runs it; --quick does not)", note=True)
    else:
        doc.table(calib, left=("variant", "reading"))
    doc.failed_runs(runs)
    return doc.write(out, title)


def reproduce(*, quick: bool = False, out: str | Path | None = None, store: str | Path | None = None,
              workers: int | None = None, only: list[str] | None = None, root: Path | None = None,
              stdout: TextIO = sys.stdout) -> int:
    t0 = time.perf_counter()
    started = runner.setup_and_run("ceten", ceten.catalogue(quick), quick=quick, out=out, store=store, workers=workers,
                                   only=only, root=root, default_root=ceten.REPO_ROOT, collect=ceten.collect)
    if isinstance(started, int):
        return started
    s, outcome = started
    per_rep = ceten.observations(outcome.observations)
    rows = ceten.table_rows(per_rep, ceten.load_published())
    pub_anova = ceten.load_published_anova()
    anovas = {}
    for scope in ("one_client", "four_clients", "all"):
        try:
            anovas[scope] = ceten.anova_rows(ceten.our_anova(per_rep, scope), pub_anova, scope)
        except (ValueError, KeyError):
            pass  # a factor with one level: the experiment was left out (--only)
    claim_list = ceten.claims(per_rep, rows, anovas)
    calib = calibration_frame(outcome.observations, per_rep)
    rows.to_csv(s.out / "tables.csv", index=False)
    header = header_rows("ceten", quick, outcome.report, outcome.observations, time.perf_counter() - t0)
    html_path, md_path = write_report(s.out, rows, anovas, claim_list, calib, header, outcome.runs,
                                      "satcp reproduction of the CETEN-R thesis (Carroll 2004, OPNET)"
                                      + (" (quick)" if quick else ""))
    profile, why = PROFILES["ceten"]
    print(f"TCP profile: {profile} ({why})", file=stdout)
    r = rows[rows["n"] > 0]
    print(format_table(["table", "rows", "reproduced"],
                       [(t, int((r["table"] == t).sum()), int(r[r["table"] == t]["reproduced"].astype(bool).sum()))
                        for t in _TITLES], "lrr"), file=stdout)
    print_claims(claim_list, stdout)
    return runner.finish(outcome, s, (html_path, md_path), t0, stdout)
