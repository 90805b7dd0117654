"""The results store: one DuckDB file holding every finished run of any sweep.

Schema (other modules and users rely on these names):

``runs``
    ``key`` VARCHAR PRIMARY KEY (sha256 of the run's canonical scenario JSON,
    seed and satcp version), ``sweep`` (label of the sweep that stored it),
    ``cell`` (canonical JSON of the factor levels, factor order as in the
    sweep file), ``replication``, ``seed``, ``satcp_version``, ``status``
    ('ok' or 'failed'), ``error`` (NULL when ok), ``wall_s`` (worker wall
    time of the run), ``sim_time_s``, ``events``, ``scenario_json`` (the
    resolved scenario, runnable as is with ``satcp.run(json.loads(...))``),
    ``summary_json`` (the engine's summary; NULL when failed), ``finished_at``
    (UTC).
``factors``
    ``key``, ``name`` (the factor's dotted path), ``value_json`` (its level).
``flows``
    ``key``, ``flow`` (the flow's name), ``flow_index``, then one column per
    field of the engine's per-flow summary (``completion_s``,
    ``goodput_bps``, ``retransmissions``, ...), created as the summary
    reports them: a field the engine adds later becomes a new column (typed
    by its first value; see ``NULL_TYPE`` for fields first seen as null).
``links``
    ``key``, ``link`` ("from->to"), then one column per field of the
    per-link-direction summary, nested tables flattened with ``_``
    (``drops_queue``, ``drops_errors``).
``sweeps``
    ``sweep`` PRIMARY KEY, ``source`` (sweep file), ``definition_json``,
    ``metrics_json`` (the sweep file's ``metrics``), ``updated_at``.

Writes: each finished run goes in its own transaction (its runs, factors,
flows and links rows together), so a killed process leaves only whole runs.
Only one process writes: the sweep's parent; workers return results to it.
DuckDB lets one process hold a file open for writing, so reading a store
while a sweep writes it fails with a clear error: wait for the sweep.

Choices:
* A run is identified by content (scenario, seed, version), not by the
  sweep: a run another sweep already stored is not run again, and keeps the
  ``sweep``/``cell``/factors rows of the sweep that stored it first.
* ``flows()``/``links()`` take every run (failed ones too, with NULL
  metrics and ``status = 'failed'``) so that a failure cannot silently thin
  a cell; filter on ``status`` to drop them.
* Factor levels that are scalars become typed columns; tables and arrays
  become their canonical JSON text.
"""

from __future__ import annotations

import datetime as _dt
import json
from pathlib import Path
from typing import Any, Iterable

import duckdb
import pandas as pd

from .sweep import Run, Sweep, canonical_json

_SCHEMA = [
    """CREATE TABLE IF NOT EXISTS runs (
        key VARCHAR PRIMARY KEY,
        sweep VARCHAR,
        cell VARCHAR,
        replication INTEGER,
        seed BIGINT,
        satcp_version VARCHAR,
        status VARCHAR,
        error VARCHAR,
        wall_s DOUBLE,
        sim_time_s DOUBLE,
        events BIGINT,
        scenario_json VARCHAR,
        summary_json VARCHAR,
        finished_at TIMESTAMP)""",
    "CREATE TABLE IF NOT EXISTS factors (key VARCHAR, name VARCHAR, value_json VARCHAR)",
    "CREATE TABLE IF NOT EXISTS flows (key VARCHAR, flow VARCHAR, flow_index INTEGER)",
    "CREATE TABLE IF NOT EXISTS links (key VARCHAR, link VARCHAR)",
    """CREATE TABLE IF NOT EXISTS sweeps (
        sweep VARCHAR PRIMARY KEY,
        source VARCHAR,
        definition_json VARCHAR,
        metrics_json VARCHAR,
        updated_at TIMESTAMP)""",
]

