"""The ``satcp`` command line: ``satcp run``, ``validate``, ``demo``, ``sweep``, ``results``, ``report``,
``reproduce``, ``trace import``."""

from __future__ import annotations

import argparse
import json
import math
import os
import re
import sys
import tomllib
from pathlib import Path
from typing import Any, Sequence

from . import _core
from . import sweep as sw
from .engine import ScenarioError, run, validate
from .messages import error
from .plotting import legend_or_note, pyplot, save_png
from .progress import RunProgress, make_progress
from .tables import cell, format_table, num

# Imported by the subcommand that needs them, so that `satcp --help` does not
# wait for DuckDB, SciPy or matplotlib: store, execute, results, report, demo,
# reproduce.

EXIT_SCENARIO = 2  # scenario error or missing file: nothing ran

# At most this many samples per flow when `--out` turns sampling on.
MAX_SAMPLES = 20_000
MAX_DEFAULT_ROWS = 50_000_000
DEFAULT_SAMPLE_MS = 100

_DURATION = re.compile(r"^\s*([0-9]*\.?[0-9]+(?:[eE][-+]?[0-9]+)?)\s*(ns|us|ms|s)?\s*$")
_DURATION_SCALE = {"ns": 1e-9, "us": 1e-6, "ms": 1e-3, "s": 1.0, None: 1.0}


def _positive_seconds(text: str) -> float:
    """argparse type: a number of seconds > 0."""
    try:
        v = float(text)
    except ValueError:
        v = float("nan")
    if not v > 0 or v == float("inf"):
        raise argparse.ArgumentTypeError(f"{text!r}: expected a number of seconds > 0, e.g. 600")
    return v


def _duration_s(v: Any) -> float | None:
    """Best-effort reading of a duration as the scenario file writes it."""
    if isinstance(v, bool):
        return None
    if isinstance(v, (int, float)):
        return float(v)
    if isinstance(v, str):
        m = _DURATION.match(v.strip().strip("\"'"))
        if m:
            return float(m.group(1)) * _DURATION_SCALE[m.group(2)]
    return None


def _nice_ms(ms: float) -> int:
    """Round up to 1, 2 or 5 times a power of ten."""
    if ms <= 1:
        return 1
    exp = 10 ** math.floor(math.log10(ms))
    for m in (1, 2, 5, 10):
        if m * exp >= ms - 1e-9:
            return int(m * exp)
    return int(10 * exp)


def sample_interval_override(text: str, overrides: Sequence[str], fmt: str = "toml") -> str | None:
    """The `run.sample_interval=...` override `--out` adds, or None if the
    scenario (or an override) already sets one."""
    def key_of(o: str) -> str:
        return o.split("=", 1)[0].strip()

    if any(key_of(o) == "run.sample_interval" for o in overrides):
        return None
    run = _run_table(text, fmt)
    if run is None or "sample_interval" in run:
        return None
    if _path_only(text, fmt) and not any(key_of(o).startswith(("flows", "multihop")) for o in overrides):
        return None  # nothing but idle links to sample
    stop_s = scenario_stop_s(text, overrides, fmt)
    ms = DEFAULT_SAMPLE_MS
    if stop_s is not None and stop_s > 0:
        # at most MAX_SAMPLES samples, and at most MAX_DEFAULT_ROWS rows
        # (a row per flow and link direction a sample; the engine refuses
        # more than 1e8)
        per_sample = max(1, _count(text, fmt, "flows") + 2 * _count(text, fmt, "links"))
        ms = max(ms, _nice_ms(stop_s * 1000.0 / MAX_SAMPLES), _nice_ms(stop_s * 1000.0 * per_sample / MAX_DEFAULT_ROWS))
    return f"run.sample_interval={ms}ms"


def _count(text: str, fmt: str, key: str) -> int:
    """How many entries the scenario's top-level array `key` has (0 if
    unreadable)."""
    try:
        doc = json.loads(text) if fmt == "json" else tomllib.loads(text)
    except (tomllib.TOMLDecodeError, ValueError):
        return 0
    v = doc.get(key) if isinstance(doc, dict) else None
    return len(v) if isinstance(v, list) else 0


def _path_only(text: str, fmt: str) -> bool:
    """Whether the scenario traces [[paths]] and has no flows (nor a
    [multihop] table that makes some)."""
    try:
        doc = json.loads(text) if fmt == "json" else tomllib.loads(text)
    except (tomllib.TOMLDecodeError, ValueError):
        return False
    return isinstance(doc, dict) and bool(doc.get("paths")) and not doc.get("flows") and "multihop" not in doc


