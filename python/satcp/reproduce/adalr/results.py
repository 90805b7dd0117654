"""The ADaLR study's measurements, read from the results store: one row per
run x flow (and one per run for the fairness indices), in the thesis'
terms (spec 000 section 4); and what the report is made of: the thesis'
table rows with ours beside them and its claims judged.

Columns: ``experiment``, ``arm``, ``variant`` (the flow's TCP variant; the
arm's label on the per-run fairness rows), ``delayed_ack``, ``x`` (RTT,
file size, BER or the connection's RTT; NaN where nothing varies),
``flow`` (``all`` on fairness rows), ``replication``, ``seed``, ``key``,
``status``, and the metrics:

* ``response_s``: FTP download response time (the flow's ``completion_s``,
  connection set-up to the FIN exchange) or HTTP page response time
  (``mean_page_response_s``, the mean over the pages of the run);
* ``goodput_bps``, ``throughput_bps`` (the engine's flow summary; goodput
  counts original bytes delivered, throughput every byte received);
  ``throughput_Bps`` = throughput / 8 (the fairness tables' bytes/s);
* ``link_throughput_bps``: bits correctly received on the satellite
  downlink (``bytes_ok`` x 8, headers included) over the transfer's
  duration: the flow's start to its completion for FTP, the simulated time
  for HTTP (the run's pages and the idle time between them);
* ``utilization``: link throughput / downlink rate (a fraction);
* ``jain``, ``max_min`` (flow ``all``): Eq. 7.4 and 7.5 over the flows'
  ``throughput_bps`` in one run (satcp.stats).
"""

from __future__ import annotations

import json
import math
from dataclasses import dataclass

import numpy as np
import pandas as pd

from ... import stats
from ...store import Store
from ..kit import data
from ..kit.catalogue import Experiment, PlannedRun
from ..kit.claims import Claim
from ..kit.study import Context
from . import compare, published
from .claims import Evaluation, evaluate_all, load_claims
from .experiments import flow_rtt_ms

METRICS = ("response_s", "goodput_bps", "throughput_bps", "throughput_Bps", "link_throughput_bps",
           "utilization", "jain", "max_min")
LOWER_IS_BETTER = frozenset({"response_s"})

LABELS = {
    "response_s": "response time (s)",
    "goodput_bps": "TCP goodput (b/s)",
    "throughput_bps": "TCP throughput (b/s)",
    "throughput_Bps": "average throughput (bytes/s)",
    "link_throughput_bps": "satellite link throughput (b/s)",
    "utilization": "satellite link utilisation (fraction of its rate)",
    "jain": "Jain's fairness index",
    "max_min": "max-min fairness",
}


def _link_index(scenario: dict, name: str) -> int | None:
    for i, link in enumerate(scenario.get("links", [])):
        if isinstance(link, dict) and link.get("name") == name:
            return i
    return None


def collect(store: Store, runs: list[PlannedRun], experiments: list[Experiment]) -> pd.DataFrame:
    """The observation frame of ``runs`` (those the store holds)."""
    by_id = {e.id: e for e in experiments}
    if not runs:
        return _empty()
    got = data.stored(store, runs, ("flows", "links"), run_columns=("status", "sim_time_s", "scenario_json"))
    run_t = got.runs
    flows_by_key, links_by_key = got.by_key("flows"), got.by_key("links")
    rows = []
    for p in runs:
        key = p.run.key
        if key not in run_t.index:
            continue
        exp = by_id[p.experiment]
        arm = next(a for a in exp.arms if a.label == p.arm)
        info = run_t.loc[key]
        ident = dict(experiment=p.experiment, arm=p.arm, delayed_ack=p.levels.get("delayed_ack", True),
                     replication=p.run.replication, seed=p.run.seed, key=key, status=info["status"])
        if info["status"] != "ok":
            rows.append(dict(ident, variant=p.arm, x=p.levels.get("x", math.nan), flow=None))
            continue
        scenario = json.loads(info["scenario_json"])
        link = _link(links_by_key.get(key), scenario, exp.link)
        per_run = []
        for _, f in flows_by_key.get(key, pd.DataFrame()).iterrows():
            name = f["flow"]
            x = p.levels.get("x", math.nan)
            if exp.app == "fairness":
                x = flow_rtt_ms(name) or math.nan
            row = dict(ident, variant=arm.flow_variants.get(name, p.arm), x=x, flow=name)
            row.update(_flow_metrics(f, exp.app, link, float(info["sim_time_s"])))
            rows.append(row)
            per_run.append(row["throughput_bps"])
        if exp.app == "fairness" and per_run:
            rows.append(dict(ident, variant=p.arm, x=math.nan, flow="all", jain=stats.jain_index(per_run),
                             max_min=stats.max_min_fairness(per_run)))
    out = pd.DataFrame(rows)
    for m in METRICS:
        if m not in out.columns:
            out[m] = math.nan
        out[m] = pd.to_numeric(out[m], errors="coerce").astype(float)
    out["x"] = pd.to_numeric(out["x"], errors="coerce").astype(float)
    return out