# A field first seen as null (an optional value) gets this type: every
# optional field satcp reports is a time or a rate. A later value of another
# type widens the column (BIGINT -> DOUBLE, anything else -> VARCHAR).
NULL_TYPE = "DOUBLE"


_INTEGER_TYPES = ("TINYINT", "SMALLINT", "INTEGER", "BIGINT", "HUGEINT")


def _widen(current: str, new: str) -> str:
    """The column type that holds both what ``current`` holds and a value of type ``new``."""
    if current == new or (new == "BIGINT" and (current in _INTEGER_TYPES or current == "DOUBLE")):
        return current
    if current in _INTEGER_TYPES and new == "DOUBLE":
        return "DOUBLE"
    return "VARCHAR"


class StoreBusy(RuntimeError):
    """The store file is held open for writing by another process."""


class StoreUnwritable(RuntimeError):
    """The store cannot be written (a full disk, a read-only file system):
    what it holds stays as it was."""


def _q(name: str) -> str:
    return '"' + name.replace('"', '""') + '"'


def _sql_type(v: Any) -> str:
    if v is None:
        return NULL_TYPE
    if isinstance(v, bool):
        return "BOOLEAN"
    if isinstance(v, int):
        return "BIGINT"
    if isinstance(v, float):
        return "DOUBLE"
    return "VARCHAR"


def _cell_value(v: Any) -> Any:
    if isinstance(v, (list, dict)):
        return canonical_json(v)
    return v


def _flatten(d: dict[str, Any], prefix: str = "") -> dict[str, Any]:
    out: dict[str, Any] = {}
    for k, v in d.items():
        name = f"{prefix}{k}"
        if isinstance(v, dict):
            out.update(_flatten(v, name + "_"))
        else:
            out[name] = canonical_json(v) if isinstance(v, list) else v
    return out


def flow_rows(summary: dict[str, Any]) -> list[dict[str, Any]]:
    rows = []
    for i, f in enumerate(summary.get("flows", [])):
        row = {"flow": f.get("name"), "flow_index": i}
        row.update({k: v for k, v in _flatten(f).items() if k != "name"})
        rows.append(row)
    return rows


def link_rows(summary: dict[str, Any]) -> list[dict[str, Any]]:
    rows = []
    for l in summary.get("links", []):
        row = {"link": f'{l.get("from")}->{l.get("to")}'}
        row.update(_flatten(l))
        rows.append(row)
    return rows


