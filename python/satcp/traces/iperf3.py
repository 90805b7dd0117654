"""Importer for iperf3's JSON output (``iperf3 -J``, and the one-object-per-
line ``--json-stream`` of iperf3 3.17+): its ``intervals``.

Source: the JSON iperf3 3.12 writes (``src/iperf_api.c``: ``start``,
``intervals[]`` each with ``streams[]`` and ``sum``, ``end``), checked on
files this machine's iperf3 wrote (``tests/python/data/README.md``).

What is read, per interval (``intervals[i].sum``, or the sum of
``streams[]`` when a file has no ``sum``):

* ``bytes`` over ``start``..``end``: the volume. Several streams (``-P``)
  are summed, as iperf3's own ``sum`` does.
* the TCP sender side's ``streams[].rtt`` (microseconds; the kernel's
  smoothed RTT, ``tcpi_rtt``, when the interval ended): the mean over the
  streams that report one becomes the RTT probe of that interval. The
  receiver side has no RTT.
* UDP on the receiving side: ``lost_packets / packets`` per interval (the
  ``lost_percent`` iperf3 prints) becomes the interval's loss. TCP gives no
  loss probability: ``retransmits`` count segments sent again, not packets
  the path lost, and are not turned into one.

Choices where the format leaves room:

* Which side: a client (``-c``) file of a normal test is the sender's view
  (bytes handed to the socket), a ``-R`` client file and a server file of a
  normal test the receiver's (bytes read: the goodput). Both are accepted;
  the note the importer returns says which one it read
  (``intervals[].sum.sender``), because over one-second intervals the
  sender's bytes run ahead of the receiver's by what the socket buffer
  holds.
* ``--omit`` (``-O``): intervals marked ``"omitted": true`` are dropped,
  and the times restart at the first interval kept (iperf3 restarts its
  clock there too), so the series starts at 0.
* ``--bidir`` tests carry two directions (``sum_bidir_reverse``) and are
  refused: measure each direction on its own.
* The RTT probe grid is the median interval length rounded to the
  millisecond (iperf3's intervals run a few microseconds long).
"""

from __future__ import annotations

import json
import math
from typing import Any

import numpy as np

from .measurement import IntervalLoss, Measurement, Probes, TraceInputError, Volume


def looks_like(text: str) -> bool:
    head = text.lstrip()[:4096]
    if not head.startswith("{"):
        return False
    return ('"intervals"' in head or '"event"' in head) and '"start"' in head


def _number(d: dict, key: str, source: str, where: str) -> float:
    v = d.get(key)
    if isinstance(v, bool) or not isinstance(v, (int, float)) or not math.isfinite(v):
        raise TraceInputError(source, f"{where}.{key}", f"expected a finite number, found {v!r}")
    return float(v)


def _document(text: str, source: str) -> dict[str, Any]:
    """The -J object, or the --json-stream events put back into one."""
    try:
        return json.loads(text)
    except json.JSONDecodeError as e:
        first_error = e
    # --json-stream: one {"event": ..., "data": ...} per line
    doc: dict[str, Any] = {"intervals": []}
    for n, line in enumerate(text.splitlines(), 1):
        if not line.strip():
            continue
        try:
            ev = json.loads(line)
        except json.JSONDecodeError as e:
            if n == 1:
                e = first_error
            raise TraceInputError(source, f"line {e.lineno if n == 1 else n}",
                                  f"not JSON ({e.msg}); expected iperf3 -J output "
                                  "(or --json-stream, one event per line)") from None
        if not isinstance(ev, dict) or "event" not in ev:
            raise TraceInputError(source, f"line {n}", "expected a --json-stream event {\"event\": ..., \"data\": ...}")
        kind, data = ev["event"], ev.get("data")
        if kind == "interval":
            doc["intervals"].append(data)
        elif kind in ("start", "end"):
            doc[kind] = data
        elif kind == "error":
            doc["error"] = data
    return doc


