"""Sweep overhead: a sweep of many short runs on 2 local workers, and how
much of its wall time went to anything but the engine.

    python bench/sweep_overhead.py [--runs 10000] [--workers 2] [--stop 1s] [--no-shards] [--batch N]

Each run is one simulated second of 20 CUBIC flows sharing a 100 Mb/s,
25 ms LEO-like hop (a replication with its own seed). The sweep runs into a
fresh store, as `satcp sweep` does (pool, workers writing Parquet shards
the parent merges, progress off; ``--no-shards``: the parent inserts every
run's rows itself, as before shards).
Printed: the sweep's wall time W; the engine's time summed over the runs
(E, each run's own `wall_s`: building the world, running it, writing its
summary); the time the workers spent per run outside the engine (task
transfer, JSON, Python); and the share of the workers' capacity (workers x
W) not spent in the engine, 1 - E / (workers x W), which the issue's
target puts under 10%. Wall times are what a loaded machine inflates
(other jobs take the cores: E and W grow together, not equally), so the
same share is printed from CPU times too: the CPU the workers' threads
spent in the engine's calls (each outcome's ``run_cpu_s``, summed by a
listener) over all the CPU the sweep took (its parent's and its
workers', start-up included), which is what the wall figure comes to on
an idle machine whose cores the sweep keeps busy.

The issue's case is runs of at least 10 ms of engine time (``--flows 40
--stop 5s``: about 71,000 events and 10-12 ms a run in a release build
without PGO) over 100,000 runs; the 2 ms runs are the default's 20 flows of 1 s.
"""

from __future__ import annotations

import argparse
import json
import os
import resource
import sys
import tempfile
import time
from pathlib import Path

REPO = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(REPO / "python"))

from satcp.execute import DaskPool, LocalPool, run_sweep  # noqa: E402
from satcp.shards import shard_dir  # noqa: E402
from satcp.store import Store  # noqa: E402
from satcp.sweep import from_dict  # noqa: E402

BASE = """[run]
seed = 1
stop = "{stop}"
[nodes]
servers = {{}}
router = {{}}
clients = {{}}
[[links]]
a = "servers"
b = "router"
rate = "1Gbps"
delay = "1ms"
[[links]]
a = "router"
b = "clients"
rate = "100Mbps"
delay = "11ms"
queue_ab = {{ kind = "droptail", packets = 250 }}
"""


def scenario(stop: str, flows: int) -> str:
    return BASE.format(stop=stop) + "".join(
        f'[[flows]]\nname = "f{i}"\nsrc = "servers"\ndst = "clients"\ntcp = {{ variant = "cubic" }}\n'
        f'app = {{ kind = "ftp", start = "{i}ms" }}\n' for i in range(flows))


