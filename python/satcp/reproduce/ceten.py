"""The CETEN-R study (Carroll, AFIT thesis 2004; spec
``/work/shared/specs/002-ceten-r.md``) as platform sweeps, with its
statistics: goodput per client with 90% Student-t intervals over five
replications beside the thesis' Tables 4, 5, 9, 10, 17 and 18, the ANOVA
of Tables 7, 11 and 15, and the thesis' main findings as claims.

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

Choices: the thesis' goodput is bits delivered to date over the time at
the end of the run, per client (the mean of the clients for four); paired
replications use the same seeds across variants and CETEN-R on/off
(common random numbers: the platform seeds by replication).
"""

from __future__ import annotations

import math
from pathlib import Path
from typing import Any

import numpy as np
import pandas as pd
import scipy.stats as sps

from ..paths import ROOT
from ..stats import anova
from ..store import Store
from .catalogue import Arm, Experiment, Factor, PlannedRun
from .runner import stored_runs, stored_tables

REPO_ROOT = ROOT  # the repository, or the wheel's copy (satcp/paths.py)
PUBLISHED = REPO_ROOT / "data" / "published" / "ceten_thesis.csv"
PUBLISHED_ANOVA = REPO_ROOT / "data" / "published" / "ceten_anova.csv"
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


# ----- the store's runs --------------------------------------------------------

COLUMNS = ["experiment", "arm", "delay_ms", "ber", "replication", "key", "status", "flow", "variant", "goodput_bps",
           "srtt_s", "timeouts", "fast_recoveries", "retransmissions"]


def collect(store: Store, runs: list[PlannedRun], experiments: list[Experiment]) -> pd.DataFrame:
    """One row per run x flow (``COLUMNS``)."""
    if not runs:
        return pd.DataFrame(columns=COLUMNS)
    run_t, flow_t, _ = stored_tables(store, runs)
    variants = {(e.id, a.label): a.flow_variants for e in experiments for a in e.arms}
    rows = []
    for p, status, flows in stored_runs(runs, run_t, flow_t):
        ident = dict(experiment=p.experiment, arm=p.arm, delay_ms=p.levels["delay_ms"], ber=p.levels["ber"],
                     replication=p.run.replication, key=p.run.key, status=status)
        if flows is None:
            rows.append(dict(ident, flow=None))
            continue
        for _, f in flows.iterrows():
            rows.append(dict(ident, flow=f["flow"], variant=variants[(p.experiment, p.arm)][f["flow"]],
                             goodput_bps=float(f["bytes_delivered"]) * 8 / STOP_S,
                             srtt_s=float(f["final_srtt_s"]) if pd.notna(f["final_srtt_s"]) else math.nan,
                             timeouts=int(f["timeouts"]), fast_recoveries=int(f["fast_recoveries"]),
                             retransmissions=int(f["retransmissions"])))
    return pd.DataFrame(rows, columns=COLUMNS)


def observations(obs: pd.DataFrame) -> pd.DataFrame:
    """One row per replication of each thesis row: clients, variant,
    delay_ms, ber, ceten (off/on), env (all/mixed), goodput (the client's,
    or the mean of the clients the row averages)."""
    ok = obs[(obs["status"] == "ok") & obs["flow"].notna()]
    rows = []
    for (exp, arm, d, b, rep), g in ok.groupby(["experiment", "arm", "delay_ms", "ber", "replication"]):
        if exp == "alpha":
            continue
        flavour, how = arm.split(":")
        base = dict(variant=flavour, delay_ms=int(d), ber=float(b), replication=int(rep))
        if exp == "mixed":
            on = g[g["flow"] == "f1"]["goodput_bps"].mean()
            off = g[g["flow"] != "f1"]["goodput_bps"].mean()
            rows += [dict(base, clients=4, ceten="on", env="mixed", goodput_bps=on),
                     dict(base, clients=4, ceten="off", env="mixed", goodput_bps=off)]
        else:
            rows.append(dict(base, clients=1 if exp == "single" else 4, ceten=how, env="all",
                             goodput_bps=g["goodput_bps"].mean(), srtt_s=g["srtt_s"].mean()))
    return pd.DataFrame(rows)


