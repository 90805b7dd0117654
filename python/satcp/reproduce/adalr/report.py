"""The ADaLR study's report: per experiment the thesis' table(s) beside
ours (mean, 95% t half-width where replicated, runs, deviation), the
redrawn figures, and the thesis' claims with the verdict computed by
:mod:`.claims`; and the summary ``satcp reproduce adalr`` prints (ours
beside the thesis' per table row, the count of each verdict).
"""

from __future__ import annotations

from pathlib import Path

import numpy as np
import pandas as pd

from ...tables import format_table
from ..kit.catalogue import Experiment
from ..kit.claims import Claim, count_line, counts
from ..kit.document import Doc, fmt
from ..kit.figures import INTERVAL_NOTE
from ..kit.study import Context
from . import figures
from .experiments import VARIANT_NAMES
from .results import Analysis


def _table_frame(rows: pd.DataFrame) -> pd.DataFrame:
    out = pd.DataFrame({
        "variant": [VARIANT_NAMES.get(v, v) for v in rows["variant"]],
        "delayed ACK": ["enabled" if d else "disabled" for d in rows["delayed_ack"]],
    })
    if rows["x"].notna().any():
        unit = rows["x_unit"].iloc[0]
        out[f"x ({unit})" if unit else "x"] = rows["x"].to_numpy()
    if (rows["flow"] != rows["flow"].iloc[0]).any():
        out["connection"] = rows["flow"].to_numpy()
    unit = rows["unit"].iloc[0]
    label = rows["metric"].iloc[0] if rows["metric"].nunique() == 1 else "metric"
    if rows["metric"].nunique() > 1:
        out["metric"] = rows["metric"].to_numpy()
    suffix = f" ({unit})" if unit else ""
    out[f"satcp{suffix}"] = rows["ours"].to_numpy()
    out["95% CI +-"] = rows["ci_half"].to_numpy()
    out["runs"] = rows["n"].to_numpy()
    out[f"thesis{suffix}"] = rows["value"].to_numpy()
    out["deviation %"] = rows["deviation_pct"].to_numpy()
    out.attrs["metric"] = label
    return out


def _claims_frame(rows: pd.DataFrame) -> pd.DataFrame:
    def pct(lo, hi):
        if not np.isfinite(lo):
            return ""
        return f"{lo:g}" if lo == hi else f"{lo:g} to {hi:g}"

    def meas(lo, hi):
        if not np.isfinite(lo):
            return ""
        return f"{lo:.1f}" if np.isclose(lo, hi) else f"{lo:.1f} to {hi:.1f}"

    def points(r):
        if not (np.isfinite(r["stated_low"]) and np.isfinite(r["measured_min"])):
            return ""
        if r["stated_low"] == r["stated_high"] and np.isclose(r["measured_min"], r["measured_max"]):
            return f"{r['measured_min'] - r['stated_low']:+.1f}"
        return f"{r['points_low']:+.1f} / {r['points_high']:+.1f}"

    return pd.DataFrame({
        "claim": rows["id"], "source": rows["source"], "thesis says": rows["wording"],
        "metric": rows["metric"], "stated %": [pct(a, b) for a, b in zip(rows["stated_low"], rows["stated_high"])],
        "satcp %": [meas(a, b) for a, b in zip(rows["measured_min"], rows["measured_max"])],
        "satcp - thesis (points)": [points(r) for _, r in rows.iterrows()],
        "verdict": rows["verdict"], "why": rows["reason"],
    })


_X = {"ber": ("bit error rate of the satellite downlink", True, 1.0),
      "rtt": ("nominal RTT (ms)", False, 1.0),
      "size": ("file size (MB = 2^20 bytes)", True, 1.0 / 2**20)}


