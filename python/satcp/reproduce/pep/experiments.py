"""The pep study's experiments: split-TCP PEPs (RFC 3135, ``[[peps]]``,
docs/models/pep.md) against end-to-end transport, an experiment of our
own (docs/reproduce-pep.md).

Paths (every choice in their headers): ``scenarios/pep/geo.toml`` (the
demo's GEO bent pipe: 2,048 kbit/s down, 256 kbit/s up, 250 ms one way, a
100-packet queue) and ``scenarios/pep/transat.toml`` (TRANSAT's path: a
symmetric 2 Mbit/s satellite hop of 255 ms between 20 ms access links, 49
waiting packets). The server is behind the gateway, the client behind the
terminal; the client opens the connection and asks (a 350-byte request).

Set-ups (the arm's first part):

* ``e2e``: end to end. The PEP pair is there but the flow opts out
  (``split = false``), so the run reports the flow's first byte as the
  PEP runs do (``first_byte_s`` exists in runs with PEPs only) and the
  path is the same; an opted-out flow is never looked at.
* ``pep1``: one PEP, at the gateway. The client's SYN crosses the
  satellite to it, so its spoofed handshake saves only the ground leg; its
  gain is the short, fast server leg and its own sender on the satellite
  (the flow's controller: ``leg`` left out).
* ``pep2``: a PEP at the gateway and one at the terminal, the satellite
  leg pre-opened (``handshake = false``) running TCP Hybla with IW 10 (as
  ``scenarios/pep_geo.toml``, PEPsal's usual choice), the paper's Hybla
  (``profile = "rfc"`` named: segments spaced over the round trip and
  Hoe's ssthresh estimate, as a satellite PEP paces its leg), where
  Linux's ``tcp_hybla.c``, which the flows' ``linux`` profile would give
  the leg, has neither and floods the queue in its first round trips
  (docs/models/hybla.md).
* ``pep2same``: the pair with the flow's own controller on the satellite
  leg (pre-opened, IW 10; the leg names no profile, so it runs the flow's,
  ``linux``): what the split alone gives.

Every PEP: a 4 MB buffer per direction of a connection, a 256 MB pool
(the pool experiment varies both), its sockets' buffers autotuned as
Linux's (``receive_window`` left at its default, ``"autotune"``).

Transports (the arm's second part): TCP under the ``linux`` profile
(SACK with RACK, TLP and PRR, IW 10, autotuned receive buffers):
``sack`` (NewReno with SACK recovery), ``cubic`` (Linux's default) and
``hybla`` (the satellite controller), the ends a PEP sits between today;
the ``rfc`` profile's 3-duplicate-ACK rule and 1 s minimum RTO would
describe no deployed host. QUIC (``quinn-cubic``, quinn's default,
IW 10 x 1,448 bytes) end to end and through the pair: a PEP cannot split
it, so the two must be the same run.

Experiments (factor levels, ``--quick``'s in brackets):

* ``bulk-geo``, ``bulk-transat``: every arm x downlink PER 0, 1e-3, 1e-2
  [0, 1e-2] x 1 MB and 5 MB [1 MB], 5 [2] seeds;
* ``http-geo``, ``http-transat``: every arm x PER 0, 1e-3, 1e-2 [0,
  1e-2], three pages 30 s apart (the ADaLR thesis' page: a 10,710-byte
  main object and 15 of 7,758 bytes) requested one at a time on one
  persistent connection, 5 [2] seeds;
* ``schemes-geo``, ``schemes-transat``: the seeds' own schemes, TRANSAT's
  enhanced TCP (SACK, IW 4, limited transmit) and TCP-ADaLR over SACK,
  end to end and as the real ends of the Hybla pair, beside the pair with
  CUBIC ends, x PER 0, 1e-3, 1e-2 [0, 1e-2] x 1 MB and 5 MB [1 MB], 5 [2]
  seeds. Peach is left out: it needs priority queues at the routers for
  its dummy segments (the peach study's network), which these paths do
  not have;
* ``pool-geo``: six 1 MB downloads opened at once (``scenarios/pep/
  pool.toml``), TCP cubic, end to end against the Hybla pair with 1 MB
  buffers and a pool that fits all six connections (12 MB) or two (4 MB),
  a full pool making connections wait or pass unsplit, x PER 0, 1e-3 [0],
  5 [2] seeds.

Seeds draw the losses; a loss-free cell's seeds are the same run.
"""