def read(text: str, source: str) -> Measurement:
    doc = _document(text, source)
    if not isinstance(doc, dict):
        raise TraceInputError(source, "", "expected a JSON object as iperf3 -J writes")
    intervals = doc.get("intervals")
    if doc.get("error") and not intervals:
        raise TraceInputError(source, "error", f"iperf3 reported an error and measured nothing: {doc['error']}")
    if not isinstance(intervals, list):
        raise TraceInputError(source, "intervals", "expected the array of intervals iperf3 -J writes")
    start = doc.get("start") if isinstance(doc.get("start"), dict) else {}
    protocol = str((start.get("test_start") or {}).get("protocol", "TCP")).upper()

    starts, ends, volume, rtts, losses, senders = [], [], [], [], [], set()
    omitted = 0
    for i, iv in enumerate(intervals):
        where = f"intervals[{i}]"
        if not isinstance(iv, dict):
            raise TraceInputError(source, where, f"expected an object with streams and sum, found {iv!r}")
        if "sum_bidir_reverse" in iv:
            raise TraceInputError(source, f"{where}.sum_bidir_reverse",
                                  "a --bidir test (two directions) is not supported: measure each direction alone")
        streams = iv.get("streams") if isinstance(iv.get("streams"), list) else []
        s = iv.get("sum")
        if not isinstance(s, dict):
            if not streams:
                raise TraceInputError(source, f"{where}.sum", "expected an object with start, end and bytes")
            s = {"start": streams[0].get("start"), "end": streams[0].get("end"),
                 "bytes": sum(_number(x, "bytes", source, f"{where}.streams[{k}]") for k, x in enumerate(streams)),
                 "omitted": streams[0].get("omitted", False), "sender": streams[0].get("sender")}
            swhere = f"{where}.streams[0]"
        else:
            swhere = f"{where}.sum"
        if s.get("omitted") is True:
            omitted += 1
            continue
        t0, t1 = _number(s, "start", source, swhere), _number(s, "end", source, swhere)
        b = _number(s, "bytes", source, f"{where}.sum" if "bytes" in s else swhere)
        if t1 <= t0:
            raise TraceInputError(source, f"{swhere}.end", f"expected end > start ({t0}), found {t1}")
        if b < 0:
            raise TraceInputError(source, f"{swhere}.bytes", f"expected bytes >= 0, found {b}")
        if "sender" in s:
            senders.add(bool(s["sender"]))
        starts.append(t0)
        ends.append(t1)
        volume.append(b)
        stream_rtts = [float(x["rtt"]) for x in streams
                       if isinstance(x, dict) and isinstance(x.get("rtt"), (int, float)) and x["rtt"] > 0]
        rtts.append(np.mean(stream_rtts) / 1e3 if stream_rtts else math.nan)
        if "lost_packets" in s and "packets" in s:
            pk = _number(s, "packets", source, swhere)
            lost = _number(s, "lost_packets", source, swhere)
            losses.append(lost / pk if pk > 0 else math.nan)
        else:
            losses.append(math.nan)
    if not starts:
        raise TraceInputError(source, "intervals",
                              "no interval to read (empty, or every interval omitted with --omit)")

    origin = starts[0]
    start_s = np.array(starts) - origin
    end_s = np.array(ends) - origin
    # consecutive intervals: each starts where the last ended (iperf3's own
    # rounding aside); a gap would make the series lie about the time
    gaps = np.abs(start_s[1:] - end_s[:-1])
    if len(gaps) and gaps.max() > 0.01:
        k = int(np.argmax(gaps)) + 1
        raise TraceInputError(source, f"intervals[{k + omitted}].sum.start",
                              f"expected the end of the previous interval ({end_s[k - 1] + origin:.6f} s), "
                              f"found {start_s[k] + origin:.6f} s")
    start_s[1:] = end_s[:-1]
    m = Measurement(source=source, tool="iperf3",
                    volume=Volume(start_s, end_s, np.array(volume, dtype=float)))
    step = round(float(np.median(end_s - start_s)), 3)
    rtt = np.array(rtts)
    if np.isfinite(rtt).any():
        m.probes = Probes(interval_s=step, rtt_ms=rtt, lost=np.full(len(rtt), math.nan))
    loss = np.array(losses)
    if np.isfinite(loss).any():
        m.loss = IntervalLoss(interval_s=step, probability=loss)
    side = {True: "the sender's side (bytes written to the socket)",
            False: "the receiver's side (bytes read: goodput)"}
    m.notes.append(f"iperf3 {protocol}, {len(starts)} intervals of ~{step:g} s"
                   + (f" ({omitted} omitted intervals dropped)" if omitted else "")
                   + (f", {side[senders.pop()]}" if len(senders) == 1 else ""))
    return m
