"""Importer for a Starlink dish's per-second history: the gRPC ``get_history``
response as JSON, and the bulk-history CSV that starlink-grpc-tools write.

Sources: sparky8512/starlink-grpc-tools (``starlink_json.py``, which reads
the JSON ``grpcurl -plaintext -d '{"get_history":{}}' 192.168.100.1:9200
SpaceX.API.Device.Device/Handle`` prints; ``get_history_notes.txt``, the
tools' notes on what the fields mean; ``dish_grpc_text.py``, whose
``bulk_history`` mode writes the CSV; ``starlink_grpc.py``'s
``history_bulk_field_names``). The fields are not documented by SpaceX;
the meanings below are those notes', observed, not specified.

Accepted inputs:

* JSON: ``{"dishGetHistory": {...}}`` as grpcurl writes it (protobuf's
  JSON mapping: camelCase names, the 64-bit ``current`` as a string), the
  inner object alone, or the same with the .proto's snake_case names
  (``pop_ping_drop_rate``, ...). Arrays read: ``popPingDropRate``,
  ``popPingLatencyMs``, ``downlinkThroughputBps``, ``uplinkThroughputBps``.
* CSV: ``dish_grpc_text.py bulk_history`` output, with the header line its
  ``-H`` prints (``datetimestamp_utc,pop_ping_drop_rate,
  pop_ping_latency_ms,downlink_throughput_bps,uplink_throughput_bps,...``)
  or without it (then the columns are taken in that order, the tools'
  field order).

The ring buffer (JSON): the arrays are fixed-size ring buffers (43,200
samples, 12 h, when the notes were written; the size is read from the
arrays, not assumed), one sample per second; ``current`` counts every
sample ever written since the dish booted. With ``current`` < size the
valid samples are indices 0..current-1 in order; otherwise all are valid,
the oldest at ``current mod size``, running to the end and wrapping to
``current mod size - 1``, the newest. ``last`` keeps only the newest
samples (the minutes a test ran, out of 12 hours).

What each sample gives (one per second):

* volume: ``downlinkThroughputBps`` (or ``uplink...`` with
  ``direction="up"``) / 8 bytes over that second. This is the dish's
  *usage*, what was carried, not what could have been: it is the link's
  capacity only while a saturating transfer ran (run iperf3 during the
  recording, docs/traces.md).
* RTT probe: ``popPingLatencyMs``, the dish's ping to its point of
  presence. When ``popPingDropRate`` is 1 the dish repeats the previous
  latency (the notes), so such a sample has no RTT (NaN).
* loss: ``popPingDropRate``, the fraction of the second's pings lost,
  clamped to 0..1.
"""

from __future__ import annotations

import csv
import io
import json
import math
from datetime import datetime
from typing import Any

import numpy as np

from .measurement import IntervalLoss, Measurement, Probes, TraceInputError, Volume

FIELDS = {  # snake_case (the .proto, the tools' CSV) -> camelCase (grpcurl's JSON)
    "pop_ping_drop_rate": "popPingDropRate",
    "pop_ping_latency_ms": "popPingLatencyMs",
    "downlink_throughput_bps": "downlinkThroughputBps",
    "uplink_throughput_bps": "uplinkThroughputBps",
}
CSV_ORDER = ["datetimestamp_utc", "pop_ping_drop_rate", "pop_ping_latency_ms", "downlink_throughput_bps",
             "uplink_throughput_bps", "snr", "scheduled", "obstructed"]
DIRECTIONS = {"down": "downlink_throughput_bps", "up": "uplink_throughput_bps"}


def looks_like(text: str) -> bool:
    head = text.lstrip()[:4096]
    if head.startswith("{"):
        return any(k in head for k in ("dishGetHistory", "popPingDropRate", "pop_ping_drop_rate"))
    first = head.split("\n", 1)[0]
    return first.startswith("datetimestamp_utc,") and "pop_ping_drop_rate" in first


def _value(v: Any, source: str, where: str) -> float:
    if isinstance(v, bool):
        return float(v)
    try:
        x = float(v)  # proto3 JSON writes NaN/Infinity as strings
    except (TypeError, ValueError):
        raise TraceInputError(source, where, f"expected a number, found {v!r}") from None
    return x


def ring_order(current: int, size: int, last: int | None = None) -> list[int]:
    """Indices of the valid samples, oldest first (see the module doc)."""
    valid = min(size, current)
    if last is not None:
        valid = min(valid, last)
    return [(current - valid + k) % size for k in range(valid)]