def _run_table(text: str, fmt: str) -> dict[str, Any] | None:
    """The scenario's [run] table ({} if absent), or None if unreadable."""
    try:
        doc = json.loads(text) if fmt == "json" else tomllib.loads(text)
    except (tomllib.TOMLDecodeError, ValueError):
        return None  # the engine will report the syntax error
    if not isinstance(doc, dict):
        return None
    return doc.get("run") if isinstance(doc.get("run"), dict) else {}


def scenario_stop_s(text: str, overrides: Sequence[str], fmt: str = "toml") -> float | None:
    """run.stop in seconds as the scenario and its overrides set it, if readable."""
    run = _run_table(text, fmt) or {}
    stop = run.get("stop")
    for o in overrides:
        if o.split("=", 1)[0].strip() == "run.stop" and "=" in o:
            stop = o.split("=", 1)[1].strip()
    return _duration_s(stop) if stop is not None else None


# --------------------------------------------------------------------------
# plain-text summary

LIMITS = ("cwnd", "rwnd", "app", "pacing")


def limited_by(flow: dict[str, Any]) -> str:
    """The limit a TCP sender spent most of its time under, with its share
    ("cwnd 97%"); "-" for UDP flows and senders never established."""
    lim = flow.get("limited") or {}
    if not any(lim.get(k, 0) for k in LIMITS):
        return "-"
    k = max(LIMITS, key=lambda c: lim.get(c, 0))
    return f"{k} {100 * lim[k]:.0f}%"


def limit_hints(summary: dict[str, Any]) -> list[str]:
    """A hint for each flow that spent most of its time receive-window
    limited: the user may not have chosen that limit."""
    hints = []
    for f in summary["flows"]:
        share = (f.get("limited") or {}).get("rwnd", 0)
        if share > 0.5:
            hints.append(
                f"hint: flow {f['name']} was limited by the receive window {100 * share:.0f}% of the time; "
                f"raise tcp.rwnd (or set rwnd = \"auto\") if that is not what you meant to model")
    return hints


#: Link directions listed in full; beyond this, the busiest.
MAX_LINK_ROWS = 40


