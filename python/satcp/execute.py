"""Running a sweep's runs: a local process pool or a Dask cluster; the parent
commits the results to the store as they arrive.

Workers only compute: :func:`satcp.worker.run_task` takes a run's scenario
JSON and returns its outcome (a small dict); the parent process is the only
writer of the store (DuckDB has one writer). Results are committed in batches: a
transaction costs DuckDB milliseconds however little it holds, which would
cap a sweep of short runs on the parent, so the parent commits what has
finished once the oldest uncommitted result is ``COMMIT_EVERY_S`` (1 s)
old, when the pool has been quiet that long, and when the sweep ends or is
interrupted. A kill loses the runs in flight (a chunk handed to the local
pool, at most about ``CHUNK_S`` of work, counts as in flight from when it
is queued until it returns) and at most the last second of finished ones;
a resumed sweep runs them again.

Choices:
* Local runs use processes, not threads. The engine releases the GIL, but a
  process keeps a crash (abort, segfault, out of memory) away from the parent
  and from the store. Processes are started with ``spawn`` so that no DuckDB
  or Dask thread of the parent is forked half-way.
* Local runs go to the workers in chunks of about ``CHUNK_S`` (0.1 s) of
  work each, sized from the runs finished so far: per-run dispatch cost a
  sweep of millisecond runs more than the runs themselves. At most ``4 x
  workers`` chunks are queued in the pool at once (0.4 s of work a worker),
  so a worker does not wait while the parent commits a batch (about 0.1 s
  for a second of runs of 20 flows), and an interrupted sweep has little
  queued work to throw away.
* Runs of a sweep cell that differ only in their seed go to the workers as
  the cell's template and the seed: a worker parses a template once for all
  its replications (`_core.run(..., seed=...)`).
* A worker that dies takes the pool down with every queued run (every run
  of every chunk in flight). Those runs are run again one at a time in a
  fresh pool; the one that kills its worker again alone is recorded as
  failed and the sweep goes on.
* On Dask every run is submitted at once under a key derived from the run key
  (so the same run submitted twice is computed once), and a run whose worker
  died more often than the cluster's ``allowed-failures`` is recorded as
  failed with Dask's error.
* A result computed by a different satcp version (a Dask worker with another
  install) is recorded as failed: its numbers would not match the key.
"""

from __future__ import annotations

import collections
import concurrent.futures as cf
import multiprocessing
import os
import time
from concurrent.futures.process import BrokenProcessPool
from dataclasses import dataclass, field
from typing import Callable, Iterable, Iterator, Protocol

from . import _core
from .store import Store, StoreUnwritable
from .sweep import Run, Sweep, check, expand
from .worker import Outcome, Task, run_chunk, run_task

WORKER_DIED = ("the worker process died while running this run "
               "(killed by a signal, an abort or out of memory)")


COMMIT_EVERY_S = 1.0

# A local worker is handed runs in chunks of about CHUNK_S of work (judged
# from the runs finished so far; one run at first): a task's round trip
# through the pool costs a millisecond or so of the machine's time, which a
# sweep of runs a few milliseconds long would otherwise spend on dispatch.
CHUNK_S = 0.1
MAX_CHUNK = 256
QUEUED_CHUNKS = 4  # a worker's chunks queued or running at once


class Pool(Protocol):
    """Where runs execute. ``results`` yields outcomes in completion order,
    and None whenever ``idle_s`` passes with none (None: it never does)."""

    description: str
    slots: int  # runs that can execute at once

    def results(self, tasks: Iterable[Task], idle_s: float | None = None) -> Iterator[Outcome | None]: ...

    def running(self) -> int: ...

    def close(self) -> None: ...


