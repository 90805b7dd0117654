"""A self-contained HTML report of a sweep: figures (PNG embedded as base64)
and tables in one file, no scripts and no external URLs.

Input: the store's frames (see ``docs/report.md`` for the exact contract).

* ``flows``: one row per run x flow. Factor columns are named by their
  dotted scenario path (``flows.download.tcp.variant``,
  ``links.1.errors_ab.ber``); identity columns ``key``, ``sweep``, ``cell``,
  ``replication``, ``seed``, ``status``; the flow's name in ``flow`` (or
  ``name``); metrics as in ``satcp.Result.flows`` (``completion_s``,
  ``goodput_bps``, ``throughput_bps``, ``retransmissions``, ...).
* ``runs`` (optional): one row per run with ``key``, ``status``, ``error``,
  ``scenario_json`` (resolved scenario, re-runnable with ``satcp.run``),
  and optionally ``cell``, ``replication``, ``seed``, ``sim_time_s``,
  ``satcp_version``. Needed for the failed-run table and the time-series
  figures: chosen runs are run again with ``run.sample_interval`` set
  (satcp is deterministic, so the re-run is the stored run).

The page has: an overview (runs, failures, factors and their levels); per
metric a figure of the cell means with Student-t error bars against a
numeric factor (BER by default) with one line per level of a grouping
factor (the TCP variant by default), and the per-cell statistics table;
the percentage improvement of each level of the grouping factor over a
baseline; an ANOVA table per metric; Jain / max-min fairness per cell
when runs have several flows; what limited each flow (shares of time
limited by cwnd, the receive window, the application and pacing); goodput,
cwnd and sequence traces of chosen runs (with a measured series, their
goodput and RTT per second beside it); and the table of failed runs.
"""

from __future__ import annotations

import base64
import copy
import html
import json
import math
from pathlib import Path
from typing import Any, Sequence

import numpy as np
import pandas as pd

from . import engine, stats
from .plotting import png_bytes, pyplot
from .tables import is_missing

__all__ = ["write_report", "write_run_report", "DEFAULT_METRICS"]

#: Goodput in the traces is averaged over this many sample intervals.
GOODPUT_WINDOW_SAMPLES = 20

#: Metrics plotted and tabulated when present, with their axis labels.
DEFAULT_METRICS = ("completion_s", "goodput_bps")

_LABELS = {
    "completion_s": "response time (s)",
    "mean_page_response_s": "page response time (s)",
    "goodput_bps": "goodput (b/s)",
    "throughput_bps": "throughput (b/s)",
    "retransmissions": "retransmissions",
    "timeouts": "timeouts",
}

#: Page style shared with the studies' reports (satcp.reproduce.kit.document).
CSS_COMMON = """
body { font-family: sans-serif; margin: 2em; max-width: 1250px; color: #222; }
h1 { font-size: 1.6em; } h2 { font-size: 1.3em; margin-top: 2em; border-bottom: 1px solid #ccc; }
h3 { font-size: 1.1em; }
table.data { border-collapse: collapse; font-size: 0.85em; margin: 0.5em 0 1.5em 0; }
table.data th, table.data td { border: 1px solid #ccc; padding: 2px 6px; text-align: right; }
table.data th { background: #f0f0f0; }
figure { margin: 1em 0; } figcaption { font-size: 0.85em; color: #555; }
img.fig { max-width: 100%; height: auto; border: 1px solid #eee; }
p.note { color: #555; font-size: 0.9em; }
"""

_CSS = CSS_COMMON + "table.data td:first-child, table.data th:first-child { text-align: left; }\n"


# --------------------------------------------------------------------------
# helpers


def _fmt(v: Any) -> str:
    """A report cell; a missing value is left blank."""
    if is_missing(v):
        return ""
    if isinstance(v, (bool, np.bool_)):
        return "yes" if v else "no"
    if isinstance(v, (int, np.integer)):
        return str(int(v))
    if isinstance(v, (float, np.floating)):
        if v != 0 and (abs(v) >= 1e6 or abs(v) < 1e-3):
            return f"{v:.4g}"
        return f"{v:.6g}"
    return str(v)


