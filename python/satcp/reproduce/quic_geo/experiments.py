"""The quic-geo study's experiments: QUIC (quinn-proto on simulated time)
against TCP on a GEO bent pipe, an experiment of our own
(docs/reproduce-quic-geo.md).

Paths (every choice in their headers): ``scenarios/quic-geo/geo-2mbps.toml``
(the demo's GEO bent pipe: 2,048 kbit/s down, 256 kbit/s up, 250 ms one
way, a 100-packet queue) and ``scenarios/quic-geo/geo-20mbps.toml`` (ten
times faster: 20 Mbit/s down, 2 Mbit/s up, a 1,000-packet queue). Both
queues hold about 1.2 bandwidth-delay products.

Arms: a transport, a controller and an initial window.

* QUIC: quinn's own ``quinn-cubic`` and ``quinn-newreno``, and satcp's
  ``cubic`` and ``hybla`` through the adapter, set as the ``linux``
  profile sets them on TCP (``cubic_style``/``cubic_hystart_style`` and
  ``hybla_style`` ``"linux"``), so the same controller runs on both.
* TCP: profile ``linux`` (SACK, RACK, TLP and PRR, IW 10, 40 ms delayed
  ACKs, receive-buffer autotuning): ``cubic``, ``sack`` (NewReno with SACK
  recovery, the counterpart of quinn-newreno) and ``hybla``. Linux is the
  TCP a QUIC stack is compared with in practice, and its time-based loss
  detection (RACK) and tail loss probe are TCP's counterparts of QUIC's
  (RFC 9002 grew out of them), where the ``rfc`` profile's 3-duplicate-ACK
  rule and 1 s minimum RTO are not.
* The initial window, the same bytes on both: 10 or 32 TCP segments of
  1,448 bytes (Linux's MSS with timestamps), QUIC 14,480 or 46,336 bytes
  (quinn's own default is 12,000).

Applications: the client opens the connection and asks (FTP with a
350-byte request, the HTTP page model), so both protocols start the same
way: TCP's SYN (no TLS: satcp does not model TLS over TCP) against QUIC's
Initial (TLS 1.3's flights inside, with the null crypto's sizes).

Experiments (factor levels, ``--quick``'s in brackets):

* ``bulk-2mbps``, ``bulk-20mbps``: every arm x a downlink PER of 0, 1e-3,
  1e-2 [0, 1e-2] x transfers of 1 KB (the connection set-up and one
  response), 1 MB and 10 MB [1 KB, 10 MB], 5 [2] seeds;
* ``http-2mbps``, ``http-20mbps``: every arm x PER 0, 1e-3, 1e-2 [0, 1e-2]
  x objects one after another or all at once (``pipelining``: HTTP/1.1
  pipelining on TCP's one persistent connection, parallel streams on
  QUIC's one connection) [all at once], three pages 30 s apart (the ADaLR
  thesis' page: a 10,710-byte main object and 15 of 7,758 bytes), 5 [2]
  seeds;
* ``window-20mbps``: the QUIC arms at IW 10 x the stream flow-control
  window (quinn's default 1.25 MB, half, one, two and four of the fast
  path's bandwidth-delay products: 0.64, 1.275, 2.55, 5.1 MB)
  [quinn's default, half and four] x PER 0, 1e-3 [0], 50 MB (long enough
  for the window, not slow start, to set the rate), 5 [1] seeds.
  With one stream the stream window binds alone: the connection window is
  left at quinn's default (unlimited).

* ``resume-2mbps``, ``resume-20mbps``: BBR and Careful Resume (RFC 9959)
  on QUIC, at IW 10: satcp's ``cubic`` without and with Careful Resume
  from a saved state that fits the path (``cubic+cr``: saved_cwnd two
  bandwidth-delay products, so the jump is one; saved_rtt the path's 510
  ms) and from one four times too large (``cubic+cr4``: a jump of four
  BDPs where the path holds 2.2: Safe Retreat), satcp's ``bbr`` and
  ``bbr3`` through the adapter, ``bbr`` with the fitting saved state
  (``bbr+cr``), and TCP's ``bbr`` and ``bbr3`` (profile linux) beside
  them x PER 0, 1e-3, 1e-2 [0, 1e-2] x 1 MB and 10 MB, 5 [2] seeds. The
  QUIC arms' stream window is four BDPs (at least quinn's default), so
  that the controller, not flow control, sets the rate: on the 20 Mb/s
  path quinn's default (one BDP) would cap a jump to the saved window.

* ``leo-starlink``: New York to Paris across the Starlink shell
  (``scenarios/quic-geo/starlink.toml``: the leo-geo study's network, 100
  Mb/s ground links, a new satellite every 15 s, what is on a ground link
  at a handover lost; the transfer starts at 11.7 s, so the reassignment
  at 12 s falls inside every one): QUIC ``quinn-cubic``, satcp ``cubic``
  and ``bbr`` against TCP ``cubic`` and ``bbr`` (profile linux), IW 10 x a
  PER of 0 and 1e-3 on every ground-satellite link, both ways, x 1 MB,
  10 MB and 100 MB [1 MB, 10 MB], 5 [2] seeds. The stream window is
  quinn's default (1.25 MB: 2.2 BDPs of a 45 ms, 100 Mb/s path).
* ``big-20mbps`` (full form only): 100 MB over the 20 Mb/s GEO path, the
  bulk arms at IW 10 x PER 0 and 1e-3, 3 seeds (at PER 1e-2, CUBIC and
  NewReno would need more than the 1,500 s a run is given).

Seeds draw the losses; a loss-free cell's seeds are the same run.
"""

