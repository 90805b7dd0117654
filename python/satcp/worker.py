"""What a sweep's worker process runs: one run (:func:`run_task`) or a
chunk of them (:func:`run_chunk`), each returning its outcome to the parent.

This module imports nothing but the engine (and, for a sweep's shards,
:mod:`satcp.shards` with pyarrow): a local worker is a fresh
``spawn`` process that imports it to unpickle its task, and pandas, DuckDB
and the rest of the parent's modules cost the worker most of a second at
start (two workers: a second and a half of a 10,000-run sweep's capacity).
"""

from __future__ import annotations

import time
from typing import Any, Callable

from . import _core

Task = dict[str, Any]
Outcome = dict[str, Any]


class WallLimit(Exception):
    """A run went past its wall-clock limit (raised from the progress hook)."""

    def __init__(self, sim_s: float):
        super().__init__(sim_s)
        self.sim_s = sim_s


def run_task(task: Task) -> Outcome:
    """Run one scenario (in a worker). Never raises for a failing run: the
    error comes back as ``status = 'failed'`` with its message. A task with
    ``flow_series`` true also gets the flow time-series columns back (the
    demo draws cwnd traces from its runs instead of running them twice). A
    task with ``wall_limit_s`` is stopped once it has run that long (the
    engine asks every 65,536 events) and reported failed as such. The
    outcome's ``run_cpu_s`` is the CPU time this thread spent in the
    engine's call (the run and its results' conversion to Python objects):
    what a loaded machine does not inflate, where ``wall_s`` is."""
    t0 = time.perf_counter()
    out: Outcome = {"key": task["key"], "status": "ok", "error": None, "summary_json": None,
                    "satcp_version": _core.version()}
    limit = task.get("wall_limit_s")

    def watch(sim_s: float) -> None:
        if time.perf_counter() - t0 > limit:
            raise WallLimit(sim_s)

    c0 = time.thread_time()
    try:
        # the store's rows come flattened (in Rust, from the summary in
        # memory) so that the parent, which writes every run, only appends
        # a sweep's replication comes with its cell's template, whose parse
        # the engine keeps for the next replication of the cell
        if task.get("template_json"):
            raw = _core.run(task["template_json"], "json", [], None, watch if limit else None, True, task["seed"])
        else:
            raw = _core.run(task["scenario_json"], "json", [], None, watch if limit else None, True)
        out["summary_json"] = raw["summary"]
        out["rows"] = raw["store_rows"]
        if task.get("flow_series"):
            out["flow_series"] = raw["flow_series"]
    except _core.ScenarioError as e:
        out["status"], out["error"] = "failed", f"ScenarioError: {e.args[0] if e.args else e}"
    except WallLimit as e:
        out["status"], out["error"] = "failed", (
            f"wall-clock limit: stopped after {limit:g} s of wall time at simulated time {e.sim_s:.3f} s "
            "(a smaller run.stop, or a larger --wall-limit)")
    except (KeyboardInterrupt, SystemExit):
        raise
    except BaseException as e:  # noqa: BLE001 - a Rust panic arrives as PanicException(BaseException)
        out["status"], out["error"] = "failed", f"{type(e).__name__}: {e}"
    out["wall_s"] = time.perf_counter() - t0
    out["run_cpu_s"] = time.thread_time() - c0
    return out


def run_chunk(fn: Callable[[Task], Outcome], tasks: list[Task]) -> list[Outcome]:
    """Run a chunk of tasks in a worker, one after another. Tasks of a
    sweep that stores through shards (``shard`` in the task) come back as
    receipts, their rows written as one Parquet shard (:mod:`satcp.shards`,
    imported then: pyarrow costs a worker a fifth of a second, once)."""
    outs = [fn(t) for t in tasks]
    spec = tasks[0].get("shard") if tasks else None
    if spec is None:
        return outs
    from .shards import write_batch

    return write_batch(spec, tasks, outs)