def _table(df: pd.DataFrame, columns: dict[str, str] | None = None) -> str:
    """An HTML table of ``df`` (all cells escaped); ``columns`` renames."""
    if columns:
        df = df[[c for c in columns if c in df.columns]].rename(columns=columns)
    head = "".join(f"<th>{html.escape(str(c))}</th>" for c in df.columns)
    body = []
    for row in df.itertuples(index=False):
        body.append("<tr>" + "".join(f"<td>{html.escape(_fmt(v))}</td>" for v in row) + "</tr>")
    return f'<table class="data"><thead><tr>{head}</tr></thead><tbody>{"".join(body)}</tbody></table>'


def _figure(fig, caption: str) -> str:
    data = base64.b64encode(png_bytes(fig, dpi=100)).decode("ascii")
    return (f'<figure><img class="fig" alt="{html.escape(caption)}" src="data:image/png;base64,{data}">'
            f"<figcaption>{html.escape(caption)}</figcaption></figure>")


def _short(col: str) -> str:
    return col.rsplit(".", 1)[-1]


def _is_numeric(s: pd.Series) -> bool:
    vals = s.dropna()
    return len(vals) > 0 and all(isinstance(v, (int, float, np.integer, np.floating))
                                 and not isinstance(v, (bool, np.bool_)) for v in vals)


def _levels(s: pd.Series) -> list:
    vals = list(pd.unique(s.dropna()))
    try:
        return sorted(vals)
    except TypeError:
        return sorted(vals, key=str)


def _flow_col(df: pd.DataFrame) -> str | None:
    for c in ("flow", "name"):
        if c in df.columns:
            return c
    return None


def _choose_x(df: pd.DataFrame, factors: list[str]) -> str | None:
    numeric = [f for f in factors if _is_numeric(df[f]) and df[f].nunique() > 1]
    for f in numeric:
        if _short(f) in ("ber", "per"):
            return f
    return max(numeric, key=lambda f: df[f].nunique(), default=None)


def _choose_group(df: pd.DataFrame, factors: list[str], x: str | None) -> str | None:
    cands = [f for f in factors if f != x and df[f].nunique() > 1]
    for f in cands:
        if _short(f) == "variant":
            return f
    return cands[0] if cands else None


def _cell_label(row: pd.Series | dict, cols: Sequence[str]) -> str:
    return ", ".join(f"{_short(c)}={_fmt(row[c])}" for c in cols)


# --------------------------------------------------------------------------
# sections


def _overview(flows: pd.DataFrame, ok: pd.DataFrame, runs: pd.DataFrame | None, factors: list[str],
              level: float) -> str:
    per_run = runs if runs is not None else flows.drop_duplicates("key")
    status = per_run["status"] if "status" in per_run.columns else pd.Series("ok", index=per_run.index)
    rows = [("runs", len(per_run)), ("ok", int((status == "ok").sum())), ("failed", int((status == "failed").sum())),
            ("flow rows", len(flows)), ("confidence level", f"{level:.0%} (Student t)")]
    for col in ("sweep", "satcp_version"):
        src = per_run if col in per_run.columns else flows
        if col in src.columns:
            rows.append((col, ", ".join(map(str, _levels(src[col])))))
    if factors and not ok.empty:
        per_cell = ok.drop_duplicates("key").groupby(factors, dropna=False).size()
        rows.append(("successful runs per cell", f"{per_cell.min()}..{per_cell.max()}"))
    parts = [_table(pd.DataFrame(rows, columns=["", "value"]))]
    if factors:
        lv = pd.DataFrame([(f, len(_levels(flows[f])), ", ".join(_fmt(v) for v in _levels(flows[f])))
                           for f in factors], columns=["factor", "levels", "values"])
        parts.append("<h3>Factors</h3>" + _table(lv))
    return "".join(parts)