from __future__ import annotations

from dataclasses import dataclass

from ..kit.catalogue import Arm, Experiment, Factor

PATHS = {"2mbps": "scenarios/quic-geo/geo-2mbps.toml", "20mbps": "scenarios/quic-geo/geo-20mbps.toml"}
STARLINK = "scenarios/quic-geo/starlink.toml"
#: the Starlink experiment's arms (IW 10) and levels
LEO_QUIC_CCS = ("quinn-cubic", "cubic", "bbr")
LEO_TCP_CCS = ("cubic", "bbr")
LEO_PERS = (0.0, 1e-3)
LEO_SIZES_KB = (1000, 10000, 100000)
QUICK_LEO_SIZES_KB = (1000, 10000)
#: every ground-satellite link's errors (both ways)
LEO_ERRORS = "constellations.starlink.gsl.errors"
#: 100 MB over the 20 Mb/s GEO path (full form only)
BIG_SIZE_KB = 100000
BIG_PERS = (0.0, 1e-3)
BIG_SEEDS = 3
#: each path's downlink rate (bit/s: Starlink's ground links) and the GEO paths' propagation RTT (s),
#: for the report
RATE_BPS = {"2mbps": 2_048_000, "20mbps": 20_000_000, "starlink": 100_000_000}
RTT_S = 0.51
MSS = 1448  # the linux profile's
FLOW = "transfer"
LINK = "satellite"

QUIC_CCS = ("quinn-cubic", "quinn-newreno", "cubic", "hybla")
TCP_CCS = ("cubic", "sack", "hybla")
IWS = (10, 32)
#: the TCP controller each QUIC controller is compared with
COUNTERPART = {"quinn-cubic": "cubic", "quinn-newreno": "sack", "cubic": "cubic", "hybla": "hybla"}
#: satcp controllers' keys on QUIC: the linux profile's on TCP
LINUX_KEYS = {"cubic": {"cubic_style": "linux", "cubic_hystart_style": "linux"}, "hybla": {"hybla_style": "linux"}}
NAMES = {("quic", "quinn-cubic"): "QUIC quinn-cubic", ("quic", "quinn-newreno"): "QUIC quinn-newreno",
         ("quic", "cubic"): "QUIC satcp cubic", ("quic", "hybla"): "QUIC satcp hybla",
         ("tcp", "cubic"): "TCP cubic", ("tcp", "sack"): "TCP sack (NewReno)", ("tcp", "hybla"): "TCP hybla",
         ("quic", "cubic+cr"): "QUIC satcp cubic + Careful Resume", ("quic", "cubic+cr4"):
             "QUIC satcp cubic + Careful Resume (4x saved window)", ("quic", "bbr"): "QUIC satcp bbr",
         ("quic", "bbr3"): "QUIC satcp bbr3", ("quic", "bbr+cr"): "QUIC satcp bbr + Careful Resume",
         ("tcp", "bbr"): "TCP bbr", ("tcp", "bbr3"): "TCP bbr3"}
