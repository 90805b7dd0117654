"""satcp: packet-level simulation of TCP over satellite networks.

    >>> import satcp
    >>> res = satcp.run("scenarios/geo_bent_pipe.toml", set=["run.seed=2"])
    >>> res.flows[["name", "completion_s", "goodput_bps"]]

A scenario is a path to a ``.toml`` (or ``.json``) file, a TOML string (any
string containing a newline), or a dict with the same structure as the TOML
file. ``set`` is a list of ``dotted.path=value`` overrides applied before
validation, e.g. ``["flows.download.tcp.variant=newreno", "run.seed=3"]``.
Nothing runs unless the whole scenario is valid; otherwise
:class:`ScenarioError` is raised.

Sweeps (``satcp sweep FILE``) store their runs in a DuckDB file;
``satcp.load(store)`` returns its flows as a DataFrame (one row per run and
flow, one column per factor); ``satcp.store.Store`` gives every table.
"""

from __future__ import annotations

import errno
import json
import os
from pathlib import Path
from typing import Any, Callable, Iterable, Mapping, Union

from . import _core
from .result import Result

__all__ = ["run", "validate", "load", "scenario_text", "ScenarioError", "Result", "__version__"]

__version__: str = _core.version()

ScenarioLike = Union[str, os.PathLike, Mapping[str, Any]]


class ScenarioError(_core.ScenarioError):
    """A scenario that cannot run.

    ``path`` is the field as written (e.g. ``links.1.errors_ab.ber``),
    ``value`` the offending value, ``allowed`` what would be accepted.
    ``str(err)`` is the full message. Also a :class:`ValueError`.
    """

    def __init__(self, message: str, path: str = "", value: str = "", allowed: str = ""):
        super().__init__(message, path, value, allowed)
        self.message = message
        self.path = path
        self.value = value
        self.allowed = allowed

    def __str__(self) -> str:
        return self.message


def _json_default(o: Any) -> Any:
    # numpy scalars, Paths and the like
    if hasattr(o, "item"):
        return o.item()
    if isinstance(o, os.PathLike):
        return os.fspath(o)
    raise TypeError(f"cannot put {type(o).__name__} into a scenario: {o!r}")


def scenario_text(scenario: ScenarioLike) -> tuple[str, str]:
    """Return ``(text, fmt)`` for a scenario path, TOML string or dict."""
    if isinstance(scenario, Mapping):
        return json.dumps(scenario, default=_json_default), "json"
    if isinstance(scenario, str) and "\n" in scenario:
        return scenario, "toml"
    if isinstance(scenario, (str, os.PathLike)):
        p = Path(scenario)
        if not p.is_file():
            raise FileNotFoundError(errno.ENOENT, "scenario file not found", str(p))
        fmt = "json" if p.suffix.lower() == ".json" else "toml"
        return p.read_text(encoding="utf-8"), fmt
    raise TypeError(
        "scenario must be a path, a TOML string or a dict, not " + type(scenario).__name__
    )


def _base_dir(scenario: ScenarioLike) -> str | None:
    """The directory of a scenario file: relative paths in it (error-trace
    files) are resolved against it. None for text and dicts (the working
    directory)."""
    if isinstance(scenario, Mapping) or (isinstance(scenario, str) and "\n" in scenario):
        return None
    return str(Path(scenario).resolve().parent)


def _overrides(set: Iterable[str] | str | None) -> list[str]:
    if set is None:
        return []
    if isinstance(set, str):
        return [set]
    return [str(s) for s in set]


def _reraise(e: _core.ScenarioError) -> ScenarioError:
    args = tuple(e.args) + ("",) * (4 - len(e.args))
    return ScenarioError(*(str(a) for a in args[:4]))


def validate(scenario: ScenarioLike, set: Iterable[str] | None = None) -> None:
    """Parse and check a scenario; raise :class:`ScenarioError` if it cannot run."""
    text, fmt = scenario_text(scenario)
    try:
        _core.validate(text, fmt, _overrides(set), _base_dir(scenario))
    except ScenarioError:
        raise
    except _core.ScenarioError as e:
        raise _reraise(e) from None


def run(scenario: ScenarioLike, set: Iterable[str] | None = None,
        progress: Callable[[float], Any] | None = None) -> Result:
    """Validate and run one scenario; return its :class:`Result`.

    Raises :class:`ScenarioError` if the scenario cannot run, and
    :class:`OSError` if a ``[[captures]]`` file cannot be written.
    ``progress``, if given, is called with the simulated time (seconds)
    every 65,536 events; if it raises (or Ctrl-C is pressed) the run stops
    and the exception propagates. It does not change the results."""
    text, fmt = scenario_text(scenario)
    try:
        raw = _core.run(text, fmt, _overrides(set), _base_dir(scenario), progress)
    except ScenarioError:
        raise
    except _core.ScenarioError as e:
        raise _reraise(e) from None
    return Result(raw)


def load(store: Union[str, os.PathLike], sweep: str | None = None):
    """The flows of a results store as a DataFrame: one row per run x flow,
    with sweep, cell, replication, seed, status, one column per factor (named
    by its dotted path) and every per-flow summary field. ``sweep`` keeps one
    sweep's runs. Failed runs have one row with ``status = 'failed'`` and no
    flow values."""
    from .store import Store

    with Store(store, read_only=True) as st:
        return st.flows(sweep)
