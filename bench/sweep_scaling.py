"""Sweep scaling: the same 100-run sweep on 1 and on 2 local workers.

Prints both wall times (from the start of the pool to the last commit, store
writes included) and their ratio; exits 1 if 2 workers take more than
``--limit`` (0.6) of the 1-worker time. Also printed: the summed wall time
of the runs in the workers, the CPU seconds the sweep used (parent and
workers) and so how many cores it kept busy, and the load average before:
when other processes hold the cores, the 2-worker sweep gets less than two
and the runs themselves take longer. The runs are bulk transfers over a
50 Mb/s GEO hop (2 variants x 2 bit error rates x 25 replications), each a
fraction of a second of engine time, so the pool and store overheads are
measured along with the engine. Both stores must hold the same results.

    python bench/sweep_scaling.py [--runs-per-cell 25] [--stop 400s] [--limit 0.6]
"""

from __future__ import annotations

import argparse
import os
import resource
import sys
import tempfile
import time
from pathlib import Path

REPO = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(REPO / "tests" / "python"))

from satcp.execute import LocalPool, run_sweep  # noqa: E402
from satcp.store import Store  # noqa: E402
from satcp.sweep import load_sweep  # noqa: E402
from sweep_helpers import assert_same_results, bulk_sweep  # noqa: E402


def _cpu_s() -> float:
    """CPU seconds of this process and of its reaped children (the workers)."""
    own, kids = resource.getrusage(resource.RUSAGE_SELF), resource.getrusage(resource.RUSAGE_CHILDREN)
    return own.ru_utime + own.ru_stime + kids.ru_utime + kids.ru_stime


def timed(sweep_file: Path, store: Path, workers: int) -> tuple[float, int, float, float]:
    """Wall time, runs, summed worker wall time per run, CPU seconds used."""
    sweep = load_sweep(sweep_file)
    with Store(store) as st:
        cpu0, t0 = _cpu_s(), time.perf_counter()
        report = run_sweep(sweep, st, LocalPool(workers))  # the pool's workers have exited
        wall, cpu = time.perf_counter() - t0, _cpu_s() - cpu0
        in_runs = float(st.query("SELECT sum(wall_s) AS s FROM runs")["s"][0])
    if report.ran != report.ok:
        raise SystemExit(f"{report.failed} runs failed")
    return wall, report.ran, in_runs, cpu


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--runs-per-cell", type=int, default=25)
    ap.add_argument("--stop", default="400s", help="simulated time of each run")
    ap.add_argument("--limit", type=float, default=0.6)
    args = ap.parse_args()
    with tempfile.TemporaryDirectory(prefix="satcp-sweep-bench-") as d:
        d = Path(d)
        sweep_file = bulk_sweep(d / "bench.toml", args.runs_per_cell, args.stop, label="bench")
        rows = []
        for workers in (1, 2):
            load = os.getloadavg()[0]
            wall, ran, in_runs, cpu = timed(sweep_file, d / f"w{workers}.duckdb", workers)
            rows.append((workers, ran, wall))
            print(f"sweep scaling: {ran} runs on {workers} worker{'s' if workers > 1 else ''}: "
                  f"{wall:7.2f} s wall, {in_runs:6.2f} s in runs, {cpu:6.2f} s CPU "
                  f"({cpu / wall:.2f} cores busy; load average {load:.1f} on {os.cpu_count()} cores before)",
                  flush=True)
        assert_same_results(d / "w1.duckdb", d / "w2.duckdb")
    ratio = rows[1][2] / rows[0][2]
    ok = ratio <= args.limit
    print(f"sweep scaling: 2 workers / 1 worker = {ratio:.3f} (limit {args.limit}): "
          f"{'ok' if ok else 'TOO SLOW'}; results identical")
    return 0 if ok else 1


if __name__ == "__main__":
    sys.exit(main())
