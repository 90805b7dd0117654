"""Sweep files: a base scenario, factors with levels, replications.

A sweep file is TOML::

    base = "../scenarios/geo_bent_pipe.toml"   # relative to this file; or an inline [base] table
    replications = 4
    seed = 1                                   # default: the base scenario's run.seed, else 1
    common_random_numbers = true
    label = "geo-ber"                          # default: the file name without .toml
    metrics = ["completion_s", "goodput_bps"]  # flow fields `satcp results` shows

    [factors]
    "flows.download.tcp.variant" = ["newreno", "sack"]
    "links.1.errors_ab.ber" = [1e-7, 1e-6, 1e-5]

Expansion is the full factorial: every combination of levels (a *cell*),
each run ``replications`` times. A factor path uses the `--set` syntax of
``satcp run``, applied by the engine itself (``satcp._core.apply_overrides``):
on an array a numeric segment is a 0-based index and any other segment
selects the element whose ``name`` is that segment; missing table keys are
created (so a misspelt key reaches validation and is reported there).
Levels keep their TOML type, so ``[1e-7, 1e-6]`` are floats and
``[{ ber = 1e-7 }]`` are tables.

Seeds. Replication ``r`` (0-based) of a cell runs with ``run.seed`` =
``seed + r`` when ``common_random_numbers`` is true, so every cell sees the
same random streams in replication ``r`` (variants face the same error
pattern and their difference has less noise). When it is false the seed is
the first 63 bits of sha256(seed, cell, r): independent streams per cell,
stable when levels are added or factors reordered.

Choices:
* ``run.seed`` cannot be a factor: replications own it.
* Two factors where one path lies inside the other (``links.1.errors_ab``
  and ``links.1.errors_ab.ber``) are refused: the result would depend on the
  order they are applied in.
* Repeated levels of one factor are refused (they would be the same runs).
* The resolved scenario keeps the base file's key order: the order of
  ``[nodes]`` is meaningful (node indices), so keys are never sorted. Its
  canonical JSON (compact, key order as resolved) is what the run key
  hashes, so reordering a base file's keys gives new keys.
* Everything is checked before anything runs: the sweep file's keys and
  types, every factor path, and every cell's scenario through
  ``satcp.validate``; a bad level is reported with its factor path.
"""

from __future__ import annotations

import hashlib
import itertools
import json
import math
import tomllib
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from . import _core
from .engine import ScenarioError, apply_overrides, validate
from .shards import SEED_MARK

SWEEP_KEYS = ("base", "factors", "replications", "seed", "common_random_numbers", "metrics", "label")
SEED_MAX = 2**63 - 1  # run.seed is an i64 >= 0 in the engine


class SweepError(ValueError):
    """A sweep that cannot run: ``path`` is the sweep-file field (or the factor
    path and level), ``value`` the offending value, ``allowed`` what would be
    accepted. Nothing has run when it is raised."""

    def __init__(self, path: str, value: str, allowed: str, detail: str = ""):
        self.path = path
        self.value = value
        self.allowed = allowed
        msg = f"{path}: {allowed}"
        if value:
            msg = f"{path} = {value}: {allowed}"
        if detail:
            msg += f" ({detail})"
        super().__init__(msg)


def canonical_json(obj: Any) -> str:
    """Compact JSON with the dict order as given; NaN/inf refused."""
    return json.dumps(obj, separators=(",", ":"), ensure_ascii=False, allow_nan=False)


def _show(v: Any) -> str:
    try:
        return canonical_json(v)
    except (TypeError, ValueError):
        return repr(v)


@dataclass(frozen=True)
class Factor:
    path: str
    levels: tuple[Any, ...]


@dataclass
class Sweep:
    """A parsed, checked sweep file (see the module doc)."""

    name: str
    base: dict[str, Any]
    factors: list[Factor]
    replications: int
    seed: int
    common_random_numbers: bool
    metrics: list[str] = field(default_factory=list)
    source: str = ""  # the sweep file's path, or "" for one built in Python

    @property
    def cells(self) -> list[dict[str, Any]]:
        """Every combination of levels, factor order as in the file, the last
        factor varying fastest."""
        combos = itertools.product(*(f.levels for f in self.factors))
        return [dict(zip((f.path for f in self.factors), c)) for c in combos]

    def definition_json(self) -> str:
        return canonical_json({
            "base": self.base,
            "factors": {f.path: list(f.levels) for f in self.factors},
            "replications": self.replications,
            "seed": self.seed,
            "common_random_numbers": self.common_random_numbers,
            "metrics": self.metrics,
        })


