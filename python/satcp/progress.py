"""What a sweep shows while it runs.

On a terminal: a rich progress bar on stderr (runs done of those to run,
running now, failed, elapsed, time left), with a line for each failed run.
Otherwise (a pipe, a log file, CI): one line per finished run on stdout,
flushed at once, so a log shows which runs are committed:

    [  3/20] ok      0.215 s  rep 0  seed 1  {"flows.download.tcp.variant":"sack"}  key 1a2b3c4d5e6f

The time left is the mean wall time of a finished run times the runs not yet
finished, divided by the runs in parallel (rich's estimate on a terminal).

A single run (``satcp run --progress``) shows simulated time against wall
time: a bar up to ``run.stop`` on a terminal, else a line every few seconds.
The engine calls back every 65,536 events.
"""

from __future__ import annotations

import sys
import time
from typing import Any, TextIO

from .sweep import Run

KEY_CHARS = 12  # key prefix shown in logs


def _line(run: Run, out: dict[str, Any]) -> str:
    wall = out.get("wall_s")
    wall_s = f"{wall:8.3f} s" if wall is not None else "       - s"
    text = (f"{out['status']:<6} {wall_s}  rep {run.replication}  seed {run.seed}  "
            f"{run.cell_json}  key {run.key[:KEY_CHARS]}")
    if out.get("error"):
        text += f"\n         error: {out['error']}"
    return text


class LineProgress:
    """One line per finished run (for logs and pipes)."""

    def __init__(self, stream: TextIO | None = None):
        self.stream = stream or sys.stdout
        self.todo = 0
        self.done = 0

    def _print(self, text: str) -> None:
        print(text, file=self.stream, flush=True)

    def start(self, sweep_name: str, total: int, stored: int, todo: int, pool: Any) -> None:
        self.todo = todo
        self._print(f"sweep {sweep_name}: {total} runs, {stored} already stored, "
                    f"{todo} to run on {pool.description}")

    def finished(self, run: Run, out: dict[str, Any]) -> None:
        self.done += 1
        w = len(str(self.todo))
        self._print(f"[{self.done:>{w}}/{self.todo}] {_line(run, out)}")

    def close(self) -> None:
        pass


class BarProgress:
    """A rich progress bar on stderr; failed runs are printed above it."""

    def __init__(self) -> None:
        from rich.console import Console
        from rich.progress import (BarColumn, MofNCompleteColumn, Progress, TextColumn,
                                   TimeElapsedColumn, TimeRemainingColumn)

        self.console = Console(stderr=True)
        self.bar = Progress(
            TextColumn("[bold]{task.description}"),
            BarColumn(),
            MofNCompleteColumn(),
            TextColumn("running {task.fields[running]}  failed {task.fields[failed]}"),
            TimeElapsedColumn(),
            TextColumn("left"),
            TimeRemainingColumn(),
            console=self.console,
        )
        self.task = None
        self.pool: Any = None
        self.failed = 0

    def start(self, sweep_name: str, total: int, stored: int, todo: int, pool: Any) -> None:
        self.pool = pool
        self.console.print(f"sweep {sweep_name}: {total} runs, {stored} already stored, "
                           f"{todo} to run on {pool.description}")
        self.bar.start()
        self.task = self.bar.add_task(sweep_name, total=todo, running=min(todo, pool.slots), failed=0)

    def finished(self, run: Run, out: dict[str, Any]) -> None:
        if out["status"] != "ok":
            self.failed += 1
            from rich.markup import escape

            self.bar.console.print(f"[red]failed[/red] {escape(_line(run, out))}", highlight=False)
        self.bar.update(self.task, advance=1, running=self.pool.running(), failed=self.failed)

    def close(self) -> None:
        self.bar.stop()


def make_progress(quiet: bool = False) -> LineProgress | BarProgress | None:
    if quiet:
        return None
    if sys.stderr.isatty():
        return BarProgress()
    return LineProgress()


class RunProgress:
    """Simulated time against wall time for one run; a callable the engine
    calls with the simulated time in seconds."""

    LINE_EVERY_S = 5.0  # wall seconds between two lines when not on a terminal

    def __init__(self, stop_s: float | None, stream: TextIO | None = None):
        self.stop_s = stop_s if stop_s and stop_s > 0 else None
        self.stream = stream or sys.stderr
        self.t0 = time.perf_counter()
        self.last_line = self.t0
        self.sim_s = 0.0
        self.bar = None
        if self.stream.isatty():
            from rich.console import Console
            from rich.progress import BarColumn, Progress, TextColumn, TimeElapsedColumn, TimeRemainingColumn

            self.bar = Progress(
                TextColumn("simulated"), BarColumn(),
                TextColumn("{task.completed:.1f} s" + (f" of {self.stop_s:g} s" if self.stop_s else "")),
                TextColumn("{task.fields[speed]}"), TimeElapsedColumn(), TimeRemainingColumn(),
                console=Console(file=self.stream),
            )
            self.bar.start()
            self.task = self.bar.add_task("run", total=self.stop_s, speed="")

    def _speed(self, wall: float) -> str:
        return f"{self.sim_s / wall:,.0f}x real time" if wall > 0 else ""

    def __call__(self, sim_s: float) -> None:
        self.sim_s = sim_s
        now = time.perf_counter()
        if self.bar is not None:
            self.bar.update(self.task, completed=sim_s, speed=self._speed(now - self.t0))
        elif now - self.last_line >= self.LINE_EVERY_S:
            self.last_line = now
            of = f" of {self.stop_s:g} s" if self.stop_s else ""
            print(f"simulated {sim_s:.1f} s{of} in {now - self.t0:.1f} s wall "
                  f"({self._speed(now - self.t0)})", file=self.stream, flush=True)

    def close(self) -> None:
        if self.bar is not None:
            self.bar.stop()