def summary_text(summary: dict[str, Any]) -> str:
    flows = [
        (
            f["name"], f["variant"], "yes" if f["completed"] else ("aborted" if f.get("aborted") else "no"),
            num(f["completion_s"], ".3f"), num(f["goodput_bps"], ".3f", 1e-6),
            num(f["throughput_bps"], ".3f", 1e-6), f["retransmissions"], f["timeouts"],
            limited_by(f),
        )
        for f in summary["flows"]
    ]
    # Queue and error drops always; any other cause (RED, an outage, a
    # priority queue's push-outs) only when some link had such drops.
    causes = ["queue", "errors"] + [
        c for c in ("red_early", "red_forced", "down", "pushed_out", "head", "codel")
        if any((l.get("drops") or {}).get(c, 0) for l in summary["links"])
    ]
    link_headers = ["from->to", "utilization %"] + [f"drops {c.replace('_', ' ')}" for c in causes]
    shown = summary["links"]
    hidden = 0
    if len(shown) > MAX_LINK_ROWS:
        # a constellation has thousands of link directions: the busiest
        busy = sorted((l for l in shown if l["packets_tx"] > 0), key=lambda l: -l["utilization"])
        hidden = len(shown) - min(len(busy), MAX_LINK_ROWS)
        shown = busy[:MAX_LINK_ROWS]
    links = [
        (f'{l["from"]}->{l["to"]}', num(l["utilization"], ".1f", 100.0))
        + tuple(l["drops"].get(c, 0) for c in causes)
        for l in shown
    ]
    parts = [
        f"satcp {summary['satcp_version']}  seed {summary['seed']}  "
        f"simulated {summary['sim_time_s']:.3f} s (ended by {summary['ended_by']})  "
        f"{summary['events']} events in {summary['wall_s']:.3f} s wall",
    ]
    # a path-only scenario (no flows) carries nothing: its paths say it all
    if flows:
        parts += [
            "",
            "flows",
            format_table(
                ["name", "variant", "completed", "completion s", "goodput Mb/s",
                 "throughput Mb/s", "retransmissions", "timeouts", "limited by"],
                flows, "lllrrrrrl",
            ),
        ]
        hints = [f"flow {f['name']} aborted: {f.get('abort_reason') or 'gave up'}"
                 for f in summary["flows"] if f.get("aborted")] + limit_hints(summary)
        if hints:
            parts += [""] + hints
        parts += [
            "",
            "links" + (f" (the {len(shown)} busiest; {hidden} more directions in links.csv with --out)" if hidden else ""),
            format_table(link_headers, links),
        ]
    paths = summary.get("paths") or []
    if paths:
        rows = [(f'{p["src"]}->{p["dst"]}', num(p["min_rtt_s"], ".2f", 1e3), num(p["max_rtt_s"], ".2f", 1e3),
                 len(p["changes_s"]), len(p["routes"]), p["steps_without_path"]) for p in paths]
        parts += ["", "paths (RTT = twice the propagation delay)",
                  format_table(["pair", "min RTT ms", "max RTT ms", "changes", "distinct paths", "steps without path"],
                               rows, "lrrrrr")]
    stations = summary.get("ground_stations") or []
    if stations:
        rows = [(g["name"], g["handovers"], g["links_up"], g["links_down"], g["steps_without_satellite"])
                for g in stations]
        parts += ["", "ground stations",
                  format_table(["station", "handovers", "links up", "links down", "steps without satellite"],
                               rows, "lrrrr")]
    peps = summary.get("peps") or []
    if peps:
        rows = []
        for p in peps:
            for c in p["connections"]:
                for leg in c["legs"]:
                    lim = leg["limited"]
                    top = max(lim, key=lambda k: lim[k])
                    toward = leg["toward"]
                    peak = c["peak_to_acceptor_bytes"] if toward == "acceptor" else c["peak_to_opener_bytes"]
                    rows.append((p["node"], c["flow"], c["state"], f'{toward} ({leg["to_node"]})', f'{leg["variant"]} ({leg["profile"]})',
                                 num(leg["completion_s"], ".3f"), leg["retransmissions"], leg["timeouts"],
                                 f"{top} {lim[top] * 100:.0f}%" if lim[top] > 0 else "-", peak))
        passed = {k: v for p in peps for k, v in p["counters"].items() if k.startswith("passed_") and v}
        parts += ["", "PEP split connections (each leg as the PEP's end counted it; held = peak bytes the PEP held "
                      "for that leg to send)",
                  format_table(["pep", "flow", "state", "leg towards", "variant (profile)", "completion s", "retransmissions",
                                "timeouts", "limited by", "held bytes"], rows, "lllllrrrlr")]
        first = [f'flow {f["name"]}: first byte at {f["first_byte_s"]:.3f} s' for f in summary["flows"]
                 if f.get("first_byte_s") is not None]
        parts += [""] + first + ([f"not split: {passed}"] if passed else [])
    # Nodes only when one dropped something (no route, TTL), and agents'
    # counters when the scenario has agents.
    nodes = [n for n in summary.get("nodes", []) if n.get("drops_no_route") or n.get("drops_ttl")]
    if nodes:
        parts += ["", "nodes", format_table(["node", "drops no route", "drops ttl"],
                                            [(n["name"], n["drops_no_route"], n["drops_ttl"]) for n in nodes])]
    agents = summary.get("agents", [])
    if agents:
        rows = [(a["node"], a["kind"], "all" if a.get("link") is None else a["link"], k, v)
                for a in agents for k, v in a["counters"].items()]
        parts += ["", "agents", format_table(["node", "kind", "link", "counter", "value"], rows, "lllr" + "r")]
    return "\n".join(parts)


# --------------------------------------------------------------------------
# files and plots

def write_tables(res, out: Path, fmt: str) -> list[Path]:
    tables = {
        "flows": res.flows,
        "links": res.links,
        "nodes": res.nodes,
        "series": res.series,
        "link_series": res.link_series,
        "pages": res.pages,
    }
    if res.paths:
        tables["path_series"] = res.path_series
    if res.peps:
        tables["pep_series"] = res.pep_series
    written = []
    for name, df in tables.items():
        p = out / f"{name}.{fmt}"
        if fmt == "parquet":
            df.to_parquet(p, index=False)
        else:
            df.to_csv(p, index=False)
        written.append(p)
    return written


def plot_run(res, out: Path) -> list[Path]:
    plt = pyplot()
    s = res.series
    names = [f["name"] for f in res.summary["flows"]]
    written = []
    if not names:  # a path-only scenario
        return plot_paths(res, out) if res.paths else written

    fig, ax = plt.subplots(figsize=(8, 4.5))
    for i, name in enumerate(names):
        d = s[s["flow"] == i]
        ax.plot(d["time_s"], d["cwnd_bytes"] / 1e3, label=name, drawstyle="steps-post")
    ax.set_xlabel("time (s)")
    ax.set_ylabel("congestion window (kB)")
    ax.set_title("cwnd over time")
    written.append(_save(fig, ax, s.empty, out / "cwnd.png"))

    fig, ax = plt.subplots(figsize=(8, 4.5))
    for i, name in enumerate(names):
        d = s[s["flow"] == i]
        ax.plot(d["time_s"], d["delivered_bytes"] / 1e6, label=f"{name} delivered")
        ax.plot(d["time_s"], d["rcv_high_bytes"] / 1e6, label=f"{name} received (highest)",
                linestyle="--", linewidth=0.8)
    ax.set_xlabel("time (s)")
    ax.set_ylabel("sequence number (MB of stream)")
    ax.set_title("delivered / received sequence number over time")
    written.append(_save(fig, ax, s.empty, out / "seq.png"))
    if res.paths:
        written += plot_paths(res, out)
    return written


