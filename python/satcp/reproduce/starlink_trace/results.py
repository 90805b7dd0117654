"""The starlink-trace study's results.

Per run, from the store (``collect``): the flow's retransmissions,
timeouts, spurious timeouts and ECN reductions; the downlink's (PoP to
dish) drops by cause, marks and, for drop-front and FQ-CoDel, the queue's
sojourn percentiles (drop-tail keeps none).

Per run, from a sampled re-run (``measure``; every 50 ms, the run stopped
5 s after its transfer: satcp is deterministic, so it is the stored run):

* goodput: bytes delivered in order between the transfer's start and its
  stop (cumulative ``delivered_bytes`` interpolated at both instants) x 8
  / the transfer's length; per-second goodput the same per second of it;
* the trace's capacity over the same window (its opportunities x 1,504
  bytes), for the ratio goodput / capacity;
* RTT inflation: the sender's smoothed RTT minus the path's base RTT at the
  sample (twice the terrestrial 5 ms plus twice the trace's one-way delay
  then; samples in an outage, or before the first RTT sample, left out),
  its median and 95th percentile over the transfer's samples. The srtt is
  smoothed and lags a delay step, so right after a reconfiguration the
  difference can be negative (delay rose) or inflated (delay fell); the
  percentiles over a transfer are what the study compares;
* timeouts and spurious timeouts at the reconfigurations: from the
  cumulative ``timeouts`` / ``spurious_rtos`` series, each increase is a
  timeout in the sample interval ending at that sample; it is "after a
  reconfiguration" when that interval ends within (r, r + 1 s + 50 ms] of
  a reconfiguration instant r (12, 27, 42, 57 s past each minute of trace
  time), "elsewhere" otherwise. Rates are per second of exposure: the
  transfer's reconfigurations x 1 s, and the rest of the transfer (a
  timeout in the 5-s drain after the stop counts, its exposure not: few).

Cells are (queue, controller); replications are trace seeds x offsets.
Means with 95% Student-t intervals over the replications.
"""

from __future__ import annotations

import json
import math
from dataclasses import dataclass, field
from functools import lru_cache
from pathlib import Path

import numpy as np
import pandas as pd
import scipy.stats as sps

from ... import engine
from ...store import Store
from ...traces.writers import MAHIMAHI_OPPORTUNITY_BYTES
from ...traces.synthetic import RECONFIGURATION_PHASES_S
from ..kit import data
from ..kit.catalogue import Experiment, PlannedRun
from ..kit.claims import Claim, judged
from ..kit.study import Context
from . import traces as tr
from .experiments import FLOW, NAMES, QUEUES, VARIANTS, transfer_s

LEVEL = 0.95
SAMPLE_S = 0.05
DRAIN_S = 5.0
NEAR_S = 1.0
TERRESTRIAL_ONE_WAY_S = 0.005
DOWNLINK = "pop->dish"

COLUMNS = ["experiment", "variant", "trace", "offset_s", "key", "status", "retransmissions", "timeouts",
           "spurious_rtos", "ecn_reductions", "drops_queue", "drops_head", "drops_codel", "drops_errors",
           "drops_down", "marks", "sojourn_p50_s", "sojourn_p95_s"]


def _col(row: pd.Series, name: str, default: float = math.nan) -> float:
    v = row.get(name, default)
    return default if v is None or pd.isna(v) else float(v)


def collect(store: Store, runs: list[PlannedRun], experiments: list[Experiment]) -> pd.DataFrame:
    """One row per planned run (``COLUMNS``): the flow's counters and the
    downlink's."""
    if not runs:
        return pd.DataFrame(columns=COLUMNS)
    got = data.stored(store, runs, ("flows", "links"), link=DOWNLINK)
    links = got.by_key("links")
    rows = []
    for p, status, flows in got.each(runs):
        row = dict(experiment=p.experiment, variant=p.arm, trace=p.levels["trace"], offset_s=p.levels["offset_s"],
                   key=p.run.key, status=status)
        if flows is not None:
            f = flows[flows["flow"] == FLOW].iloc[0]
            lk = links[p.run.key].iloc[0]
            row.update(retransmissions=int(f["retransmissions"]), timeouts=int(f["timeouts"]),
                       spurious_rtos=int(f["spurious_rtos"]), ecn_reductions=_col(f, "ecn_reductions", 0.0),
                       drops_queue=_col(lk, "drops_queue", 0.0), drops_head=_col(lk, "drops_head", 0.0),
                       drops_codel=_col(lk, "drops_codel", 0.0), drops_errors=_col(lk, "drops_errors", 0.0),
                       drops_down=_col(lk, "drops_down", 0.0), marks=_col(lk, "marks", 0.0),
                       sojourn_p50_s=_col(lk, "queue_sojourn_p50_s"), sojourn_p95_s=_col(lk, "queue_sojourn_p95_s"))
        rows.append(row)
    return pd.DataFrame(rows, columns=COLUMNS)


