"""Runs of the other simulators (ns-2, ns-3) beside satcp's: each is a
subprocess, so a thread waits on each, ``workers`` at a time, and the
results come back in the order of the tasks (whatever order they finish
in), so what is built from them does not depend on the scheduling."""

from __future__ import annotations

from concurrent.futures import ThreadPoolExecutor
from typing import Callable, Iterable, TypeVar

T = TypeVar("T")
R = TypeVar("R")


def run_peers(fn: Callable[[T], R], tasks: Iterable[T], workers: int,
              done: Callable[[int, int], None] | None = None) -> list[R]:
    """``fn(task)`` for every task on ``workers`` threads (at least one);
    ``done(k, n)`` after the k-th of n results, in task order."""
    tasks = list(tasks)
    with ThreadPoolExecutor(max_workers=max(1, workers)) as pool:
        futures = [pool.submit(fn, t) for t in tasks]
        out = []
        for k, f in enumerate(futures, 1):
            out.append(f.result())
            if done is not None:
                done(k, len(futures))
    return out
