"""Reproductions of published results, and experiments beyond them:
``satcp reproduce NAME``.

A study is a package here exposing ``STUDY`` (:class:`.kit.study.Study`):
its experiments as platform sweeps, its results read from the store, its
source's published numbers and claims (``data/published/``) and a report
that sets our measurements beside them with computed verdicts. What the
studies share is the kit (``kit/``), which depends on none of them.
``docs/reproduce.md`` says how a study is built.

``PACKAGES`` is the one list of studies: the command's help and its name
check, the profiles (:func:`profiles`) and the Makefile's
``reproduce-NAME`` targets all come from it. Adding a study is its package
and one line there.
"""

from __future__ import annotations

import importlib
from pathlib import Path
from typing import Any, TextIO

from ..messages import error
from .kit.study import EXIT_USAGE, Profile, Study

#: Every study's package, in the order the command lists them.
PACKAGES = (
    ".adalr",
    ".transat",
    ".peach",
    ".ceten",
    ".xfwa",
    ".leo_geo",
    ".starlink_trace",
    ".quic_geo",
    ".pep",
)


def studies() -> dict[str, Study]:
    """Every study by its command name, in the order of ``PACKAGES``."""
    out = {}
    for p in PACKAGES:
        s = importlib.import_module(p, __name__).STUDY
        out[s.name] = s
    return out


def profiles() -> dict[str, Profile]:
    """The TCP profile each study declares: the simulator its source used."""
    return {name: s.profile for name, s in studies().items()}


def reproduce(name: str, *, quick: bool = False, out: str | Path | None = None, store: str | Path | None = None,
              workers: int | None = None, only: list[str] | None = None, options: dict[str, Any] | None = None,
              root: Path | None = None, stdout: TextIO | None = None) -> int:
    """``satcp reproduce NAME``: the study of that name
    (:func:`.kit.study.reproduce`); exit status 2 for a name not in the
    list or an option the study does not take (nothing runs)."""
    from .kit.command import reproduce as run_study

    known = studies()
    if name not in known:
        error(f"reproduce {name!r}: unknown study; allowed: {', '.join(known)}")
        return EXIT_USAGE
    study = known[name]
    for dest, value in (options or {}).items():
        if value is None or any(o.dest == dest for o in study.options):
            continue
        owners = [(s.name, o.flag) for s in known.values() for o in s.options if o.dest == dest]
        flag = owners[0][1] if owners else f"--{dest}"
        error(f"{flag}: {study.replications}; {flag} is {' and '.join(n for n, _ in owners) or 'no study'}'s")
        return EXIT_USAGE
    return run_study(study, quick=quick, out=out, store=store, workers=workers, only=only, options=options,
                     root=root, stdout=stdout)
