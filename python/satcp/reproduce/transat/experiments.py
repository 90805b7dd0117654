"""The TRANSAT study's experiments (Astuti & Kojo, ns-2 of 2003; spec
``/work/shared/specs/001-transat-slacp.md``) as platform sweeps.

Every configuration the paper compares is one :class:`~..kit.catalogue.Arm`
(the case, i.e. a Table 1 row, a Table 2 traffic mix or an error setting,
times one of the eight TCP columns), without factors, so a paper table is a
set of arms and each arm's replications share their seeds (the same burst
timeline for every TCP configuration: common random numbers).

Base scenarios (profile ``ns2-2003``; every choice in their headers):
``scenarios/transat_table1.toml`` (one 1 MB flow),
``scenarios/transat/one_flow_cbr.toml`` (with a CBR flow),
``scenarios/transat/four_flows.toml`` and ``four_flows_cbr.toml`` (four
250 KB flows). Choices (spec 001 section 6), each documented in
``docs/reproduce-transat.md`` or the scenario files:

* Burst errors on the satellite link's data direction only (H1 -> H2; the
  paper's Fig. 8 shows ACKs late only because the data were), the DSN
  model with bursts 100-500 ms (truncated exponential of mean 300 ms) and
  gaps uniform on 1-10 s start to start (``BURSTS``), judged where ns-2's
  ``lossmodel`` judges: at the link's head, before the queue (``AT_HEAD``).
* S-LACP as the paper approximated it: PER 25% or 1% in a burst, and each
  packet of a burst that is not lost 550 ms late, in order (S-LACP delivers
  in sequence); the extra-delay experiment uses 2 and 3 satellite round
  trips (1100 and 1650 ms, 550 ms each as the paper counts one).
* Tables 6-14 run with 0.8 Mb/s of CBR (not restated by the paper).
* RED columns: RED with ns-2's 2003 defaults and the 50-packet limit on
  the satellite queue (``docs/models/red.md``).
* The burst tables once more with the real selective-repeat ARQ
  (``docs/models/arq.md``) on the raw burst channel, persistence 1 and 3
  (``ARQ_CASES``); its residual loss and added delay are measured.
* A 1.7 s minimum RTO (``MIN_RTO``: the RTO between the ACK gaps of +2 and
  +3 round trips of S-LACP delay, as section 4 observes).
* 20 replications per cell (5 with ``--quick``).
"""

from __future__ import annotations

from dataclasses import replace
from typing import Any

from ..kit.catalogue import Arm, Experiment

COLUMNS = ("ref_tcp", "ref_iw4", "ref_daass", "sack", "sack_limtran", "enhanced", "ref_red", "enh_red")
COLUMN_NAMES = {"ref_tcp": "Ref. TCP", "ref_iw4": "Ref., Iwin=4", "ref_daass": "Ref., DAASS", "sack": "SACK",
                "sack_limtran": "SACK, LimTran", "enhanced": "Enh. TCP", "ref_red": "Ref. + RED",
                "enh_red": "Enh. + RED"}
#: Table 1 has no RED columns.
TABLE1_COLUMNS = COLUMNS[:6]

ONE_FLOW = ("bulk",)
FOUR_FLOWS = ("f1", "f2", "f3", "f4")
#: ns-2's qlim_ 50 holds 49 packets waiting besides the one on the wire
#: (satcp counts the waiting ones); RED's limit counts waiting packets.
DROPTAIL_50 = 49
RED_50 = {"kind": "red", "packets": 50}

#: The error settings of the burst tables: (label, the satellite link's
#: errors_ab table).
#: Bursts exponential on 100-500 ms (mean 300 ms, truncated), gaps uniform
#: on 1-10 s start to start: the paper states the exponential for burst
#: lengths only ("from 100ms to 500ms with an exponential distribution")
#: and gives the gaps as "from 1 to 10 seconds".
BURSTS = {
    "burst100": {"model": "dsn_burst", "per_burst": 1.0, "gap_law": "uniform"},
    "slacp25": {"model": "dsn_burst", "per_burst": 0.25, "burst_delay": "550ms", "gap_law": "uniform"},
    "slacp1": {"model": "dsn_burst", "per_burst": 0.01, "burst_delay": "550ms", "gap_law": "uniform"},
}
#: ns-2's `lossmodel` puts its error model at the link's head, before the
#: queue: a packet is judged as it reaches the satellite link and a lost one
#: takes neither queue room nor transmission time (the ARQ arms keep their
#: errors on the air, where a link layer meets them).
AT_HEAD = {"links.satellite.loss_placement_ab": "head"}

#: The study once more with the real ARQ (docs/models/arq.md) on the
#: satellite hop in place of the approximation: the raw burst channel (PER
#: 100% in a burst) and a selective-repeat ARQ that may retransmit a frame
#: once (what the paper's +550 ms stands for) or three times (its "at most
#: three times"); everything else at the ARQ's defaults.
ARQ_CASES = {"arq_p1": {"persistence": 1}, "arq_p3": {"persistence": 3}}

