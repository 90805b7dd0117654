"""The reproduction report: ``DIR/index.html`` (self-contained: figures are
embedded PNG, no scripts, no external URL) and ``DIR/report.md`` (the same
content; figures as ``DIR/figures/*.png``).

Per experiment: the thesis' table(s) beside ours (mean, 95% t half-width
where replicated, runs, deviation), the redrawn figures, and the thesis'
claims with the verdict computed by :mod:`satcp.reproduce.claims`. Every
number comes from the store, the published CSV or a deterministic re-run of
a stored run.
"""

from __future__ import annotations

import base64
import html
from pathlib import Path
from typing import Any

import numpy as np
import pandas as pd

from .. import _core
from . import PROFILES
from .. import report as sweep_report
from ..plotting import png_bytes
from ..tables import MISSING, is_missing
from . import figures
from .adalr import VARIANT_NAMES
from .catalogue import Experiment
from .claims import BORNE_OUT, DIRECTION_ONLY, NOT_BORNE_OUT, NOT_EVALUATED

_CSS = sweep_report.CSS_COMMON + """
table.data td.l, table.data th.l { text-align: left; }
td.ok { background: #dff0d8; } td.part { background: #fcf3cf; } td.bad { background: #f6d6d6; } td.none { background: #eee; }
"""

_VERDICT_CLASS = {BORNE_OUT: "ok", DIRECTION_ONLY: "part", NOT_BORNE_OUT: "bad", NOT_EVALUATED: "none"}


def fmt(v: Any, digits: int = 6) -> str:
    """Like the sweep report's cells, but floats to 3 decimals and NaN as '-'."""
    if isinstance(v, (float, np.floating)):
        if is_missing(v):
            return MISSING
        if v != 0 and (abs(v) >= 1e7 or abs(v) < 1e-3):
            return f"{v:.{digits}g}"
        return f"{round(v, 3):.10g}"
    return sweep_report._fmt(v)