def _from_json(doc: Any, source: str, last: int | None) -> dict[str, np.ndarray]:
    if not isinstance(doc, dict):
        raise TraceInputError(source, "", "expected a JSON object (grpcurl's get_history response)")
    hist, prefix = doc, ""
    for key in ("dishGetHistory", "dish_get_history"):
        if key in doc:
            hist, prefix = doc[key], key + "."
            break
    if not isinstance(hist, dict):
        raise TraceInputError(source, prefix.rstrip("."), "expected an object with current and the history arrays")
    arrays: dict[str, list] = {}
    size = None
    for snake, camel in FIELDS.items():
        name = camel if camel in hist else snake
        v = hist.get(name)
        if not isinstance(v, list):
            raise TraceInputError(source, prefix + camel, f"expected an array (one sample per second), found {v!r}"
                                  if name in hist else "missing; expected an array (one sample per second)")
        if size is None:
            size = len(v)
        elif len(v) != size:
            raise TraceInputError(source, prefix + name,
                                  f"expected {size} samples like {prefix + FIELDS['pop_ping_drop_rate']}, "
                                  f"found {len(v)}")
        arrays[snake] = v
    cur = hist.get("current")
    try:
        current = int(cur)
    except (TypeError, ValueError):
        raise TraceInputError(source, prefix + "current",
                              f"expected the sample counter (an integer, grpcurl writes it as a string), found {cur!r}"
                              ) from None
    if current <= 0 or not size:
        raise TraceInputError(source, prefix + "current", f"no samples (current = {current}, arrays of {size})")
    order = ring_order(current, size, last)
    return {k: np.array([_value(v[i], source, f"{prefix}{FIELDS[k]}[{i}]") for i in order]) for k, v in arrays.items()}


def _from_csv(text: str, source: str, last: int | None) -> dict[str, np.ndarray]:
    rows = list(csv.reader(io.StringIO(text)))
    header, first = CSV_ORDER, 0
    if rows and rows[0] and rows[0][0].strip() == "datetimestamp_utc":
        header, first = [h.strip() for h in rows[0]], 1
    for f in FIELDS:
        if f not in header:
            raise TraceInputError(source, "line 1", f"header without {f}; expected dish_grpc_text.py's bulk_history "
                                                     "columns (" + ",".join(CSV_ORDER) + ")")
    cols = {f: header.index(f) for f in FIELDS}
    ts_col = header.index("datetimestamp_utc") if "datetimestamp_utc" in header else None
    out: dict[str, list[float]] = {f: [] for f in FIELDS}
    prev = None
    for n, row in enumerate(rows[first:], first + 1):
        if not row or not any(c.strip() for c in row):
            continue
        if len(row) < len(header):
            raise TraceInputError(source, f"line {n}", f"{len(row)} fields; expected {len(header)} ({','.join(header)})")
        if ts_col is not None:
            try:
                t = datetime.fromisoformat(row[ts_col].strip())
            except ValueError:
                raise TraceInputError(source, f"line {n}, datetimestamp_utc",
                                      f"expected an ISO time such as 2024-05-01T12:00:00, found {row[ts_col]!r}") from None
            if prev is not None and (t - prev).total_seconds() != 1:
                raise TraceInputError(source, f"line {n}, datetimestamp_utc",
                                      f"expected one sample per second after {prev.isoformat()}, found {t.isoformat()}")
            prev = t
        for f, c in cols.items():
            cell = row[c].strip()
            # the tools write an empty latency where every ping was lost
            out[f].append(math.nan if cell == "" and f == "pop_ping_latency_ms" else _value(cell, source, f"line {n}, {f}"))
    if not out["pop_ping_drop_rate"]:
        raise TraceInputError(source, "", "no sample rows")
    keep = slice(-last, None) if last else slice(None)
    return {f: np.array(v)[keep] for f, v in out.items()}


def read(text: str, source: str, direction: str = "down", last: int | None = None) -> Measurement:
    if direction not in DIRECTIONS:
        raise ValueError(f"direction {direction!r}: expected one of {list(DIRECTIONS)}")
    if last is not None and last <= 0:
        raise ValueError(f"last = {last}: expected a number of samples > 0")
    if text.lstrip().startswith("{"):
        try:
            doc = json.loads(text)
        except json.JSONDecodeError as e:
            raise TraceInputError(source, f"line {e.lineno}, column {e.colno}",
                                  f"not JSON ({e.msg}); expected grpcurl's get_history response") from None
        cols = _from_json(doc, source, last)
        form = "get_history JSON"
    else:
        cols = _from_csv(text, source, last)
        form = "bulk_history CSV"
    drop = np.clip(cols["pop_ping_drop_rate"], 0.0, 1.0)
    rtt = np.where(drop < 1.0, cols["pop_ping_latency_ms"], math.nan)
    n = len(drop)
    bps = cols[DIRECTIONS[direction]]
    bad = np.flatnonzero(~np.isfinite(bps) | (bps < 0))
    if len(bad):
        raise TraceInputError(source, f"{DIRECTIONS[direction]}, sample {bad[0]}",
                              f"expected a throughput >= 0 b/s, found {bps[bad[0]]!r}")
    t = np.arange(n, dtype=float)
    m = Measurement(source=source, tool="starlink",
                    volume=Volume(t, t + 1.0, bps / 8.0),
                    probes=Probes(interval_s=1.0, rtt_ms=rtt, lost=drop),
                    loss=IntervalLoss(interval_s=1.0, probability=drop))
    m.notes.append(f"Starlink {form}: {n} one-second samples, {direction}link usage as volume, "
                   f"{int((drop >= 1).sum())} s with every ping lost")
    return m