def t_interval90(x: np.ndarray) -> tuple[float, float]:
    n = x.size
    if n < 2:
        return (math.nan, math.nan)
    half = sps.t.ppf(0.5 + LEVEL / 2, n - 1) * x.std(ddof=1) / math.sqrt(n)
    return (x.mean() - half, x.mean() + half)


def load_published() -> pd.DataFrame:
    return pd.read_csv(PUBLISHED, comment="#", dtype={"table": str, "erratum": str}).fillna({"erratum": ""})


def table_rows(per_rep: pd.DataFrame, pub: pd.DataFrame) -> pd.DataFrame:
    """Every thesis row with ours beside it: our mean and 90% interval, the
    thesis' mean and interval, the deviation, and whether the row is
    reproduced (within 10%, or the thesis' mean inside our interval)."""
    out = []
    for _, r in pub.iterrows():
        sel = per_rep[(per_rep["clients"] == r["clients"]) & (per_rep["variant"] == r["variant"])
                      & (per_rep["delay_ms"] == r["delay_ms"]) & np.isclose(per_rep["ber"], float(r["ber"]))
                      & (per_rep["ceten"] == r["ceten"]) & (per_rep["env"] == r["env"])] if not per_rep.empty else per_rep
        x = sel["goodput_bps"].to_numpy(dtype=float) if not sel.empty else np.array([])
        mean = float(x.mean()) if x.size else math.nan
        lo, hi = t_interval90(x) if x.size else (math.nan, math.nan)
        dev = mean / r["mean_bps"] - 1 if x.size else math.nan
        ok = (abs(dev) <= 0.10 or lo <= r["mean_bps"] <= hi) if x.size else math.nan
        out.append(dict(table=r["table"], clients=r["clients"], variant=r["variant"], delay_ms=r["delay_ms"],
                        ber=float(r["ber"]), ceten=r["ceten"], env=r["env"], n=int(x.size), ours=mean, ours_lo=lo,
                        ours_hi=hi, thesis=float(r["mean_bps"]), thesis_lo=float(r["ci_lo"]),
                        thesis_hi=float(r["ci_hi"]), deviation_pct=dev * 100, reproduced=ok, erratum=r["erratum"]))
    return pd.DataFrame(out)


# ----- ANOVA -------------------------------------------------------------------

LETTERS = {"variant": "F", "delay_ms": "D", "ber": "E", "ceten": "A", "clients": "N"}


def our_anova(per_rep: pd.DataFrame, scope: str) -> pd.DataFrame:
    """The thesis' ANOVA on our observations: ``one_client``, ``four_clients``
    (factors F, D, E, A) or ``all`` (with N), homogeneous runs only; terms
    named by the thesis' letters (D x E -> DE)."""
    d = per_rep[per_rep["env"] == "all"]
    factors = ["variant", "delay_ms", "ber", "ceten"]
    if scope == "one_client":
        d = d[d["clients"] == 1]
    elif scope == "four_clients":
        d = d[d["clients"] == 4]
    else:
        factors = ["clients"] + factors
    a = anova(d, factors, "goodput_bps", labels=LETTERS)
    a["term"] = a["component"].str.replace(" x ", "", regex=False)
    return a


def load_published_anova() -> pd.DataFrame:
    # the term "NA" (clients x CETEN-R) is a name, not a missing value
    return pd.read_csv(PUBLISHED_ANOVA, comment="#", dtype={"table": str, "term": str}, keep_default_na=False)


