"""The one door to a study's data: what the store holds for its planned
runs, table by table, and deterministic re-runs of stored runs for the
time series the store does not keep.

Every table the store makes from a run's summary (``flows``, ``links``,
``agents``, ``paths``, ``ground_stations``, ``nodes``; docs/sweeps.md) is
read here, in one order (by key, then the table's index), so what a study
computes from them does not depend on how DuckDB joined. A study never
parses a run's ``summary_json``: what it needs of a summary is in a table.
A re-run is the stored scenario run again with sampling on: satcp is
deterministic, so its series are the stored run's.
"""

from __future__ import annotations

import copy
import json
from dataclasses import dataclass
from typing import Any, Iterator

import pandas as pd

from ... import engine
from ...store import Store
from .catalogue import PlannedRun

#: Each table's order within a run.
_ORDER = {"flows": "flow_index", "links": '"index", direction', "agents": "agent_index", "paths": "path_index",
          "ground_stations": "station_index", "nodes": "node_index"}


@dataclass
class Stored:
    """What the store holds for a study's planned runs: ``runs`` (the asked
    columns of the runs table, indexed by key) and the asked tables."""

    runs: pd.DataFrame
    tables: dict[str, pd.DataFrame]

    def __getitem__(self, table: str) -> pd.DataFrame:
        return self.tables[table]

    def by_key(self, table: str) -> dict[str, pd.DataFrame]:
        """A table's rows of each run."""
        t = self.tables[table]
        return {k: g for k, g in t.groupby("key", sort=False)} if not t.empty else {}

    def each(self, planned: list[PlannedRun], table: str = "flows") -> Iterator[tuple[PlannedRun, str, Any]]:
        """For each planned run the store holds: the run, its status, and
        its rows of ``table`` (None unless it ended ok with some)."""
        rows = self.by_key(table)
        for p in planned:
            if p.run.key in self.runs.index:
                status = self.runs.loc[p.run.key, "status"]
                yield p, status, rows.get(p.run.key) if status == "ok" else None


def stored(store: Store, planned: list[PlannedRun], tables: tuple[str, ...] = ("flows",),
           run_columns: tuple[str, ...] = ("status",), link: str | None = None) -> Stored:
    """The planned runs' rows in the store: the runs table's
    ``run_columns`` and each table of ``tables``; of ``links``, only the
    direction named ``link`` ("from->to") when given."""
    store.con.execute("CREATE OR REPLACE TEMP TABLE _planned_keys (key VARCHAR)")
    store.con.executemany("INSERT INTO _planned_keys VALUES (?)", [[k] for k in sorted({p.run.key for p in planned})])
    try:
        cols = ", ".join(f"r.{c}" for c in ("key", *run_columns))
        runs = store.query(f"SELECT {cols} FROM runs r JOIN _planned_keys k USING (key) ORDER BY key").set_index("key")
        out = {}
        for t in tables:
            where, params = ("WHERE t.link = ?", [link]) if t == "links" and link is not None else ("", [])
            out[t] = store.query(f"SELECT t.* FROM {t} t JOIN _planned_keys k USING (key) {where} "
                                 f"ORDER BY key, {_ORDER[t]}", params)
    finally:
        store.con.execute("DROP TABLE _planned_keys")
    return Stored(runs, out)


def array(text: Any) -> list:
    """An array column's values (the store keeps an array as its JSON
    text; a missing one is empty)."""
    return [] if text is None or (isinstance(text, float) and text != text) else json.loads(text)


def rerun(scenario_json: str | dict, sample_s: float):
    """A stored run again, sampled every ``sample_s`` seconds (its
    captures left out): a :class:`satcp.Result` with the run's series."""
    d = json.loads(scenario_json) if isinstance(scenario_json, str) else copy.deepcopy(scenario_json)
    d.pop("captures", None)
    d.setdefault("run", {})["sample_interval"] = f"{sample_s * 1e3:g}ms"
    return engine.run(d)
