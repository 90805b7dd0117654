"""Running a sweep's runs: a local process pool or a Dask cluster; the
results reach the store as Parquet shards the workers write and the parent
merges (or, without shards, as rows the parent inserts).

Workers compute and, for a sweep, write: :func:`satcp.worker.run_chunk`
runs a batch of tasks (a run's scenario JSON, or its cell's template and
seed) and writes the batch's rows as one Parquet shard
(:mod:`satcp.shards`), returning small receipts. The parent process is the
only writer of the store (DuckDB has one writer): it merges the shards it
is told of in one transaction once the oldest unmerged result is
``COMMIT_EVERY_S`` (1 s) old, when the pool has been quiet that long, and
when the sweep ends or is interrupted; DuckDB reads the files, so the
parent's cost per run is a receipt, not a run's rows. A kill loses the runs
in flight (a batch counts as in flight from when it is queued until its
shard is written), never a finished batch: the next sweep on the store
merges the shards it finds first, and the runs missing are run again.

Choices:
* Local runs use processes, not threads. The engine releases the GIL, but a
  process keeps a crash (abort, segfault, out of memory) away from the parent
  and from the store. Processes are started with ``spawn`` so that no DuckDB
  or Dask thread of the parent is forked half-way.
* Local runs go to the workers in chunks of about ``CHUNK_S`` (0.5 s) of
  work each, sized from the runs finished so far (or ``batch`` runs each):
  per-run dispatch cost a sweep of millisecond runs more than the runs
  themselves, and a chunk is a shard, which costs the merge per file. At
  most ``4 x workers`` chunks are queued in the pool at once (2 s of work
  a worker), so a worker does not wait while the parent merges; an
  interrupted sweep throws that much queued work away (a finished chunk
  is in its shard).
* Runs of a sweep cell that differ only in their seed go to the workers as
  the cell's template and the seed: a worker parses a template once for all
  its replications (`_core.run(..., seed=...)`).
* A worker that dies takes the pool down with every queued run (every run
  of every chunk in flight). Those runs are run again one at a time in a
  fresh pool; the one that kills its worker again alone is recorded as
  failed and the sweep goes on. A chunk that finished (its shard written)
  just as the pool broke is merged at the end of the sweep.
* On Dask, runs go in batches, one task a batch, of about ``DASK_BATCH_S``
  (1 s) of work (Dask costs about a millisecond a task), sized from the
  runs finished so far, or ``batch`` runs each; at most ``4 x`` the
  cluster's worker threads batches are submitted at once, each under a key
  derived from its runs' keys. A batch that fails (its worker died more
  often than the cluster's ``allowed-failures``) is run again one run a
  task, and the run that fails alone is recorded as failed with Dask's
  error. ``--scheduler slurm`` (or ``pbs``, ``sge``, ``lsf``, ``htcondor``,
  ``oar``, ``moab``) starts a dask-jobqueue cluster for the sweep
  (:func:`jobqueue_cluster`; docs/sweeps.md has a Slurm example).
* A result computed by a different satcp version (a Dask worker with another
  install) is recorded as failed: its numbers would not match the key.
"""

from __future__ import annotations

import collections
import concurrent.futures as cf
import hashlib
import multiprocessing
import os
import time
from concurrent.futures.process import BrokenProcessPool
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, Callable, Iterable, Iterator, Protocol

from . import _core
from .shards import clear_unfinished, complete, discard, place, remove_if_empty, shard_dir, version_mismatch
from .store import Store, StoreUnwritable
from .sweep import Run, Sweep, canonical_json, check, expand
from .worker import Outcome, Task, run_chunk, run_task

WORKER_DIED = ("the worker process died while running this run "
               "(killed by a signal, an abort or out of memory)")


COMMIT_EVERY_S = 1.0

# A local worker is handed runs in chunks of about CHUNK_S of work (judged
# from the runs finished so far; one run at first): a task's round trip
# through the pool costs a millisecond or so of the machine's time, which a
# sweep of runs a few milliseconds long would otherwise spend on dispatch,
# and each chunk is one shard, whose files cost DuckDB's merge more the
# fewer runs they hold (0.22 ms a run of the parent's CPU at 40 runs a
# shard, 0.14 at 200: 2.4 ms runs of 20 flows, 0.1 and 0.5 s a chunk).
CHUNK_S = 0.5
MAX_CHUNK = 256
MAX_BATCH = 4096  # runs a Dask task at most
QUEUED_CHUNKS = 4  # a worker's chunks queued or running at once