# --------------------------------------------------------------------------
# the traces, read back for each run's window


@lru_cache(maxsize=16)
def _capacity(path: str) -> tuple[np.ndarray, int]:
    stamps = np.loadtxt(path, dtype=np.int64, ndmin=1, comments="#")
    return np.sort(stamps), int(stamps.max())


def capacity_bps(path: str | Path, start_s: float, end_s: float) -> float:
    """The Mahimahi trace's mean rate over [start, end) of run time (the
    trace repeating with its last timestamp as period; an opportunity at
    millisecond m counts when start <= m < end)."""
    stamps, period = _capacity(str(path))
    a, b = int(math.ceil(start_s * 1e3 - 1e-9)), int(math.ceil(end_s * 1e3 - 1e-9))

    def upto(ms: int) -> int:
        """Opportunities at instants < ms: those <= ms - 1, whole periods
        (instants k P + s, every stamp s in [0, P]) and the last one's part."""
        if ms <= 0:
            return 0
        q, r = divmod(ms - 1, period)
        return q * len(stamps) + int(np.searchsorted(stamps, r, side="right"))

    return (upto(b) - upto(a)) * MAHIMAHI_OPPORTUNITY_BYTES * 8 / (end_s - start_s)


def _interval_s(text: str) -> float:
    t = text.strip()
    return float(t[:-2]) / 1e3 if t.endswith("ms") else float(t[:-1]) if t.endswith("s") else float(t)


@lru_cache(maxsize=16)
def _delays(path: str) -> np.ndarray:
    vals = []
    for line in Path(path).read_text(encoding="ascii").splitlines():
        s = line.strip()
        if not s or s.startswith("#"):
            continue
        vals.append(math.nan if s == "down" else float(s))
    return np.array(vals)


def one_way_s(trace: tr.TraceSet, t_s: np.ndarray) -> np.ndarray:
    """The trace's one-way delay at each time (NaN while down), repeating."""
    d = _delays(str(trace.delay))
    step = _interval_s(trace.delay_interval)
    i = np.floor(np.asarray(t_s) / step + 1e-9).astype(np.int64) % len(d)
    return d[i] / 1e3


