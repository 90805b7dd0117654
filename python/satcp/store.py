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
``agents``
    ``key``, ``agent_index``, then the router agent's summary (``node``,
    ``link``, ``kind``) and one column per counter (``counters_updates``,
    ...; null for an agent that has no such counter).
``paths``
    ``key``, ``path`` ("src->dst"), ``path_index``, then the traced pair's
    summary (``changes_s`` and ``routes`` as JSON arrays, ``min_rtt_s``,
    ``max_rtt_s``, ``steps_without_path``, ...).
``ground_stations``
    ``key``, ``station`` (its name), ``station_index``, then its account of
    its satellite links (``handovers``, ``handover_times_s`` as a JSON
    array, ``links_up``, ...).
``nodes``
    ``key``, ``node`` (its name), ``node_index``, then its summary
    (``drops_no_route``, ``drops_ttl``).
``pep_legs``
    one row per leg of each connection a PEP split (``[[peps]]``,
    docs/models/pep.md): ``key``, ``pep`` (its node), ``pep_index``,
    ``connection_index``, ``flow``, the connection's ``opened_s``,
    ``state``, bytes relayed and peaks each way, ``leg_index`` (0 towards
    the opener, 1 towards the acceptor), then the leg's summary
    (``toward``, ``to_node``, ``variant``, ``profile``, ``completion_s``,
    ``retransmissions``, ``timeouts``, ``limited_cwnd``, ...). Runs
    without PEPs have none.

The tables ``flows`` to ``pep_legs`` are the summary's lists of those names,
one row per entry, flattened by the same rules (``ROW_TABLES``;
``crates/satcp-core/src/stats/store_rows.rs``). A run stored before a
table existed gets its rows from its summary the next time the store is
opened for writing (``_fill_new_tables``).
``sweeps``
    ``sweep`` PRIMARY KEY, ``source`` (sweep file), ``definition_json``,
    ``metrics_json`` (the sweep file's ``metrics``), ``updated_at``.

Writes: finished runs go in batches, one transaction a batch (each run's
runs, factors, flows and links rows together; `satcp.execute` decides the
batches), so a killed process leaves only whole runs.
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

import contextlib
import datetime as _dt
import json
from pathlib import Path
from typing import Any, Iterable, Iterator

import duckdb
import pandas as pd

from . import _core
from .columns import NULL_TYPE, ROW_TABLES, RUNS_COLUMNS as _RUNS_COLUMNS  # noqa: F401 - NULL_TYPE: the module doc
from .columns import arrow_array as _arrow, sql_type as _sql_type, widen as _widen
from .sweep import Run, Sweep, canonical_json

# write-ahead log between a sweep's checkpoints (`Store.committing_sweep`)
CHECKPOINT_WAL = "256MiB"

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
    "CREATE TABLE IF NOT EXISTS agents (key VARCHAR, agent_index INTEGER)",
    "CREATE TABLE IF NOT EXISTS paths (key VARCHAR, path VARCHAR, path_index INTEGER)",
    "CREATE TABLE IF NOT EXISTS ground_stations (key VARCHAR, station VARCHAR, station_index INTEGER)",
    "CREATE TABLE IF NOT EXISTS nodes (key VARCHAR, node VARCHAR, node_index INTEGER)",
    "CREATE TABLE IF NOT EXISTS pep_legs (key VARCHAR, pep VARCHAR, pep_index INTEGER, connection_index INTEGER, leg_index INTEGER)",
    """CREATE TABLE IF NOT EXISTS sweeps (
        sweep VARCHAR PRIMARY KEY,
        source VARCHAR,
        definition_json VARCHAR,
        metrics_json VARCHAR,
        updated_at TIMESTAMP)""",
]

#: The tables added after the first two: every summary has a node, so a
#: stored run without node rows was stored before they existed. A run with
#: node rows and a PEP leg in its summary but no ``pep_legs`` rows was
#: stored before that table existed.
_NEWER_TABLES = ROW_TABLES[2:]
_PEP_LEGS_MISSING = ("SELECT key FROM runs r WHERE status = 'ok' AND summary_json LIKE '%\"legs\":[{%' "
                     "AND NOT EXISTS (SELECT 1 FROM pep_legs p WHERE p.key = r.key) ORDER BY key")

class StoreBusy(RuntimeError):
    """The store file is held open for writing by another process."""


class StoreUnwritable(RuntimeError):
    """The store cannot be written (a full disk, a read-only file system):
    what it holds stays as it was."""


def _q(name: str) -> str:
    return '"' + name.replace('"', '""') + '"'


def _cell_value(v: Any) -> Any:
    if isinstance(v, (list, dict)):
        return canonical_json(v)
    return v