from __future__ import annotations

from dataclasses import dataclass

from ..kit.catalogue import Arm, Experiment, Factor

PATHS = {"geo": "scenarios/pep/geo.toml", "transat": "scenarios/pep/transat.toml"}
POOL_PATH = "scenarios/pep/pool.toml"
#: each path's gateway and terminal nodes
NODES = {"geo": ("gateway", "term"), "transat": ("n1", "n2")}
#: each path's downlink rate (bit/s) and propagation RTT (s) client to server
RATE_BPS = {"geo": 2_048_000, "transat": 2_000_000}
RTT_S = {"geo": 0.512, "transat": 0.59}
#: the satellite hop's round trip alone
SAT_RTT_S = {"geo": 0.5, "transat": 0.51}
MSS = 1448  # the linux profile's
FLOW = "transfer"
POOL_FLOWS = tuple(f"transfer{i}" for i in range(1, 7))
LINK = "sat"

SETUPS = ("e2e", "pep1", "pep2", "pep2same")
TCP_CCS = ("sack", "cubic", "hybla")
QUIC_CC = "quinn-cubic"
QUIC_SETUPS = ("e2e", "pep2")
SETUP_NAMES = {"e2e": "end to end", "pep1": "one PEP (gateway)", "pep2": "two PEPs, Hybla leg",
               "pep2same": "two PEPs, own leg"}
CC_NAMES = {"sack": "TCP sack (NewReno)", "cubic": "TCP cubic", "hybla": "TCP hybla", QUIC_CC: "QUIC quinn-cubic",
            "enhanced": "TRANSAT enhanced TCP", "adalr-sack": "TCP-ADaLR (SACK)"}
#: the seeds' own schemes, their ``tcp`` keys beside the linux profile (TRANSAT's enhanced TCP as the transat
#: study sets it: SACK, IW 4, limited transmit; TCP-ADaLR over SACK as the adalr study's arm)
SCHEMES = {"enhanced": {"sack": True, "initial_window": 4, "limited_transmit": True}, "adalr-sack": {}}
#: the schemes experiment's arms: each scheme end to end and on the ends of the Hybla pair, and the pair with
#: CUBIC ends for reference
SCHEME_ARMS = (("e2e", "enhanced"), ("pep2", "enhanced"), ("e2e", "adalr-sack"), ("pep2", "adalr-sack"),
               ("pep2", "cubic"))
BUFFER = "4MB"
POOL = "256MB"
HYBLA_LEG = {"variant": "hybla", "profile": "rfc", "initial_window": 10, "handshake": False}

PERS = (0.0, 1e-3, 1e-2)
QUICK_PERS = (0.0, 1e-2)
SIZES_KB = (1000, 5000)
QUICK_SIZES_KB = (1000,)
SEEDS = 5
QUICK_SEEDS = 2
REQUEST = 350
PAGES = 3
POOL_BUFFER = 1_000_000
#: the pool experiment's pools: all six connections (two buffers each) or two
POOLS = {"all": 12_000_000, "two": 4_000_000}
POOL_ARMS = ("e2e", "all_wait", "two_wait", "two_pass")
POOL_PERS = (0.0, 1e-3)
QUICK_POOL_PERS = (0.0,)


@dataclass(frozen=True)
class Spec:
    """What an arm's label stands for."""

    setup: str
    cc: str

    @property
    def transport(self) -> str:
        return "quic" if self.cc == QUIC_CC else "tcp"


def label(setup: str, cc: str) -> str:
    return f"{setup}-{cc}"


def spec(arm_label: str) -> Spec:
    setup, cc = arm_label.split("-", 1)
    return Spec(setup, cc)