@dataclass(frozen=True)
class Run:
    """One run of a sweep: a cell, a replication, its seed and the resolved
    scenario. ``key`` = sha256 of (scenario, seed, satcp version)."""

    key: str
    sweep: str
    cell: dict[str, Any]
    replication: int
    seed: int
    scenario_json: str
    # the cell's scenario with a placeholder seed, which a worker parses
    # once for all the cell's replications (None: parse scenario_json)
    template_json: str | None = field(default=None, repr=False, compare=False)

    @property
    def cell_json(self) -> str:
        return canonical_json(self.cell)


# --------------------------------------------------------------------------
# reading the file

def load_sweep(path: str | Path) -> Sweep:
    """Read and check a sweep file (not yet its scenarios: see :func:`check`)."""
    p = Path(path)
    if not p.is_file():
        raise SweepError(str(p), "", "sweep file not found")
    try:
        doc = tomllib.loads(p.read_text(encoding="utf-8"))
    except tomllib.TOMLDecodeError as e:
        raise SweepError(str(p), "", f"malformed TOML: {e}") from None
    return from_dict(doc, base_dir=p.parent, default_name=p.stem, source=str(p))


def from_dict(doc: dict[str, Any], base_dir: Path = Path("."), default_name: str = "sweep",
              source: str = "") -> Sweep:
    """Check a sweep given as a dict (the TOML file's structure)."""
    unknown = [k for k in doc if k not in SWEEP_KEYS]
    if unknown:
        raise SweepError(unknown[0], _show(doc[unknown[0]]),
                         "unknown key; allowed: " + ", ".join(SWEEP_KEYS))
    base = _base(doc.get("base"), base_dir)
    factors = _factors(doc.get("factors", {}))

    reps = doc.get("replications", 1)
    if isinstance(reps, bool) or not isinstance(reps, int) or reps < 1:
        raise SweepError("replications", _show(reps), "an integer >= 1")

    seed = doc.get("seed")
    if seed is None:
        run = base.get("run") if isinstance(base.get("run"), dict) else {}
        seed = run.get("seed", 1)
    if isinstance(seed, bool) or not isinstance(seed, int) or not 0 <= seed <= SEED_MAX:
        raise SweepError("seed", _show(seed), f"an integer in 0..={SEED_MAX}")
    crn = doc.get("common_random_numbers", True)
    if not isinstance(crn, bool):
        raise SweepError("common_random_numbers", _show(crn), "true or false")
    if crn and seed + reps - 1 > SEED_MAX:
        raise SweepError("seed", _show(seed), f"seed + replications - 1 <= {SEED_MAX}")

    metrics = doc.get("metrics", [])
    if not isinstance(metrics, list) or not all(isinstance(m, str) and m for m in metrics):
        raise SweepError("metrics", _show(metrics), "a list of flow summary field names, e.g. "
                         '["completion_s", "goodput_bps"]')

    name = doc.get("label", default_name)
    if not isinstance(name, str) or not name.strip():
        raise SweepError("label", _show(name), "a non-empty string")
    return Sweep(name=name, base=base, factors=factors, replications=reps, seed=seed,
                 common_random_numbers=crn, metrics=list(metrics), source=source)


def _base(v: Any, base_dir: Path) -> dict[str, Any]:
    allowed = 'a scenario file path relative to the sweep file (base = "x.toml") or an inline [base] table'
    if v is None:
        raise SweepError("base", "", "missing; expected " + allowed)
    if isinstance(v, dict):
        return v
    if not isinstance(v, str):
        raise SweepError("base", _show(v), allowed)
    p = base_dir / v
    if not p.is_file():
        raise SweepError("base", _show(v), "scenario file not found", f"looked for {p}")
    text = p.read_text(encoding="utf-8")
    try:
        if p.suffix.lower() == ".json":
            doc = json.loads(text)
        else:
            doc = tomllib.loads(text)
    except (tomllib.TOMLDecodeError, json.JSONDecodeError) as e:
        raise SweepError("base", _show(v), f"a readable scenario file ({e})") from None
    if not isinstance(doc, dict):
        raise SweepError("base", _show(v), "a scenario file holding a table")
    _check_json_values(doc, "base")
    return doc