#: The loss-free experiments (Tables 1 and 2), also run with the real ARQ.
LOSS_FREE_EXPERIMENTS = ("table1", "table1_cbr", "table2", "table2_cbr")

#: The extra-delay experiment: S-LACP at 1% residual PER delaying a burst's
#: packets by one, two or three satellite round trips (550 ms each).
EXTRA_DELAYS_MS = (550, 1100, 1650)

#: The paper gives no RTO parameters (spec 001 section 6 item 19) but
#: observes their effect (section 4): S-LACP's extra delay causes no
#: spurious timeout at +2 satellite round trips and one at every burst at
#: +3, i.e. in steady state the RTO lay between the ACK gaps those make,
#: about 0.6 + 1.1 and 0.6 + 1.65 s. The floor is read from that
#: observation (so the study's extra-delay claim checks this calibration,
#: not an independent prediction); measured on the extra-delay experiment,
#: timeouts per run at +2 / +3: 1 s floor (the `ns2-2003` profile's) 1.8 /
#: 10, 1.5 s 0.6 / 3.6, 1.7 s 0.48 / 1.65, 2 s 0.23 / 0.78. Table 1 does
#: not move (its loss-free cells never time out; the four CBR cells that do
#: keep their verdicts).
MIN_RTO = "1.7s"

REPLICATIONS = 20
QUICK_REPLICATIONS = 5


def tcp_settings(column: str, flows: tuple[str, ...]) -> dict[str, Any]:
    """The column's settings on top of the base scenario (whose flows run
    Reference TCP with explicit IW 1 and Limited Transmit off, so the
    Enhanced preset's own IW 4 and Limited Transmit are written out)."""
    per_flow: dict[str, Any] = {
        "ref_tcp": {}, "ref_red": {},
        "ref_iw4": {"initial_window": 4},
        "ref_daass": {"daass": True},
        "sack": {"variant": "sack", "sack": True},
        "sack_limtran": {"variant": "sack", "sack": True, "limited_transmit": True},
        "enhanced": {"variant": "enhanced", "sack": True, "initial_window": 4, "limited_transmit": True},
    }
    per_flow["enh_red"] = per_flow["enhanced"]
    out = {f"flows.{f}.tcp.{k}": v for f in flows for k, v in {**per_flow[column], "min_rto": MIN_RTO}.items()}
    if column in ("ref_red", "enh_red"):
        out["links.satellite.queue_ab"] = RED_50
    return out


def _arm(case: str, column: str, flows: tuple[str, ...], case_settings: dict[str, Any]) -> Arm:
    settings = {**case_settings, **tcp_settings(column, flows)}
    return Arm(f"{case}:{column}", settings, {f: column for f in flows})


def _ws_off(flows: tuple[str, ...]) -> dict[str, Any]:
    # a 64 KB window without scaling: 64 packets of 960 bytes (ns-2's window_)
    return {k: v for f in flows for k, v in ((f"flows.{f}.tcp.window_scaling", False), (f"flows.{f}.tcp.rwnd", 61440))}


def split_arm(label: str) -> tuple[str, str]:
    """(case, column) of an arm label."""
    case, column = label.split(":")
    return case, column


