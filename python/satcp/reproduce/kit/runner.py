"""Run a study's catalogue: expand the chosen experiments, run what the
store does not hold (one pool for every experiment's runs, each run
committed as it finishes, so an interrupted study resumes), then read the
observations back with the study's own ``collect``.
"""

from __future__ import annotations

import sys
import time
from pathlib import Path
from typing import Callable, TextIO

from ...execute import LocalPool, execute_runs
from ...messages import error
from ...store import Store, StoreBusy
from . import catalogue
from .catalogue import Experiment
from .study import EXIT_USAGE, Outcome, Setup


class CountProgress:
    """A line on ``out`` at every tenth of the runs (quiet enough for CI logs)."""

    def __init__(self, out: TextIO | None = None):
        self.out = out or sys.stderr  # as it is now, not when this module was imported
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


def run(name: str, experiments: list[Experiment], root: Path, store_path: Path, quick: bool,
        workers: int | None, collect: Callable, progress: bool = True) -> Outcome:
    """``collect(store, planned_runs, experiments)`` reads the observation
    frame (each study has its own)."""
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


def setup(name: str, catalogue: list[Experiment], *, quick: bool, out, store, workers, only, root,
          default_root: Path) -> Setup | int:
    """Check the common arguments of ``satcp reproduce NAME`` against the
    catalogue; an exit status (usage error, printed) or the resolved paths
    and experiments (the report directory is created)."""
    ids = [e.id for e in catalogue]
    bad = [o for o in (only or []) if o not in ids]
    if bad:
        error(f"--only {bad[0]}: unknown experiment; allowed: {', '.join(ids)}")
        return EXIT_USAGE
    if workers is not None and workers < 1:
        error(f"--workers {workers}: expected a number of processes >= 1")
        return EXIT_USAGE
    out = Path(out) if out is not None else Path("out") / f"reproduce-{name}{'-quick' if quick else ''}"
    store = Path(store) if store is not None else out / "results.duckdb"
    out.mkdir(parents=True, exist_ok=True)
    return Setup([e for e in catalogue if not only or e.id in only], Path(root) if root is not None else default_root,
                 out, store)


def run_or_status(name: str, s: Setup, quick: bool, workers: int | None, collect: Callable):
    """:func:`run`, or the exit status of an interruption (130: finished
    runs are kept) or of a store in use (1)."""
    try:
        return run(name, s.chosen, s.root, s.store, quick, workers, collect=collect)
    except KeyboardInterrupt:
        print(f"interrupted; finished runs are in {s.store}: run the same command to resume", file=sys.stderr)
        return 130
    except StoreBusy as e:
        error(str(e))
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