def peps(setup: str, path: str, cc: str, **kw) -> list[dict]:
    """The ``[[peps]]`` entries of a set-up (``e2e``: the pair, which the
    flow opts out of)."""
    gw, term = NODES[path]
    common = {"buffer": kw.get("buffer", BUFFER), "pool": kw.get("pool", POOL), **kw.get("extra", {})}
    if setup == "pep1":
        return [{"node": gw, **common}]
    leg = HYBLA_LEG if setup in ("pep2", "e2e") else {"variant": cc, "initial_window": 10, "handshake": False}
    if cc == QUIC_CC:
        leg = HYBLA_LEG
    return [{"node": gw, "peer": term, "leg": leg, **common}]


def flow_settings(flow: str, cc: str, setup: str) -> dict:
    f = f"flows.{flow}"
    if cc == QUIC_CC:
        out = {f"{f}.transport": "quic", f"{f}.quic": {"cc": cc, "initial_window": 10 * MSS}}
    else:
        out = {f"{f}.tcp": {"profile": "linux", "variant": cc, **SCHEMES.get(cc, {})}}
    if setup == "e2e":
        out[f"{f}.split"] = False
    return out


def arm(setup: str, cc: str, path: str) -> Arm:
    settings = {"peps": peps(setup, path, cc), **flow_settings(FLOW, cc, setup)}
    return Arm(label(setup, cc), settings, {FLOW: cc})


def arms(path: str) -> tuple[Arm, ...]:
    out = [arm(s, c, path) for c in TCP_CCS for s in SETUPS]
    out += [arm(s, QUIC_CC, path) for s in QUIC_SETUPS]
    return tuple(out)


def pool_arm(name: str) -> Arm:
    """The pool experiment's arms: ``e2e`` or ``POOL_FULL`` (the pool's
    size, what a connection finding it full does)."""
    cc = "cubic"
    setup = "e2e" if name == "e2e" else "pep2"
    settings = {}
    for fl in POOL_FLOWS:
        settings.update(flow_settings(fl, cc, setup))
    if name == "e2e":
        settings["peps"] = peps("e2e", "geo", cc, buffer=POOL_BUFFER, pool=POOLS["all"])
    else:
        size, full = name.split("_")
        settings["peps"] = peps("pep2", "geo", cc, buffer=POOL_BUFFER, pool=POOLS[size], extra={"pool_full": full})
    return Arm(f"pool{name}-{cc}", settings, {fl: cc for fl in POOL_FLOWS})


def _per(v: float) -> dict:
    return {"per": v}


def per_factor(values=PERS, quick=QUICK_PERS) -> Factor:
    return Factor("per", f"links.{LINK}.errors_ab", values, quick, encode=_per)


def catalogue(quick: bool) -> list[Experiment]:
    seeds = dict(replications=SEEDS, quick_replications=QUICK_SEEDS)
    out = []
    for path, base in PATHS.items():
        size = Factor("size_kb", f"flows.{FLOW}.app.size", SIZES_KB, QUICK_SIZES_KB, encode=lambda v: f"{v}KB")
        out.append(Experiment(f"bulk-{path}", f"bulk transfers over the {path} path", base, "ftp", arms(path),
                              (per_factor(), size), link=LINK, **seeds))
    for path, base in PATHS.items():
        app = {"kind": "http", "pages": PAGES, "request": REQUEST}
        out.append(Experiment(f"http-{path}", f"HTTP pages over the {path} path", base, "http", arms(path),
                              (per_factor(),), settings={f"flows.{FLOW}.app": app}, link=LINK, **seeds))
    for path, base in PATHS.items():
        size = Factor("size_kb", f"flows.{FLOW}.app.size", SIZES_KB, QUICK_SIZES_KB, encode=lambda v: f"{v}KB")
        out.append(Experiment(f"schemes-{path}", f"the seeds' own schemes beside the PEP pair over the {path} path",
                              base, "ftp", tuple(arm(st, cc, path) for st, cc in SCHEME_ARMS), (per_factor(), size),
                              link=LINK, **seeds))
    out.append(Experiment("pool-geo", "the PEP's memory pool: six concurrent 1 MB downloads over the geo path",
                          POOL_PATH, "ftp", tuple(pool_arm(n) for n in POOL_ARMS),
                          (per_factor(POOL_PERS, QUICK_POOL_PERS),), link=LINK, **seeds))
    return out
