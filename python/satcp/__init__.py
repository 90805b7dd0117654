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

import os
from typing import Union

from . import _core
from .engine import ScenarioError, run, scenario_text, validate
from .result import Result

__all__ = ["run", "validate", "load", "scenario_text", "ScenarioError", "Result", "__version__"]

__version__: str = _core.version()


def load(store: Union[str, os.PathLike], sweep: str | None = None):
    """The flows of a results store as a DataFrame: one row per run x flow,
    with sweep, cell, replication, seed, status, one column per factor (named
    by its dotted path) and every per-flow summary field. ``sweep`` keeps one
    sweep's runs. Failed runs have one row with ``status = 'failed'`` and no
    flow values."""
    from .store import Store

    with Store(store, read_only=True) as st:
        return st.flows(sweep)