def reconfigurations(start_s: float, end_s: float) -> list[float]:
    """Reconfiguration instants in [start, end): 12, 27, 42, 57 s past each
    minute of trace time."""
    out = []
    m = int(start_s // 60)
    while m * 60 < end_s:
        out.extend(float(m * 60 + p) for p in RECONFIGURATION_PHASES_S if start_s <= m * 60 + p < end_s)
        m += 1
    return out


# --------------------------------------------------------------------------
# one run measured from its series


@dataclass
class RunSeries:
    goodput_bps: float
    capacity_bps: float
    per_second_bps: list[float]
    inflation_p50_s: float
    inflation_p95_s: float
    timeouts_near: int
    timeouts_else: int
    spurious_near: int
    spurious_else: int
    reconfigurations: int


def timeout_split(t: np.ndarray, counter: np.ndarray, instants: list[float], step_s: float = SAMPLE_S,
                  near_s: float = NEAR_S) -> tuple[int, int]:
    """Increases of a cumulative counter sampled at ``t``: (those whose
    sample interval ends within (r, r + near + step] of an instant r, the
    rest)."""
    c = np.nan_to_num(np.asarray(counter, dtype=float))
    inc = np.diff(c, prepend=0.0)
    near = total = 0
    for ti, k in zip(t, inc):
        if k <= 0:
            continue
        total += int(k)
        if any(r < ti <= r + near_s + step_s + 1e-9 for r in instants):
            near += int(k)
    return near, total - near


def measure(series: pd.DataFrame, trace: tr.TraceSet, start_s: float, duration_s: float) -> RunSeries:
    """A run's figures from its flow's sampled series."""
    s = series.sort_values("time_s")
    t = s["time_s"].to_numpy()
    stop = start_s + duration_s
    delivered = s["delivered_bytes"].fillna(0).to_numpy()
    at = np.interp([start_s + k for k in range(int(duration_s) + 1)], t, delivered, left=0.0)
    per_second = (np.diff(at) * 8).tolist()
    goodput = (at[-1] - at[0]) * 8 / duration_s
    window = (t >= start_s) & (t <= stop)
    srtt = s["srtt_s"].to_numpy()[window]
    base = 2 * TERRESTRIAL_ONE_WAY_S + 2 * one_way_s(trace, t[window])
    infl = srtt - base
    infl = infl[np.isfinite(infl)]
    inst = reconfigurations(start_s, stop)
    to_near, to_else = timeout_split(t, s["timeouts"].to_numpy(), inst)
    sp_near, sp_else = timeout_split(t, s["spurious_rtos"].to_numpy(), inst)
    return RunSeries(goodput, capacity_bps(trace.capacity, start_s, stop), per_second,
                     float(np.percentile(infl, 50)) if infl.size else math.nan,
                     float(np.percentile(infl, 95)) if infl.size else math.nan,
                     to_near, to_else, sp_near, sp_else, len(inst))


def rerun_series(scenario_json: str, stop_s: float) -> pd.DataFrame:
    """The flow's series of a stored run run again, sampled, stopped at
    ``stop_s`` (the same run up to there: satcp is deterministic)."""
    d = json.loads(scenario_json)
    d.pop("captures", None)
    d.setdefault("run", {})["stop"] = f"{stop_s:g}s"
    d["run"]["sample_interval"] = f"{SAMPLE_S * 1e3:g}ms"
    s = engine.run(d).series
    return s[s["flow_name"] == FLOW]


def _measure_one(job: tuple) -> tuple[RunSeries, pd.DataFrame | None]:
    """A run re-run and measured; its series kept when asked (examples)."""
    scenario_json, trace, start_s, duration_s, keep = job
    series = rerun_series(scenario_json, start_s + duration_s + DRAIN_S)
    return measure(series, trace, start_s, duration_s), (series if keep else None)


def _measure_all(jobs: list[tuple], workers: int | None) -> list[tuple[RunSeries, pd.DataFrame | None]]:
    """Every job, in order, on ``workers`` processes (the study's
    ``--workers``; all cores when None): each is a deterministic re-run,
    so the pool changes only the wall time."""
    import os
    from concurrent.futures import ProcessPoolExecutor

    n = min(workers or os.cpu_count() or 1, len(jobs))
    if n <= 1:
        return [_measure_one(j) for j in jobs]
    with ProcessPoolExecutor(n) as pool:
        return list(pool.map(_measure_one, jobs, chunksize=max(1, len(jobs) // (8 * n))))


# --------------------------------------------------------------------------
# cells


def _ci(x) -> tuple[float, float]:
    """Mean and the half-width of its Student-t interval (NaN for n < 2)."""
    x = np.asarray(x, dtype=float)
    x = x[np.isfinite(x)]
    if x.size == 0:
        return math.nan, math.nan
    if x.size < 2:
        return float(x.mean()), math.nan
    return float(x.mean()), float(sps.t.ppf(0.5 + LEVEL / 2, x.size - 1) * x.std(ddof=1) / math.sqrt(x.size))


METRICS = ("goodput_bps", "capacity_bps", "utilisation", "inflation_p50_s", "inflation_p95_s", "retransmissions",
           "timeouts", "spurious_rtos", "sojourn_p95_s", "drops_queue", "drops_head", "drops_codel", "marks")


def table(obs: pd.DataFrame) -> pd.DataFrame:
    """Per queue and controller: replications, each metric's mean and
    half-width, the per-second goodput's 10th / 50th / 90th percentiles
    (pooled over the replications' seconds) and the timeout rates near and
    away from the reconfigurations (pooled)."""
    ok = obs[(obs["status"] == "ok") & obs["goodput_bps"].notna()] if "goodput_bps" in obs else obs.iloc[0:0]
    rows = []
    for (q, v), g in ok.groupby(["experiment", "variant"], sort=False):
        row = dict(queue=q, variant=v, runs=len(g))
        for m in METRICS:
            row[m], row[m + "_ci"] = _ci(g[m].to_numpy(dtype=float))
        secs = np.concatenate([np.asarray(x, dtype=float) for x in g["per_second_bps"]]) if len(g) else np.array([])
        row["per_second_p10_bps"], row["per_second_p50_bps"], row["per_second_p90_bps"] = (
            np.percentile(secs, [10, 50, 90]) if secs.size else (math.nan,) * 3)
        near_s = float(g["reconfigurations"].sum()) * NEAR_S
        else_s = float(g["duration_s"].sum()) - near_s
        for what in ("timeouts", "spurious"):
            row[f"{what}_near"] = int(g[f"{what}_near"].sum())
            row[f"{what}_else"] = int(g[f"{what}_else"].sum())
            row[f"{what}_near_per_min"] = 60 * row[f"{what}_near"] / near_s if near_s else math.nan
            row[f"{what}_else_per_min"] = 60 * row[f"{what}_else"] / else_s if else_s else math.nan
        rows.append(row)
    out = pd.DataFrame(rows)
    if not out.empty:
        qo = {q: i for i, q in enumerate(QUEUES)}
        vo = {v: i for i, v in enumerate(VARIANTS)}
        out = out.sort_values(["queue", "variant"], key=lambda c: c.map(qo if c.name == "queue" else vo))
    return out.reset_index(drop=True)


def findings(rows: pd.DataFrame, obs: pd.DataFrame) -> list[Claim]:
    """What the runs show, each with its numbers (an experiment of our own:
    no published numbers to compare with; these are computed statements)."""
    out: list[Claim] = []
    if rows.empty:
        return out
    by = rows.set_index(["queue", "variant"])
    ok = obs[(obs["status"] == "ok") & obs["goodput_bps"].notna()]
    over = ok[ok["goodput_bps"] > ok["capacity_bps"] * 1.001]
    out.append(judged("goodput_within_capacity", "No transfer delivers more than the trace's capacity over its window",
                      over.empty, f"{len(ok) - len(over)} of {len(ok)} runs within; highest goodput / capacity "
                                  f"{(ok['goodput_bps'] / ok['capacity_bps']).max():.3f}"))
    pairs = [v for v in VARIANTS if ("droptail", v) in by.index and ("fq_codel_ecn", v) in by.index]
    if pairs:
        ev = [(v, by.loc[("droptail", v), "inflation_p95_s"], by.loc[("fq_codel_ecn", v), "inflation_p95_s"])
              for v in pairs]
        out.append(judged("fq_codel_ecn_cuts_queueing_delay",
                          "FQ-CoDel with ECN keeps the 95th percentile of RTT inflation below drop-tail's, for "
                          "every controller",
                          all(b < a for _, a, b in ev),
                          "p95 srtt - base RTT, drop-tail vs FQ-CoDel+ECN: "
                          + "; ".join(f"{NAMES[v]} {a * 1e3:.0f} vs {b * 1e3:.0f} ms" for v, a, b in ev)))
    if ("droptail", "cubic") in by.index:
        bbrs = [v for v in ("bbr", "bbr3") if ("droptail", v) in by.index]
        if bbrs:
            c = by.loc[("droptail", "cubic"), "goodput_bps"]
            ev = [(v, by.loc[("droptail", v), "goodput_bps"]) for v in bbrs]
            out.append(judged("bbr_outruns_cubic_under_random_loss",
                              "Over drop-tail, BBR v1 and BBRv3 (model-based, not loss-based) deliver more than "
                              "CUBIC, whose window the traces' random loss keeps small",
                              all(g > c for _, g in ev),
                              f"mean goodput CUBIC {c / 1e6:.2f} Mb/s; "
                              + "; ".join(f"{NAMES[v]} {g / 1e6:.2f} Mb/s" for v, g in ev)))
    near = int(rows["timeouts_near"].sum())
    away = int(rows["timeouts_else"].sum())
    exp_near = float((ok["reconfigurations"] * NEAR_S).sum())
    exp_else = float(ok["duration_s"].sum()) - exp_near
    if exp_near > 0 and exp_else > 0:
        rn, ra = 60 * near / exp_near, 60 * away / exp_else
        out.append(judged("timeouts_cluster_after_reconfigurations",
                          "Retransmission timeouts come more often in the second after a reconfiguration than "
                          "elsewhere",
                          rn > ra if near + away else None,
                          f"{near} timeouts in {exp_near:.0f} s after reconfigurations ({rn:.2f} per min), {away} "
                          f"in {exp_else:.0f} s elsewhere ({ra:.2f} per min), all runs"))
        sn, sa = int(rows["spurious_near"].sum()), int(rows["spurious_else"].sum())
        out.append(judged("spurious_timeouts_cluster_after_reconfigurations",
                          "Spurious timeouts (found by F-RTO) come more often in the second after a "
                          "reconfiguration than elsewhere",
                          (60 * sn / exp_near > 60 * sa / exp_else) if sn + sa else None,
                          f"{sn} spurious in the {exp_near:.0f} s after reconfigurations, {sa} in the "
                          f"{exp_else:.0f} s elsewhere" + ("" if sn + sa else ": none at all, nothing to judge")))
    df = [v for v in VARIANTS if ("droptail", v) in by.index and ("dropfront", v) in by.index]
    if df:
        ev = [(v, by.loc[("droptail", v), "inflation_p95_s"], by.loc[("dropfront", v), "inflation_p95_s"])
              for v in df]
        out.append(judged("dropfront_no_worse_delay",
                          "Drop-front's 95th percentile RTT inflation is no higher than drop-tail's (same "
                          "buffer; a head drop signals loss a queue's wait sooner)",
                          all(b <= a * 1.05 for _, a, b in ev),
                          "p95 inflation drop-tail vs drop-front (within 5% counts): "
                          + "; ".join(f"{NAMES[v]} {a * 1e3:.0f} vs {b * 1e3:.0f} ms" for v, a, b in ev)))
    return out


@dataclass
class Analysis:
    observations: pd.DataFrame
    runs: pd.DataFrame
    rows: pd.DataFrame
    trace_sets: list[tr.TraceSet]
    duration_s: int
    # a few runs' per-second series for the time-series figure: label -> frame
    examples: dict[str, pd.DataFrame] = field(default_factory=dict)
    measured: pd.DataFrame | None = None


def analyse(ctx: Context) -> Analysis:
    """Every ok run re-run with sampling and measured; the table; the
    examples (each controller's run at the first trace's first offset, the
    drop-tail queue) for the time-series figure and the measured
    comparison."""
    sets = {s.label: s for s in tr.trace_sets(ctx.quick, ctx.options.get("traces"))}
    duration = transfer_s(ctx.quick)
    obs = ctx.observations.copy()
    scen = ctx.runs.set_index("key")["scenario_json"].to_dict()
    first = next(iter(sets))
    jobs = []
    for i, r in obs.iterrows():
        if r["status"] == "ok":
            example = r["experiment"] == "droptail" and r["trace"] == first and r["offset_s"] == obs["offset_s"].min()
            jobs.append((i, (scen[r["key"]], sets[r["trace"]], float(r["offset_s"]), duration, bool(example))))
    done = _measure_all([j for _, j in jobs], ctx.workers)
    extra: dict = {i: {} for i in obs.index}
    examples = {}
    for (i, job), (m, series) in zip(jobs, done):
        extra[i] = dict(m.__dict__, duration_s=duration)
        if series is not None:
            examples[obs.loc[i, "variant"]] = series
    ext = pd.DataFrame.from_dict(extra, orient="index").reindex(obs.index)
    obs = pd.concat([obs, ext], axis=1)
    if "goodput_bps" in obs:
        obs["utilisation"] = obs["goodput_bps"] / obs["capacity_bps"]
    measured = None
    m = sets[first].measured
    if m is not None:
        from ...traces import measured as measured_series

        measured = measured_series.read(m)
    return Analysis(obs, ctx.runs, table(obs), list(sets.values()), duration, examples, measured)


def claims(a: Analysis) -> list[Claim]:
    return findings(a.rows, a.observations)
