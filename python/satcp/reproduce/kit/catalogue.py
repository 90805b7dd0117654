"""Experiments of a reproduced paper, written as platform sweeps.

An :class:`Experiment` is what a paper's table or figure group measures: a
base scenario file, fixed settings on top of it, *arms* (the protocol
configurations compared, e.g. one per TCP variant) and *factors* (delayed
ACK on/off, BER, RTT, file size) with a full and a ``--quick`` list of
values. Each arm becomes one :class:`satcp.sweep.Sweep` (the base with the
arm's settings, the factors, the replications), so runs go through the
store, the pool and resume like any ``satcp sweep``.

Choices:
* Arms rather than a variant factor: a variant preset may need more than
  one field (``tcp.variant = "sack"`` with ``tcp.sack = true``), and a sweep
  factor sets one path.
* A factor has a logical value (RTT in ms, BER, bytes) and an ``encode``
  function giving the scenario level, so the report works in the paper's
  units while the store holds scenario values; the recipe lives in one
  function named by the catalogue.
* The reproduction never reads a run's ``sweep``/``cell`` back from the
  store (a run stored first by another sweep keeps that sweep's label): it
  expands its sweeps again and joins on the run key.
"""

from __future__ import annotations

import tomllib
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, Callable

from ... import sweep as sw


def _identity(v: Any) -> Any:
    return v


@dataclass(frozen=True)
class Arm:
    """One compared configuration: ``settings`` are dotted scenario paths
    (``flows.ftp.tcp.variant``) and values; ``flow_variants`` names the TCP
    variant of each flow for per-flow rows (an arm mixing variants)."""

    label: str
    settings: dict[str, Any]
    flow_variants: dict[str, str]


@dataclass(frozen=True)
class Factor:
    """A varied quantity: ``column`` is its name in the results frame
    (``delayed_ack``, ``x``), ``path`` the scenario field, ``values`` the
    full form's logical values, ``quick`` the ``--quick`` form's (a subset),
    ``encode`` the logical value -> scenario level recipe."""

    column: str
    path: str
    values: tuple[Any, ...]
    quick: tuple[Any, ...]
    encode: Callable[[Any], Any] = _identity

    def levels(self, quick: bool) -> tuple[Any, ...]:
        return self.quick if quick else self.values


@dataclass(frozen=True)
class Experiment:
    id: str
    title: str
    base: str  # scenario file, relative to the repository root
    app: str  # "ftp", "http" or "fairness"
    arms: tuple[Arm, ...]
    factors: tuple[Factor, ...]
    settings: dict[str, Any] = field(default_factory=dict)
    replications: int = 1
    quick_replications: int = 1
    tables: tuple[str, ...] = ()  # the paper's tables this experiment reproduces
    figures: tuple[str, ...] = ()
    x_label: str = ""  # meaning of the factor whose column is "x"
    link: str = "satellite"  # the link whose a->b direction is "the satellite link"
    traces: bool = False  # redraw time series of its runs
    seed: int = 1

    def factor(self, column: str) -> Factor | None:
        return next((f for f in self.factors if f.column == column), None)

    def replications_for(self, quick: bool) -> int:
        return self.quick_replications if quick else self.replications


@dataclass(frozen=True)
class PlannedRun:
    """A run of the reproduction with its logical coordinates."""

    experiment: str
    arm: str
    levels: dict[str, Any]  # factor column -> logical value
    run: sw.Run


@dataclass
class Plan:
    """Every sweep of the chosen experiments, their runs, and the arms that
    cannot run (missing scenario file, a setting this build refuses)."""

    sweeps: list[sw.Sweep]
    runs: list[PlannedRun]
    unavailable: dict[tuple[str, str], str]  # (experiment, arm) -> reason


def load_base(root: Path, exp: Experiment) -> dict[str, Any]:
    path = root / exp.base
    if not path.is_file():
        raise FileNotFoundError(f"scenario file {exp.base} not found under {root}")
    return tomllib.loads(path.read_text(encoding="utf-8"))


def build_sweep(exp: Experiment, arm: Arm, base: dict[str, Any], quick: bool) -> sw.Sweep:
    tree = sw.set_levels(base, {**exp.settings, **arm.settings})
    doc = {
        "base": tree,
        "factors": {f.path: [f.encode(v) for v in f.levels(quick)] for f in exp.factors},
        "replications": exp.replications_for(quick),
        "seed": exp.seed,
        "label": f"reproduce:{exp.id}:{arm.label}",
    }
    return sw.from_dict(doc, default_name=doc["label"])


def plan(experiments: list[Experiment], root: Path, quick: bool, validate: bool = True) -> Plan:
    """Expand every arm of every experiment into checked sweeps and runs."""
    out = Plan([], [], {})
    for exp in experiments:
        try:
            base = load_base(root, exp)
        except (FileNotFoundError, tomllib.TOMLDecodeError) as e:
            for arm in exp.arms:
                out.unavailable[(exp.id, arm.label)] = str(e)
            continue
        decode = {f.path: {sw.canonical_json(f.encode(v)): v for v in f.levels(quick)} for f in exp.factors}
        column = {f.path: f.column for f in exp.factors}
        for arm in exp.arms:
            try:
                s = build_sweep(exp, arm, base, quick)
                if validate:
                    sw.check(s)
            except sw.SweepError as e:
                out.unavailable[(exp.id, arm.label)] = str(e)
                continue
            out.sweeps.append(s)
            for r in sw.expand(s):
                levels = {column[p]: decode[p][sw.canonical_json(v)] for p, v in r.cell.items()}
                out.runs.append(PlannedRun(exp.id, arm.label, levels, r))
    return out
