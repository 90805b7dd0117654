"""Parquet shards: a batch of finished runs written by the worker that ran
them, as the results store's tables (one Parquet file a table), for the
sweep's parent to merge into the store (`Store.merge_shards`).

DuckDB lets one process write a store. Before shards, the parent turned
every run's outcome into rows and inserted them, which capped a sweep of
short runs at what one process could commit (about 0.3 ms of the parent's
CPU a run, bench/sweep_overhead.py). Now the worker that ran a batch
builds the rows of its ``runs``, ``factors``, ``flows``, ``links``, ...
tables itself, typed by the store's rules (:mod:`satcp.columns`), and
writes them; the parent merges whole files with one ``INSERT ... SELECT``
from ``read_parquet`` a table (in DuckDB, not Python) and hears of each run
only through a small receipt (key, status, error, wall time, shard).

Layout: ``STORE.shards/<id>.<table>.parquet`` (``runs`` always; another
table only when the batch has rows for it; one directory, plain files:
directories cost a file system more to make and remove). Each file is
written under a temporary name and renamed into place, ``runs`` last, so
a shard whose ``runs`` file is there is whole. The parent deletes a
shard's files once the transaction that merged it has committed.

What is never lost: a batch's runs are safe once its shard is renamed into
place, whatever happens to the parent next. A sweep merges the shards it
finds when it starts (left by one that was killed before merging them)
and, when it ends, any it was never told of (a batch whose worker
finished it after the local pool broke). A run found in two shards (a
batch run again after its worker died) or already in the store is merged
once: the store keeps the first.

Where shards go: local workers write them into the store's shard
directory. A Dask worker may be on another machine: it returns its shard's
files to the parent, which writes them there (a file a batch, no per-run
work), unless the sweep names a shard directory the workers share
(``--shard-dir`` on a shared file system), which they then write directly.

Choices:
* A column whose values Arrow cannot put in one type (text in some runs,
  numbers in others) is text, each value as Python prints it, as the
  store's direct inserts make it (through pandas).
* The shard's ``runs`` row says the version of satcp the sweep's parent
  runs; a worker with another version stores its runs as failed, saying
  so (its numbers would not match the key).
* This module imports only the engine and pyarrow (a worker's start-up);
  reading and merging is the store's (:meth:`satcp.store.Store.merge_shards`).
"""

from __future__ import annotations

import array
import datetime as _dt
import os
import time
import uuid
from pathlib import Path
from typing import Any

from . import _core
from .columns import ROW_TABLES, RUNS_COLUMNS, arrow_array, sql_type

#: Every table a shard may hold, ``runs`` last: merged in this order, so a
#: run's row in ``runs`` is written with (never before) its other rows.
TABLES = ("factors", *ROW_TABLES, "runs")

#: The column naming a row's shard (for merging each run from one shard).
SHARD_COLUMN = "_shard"

#: The seed placeholder of a cell's template (`satcp.sweep.cell_scenarios`).
SEED_MARK = 2**63 - 1 - 8_675_309

_TMP = ".tmp"


def shard_dir(store_path: str | Path) -> Path:
    """The shard directory of the store at ``store_path``."""
    return Path(str(store_path) + ".shards")


def version_mismatch(theirs: Any, ours: str) -> str:
    """The error of a run computed by another satcp version."""
    return f"computed by satcp {theirs}, this sweep needs {ours}"


def _new_id() -> str:
    # time first: shards sort in the order they were written
    return f"{time.time_ns():016x}-{os.getpid()}-{uuid.uuid4().hex[:8]}"


