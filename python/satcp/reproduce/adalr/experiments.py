"""The TCP-ADaLR thesis' experiments (Omueti, SFU 2007, OPNET; spec
``/work/shared/specs/000-tcp-adalr.md`` sections 3-5) as platform sweeps.

Every table and figure group of Chapter 7 (and Table 5.1) is one
:class:`~satcp.reproduce.kit.catalogue.Experiment`: four variant arms (TCP-ADaLR
SACK, TCP-ADaLR NewReno, TCP SACK, TCP NewReno) or the fairness mixes,
delayed ACK on/off, and the swept quantity. Base scenarios:
``scenarios/adalr_geo.toml`` (Fig. 7.2, FTP 50 MiB, flow ``ftp``),
``scenarios/adalr/http.toml`` (Table 7.3 pages, flow ``http``) and
``scenarios/adalr/fairness.toml`` (Fig. 7.52, flows ``c25`` ... ``c500``).

Recipes and choices (the thesis is silent; spec section 6):
* Table 5.1's RTT (:func:`satellite_delay_for_rtt`): the thesis' "RTT" is a
  nominal label; its 500 ms row equals Table 7.5's TCP SACK time, i.e. the
  base scenario, whose propagation RTT is 2 x (10 + 268) = 556 ms. The RTT
  is varied through the satellite one-way delay with the base's 56 ms offset
  kept: satellite delay = (RTT + 56) / 2 - 10 ms = RTT / 2 + 18 ms, the
  Ethernet staying at 10 ms (the reading ``tests/paper_adalr.rs`` fits
  Table 5.1 with). Recalibrate by editing the three constants below.
* File sizes: 1 MB = 2^20 bytes and 1 kB = 2^10 bytes, as the base's
  50 MiB (spec ambiguity 27).
* Congestion: the gateway-service reading of
  ``scenarios/adalr/ftp_congestion.toml`` and ``http_congestion.toml``: the
  gateway forwards 360 kb/s of IP bytes (a hop of its own, link
  ``forwarding``, so the satellite link keeps its 2,048 kb/s) behind a
  drop-tail buffer of 25 packets for FTP and 15 for HTTP (the section 7.5.2
  reading, ambiguity 28); the same in the congestion + error scenarios
  (ambiguity 29).
* HTTP pages: ``http.toml`` runs one page (every page alike without
  errors); with errors the pages differ, so the BER scenarios run the 20
  pages of the thesis' 600 s run (Appendix A.2, one every 30 s) and report
  their mean.
* Errors: the thesis' fixed-length packet error rate, PER = 1 - (1 -
  BER)^12000 on every packet of the satellite downlink (Eq. 7.1, ambiguity
  30); the uplink (ACKs) is error-free.
* Seeds: the BER scenarios run 4 replications (the thesis' four seeds) with
  common random numbers (seeds 1..4, the same error pattern for every
  variant); lossless and congestion-only scenarios are deterministic and
  run once.
* Variant presets: ``tcp.sack = true`` with the SACK presets, false with
  the NewReno ones.
"""

from __future__ import annotations

from ..kit.catalogue import Arm, Experiment, Factor
from ..kit.study import UsageError

#: The thesis' label for the base path's RTT (Table 5.1 row = Table 7.5 SACK).
NOMINAL_BASE_RTT_MS = 500.0
#: Propagation RTT of the base scenario, 2 x (Ethernet 10 ms + satellite 268 ms).
BASE_PROPAGATION_RTT_MS = 556.0
#: Ethernet one-way delay of the base scenario, kept while the RTT varies.
ETHERNET_DELAY_MS = 10.0

VARIANTS = ("adalr-sack", "adalr-newreno", "sack", "newreno")
VARIANT_NAMES = {"adalr-sack": "TCP-ADaLR SACK", "adalr-newreno": "TCP-ADaLR NewReno",
                 "sack": "TCP SACK", "newreno": "TCP NewReno", "mixed": "NewReno + ADaLR NewReno"}
BASELINE_OF = {"adalr-sack": "sack", "adalr-newreno": "newreno"}