def _rows_of(outcome: dict[str, Any]) -> bytes | None:
    """The outcome's store rows: as its worker flattened them, or (an
    outcome from elsewhere) flattened here from its summary's text, by the
    same rules (`_core.store_rows`)."""
    if outcome.get("rows"):
        return outcome["rows"]
    if outcome.get("summary_json"):
        return _core.store_rows(outcome["summary_json"])
    return None


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
        self._columns: dict[str, dict[str, str]] = {}
        if not read_only:
            for stmt in _SCHEMA:
                self.con.execute(stmt)
            self._fill_new_tables()

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
    @contextlib.contextmanager
    def committing_sweep(self) -> Iterator[None]:
        """DuckDB's settings while a sweep commits its batches, restored
        afterwards (docs/performance.md, "Sweeps of short runs"):

        * one thread: a batch of a second's runs gains nothing from more,
          and on a machine the workers fill, waking DuckDB's pool costs them
          (bench/sweep_overhead.py: the parent's CPU a run 0.34 -> 0.29 ms);
        * a checkpoint every CHECKPOINT_WAL of write-ahead log rather than
          DuckDB's 16 MB (about one batch of a second's runs of 20 flows,
          ~20 KB of log a run): storing 10,000 runs of 20 flows cost the
          parent 0.23 ms a run against 0.29 (median of three,
          docs/performance.md). What a batch commits is in the log either
          way: a kill loses nothing more, and the next open replays the
          log (`test_kill_and_resume`)."""
        settings = {"threads": "1", "checkpoint_threshold": CHECKPOINT_WAL}
        before = {k: self.con.execute(f"SELECT current_setting('{k}')").fetchone()[0] for k in settings}
        for k, v in settings.items():
            self.con.execute(f"SET {k} = '{v}'")
        try:
            yield
        finally:
            try:
                for k, v in before.items():
                    self.con.execute(f"SET {k} = '{v}'")
            except duckdb.Error:
                pass  # a connection that failed: nothing to restore

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
            for table in ("factors", *ROW_TABLES, "runs"):
                self.con.execute(f"DELETE FROM {table} WHERE key IN (SELECT unnest(?))", [keys])
            self.con.commit()
        except BaseException:
            self.con.rollback()
            raise

    def commit_run(self, run: Run, version: str, outcome: dict[str, Any]) -> None:
        """Store one finished run with all its rows in one transaction.

        ``outcome`` is what :func:`satcp.execute.run_task` returns:
        ``status``, ``error``, ``wall_s``, ``summary_json``."""
        self.commit_runs([(run, version, outcome)])

    def commit_runs(self, batch: list[tuple[Run, str, dict[str, Any]]]) -> None:
        """Store finished runs (run, satcp version, outcome as for
        :meth:`commit_run`) with all their rows in one transaction: all of
        them or none. A transaction costs DuckDB milliseconds whatever it
        holds, so a sweep of short runs commits them in batches."""
        if not batch:
            return
        # every run's flow and link rows, flattened by its worker, merged in
        # Rust: the batch is written column by column (numbers as Arrow
        # buffers), never cell by cell in Python
        merged = _core.merge_store_rows([_rows_of(o) for _, _, o in batch])
        runs_rows, factor_rows = [], []
        for i, (run, version, outcome) in enumerate(batch):
            runs_rows.append([
                run.key, run.sweep, run.cell_json, run.replication, run.seed, version,
                outcome["status"], outcome.get("error"), outcome.get("wall_s"),
                merged["sim_time_s"][i], merged["events"][i],
                run.scenario_json, outcome.get("summary_json"), _now(),
            ])
            factor_rows += [[run.key, name, canonical_json(v)] for name, v in run.cell.items()]
        keys = [run.key for run, _, _ in batch]
        tables = {t: dict(merged[t], keys=[keys[r] for r in merged[t]["run"]]) for t in ROW_TABLES}
        self.con.begin()
        try:
            self._insert_columns("runs", _RUNS_COLUMNS, [list(c) for c in zip(*runs_rows)])
            if factor_rows:
                self._insert_columns("factors", ["key", "name", "value_json"], [list(c) for c in zip(*factor_rows)])
            for table, cols in tables.items():
                self._insert(table, cols)
            self.con.commit()
        except BaseException as e:
            try:
                self.con.rollback()
            except duckdb.Error:
                pass  # the failed commit ended the transaction already
            self._columns.clear()  # a rolled-back ALTER TABLE is gone too
            if isinstance(e, duckdb.Error):
                what = "a run" if len(batch) == 1 else f"{len(batch)} runs"
                raise StoreUnwritable(f"could not write {what} to the results store {self.path}: {_first_line(e)}") from None
            raise

    def merge_shards(self, directory: Path, shards: list[str]) -> None:
        """Merge whole shards of ``directory`` (:mod:`satcp.shards`) in one
        transaction: each run not in the store yet from the first shard
        holding it, with all its rows; DuckDB reads the files (a statement
        a table, whatever the number of runs). Columns are added and
        widened first by the rules of :meth:`commit_runs`. The shards are
        left for the caller to delete once this returns."""
        from .shards import SHARD_COLUMN, TABLES, path

        if not shards:
            return
        files = {t: [str(f) for s in shards if (f := path(directory, s, t)).is_file()] for t in TABLES}
        if not files["runs"]:
            return  # none of them whole (merged and deleted already)
        src = lambda fs: "read_parquet([" + ", ".join(_literal(f) for f in fs) + "], union_by_name = true)"
        self.con.begin()
        try:
            self.con.execute(
                f"CREATE OR REPLACE TEMP TABLE _satcp_pick AS SELECT key, min({SHARD_COLUMN}) AS {SHARD_COLUMN} "
                f"FROM {src(files['runs'])} s ANTI JOIN runs USING (key) GROUP BY key")
            for table in TABLES:
                if not files[table]:
                    continue
                self._widen_for(table, src(files[table]), skip=SHARD_COLUMN)
                self.con.execute(
                    f"INSERT INTO {_q(table)} BY NAME SELECT s.* EXCLUDE ({SHARD_COLUMN}) FROM {src(files[table])} s "
                    f"SEMI JOIN _satcp_pick USING (key, {SHARD_COLUMN})")
            self.con.execute("DROP TABLE _satcp_pick")
            self.con.commit()
        except BaseException as e:
            try:
                self.con.rollback()
            except duckdb.Error:
                pass
            self._columns.clear()
            if isinstance(e, duckdb.Error):
                raise StoreUnwritable(f"could not merge {len(shards)} shard(s) into the results store {self.path}: "
                                      f"{_first_line(e)}") from None
            raise

    def _widen_for(self, table: str, source: str, skip: str) -> None:
        """Add or widen the columns of ``table`` for what ``source`` (the
        shards' files, read by name) holds: DuckDB's own reading of the
        files' schemas, each column's type unified across them."""
        have = self._table_columns(table)
        for name, t, *_ in self.con.execute(f"DESCRIBE SELECT * FROM {source}").fetchall():
            if name == skip:
                continue
            t = _STORE_TYPE.get(t, t)
            if name not in have:
                self.con.execute(f"ALTER TABLE {_q(table)} ADD COLUMN {_q(name)} {t}")
                have[name] = t
            elif _widen(have[name], t) != have[name]:
                t = _widen(have[name], t)
                self.con.execute(f"ALTER TABLE {_q(table)} ALTER COLUMN {_q(name)} TYPE {t}")
                have[name] = t

    def _fill_new_tables(self) -> None:
        """Rows of the tables added after ``flows`` and ``links`` for the ok
        runs stored before them, made from each run's stored summary by
        the rules a worker uses: a store written by an earlier satcp then
        answers every table for every run, rather than an empty table a
        study would read as nothing having happened."""
        # the keys first: the summaries' text is most of the store
        keys = [k for (k,) in self.con.execute(
            "SELECT key FROM runs r WHERE status = 'ok' AND NOT EXISTS (SELECT 1 FROM nodes n WHERE n.key = r.key) "
            "ORDER BY key").fetchall()]
        self._fill_tables(keys, _NEWER_TABLES)
        self._fill_tables([k for (k,) in self.con.execute(_PEP_LEGS_MISSING).fetchall()], ("pep_legs",))

    def _fill_tables(self, keys: list[str], tables: Iterable[str]) -> None:
        for start in range(0, len(keys), 1000):
            chunk = self.con.execute("SELECT key, summary_json FROM runs WHERE key IN (SELECT unnest(?)) ORDER BY key",
                                     [keys[start:start + 1000]]).fetchall()
            merged = _core.merge_store_rows([_core.store_rows(summary) for _, summary in chunk])
            self.con.begin()
            try:
                for t in tables:
                    self._insert(t, dict(merged[t], keys=[chunk[r][0] for r in merged[t]["run"]]))
                self.con.commit()
            except BaseException:
                self.con.rollback()
                self._columns.clear()
                raise

    def _table_columns(self, table: str) -> dict[str, str]:
        if table not in self._columns:
            rows = self.con.execute(f"PRAGMA table_info({_q(table)})").fetchall()
            self._columns[table] = {r[1]: r[2] for r in rows}
        return self._columns[table]

    def _insert(self, table: str, cols: dict[str, Any]) -> None:
        """Insert a batch's merged rows of `table` (``names``, ``kinds``,
        ``columns``, ``keys``), widening the table for new columns and types
        first (one type per column and batch, from its kinds)."""
        if not cols["keys"]:
            return
        have = self._table_columns(table)
        for name, kinds in zip(cols["names"], cols["kinds"]):
            t = _sql_type(kinds)
            if name not in have:
                self.con.execute(f"ALTER TABLE {_q(table)} ADD COLUMN {_q(name)} {t}")
                have[name] = t
            elif kinds and _widen(have[name], t) != have[name]:
                t = _widen(have[name], t)
                self.con.execute(f"ALTER TABLE {_q(table)} ALTER COLUMN {_q(name)} TYPE {t}")
                have[name] = t
        order = ["key"] + [n for n in have if n != "key"]
        by_name = dict(zip(cols["names"], cols["columns"]))
        missing = [None] * len(cols["keys"])
        columns = [cols["keys"]] + [by_name.get(n, missing) for n in order[1:]]
        self._insert_columns(table, order, columns)

    def _insert_columns(self, table: str, names: list[str], columns: list[Any]) -> None:
        """Insert rows given column by column (equal lengths; a column is a
        list or Arrow buffers as `_core.merge_store_rows` gives them)."""
        n = len(columns[0]) if not isinstance(columns[0], tuple) else columns[0][1]
        if n <= _VALUES_ROWS:
            columns = [_values(c) for c in columns]
            # One statement for all rows: DuckDB prepares each statement
            # (~ms), executemany would prepare once per row.
            one = "(" + ", ".join("?" for _ in names) + ")"
            sql = (f"INSERT INTO {_q(table)} ({', '.join(_q(n) for n in names)}) "
                   f"VALUES {', '.join(one for _ in range(n))}")
            self.con.execute(sql, [v for r in zip(*columns) for v in r])
            return
        # more rows (a batch of runs, a constellation's links): through a
        # data frame, which DuckDB scans in bulk, rather than a statement
        # of thousands of bound values
        self.con.register("_satcp_rows", _frame(columns))
        try:
            self.con.execute(f"INSERT INTO {_q(table)} ({', '.join(_q(n) for n in names)}) "
                             f"SELECT * FROM _satcp_rows")
        finally:
            self.con.unregister("_satcp_rows")

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

    def pep_legs(self, sweep: str | None = None) -> pd.DataFrame:
        """One row per run x PEP leg (``pep_legs``), laid out like
        :meth:`flows`; a run without PEP legs has one row of nulls."""
        return self._wide("pep_legs", sweep)

    def _wide(self, table: str, sweep: str | None) -> pd.DataFrame:
        where, params = _sweep_filter(sweep, "r.")
        order = {"flows": "t.flow_index", "pep_legs": "t.pep_index, t.connection_index, t.leg_index"}.get(
            table, "t.\"index\", t.direction")
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
_VALUES_ROWS = 8


