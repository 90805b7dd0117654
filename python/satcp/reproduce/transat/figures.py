"""The TRANSAT paper's sequence-number figures, redrawn from satcp runs,
each with the paper's claim and a computed verdict (spec 001 section 5.3):

* Fig. 2: the slow-start overshoot of Table 1 row 3 (50-packet buffer, no
  errors), Reference TCP against Enhanced TCP: "a large number of packets
  in the window is dropped"; NewReno repairs one per round trip, SACK
  "recovers much more quickly".
* Fig. 7: a burst at t = 4.2 s (the paper's loses packets 43-48), Reference
  TCP (NewReno) against SACK: "NewReno is able to recover just one segment
  per RTT"; SACK recovers faster.
* Fig. 8: no errors against S-LACP with its 550 ms delay on the same
  burst, having recovered every loss there as the paper's Fig. 8b shows
  (residual PER 0 in this burst): no loss and no RTO, the burst's packets
  reach the receiver about half a second late.

The runs are deterministic scenario runs made here (the Table 3 setting:
one 1 MB flow, the 50-packet buffer), sampled every 5 ms: packets sent
(the sender's highest sequence) and packets delivered in order at the
receiver. The burst is a replayed error interval (`model = "trace"`) from
4.2 s; its length (60 ms) is a choice: long enough to catch one slow-start
train of about six packets, as the paper's did.
"""

from __future__ import annotations

import copy
import math
import struct
import tomllib
from dataclasses import dataclass
from pathlib import Path

import numpy as np

import satcp

from ...plotting import pyplot
from ..kit.figures import axis_label, legend
from ..kit.claims import Claim, judged
from .experiments import DROPTAIL_50

BURST = (4.2, 4.26)
PACKET = 960  # payload bytes per packet


@dataclass
class Trace:
    label: str
    t: np.ndarray
    sent: np.ndarray  # packets
    delivered: np.ndarray  # packets
    retransmissions: int
    timeouts: int
    # (time, data packet number) of every data packet the satellite link
    # sent (its transmission start), every one H2 received, and every one
    # H1 sent (the overshoot's losses are at the satellite queue: only the
    # sender's side shows them sent twice)
    sat: list[tuple[float, int]]
    rx: list[tuple[float, int]]
    snd: list[tuple[float, int]]


def read_pcap(path: Path) -> list[tuple[float, int, int]]:
    """(time s, TCP sequence number, payload bytes) of every TCP segment in
    a satcp capture (libpcap, nanosecond timestamps, Ethernet + IPv4 +
    TCP; docs/models/pcap.md)."""
    data = path.read_bytes()
    magic, = struct.unpack_from("<I", data, 0)
    if magic != 0xA1B23C4D:
        raise ValueError(f"{path}: not a nanosecond pcap")
    out, off = [], 24
    while off + 16 <= len(data):
        sec, nsec, incl, _orig = struct.unpack_from("<IIII", data, off)
        frame = data[off + 16: off + 16 + incl]
        off += 16 + incl
        if len(frame) < 54 or frame[12:14] != b"\x08\x00" or frame[23] != 6:
            continue
        ihl = (frame[14] & 15) * 4
        total = struct.unpack_from(">H", frame, 16)[0]
        tcp = 14 + ihl
        seq, = struct.unpack_from(">I", frame, tcp + 4)
        doff = (frame[tcp + 12] >> 4) * 4
        out.append((sec + nsec / 1e9, seq, total - ihl - doff))
    return out