def experiments() -> list[Experiment]:
    exps = []
    # Table 1, rows 1-4: 200- or 50-packet buffer, window scaling on/off
    rows = {"r1": (199, True), "r2": (199, False), "r3": (DROPTAIL_50, True), "r4": (DROPTAIL_50, False)}
    arms = []
    for case, (qlim, ws) in rows.items():
        s = {"links.satellite.queue_ab.packets": qlim, **({} if ws else _ws_off(ONE_FLOW))}
        arms += [_arm(case, c, ONE_FLOW, s) for c in TABLE1_COLUMNS]
    exps.append(Experiment("table1", "One 1 MB flow, no errors (Table 1 rows 1-4)", "scenarios/transat_table1.toml",
                           "ftp", tuple(arms), (), tables=("1",)))
    # Table 1, rows 5-8: with 0.8 or 1.7 Mb/s of CBR
    rows_cbr = {"r5": ("0.8Mbps", True), "r6": ("0.8Mbps", False), "r7": ("1.7Mbps", True), "r8": ("1.7Mbps", False)}
    arms = []
    for case, (rate, ws) in rows_cbr.items():
        s = {"flows.cbr.app.rate": rate, **({} if ws else _ws_off(ONE_FLOW))}
        arms += [_arm(case, c, ONE_FLOW, s) for c in TABLE1_COLUMNS]
    exps.append(Experiment("table1_cbr", "One 1 MB flow and CBR, no errors (Table 1 rows 5-8)",
                           "scenarios/transat/one_flow_cbr.toml", "ftp", tuple(arms), (), tables=("1",)))
    # Table 2: four 250 KB flows, with and without 0.8 Mb/s of CBR
    for exp_id, base, title in (("table2", "scenarios/transat/four_flows.toml", "without"),
                                ("table2_cbr", "scenarios/transat/four_flows_cbr.toml", "with")):
        arms = []
        for case, ws in (("ws_on", True), ("ws_off", False)):
            s = {} if ws else _ws_off(FOUR_FLOWS)
            arms += [_arm(case, c, FOUR_FLOWS, s) for c in COLUMNS]
        exps.append(Experiment(exp_id, f"Four 250 KB flows {title} CBR, no errors (Table 2)", base, "ftp",
                               tuple(arms), (), tables=("2",)))
    # Tables 1 and 2 once more with the real ARQ on the (error-free)
    # satellite hop: what its headers and link ACKs cost when nothing needs
    # repair
    exps += [replace(e, id=f"arq_{e.id}", title=f"{e.title}, the real ARQ on the satellite hop", tables=(),
                     settings={**e.settings, "links.satellite.arq": ARQ_CASES["arq_p3"]})
             for e in list(exps) if e.id in LOSS_FREE_EXPERIMENTS]
    # Tables 3-5: one 1 MB flow with bursts, without S-LACP and with it
    arms = [_arm(case, c, ONE_FLOW, {"links.satellite.queue_ab.packets": DROPTAIL_50,
                                     "links.satellite.errors_ab": err, **AT_HEAD})
            for case, err in BURSTS.items() for c in COLUMNS]
    exps.append(Experiment("bursts_one", "One 1 MB flow with error bursts (Tables 3-5)",
                           "scenarios/transat_table1.toml", "ftp", tuple(arms), (), replications=REPLICATIONS,
                           quick_replications=QUICK_REPLICATIONS, tables=("3", "4", "5")))
    # Tables 6-14: four 250 KB flows and 0.8 Mb/s of CBR with bursts
    arms = [_arm(case, c, FOUR_FLOWS, {"links.satellite.errors_ab": err, **AT_HEAD})
            for case, err in BURSTS.items() for c in COLUMNS]
    exps.append(Experiment("bursts_four", "Four 250 KB flows and CBR with error bursts (Tables 6-14)",
                           "scenarios/transat/four_flows_cbr.toml", "ftp", tuple(arms), (),
                           replications=REPLICATIONS, quick_replications=QUICK_REPLICATIONS,
                           tables=tuple(str(t) for t in range(6, 15))))
    # The burst tables once more with the real ARQ in place of the
    # approximation
    raw = BURSTS["burst100"]
    arms = [_arm(case, c, ONE_FLOW, {"links.satellite.queue_ab.packets": DROPTAIL_50,
                                     "links.satellite.errors_ab": raw, "links.satellite.arq": arq})
            for case, arq in ARQ_CASES.items() for c in COLUMNS]
    exps.append(Experiment("arq_one", "One 1 MB flow with error bursts, the real ARQ on the satellite hop",
                           "scenarios/transat_table1.toml", "ftp", tuple(arms), (), replications=REPLICATIONS,
                           quick_replications=QUICK_REPLICATIONS))
    arms = [_arm(case, c, FOUR_FLOWS, {"links.satellite.errors_ab": raw, "links.satellite.arq": arq})
            for case, arq in ARQ_CASES.items() for c in COLUMNS]
    exps.append(Experiment("arq_four", "Four 250 KB flows and CBR with error bursts, the real ARQ on the satellite hop",
                           "scenarios/transat/four_flows_cbr.toml", "ftp", tuple(arms), (),
                           replications=REPLICATIONS, quick_replications=QUICK_REPLICATIONS))
    # Section 4's extra-delay experiment: S-LACP at 1% with one, two or three
    # satellite round trips of delay; Ref. and SACK, F-RTO off and on
    arms = []
    for d in EXTRA_DELAYS_MS:
        err = {**BURSTS["slacp1"], "burst_delay": f"{d}ms"}
        for c in ("ref_tcp", "sack"):
            for frto in (False, True):
                s = {"links.satellite.queue_ab.packets": DROPTAIL_50, "links.satellite.errors_ab": err, **AT_HEAD,
                     "flows.bulk.tcp.frto": frto}
                arm = _arm(f"d{d}{'_frto' if frto else ''}", c, ONE_FLOW, s)
                arms.append(arm)
    exps.append(Experiment("slacp_delay", "S-LACP's extra delay: +1, +2, +3 satellite round trips (section 4)",
                           "scenarios/transat_table1.toml", "ftp", tuple(arms), (), replications=REPLICATIONS,
                           quick_replications=QUICK_REPLICATIONS))
    return exps


def catalogue(quick: bool) -> list[Experiment]:
    """Every experiment; ``--quick`` runs fewer replications of the same."""
    return experiments()
