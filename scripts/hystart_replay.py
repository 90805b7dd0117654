#!/usr/bin/env python3
"""Replay Linux CUBIC's HyStart ACK-train test over a sender-side capture.

    python scripts/hystart_replay.py SENDER.pcap SENDER_IP [ROUNDS]

For every round (`bictcp_hystart_reset`: a round begins with the first ACK
that acknowledges past the snd_nxt of the last round's start) it prints
the data in flight at its start, its ACKs, how long its ACK train lasted
(ACKs at most 2 ms apart, `hystart_ack_delta_us`), where the train broke
and the round's first gaps, and marks the ACK at which the train passes
half the minimum RTT (HyStart's exit, once cwnd >= 16 segments). Works on
the kernel's captures (`crosscheck_linux.run_kernel(..., capture=PATH)`
writes `PATH-sender.pcap`) and on satcp's (a capture of the data
direction at `timestamp = "accept"` merged with one of the ACK direction
shifted by the one-way delay). docs/validation-linux.md shows its output
for both. Needs tshark.
"""

import subprocess
import sys


def events(pcap: str, sender: str):
    out = subprocess.run(["tshark", "-r", pcap, "-T", "fields", "-e", "frame.time_relative", "-e", "ip.src",
                          "-e", "tcp.seq", "-e", "tcp.ack", "-e", "tcp.len", "-Y", "tcp"],
                         capture_output=True, text=True, check=True).stdout
    for line in out.splitlines():
        t, src, seq, ack, ln = line.split("\t")
        yield float(t), src == sender, int(seq or 0), int(ack or 0), int(ln or 0)


def replay(pcap: str, sender: str, mss: int = 1448):
    snd_nxt, sent, delay_min = 0, {}, None
    una, end_seq, last_ack, rounds, cur, found = 0, 0, None, [], None, None
    for t, from_sender, seq, ack, ln in events(pcap, sender):
        if from_sender:
            if ln > 0 and seq + ln > snd_nxt:
                snd_nxt = seq + ln
                sent[snd_nxt] = t
            continue
        if ack <= una:
            continue
        if ack in sent:
            delay_min = min(delay_min or 1e9, t - sent[ack])
        una = ack
        if una > end_seq:
            if cur:
                rounds.append(cur)
            last_ack, end_seq = t, snd_nxt
            cur = dict(start=t, flight=(end_seq - una) / mss, acks=1, train=0.0, broke=None, gaps=[], found=None)
            continue
        cur["acks"] += 1
        if len(cur["gaps"]) < 6:
            cur["gaps"].append(round(1000 * (t - last_ack), 2))
        if cur["broke"] is None and t - last_ack <= 0.002:
            last_ack = t
            cur["train"] = t - cur["start"]
            if found is None and cur["train"] > (delay_min or 0) / 2 and (snd_nxt - una) / mss >= 16:
                found = cur["found"] = (round(t, 4), round((snd_nxt - una) / mss))
        elif cur["broke"] is None:
            cur["broke"] = (cur["acks"], round(1000 * (t - last_ack), 2))
    if cur:
        rounds.append(cur)
    return delay_min, rounds


def main() -> int:
    if len(sys.argv) < 3:
        print(__doc__, file=sys.stderr)
        return 2
    delay_min, rounds = replay(sys.argv[1], sys.argv[2])
    limit = int(sys.argv[3]) if len(sys.argv) > 3 else 30
    print(f"minimum RTT {delay_min:.4f} s")
    for r in rounds[:limit]:
        mark = f"  HyStart exits here {r['found']}" if r["found"] else ""
        print(f"round {r['start']:8.4f} s: {r['flight']:5.0f} segments in flight, {r['acks']:4d} ACKs, "
              f"train {1000 * r['train']:6.1f} ms, broke at {r['broke']}, first gaps (ms) {r['gaps']}{mark}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