def plot_paths(res, out: Path) -> list[Path]:
    """RTT over time per traced pair, and the satellites on each path over
    time (node index against time: a map-free view of handovers)."""
    plt = pyplot()
    ps = res.path_series
    written = []
    fig, ax = plt.subplots(figsize=(8, 4.5))
    for p in res.paths:
        d = ps[(ps["src"] == p["src"]) & (ps["dst"] == p["dst"])]
        ax.plot(d["t_s"], d["rtt_s"] * 1e3, label=f'{p["src"]}->{p["dst"]}', drawstyle="steps-post")
    ax.set_xlabel("time (s)")
    ax.set_ylabel("path RTT (ms, twice the propagation delay)")
    ax.set_title("path RTT over time")
    written.append(_save(fig, ax, ps.empty, out / "path_rtt.png"))

    index = {n["name"]: i for i, n in enumerate(res.summary["nodes"])}
    fig, ax = plt.subplots(figsize=(8, 4.5))
    for p in res.paths:
        d = ps[(ps["src"] == p["src"]) & (ps["dst"] == p["dst"])]
        xs, ys = [], []
        for t, path in zip(d["t_s"], d["path"]):
            for node in path.split()[1:-1]:
                xs.append(t)
                ys.append(index.get(node, -1))
        ax.scatter(xs, ys, s=2, label=f'{p["src"]}->{p["dst"]}')
    ax.set_xlabel("time (s)")
    ax.set_ylabel("node index of the satellites on the path")
    ax.set_title("satellites on each traced path over time")
    written.append(_save(fig, ax, ps.empty, out / "path_satellites.png"))
    return written


def _save(fig, ax, empty: bool, path: Path) -> Path:
    """Grid, legend (or a note that nothing was sampled), write the PNG."""
    ax.grid(True, alpha=0.3)
    legend_or_note(ax, empty, loc="best", fontsize="small")
    return save_png(fig, path)


# --------------------------------------------------------------------------
# subcommands

def _read_scenario(path: str) -> str | None:
    p = Path(path)
    if not p.is_file():
        error(f"scenario file not found: {path}")
        return None
    return p.read_text(encoding="utf-8")


def cmd_run(args: argparse.Namespace) -> int:
    text = _read_scenario(args.file)
    if text is None:
        return EXIT_SCENARIO
    overrides = list(args.set or [])
    fmt = "json" if args.file.lower().endswith(".json") else "toml"
    if args.out is not None:
        extra = sample_interval_override(text, overrides, fmt)
        if extra is not None:
            overrides.append(extra)
    progress = RunProgress(scenario_stop_s(text, overrides, fmt)) if args.progress else None
    try:
        res = run(args.file, set=overrides, progress=progress)
        if progress is not None:
            progress(res.sim_time_s)
    except ScenarioError as e:
        error(str(e))
        return EXIT_SCENARIO
    except KeyboardInterrupt:
        print("interrupted", file=sys.stderr)
        return 130
    finally:
        if progress is not None:
            progress.close()

    if args.json:
        sys.stdout.write(res.to_json() + "\n")
    else:
        print(summary_text(res.summary))
    if args.out is not None:
        out = Path(args.out)
        out.mkdir(parents=True, exist_ok=True)
        files = write_tables(res, out, args.format) + plot_run(res, out)
        msg = f"wrote {len(files)} files to {out}/: " + ", ".join(p.name for p in files)
        print(msg, file=sys.stderr if args.json else sys.stdout)
    return 0


def cmd_validate(args: argparse.Namespace) -> int:
    if _read_scenario(args.file) is None:
        return EXIT_SCENARIO
    try:
        validate(args.file, set=list(args.set or []))
    except ScenarioError as e:
        error(str(e))
        return EXIT_SCENARIO
    print(f"{args.file}: ok")
    return 0


def cmd_demo(args: argparse.Namespace) -> int:
    from . import demo

    return demo.main(out=Path(args.out), quick=args.quick, jobs=args.jobs)


def _print_runs(runs, stored: dict[str, str]) -> None:
    rows = [
        (i + 1, r.replication, r.seed, stored.get(r.key, "-"), r.key[:12], r.cell_json)
        for i, r in enumerate(runs)
    ]
    print(format_table(["run", "rep", "seed", "stored", "key", "cell"], rows, "rrrlll"))


