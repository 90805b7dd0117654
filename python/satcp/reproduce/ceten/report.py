"""The CETEN-R study's report: ``DIR/index.html`` and ``DIR/report.md``
(every row of the thesis' Tables 4, 5, 9, 10, 17 and 18 with ours beside
it, the ANOVA beside Tables 7, 11 and 15, the calibration of alpha, the
thesis' findings as claims; ``tables.csv`` beside them), and the summary
``satcp reproduce ceten`` prints.
"""

from __future__ import annotations

import math
from pathlib import Path

import pandas as pd

from ...tables import format_table, num
from ..kit import claims as kit_claims
from ..kit.claims import Claim
from ..kit.document import Doc
from ..kit.study import Context
from .results import Analysis, load_published

_TITLES = {"4": "Table 4: one client, Reno", "5": "Table 5: one client, NewReno",
           "9": "Table 9: four clients, Reno (per-client mean)", "10": "Table 10: four clients, NewReno",
           "17": "Table 17: four clients, NewReno, one CETEN-R client among three stock (mixed rows)",
           "18": "Table 18: four clients, Reno, mixed rows"}


def _kbps(bps: float) -> str:
    """b/s as kb/s to a tenth, or "-"."""
    return num(bps / 1e3, ".1f")


def table_frame(rows: pd.DataFrame, table: str) -> pd.DataFrame:
    t = rows[rows["table"] == table]
    return pd.DataFrame([{
        "delay ms": r["delay_ms"], "BER": f"{r['ber']:g}", "CETEN-R": r["ceten"],
        "thesis kb/s": f"{_kbps(r['thesis'])} ({_kbps(r['thesis_lo'])}-{_kbps(r['thesis_hi'])})",
        "satcp kb/s": f"{_kbps(r['ours'])} ({_kbps(r['ours_lo'])}-{_kbps(r['ours_hi'])})",
        "dev %": "-" if math.isnan(r["deviation_pct"]) else f"{r['deviation_pct']:+.1f}",
        "verdict": "-" if not isinstance(r["reproduced"], (bool,)) and pd.isna(r["reproduced"]) else
        ("ok" if r["reproduced"] else "x"),
        "erratum": r["erratum"]} for _, r in t.iterrows()])


def calibration_frame(obs: pd.DataFrame, per_rep: pd.DataFrame) -> pd.DataFrame:
    a = obs[(obs["experiment"] == "alpha") & (obs["status"] == "ok")]
    if a.empty:
        return pd.DataFrame()
    pub = load_published()
    rows = []
    for (arm, d, b), g in a.groupby(["arm", "delay_ms", "ber"]):
        flavour, reading = arm.split(":")
        th = pub[(pub["clients"] == 1) & (pub["variant"] == flavour) & (pub["delay_ms"] == d)
                 & (pub["ber"].astype(float) == b) & (pub["ceten"] == "on") & (pub["env"] == "all")]
        thesis = float(th["mean_bps"].iloc[0]) if not th.empty else math.nan
        ours = g["goodput_bps"].mean()
        rows.append({"variant": flavour, "reading": reading, "delay ms": d, "BER": f"{b:g}",
                     "satcp kb/s": _kbps(ours), "thesis On kb/s": _kbps(thesis),
                     "dev %": f"{(ours / thesis - 1) * 100:+.1f}" if thesis == thesis else "-"})
    return pd.DataFrame(rows)


def write(ctx: Context, a: Analysis, claims: list[Claim]) -> tuple[Path, Path]:
    rows, anovas = a.rows, a.anovas
    calib = calibration_frame(a.observations, a.per_rep)
    rows.to_csv(ctx.out / "tables.csv", index=False)
    doc = Doc.opened(ctx, "satcp reproduction of the CETEN-R thesis (Carroll 2004, OPNET)", (
        "Every row: the thesis' mean goodput per client with its 90% interval "
        "(data/published/ceten_thesis.csv, errata marked) beside ours over the same five replications (90% "
        "Student-t). 'ok': within 10% of the thesis' mean, or its mean inside our interval. Network, readings "
        "and calibration: docs/reproduce-ceten.md."))
    doc.claims(claims, "thesis", heading="The thesis' findings")
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
        t_an = anovas.get(scope)
        doc.para(t, note=True)
        if t_an is None or t_an.empty:
            doc.para("(not run)", note=True)
            continue
        doc.table(t_an.assign(ours_pct=t_an["ours_pct"].map(lambda v: f"{v:.3f}"),
                           thesis_pct=t_an["thesis_pct"].map(lambda v: "-" if v != v else f"{v:.3f}")),
                  left=("term",))
    doc.heading(2, "Calibration: the readings one at a time (one client, CETEN-R on)")
    if calib.empty:
        doc.para("(the full form runs it; --quick does not)", note=True)
    else:
        doc.table(calib, left=("variant", "reading"))
    return doc.close(a.runs)


def summary(a: Analysis, claims: list[Claim]) -> str:
    """Per table the rows with runs and those reproduced, then every claim."""
    r = a.rows[a.rows["n"] > 0]
    counts = [(t, int((r["table"] == t).sum()), int(r[r["table"] == t]["reproduced"].astype(bool).sum()))
              for t in _TITLES]
    return format_table(["table", "rows", "reproduced"], counts, "lrr") + "\n" + kit_claims.lines(claims)