def _empty() -> pd.DataFrame:
    cols = ["experiment", "arm", "variant", "delayed_ack", "x", "flow", "replication", "seed", "key", "status"]
    return pd.DataFrame(columns=cols + list(METRICS))


def _link(links: pd.DataFrame | None, scenario: dict, name: str) -> dict | None:
    """The a->b direction row of the named link, as a dict."""
    idx = _link_index(scenario, name)
    if links is None or idx is None:
        return None
    sel = links[(links["index"] == idx) & (links["direction"] == "ab")]
    return None if sel.empty else sel.iloc[0].to_dict()


def _num(v) -> float:
    try:
        x = float(v)
    except (TypeError, ValueError):
        return math.nan
    return x if np.isfinite(x) else math.nan


def _flow_metrics(f: pd.Series, app: str, link: dict | None, sim_time_s: float) -> dict:
    if app == "http":
        response = _num(f.get("mean_page_response_s"))
        duration = sim_time_s
    else:
        response = _num(f.get("completion_s"))
        start = _num(f.get("start_s"))
        duration = response - (0.0 if math.isnan(start) else start) if bool(f.get("completed")) else math.nan
    throughput = _num(f.get("throughput_bps"))
    m = dict(response_s=response, goodput_bps=_num(f.get("goodput_bps")), throughput_bps=throughput,
             throughput_Bps=throughput / 8.0)
    if link is not None and duration and duration > 0:
        bits = _num(link.get("bytes_ok")) * 8.0
        m["link_throughput_bps"] = bits / duration
        m["utilization"] = m["link_throughput_bps"] / _num(link.get("rate_bps"))
    return m


@dataclass
class Analysis:
    """The ADaLR report's material: the observations, the thesis' rows
    with ours beside them, its claims judged."""

    experiments: list[Experiment]
    observations: pd.DataFrame
    runs: pd.DataFrame
    unavailable: dict
    published: pd.DataFrame
    tables: pd.DataFrame
    evaluations: list[Evaluation]
    claim_rows: pd.DataFrame
    level: float


def analyse(ctx: Context) -> Analysis:
    """The thesis' numbers and claims of the chosen experiments against
    our observations (a claim across two experiments needs both)."""
    chosen = {e.id for e in ctx.experiments}
    pub = published.load_published()
    pub = pub[pub["experiment"].isin(chosen)]
    settings, stated = load_claims(published.CLAIMS_TOML)
    stated = [c for c in stated if c.experiment in chosen
              and (c.reference_experiment is None or c.reference_experiment in chosen)]
    evaluations = evaluate_all(stated, ctx.observations, settings)
    return Analysis(ctx.experiments, ctx.observations, ctx.runs, ctx.outcome.plan.unavailable, pub,
                    compare.table_rows(ctx.observations, pub, settings.level), evaluations,
                    compare.claim_rows(evaluations), settings.level)


def claims(analysis: Analysis) -> list[Claim]:
    return [e.claim() for e in analysis.evaluations]