def cmd_sweep(args: argparse.Namespace) -> int:
    from .execute import JOBQUEUE_CLUSTERS, DaskPool, LocalPool, jobqueue_cluster, run_sweep
    from .store import Store, StoreBusy, StoreUnwritable

    try:
        sweep = sw.load_sweep(args.file)
        sw.check(sweep)
    except sw.SweepError as e:
        error(str(e))
        return EXIT_SCENARIO
    store_path = Path(args.store) if args.store else Path(args.file).with_suffix(".duckdb")

    if args.dry_run:
        runs = sw.expand(sweep)
        stored: dict[str, str] = {}
        if store_path.is_file():
            try:
                with Store(store_path, read_only=True) as st:
                    stored = st.stored()
            except StoreBusy as e:
                error(str(e))
                return 1
        _print_runs(runs, stored)
        cells = len(sweep.cells)
        todo = sum(1 for r in runs if r.key not in stored)
        print(f"sweep {sweep.name}: {len(runs)} runs ({cells} cells x {sweep.replications} "
              f"replications), {len(runs) - todo} in {store_path}, {todo} to run")
        return 0

    if args.workers is not None and args.workers < 1:
        error(f"--workers {args.workers}: expected a number of processes >= 1")
        return EXIT_SCENARIO
    if args.batch is not None and args.batch < 1:
        error(f"--batch {args.batch}: expected a number of runs >= 1")
        return EXIT_SCENARIO
    scheduler = args.scheduler
    if scheduler and "://" not in scheduler and scheduler not in JOBQUEUE_CLUSTERS:
        error(f"--scheduler {scheduler}: expected a Dask scheduler's address (tcp://HOST:PORT) or a batch system "
              f"for dask-jobqueue, one of {', '.join(JOBQUEUE_CLUSTERS)}")
        return EXIT_SCENARIO
    if args.shard_dir and not scheduler:
        error("--shard-dir: only with --scheduler (local workers write next to the store)")
        return EXIT_SCENARIO
    resume = "; the runs stored before are kept: free space or make it writable, then run the same command to resume"
    try:
        store = Store(store_path)
    except StoreBusy as e:
        error(str(e))
        return 1
    except StoreUnwritable as e:
        error(f"{e}{resume}")
        return 1
    progress = None
    pool = None
    try:
        if not scheduler:
            pool = LocalPool(args.workers, batch=args.batch)
        elif scheduler in JOBQUEUE_CLUSTERS:
            cluster = jobqueue_cluster(scheduler, args.workers)
            try:
                pool = DaskPool(cluster=cluster, batch=args.batch, shard_dir=args.shard_dir,
                                expected_workers=args.workers)
            except BaseException:
                cluster.close()
                raise
        else:
            pool = DaskPool(scheduler, batch=args.batch, shard_dir=args.shard_dir)
        progress = make_progress(args.quiet)
        report = run_sweep(sweep, store, pool, progress, retry_failed=args.retry_failed, wall_limit_s=args.wall_limit)
    except KeyboardInterrupt:
        if progress:
            progress.close()
            progress = None
        print(f"interrupted; finished runs are in {store_path}: run the same command to resume",
              file=sys.stderr)
        return 130
    except ImportError as e:
        if "dask-jobqueue" in str(e):
            error(str(e))
        else:
            error(f"--scheduler needs dask.distributed (pip install 'dask[distributed]'): {e}")
        return 1
    except StoreUnwritable as e:
        if progress:
            progress.close()
            progress = None
        error(f"{e}{resume}")
        return 1
    except (OSError, RuntimeError) as e:
        error(str(e))
        return 1
    finally:
        if progress:
            progress.close()
        if pool is not None:
            pool.close()
        store.close()
    print(f"sweep {sweep.name}: ran {report.ran} ({report.ok} ok, {report.failed} failed) in "
          f"{report.wall_s:.1f} s; {store_path} holds all {report.total} runs of the sweep, "
          f"{report.failed_in_store} failed")
    return 1 if report.failed_in_store else 0


def _print_df(df, fmt: str) -> None:
    if fmt == "csv":
        df.to_csv(sys.stdout, index=False)
        return
    rows = [[cell(v) for v in r] for r in df.itertuples(index=False, name=None)]
    num = ["r" if df[c].dtype.kind in "iuf" else "l" for c in df.columns]
    print(format_table([str(c) for c in df.columns], rows, "".join(num)))