def _metric_figure(desc: pd.DataFrame, metric: str, x: str | None, group: str | None,
                   facets: list[str], level: float) -> str:
    plt = pyplot()
    panels = [((), desc)] if not facets else list(desc.groupby(facets, sort=True, dropna=False))
    shown = panels[:9]
    ncols = min(3, len(shown))
    nrows = math.ceil(len(shown) / ncols)
    fig, axes = plt.subplots(nrows, ncols, figsize=(5.2 * ncols, 3.8 * nrows), squeeze=False)
    for ax, (keys, d) in zip(axes.flat, shown):
        keys = keys if isinstance(keys, tuple) else (keys,)
        groups = [(None, d)] if group is None else list(d.groupby(group, sort=True))
        for gname, g in groups:
            label = None if group is None else f"{_short(group)}={_fmt(gname)}"
            if x is not None:
                g = g.sort_values(x)
                ax.errorbar(g[x].astype(float), g["mean"], yerr=g["ci_half"].fillna(0), marker="o", capsize=3,
                            label=label)
            else:
                ax.bar([label or metric], g["mean"], yerr=g["ci_half"].fillna(0), capsize=3)
        if x is not None:
            vals = d[x].astype(float)
            if (vals > 0).all() and vals.max() / vals.min() >= 100:
                ax.set_xscale("log")
            ax.set_xlabel(_short(x))
        ax.set_ylabel(_LABELS.get(metric, metric))
        if facets:
            ax.set_title(", ".join(f"{_short(f)}={_fmt(k)}" for f, k in zip(facets, keys)), fontsize=9)
        if group is not None and x is not None:
            ax.legend(fontsize=8)
        ax.grid(True, alpha=0.3)
    for ax in list(axes.flat)[len(shown):]:
        ax.axis("off")
    cap = f"{_LABELS.get(metric, metric)}: cell means with {level:.0%} t-interval error bars"
    if x is not None:
        cap += f" against {x}"
    if len(panels) > len(shown):
        cap += f" (first {len(shown)} of {len(panels)} panels)"
    return _figure(fig, cap)


def _metric_section(ok: pd.DataFrame, metric: str, factors: list[str], x: str | None, group: str | None,
                    flow_col: str | None, level: float) -> str:
    by = list(factors)
    multi_flow = flow_col is not None and ok[flow_col].nunique() > 1
    if multi_flow:
        by.append(flow_col)
    desc = stats.describe(ok, by, metric, level)
    facets = [f for f in by if f not in (x, group) and desc[f].nunique() > 1]
    out = [f"<h2>{html.escape(_LABELS.get(metric, metric))}</h2>"]
    if desc["n"].sum() == 0:
        return out[0] + '<p class="note">No values (no flow reached this metric).</p>'
    out.append(_metric_figure(desc[desc["n"] > 0], metric, x, group, facets, level))
    cols = {c: _short(c) if "." in c else c for c in by}
    cols.update({k: k for k in ("n", "n_missing", "mean", "std", "ci_low", "ci_high", "min", "q1", "median",
                                "q3", "max")})
    out.append(f"<h3>Per-cell statistics of {html.escape(metric)}</h3>" + _table(desc, cols))
    return "".join(out)


def _improvement_section(ok: pd.DataFrame, metrics: list[str], factors: list[str], group: str | None,
                         baseline: Any, flow_col: str | None, level: float) -> str:
    if group is None:
        return ""
    levels = _levels(ok[group])
    if len(levels) < 2:
        return ""
    base = baseline if baseline is not None else levels[0]
    if base not in levels:
        raise ValueError(f"baseline {base!r} is not a level of {group}: {levels}")
    by = [f for f in factors if f != group]
    if flow_col is not None and ok[flow_col].nunique() > 1 and ok.groupby("key")[flow_col].nunique().max() > 1:
        by.append(flow_col)
    out = [f"<h2>Improvement over {html.escape(_short(group))} = {html.escape(_fmt(base))}</h2>",
           '<p class="note">Positive = better than the baseline. Lower-is-better metrics (response time): '
           "(base - new) / base x 100; higher-is-better (goodput): (new - base) / base x 100. "
           f"Intervals at {level:.0%}; overlapping intervals show no difference.</p>"]
    for metric in metrics:
        frames = []
        for new in levels:
            if new == base:
                continue
            try:
                frames.append(stats.compare(ok, group, base, new, metric, by=by, level=level))
            except ValueError:
                frames = []
                break
        if not frames:
            continue
        c = pd.concat(frames, ignore_index=True)
        cols = {b: _short(b) if "." in b else b for b in by}
        cols.update({"base": "base", "new": "new", "base_mean": "base mean", "new_mean": "new mean",
                     "improvement_pct": "improvement %", "ci_overlap": "CIs overlap"})
        out.append(f"<h3>{html.escape(metric)}</h3>" + _table(c, cols))
    return "".join(out)