def _check_json_values(v: Any, path: str) -> None:
    """Levels and base values must survive JSON (no TOML dates, no NaN)."""
    if isinstance(v, dict):
        for k, x in v.items():
            _check_json_values(x, f"{path}.{k}")
    elif isinstance(v, list):
        for i, x in enumerate(v):
            _check_json_values(x, f"{path}.{i}")
    elif isinstance(v, float) and not math.isfinite(v):
        raise SweepError(path, repr(v), "a finite number")
    elif isinstance(v, int) and not isinstance(v, bool) and not -(2**63) <= v < 2**63:
        raise SweepError(path, repr(v), "an integer that fits in 64 bits")
    elif not isinstance(v, (str, int, float, bool)):
        raise SweepError(path, repr(v), "a string, number, boolean, array or table (no dates)")


def _factors(v: Any) -> list[Factor]:
    if not isinstance(v, dict):
        raise SweepError("factors", _show(v), 'a table of dotted scenario paths to lists of levels, '
                         'e.g. "flows.download.tcp.variant" = ["newreno", "sack"]')
    flat: list[tuple[str, Any]] = []

    def walk(prefix: str, t: dict[str, Any]) -> None:
        for k, x in t.items():
            path = f"{prefix}.{k}" if prefix else k
            if isinstance(x, dict):  # unquoted dotted keys make nested tables
                walk(path, x)
            else:
                flat.append((path, x))

    walk("", v)
    factors = []
    for path, levels in flat:
        where = f"factors.{path}"
        if any(not s for s in path.split(".")) or "=" in path:
            raise SweepError(where, _show(levels), "a dotted path of non-empty keys (no '=')")
        if not isinstance(levels, list):
            raise SweepError(where, _show(levels), "a list of levels, e.g. [1e-7, 1e-6]")
        if not levels:
            raise SweepError(where, "[]", "at least one level")
        _check_json_values(levels, where)
        shown = [canonical_json(x) for x in levels]
        dup = next((s for i, s in enumerate(shown) if s in shown[:i]), None)
        if dup is not None:
            raise SweepError(where, dup, "levels must differ (this one is repeated)")
        if path == "run.seed" or path.startswith("run.seed.") or path == "run":
            raise SweepError(where, _show(levels), "run.seed is set by seed/replications, not a factor")
        factors.append(Factor(path, tuple(levels)))
    for a, b in itertools.permutations(factors, 2):
        if b.path.startswith(a.path + "."):
            raise SweepError(f"factors.{b.path}", "", f"lies inside factor {a.path}; one of them must go")
    return factors


# --------------------------------------------------------------------------
# resolving levels into a scenario tree

def toml_value(v: Any) -> str:
    """A JSON value written as the TOML literal a ``--set`` value is read as
    (``"sack"``, ``1e-07``, ``{ "ber" = 1e-07 }``), so that the engine reads
    back exactly ``v``: strings always quoted, never left to the
    not-TOML-so-a-string fallback."""
    if isinstance(v, bool):
        return "true" if v else "false"
    if isinstance(v, int):
        if not -(2**63) <= v < 2**63:
            raise ValueError(f"{v}: TOML integers are 64-bit")
        return str(v)
    if isinstance(v, float):
        return repr(v)
    if isinstance(v, str):
        return _toml_string(v)
    if isinstance(v, dict):
        return "{" + ", ".join(f"{_toml_string(k)} = {toml_value(x)}" for k, x in v.items()) + "}"
    if isinstance(v, list):
        return "[" + ", ".join(toml_value(x) for x in v) + "]"
    raise TypeError(f"no TOML form for {type(v).__name__}: {v!r}")


def _toml_string(s: str) -> str:
    # TOML basic string: escape the quote, the backslash and control characters.
    out = []
    for ch in s:
        if ch in '"\\':
            out.append("\\" + ch)
        elif ord(ch) < 0x20 or ord(ch) == 0x7F:
            out.append(f"\\u{ord(ch):04X}")
        else:
            out.append(ch)
    return '"' + "".join(out) + '"'


def set_levels(tree: dict[str, Any], levels: dict[str, Any]) -> dict[str, Any]:
    """A copy of ``tree`` with each level at its dotted path, placed by the
    engine's ``--set`` rules (one implementation: the Rust one). Raises
    :class:`satcp.ScenarioError` for a path that does not resolve."""
    return apply_overrides(tree, [f"{path}={toml_value(v)}" for path, v in levels.items()])