def cmd_results(args: argparse.Namespace) -> int:
    import duckdb

    from .results import DEFAULT_METRICS, cell_table

    store = _open_store(args.store)
    if store is None:
        return EXIT_SCENARIO
    with store:
        try:
            if not store.has_runs():
                print(f"{args.store}: no runs stored", file=sys.stderr)
                return 0
            if args.query:
                store.con.register("flows_wide", store.flows(args.sweep))
                store.con.register("links_wide", store.links(args.sweep))
                store.con.register("pep_legs_wide", store.pep_legs(args.sweep))
                out = store.query(args.query)
            elif args.table == "runs":
                out = store.runs(args.sweep).drop(columns=["scenario_json", "summary_json"])
            elif args.table == "flows":
                out = store.flows(args.sweep)
            elif args.table == "links":
                out = store.links(args.sweep)
            elif args.table == "pep_legs":
                out = store.pep_legs(args.sweep)
            else:
                metrics = list(args.metric or [])
                sweeps = store.sweeps()
                if not metrics:
                    chosen = sweeps if args.sweep is None else sweeps[sweeps["sweep"] == args.sweep]
                    for m in chosen["metrics_json"]:
                        metrics += [x for x in json.loads(m or "[]") if x not in metrics]
                out = cell_table(store.flows(args.sweep), store.factor_names(args.sweep),
                                 metrics or DEFAULT_METRICS, level=args.level)
        except duckdb.Error as e:
            error(f"query failed: {e}")
            return EXIT_SCENARIO
        except KeyError as e:
            error(str(e.args[0]))
            return EXIT_SCENARIO
    if args.export:
        dest = Path(args.export)
        if dest.suffix.lower() == ".parquet":
            out.to_parquet(dest, index=False)
        elif dest.suffix.lower() == ".csv":
            out.to_csv(dest, index=False)
        else:
            error(f"--export {args.export}: expected a file name ending in .parquet or .csv")
            return EXIT_SCENARIO
        print(f"wrote {len(out)} rows to {dest}", file=sys.stderr)
        return 0
    _print_df(out, args.format)
    return 0


def _open_store(path: str):
    """The store at ``path`` opened read-only, or None after printing why not."""
    import duckdb

    from .store import Store, StoreBusy

    try:
        return Store(path, read_only=True)
    except (FileNotFoundError, StoreBusy) as e:
        error(str(e))
    except duckdb.Error as e:
        error(f"{path} is not a results store: {e}")
    return None


def _level(v: str) -> float:
    x = float(v)
    if not 0 < x < 1:
        raise argparse.ArgumentTypeError(f"{v}: a confidence level in (0, 1), e.g. 0.95")
    return x


def _measured_arg(path: str | None):
    """(measured series, label) from --measured, or None; raises
    TraceInputError naming the file, line and field."""
    if path is None:
        return None
    from .traces import measured

    return measured.read(path), Path(path).name


def cmd_report(args: argparse.Namespace) -> int:
    from .report import DEFAULT_METRICS as REPORT_METRICS, write_report
    from .traces.measurement import TraceInputError

    try:
        meas = _measured_arg(args.measured)
    except TraceInputError as e:
        error(str(e))
        return EXIT_SCENARIO
    if Path(args.store).is_dir():
        from .report import write_run_report

        try:
            path = write_run_report(args.store, args.out, meas, args.title or f"satcp run: {Path(args.store).name}")
        except ValueError as e:
            error(str(e))
            return EXIT_SCENARIO
        print(path)
        return 0
    store = _open_store(args.store)
    if store is None:
        return EXIT_SCENARIO
    with store:
        if not store.has_runs():
            error(f"{args.store}: no runs stored")
            return EXIT_SCENARIO
        flows = store.flows(args.sweep)
        runs = store.runs(args.sweep)
        factors = store.factor_names(args.sweep)
    try:
        path = write_report(flows, runs, args.out, factors=factors,
                            metrics=args.metric or REPORT_METRICS, x=args.x, group=args.group,
                            baseline=args.baseline, level=args.level,
                            title=args.title or f"satcp report: {Path(args.store).name}", measured=meas)
    except (KeyError, ValueError) as e:
        error(str(e.args[0]))
        return EXIT_SCENARIO
    print(path)
    return 0


def cmd_reproduce(args: argparse.Namespace) -> int:
    from .reproduce import reproduce, studies

    options = {o.dest: getattr(args, o.dest) for s in studies().values() for o in s.options}
    return reproduce(args.name, quick=args.quick, out=args.out, store=args.store, workers=args.workers,
                     only=args.only, options=options)


