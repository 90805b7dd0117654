"""The XFWA study's experiments (Taleb, Kato and Nemoto, IEEE JSAC 2003;
spec ``/work/shared/specs/004-xfwa.md``) as platform sweeps.

Networks: ``scenarios/xfwa/equal_rtts.toml`` (Topology(3, 1, MAX, 0, 0))
and ``different_rtts.toml`` (Topology(3, 4, MAX/4, i - 1, i - 1)), both
written with ``[multihop]``. Experiments:

* ``equal`` (section V-A, Figs. 5-10): T1, T2, T3, OC3 (MAX 8, 32, 128,
  512 flows) x scenarios A-D, plain NewReno on drop-tail against NewReno
  with XFWA;
* ``alpha`` (V-B, Figs. 11-12): different RTTs, T1, scenario A, XFWA's
  skew factor alpha swept (the paper does not print its values: 0.25 to
  4 here) beside plain NewReno;
* ``rtts`` (V-B, Figs. 13 and 17): different RTTs on every link type,
  scenario A, alpha = 1;
* ``rtt_error`` (V-C, Fig. 14): different RTTs, T1, scenario A, each
  flow's RTT estimate off by e ~ U[-sigma, sigma] (the paper's ns
  ``min_ = -sigma, max_ = sigma``; sigma values not printed: 0 to 0.5);
* ``onoff`` (V-D, Figs. 15-16): T2, ten persistent FTP flows and
  Count_OnOff ON-OFF TCP sources (Pareto, 160 ms mean ON and OFF) from 5
  to 15 s (``scenarios/xfwa/onoff.toml``; the counts are not printed: 0 to
  60 here);

ns-2 2.35 runs plain NewReno on scenario A beside ``equal`` (``ns2``).
"""

from __future__ import annotations

import math

from ..kit.catalogue import Arm, Experiment, Factor

EQUAL = "scenarios/xfwa/equal_rtts.toml"
DIFFERENT = "scenarios/xfwa/different_rtts.toml"
ONOFF = "scenarios/xfwa/onoff.toml"
ONOFF_COUNTS = (0, 15, 30, 45, 60)
STOP_S = 20.0
LINK_TYPES = ("T1", "T2", "T3", "OC3")
RATE_BPS = {"T1": 1.5e6, "T2": 10e6, "T3": 45e6, "OC3": 155e6}
MAX_FLOWS = {"T1": 8, "T2": 32, "T3": 128, "OC3": 512}
SCHEDULES = ("A", "B", "C", "D")
ALPHAS = (0.25, 0.5, 1.0, 1.5, 2.0, 4.0)
SIGMAS = (0.0, 0.05, 0.1, 0.2, 0.3, 0.5)
BOTTLENECK = "b1->b2"
REPLICATIONS, QUICK_REPLICATIONS = 5, 2

TCP = Arm("tcp", {"multihop.xfwa": False}, {})
XFWA = Arm("xfwa", {"multihop.xfwa": True}, {})


def _bottleneck(values=LINK_TYPES, quick=("T1", "T2")) -> Factor:
    return Factor("link", "multihop.bottleneck", tuple(values), tuple(quick))


def experiments() -> list[Experiment]:
    reps = dict(replications=REPLICATIONS, quick_replications=QUICK_REPLICATIONS)
    return [
        Experiment("equal", "Equal RTTs: link types x scenarios A-D", EQUAL, "ftp", (TCP, XFWA),
                   (_bottleneck(), Factor("schedule", "multihop.schedule", SCHEDULES, SCHEDULES)),
                   figures=("5", "6", "7", "8", "9", "10"), link="isl1", **reps),
        Experiment("alpha", "Different RTTs: the skew factor alpha (T1, scenario A)", DIFFERENT, "ftp",
                   (TCP,) + tuple(Arm(f"xfwa_alpha{a:g}", {"multihop.xfwa": {"alpha": a}}, {}) for a in ALPHAS),
                   (), figures=("11", "12"), link="isl1", **reps),
        Experiment("rtts", "Different RTTs on every link type (scenario A, alpha = 1)", DIFFERENT, "ftp",
                   (TCP, XFWA), (_bottleneck(),), figures=("13", "17"), link="isl1", **reps),
        Experiment("rtt_error", "RTT estimation errors (T1, scenario A, different RTTs)", DIFFERENT, "ftp",
                   (TCP,) + tuple(Arm(f"xfwa_sigma{s:g}", {"multihop.xfwa": {"rtt_error": s}}, {}) for s in SIGMAS),
                   (), figures=("14",), link="isl1", **reps),
        Experiment("onoff", "ON-OFF TCP cross traffic (T2, ten persistent flows)", ONOFF, "ftp", (TCP, XFWA),
                   (Factor("onoff", "multihop.groups.1.flows", ONOFF_COUNTS, (15, 45)),),
                   figures=("15", "16"), link="isl1", **reps),
    ]


def catalogue(quick: bool) -> list[Experiment]:
    return experiments()


def arm_value(arm: str) -> tuple[str, float]:
    """("tcp" | "xfwa", the swept value: alpha, sigma or NaN)."""
    if arm.startswith("xfwa_alpha"):
        return "xfwa", float(arm[len("xfwa_alpha"):])
    if arm.startswith("xfwa_sigma"):
        return "xfwa", float(arm[len("xfwa_sigma"):])
    return arm, math.nan