class _ClaimPrinter:
    """Prints an experiment's claims under the table or figure that shows
    their metric, each claim once; ``rest`` prints those left."""

    def __init__(self, doc: Doc, claims: pd.DataFrame):
        self.doc = doc
        self.claims = claims
        self.done: set[str] = set()

    def under(self, metrics) -> None:
        if self.claims.empty:
            return
        sel = self.claims[self.claims["metric"].isin(list(metrics)) & ~self.claims["id"].isin(self.done)]
        self._print(sel, "Claims")

    def rest(self) -> None:
        if not self.claims.empty:
            self._print(self.claims[~self.claims["id"].isin(self.done)], "Other claims")

    def _print(self, sel: pd.DataFrame, heading: str) -> None:
        if sel.empty:
            return
        self.done.update(sel["id"])
        self.doc.para(f"{heading} of the thesis and their verdicts:", note=True)
        self.doc.table(_claims_frame(sel), left=("claim", "source", "thesis says", "metric", "verdict", "why"),
                       verdict_col="verdict")


_SERIES_METRICS = ("goodput_bps", "throughput_bps", "link_throughput_bps", "utilization")


def _experiment_figures(doc: Doc, exp: Experiment, obs: pd.DataFrame, published: pd.DataFrame,
                        traces: dict, profile: str, cp: _ClaimPrinter) -> None:
    eo = obs[obs["experiment"] == exp.id]
    pub = published[published["experiment"] == exp.id]
    if exp.id == "t5_1":
        label, log, scale = _X["rtt"]
        doc.figure(figures.metric_vs_x(eo, "response_s", label, log, profile, pub), f"{exp.id}_response",
                   "Table 5.1: FTP download response time vs RTT, TCP SACK, delayed ACK (crosses: thesis)")
        cp.under(["response_s"])
    if exp.traces:
        doc.figure(figures.time_series(traces.get(exp.id, []), profile), f"{exp.id}_series",
                   f"{exp.title}: goodput and satellite link throughput / utilisation over time "
                   f"(re-runs sampled every {figures.TRACE_SAMPLE_S:g} s, rates over {figures.TRACE_WINDOW_S:g} s; "
                   f"thesis Figs. {', '.join(exp.figures)}). The engine samples no receive counter that "
                   "includes retransmissions, so TCP throughput appears as its run average in the claims")
        cp.under(_SERIES_METRICS)
    if exp.id == "filesize" or exp.id.startswith("ber_"):
        label, log, scale = _X["size"] if exp.id == "filesize" else _X["ber"]
        metrics = (("response_s", "goodput_bps") if exp.app == "http" else
                   ("response_s", "goodput_bps", "throughput_bps", "link_throughput_bps", "utilization"))
        for m in metrics:
            doc.figure(figures.metric_vs_x(eo, m, label, log, profile, scale=scale), f"{exp.id}_{m}",
                       f"{exp.title}: {m} over the seeds ({INTERVAL_NOTE})")
            cp.under([m])
    if exp.app == "fairness":
        for t in sorted(pub["table"].unique()):
            rows = pub[(pub["table"] == t) & (pub["metric"] == "throughput_Bps")]
            if not rows.empty:
                doc.figure(figures.published_vs_ours_bars(eo, rows, f"Table {t}", profile), f"{exp.id}_{t}",
                           f"Table {t}: average throughput per connection, satcp beside the thesis")
                cp.under(["throughput_Bps"])


def collect_traces(experiments: list[Experiment], runs: pd.DataFrame, obs: pd.DataFrame) -> dict:
    """Re-run, with sampling, replication 0 of every variant and delayed-ACK
    setting of the experiments that redraw time series."""
    out: dict[str, list] = {}
    ok = obs[obs["status"] == "ok"]
    by_key = runs.set_index("key")
    for exp in experiments:
        if not exp.traces:
            continue
        sel = ok[(ok["experiment"] == exp.id) & (ok["replication"] == 0)].drop_duplicates("key")
        for _, r in sel.iterrows():
            series, link_series, rate = figures.rerun_series(by_key.loc[r["key"], "scenario_json"], exp.link)
            out.setdefault(exp.id, []).append((r["arm"], bool(r["delayed_ack"]), series, link_series, rate))
    return out