def _reproduce_parser(sub) -> None:
    """``satcp reproduce``: its help and the studies' own options come from
    the one list of studies (``satcp.reproduce.PACKAGES``)."""
    from .reproduce import studies

    known = studies()
    rp = sub.add_parser("reproduce", help="reproduce a study's tables and claims: " + ", ".join(known),
                        description="Run every experiment of a study through the sweep platform (store, resume), "
                                    "write DIR/index.html and DIR/report.md with our numbers beside the source's "
                                    "and a verdict per claim, and print a summary. See docs/reproduce.md. "
                                    "The studies: " + "; ".join(f"{n}: {s.title}" for n, s in known.items()) + ".")
    rp.add_argument("name", metavar="NAME", help="the study: " + ", ".join(known))
    rp.add_argument("--quick", action="store_true",
                    help="fewer seeds, BER levels and file sizes (same code path; minutes, for CI)")
    rp.add_argument("--out", metavar="DIR", help="report directory (default out/reproduce-NAME[-quick])")
    rp.add_argument("--store", metavar="PATH", help="results store (default DIR/results.duckdb)")
    rp.add_argument("--workers", type=int, metavar="N", help="local worker processes (default: CPU count)")
    rp.add_argument("--only", action="append", metavar="EXPERIMENT",
                    help="run only this experiment (repeatable; e.g. t7_5, ber_ftp)")
    seen = set()
    for s in known.values():
        for o in s.options:
            if o.flag not in seen:
                seen.add(o.flag)
                rp.add_argument(o.flag, dest=o.dest, type=o.type, metavar=o.metavar, help=f"{s.name} only: {o.help}")
    rp.set_defaults(func=cmd_reproduce)