def _validity(values: list[Any]) -> tuple[Any, bool]:
    """Arrow's validity bitmap of ``values`` (None is null), and whether any is null."""
    bits = bytearray((len(values) + 7) // 8)
    nulls = False
    for i, v in enumerate(values):
        if v is None:
            nulls = True
        else:
            bits[i >> 3] |= 1 << (i & 7)
    return bits, nulls


def _array(values: list[Any], sql: str) -> Any:
    """A column of Python values as an Arrow array of the SQL type ``sql``,
    built from its buffers: ``pa.array`` on a list imports pandas (a
    fifth of a second of a worker's start) to check for pandas values.
    NaN is null, as in the store's direct inserts."""
    import pyarrow as pa

    values = [None if v is None or (isinstance(v, float) and v != v) else v for v in values]
    bits, nulls = _validity(values)
    validity = pa.py_buffer(bits) if nulls else None
    n = len(values)
    if sql == "VARCHAR":
        data = [b"" if v is None else str(v).encode() for v in values]
        offsets = array.array("q", [0])
        for d in data:
            offsets.append(offsets[-1] + len(d))
        return pa.Array.from_buffers(pa.large_string(), n, [validity, pa.py_buffer(offsets), pa.py_buffer(b"".join(data))])
    if sql == "BOOLEAN":
        on = bytearray((n + 7) // 8)
        for i, v in enumerate(values):
            if v:
                on[i >> 3] |= 1 << (i & 7)
        return pa.Array.from_buffers(pa.bool_(), n, [validity, pa.py_buffer(on)])
    if sql == "DOUBLE":
        return pa.Array.from_buffers(pa.float64(), n, [validity, pa.py_buffer(array.array(
            "d", [0.0 if v is None else float(v) for v in values]))])
    if sql == "TIMESTAMP":  # microseconds since the epoch, as DuckDB's TIMESTAMP
        epoch = _dt.datetime(1970, 1, 1)
        values = [None if v is None else (v - epoch) // _dt.timedelta(microseconds=1) for v in values]
        return pa.Array.from_buffers(pa.timestamp("us"), n, [validity, pa.py_buffer(array.array(
            "q", [0 if v is None else v for v in values]))])
    width = {"BIGINT": ("q", pa.int64()), "INTEGER": ("i", pa.int32())}[sql]
    return pa.Array.from_buffers(width[1], n, [validity, pa.py_buffer(array.array(
        width[0], [0 if v is None else int(v) for v in values]))])


def _typed(column: Any, kinds: int) -> Any:
    """A row-table column as an Arrow array of the SQL type its kinds give."""
    if isinstance(column, tuple):
        return arrow_array(column)  # one kind: its buffers are the type already
    return _array(column, sql_type(kinds))


def tables(tasks: list[dict[str, Any]], outs: list[dict[str, Any]], version: str, shard: str) -> dict[str, Any]:
    """A batch's runs as the store's tables (Arrow), each row marked with
    ``shard``. ``tasks`` carry the run's place in its sweep (``run``:
    sweep, cell JSON, replication, seed; ``factors``: the cell's (name,
    level JSON) pairs); ``outs`` are their outcomes (:func:`satcp.worker.run_task`)."""
    import pyarrow as pa

    merged = _core.merge_store_rows([_rows_of(o) for o in outs])
    keys = [t["key"] for t in tasks]
    now = _dt.datetime.now(_dt.timezone.utc).replace(tzinfo=None)
    runs: dict[str, list[Any]] = {c: [] for c in RUNS_COLUMNS}
    factors: dict[str, list[Any]] = {"key": [], "name": [], "value_json": []}
    for i, (t, o) in enumerate(zip(tasks, outs)):
        sweep, cell, replication, seed = t["run"]
        scenario = t.get("scenario_json") or t["template_json"].replace(f'"seed":{SEED_MARK}', f'"seed":{seed}', 1)
        row = (t["key"], sweep, cell, replication, seed, version, o["status"], o.get("error"), o.get("wall_s"),
               merged["sim_time_s"][i], merged["events"][i], scenario, o.get("summary_json"), now)
        for c, v in zip(RUNS_COLUMNS, row):
            runs[c].append(v)
        for name, value_json in t["factors"]:
            factors["key"].append(t["key"])
            factors["name"].append(name)
            factors["value_json"].append(value_json)
    types = {"replication": "INTEGER", "seed": "BIGINT", "wall_s": "DOUBLE", "sim_time_s": "DOUBLE",
             "events": "BIGINT", "finished_at": "TIMESTAMP"}
    out = {"runs": pa.table({c: _array(v, types.get(c, "VARCHAR")) for c, v in runs.items()}),
           "factors": pa.table({c: _array(v, "VARCHAR") for c, v in factors.items()})}
    for name in ROW_TABLES:
        m = merged[name]
        if not m["run"]:
            continue
        cols = {"key": _array([keys[r] for r in m["run"]], "VARCHAR")}
        for col, kinds, column in zip(m["names"], m["kinds"], m["columns"]):
            cols[col] = _typed(column, kinds)
        out[name] = pa.table(cols)
    for name, table in out.items():
        out[name] = table.append_column(SHARD_COLUMN, _array([shard] * table.num_rows, "VARCHAR"))
    return {n: t for n, t in out.items() if t.num_rows or n == "runs"}


def _rows_of(outcome: dict[str, Any]) -> bytes | None:
    """The outcome's store rows as its run flattened them (or from its summary)."""
    if outcome.get("rows"):
        return outcome["rows"]
    if outcome.get("summary_json"):
        return _core.store_rows(outcome["summary_json"])
    return None


def path(directory: Path, shard: str, table: str) -> Path:
    """The file of ``table`` in ``shard``."""
    return directory / f"{shard}.{table}.parquet"


def _write_files(directory: Path, shard: str, files: dict[str, Any]) -> None:
    """Write a shard's tables (Arrow tables, or their Parquet bytes), each
    under a temporary name renamed into place, ``runs`` last: a shard whose
    ``runs`` file is there is whole."""
    import pyarrow.parquet as pq

    directory.mkdir(parents=True, exist_ok=True)
    written = []
    try:
        for name in sorted(files, key=lambda n: n == "runs"):
            final = path(directory, shard, name)
            tmp = final.with_name(final.name + _TMP)
            written.append(tmp)
            t = files[name]
            if isinstance(t, bytes):
                tmp.write_bytes(t)
            else:
                pq.write_table(t, tmp)
            os.rename(tmp, final)
            written[-1] = final
    except BaseException:
        for f in written:
            f.unlink(missing_ok=True)
        raise


def _parquet_bytes(tables_: dict[str, Any]) -> dict[str, bytes]:
    import pyarrow as pa
    import pyarrow.parquet as pq

    out = {}
    for name, t in tables_.items():
        sink = pa.BufferOutputStream()
        pq.write_table(t, sink)
        out[name] = sink.getvalue().to_pybytes()
    return out


def write_batch(spec: dict[str, Any], tasks: list[dict[str, Any]], outs: list[dict[str, Any]]) -> list[dict[str, Any]]:
    """In a worker: a finished batch as a shard (``spec``: ``version``, the
    parent's satcp version; ``dir``, the shard directory, or None to hand
    the files back); the runs' receipts. Should the shard not be written
    (a full disk), the full outcomes go back and the parent commits them."""
    version = spec["version"]
    outs = [dict(o, status="failed", summary_json=None, rows=None,
                 error=version_mismatch(o.get("satcp_version"), version))
            if o["status"] == "ok" and o.get("satcp_version") != version else o for o in outs]
    shard = _new_id()
    try:
        t = tables(tasks, outs, version, shard)
        files = None
        if spec.get("dir"):
            _write_files(Path(spec["dir"]), shard, t)
        else:
            files = _parquet_bytes(t)
    except OSError:
        return outs
    receipts = [{"key": o["key"], "status": o["status"], "error": o.get("error"), "wall_s": o.get("wall_s"),
                 "run_cpu_s": o.get("run_cpu_s"), "satcp_version": o.get("satcp_version"), "summary_json": None, "shard": shard} for o in outs]
    if files is not None and receipts:
        receipts[0]["shard_files"] = files
    return receipts


def place(directory: Path, shard: str, files: dict[str, bytes]) -> None:
    """In the parent: a shard a worker handed back, written into place."""
    _write_files(directory, shard, files)


def complete(directory: Path) -> list[str]:
    """The whole shards in ``directory`` (their ``runs`` file written), oldest first."""
    if not directory.is_dir():
        return []
    return sorted(f.name[:-len(".runs.parquet")] for f in directory.iterdir() if f.name.endswith(".runs.parquet"))


def discard(directory: Path, shards: list[str]) -> None:
    for shard in shards:
        for table in TABLES:
            path(directory, shard, table).unlink(missing_ok=True)


def clear_unfinished(directory: Path) -> None:
    """Remove the files of shards whose writing never finished (their
    worker was killed mid-write, so their runs were never reported
    either): files under a temporary name, and tables of a shard without
    its ``runs`` file."""
    if not directory.is_dir():
        return
    whole = set(complete(directory))
    for f in directory.iterdir():
        if f.name.endswith(_TMP) or (f.name.endswith(".parquet") and f.name.split(".", 1)[0] not in whole):
            f.unlink(missing_ok=True)


def remove_if_empty(directory: Path) -> None:
    try:
        directory.rmdir()
    except OSError:
        pass  # absent, or shards left (a merge that failed): the next sweep merges them