def _values(column: Any) -> list[Any]:
    """A column as a list of Python values."""
    return _arrow(column).to_pylist() if isinstance(column, tuple) else column


def _frame(columns: list[Any]) -> Any:
    """Columns as a table DuckDB scans in bulk: Arrow arrays, or, for a
    column Arrow cannot type (mixed text and numbers, integers past 64
    bits), a pandas frame."""
    import pyarrow as pa

    try:
        return pa.table({f"c{i}": _arrow(c) for i, c in enumerate(columns)})
    except (pa.ArrowException, OverflowError, TypeError):
        import pandas as pd

        return pd.DataFrame({f"c{i}": _frame_column(_values(c)) for i, c in enumerate(columns)})


def _frame_column(values: list[Any]) -> Any:
    """A column for a data frame that DuckDB reads back exactly: integers
    (and booleans) with gaps as pandas' nullable types, since a float column
    would round 64-bit seeds and counts; the rest as pandas infers (NaN in a
    float column reads as NULL)."""
    import pandas as pd

    types = set(map(type, values))
    if types == {int} or types == {int, type(None)}:
        return pd.array(values, dtype="Int64")
    if type(None) in types and types <= {bool, type(None)}:
        return pd.array(values, dtype="boolean")
    return values


def _literal(text: str) -> str:
    return "'" + text.replace("'", "''") + "'"


#: A shard column's type as DuckDB reads it from Parquet, in the store's
#: terms (an INTEGER column is kept by widen(); a null-only one is DOUBLE)
_STORE_TYPE = {"INTEGER": "BIGINT", '"NULL"': NULL_TYPE, "NULL": NULL_TYPE, "TIMESTAMP_NS": "TIMESTAMP"}


def _now() -> _dt.datetime:
    return _dt.datetime.now(_dt.timezone.utc).replace(tzinfo=None)
