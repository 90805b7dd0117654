"""What a sweep shows while it runs.

On a terminal: a rich progress bar on stderr (runs done of those to run,
running now, failed, elapsed, time left), with a line for each failed run.
Otherwise (a pipe, a log file, CI): one line per finished run on stdout,
flushed at once, so a log shows which runs are committed:

    [  3/20] ok      0.215 s  rep 0  seed 1  {"flows.download.tcp.variant":"sack"}  key 1a2b3c4d5e6f

The time left is the mean wall time of a finished run times the runs not yet
finished, divided by the runs in parallel (rich's estimate on a terminal).
"""

from __future__ import annotations

import sys
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