BERS = (1e-9, 1e-8, 1e-7, 1e-6, 1e-5)
BERS_QUICK = (1e-8, 1e-6, 1e-5)
PACKET_BITS = 12000  # Eq. 7.1: N = 12,000 bits (1,500-byte packets)
RTTS_MS = (25, 50, 100, 200, 250, 500)
FILE_SIZES = (500 * 2**10, 50 * 2**20, 100 * 2**20, 200 * 2**20, 300 * 2**20, 400 * 2**20, 500 * 2**20)
FILE_SIZES_QUICK = (500 * 2**10, 50 * 2**20, 100 * 2**20)
FAIRNESS_FLOWS = ("c25", "c50", "c100", "c300", "c400", "c500")
BER_SEEDS = 4
BER_SEEDS_QUICK = 2

FTP_BASE = "scenarios/adalr_geo.toml"
FTP_CONGESTION_BASE = "scenarios/adalr/ftp_congestion.toml"
HTTP_BASE = "scenarios/adalr/http.toml"
HTTP_CONGESTION_BASE = "scenarios/adalr/http_congestion.toml"
#: Pages per HTTP run in the BER scenarios: the thesis' 600 s at one page per 30 s.
HTTP_BER_PAGES = 20
FAIRNESS_BASE = "scenarios/adalr/fairness.toml"


def satellite_delay_for_rtt(rtt_ms: float) -> float:
    """One-way satellite delay (ms) giving the thesis' nominal RTT (Table 5.1):
    the path keeps the base scenario's offset over its nominal 500 ms."""
    return (rtt_ms + BASE_PROPAGATION_RTT_MS - NOMINAL_BASE_RTT_MS) / 2.0 - ETHERNET_DELAY_MS


def _delay_level(rtt_ms: float) -> str:
    return f"{satellite_delay_for_rtt(rtt_ms):.6g}ms"


def _size_level(nbytes: int) -> int:
    return int(nbytes)


def _ber_level(ber: float) -> dict:
    return {"ber": ber, "bits": PACKET_BITS}


def variant_settings(variant: str, flows: tuple[str, ...]) -> dict:
    out = {}
    for f in flows:
        out[f"flows.{f}.tcp.variant"] = variant
        out[f"flows.{f}.tcp.sack"] = variant.endswith("sack")
    return out


def variant_arm(variant: str, flows: tuple[str, ...]) -> Arm:
    return Arm(variant, variant_settings(variant, flows), {f: variant for f in flows})


def _arms(flow: str, variants=VARIANTS) -> tuple[Arm, ...]:
    return tuple(variant_arm(v, (flow,)) for v in variants)


def _dack(flow: str) -> Factor:
    return Factor("delayed_ack", f"flows.{flow}.tcp.delayed_ack", (True, False), (True, False))


def _ber(quick=BERS_QUICK) -> Factor:
    return Factor("x", "links.satellite.errors_ab", BERS, quick, _ber_level)


def _friendliness_arm() -> Arm:
    newreno, adalr = FAIRNESS_FLOWS[:3], FAIRNESS_FLOWS[3:]
    settings = {**variant_settings("newreno", newreno), **variant_settings("adalr-newreno", adalr)}
    return Arm("mixed", settings, {**{f: "newreno" for f in newreno}, **{f: "adalr-newreno" for f in adalr}})


