"""The one command that runs any study: ``satcp reproduce NAME`` once the
name is found in the list (``satcp.reproduce.reproduce``).

The study's parts (:mod:`.study`) in order: its catalogue through the
store and the pool (resuming what an earlier run of the command stored),
then its analysis, claims, report and summary, with the profile line and
the runs' account around the summary.
"""

from __future__ import annotations

import sys
import time
from pathlib import Path
from typing import Any, TextIO

from ...messages import error
from ...paths import ROOT
from . import runner
from .study import EXIT_USAGE, Context, Study, UsageError


def reproduce(study: Study, *, quick: bool = False, out: str | Path | None = None, store: str | Path | None = None,
              workers: int | None = None, only: list[str] | None = None, options: dict[str, Any] | None = None,
              root: Path | None = None, stdout: TextIO | None = None) -> int:
    """Run ``study``: its experiments through the platform, then its
    analysis, report and summary. Exit status: 0 when every experiment ran
    and every run is ok; 1 when an arm could not run or a run failed (both
    listed in the report), or the store is in use; 2 for a bad option or
    experiment name (nothing ran); 130 on Ctrl-C (finished runs are kept:
    run the same command to resume)."""
    t0 = time.perf_counter()
    stdout = stdout or sys.stdout  # as it is now, not when this module was imported
    options = {k: v for k, v in (options or {}).items() if v is not None}
    try:
        catalogue = study.part("experiments").catalogue(quick, **options)
    except UsageError as e:
        error(str(e))
        return EXIT_USAGE
    results, report = study.part("results"), study.part("report")
    started = runner.setup_and_run(study.name, catalogue, quick=quick, out=out, store=store, workers=workers,
                                   only=only, root=root, default_root=ROOT, collect=results.collect)
    if isinstance(started, int):
        return started
    setup, outcome = started
    ctx = Context(study, quick, options, setup, outcome, workers, only, stdout, t0)
    analysis = results.analyse(ctx)
    claims = results.claims(analysis)
    paths = report.write(ctx, analysis, claims)
    print(f"TCP profile: {study.profile.name} ({study.profile.why})", file=stdout)
    print(report.summary(analysis, claims), file=stdout)
    return runner.finish(outcome, setup, paths, t0, stdout)