class Store:
    """A results store (see the module doc). ``read_only`` opens an existing
    file without taking the writer's lock."""

    def __init__(self, path: str | Path, read_only: bool = False):
        self.path = Path(path)
        if read_only and not self.path.is_file():
            raise FileNotFoundError(f"no results store at {self.path}")
        try:
            self.con = duckdb.connect(str(self.path), read_only=read_only)
        except duckdb.IOException as e:
            if "lock" in str(e).lower():
                raise StoreBusy(
                    f"{self.path} is open in another process (a sweep still running?); "
                    "DuckDB allows one writer at a time"
                ) from None
            if read_only:
                raise
            raise StoreUnwritable(f"cannot open the results store {self.path} for writing: {_first_line(e)}") from None
        if not read_only:
            for stmt in _SCHEMA:
                self.con.execute(stmt)
        self._columns: dict[str, dict[str, str]] = {}

    # -- context manager ------------------------------------------------------
    def close(self) -> None:
        try:
            self.con.close()
        except duckdb.Error:
            pass  # a store that could not be written: what was committed stays

    def __enter__(self) -> "Store":
        return self

    def __exit__(self, *exc: Any) -> None:
        self.close()

    # -- writing ----------------------------------------------------------------
    def register_sweep(self, sweep: Sweep) -> None:
        self.con.execute(
            "INSERT OR REPLACE INTO sweeps VALUES (?, ?, ?, ?, ?)",
            [sweep.name, sweep.source, sweep.definition_json(), canonical_json(sweep.metrics), _now()],
        )

    def stored(self) -> dict[str, str]:
        """key -> status of every stored run."""
        return dict(self.con.execute("SELECT key, status FROM runs").fetchall())

    def forget(self, keys: Iterable[str]) -> None:
        """Remove runs (to run them again), each with all its rows."""
        keys = list(keys)
        if not keys:
            return
        self.con.begin()
        try:
            for table in ("factors", "flows", "links", "runs"):
                self.con.execute(f"DELETE FROM {table} WHERE key IN (SELECT unnest(?))", [keys])
            self.con.commit()
        except BaseException:
            self.con.rollback()
            raise

    def commit_run(self, run: Run, version: str, outcome: dict[str, Any]) -> None:
        """Store one finished run with all its rows in one transaction.

        ``outcome`` is what :func:`satcp.execute.run_task` returns:
        ``status``, ``error``, ``wall_s``, ``summary_json``."""
        summary = json.loads(outcome["summary_json"]) if outcome.get("summary_json") else None
        self.con.begin()
        try:
            self.con.execute(
                "INSERT INTO runs VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)",
                [
                    run.key, run.sweep, run.cell_json, run.replication, run.seed, version,
                    outcome["status"], outcome.get("error"), outcome.get("wall_s"),
                    summary["sim_time_s"] if summary else None,
                    summary["events"] if summary else None,
                    run.scenario_json, outcome.get("summary_json"), _now(),
                ],
            )
            if run.cell:
                self._insert_rows("factors", ["key", "name", "value_json"],
                                  [[run.key, name, canonical_json(v)] for name, v in run.cell.items()])
            if summary is not None:
                self._insert("flows", run.key, flow_rows(summary))
                self._insert("links", run.key, link_rows(summary))
            self.con.commit()
        except BaseException as e:
            try:
                self.con.rollback()
            except duckdb.Error:
                pass  # the failed commit ended the transaction already
            self._columns.clear()  # a rolled-back ALTER TABLE is gone too
            if isinstance(e, duckdb.Error):
                raise StoreUnwritable(f"could not write a run to the results store {self.path}: {_first_line(e)}") from None
            raise

    def _table_columns(self, table: str) -> dict[str, str]:
        if table not in self._columns:
            rows = self.con.execute(f"PRAGMA table_info({_q(table)})").fetchall()
            self._columns[table] = {r[1]: r[2] for r in rows}
        return self._columns[table]

    def _insert(self, table: str, key: str, rows: list[dict[str, Any]]) -> None:
        if not rows:
            return
        cols = self._table_columns(table)
        for row in rows:
            for name, v in row.items():
                t = _sql_type(v)
                if name not in cols:
                    self.con.execute(f"ALTER TABLE {_q(table)} ADD COLUMN {_q(name)} {t}")
                    cols[name] = t
                elif v is not None and _widen(cols[name], t) != cols[name]:
                    t = _widen(cols[name], t)
                    self.con.execute(f"ALTER TABLE {_q(table)} ALTER COLUMN {_q(name)} TYPE {t}")
                    cols[name] = t
        names = ["key"] + [n for n in cols if n != "key"]
        self._insert_rows(table, names, [[key] + [r.get(n) for n in names[1:]] for r in rows])

    def _insert_rows(self, table: str, names: list[str], rows: list[list[Any]]) -> None:
        if len(rows) > _FRAME_ROWS:
            # many rows (a constellation's links): through a data frame,
            # which DuckDB scans, rather than a statement of 100,000 values
            import pandas as pd

            frame = pd.DataFrame(rows, columns=[f"c{i}" for i in range(len(names))])
            self.con.register("_satcp_rows", frame)
            try:
                self.con.execute(f"INSERT INTO {_q(table)} ({', '.join(_q(n) for n in names)}) "
                                 f"SELECT * FROM _satcp_rows")
            finally:
                self.con.unregister("_satcp_rows")
            return
        # One statement for all rows: DuckDB prepares each statement (~ms),
        # executemany would prepare once per row.
        one = "(" + ", ".join("?" for _ in names) + ")"
        sql = (f"INSERT INTO {_q(table)} ({', '.join(_q(n) for n in names)}) "
               f"VALUES {', '.join(one for _ in rows)}")
        self.con.execute(sql, [v for r in rows for v in r])

    # -- reading -----------------------------------------------------------------
    def has_runs(self) -> bool:
        tables = {r[0] for r in self.con.execute("SELECT table_name FROM information_schema.tables").fetchall()}
        return "runs" in tables and self.con.execute("SELECT count(*) FROM runs").fetchone()[0] > 0

    def query(self, sql: str, params: list[Any] | None = None) -> pd.DataFrame:
        return self.con.execute(sql, params or []).df()

    def runs(self, sweep: str | None = None) -> pd.DataFrame:
        where, params = _sweep_filter(sweep)
        return self.query(f"SELECT * FROM runs {where} ORDER BY sweep, cell, replication", params)

    def factors(self, sweep: str | None = None) -> pd.DataFrame:
        where, params = _sweep_filter(sweep, "r.")
        return self.query(
            f"SELECT f.* FROM factors f JOIN runs r USING (key) {where} ORDER BY f.key, f.name", params)

    def sweeps(self) -> pd.DataFrame:
        return self.query("SELECT * FROM sweeps ORDER BY sweep")

    def factor_names(self, sweep: str | None = None) -> list[str]:
        """Factor paths in sweep-file order (taken from the runs' cell JSON)."""
        where, params = _sweep_filter(sweep)
        names: list[str] = []
        for (cell,) in self.con.execute(f"SELECT DISTINCT cell FROM runs {where}", params).fetchall():
            for name in json.loads(cell or "{}"):
                if name not in names:
                    names.append(name)
        return names

    def flows(self, sweep: str | None = None) -> pd.DataFrame:
        """One row per run x flow: sweep, cell, replication, seed, status, one
        column per factor (named by its dotted path), then the flow fields."""
        return self._wide("flows", sweep)

    def links(self, sweep: str | None = None) -> pd.DataFrame:
        """One row per run x link direction, laid out like :meth:`flows`."""
        return self._wide("links", sweep)

    def _wide(self, table: str, sweep: str | None) -> pd.DataFrame:
        where, params = _sweep_filter(sweep, "r.")
        order = "t.flow_index" if table == "flows" else "t.\"index\", t.direction"
        df = self.query(
            f"SELECT r.key, r.sweep, r.cell, r.replication, r.seed, r.status, t.* EXCLUDE (key) "
            f"FROM runs r LEFT JOIN {_q(table)} t USING (key) {where} "
            f"ORDER BY r.sweep, r.cell, r.replication, {order}",
            params,
        )
        names = self.factor_names(sweep)
        cells = {c: json.loads(c) for c in df["cell"].unique()} if len(df) else {}
        pos = df.columns.get_loc("status") + 1
        for i, name in enumerate(names):
            values = [_cell_value(cells[c].get(name)) for c in df["cell"]]
            df.insert(pos + i, name, pd.Series(values, index=df.index, dtype=_dtype(values)))
        return df


def _dtype(values: list[Any]) -> Any:
    present = [v for v in values if v is not None]
    if present and all(isinstance(v, (int, float)) and not isinstance(v, bool) for v in present):
        return "float64" if any(isinstance(v, float) for v in present) or len(present) < len(values) else "int64"
    return object


def _sweep_filter(sweep: str | None, prefix: str = "") -> tuple[str, list[Any]]:
    if sweep is None:
        return "", []
    return f"WHERE {prefix}sweep = ?", [sweep]


def _first_line(e: Exception) -> str:
    return str(e).strip().splitlines()[0] if str(e).strip() else type(e).__name__


#: Above this many rows an insert goes through a data frame.
_FRAME_ROWS = 200


def _now() -> _dt.datetime:
    return _dt.datetime.now(_dt.timezone.utc).replace(tzinfo=None)
