"""The CETEN-R thesis' experiments (Carroll, AFIT 2004; spec
``/work/shared/specs/002-ceten-r.md``) as platform sweeps.

Networks: ``scenarios/ceten/one_client.toml`` and ``four_clients.toml``
(every choice in their headers). Experiments:

* ``single`` and ``four``: 1 or 4 clients, Reno and NewReno, CETEN-R off
  and on (every client alike), delay 50 / 320 ms, BER 1e-7 / 1e-6 / 1e-5
  (the thesis' 48 homogeneous cells);
* ``mixed``: 4 clients, one CETEN-R client (f1) among three stock ones
  (its 12 cells);
* ``alpha`` (full form only): CETEN-R's unstated gain alpha and its
  readings (coin per duplicate ACK, the printed congestion ratio of 0) on
  one client at BER 1e-6 and 1e-5: the calibration.

Paired replications use the same seeds across variants and CETEN-R on/off
(common random numbers: the platform seeds by replication).
"""

from __future__ import annotations

from typing import Any

from ..kit.catalogue import Arm, Experiment, Factor

ONE = "scenarios/ceten/one_client.toml"
FOUR = "scenarios/ceten/four_clients.toml"
STOP_S = 600.0
MSS = 536
RWND_SEGMENTS = 20
REPLICATIONS = 5
LEVEL = 0.90
DELAYS_MS = (50, 320)
BERS = (1e-7, 1e-6, 1e-5)
ALPHAS = (0.01, 0.05, 0.1, 0.3, 1.0)
VARIANT = {("reno", "off"): "reno", ("reno", "on"): "ceten-reno", ("newreno", "off"): "newreno",
           ("newreno", "on"): "ceten-newreno"}
# The calibrated reading's sender keys (docs/models/ceten-r.md): the
# printed code's coin on every duplicate ACK and its congestion ratio of 0;
# the scenarios' estimators start every packet from 0 (the printed P).
CETEN_KEYS = {"ceten_coin": "every_dupack", "ceten_initial_congestion": 0.0}
# The stated intent instead (the model's defaults): estimates that persist
# from 1, one coin per loss event, congestion survival from 1.
INTENT_AGENTS = {f"agents.{i}.{k}": v for i in range(3) for k, v in (("estimator", "persistent"), ("initial", 1.0))}


def _flows(n: int) -> tuple[str, ...]:
    return tuple(f"f{i}" for i in range(1, n + 1))


def _variant_settings(flows: tuple[str, ...], variant: str, extra: dict[str, Any] | None = None) -> dict[str, Any]:
    if extra is None and variant.startswith("ceten-"):
        extra = CETEN_KEYS
    return {f"flows.{f}.tcp.{k}": v for f in flows for k, v in {"variant": variant, **(extra or {})}.items()}


def _factors(bers: tuple[float, ...] = BERS) -> tuple[Factor, ...]:
    return (Factor("delay_ms", "links.satellite.delay", DELAYS_MS, DELAYS_MS, encode=lambda v: f"{v}ms"),
            Factor("ber", "links.satellite.errors.ber", bers, bers))


def experiments() -> list[Experiment]:
    exps = []
    for exp_id, base, n in (("single", ONE, 1), ("four", FOUR, 4)):
        arms = tuple(Arm(f"{flavour}:{ceten}", _variant_settings(_flows(n), VARIANT[(flavour, ceten)]),
                         {f: VARIANT[(flavour, ceten)] for f in _flows(n)})
                     for flavour in ("reno", "newreno") for ceten in ("off", "on"))
        exps.append(Experiment(exp_id, f"{n} client{'s' if n > 1 else ''}, homogeneous", base, "ftp", arms, _factors(),
                               replications=REPLICATIONS, quick_replications=REPLICATIONS,
                               tables=("4", "5") if n == 1 else ("9", "10")))
    arms = []
    for flavour in ("reno", "newreno"):
        s = {**_variant_settings(("f1",), VARIANT[(flavour, "on")]),
             **_variant_settings(("f2", "f3", "f4"), VARIANT[(flavour, "off")])}
        arms.append(Arm(f"{flavour}:mixed", s, {"f1": VARIANT[(flavour, "on")],
                                                 **{f: VARIANT[(flavour, "off")] for f in ("f2", "f3", "f4")}}))
    exps.append(Experiment("mixed", "4 clients, one CETEN-R among three stock", FOUR, "ftp", tuple(arms), _factors(),
                           replications=REPLICATIONS, quick_replications=REPLICATIONS, tables=("17", "18")))
    return exps


def calibration() -> Experiment:
    """The readings, one client, BER 1e-6 and 1e-5: the stated intent
    (persistent estimates, a coin per loss event, congestion survival from
    1) over alpha, then one change at a time towards the calibrated
    reading (the printed coin; the printed congestion ratio; the
    per-packet estimator with a coin per loss event)."""
    arms = []
    for flavour in ("reno", "newreno"):
        v = VARIANT[(flavour, "on")]

        def arm(label: str, keys: dict[str, Any], agents: dict[str, Any]) -> Arm:
            return Arm(f"{flavour}:{label}", {**_variant_settings(("f1",), v, keys), **agents}, {"f1": v})
        for a in ALPHAS:
            arms.append(arm(f"intent_alpha{a:g}", {"ceten_alpha": a}, INTENT_AGENTS))
        arms.append(arm("intent_every_dupack", {"ceten_coin": "every_dupack"}, INTENT_AGENTS))
        arms.append(arm("intent_congestion0", {"ceten_initial_congestion": 0.0}, INTENT_AGENTS))
        arms.append(arm("per_packet_loss_event", {"ceten_initial_congestion": 0.0}, {}))
    return Experiment("alpha", "CETEN-R's alpha and readings (calibration)", ONE, "ftp", tuple(arms),
                      _factors((1e-6, 1e-5)), replications=REPLICATIONS, quick_replications=REPLICATIONS)


def catalogue(quick: bool) -> list[Experiment]:
    return experiments() + ([] if quick else [calibration()])