class EngineCpu:
    """A sweep listener summing the CPU time the workers spent in the
    engine's calls (each outcome's ``run_cpu_s``)."""

    def __init__(self) -> None:
        self.total = 0.0

    def start(self, *_: object) -> None:
        pass

    def finished(self, _run: object, outcome: dict) -> None:
        self.total += outcome.get("run_cpu_s") or 0.0

    def close(self) -> None:
        pass


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--runs", type=int, default=10_000)
    ap.add_argument("--workers", type=int, default=2)
    ap.add_argument("--stop", default="1s")
    ap.add_argument("--flows", type=int, default=20)
    ap.add_argument("--no-shards", action="store_true", help="the parent inserts the rows (no Parquet shards)")
    ap.add_argument("--batch", type=int, default=None,
                    help="runs a chunk or Dask task (default: about 0.5 s of work locally, 1 s on Dask)")
    ap.add_argument("--dask", action="store_true",
                    help="on a local Dask cluster of --workers single-thread processes (its scheduler in this "
                         "process, so counted as the parent's), the workers writing their shards directly")
    args = ap.parse_args()
    with tempfile.TemporaryDirectory(prefix="satcp-sweep-overhead-") as d:
        base = Path(d) / "base.toml"
        base.write_text(scenario(args.stop, args.flows))
        sweep = from_dict({"base": str(base), "replications": args.runs, "label": "overhead", "factors": {}})
        db = Path(d) / "o.duckdb"
        if args.dask:
            from distributed import LocalCluster

            cluster = LocalCluster(n_workers=args.workers, threads_per_worker=1, processes=True,
                                   dashboard_address=None)
            pool = DaskPool(cluster=cluster, batch=args.batch, shard_dir=shard_dir(db), expected_workers=args.workers)
        else:
            pool = LocalPool(args.workers, batch=args.batch)
        cpu_in_runs = EngineCpu()
        with Store(db) as st:
            t0 = time.perf_counter()
            cpu0 = resource.getrusage(resource.RUSAGE_SELF)
            report = run_sweep(sweep, st, pool, listener=cpu_in_runs, shards=not args.no_shards)
        # the wall time includes closing the store (its last checkpoint)
        wall = time.perf_counter() - t0
        cpu1 = resource.getrusage(resource.RUSAGE_SELF)
        pool.close()  # a Dask cluster's workers exit
        workers_cpu = resource.getrusage(resource.RUSAGE_CHILDREN)  # the pool has exited
        parent_cpu = (cpu1.ru_utime + cpu1.ru_stime) - (cpu0.ru_utime + cpu0.ru_stime)
        if report.ok != args.runs:
            raise SystemExit(f"{report.failed} runs failed")
        store_bytes = db.stat().st_size
        with Store(db, read_only=True) as st:
            rows = st.query("SELECT wall_s, summary_json FROM runs")
    engine = sum(json.loads(s)["wall_s"] for s in rows["summary_json"])
    in_workers = float(rows["wall_s"].sum())
    events = sum(json.loads(s)["events"] for s in rows["summary_json"])
    capacity = args.workers * wall
    workers_cpu_s = workers_cpu.ru_utime + workers_cpu.ru_stime
    all_cpu = workers_cpu_s + parent_cpu
    print(f"sweep overhead: {args.runs} runs of {args.stop} simulated ({args.flows} CUBIC flows, 100 Mb/s, 25 ms RTT) "
          f"on {args.workers} {'Dask' if args.dask else 'local'} workers, "
          f"{'rows inserted by the parent' if args.no_shards else 'Parquet shards'}")
    print(f"  wall {wall:.2f} s ({args.runs / wall:.0f} runs/s); engine {engine:.2f} s in all ({1e3 * engine / args.runs:.2f} ms a run, "
          f"{events / args.runs:.0f} events a run); in the workers' run function {in_workers:.2f} s")
    print(f"  per run outside the engine: {1e3 * (in_workers - engine) / args.runs:.3f} ms in the worker, "
          f"{1e3 * (capacity - in_workers) / args.runs:.3f} ms of worker capacity elsewhere (dispatch, parent, store)")
    print(f"  CPU per run: parent {1e3 * parent_cpu / args.runs:.3f} ms (every thread: dispatch, results, store), "
          f"workers {1e3 * workers_cpu_s / args.runs:.3f} ms (start-up included), "
          f"of which in the engine's calls {1e3 * cpu_in_runs.total / args.runs:.3f} ms")
    print(f"  store file {store_bytes / 2**20:.1f} MiB ({store_bytes / args.runs / 1024:.1f} KiB a run)")
    print(f"  share of the workers' wall time outside the engine: {100 * (1 - engine / capacity):.1f}% (target < 10%)")
    print(f"  share of the sweep's CPU (parent and workers) outside the engine's calls: "
          f"{100 * (1 - cpu_in_runs.total / all_cpu):.1f}% (load average at the end {os.getloadavg()[0]:.1f})")
    return 0


if __name__ == "__main__":
    sys.exit(main())
