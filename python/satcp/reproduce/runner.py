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
from ..store import Store, StoreBusy
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


def _planned_keys(store: Store, runs: list) -> None:
    """A temporary table ``_planned_keys`` of the runs' keys, to join on
    (the caller drops it)."""
    store.con.execute("CREATE OR REPLACE TEMP TABLE _planned_keys (key VARCHAR)")
    store.con.executemany("INSERT INTO _planned_keys VALUES (?)", [[k] for k in sorted({p.run.key for p in runs})])


def stored_summaries(store: Store, runs: list) -> pd.DataFrame:
    """key, status and summary_json of the planned runs the store holds."""
    _planned_keys(store, runs)
    t = store.query("SELECT r.key, r.status, r.summary_json FROM runs r JOIN _planned_keys k USING (key)")
    store.con.execute("DROP TABLE _planned_keys")
    return t


def stored_tables(store: Store, runs: list, link: str | None = None
                  ) -> tuple[pd.DataFrame, pd.DataFrame, pd.DataFrame]:
    """What the store holds for these planned runs: their runs (status
    indexed by key), flows and links rows (only the link named ``link``,
    "from->to", when given)."""
    _planned_keys(store, runs)
    run_t = store.query("SELECT r.key, r.status FROM runs r JOIN _planned_keys k USING (key)").set_index("key")
    flow_t = store.query("SELECT f.* FROM flows f JOIN _planned_keys k USING (key)")
    if link is None:
        link_t = store.query("SELECT l.* FROM links l JOIN _planned_keys k USING (key)")
    else:
        link_t = store.query("SELECT l.* FROM links l JOIN _planned_keys k USING (key) WHERE l.link = ?", [link])
    store.con.execute("DROP TABLE _planned_keys")
    return run_t, flow_t, link_t


def stored_runs(runs: list, run_t: pd.DataFrame, flow_t: pd.DataFrame):
    """For each planned run the store holds (tables from
    :func:`stored_tables`): the run, its status, and its flows' rows (None
    unless it ended ok)."""
    by_key = {k: g for k, g in flow_t.groupby("key")} if not flow_t.empty else {}
    for p in runs:
        if p.run.key in run_t.index:
            status = run_t.loc[p.run.key, "status"]
            yield p, status, by_key.get(p.run.key) if status == "ok" else None


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


EXIT_USAGE = 2


@dataclass
class Setup:
    """What a reproduction command resolved from its arguments."""

    chosen: list[Experiment]
    root: Path
    out: Path
    store: Path


def setup(name: str, catalogue: list[Experiment], *, quick: bool, out, store, workers, only, root,
          default_root: Path) -> Setup | int:
    """Check the common arguments of ``satcp reproduce NAME`` against the
    catalogue; an exit status (usage error, printed) or the resolved paths
    and experiments (the report directory is created)."""
    ids = [e.id for e in catalogue]
    bad = [o for o in (only or []) if o not in ids]
    if bad:
        print(f"error: --only {bad[0]}: unknown experiment; allowed: {', '.join(ids)}", file=sys.stderr)
        return EXIT_USAGE
    if workers is not None and workers < 1:
        print(f"error: --workers {workers}: expected a number of processes >= 1", file=sys.stderr)
        return EXIT_USAGE
    out = Path(out) if out is not None else Path("out") / f"reproduce-{name}{'-quick' if quick else ''}"
    store = Path(store) if store is not None else out / "results.duckdb"
    out.mkdir(parents=True, exist_ok=True)
    return Setup([e for e in catalogue if not only or e.id in only], Path(root) if root is not None else default_root,
                 out, store)


def run_or_status(name: str, s: Setup, quick: bool, workers: int | None, collect=observations.collect):
    """:func:`run`, or the exit status of an interruption (130: finished
    runs are kept) or of a store in use (1)."""
    try:
        return run(name, s.chosen, s.root, s.store, quick, workers, collect=collect)
    except KeyboardInterrupt:
        print(f"interrupted; finished runs are in {s.store}: run the same command to resume", file=sys.stderr)
        return 130
    except StoreBusy as e:
        print(f"error: {e}", file=sys.stderr)
        return 1


def setup_and_run(name: str, catalogue: list[Experiment], *, quick: bool, out, store, workers, only, root,
                  default_root: Path, collect) -> tuple[Setup, Outcome] | int:
    """:func:`setup` then :func:`run_or_status`: the resolved paths and the
    outcome, or the exit status of whichever stopped it."""
    s = setup(name, catalogue, quick=quick, out=out, store=store, workers=workers, only=only, root=root,
              default_root=default_root)
    if isinstance(s, int):
        return s
    outcome = run_or_status(name, s, quick, workers, collect=collect)
    if isinstance(outcome, int):
        return outcome
    return s, outcome


def finish(outcome: Outcome, s: Setup, report_paths: tuple[Path, Path], t0: float, stdout: TextIO) -> int:
    """The summary's last lines and the command's exit status: 1 when an
    arm could not run or a run failed."""
    for (e, a), why in outcome.plan.unavailable.items():
        print(f"not run: {e} / {a}: {why}", file=stdout)
    print(f"report: {report_paths[0]} and {report_paths[1]}; store: {s.store}", file=stdout)
    print(f"runs: {outcome.report.total} ({outcome.report.ran} run now, {outcome.report.already_stored} already "
          f"stored, {outcome.report.failed_in_store} failed); total wall time {time.perf_counter() - t0:.1f} s",
          file=stdout)
    return 1 if outcome.plan.unavailable or outcome.report.failed_in_store else 0
