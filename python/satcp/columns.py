"""How a results-store column is typed, and a column of a batch's store rows
as an Arrow array: the rules the store (parent) and the Parquet shards
(workers) share, so that a run merged from a shard is stored as a run
committed directly (docs/sweeps.md, "The results store").

This module imports nothing heavy (pyarrow only inside :func:`arrow_array`):
a sweep's worker processes import it to write their shards.
"""

from __future__ import annotations

from typing import Any

#: The tables made from a run's summary, one row per entry of its list of
#: that name (`pep_legs`: per leg of each connection a PEP split;
#: `_core.merge_store_rows` gives each; store_rows.rs' TABLES).
ROW_TABLES = ("flows", "links", "agents", "paths", "ground_stations", "nodes", "pep_legs")

#: The ``runs`` table's columns, in order.
RUNS_COLUMNS = ["key", "sweep", "cell", "replication", "seed", "satcp_version", "status", "error", "wall_s",
                "sim_time_s", "events", "scenario_json", "summary_json", "finished_at"]

# A field first seen as null (an optional value) gets this type: every
# optional field satcp reports is a time or a rate. A later value of another
# type widens the column (BIGINT -> DOUBLE, anything else -> VARCHAR).
NULL_TYPE = "DOUBLE"

INTEGER_TYPES = ("TINYINT", "SMALLINT", "INTEGER", "BIGINT", "HUGEINT")


def widen(current: str, new: str) -> str:
    """The column type that holds both what ``current`` holds and a value of type ``new``."""
    if current == new or (new == "BIGINT" and (current in INTEGER_TYPES or current == "DOUBLE")):
        return current
    if current in INTEGER_TYPES and new == "DOUBLE":
        return "DOUBLE"
    return "VARCHAR"


# the kinds of value a column holds (bits; `_core.store_rows`)
_KIND_SQL = ((1, "BOOLEAN"), (2, "BIGINT"), (4, "DOUBLE"), (8, "VARCHAR"))


def sql_type(kinds: int) -> str:
    """The SQL type of a column holding these kinds of value (NULL_TYPE if
    only nulls)."""
    sql = sorted(t for bit, t in _KIND_SQL if kinds & bit)
    t = sql[0] if sql else NULL_TYPE
    for x in sql[1:]:
        t = widen(t, x)
    return t


_ARROW_TYPES = {"f64": "float64", "i64": "int64", "bool": "bool_", "str": "large_string"}


def arrow_array(column: Any) -> Any:
    """A column as an Arrow array: from its buffers (a tuple of type, length
    and buffers, as `_core.merge_store_rows` gives a column of numbers,
    booleans or text), or from a list (built in C; NaN read as NULL)."""
    import pyarrow as pa

    if isinstance(column, tuple):
        kind, n, *buffers = column
        return pa.Array.from_buffers(getattr(pa, _ARROW_TYPES[kind])(), n, [pa.py_buffer(b) for b in buffers])
    return pa.array(column, from_pandas=True)