def resolve(sweep: Sweep, cell: dict[str, Any], seed: int) -> dict[str, Any]:
    """The base scenario with ``cell``'s levels and ``run.seed = seed``."""
    run = sweep.base.get("run", {})
    if not isinstance(run, dict):
        raise SweepError("base.run", _show(run), "a table (the sweep sets run.seed)")
    try:
        return set_levels(sweep.base, {**cell, "run.seed": seed})
    except ScenarioError:
        raise _unresolved(sweep, cell) from None


def _unresolved(sweep: Sweep, cell: dict[str, Any]) -> SweepError:
    """The first factor whose path does not resolve in the base."""
    for path, level in cell.items():
        try:
            set_levels(sweep.base, {path: level})
        except ScenarioError as e:
            return SweepError(f"factors.{path}", _show(level), f"{e.path}: {e.allowed}")
    # each resolves alone, so together one resolves into another's level
    return SweepError("factors", canonical_json(cell), "these levels do not resolve together")


def run_seed(sweep: Sweep, cell: dict[str, Any], replication: int) -> int:
    if sweep.common_random_numbers:
        return sweep.seed + replication
    h = hashlib.sha256(canonical_json([sweep.seed, cell, replication]).encode()).digest()
    return int.from_bytes(h[:8], "big") & SEED_MAX


def run_key(scenario_json: str, seed: int, version: str) -> str:
    return hashlib.sha256(canonical_json([scenario_json, seed, version]).encode()).hexdigest()


def expand(sweep: Sweep, version: str | None = None) -> list[Run]:
    """Every run of the sweep: cells in factorial order, replications inside."""
    if version is None:
        version = _core.version()
    runs = []
    for cell in sweep.cells:
        seeds = [run_seed(sweep, cell, r) for r in range(sweep.replications)]
        texts, template = cell_scenarios(sweep, cell, seeds)
        for r, (seed, sj) in enumerate(zip(seeds, texts)):
            runs.append(Run(run_key(sj, seed, version), sweep.name, cell, r, seed, sj, template))
    return runs


# A seed no scenario holds by chance (19 digits): the cell is resolved once
# with it and each replication's seed written in its place (also by a
# worker writing a shard's runs rows, satcp.shards).
_SEED_MARK = SEED_MARK  # SEED_MAX - 8,675,309


def cell_scenarios(sweep: Sweep, cell: dict[str, Any], seeds: list[int]) -> tuple[list[str], str | None]:
    """The canonical JSON of ``cell``'s scenario at each of ``seeds``, as
    ``canonical_json(resolve(sweep, cell, seed))`` gives it, and the cell's
    template (its scenario with the placeholder seed, which workers parse
    once: `_core.run(template, ..., seed=...)`), or None. Replications
    differ only in ``run.seed``, so the cell is resolved once (through the
    engine, a quarter of a millisecond) and the seed written into its text;
    a base that holds ``"seed": <marker>`` elsewhere is resolved seed by
    seed, without a template."""
    text = canonical_json(resolve(sweep, cell, _SEED_MARK))
    token = f'"seed":{_SEED_MARK}'
    if len(seeds) < 2 or text.count(token) != 1:
        return [canonical_json(resolve(sweep, cell, s)) for s in seeds], None
    head, tail = text.split(token)
    return [f'{head}"seed":{s}{tail}' for s in seeds], text


def check(sweep: Sweep) -> None:
    """Validate the base scenario and every cell with satcp before anything
    runs. A problem in a cell is reported with the factor whose level caused
    it (or every level of the cell when the engine's path names none)."""
    try:
        validate(resolve(sweep, {}, sweep.seed))
    except ScenarioError as e:
        raise SweepError("base", "", f"the base scenario is invalid: {e}") from None
    for cell in sweep.cells:
        try:
            validate(resolve(sweep, cell, sweep.seed))
        except ScenarioError as e:
            raise _blame(sweep, cell, e) from None


def _blame(sweep: Sweep, cell: dict[str, Any], e: Any) -> SweepError:
    """The factor whose level made ``cell`` invalid: the one the engine's
    error path names, else the first whose level alone makes the base
    invalid, else the combination."""
    err_path = e.path or ""
    for fpath, level in cell.items():
        if err_path == fpath or err_path.startswith(fpath + ".") or fpath.startswith(err_path + "."):
            return SweepError(f"factors.{fpath}", _show(level), str(e))
    for fpath, level in cell.items():
        try:
            validate(resolve(sweep, {fpath: level}, sweep.seed))
        except ScenarioError as alone:
            return SweepError(f"factors.{fpath}", _show(level), str(alone))
    return SweepError("factors", canonical_json(cell), f"this combination of levels is invalid: {e}")