class LocalPool:
    """A process pool on this machine (``workers`` processes)."""

    def __init__(self, workers: int | None = None, fn: Callable[[Task], Outcome] = run_task):
        self.workers = self.slots = max(1, workers or os.cpu_count() or 1)
        self.fn = fn
        self.description = f"{self.workers} local worker{'s' if self.workers != 1 else ''}"
        self._pool: cf.ProcessPoolExecutor | None = None
        self._in_flight: dict[cf.Future, list[Task]] = {}
        self.chunk = 1  # runs handed over at once (see CHUNK_S)

    def _new_pool(self) -> cf.ProcessPoolExecutor:
        return cf.ProcessPoolExecutor(self.workers, mp_context=multiprocessing.get_context("spawn"))

    def running(self) -> int:
        return min(sum(map(len, self._in_flight.values())), self.workers)

    def _learn(self, outs: list[Outcome]) -> None:
        """Size the next chunks from how long these runs took."""
        took = [o["wall_s"] for o in outs if o.get("wall_s")]
        if took:
            per_run = sum(took) / len(took)
            self.chunk = max(1, min(MAX_CHUNK, int(CHUNK_S / max(per_run, 1e-6))))

    def results(self, tasks: Iterable[Task], idle_s: float | None = None) -> Iterator[Outcome | None]:
        pending = collections.deque(tasks)
        suspects: collections.deque[Task] = collections.deque()  # in flight when a worker died
        self._pool = self._new_pool()
        while pending or suspects or self._in_flight:
            # Suspects run alone, before anything else, until each is cleared or convicted.
            solo = suspects[0] if suspects else None
            queue, limit = (suspects, 1) if solo is not None else (pending, QUEUED_CHUNKS * self.workers)
            # never more per chunk than keeps every worker busy to the end
            size = 1 if solo is not None else max(1, min(self.chunk, len(queue) // (2 * self.workers)))
            broken_at_submit = False
            while queue and len(self._in_flight) < limit:
                chunk = [queue[i] for i in range(min(size, len(queue)))]
                try:
                    fut = self._pool.submit(run_chunk, self.fn, chunk)
                except BrokenProcessPool:  # a worker died since the last wait
                    broken_at_submit = True
                    break
                for _ in chunk:
                    queue.popleft()
                self._in_flight[fut] = chunk
            done = set()
            if self._in_flight:
                done, _ = cf.wait(self._in_flight, timeout=idle_s, return_when=cf.FIRST_COMPLETED)
                if not done:
                    yield None
                    continue
            broken: list[Task] = []
            for fut in done:
                chunk = self._in_flight.pop(fut)
                try:
                    outs = fut.result()
                except BrokenProcessPool:
                    broken += chunk
                    continue
                self._learn(outs)
                yield from outs
            if not (broken or broken_at_submit):
                continue
            lost = broken + [t for chunk in self._in_flight.values() for t in chunk]
            self._in_flight.clear()
            self._pool.shutdown(wait=True, cancel_futures=True)
            self._pool = self._new_pool()
            if solo is not None and broken == [solo]:
                yield {"key": solo["key"], "status": "failed", "error": WORKER_DIED,
                       "summary_json": None, "satcp_version": _core.version(), "wall_s": None}
            else:
                suspects.extend(lost)
        self._pool.shutdown(wait=True)  # every run is done: the workers exit
        self._pool = None

    def close(self) -> None:
        if self._pool is not None:
            self._pool.shutdown(wait=False, cancel_futures=True)
            self._pool = None
        self._in_flight.clear()


class DaskPool:
    """An existing dask.distributed cluster, reached at ``address``
    (``tcp://host:port`` of its scheduler)."""

    def __init__(self, address: str, fn: Callable[[Task], Outcome] = run_task, timeout_s: float = 60):
        from distributed import Client

        self.client = Client(address, timeout=f"{timeout_s}s")
        try:
            self.client.wait_for_workers(1, timeout=timeout_s)
        except TimeoutError:
            self.client.close()
            raise RuntimeError(f"no Dask worker joined {address} within {timeout_s:g} s") from None
        self.fn = fn
        self.slots = sum(w.get("nthreads", 1) for w in self.client.scheduler_info()["workers"].values())
        self.description = f"Dask at {address} ({self.slots} worker thread{'s' if self.slots != 1 else ''})"
        self._left = 0

    def running(self) -> int:
        return min(self._left, self.slots)

    def results(self, tasks: Iterable[Task], idle_s: float | None = None) -> Iterator[Outcome | None]:
        from distributed import as_completed

        version = _core.version()
        futures = {}
        for t in tasks:
            f = self.client.submit(self.fn, t, key=f"satcp-{version}-{t['key']}", pure=False)
            futures[f] = t
        self._left = len(futures)
        done = as_completed(futures)
        while not done.is_empty():
            if idle_s is not None:
                quiet_since = time.perf_counter()
                while not done.has_ready() and time.perf_counter() - quiet_since < idle_s:
                    time.sleep(0.01)
                if not done.has_ready():
                    yield None
                    continue
            fut = next(done)
            t = futures.pop(fut)
            self._left -= 1
            try:
                out = fut.result()
            except Exception as e:  # noqa: BLE001 - KilledWorker, CancelledError, ...
                out = {"key": t["key"], "status": "failed", "error": f"{type(e).__name__}: {e}",
                       "summary_json": None, "satcp_version": version, "wall_s": None}
            fut.release()
            yield out

    def close(self) -> None:
        self.client.close()


# --------------------------------------------------------------------------
# the sweep loop

class Listener(Protocol):
    def start(self, sweep_name: str, total: int, stored: int, todo: int, pool: Pool) -> None: ...

    def finished(self, run: Run, outcome: Outcome) -> None: ...

    def close(self) -> None: ...


@dataclass
class SweepReport:
    total: int
    already_stored: int
    ran: int = 0
    ok: int = 0
    failed: int = 0
    wall_s: float = 0.0
    failed_keys: list[str] = field(default_factory=list)
    failed_in_store: int = 0  # runs of this sweep stored as failed, from this or an earlier session


def execute_runs(runs: list[Run], store: Store, pool: Pool, listener: Listener | None = None,
                 sweep_name: str = "", total: int | None = None, wall_limit_s: float | None = None) -> SweepReport:
    """Run every run of ``runs`` not in the store yet; commit the outcomes
    as they arrive, in batches (see the module doc; ``listener.finished``
    hears of a run once it is committed). Runs are not validated here (see
    :func:`run_sweep`). A run that takes more than ``wall_limit_s`` of wall
    time is stopped and stored as failed, saying so."""
    version = _core.version()
    stored = store.stored()
    todo: dict[str, Run] = {}
    for r in runs:
        if r.key not in stored and r.key not in todo:
            todo[r.key] = r
    total = len(runs) if total is None else total
    report = SweepReport(total=total, already_stored=total - len(todo))
    if listener:
        listener.start(sweep_name, total, report.already_stored, len(todo), pool)
    t0 = time.perf_counter()
    tasks = ({"key": r.key, "wall_limit_s": wall_limit_s,
              **({"template_json": r.template_json, "seed": r.seed} if r.template_json else {"scenario_json": r.scenario_json})}
             for r in todo.values())
    batch: list[tuple[Run, str, Outcome]] = []
    oldest = 0.0  # when the oldest result of `batch` arrived

    def committed(run: Run, out: Outcome) -> None:
        report.ran += 1
        if out["status"] == "ok":
            report.ok += 1
        else:
            report.failed += 1
            report.failed_keys.append(run.key)
        if listener:
            listener.finished(run, out)

    def commit() -> None:
        if not batch:
            return
        done = list(batch)
        batch.clear()  # a batch the store refuses is not offered again
        try:
            store.commit_runs(done)
        except StoreUnwritable:
            if len(done) == 1:
                raise
            # the batch did not fit (a full disk): keep as many runs as
            # fit, one at a time, up to the first that does not
            for item in done:
                store.commit_runs([item])
                committed(item[0], item[2])
            return
        for run, _, out in done:
            committed(run, out)

    with store.committing_sweep():
        try:
            for out in pool.results(tasks, idle_s=COMMIT_EVERY_S):
                if out is not None:
                    run = todo[out["key"]]
                    if out["status"] == "ok" and out.get("satcp_version") != version:
                        out = dict(out, status="failed", summary_json=None,
                                   error=f"computed by satcp {out.get('satcp_version')}, this sweep needs {version}")
                    if not batch:
                        oldest = time.perf_counter()
                    batch.append((run, version, out))
                # a heartbeat (None) says the pool was quiet for a second
                if batch and (out is None or time.perf_counter() - oldest >= COMMIT_EVERY_S):
                    commit()
        finally:
            commit()  # what finished, also when interrupted
    report.wall_s = time.perf_counter() - t0
    final = store.stored()
    report.failed_in_store = sum(final.get(r.key) == "failed" for r in runs)
    return report


def run_sweep(sweep: Sweep, store: Store, pool: Pool, listener: Listener | None = None,
              retry_failed: bool = False, wall_limit_s: float | None = None) -> SweepReport:
    """Check the sweep, expand it, and run what the store does not hold."""
    check(sweep)
    runs = expand(sweep)
    if retry_failed:
        stored = store.stored()
        store.forget(r.key for r in runs if stored.get(r.key) == "failed")
    store.register_sweep(sweep)
    return execute_runs(runs, store, pool, listener, sweep.name, wall_limit_s=wall_limit_s)