class Doc:
    """Builds the HTML page and the Markdown file from the same calls."""

    def __init__(self, out_dir: Path):
        self.html: list[str] = []
        self.md: list[str] = []
        self.fig_dir = out_dir / "figures"
        self.fig_dir.mkdir(parents=True, exist_ok=True)
        self.figure_count = 0

    def heading(self, level: int, text: str) -> None:
        self.html.append(f"<h{level}>{html.escape(text)}</h{level}>")
        self.md.append(f"\n{'#' * level} {text}\n")

    def para(self, text: str, note: bool = False) -> None:
        cls = ' class="note"' if note else ""
        self.html.append(f"<p{cls}>{html.escape(text)}</p>")
        self.md.append(f"\n{text}\n")

    def table(self, df: pd.DataFrame, left: tuple[str, ...] = (), verdict_col: str | None = None) -> None:
        cols = list(df.columns)
        head = "".join(f'<th class="{"l" if c in left else ""}">{html.escape(str(c))}</th>' for c in cols)
        body = []
        for row in df.itertuples(index=False):
            cells = []
            for c, v in zip(cols, row):
                cls = "l" if c in left else ""
                if c == verdict_col:
                    cls += " " + _VERDICT_CLASS.get(v, "")
                cells.append(f'<td class="{cls.strip()}">{html.escape(fmt(v))}</td>')
            body.append("<tr>" + "".join(cells) + "</tr>")
        self.html.append(f'<table class="data"><thead><tr>{head}</tr></thead><tbody>{"".join(body)}</tbody></table>')
        md = ["| " + " | ".join(str(c) for c in cols) + " |", "|" + "---|" * len(cols)]
        for row in df.itertuples(index=False):
            md.append("| " + " | ".join(fmt(v).replace("|", "/") for v in row) + " |")
        self.md.append("\n" + "\n".join(md) + "\n")

    def failed_runs(self, runs: pd.DataFrame) -> None:
        """The section listing the runs that did not end ok (with their
        errors), from a frame with key, status and error columns."""
        failed = runs[runs["status"] != "ok"] if not runs.empty else runs
        self.heading(2, f"Failed runs ({len(failed)})")
        if failed.empty:
            self.para("None.", note=True)
        else:
            self.table(failed[["key", "error"]], left=("key", "error"))

    def figure(self, fig, name: str, caption: str) -> None:
        if fig is None:
            self.para(f"(no data for: {caption})", note=True)
            return
        data = png_bytes(fig, dpi=90)
        (self.fig_dir / f"{name}.png").write_bytes(data)
        b64 = base64.b64encode(data).decode("ascii")
        self.html.append(f'<figure><img class="fig" alt="{html.escape(caption)}" src="data:image/png;base64,{b64}">'
                         f"<figcaption>{html.escape(caption)}</figcaption></figure>")
        self.md.append(f"\n![{name}](figures/{name}.png)\n\n*{caption}*\n")
        self.figure_count += 1

    def write(self, out_dir: Path, title: str) -> tuple[Path, Path]:
        page = ("<!DOCTYPE html>\n<html lang=\"en\"><head><meta charset=\"utf-8\">"
                f"<title>{html.escape(title)}</title><style>{_CSS}</style></head><body>\n"
                + "\n".join(self.html) + "\n</body></html>\n")
        h = out_dir / "index.html"
        h.write_text(page, encoding="utf-8")
        m = out_dir / "report.md"
        m.write_text("\n".join(self.md).lstrip() + "\n", encoding="utf-8")
        return h, m


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
                        traces: dict, level: float, cp: _ClaimPrinter) -> None:
    eo = obs[obs["experiment"] == exp.id]
    pub = published[published["experiment"] == exp.id]
    if exp.id == "t5_1":
        label, log, scale = _X["rtt"]
        doc.figure(figures.metric_vs_x(eo, "response_s", label, log, level, pub), f"{exp.id}_response",
                   "Table 5.1: FTP download response time vs RTT, TCP SACK, delayed ACK (crosses: thesis)")
        cp.under(["response_s"])
    if exp.traces:
        doc.figure(figures.time_series(traces.get(exp.id, [])), f"{exp.id}_series",
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
            doc.figure(figures.metric_vs_x(eo, m, label, log, level, scale=scale), f"{exp.id}_{m}",
                       f"{exp.title}: {m} (mean and {level:.0%} t interval over the seeds)")
            cp.under([m])
    if exp.app == "fairness":
        for t in sorted(pub["table"].unique()):
            rows = pub[(pub["table"] == t) & (pub["metric"] == "throughput_Bps")]
            if not rows.empty:
                doc.figure(figures.published_vs_ours_bars(eo, rows, f"Table {t}"), f"{exp.id}_{t}",
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


def write(out_dir: Path, *, experiments: list[Experiment], obs: pd.DataFrame, runs: pd.DataFrame,
          tables: pd.DataFrame, claims: pd.DataFrame, published: pd.DataFrame, unavailable: dict,
          header: list[tuple[str, str]], level: float, title: str) -> tuple[Path, Path]:
    out_dir = Path(out_dir)
    out_dir.mkdir(parents=True, exist_ok=True)
    doc = Doc(out_dir)
    doc.heading(1, title)
    doc.para("Numbers marked 'thesis' are the thesis' published values (data/published/adalr_thesis.csv), "
             "not satcp's; every 'satcp' number is measured from the results store. Verdicts are computed "
             "by satcp.reproduce.claims (see docs/reproduce.md).", note=True)
    doc.table(pd.DataFrame(header, columns=["", "value"]), left=("", "value"))
    counts = claims["verdict"].value_counts() if not claims.empty else pd.Series(dtype=int)
    doc.table(pd.DataFrame([(v, int(counts.get(v, 0))) for v in (BORNE_OUT, DIRECTION_ONLY, NOT_BORNE_OUT, NOT_EVALUATED)],
                           columns=["claims", "count"]), left=("claims",))
    if unavailable:
        doc.heading(2, "Not run")
        doc.table(pd.DataFrame([(e, a, why) for (e, a), why in unavailable.items()],
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
        _experiment_figures(doc, exp, obs, published, traces, level, cp)
        cp.rest()
    doc.heading(2, "Stated against measured percentages")
    doc.figure(figures.stated_vs_measured(claims[claims["stated_low"].notna()] if not claims.empty else claims),
               "claims_pct", "Every claim with a stated percentage: thesis (black) and satcp's range over the "
                             "matched cells (red), as change in the claim's direction")
    doc.failed_runs(runs)
    return doc.write(out_dir, title)


def verdict(holds) -> str:
    """A claim's verdict as the reports word it."""
    return "no data" if holds is None else ("holds" if holds else "does not hold")


def claims_table(doc: Doc, claims: list[dict], source: str) -> None:
    """Claims (dicts with id, wording, holds, evidence) as a report table;
    ``source`` names whose wording it is ("paper", "thesis")."""
    doc.table(pd.DataFrame([(c["id"], c["wording"], verdict(c["holds"]), c["evidence"]) for c in claims],
                           columns=["claim", source, "satcp", "evidence"]), left=("claim", source, "satcp", "evidence"))


def print_claims(claims: list[dict], stdout) -> None:
    """One line per claim with its verdict and evidence."""
    for c in claims:
        print(f"claim {c['id']}: {verdict(c['holds'])} ({c['evidence']})", file=stdout)


def header_rows(name: str, quick: bool, report, obs: pd.DataFrame, wall_s: float) -> list[tuple[str, str]]:
    profile, why = PROFILES[name]
    return [("reproduction", name + (" --quick" if quick else "")), ("satcp version", _core.version()),
            ("TCP profile", f"{profile}: {why}"),
            ("runs", str(report.total)), ("run now", str(report.ran)),
            ("already in the store", str(report.already_stored)), ("failed (in store)", str(report.failed_in_store)),
            ("run wall time (s)", f"{report.wall_s:.1f}"), ("observations", str(len(obs))),
            ("confidence level", "95% (Student t)")]