ORDER = list(NAMES)

#: the resume experiments' arms (``cc+cr``: Careful Resume over ``cc``)
RESUME_QUIC_CCS = ("cubic", "cubic+cr", "cubic+cr4", "bbr", "bbr3", "bbr+cr")
RESUME_TCP_CCS = ("bbr", "bbr3")
RESUME_SIZES_KB = (1000, 10000)
#: each path's bandwidth-delay product (bytes): rate x 0.51 s
BDP = {"2mbps": 130_560, "20mbps": 1_275_000}
#: Careful Resume's saved window in BDPs (the jump is half): fitting, too large
CR_SAVED_BDPS = {"cr": 2, "cr4": 8}
CR_SAVED_RTT = "510ms"

PERS = (0.0, 1e-3, 1e-2)
QUICK_PERS = (0.0, 1e-2)
SIZES_KB = (1, 1000, 10000)
QUICK_SIZES_KB = (1, 10000)
SEEDS = 5
QUICK_SEEDS = 2
PIPELINING = (False, True)
QUICK_PIPELINING = (True,)
REQUEST = 350
PAGES = 3
QUINN_STREAM_WINDOW = 1_250_000  # quinn 0.11.19's default stream receive window
BDP_20 = 1_275_000  # 20 Mbit/s x 0.51 s
WINDOWS = (QUINN_STREAM_WINDOW, BDP_20 // 2, BDP_20, 2 * BDP_20, 4 * BDP_20)
QUICK_WINDOWS = (QUINN_STREAM_WINDOW, BDP_20 // 2, 4 * BDP_20)
WINDOW_PERS = (0.0, 1e-3)
WINDOW_SIZE = "50MB"


@dataclass(frozen=True)
class Spec:
    """What an arm's label stands for."""

    transport: str
    cc: str
    iw: int  # packets: TCP segments of MSS bytes; QUIC the same bytes


def label(transport: str, cc: str, iw: int) -> str:
    return f"{transport}-{cc}-iw{iw}"


def spec(arm_label: str) -> Spec:
    transport, rest = arm_label.split("-", 1)
    cc, iw = rest.rsplit("-iw", 1)
    return Spec(transport, cc, int(iw))


def careful_resume(cc: str, path: str | None) -> tuple[str, dict]:
    """The controller of arm controller ``cc`` and its ``careful_resume``
    table on ``path`` (none without ``+cr``)."""
    base, _, cr = cc.partition("+")
    if not cr:
        return base, {}
    return base, {"careful_resume": {"saved_cwnd": CR_SAVED_BDPS[cr] * BDP[path], "saved_rtt": CR_SAVED_RTT}}


def arm(transport: str, cc: str, iw: int, path: str | None = None) -> Arm:
    """An arm; with ``path``, a resume experiment's (Careful Resume's saved
    state and the stream window from the path's BDP)."""
    f = f"flows.{FLOW}"
    if transport == "quic":
        base, cr = careful_resume(cc, path)
        table = {"cc": base, "initial_window": iw * MSS, **LINUX_KEYS.get(base, {}), **cr}
        if path is not None:
            table["stream_window"] = max(QUINN_STREAM_WINDOW, 4 * BDP[path])
        settings = {f"{f}.transport": "quic", f"{f}.quic": table}
    else:
        settings = {f"{f}.tcp": {"profile": "linux", "variant": cc, "initial_window": iw}}
    return Arm(label(transport, cc, iw), settings, {FLOW: f"{transport}/{cc.partition('+')[0]}"})


def arms(iws=IWS, transports=("quic", "tcp")) -> tuple[Arm, ...]:
    out = []
    for iw in iws:
        for t in transports:
            for cc in (QUIC_CCS if t == "quic" else TCP_CCS):
                out.append(arm(t, cc, iw))
    return tuple(out)


def _per(v: float) -> dict:
    return {"per": v}


def per_factor() -> Factor:
    return Factor("per", f"links.{LINK}.errors_ab", PERS, QUICK_PERS, encode=_per)


def leo_arms() -> tuple[Arm, ...]:
    return tuple(arm("quic", cc, 10) for cc in LEO_QUIC_CCS) + tuple(arm("tcp", cc, 10) for cc in LEO_TCP_CCS)


def catalogue(quick: bool) -> list[Experiment]:
    seeds = dict(replications=SEEDS, quick_replications=QUICK_SEEDS)
    out = []
    for path, base in PATHS.items():
        size = Factor("size_kb", f"flows.{FLOW}.app.size", SIZES_KB, QUICK_SIZES_KB, encode=lambda v: f"{v}KB")
        out.append(Experiment(f"bulk-{path}", f"bulk transfers over the {path} GEO path", base, "ftp", arms(),
                              (per_factor(), size), settings={f"flows.{FLOW}.app.request": REQUEST}, link=LINK,
                              **seeds))
    for path, base in PATHS.items():
        pip = Factor("pipelining", f"flows.{FLOW}.app.pipelining", PIPELINING, QUICK_PIPELINING)
        app = {"kind": "http", "pages": PAGES, "request": REQUEST}
        out.append(Experiment(f"http-{path}", f"HTTP pages over the {path} GEO path", base, "http", arms(),
                              (per_factor(), pip), settings={f"flows.{FLOW}.app": app}, link=LINK, **seeds))
    for path, base in PATHS.items():
        size = Factor("size_kb", f"flows.{FLOW}.app.size", RESUME_SIZES_KB, RESUME_SIZES_KB,
                      encode=lambda v: f"{v}KB")
        resume_arms = tuple(arm("quic", cc, 10, path) for cc in RESUME_QUIC_CCS) + tuple(
            arm("tcp", cc, 10) for cc in RESUME_TCP_CCS)
        out.append(Experiment(f"resume-{path}", f"BBR and Careful Resume on QUIC over the {path} GEO path", base,
                              "ftp", resume_arms, (per_factor(), size),
                              settings={f"flows.{FLOW}.app.request": REQUEST}, link=LINK, **seeds))
    window = Factor("stream_window", f"flows.{FLOW}.quic.stream_window", WINDOWS, QUICK_WINDOWS)
    per = Factor("per", f"links.{LINK}.errors_ab", WINDOW_PERS, (0.0,), encode=_per)
    out.append(Experiment("window-20mbps", "QUIC's stream flow-control window over the 20mbps GEO path",
                          PATHS["20mbps"], "ftp", arms(iws=(10,), transports=("quic",)), (window, per),
                          settings={f"flows.{FLOW}.app.request": REQUEST, f"flows.{FLOW}.app.size": WINDOW_SIZE},
                          link=LINK, replications=SEEDS, quick_replications=1))
    size = Factor("size_kb", f"flows.{FLOW}.app.size", LEO_SIZES_KB, QUICK_LEO_SIZES_KB, encode=lambda v: f"{v}KB")
    per = Factor("per", LEO_ERRORS, LEO_PERS, LEO_PERS, encode=_per)
    out.append(Experiment("leo-starlink", "QUIC against TCP from New York to Paris across the Starlink shell",
                          STARLINK, "ftp", leo_arms(), (per, size), settings={f"flows.{FLOW}.app.request": REQUEST},
                          **seeds))
    if not quick:
        size = Factor("size_kb", f"flows.{FLOW}.app.size", (BIG_SIZE_KB,), (BIG_SIZE_KB,), encode=lambda v: f"{v}KB")
        per = Factor("per", f"links.{LINK}.errors_ab", BIG_PERS, BIG_PERS, encode=_per)
        out.append(Experiment("big-20mbps", "100 MB over the 20mbps GEO path", PATHS["20mbps"], "ftp",
                              arms(iws=(10,)), (per, size), settings={f"flows.{FLOW}.app.request": REQUEST},
                              link=LINK, replications=BIG_SEEDS, quick_replications=BIG_SEEDS))
    return out
