"""One scenario through the engine: :func:`run`, :func:`validate`,
:func:`apply_overrides` and :class:`ScenarioError` (re-exported by
``satcp``).

They live here, not in ``satcp/__init__.py``, so that modules inside the
package (sweeps, reports, the demo) can use them without importing the
package's ``__init__``, which imports some of them back (an import cycle).
"""

from __future__ import annotations

import errno
import json
import os
from pathlib import Path
from typing import Any, Callable, Iterable, Mapping, Union

from . import _core
from .result import Result

ScenarioLike = Union[str, os.PathLike, Mapping[str, Any]]


class ScenarioError(_core.ScenarioError):
    """A scenario that cannot run.

    ``path`` is the field as written (e.g. ``links.1.errors_ab.ber``),
    ``value`` the offending value, ``allowed`` what would be accepted.
    ``str(err)`` is the full message. Also a :class:`ValueError`.
    """

    # Its public name: tracebacks and pickles say satcp.ScenarioError.
    __module__ = "satcp"

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


def _call(fn: Callable[..., Any], *args: Any) -> Any:
    """``fn(*args)`` with the binding's ScenarioError raised as ours."""
    try:
        return fn(*args)
    except ScenarioError:
        raise
    except _core.ScenarioError as e:
        a = tuple(e.args) + ("",) * (4 - len(e.args))
        raise ScenarioError(*(str(x) for x in a[:4])) from None


def validate(scenario: ScenarioLike, set: Iterable[str] | None = None) -> None:
    """Parse and check a scenario; raise :class:`ScenarioError` if it cannot run."""
    text, fmt = scenario_text(scenario)
    _call(_core.validate, text, fmt, _overrides(set), _base_dir(scenario))


def run(scenario: ScenarioLike, set: Iterable[str] | None = None,
        progress: Callable[[float], Any] | None = None) -> Result:
    """Validate and run one scenario; return its :class:`Result`.

    Raises :class:`ScenarioError` if the scenario cannot run, and
    :class:`OSError` if a ``[[captures]]`` file cannot be written.
    ``progress``, if given, is called with the simulated time (seconds)
    every 65,536 events; if it raises (or Ctrl-C is pressed) the run stops
    and the exception propagates. It does not change the results."""
    text, fmt = scenario_text(scenario)
    return Result(_call(_core.run, text, fmt, _overrides(set), _base_dir(scenario), progress))


def apply_overrides(tree: Mapping[str, Any], set: Iterable[str] | str) -> dict[str, Any]:
    """A copy of the scenario tree with ``set`` (``dotted.path=value``, in
    order) applied by the engine's own ``--set`` rules; key order is kept.
    Not validated. Raises :class:`ScenarioError` for a path that does not
    exist (the error names what does)."""
    text = json.dumps(tree, default=_json_default, allow_nan=False)
    return json.loads(_call(_core.apply_overrides, text, _overrides(set)))