def experiments(seeds: int | None = None) -> list[Experiment]:
    """Every experiment of the thesis, in the thesis' order."""
    ftp, http = "ftp", "http"
    ber_reps = dict(replications=seeds or BER_SEEDS, quick_replications=seeds or BER_SEEDS_QUICK)
    return [
        Experiment("t5_1", "FTP 50 MB, TCP SACK, ideal link, download time vs RTT", FTP_BASE, "ftp",
                   (variant_arm("sack", (ftp,)),),
                   (Factor("x", "links.satellite.delay", RTTS_MS, RTTS_MS, _delay_level),),
                   tables=("5.1",), x_label="RTT (ms)"),
        Experiment("t7_5", "FTP 50 MB, ideal channel (Fig. 7.2)", FTP_BASE, "ftp", _arms(ftp), (_dack(ftp),),
                   tables=("7.5",), figures=("7.4", "7.5", "7.6", "7.7"), traces=True),
        Experiment("t7_6", "FTP 50 MB, ideal channel, Ethernet delay 50 ms", FTP_BASE, "ftp", _arms(ftp),
                   (_dack(ftp),), settings={"links.ethernet.delay": "50ms"},
                   tables=("7.6",), figures=("7.8", "7.9", "7.10", "7.11"), traces=True),
        Experiment("t7_7", "FTP 50 MB, ideal channel, satellite 10 Mb/s down / 1 Mb/s up", FTP_BASE, "ftp",
                   _arms(ftp), (_dack(ftp),),
                   settings={"links.satellite.rate_ab": "10Mbps", "links.satellite.rate_ba": "1Mbps"},
                   tables=("7.7",), figures=("7.12", "7.13", "7.14", "7.15"), traces=True),
        Experiment("filesize", "FTP, ideal channel, delayed ACK, download time vs file size", FTP_BASE, "ftp",
                   _arms(ftp, ("adalr-newreno", "newreno")),
                   (Factor("x", "flows.ftp.app.size", FILE_SIZES, FILE_SIZES_QUICK, _size_level),),
                   figures=("7.16", "7.17", "7.18", "7.19"), x_label="file size (bytes)"),
        Experiment("t7_8", "HTTP pages, ideal channel", HTTP_BASE, "http", _arms(http), (_dack(http),),
                   tables=("7.8",)),
        Experiment("t7_9", "FTP 50 MB, congestion losses (gateway buffer 25 packets)", FTP_CONGESTION_BASE, "ftp",
                   _arms(ftp), (_dack(ftp),),
                   tables=("7.9",), figures=tuple(f"7.{i}" for i in range(20, 28)), traces=True),
        Experiment("t7_10", "HTTP pages, congestion losses (gateway buffer 15 packets)", HTTP_CONGESTION_BASE,
                   "http", _arms(http), (_dack(http),), tables=("7.10",)),
        Experiment("ber_ftp", "FTP 50 MB, error losses only, vs BER", FTP_BASE, "ftp", _arms(ftp),
                   (_dack(ftp), _ber()), figures=tuple(f"7.{i}" for i in range(28, 38)), x_label="BER",
                   **ber_reps),
        Experiment("ber_http", "HTTP pages, error losses only, vs BER", HTTP_BASE, "http", _arms(http),
                   (_dack(http), _ber()), settings={"flows.http.app.pages": HTTP_BER_PAGES},
                   figures=("7.38", "7.39"), x_label="BER", **ber_reps),
        Experiment("ber_ftp_cong", "FTP 50 MB, congestion (buffer 25) and error losses, vs BER", FTP_CONGESTION_BASE,
                   "ftp", _arms(ftp), (_dack(ftp), _ber()),
                   figures=tuple(f"7.{i}" for i in range(40, 50)), x_label="BER", **ber_reps),
        Experiment("ber_http_cong", "HTTP pages, congestion (buffer 15) and error losses, vs BER",
                   HTTP_CONGESTION_BASE, "http", _arms(http), (_dack(http), _ber()),
                   settings={"flows.http.app.pages": HTTP_BER_PAGES},
                   figures=("7.50", "7.51"), x_label="BER", **ber_reps),
        Experiment("fairness", "Fairness: six FTP connections of one variant, RTT 25-500 ms (Fig. 7.52)",
                   FAIRNESS_BASE, "fairness",
                   tuple(variant_arm(v, FAIRNESS_FLOWS) for v in ("adalr-newreno", "newreno")), (),
                   tables=("7.11", "7.12", "7.13"), x_label="RTT of the connection (ms)"),
        Experiment("friendliness", "Friendliness: NewReno on 25/50/100 ms, ADaLR NewReno on 300/400/500 ms",
                   FAIRNESS_BASE, "fairness", (_friendliness_arm(),), (),
                   tables=("7.14", "7.15"), x_label="RTT of the connection (ms)"),
    ]


def catalogue(quick: bool, seeds: int | None = None) -> list[Experiment]:
    """The study's experiments; ``seeds`` (``--seeds``) replaces the BER
    experiments' replications in both forms."""
    if seeds is not None and seeds < 2:
        raise UsageError(f"--seeds {seeds}: expected a number of seeds >= 2 (a confidence interval needs two runs)")
    return experiments(seeds)


def experiment_ids() -> list[str]:
    return [e.id for e in experiments()]


def flow_rtt_ms(flow: str) -> float | None:
    """The fairness connections are named by their RTT: ``c300`` -> 300."""
    if flow.startswith("c") and flow[1:].isdigit():
        return float(flow[1:])
    return None