def _anova_section(ok: pd.DataFrame, metrics: list[str], factors: list[str], flow_col: str | None) -> str:
    varied = [f for f in factors if ok[f].nunique() > 1]
    if not varied:
        return ""
    # Flows of one run are not independent observations: with several flows
    # per run, one ANOVA per flow.
    per_flow = flow_col is not None and ok.groupby("key")[flow_col].nunique().max() > 1
    subsets = list(ok.groupby(flow_col, sort=True)) if per_flow else [(None, ok)]
    out = ["<h2>Analysis of variance</h2>",
           '<p class="note">Full factorial model (effects coding), sums of squares from statsmodels '
           "(type II), laid out as in the CETEN-R thesis; % of variation = SS / SS(y - ybar)"
           + ("; one table per flow." if per_flow else ".") + "</p>"]
    for metric in metrics:
        for flow, sub in subsets:
            name = metric if flow is None else f"{metric}, flow {flow}"
            d = sub[varied + [metric]].dropna()
            cells = d.groupby(varied).size()
            if len(cells) == 0 or cells.max() < 2:
                out.append(f'<p class="note">{html.escape(name)}: no replications, no ANOVA.</p>')
                continue
            try:
                t = stats.anova(d, varied, metric)
            except (ValueError, np.linalg.LinAlgError) as e:
                out.append(f'<p class="note">{html.escape(name)}: ANOVA not possible ({html.escape(str(e))}).</p>')
                continue
            out.append(f"<h3>{html.escape(name)}</h3>" + _table(
                t, {"component": "component", "ss": "sum of squares", "pct_variation": "% of variation",
                    "df": "df", "F": "F", "p": "Prob > F"}))
    return "".join(out)


def _fairness_section(ok: pd.DataFrame, factors: list[str], flow_col: str | None, level: float) -> str:
    plt = pyplot()
    if flow_col is None or ok.groupby("key")[flow_col].nunique().max() < 2:
        return ""
    metric = "throughput_bps" if "throughput_bps" in ok.columns else "goodput_bps"
    f = stats.fairness(ok, factors, metric=metric, level=level)
    labels = [_cell_label(r, factors) if factors else "all" for _, r in f.iterrows()]
    fig, ax = plt.subplots(figsize=(max(5.0, 0.6 * len(f) + 2), 3.8))
    err = np.vstack([(f["jain_mean"] - f["jain_ci_low"]).fillna(0), (f["jain_ci_high"] - f["jain_mean"]).fillna(0)])
    ax.bar(range(len(f)), f["jain_mean"], yerr=err, capsize=3, color="#4a7ab5")
    ax.set_xticks(range(len(f)))
    ax.set_xticklabels(labels, rotation=45, ha="right", fontsize=7)
    ax.set_ylim(0, 1.05)
    ax.set_ylabel("Jain's fairness index")
    ax.grid(True, axis="y", alpha=0.3)
    cols = {c: _short(c) for c in factors}
    cols.update({"n": "runs", "flows": "flows", "jain_mean": "Jain", "jain_ci_low": "Jain low",
                 "jain_ci_high": "Jain high", "max_min_mean": "max-min", "max_min_ci_low": "max-min low",
                 "max_min_ci_high": "max-min high"})
    return ("<h2>Fairness</h2>"
            f'<p class="note">Among the flows of each run, on {html.escape(metric)}; '
            f"mean over the runs of a cell with {level:.0%} t intervals.</p>"
            + _figure(fig, f"Jain's fairness index per cell ({metric})") + _table(f, cols))


