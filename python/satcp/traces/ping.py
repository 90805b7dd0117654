"""Importer for the text output of iputils ``ping`` (Linux), with or without
``-D`` (a ``[unix time]`` prefix on each line) and with ``-O`` (a ``no
answer yet for icmp_seq=N`` line for each probe still unanswered when the
next is sent).

Source: iputils 20221126 (``ping/ping_common.c``: the reply line ``N bytes
from ADDR: icmp_seq=N ttl=N time=X ms``, the ``-O`` line, the summary
``N packets transmitted, N received, ...``), checked on files this
machine's ping wrote (``tests/python/data/README.md``).

The result is one probe per ``icmp_seq`` on a fixed grid: probe ``k`` at
``k * interval`` with iputils' numbering from 1 (``icmp_seq=1`` is probe 0;
a file whose sequence starts at 0 is read from 0). Choices:

* The interval: ``-D`` timestamps give it (the median over consecutive
  replies of the send time ``timestamp - rtt`` per sequence step, rounded
  to the millisecond); without ``-D`` the output does not say, and the
  caller passes ping's ``-i`` value (``--ping-interval``, default 1 s,
  ping's own default). Times are then sequence x interval: ping's
  scheduler keeps that grid on average; a probe's real send time may
  differ by a few milliseconds.
* A probe is lost when no reply with its sequence number arrived: a ``no
  answer yet`` line, an ICMP error (``From ADDR icmp_seq=N Destination
  Host Unreachable``), or a gap in the sequence (ping without ``-O`` prints
  nothing for a lost probe). A reply printed after ``no answer yet`` is
  late, not lost: the reply counts. The summary's ``packets transmitted``
  extends the grid over probes lost at the end; without a summary (ping
  killed) the grid ends at the highest sequence seen. Duplicates
  (``(DUP!)``) are ignored. Sequence numbers wrap at 65536, as iputils'
  16-bit ``icmp_seq`` does.
* Lines iputils prints besides these (the ``PING`` header, the statistics
  block, ``ping: ...`` warnings such as ``sendmsg: Network is
  unreachable``) are skipped; any other line is an error naming it.
"""

from __future__ import annotations

import math
import re

import numpy as np

from .measurement import Measurement, Probes, TraceInputError

_TS = r"(?:\[(?P<ts>\d+(?:\.\d+)?)\]\s*)?"
_REPLY = re.compile(_TS + r"\d+ bytes from (?P<addr>.+?): icmp_seq=(?P<seq>\d+)(?P<rest>.*)$")
_TIME = re.compile(r"\btime[=<](?P<rtt>\d+(?:\.\d+)?) ms\b")
_NO_ANSWER = re.compile(_TS + r"no answer yet for icmp_seq=(?P<seq>\d+)\s*$")
_ICMP_ERROR = re.compile(_TS + r"From \S+.*?icmp_seq=(?P<seq>\d+)")
_TRANSMITTED = re.compile(r"^(?P<n>\d+) packets transmitted, \d+ (?:packets )?received")
_SKIP = re.compile(r"^(?:PING |--- .* ping statistics ---|rtt min/avg/max|round-trip|pipe \d+|ping: |WARNING: |Warning: )")

SEQ_WRAP = 1 << 16


def looks_like(text: str) -> bool:
    head = text[:8192]
    return bool(re.search(r"^PING \S+? ?\(", head, re.M) or re.search(r"bytes from .*icmp_seq=", head)
                or re.search(r"no answer yet for icmp_seq=", head))


def read(text: str, source: str, interval_s: float | None = None) -> Measurement:
    """``interval_s``: ping's ``-i``; None = from ``-D`` timestamps, else 1 s."""
    replies: dict[int, float] = {}
    lost: set[int] = set()
    sends: list[tuple[int, float]] = []  # (sequence, send time) of replies with -D
    transmitted = None
    last_raw = None
    wraps = 0
    duplicates = 0

    def unwrap(raw: int) -> int:
        """icmp_seq is 16 bits: a jump back by more than half the range is a
        wrap; a late reply from before the last wrap keeps the old count."""
        nonlocal last_raw, wraps
        if last_raw is None:
            last_raw = raw
        elif raw < last_raw - SEQ_WRAP // 2:
            wraps += 1
            last_raw = raw
        elif raw > last_raw + SEQ_WRAP // 2:
            return raw + (wraps - 1) * SEQ_WRAP
        else:
            last_raw = max(last_raw, raw)
        return raw + wraps * SEQ_WRAP

    first_seq = None
    for n, line in enumerate(text.splitlines(), 1):
        s = line.strip()
        if not s or _SKIP.match(s):
            continue
        m = _TRANSMITTED.match(s)
        if m:
            transmitted = int(m.group("n"))
            continue
        m = _REPLY.match(s)
        if m:
            seq = unwrap(int(m.group("seq")))
            first_seq = seq if first_seq is None else min(first_seq, seq)
            if "(DUP!)" in m.group("rest"):
                duplicates += 1
                continue
            t = _TIME.search(m.group("rest"))
            if t is None:
                raise TraceInputError(source, f"line {n}",
                                      f"reply without time=X ms ({s!r}); expected a timed reply "
                                      "(ping -s below 16 bytes cannot time its replies)")
            rtt = float(t.group("rtt"))
            replies[seq] = rtt
            if m.group("ts"):
                sends.append((seq, float(m.group("ts")) - rtt / 1e3))
            continue
        m = _NO_ANSWER.match(s) or _ICMP_ERROR.match(s)
        if m:
            seq = unwrap(int(m.group("seq")))
            first_seq = seq if first_seq is None else min(first_seq, seq)
            lost.add(seq)
            continue
        raise TraceInputError(source, f"line {n}",
                              f"unrecognised line {s[:80]!r}; expected iputils ping output: "
                              "'N bytes from ADDR: icmp_seq=N ttl=N time=X ms', 'no answer yet for icmp_seq=N', "
                              "'From ADDR icmp_seq=N ...' or the statistics block")
    if not replies and not lost:
        raise TraceInputError(source, "", "no probe line (a reply or 'no answer yet'); "
                                          "expected ping's per-probe output (not ping -q)")
    base = 0 if first_seq == 0 else 1
    last = max(max(replies, default=0), max(lost, default=0))
    count = last - base + 1
    if transmitted is not None and wraps == 0:
        count = max(count, transmitted)
    rtt_ms = np.full(count, math.nan)
    for seq, v in replies.items():
        rtt_ms[seq - base] = v
    lost_frac = np.where(np.isfinite(rtt_ms), 0.0, 1.0)

    how = "given"
    if interval_s is None:
        if len(sends) >= 2:
            sends.sort()
            steps = [(t1 - t0) / (q1 - q0) for (q0, t0), (q1, t1) in zip(sends, sends[1:]) if q1 > q0]
            interval_s = round(float(np.median(steps)), 3)
            how = "from the -D timestamps"
            if interval_s <= 0:
                raise TraceInputError(source, "", "the -D timestamps do not increase with icmp_seq; "
                                                  "pass the ping interval (--ping-interval)")
        else:
            interval_s = 1.0
            how = "ping's default (no -D timestamps; pass --ping-interval for ping -i)"
    m = Measurement(source=source, tool="ping",
                    probes=Probes(interval_s=interval_s, rtt_ms=rtt_ms, lost=lost_frac))
    m.notes.append(f"ping: {count} probes, {int(lost_frac.sum())} without reply, interval {interval_s:g} s ({how})"
                   + (f", {duplicates} duplicates ignored" if duplicates else ""))
    return m