def anova_rows(ours: pd.DataFrame, pub: pd.DataFrame, scope: str) -> pd.DataFrame:
    """Main effects and first-order interactions: ours and the thesis'
    percentage of variation (terms named by the thesis' letters, in any
    order)."""
    p = pub[pub["scope"] == scope]
    thesis = {"".join(sorted(t)): float(v) for t, v in zip(p["term"], p["pct"]) if t.isalpha() and t.isupper()}
    rows = []
    for _, r in ours[ours["kind"] == "term"].iterrows():
        if r["order"] > 2:
            continue
        key = "".join(sorted(r["term"]))
        rows.append(dict(term=r["term"], order=int(r["order"]), ours_pct=float(r["pct_variation"]),
                         thesis_pct=thesis.get(key, math.nan)))
    return pd.DataFrame(rows)


def main_effect_order(rows: pd.DataFrame, column: str) -> list[str]:
    m = rows[rows["order"] == 1].sort_values(column, ascending=False)
    return list(m["term"])


# ----- claims ------------------------------------------------------------------

def claims(per_rep: pd.DataFrame, tables: pd.DataFrame, anovas: dict[str, pd.DataFrame]) -> list[dict[str, Any]]:
    """The thesis' main findings judged on our runs; each with its
    criterion in the evidence."""
    out = []
    home = tables[(tables["env"] == "all") & (tables["n"] > 0)]

    def gain(clients, variant, delay, ber):
        g = home[(home["clients"] == clients) & (home["variant"] == variant) & (home["delay_ms"] == delay)
                 & np.isclose(home["ber"], ber)].set_index("ceten")
        if not {"on", "off"} <= set(g.index):
            return math.nan, math.nan
        return g.loc["on", "ours"] / g.loc["off", "ours"] - 1, g.loc["on", "thesis"] / g.loc["off", "thesis"] - 1

    cells = [(c, v, d) for c in (1, 4) for v in ("reno", "newreno") for d in DELAYS_MS]
    hi = [(gain(c, v, d, 1e-5), (c, v, d)) for c, v, d in cells]
    ok = [g[0] >= 0.30 for g, _ in hi if not math.isnan(g[0])]
    out.append(dict(id="gains_at_1e-5", wording="At BER 1e-5 CETEN-R gains 34% to 146% (every homogeneous cell)",
                    holds=(all(ok) if ok else None),
                    evidence="ours/thesis On vs Off: " + "; ".join(
                        f"{c}c {v} {d}ms {g[0] * 100:+.0f}%/{g[1] * 100:+.0f}%" for g, (c, v, d) in hi) +
                    " (criterion: +30% or more in every cell)"))
    lo = [(gain(c, v, d, 1e-7), (c, v, d)) for c, v, d in cells]
    ok = [g[0] <= 0.05 for g, _ in lo if not math.isnan(g[0])]
    out.append(dict(id="no_gain_at_1e-7", wording="At BER 1e-7 CETEN-R provides no advantage (about zero, or "
                                                  "slightly negative for Reno)",
                    holds=(all(ok) if ok else None),
                    evidence="ours/thesis: " + "; ".join(
                        f"{c}c {v} {d}ms {g[0] * 100:+.1f}%/{g[1] * 100:+.1f}%" for g, (c, v, d) in lo) +
                    " (criterion: at most +5% in every cell)"))
    nr = [(gain(1, "newreno", d, 1e-5)[0], gain(1, "reno", d, 1e-5)[0], d) for d in DELAYS_MS]
    ok = [a > b for a, b, _ in nr if not (math.isnan(a) or math.isnan(b))]
    out.append(dict(id="newreno_gains_more", wording="CETEN-R's gain over NewReno exceeds its gain over Reno at "
                                                     "high error rates (77.5% vs 33.8% at 320 ms, 146% vs 77% at 50 ms)",
                    holds=(all(ok) if ok else None),
                    evidence="; ".join(f"{d} ms: NewReno {a * 100:+.0f}%, Reno {b * 100:+.0f}%" for a, b, d in nr)))
    one = per_rep[(per_rep["clients"] == 1) & (per_rep["env"] == "all") & np.isclose(per_rep["ber"], 1e-7)
                  & (per_rep["ceten"] == "off")]
    if not one.empty:
        # the thesis' check is on its Reno table means (spec 002 section
        # 5.3): each cell's mean goodput over the window bound of its mean
        # SRTT; NewReno's cells are shown beside (its full ACK deflates cwnd
        # to FlightSize + SMSS, RFC 6582, so it sits lower, in the thesis too)
        cells = []
        for (v, d), g in one.groupby(["variant", "delay_ms"]):
            bound = RWND_SEGMENTS * MSS * 8 / g["srtt_s"].mean()
            th = home[(home["clients"] == 1) & (home["variant"] == v) & (home["delay_ms"] == d)
                      & np.isclose(home["ber"], 1e-7) & (home["ceten"] == "off")]
            cells.append((v, d, g["goodput_bps"].mean() / bound,
                          float(th["thesis"].iloc[0]) / bound if not th.empty else math.nan))
        reno = [r for v, _, r, _ in cells if v == "reno"]
        out.append(dict(id="window_limited", wording="At BER 1e-7 goodput is window-limited: 20 x 536 bytes per "
                                                     "RTT (the thesis' consistency check, on its Reno rows)",
                        holds=(all(abs(r - 1) <= 0.05 for r in reno) if reno else None),
                        evidence="cell mean / (20 x 536 B / mean SRTT), ours (thesis' mean over the same bound): "
                                 + "; ".join(f"{v} {d} ms {r:.3f} ({t:.3f})" for v, d, r, t in cells)
                                 + " (criterion: Reno within 5%)"))
    for scope, label in (("one_client", "1 client"), ("all", "all runs")):
        rows = anovas.get(scope)
        if rows is None or rows.empty:
            continue
        ours, theirs = main_effect_order(rows, "ours_pct"), main_effect_order(rows.dropna(), "thesis_pct")
        out.append(dict(id=f"anova_order_{scope}", wording=f"Delay and error rate dominate the variation ({label}); "
                                                           "the factors rank " + " > ".join(theirs),
                        holds=ours[:2] == theirs[:2] and set(ours[:2]) == {"D", "E"},
                        evidence="ours " + ", ".join(f"{t} {v:.2f}%" for t, v in
                                                     zip(rows[rows['order'] == 1].sort_values('ours_pct', ascending=False)['term'],
                                                         rows[rows['order'] == 1].sort_values('ours_pct', ascending=False)['ours_pct']))
                                 + "; full order " + " > ".join(ours) + (" (the thesis' too)" if ours == theirs else
                                                                          " (the thesis': " + " > ".join(theirs) + ")")))
    mixed = tables[(tables["env"] == "mixed") & (tables["ceten"] == "off") & (tables["n"] > 0)]
    if not mixed.empty:
        stock = home[(home["clients"] == 4) & (home["ceten"] == "off")]
        losses = []
        for _, r in mixed.iterrows():
            s = stock[(stock["variant"] == r["variant"]) & (stock["delay_ms"] == r["delay_ms"])
                      & np.isclose(stock["ber"], r["ber"])]
            if not s.empty:
                losses.append(r["ours"] / float(s["ours"].iloc[0]) - 1)
        bad = sum(1 for x in losses if x < -0.05)
        out.append(dict(id="mixed_not_unfair", wording="In most mixed cases CETEN-R is not unfair to the stock "
                                                       "clients (one of twelve cells differs: -3.8%)",
                        holds=bad <= 1,
                        evidence=f"stock clients beside one CETEN-R client vs all stock: {min(losses) * 100:+.1f}% to "
                                 f"{max(losses) * 100:+.1f}%; {bad} of {len(losses)} cells below -5% "
                                 "(criterion: at most one)"))
    return out