def _pick_trace_runs(ok: pd.DataFrame, runs: pd.DataFrame, x: str | None, group: str | None,
                     max_traces: int) -> list[str]:
    """Default traces: for each level of the grouping factor, the first
    replication at the middle level of x (all other factors at their first
    level)."""
    good = runs[runs["status"] == "ok"] if "status" in runs.columns else runs
    cand = ok[ok["key"].isin(good["key"])].copy()
    if cand.empty:
        return []
    if x is not None:
        lv = _levels(cand[x])
        cand = cand[cand[x] == lv[len(lv) // 2]]
    sort = [c for c in ("replication", "seed", "key") if c in cand.columns]
    cand = cand.sort_values(sort)
    if group is not None:
        keys = [g["key"].iloc[0] for _, g in cand.groupby(group, sort=True)]
    else:
        keys = list(cand["key"].iloc[:1])
    return keys[:max_traces]


def _rerun(scenario_json: str, interval_s: float):
    d = json.loads(scenario_json) if isinstance(scenario_json, str) else copy.deepcopy(scenario_json)
    d.pop("captures", None)  # do not overwrite the run's capture files
    d.setdefault("run", {})["sample_interval"] = f"{interval_s * 1e3:.6g}ms"
    return engine.run(d)


def _traces_section(ok: pd.DataFrame, runs: pd.DataFrame | None, factors: list[str], x: str | None,
                    group: str | None, trace_runs: Sequence[str] | None, max_traces: int,
                    sample_interval: float | None, measured: tuple[pd.DataFrame, str] | None = None) -> str:
    plt = pyplot()
    head = "<h2>Time series of chosen runs</h2>"
    if runs is None or "scenario_json" not in runs.columns:
        return head + '<p class="note">No runs table with scenario_json: no traces.</p>'
    keys = list(trace_runs) if trace_runs is not None else _pick_trace_runs(ok, runs, x, group, max_traces)
    if not keys:
        return head + '<p class="note">No successful run to trace.</p>'
    by_key = runs.set_index("key")
    unknown = [k for k in keys if k not in by_key.index]
    if unknown:
        raise KeyError(f"trace runs not in the runs table: {unknown}")
    if sample_interval is None:
        horizon = float(by_key.loc[keys, "sim_time_s"].max()) if "sim_time_s" in by_key.columns else math.nan
        sample_interval = max(0.001, round(horizon / 400, 3)) if np.isfinite(horizon) and horizon > 0 else 0.1
    series = []
    labels = []
    info = ok.drop_duplicates("key").set_index("key")
    for k in keys:
        res = _rerun(by_key.loc[k, "scenario_json"], sample_interval)
        label = _cell_label(info.loc[k], [f for f in factors if ok[f].nunique() > 1]) if k in info.index else str(k)
        if "replication" in info.columns and k in info.index:
            label += f" #{_fmt(info.loc[k, 'replication'])}"
        series.append(res.series)
        labels.append(label or str(k))
    window = GOODPUT_WINDOW_SAMPLES * sample_interval
    n = len(series)
    fig, axes = plt.subplots(3, n, figsize=(4.2 * n + 1, 9), sharex="col", sharey="row", squeeze=False)
    for col, (s, lab) in enumerate(zip(series, labels)):
        ax = axes[:, col]
        ax[0].set_title(lab, fontsize=9)
        for fname, g in s.groupby("flow_name", sort=True):
            t = g["time_s"].to_numpy()
            dv = g["delivered_bytes"].to_numpy()
            k = GOODPUT_WINDOW_SAMPLES
            rate = np.full_like(dv, np.nan)
            if len(dv) > k:
                rate[k:] = (dv[k:] - dv[:-k]) * 8 / (t[k:] - t[:-k])
            ax[0].plot(t, rate, lw=0.9, label=str(fname))
            ax[1].plot(t, g["cwnd_bytes"] / 1e3, lw=0.9, label=str(fname))
            line, = ax[2].plot(t, g["snd_max_bytes"] / 1e6, lw=0.9, label=f"{fname} sent")
            ax[2].plot(t, g["delivered_bytes"] / 1e6, lw=0.9, ls="--", color=line.get_color(),
                       label=f"{fname} delivered")
        ax[2].set_xlabel("time (s)")
        for a in ax:
            a.grid(True, alpha=0.3)
        ax[0].legend(fontsize=7, loc="best")
        ax[2].legend(fontsize=7, loc="best")
    axes[0, 0].set_ylabel("goodput (b/s)")
    axes[1, 0].set_ylabel("cwnd (kB)")
    axes[2, 0].set_ylabel("sequence (MB)")
    cap = (f"Per chosen run (re-run with a {sample_interval * 1e3:g} ms sample interval): goodput over a sliding "
           f"{window:g} s window, congestion window, and highest sequence sent (solid) vs bytes delivered (dashed)")
    table = pd.DataFrame({"run key": keys, "cell": labels})
    out = head + _figure(fig, cap) + _table(table)
    if measured is not None:
        from . import report_measured as rm

        df, label = measured
        bw = rm.bin_width(df)
        out += rm.section([rm.simulated_per_bin(s, bw) for s in series], labels, df, label, _figure, _table)
    return out


def _failed_section(flows: pd.DataFrame, runs: pd.DataFrame | None) -> str:
    src = runs if runs is not None and "status" in runs.columns else flows
    if "status" not in src.columns:
        return ""
    failed = src[src["status"] == "failed"]
    failed = failed.drop_duplicates("key")
    head = f"<h2>Failed runs ({len(failed)})</h2>"
    if failed.empty:
        return head + '<p class="note">None.</p>'
    cols = {c: c for c in ("key", "sweep", "cell", "replication", "seed", "error") if c in failed.columns}
    return head + _table(failed, cols)


# --------------------------------------------------------------------------


LIMIT_COLUMNS = ("limited_cwnd", "limited_rwnd", "limited_app", "limited_pacing")


def _limits_section(ok: pd.DataFrame, factors: list[str], flow_col: str | None) -> str:
    """What limited the sending TCPs: the mean share of time under each
    limit per cell (and flow), with the dominant one named."""
    have = [c for c in LIMIT_COLUMNS if c in ok.columns]
    if not have:
        return ""
    tcp = ok.dropna(subset=have)
    if tcp.empty:
        return ""
    keys = list(factors) + ([flow_col] if flow_col and tcp[flow_col].nunique() > 1 else [])
    g = tcp.groupby(keys, sort=False, dropna=False)[have].mean().reset_index() if keys else \
        tcp[have].mean().to_frame().T
    g["limited by"] = g[have].idxmax(axis=1).str.replace("limited_", "", regex=False)
    cols = {c: _short(c) for c in keys}
    cols.update({c: c.replace("limited_", "") + " share" for c in have})
    cols["limited by"] = "limited by"
    note = ('<p class="note">Share of each sending TCP\'s time (establishment to completion) during which it '
            "was stopped by the congestion window (or recovery's pipe), the receive window, the application "
            "(nothing more to send) or pacing; mean over the runs of a cell.</p>")
    rwnd = g[g["limited by"] == "rwnd"]
    if len(rwnd):
        note += (f'<p class="note"><b>{len(rwnd)} cell(s) spent most of their time receive-window limited</b>: '
                 "check tcp.rwnd if that is not what the experiment means to model.</p>")
    return "<h2>What limited each flow</h2>" + note + _table(g, cols)


def write_report(
    flows: pd.DataFrame,
    runs: pd.DataFrame | None,
    out_dir: str | Path,
    *,
    factors: Sequence[str] | None = None,
    metrics: Sequence[str] = DEFAULT_METRICS,
    x: str | None = None,
    group: str | None = None,
    baseline: Any = None,
    level: float = 0.95,
    trace_runs: Sequence[str] | None = None,
    max_traces: int = 4,
    sample_interval: float | None = None,
    title: str = "satcp report",
    measured: tuple[pd.DataFrame, str] | None = None,
) -> Path:
    """Write ``out_dir/index.html`` and return its path.

    ``factors``: the factor columns (default: every dotted column).
    ``metrics``: flow metrics to analyse (those absent are skipped).
    ``x``: numeric factor for the x axis (default: a ``...ber``/``...per``
    factor, else the numeric factor with most levels; None = bars).
    ``group``: factor drawn as separate lines and compared against
    ``baseline`` (default: a ``...variant`` factor, baseline its first
    level). ``level``: confidence level (0.95 ADaLR, 0.90 CETEN-R).
    ``trace_runs``: run keys to re-run with time series (default: one per
    level of ``group`` at the middle level of ``x``, at most
    ``max_traces``); ``sample_interval`` in seconds (default: the longest
    chosen run's simulated time / 400). ``measured``: (a measured series
    as ``satcp.traces.measured.read`` returns it, its label): the chosen
    runs' goodput and RTT per second drawn beside it
    (``satcp.report_measured``).
    """
    stats._check_level(level)
    flows = flows.reset_index(drop=True)
    factors = list(factors) if factors is not None else stats.factor_columns(flows)
    for frame, name in ((flows, "flows"), (runs, "runs")):
        if frame is not None and "key" not in frame.columns:
            raise KeyError(f"the {name} frame has no 'key' column (the run key)")
    missing = [f for f in factors if f not in flows.columns]
    if missing:
        raise KeyError(f"factor columns not in the flows frame: {missing}")
    for name, val in (("x", x), ("group", group)):
        if val is not None and val not in factors:
            raise KeyError(f"{name}={val!r} is not one of the factors {factors}")
    ok = flows[flows["status"] == "ok"] if "status" in flows.columns else flows
    x = x if x is not None else _choose_x(ok, factors)
    group = group if group is not None else _choose_group(ok, factors, x)
    metrics = [m for m in metrics if m in ok.columns]
    flow_col = _flow_col(ok)

    body = [f"<h1>{html.escape(title)}</h1>", _overview(flows, ok, runs, factors, level)]
    if ok.empty:
        body.append('<p class="note">No successful run.</p>')
    else:
        for m in metrics:
            body.append(_metric_section(ok, m, factors, x, group, flow_col, level))
        body.append(_improvement_section(ok, metrics, factors, group, baseline, flow_col, level))
        body.append(_anova_section(ok, metrics, factors, flow_col))
        body.append(_fairness_section(ok, factors, flow_col, level))
        body.append(_limits_section(ok, factors, flow_col))
        body.append(_traces_section(ok, runs, factors, x, group, trace_runs, max_traces, sample_interval,
                                    measured))
    body.append(_failed_section(flows, runs))
    page = ("<!DOCTYPE html>\n<html lang=\"en\"><head><meta charset=\"utf-8\">"
            f"<title>{html.escape(title)}</title><style>{_CSS}</style></head><body>\n"
            + "\n".join(b for b in body if b) + "\n</body></html>\n")
    out = Path(out_dir)
    out.mkdir(parents=True, exist_ok=True)
    path = out / "index.html"
    path.write_text(page, encoding="utf-8")
    return path


def write_run_report(run_dir: str | Path, out_dir: str | Path, measured: tuple[pd.DataFrame, str] | None,
                     title: str) -> Path:
    """``satcp report RUN_DIR``: one run written by ``satcp run --out``, its
    flows table and, with a measured series, goodput and RTT per bin beside
    it; ``out_dir/index.html``."""
    from .report_measured import bin_width, read_run_series, section, simulated_per_bin

    run_dir = Path(run_dir)
    series = read_run_series(run_dir)
    body = [f"<h1>{html.escape(title)}</h1>",
            f'<p class="note">Run written by satcp run --out {html.escape(str(run_dir))}.</p>']
    for name in ("flows.parquet", "flows.csv"):
        p = run_dir / name
        if p.is_file():
            flows = pd.read_parquet(p) if name.endswith(".parquet") else pd.read_csv(p)
            cols = [c for c in ("name", "completion_s", "goodput_bps", "throughput_bps", "retransmissions",
                                "timeouts") if c in flows.columns]
            body.append("<h2>Flows</h2>" + _table(flows[cols]))
            break
    bw = bin_width(measured[0]) if measured is not None else 1.0
    sim = simulated_per_bin(series, bw)
    if measured is not None:
        body.append(section([sim], ["simulated run"], measured[0], measured[1], _figure, _table))
    else:
        body.append("<h2>Goodput and RTT per second</h2>" + _table(sim))
    page = ("<!DOCTYPE html>\n<html lang=\"en\"><head><meta charset=\"utf-8\">"
            f"<title>{html.escape(title)}</title><style>{_CSS}</style></head><body>\n"
            + "\n".join(body) + "\n</body></html>\n")
    out = Path(out_dir)
    out.mkdir(parents=True, exist_ok=True)
    path = out / "index.html"
    path.write_text(page, encoding="utf-8")
    return path