def build_parser() -> argparse.ArgumentParser:
    p = argparse.ArgumentParser(
        prog="satcp",
        description="Packet-level simulation of TCP over satellite networks.",
    )
    p.add_argument("--version", action="version", version=f"satcp {_core.version()}")
    sub = p.add_subparsers(dest="command", metavar="COMMAND")
    sub.required = True

    r = sub.add_parser("run", help="run one scenario file",
                       description="Validate and run one scenario file; print a summary.")
    r.add_argument("file", metavar="FILE", help="scenario file (.toml, or .json)")
    r.add_argument("--set", action="append", metavar="PATH=VALUE", default=[],
                   help="override a field before validation, e.g. "
                        "flows.download.tcp.variant=newreno or links.1.errors_ab={ber=1e-6} "
                        "(repeatable)")
    r.add_argument("--out", metavar="DIR",
                   help="write tables (flows, links, series, link_series, pages) and plots "
                        "(cwnd.png, seq.png) to DIR; turns on sampling if the scenario has no "
                        "run.sample_interval")
    r.add_argument("--json", action="store_true",
                   help="print the summary as one JSON object (nothing else on stdout)")
    r.add_argument("--format", choices=["csv", "parquet"], default="csv",
                   help="table format for --out (default csv)")
    r.add_argument("--progress", action="store_true",
                   help="show simulated time against wall time on stderr while the run goes on")
    r.set_defaults(func=cmd_run)

    v = sub.add_parser("validate", help="check a scenario file without running it")
    v.add_argument("file", metavar="FILE")
    v.add_argument("--set", action="append", metavar="PATH=VALUE", default=[])
    v.set_defaults(func=cmd_validate)

    d = sub.add_parser("demo", help="GEO demo: NewReno, SACK, Hybla, CUBIC, BBR over a range of bit error rates",
                       description="Run the built-in GEO scenario for NewReno, SACK, Hybla, CUBIC and BBR at "
                                   "BER 0, 1e-7, 1e-6, 1e-5; print a table and write figures.")
    d.add_argument("--out", metavar="DIR", default="out/demo", help="figure directory (default out/demo)")
    d.add_argument("--quick", action="store_true", help="1 MB file and 2 seeds instead of 5 MB and 4")
    d.add_argument("--jobs", type=int, default=None, help="worker processes, as sweep --workers (default: CPU count)")
    d.set_defaults(func=cmd_demo)

    w = sub.add_parser("sweep", help="run a sweep file (factors x levels x replications) into a store",
                       description="Expand a sweep file into runs, validate them all, and run the ones "
                                   "the results store does not hold yet. Each finished run is committed "
                                   "at once, so an interrupted sweep resumes where it stopped. "
                                   "Exit 0: every run ok; 1: some runs failed (recorded); 2: bad sweep.")
    w.add_argument("file", metavar="FILE", help="sweep file (.toml); see docs/sweeps.md")
    w.add_argument("--store", metavar="PATH",
                   help="results store (DuckDB file; default: FILE with the suffix .duckdb)")
    w.add_argument("--workers", type=int, metavar="N",
                   help="local worker processes (default: CPU count); with --scheduler slurm etc., the Dask "
                        "workers to ask the batch system for (default: one job's worth)")
    w.add_argument("--scheduler", metavar="tcp://HOST:PORT|SYSTEM",
                   help="run on an existing dask.distributed cluster instead of locally, or on one started "
                        "through a batch system with dask-jobqueue: slurm, pbs, sge, lsf, htcondor, oar, moab "
                        "(configured by Dask's jobqueue configuration; docs/sweeps.md)")
    w.add_argument("--batch", type=int, metavar="N",
                   help="runs handed to a worker at once (default: about 0.5 s of work locally, 1 s on Dask, "
                        "judged from the runs finished so far)")
    w.add_argument("--shard-dir", metavar="DIR",
                   help="with --scheduler: a directory the Dask workers share with this machine, where they "
                        "write their results' shards (default: they send them here)")
    w.add_argument("--dry-run", action="store_true", help="list the runs and what the store holds; run nothing")
    w.add_argument("--retry-failed", action="store_true", help="run again the runs stored as failed")
    w.add_argument("--wall-limit", type=_positive_seconds, metavar="SECONDS",
                   help="stop a run after this much wall time and store it as failed, saying so (default: none)")
    w.add_argument("--quiet", action="store_true", help="no progress output, only the final line")
    w.set_defaults(func=cmd_sweep)

    q = sub.add_parser("results", help="print or export what a results store holds",
                       description="Print the stored results: by default one row per cell and flow "
                                   "(runs, failed, mean of each metric). The store's tables are runs, "
                                   "factors, flows, links, agents, paths, ground_stations, nodes, pep_legs "
                                   "(one row per leg of each connection a PEP split) and "
                                   "sweeps (docs/sweeps.md); --query also sees flows_wide, "
                                   "links_wide and pep_legs_wide (with one column per factor).")
    q.add_argument("store", metavar="STORE", help="results store (DuckDB file)")
    q.add_argument("--sweep", metavar="LABEL", help="only this sweep's runs")
    q.add_argument("--table", choices=["cells", "runs", "flows", "links", "pep_legs"], default="cells",
                   help="what to print (default cells)")
    q.add_argument("--metric", action="append", metavar="FIELD",
                   help="flow field to average per cell (repeatable; default: the sweep's metrics, else "
                        + ", ".join(["completion_s", "goodput_bps", "retransmissions", "timeouts"]) + ")")
    q.add_argument("--query", metavar="SQL", help="run this SQL on the store instead")
    q.add_argument("--format", choices=["table", "csv"], default="table", help="output format (default table)")
    q.add_argument("--export", metavar="FILE", help="write the table to FILE (.parquet or .csv) instead of printing")
    q.add_argument("--level", type=_level, default=0.95,
                   help="confidence level of the *_ci half-widths in the cells table (default 0.95)")
    q.set_defaults(func=cmd_results)

    h = sub.add_parser("report", help="write a self-contained HTML report of a results store or of one run",
                       description="Per-cell statistics with t intervals, figures of each metric against "
                                   "a numeric factor, improvement over a baseline, ANOVA, fairness, "
                                   "re-run traces of chosen runs and the failed runs, in DIR/index.html. "
                                   "With --measured, goodput and RTT per second of the chosen runs beside a "
                                   "measured series. STORE may also be a directory written by satcp run --out: "
                                   "then the page shows that run (beside --measured).")
    h.add_argument("store", metavar="STORE", help="results store (DuckDB file), or a satcp run --out directory")
    h.add_argument("--measured", metavar="CSV",
                   help="measured series (t_s,goodput_bps,rtt_ms,loss; satcp trace import's measured.csv) "
                        "drawn beside the simulated goodput and RTT per second (docs/traces.md)")
    h.add_argument("--out", metavar="DIR", required=True, help="output directory")
    h.add_argument("--sweep", metavar="LABEL", help="only this sweep's runs")
    h.add_argument("--metric", action="append", metavar="FIELD", help="flow metric to analyse (repeatable)")
    h.add_argument("--x", metavar="FACTOR", help="numeric factor for the x axis (default: a BER/PER factor)")
    h.add_argument("--group", metavar="FACTOR", help="factor drawn as separate lines (default: the variant)")
    h.add_argument("--baseline", metavar="LEVEL", help="level of --group that improvements are measured against")
    h.add_argument("--level", type=_level, default=0.95, help="confidence level (default 0.95; CETEN-R used 0.90)")
    h.add_argument("--title", help="page title")
    h.set_defaults(func=cmd_report)

    _reproduce_parser(sub)
    from .traces.command import add_parser as _trace_parser

    _trace_parser(sub)
    return p


def main(argv: Sequence[str] | None = None) -> int:
    args = build_parser().parse_args(argv)
    try:
        return args.func(args)
    except BrokenPipeError:
        # the reader went away (`satcp results ... | head`): not an error
        os.dup2(os.open(os.devnull, os.O_WRONLY), sys.stdout.fileno())
        return 0


if __name__ == "__main__":
    sys.exit(main())
