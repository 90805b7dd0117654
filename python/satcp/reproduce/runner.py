"""Run a reproduction: expand the chosen experiments, run what the store
does not hold (one pool for every experiment's runs, each run committed as
it finishes, so an interrupted reproduction resumes), then read the
observations back.
"""

from __future__ import annotations

import sys
import time
from dataclasses import dataclass
from pathlib import Path
from typing import TextIO

import pandas as pd

from ..execute import LocalPool, SweepReport, execute_runs
from ..store import Store
from . import catalogue, observations
from .catalogue import Experiment, Plan


class CountProgress:
    """A line on ``out`` at every tenth of the runs (quiet enough for CI logs)."""

    def __init__(self, out: TextIO = sys.stderr):
        self.out = out
        self.done = self.failed = self.todo = 0
        self.step = 1
        self.t0 = time.perf_counter()

    def start(self, sweep_name, total, stored, todo, pool) -> None:
        self.todo = todo
        self.step = max(1, todo // 10)
        print(f"{sweep_name}: {total} runs, {stored} already stored, {todo} to run on {pool.description}",
              file=self.out, flush=True)

    def finished(self, run, outcome) -> None:
        self.done += 1
        if outcome["status"] != "ok":
            self.failed += 1
            print(f"  failed: {run.sweep} {run.cell_json} rep {run.replication}: {outcome.get('error')}",
                  file=self.out, flush=True)
        if self.done % self.step == 0 or self.done == self.todo:
            print(f"  {self.done}/{self.todo} runs ({self.failed} failed), "
                  f"{time.perf_counter() - self.t0:.1f} s", file=self.out, flush=True)

    def close(self) -> None:
        pass


@dataclass
class Outcome:
    plan: Plan
    report: SweepReport
    observations: pd.DataFrame
    runs: pd.DataFrame  # key, status, scenario_json, sim_time_s of the planned runs


def run(name: str, experiments: list[Experiment], root: Path, store_path: Path, quick: bool,
        workers: int | None, progress: bool = True, collect=observations.collect) -> Outcome:
    """``collect(store, planned_runs, experiments)`` reads the observation
    frame (each reproduction has its own)."""
    p = catalogue.plan(experiments, root, quick)
    store = Store(store_path)
    pool = LocalPool(workers)
    try:
        for s in p.sweeps:
            store.register_sweep(s)
        # A run two experiments share (Table 5.1's 500 ms row is Table 7.5's
        # SACK run) is run and counted once.
        unique = list({r.run.key: r.run for r in p.runs}.values())
        rep = execute_runs(unique, store, pool, CountProgress() if progress else None,
                           sweep_name=f"reproduce {name}{' --quick' if quick else ''}")
        obs = collect(store, p.runs, experiments)
        keys = sorted({r.run.key for r in p.runs})
        runs = store.runs()
        runs = runs[runs["key"].isin(keys)][["key", "status", "error", "sim_time_s", "scenario_json"]]
    finally:
        pool.close()
        store.close()
    return Outcome(p, rep, obs, runs.reset_index(drop=True))
