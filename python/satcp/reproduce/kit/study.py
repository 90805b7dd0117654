"""What a study is: the record its package exposes, and what its parts
are handed.

A study is a package under ``satcp.reproduce`` exposing ``STUDY``, a
:class:`Study`: its name on the command line, a title, the TCP profile of
the simulator its source used and why, what a cell's replications are,
the options of its own (ADaLR's ``--seeds``), the other simulators it runs
beside ours and its confidence level. Beside it the package has the
modules this record names by convention (``docs/reproduce.md`` has the
checklist):

* ``experiments.catalogue(quick, **options)``: its experiments
  (:mod:`.catalogue`); raises :class:`UsageError` for a bad option;
* ``results.collect(store, planned_runs, experiments)``: the observation
  frame, from the store (:mod:`.data`);
* ``results.analyse(ctx)``: whatever its tables and figures need (its
  statistics, peer runs, re-runs), from a :class:`Context`;
* ``results.claims(analysis)``: its claims, each with a verdict
  (:mod:`.claims`);
* ``report.write(ctx, analysis, claims)``: ``DIR/index.html`` and
  ``DIR/report.md`` (:mod:`.document`), their paths;
* ``report.summary(analysis, claims)``: what the command prints.

``command.reproduce`` runs them in that order for any study. This module
imports nothing heavy: listing the studies (the command's help) loads no
pandas.
"""

from __future__ import annotations

import importlib
import time
from dataclasses import dataclass, field
from pathlib import Path
from types import ModuleType
from typing import TYPE_CHECKING, Any, Callable, TextIO

from ... import _core

if TYPE_CHECKING:
    import pandas as pd

    from ...execute import SweepReport
    from .catalogue import Experiment, Plan

EXIT_USAGE = 2


class UsageError(ValueError):
    """A study's option the study cannot take: the message names the
    option, its value and what is allowed."""


@dataclass(frozen=True)
class Profile:
    """The TCP profile (``tcp.profile``) a study's runs use: the simulator
    its source used, and what that means here."""

    name: str
    why: str


@dataclass(frozen=True)
class Option:
    """An option of one study's own on ``satcp reproduce`` (``--seeds``)."""

    flag: str
    dest: str
    type: Callable[[str], Any]
    metavar: str
    help: str


@dataclass(frozen=True)
class Study:
    name: str  # on the command line: `satcp reproduce NAME`
    title: str  # one line, for the command's help
    profile: Profile
    replications: str  # what a cell's replications are, for messages
    package: str  # the package whose modules are the study's parts
    options: tuple[Option, ...] = ()
    peers: tuple[str, ...] = ()  # other simulators it runs beside ours ("ns-2")
    level: float = 0.95  # the confidence level of its intervals

    def part(self, module: str) -> ModuleType:
        """The study's module ``experiments``, ``results`` or ``report``."""
        return importlib.import_module(f"{self.package}.{module}")


@dataclass
class Setup:
    """What ``satcp reproduce NAME`` resolved from its arguments."""

    chosen: list["Experiment"]
    root: Path
    out: Path
    store: Path


@dataclass
class Outcome:
    """What the runs of a study left: the plan, the runs' account, the
    observations its ``collect`` read."""

    plan: "Plan"
    report: "SweepReport"
    observations: "pd.DataFrame"
    runs: "pd.DataFrame"  # key, status, scenario_json, sim_time_s of the planned runs


@dataclass
class Context:
    """What a study's analysis and report are handed: the command's
    arguments as resolved, the chosen experiments and what ran."""

    study: Study
    quick: bool
    options: dict[str, Any]
    setup: Setup
    outcome: Outcome
    workers: int | None
    only: list[str] | None
    stdout: TextIO
    t0: float = field(default_factory=time.perf_counter)

    @property
    def out(self) -> Path:
        return self.setup.out

    @property
    def root(self) -> Path:
        return self.setup.root

    @property
    def experiments(self) -> list["Experiment"]:
        """The experiments chosen (all, or those of ``--only``)."""
        return self.setup.chosen

    @property
    def observations(self) -> "pd.DataFrame":
        return self.outcome.observations

    @property
    def runs(self) -> "pd.DataFrame":
        """key, status, error, sim_time_s, scenario_json of the planned runs."""
        return self.outcome.runs

    def title(self, text: str) -> str:
        """A report's title, marked when it is the quick form."""
        return text + (" (quick)" if self.quick else "")

    def header(self) -> list[tuple[str, str]]:
        """The rows every report opens with: what ran, with which satcp and
        profile, and how."""
        r = self.outcome.report
        p = self.study.profile
        return [("reproduction", self.study.name + (" --quick" if self.quick else "")),
                ("satcp version", _core.version()), ("TCP profile", f"{p.name}: {p.why}"),
                ("runs", str(r.total)), ("run now", str(r.ran)), ("already in the store", str(r.already_stored)),
                ("failed (in store)", str(r.failed_in_store)), ("run wall time (s)", f"{r.wall_s:.1f}"),
                ("observations", str(len(self.observations))),
                ("confidence level", f"{self.study.level:.0%} (Student t)")]