def _packets(segments: list[tuple[float, int, int]]) -> list[tuple[float, int]]:
    """Data segments as (time, packet number from 1), numbered from the
    lowest sequence number seen."""
    data = [(t, q) for t, q, n in segments if n > 0]
    if not data:
        return []
    base = min(q for _, q in data)
    return [(t, (q - base) // PACKET + 1) for t, q in data]


def _base(root: Path) -> dict:
    s = tomllib.loads((root / "scenarios" / "transat_table1.toml").read_text())
    s["links"][1]["queue_ab"] = {"kind": "droptail", "packets": DROPTAIL_50}
    s["run"]["sample_interval"] = "5ms"
    return s


def _trace(label: str, scenario: dict, work: Path, name: str) -> Trace:
    sat, rx, snd = work / f"{name}_sat.pcap", work / f"{name}_rx.pcap", work / f"{name}_snd.pcap"
    scenario["captures"] = [{"link": "satellite", "dir": "ab", "file": str(sat), "snaplen": 96},
                            {"link": "access2", "dir": "ab", "file": str(rx), "snaplen": 96},
                            {"link": "access1", "dir": "ab", "file": str(snd), "snaplen": 96}]
    r = satcp.run(scenario)
    f = r.summary["flows"][0]
    fs = r.series
    fs = fs[fs["flow"] == 0]
    return Trace(label, fs["time_s"].to_numpy(), fs["snd_max_bytes"].to_numpy() / PACKET,
                 fs["delivered_bytes"].to_numpy() / PACKET, int(f["retransmissions"]), int(f["timeouts"]),
                 _packets(read_pcap(sat)), _packets(read_pcap(rx)), _packets(read_pcap(snd)))


def traces(root: Path, work: Path) -> dict[str, Trace]:
    """The four runs: Ref. and SACK through a full-loss burst, Ref. without
    errors and with S-LACP at 1% on the same burst."""
    work.mkdir(parents=True, exist_ok=True)
    full = work / "burst_full.csv"
    full.write_text(f"start,end,per\n{BURST[0]},{BURST[1]},1\n")
    slacp = work / "burst_slacp1.csv"
    # the paper's Fig. 8b: S-LACP recovered every loss of the burst
    slacp.write_text(f"start,end,per\n{BURST[0]},{BURST[1]},0\n")
    base = _base(root)
    out = {}
    for key, tcp in (("ref", {}), ("sack", {"variant": "sack", "sack": True})):
        s = copy.deepcopy(base)
        s["flows"][0]["tcp"].update(tcp)
        s["links"][1]["errors_ab"] = {"model": "trace", "file": str(full)}
        out[f"burst_{key}"] = _trace(f"{'Ref. TCP (NewReno)' if key == 'ref' else 'SACK'}, burst at 4.2 s", s,
                                     work, f"burst_{key}")
    out["ideal"] = _trace("Ref. TCP, no errors", copy.deepcopy(base), work, "ideal")
    s = copy.deepcopy(base)
    s["flows"][0]["tcp"].update({"variant": "enhanced", "sack": True, "initial_window": 4, "limited_transmit": True})
    out["enhanced"] = _trace("Enhanced TCP, no errors", s, work, "enhanced")
    s = copy.deepcopy(base)
    s["links"][1]["errors_ab"] = {"model": "trace", "file": str(slacp), "burst_delay": "550ms"}
    out["slacp"] = _trace("Ref. TCP, S-LACP (no residual loss) + 550 ms on the burst", s, work, "slacp")
    return out


def _window(tr: Trace, lo: float, hi: float) -> np.ndarray:
    return (tr.t >= lo) & (tr.t <= hi)


def figure(tr: dict[str, Trace], a: str, b: str, title: str, profile: str, window: tuple[float, float] = (3.0, 12.0),
           burst: bool = True):
    plt = pyplot()
    fig, axes = plt.subplots(1, 2, figsize=(11, 4), sharey=True)
    for ax, key in zip(axes, (a, b)):
        x = tr[key]
        m = _window(x, *window)
        ax.plot(x.t[m], x.sent[m], color="tab:red", lw=1.2, label="sent (highest packet)")
        ax.plot(x.t[m], x.delivered[m], color="tab:green", lw=1.2, label="delivered in order")
        if burst:
            ax.axvspan(*BURST, color="gold", alpha=0.5, label="burst")
        ax.set_title(x.label, fontsize=9)
        ax.set_xlabel(axis_label("time", "s"))
        ax.grid(alpha=0.3)
    axes[0].set_ylabel(axis_label("packet number", f"{PACKET}-byte packets"))
    legend(axes[0], profile, fontsize=8, loc="upper left")
    fig.suptitle(title, fontsize=10)
    fig.tight_layout()
    return fig


def burst_packets(tr: Trace) -> list[int]:
    """Data packets whose satellite transmission started in the burst."""
    return sorted({k for t, k in tr.sat if BURST[0] <= t < BURST[1]})


def retransmission_times(tr: Trace, packets: list[int]) -> list[float]:
    """When each of `packets` was sent over the satellite link again."""
    first: dict[int, float] = {}
    again = []
    for t, k in tr.sat:
        if k in packets:
            if k in first:
                again.append(t)
            else:
                first[k] = t
    return again


def arrival(tr: Trace, k: int) -> float:
    return min((t for t, q in tr.rx if q == k), default=math.nan)


def overshoot_repair(tr: Trace) -> tuple[int, float]:
    """Retransmissions the sender made and the time from the first to the
    last."""
    first: dict[int, float] = {}
    again = []
    for t, k in tr.snd:
        if k in first:
            again.append(t)
        else:
            first[k] = t
    return len(again), (max(again) - min(again)) if len(again) > 1 else 0.0


def figure_claims(tr: dict[str, Trace]) -> list[Claim]:
    ref, sack = tr["burst_ref"], tr["burst_sack"]
    rtt = 0.59
    n_ref, span_ref2 = overshoot_repair(tr["ideal"])
    n_enh, span_enh = overshoot_repair(tr["enhanced"])
    fig2 = [judged("fig2_overshoot_one_per_rtt", "Fig. 2: the slow-start overshoot drops many packets, which NewReno "
                  "repairs one per round trip", bool(n_ref >= 40 and span_ref2 >= 0.8 * (n_ref - 1) * rtt),
                  f"Ref. TCP resent {n_ref} packets over {span_ref2:.1f} s ({n_ref - 1} x {rtt} s = "
                  f"{(n_ref - 1) * rtt:.1f} s)"),
            judged("fig2_enhanced_quick", "Fig. 2: Enhanced TCP (SACK) recovers much more quickly (here: in under a "
                  "tenth of NewReno's time)", bool(n_enh > 0 and span_enh < 0.1 * span_ref2),
                  f"Enhanced TCP resent {n_enh} packets over {span_enh:.2f} s ({span_enh / rtt:.1f} round trips), "
                  f"Ref. TCP {n_ref} over {span_ref2:.1f} s")]
    lost = burst_packets(ref)
    out = list(fig2)
    rx_ref = retransmission_times(ref, lost)
    rx_sack = retransmission_times(sack, burst_packets(sack))
    span_ref = (max(rx_ref) - min(rx_ref)) if len(rx_ref) > 1 else 0.0
    span_sack = (max(rx_sack) - min(rx_sack)) if len(rx_sack) > 1 else 0.0
    lo = f"{lost[0]}-{lost[-1]}" if lost else "none"
    out.append(judged("fig7_newreno_one_per_rtt", "Fig. 7: after a burst NewReno recovers just one segment per RTT",
                     bool(len(rx_ref) >= 2 and span_ref >= 0.8 * (len(rx_ref) - 1) * rtt),
                     f"the burst took packets {lo}; NewReno resent them over {span_ref:.2f} s "
                     f"({len(rx_ref)} retransmissions, {(len(rx_ref) - 1)} x {rtt} s = {(len(rx_ref) - 1) * rtt:.2f} s)"))
    out.append(judged("fig7_sack_faster", "Fig. 7: SACK recovers the same burst faster (within one round trip)",
                     bool(len(rx_sack) >= 1 and span_sack < rtt),
                     f"SACK resent {len(rx_sack)} packets over {span_sack:.2f} s"))
    ideal, sl = tr["ideal"], tr["slacp"]
    delayed = burst_packets(sl)
    late = [arrival(sl, k) - arrival(ideal, k) for k in delayed]
    late = [x for x in late if not math.isnan(x)]
    resent = retransmission_times(sl, sorted({k for _, k in sl.sat if k <= (delayed[-1] + 30 if delayed else 0)}))
    out.append(judged("fig8_no_rto", "Fig. 8: with S-LACP no loss and no RTO follow the burst",
                     bool(sl.timeouts == 0 and not resent),
                     f"timeouts {sl.timeouts}; packets resent around the burst: {len(resent)}"))
    def largest_burst(x: Trace) -> int:
        # packets the sender put out within 20 ms, in the 1.5 s after the burst
        m = _window(x, BURST[1], BURST[1] + 1.5)
        s = x.sent[m]
        return int(max((s[i + 4] - s[i] for i in range(len(s) - 4)), default=0))

    b_ideal, b_slacp = largest_burst(ideal), largest_burst(sl)
    out.append(judged("fig8_sender_burst", "Fig. 8: the delayed ACKs release a burst of packets from the sender "
                     "(the paper's 67-78)", bool(b_slacp > b_ideal),
                     f"largest 20 ms burst after the error burst: {b_slacp} packets with S-LACP, {b_ideal} without"))
    med = float(np.median(late)) if late else math.nan
    out.append(judged("fig8_half_second_late", "Fig. 8: the burst's packets reach the receiver roughly half a "
                     "second late", bool(0.4 <= med <= 0.7) if late else None,
                     f"packets {delayed[0] if delayed else '-'}-{delayed[-1] if delayed else '-'} arrived "
                     f"{med:.2f} s later (median) than without errors"))
    return out
