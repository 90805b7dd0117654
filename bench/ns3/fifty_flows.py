"""The 50-flow goodput gap between satcp and ns-3, split by variant.

    .venv/bin/python bench/ns3/fifty_flows.py [--stop 300] [--jobs 2]

Runs satcp-bench's `geo-50-flows-100mbps` scenario (printed by
`satcp-bench --print-scenario`; 25 SACK and 25 NewReno flows, unlimited FTP,
100 Mb/s GEO link with a 1000-packet queue) in satcp with and without the
settings that could explain the gap, and in ns-3 (`target/ns3/tcp_peer`,
the same network) with classic recovery, PRR and limited transmit. Prints
the goodput of the SACK flows and of the NewReno flows, their data
retransmissions, fast recoveries and RTOs (ns-3: entries into CA_LOSS), and
the drops at the gateway queue; writes the same rows to
bench-results/fifty_flows.csv. Each ns-3 run takes 1-2 minutes.
Explained in docs/validation.md, "Cross-check against ns-3".
"""

from __future__ import annotations

import argparse
import csv
import json
import subprocess
import sys
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path

import satcp
from satcp.crosscheck import REPO, build_peer

SATCP_CASES = {
    "satcp (defaults)": [],
    "satcp, overhead 2 B (PPP)": ["links.0.overhead=2", "links.1.overhead=2"],
    "satcp, NewReno exit cwnd = ssthresh":
        [f"flows.f{i}.tcp.full_ack_cwnd=ssthresh" for i in range(1, 50, 2)],
    "satcp, both":
        ["links.0.overhead=2", "links.1.overhead=2"]
        + [f"flows.f{i}.tcp.full_ack_cwnd=ssthresh" for i in range(1, 50, 2)],
}
NS3_COMMON = ["--flows=50", "--startStep=0.02", "--size=0", "--sack=alt",
              "--accessRate=1Gbps", "--accessDelay=0.002", "--downRate=100Mbps",
              "--upRate=100Mbps", "--queue=1000", "--rwnd=4194304"]
NS3_CASES = {
    "ns-3 classic recovery": [],
    "ns-3 PRR": ["--recovery=prr"],
    "ns-3 classic + limited transmit": ["--limitedTransmit=1"],
}


def split(flows: list[dict], stop: float, rto_key: str, drops: int) -> dict:
    row = {}
    for label, parity in (("sack", 0), ("newreno", 1)):
        fs = [f for i, f in enumerate(flows) if i % 2 == parity]
        row[f"{label}_mbps"] = sum(f["bytes_delivered"] for f in fs) * 8 / stop / 1e6
        row[f"{label}_rtx"] = sum(f["retransmissions"] for f in fs)
        row[f"{label}_fr"] = sum(f["fast_recoveries"] for f in fs)
        row[f"{label}_rto"] = sum(f[rto_key] for f in fs)
    row["queue_drops"] = drops
    return row


def run_satcp(scenario: str, sets: list[str], stop: float) -> dict:
    s = satcp.run(scenario, set=sets + [f"run.stop={stop}s"]).summary
    sat_down = next(l for l in s["links"] if l["from"] == "gateway" and l["to"] == "clients")
    return split(s["flows"], stop, "timeouts", sat_down["drops"]["queue"])


def run_ns3(peer: Path, args: list[str], stop: float) -> dict:
    p = subprocess.run([str(peer), *NS3_COMMON, f"--stop={stop}", *args],
                       capture_output=True, text=True, check=True)
    r = json.loads(p.stdout.strip().splitlines()[-1])
    return split(r["flows"], stop, "loss_states", r["downlink_queue_drops"])


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--stop", type=float, default=300.0, help="simulated seconds")
    ap.add_argument("--jobs", type=int, default=2)
    a = ap.parse_args()
    peer = build_peer()
    scenario = subprocess.run([str(REPO / "target/release/satcp-bench"), "--print-scenario",
                               "geo-50-flows-100mbps"], capture_output=True, text=True,
                              check=True).stdout
    with ThreadPoolExecutor(max_workers=a.jobs) as pool:
        futs = {name: pool.submit(run_ns3, peer, args, a.stop) for name, args in NS3_CASES.items()}
        futs.update({name: pool.submit(run_satcp, scenario, sets, a.stop)
                     for name, sets in SATCP_CASES.items()})
        rows = [{"case": name, **f.result()} for name, f in futs.items()]
    hdr = (f"{'case':<36} {'SACK Mb/s':>9} {'NR Mb/s':>8} {'total':>7} {'SACK rtx':>8} "
           f"{'NR rtx':>7} {'SACK FR':>7} {'NR FR':>6} {'SACK RTO':>8} {'NR RTO':>6} {'drops':>6}")
    print(hdr)
    print("-" * len(hdr))
    for r in rows:
        print(f"{r['case']:<36} {r['sack_mbps']:>9.2f} {r['newreno_mbps']:>8.2f} "
              f"{r['sack_mbps'] + r['newreno_mbps']:>7.2f} {r['sack_rtx']:>8} {r['newreno_rtx']:>7} "
              f"{r['sack_fr']:>7} {r['newreno_fr']:>6} {r['sack_rto']:>8} {r['newreno_rto']:>6} "
              f"{r['queue_drops']:>6}")
    print("(25 SACK and 25 NewReno flows; rtx = data retransmissions, FR = fast recoveries, "
          "RTO = timeouts (ns-3: entries into CA_LOSS), drops = gateway queue drops)")
    out = REPO / "bench-results" / "fifty_flows.csv"
    out.parent.mkdir(parents=True, exist_ok=True)
    with open(out, "w", newline="") as fh:
        w = csv.DictWriter(fh, fieldnames=list(rows[0]))
        w.writeheader()
        w.writerows(rows)
    print(f"wrote {out}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