def write(ctx: Context, a: Analysis, claim_list: list[Claim]) -> tuple[Path, Path]:
    """The report: per experiment the thesis' tables beside ours, the
    figures redrawn, its claims judged; then every stated percentage
    beside ours, and the failed runs."""
    experiments, obs, runs, tables, claims = a.experiments, a.observations, a.runs, a.tables, a.claim_rows
    published, unavailable = a.published, a.unavailable
    doc = Doc.opened(ctx, "satcp reproduction of the TCP-ADaLR thesis (Omueti 2007)", (
        "Numbers marked 'thesis' are the thesis' published values (data/published/adalr_thesis.csv), not "
        "satcp's; every 'satcp' number is measured from the results store. Verdicts are computed by "
        "satcp.reproduce.adalr.claims (see docs/reproduce-adalr.md)."))
    doc.table(pd.DataFrame(list(counts(claim_list).items()), columns=["claims", "count"]), left=("claims",))
    if unavailable:
        doc.heading(2, "Not run")
        doc.table(pd.DataFrame([(e, arm, why) for (e, arm), why in unavailable.items()],
                               columns=["experiment", "arm", "reason"]), left=("experiment", "arm", "reason"))
    traces = collect_traces(experiments, runs, obs)
    for exp in experiments:
        doc.heading(2, f"{exp.id}: {exp.title}")
        refs = [f"Table {t}" for t in exp.tables] + ([f"Figs. {exp.figures[0]}-{exp.figures[-1]}"] if exp.figures else [])
        doc.para(f"Thesis: {', '.join(refs)}. Base scenario {exp.base}; runs per cell: {exp.replications} "
                 f"(quick: {exp.quick_replications}).", note=True)
        missing = [f"{a}: {why}" for (e, a), why in unavailable.items() if e == exp.id]
        if missing:
            doc.para("Not run: " + "; ".join(missing), note=True)
        cp = _ClaimPrinter(doc, claims[claims["experiment"] == exp.id] if not claims.empty else claims)
        for t in exp.tables:
            rows = tables[tables["table"] == t]
            doc.heading(3, f"Table {t}")
            doc.table(_table_frame(rows), left=("variant", "delayed ACK", "connection", "metric"))
            cp.under(rows["metric"].unique())
        if exp.figures or exp.id == "t5_1":
            doc.heading(3, "Figures")
        _experiment_figures(doc, exp, obs, published, traces, ctx.study.profile.name, cp)
        cp.rest()
    doc.heading(2, "Stated against measured percentages")
    doc.figure(figures.stated_vs_measured(claims[claims["stated_low"].notna()] if not claims.empty else claims,
                                          ctx.study.profile.name),
               "claims_pct", "Every claim with a stated percentage: thesis (black) and satcp's range over the "
                             "matched cells (red), as change in the claim's direction")
    return doc.close(runs)


def summary(a: Analysis, claim_list: list[Claim]) -> str:
    """Ours beside the thesis' per table row, then the count of each verdict."""
    rows = []
    for _, r in a.tables.iterrows():
        ci = "" if pd.isna(r["ci_half"]) else f"+-{fmt(r['ci_half'])}"
        rows.append((r["table"], VARIANT_NAMES.get(r["variant"], r["variant"]),
                     "on" if r["delayed_ack"] else "off",
                     "" if pd.isna(r["x"]) else fmt(r["x"]), r["flow"], r["metric"],
                     fmt(r["ours"]), ci, fmt(r["value"]), fmt(r["deviation_pct"])))
    text = format_table(["table", "variant", "dack", "x", "flow", "metric", "satcp", "95% CI", "thesis", "dev %"],
                        rows, "llllllrrrr")
    if claim_list:
        text += "\n" + count_line(claim_list)
    return text