class Pool(Protocol):
    """Where runs execute. ``results`` yields outcomes in completion order,
    and None whenever ``idle_s`` passes with none (None: it never does)."""

    description: str
    slots: int  # runs that can execute at once
    shard_dir: str | None  # where workers write shards (None: the store's shard directory)
    writes_shards: bool  # workers write shards themselves (else they hand them back)

    def results(self, tasks: Iterable[Task], idle_s: float | None = None) -> Iterator[Outcome | None]: ...

    def running(self) -> int: ...

    def close(self) -> None: ...


class LocalPool:
    """A process pool on this machine (``workers`` processes)."""

    shard_dir = None  # the store's
    writes_shards = True  # the workers see the parent's disk

    def __init__(self, workers: int | None = None, fn: Callable[[Task], Outcome] = run_task, batch: int | None = None):
        self.workers = self.slots = max(1, workers or os.cpu_count() or 1)
        self.fn = fn
        self.description = f"{self.workers} local worker{'s' if self.workers != 1 else ''}"
        self._pool: cf.ProcessPoolExecutor | None = None
        self._in_flight: dict[cf.Future, list[Task]] = {}
        self.batch = batch
        self.chunk = batch or 1  # runs handed over at once (see CHUNK_S)

    def _new_pool(self) -> cf.ProcessPoolExecutor:
        return cf.ProcessPoolExecutor(self.workers, mp_context=multiprocessing.get_context("spawn"))

    def running(self) -> int:
        return min(sum(map(len, self._in_flight.values())), self.workers)

    def _learn(self, outs: list[Outcome]) -> None:
        """Size the next chunks from how long these runs took."""
        took = [o["wall_s"] for o in outs if o.get("wall_s")]
        if took and self.batch is None:
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
            size = 1 if solo is not None else (self.batch or max(1, min(self.chunk, len(queue) // (2 * self.workers))))
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


#: dask-jobqueue's clusters by the name ``--scheduler`` takes
JOBQUEUE_CLUSTERS = {"slurm": "SLURMCluster", "pbs": "PBSCluster", "sge": "SGECluster", "lsf": "LSFCluster",
                     "htcondor": "HTCondorCluster", "oar": "OARCluster", "moab": "MoabCluster"}

# A Dask task is a batch of runs of about DASK_BATCH_S of work (judged from
# the runs finished so far; one run at first): a task costs Dask about a
# millisecond of the scheduler's and the worker's time, and each batch
# writes one shard.
DASK_BATCH_S = 1.0


def jobqueue_cluster(kind: str, workers: int | None) -> Any:
    """A dask-jobqueue cluster of ``kind`` (``slurm``, ``pbs``, ...),
    configured by Dask's configuration (``~/.config/dask/jobqueue.yaml`` or
    ``DASK_JOBQUEUE__SLURM__...``: cores, memory, queue, walltime, ...),
    asked for ``workers`` worker processes (default: one job's worth)."""
    import importlib

    try:
        jq = importlib.import_module("dask_jobqueue")
    except ImportError as e:
        raise ImportError(f"--scheduler {kind} needs dask-jobqueue (pip install dask-jobqueue): {e}") from None
    cluster = getattr(jq, JOBQUEUE_CLUSTERS[kind])()
    if workers:
        cluster.scale(workers)
    else:
        cluster.scale(jobs=1)
    return cluster


class DaskPool:
    """A dask.distributed cluster: an existing one reached at ``address``
    (``tcp://host:port`` of its scheduler), or ``cluster``, one this sweep
    started (a dask-jobqueue cluster, :func:`jobqueue_cluster`; closed with
    the pool, which cancels its jobs). Runs go in batches, one Dask task a
    batch: ``batch`` runs each, or (None) about ``DASK_BATCH_S`` of work.
    Workers hand their shards back to the parent unless ``shard_dir``
    names a directory they share with it, which they write directly."""

    def __init__(self, address: str | None = None, fn: Callable[[Task], Outcome] = run_task, timeout_s: float = 60,
                 batch: int | None = None, cluster: Any = None, shard_dir: str | Path | None = None,
                 expected_workers: int | None = None):
        from distributed import Client

        self.cluster = cluster
        target = cluster if cluster is not None else address
        self.client = Client(target, timeout=f"{timeout_s}s")
        if cluster is None:
            try:
                self.client.wait_for_workers(1, timeout=timeout_s)
            except TimeoutError:
                self.client.close()
                raise RuntimeError(f"no Dask worker joined {address} within {timeout_s:g} s") from None
        self.fn = fn
        self.batch = batch
        self.shard_dir = None if shard_dir is None else str(shard_dir)
        self.writes_shards = shard_dir is not None
        self._expected = expected_workers or 1
        self.slots = self._slots()
        where = f"at {address}" if cluster is None else f"on a {type(cluster).__name__}"
        self.description = f"Dask {where} ({self.slots} worker thread{'s' if self.slots != 1 else ''})"
        self._left = 0
        self.chunk = 1  # runs a batch (see DASK_BATCH_S)

    def _slots(self) -> int:
        # a batch system's workers join as their jobs start: count those asked for until then
        return max(sum(self.client.nthreads().values()), self._expected if self.cluster is not None else 1)

    def running(self) -> int:
        return min(self._left, self.slots)

    def _learn(self, outs: list[Outcome]) -> None:
        took = [o["wall_s"] for o in outs if o.get("wall_s")]
        if took and self.batch is None:
            per_run = sum(took) / len(took)
            self.chunk = max(1, min(MAX_BATCH, int(DASK_BATCH_S / max(per_run, 1e-6))))

    def results(self, tasks: Iterable[Task], idle_s: float | None = None) -> Iterator[Outcome | None]:
        from distributed import as_completed

        version = _core.version()
        pending = collections.deque(tasks)
        solo: collections.deque[Task] = collections.deque()  # runs of a failed batch, one at a time
        self._left = len(pending)
        in_flight: dict[Any, list[Task]] = {}
        done = as_completed()

        def submit() -> None:
            self.slots = self._slots()
            while (pending or solo) and len(in_flight) < QUEUED_CHUNKS * self.slots:
                queue = solo if solo else pending
                size = 1 if queue is solo else (self.batch or max(1, min(self.chunk, len(queue) // (2 * self.slots))))
                chunk = [queue.popleft() for _ in range(min(size, len(queue)))]
                digest = hashlib.sha256("".join(t["key"] for t in chunk).encode()).hexdigest()
                f = self.client.submit(run_chunk, self.fn, chunk, key=f"satcp-{version}-{digest}", pure=False)
                in_flight[f] = chunk
                done.add(f)

        submit()
        while in_flight:
            if idle_s is not None:
                quiet_since = time.perf_counter()
                while not done.has_ready() and time.perf_counter() - quiet_since < idle_s:
                    time.sleep(0.01)
                if not done.has_ready():
                    yield None
                    continue
            fut = next(done)
            chunk = in_flight.pop(fut)
            try:
                outs = fut.result()
            except Exception as e:  # noqa: BLE001 - KilledWorker, CancelledError, ...
                if len(chunk) > 1:  # find the run that failed it: each again alone
                    solo.extend(chunk)
                    fut.release()
                    submit()
                    continue
                outs = [{"key": chunk[0]["key"], "status": "failed", "error": f"{type(e).__name__}: {e}",
                         "summary_json": None, "satcp_version": version, "wall_s": None}]
            fut.release()
            self._left -= len(outs)
            self._learn(outs)
            submit()
            yield from outs

    def close(self) -> None:
        self.client.close()
        if self.cluster is not None:
            self.cluster.close()


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
                 sweep_name: str = "", total: int | None = None, wall_limit_s: float | None = None,
                 shards: bool = True) -> SweepReport:
    """Run every run of ``runs`` not in the store yet; store the outcomes
    as they arrive, in batches (see the module doc; ``listener.finished``
    hears of a run once it is in the store). With ``shards`` the workers
    write their batches' rows as Parquet shards that this process merges
    (:mod:`satcp.shards`); without, they return the rows and this process
    inserts them. Shards left by an interrupted sweep are merged first.
    Runs are not validated here (see :func:`run_sweep`). A run that takes
    more than ``wall_limit_s`` of wall time is stopped and stored as
    failed, saying so."""
    version = _core.version()
    # where the shards go: the store's shard directory unless the pool names one
    sdir = Path(pool.shard_dir).resolve() if pool.shard_dir else shard_dir(store.path).resolve()
    shard_spec = {"version": version, "dir": str(sdir) if pool.writes_shards else None}
    with store.committing_sweep():
        _merge_left_over(store, sdir)
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
    tasks = _tasks(todo.values(), wall_limit_s, shard_spec if shards else None)
    batch: list[tuple[Run, str, Outcome]] = []
    oldest = 0.0  # when the oldest result of `batch` arrived
    merged: set[str] = set()  # shards merged by this sweep

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
        # a chunk's receipts may straddle two commits: its shard is merged with the first
        sharded = sorted({out["shard"] for _, _, out in done if out.get("shard")} - merged)
        if sharded:
            store.merge_shards(sdir, sharded)  # refused: the shards stay for the next sweep
            discard(sdir, sharded)
            merged.update(sharded)
        direct = [item for item in done if not item[2].get("shard")]
        try:
            store.commit_runs(direct)
        except StoreUnwritable:
            if len(direct) == 1:
                raise
            # the batch did not fit (a full disk): keep as many runs as
            # fit, one at a time, up to the first that does not
            for item in direct:
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
                    if out.get("shard_files"):  # a worker's shard, handed back: on disk before anything else
                        place(sdir, out["shard"], out.pop("shard_files"))
                    if out["status"] == "ok" and out.get("satcp_version") != version:
                        out = dict(out, status="failed", summary_json=None,
                                   error=version_mismatch(out.get("satcp_version"), version))
                    if not batch:
                        oldest = time.perf_counter()
                    batch.append((run, version, out))
                # a heartbeat (None) says the pool was quiet for a second
                if batch and (out is None or time.perf_counter() - oldest >= COMMIT_EVERY_S):
                    commit()
        finally:
            commit()  # what finished, also when interrupted
            if shards:
                # batches a broken pool finished without saying so
                _merge_left_over(store, sdir)
    report.wall_s = time.perf_counter() - t0
    final = store.stored()
    report.failed_in_store = sum(final.get(r.key) == "failed" for r in runs)
    return report


def _merge_left_over(store: Store, directory: Path) -> None:
    """Merge (then delete) the whole shards in ``directory``: runs finished
    by an earlier, interrupted sweep, or by a batch whose receipt was lost."""
    clear_unfinished(directory)
    left = complete(directory)
    if left:
        store.merge_shards(directory, left)
        discard(directory, left)
    remove_if_empty(directory)


def _tasks(runs: Iterable[Run], wall_limit_s: float | None, shard_spec: dict | None) -> Iterator[Task]:
    """The workers' tasks: a replication as its cell's template and seed;
    with shards, also the run's place in its sweep and its factors (one
    object a cell, which pickle sends once a chunk)."""
    cells: dict[str, tuple[str, list[tuple[str, str]]]] = {}
    for r in runs:
        t: Task = {"key": r.key, "wall_limit_s": wall_limit_s}
        if r.template_json:
            t["template_json"], t["seed"] = r.template_json, r.seed
        else:
            t["scenario_json"] = r.scenario_json
        if shard_spec is not None:
            cell = r.cell_json
            if cell not in cells:
                cells[cell] = (cell, [(name, canonical_json(v)) for name, v in r.cell.items()])
            cell, factors = cells[cell]
            t["shard"], t["run"], t["factors"] = shard_spec, (r.sweep, cell, r.replication, r.seed), factors
        yield t


def run_sweep(sweep: Sweep, store: Store, pool: Pool, listener: Listener | None = None,
              retry_failed: bool = False, wall_limit_s: float | None = None, shards: bool = True) -> SweepReport:
    """Check the sweep, expand it, and run what the store does not hold."""
    check(sweep)
    runs = expand(sweep)
    if retry_failed:
        stored = store.stored()
        store.forget(r.key for r in runs if stored.get(r.key) == "failed")
    store.register_sweep(sweep)
    return execute_runs(runs, store, pool, listener, sweep.name, wall_limit_s=wall_limit_s, shards=shards)
