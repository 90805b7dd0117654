"""The CETEN-R study's results: goodput per client with 90% Student-t
intervals over five replications beside the thesis' Tables 4, 5, 9, 10,
17 and 18, the ANOVA of Tables 7, 11 and 15, and the thesis' main
findings as claims.

The thesis' goodput is bits delivered to date over the time at the end of
the run, per client (the mean of the clients for four).
"""

from __future__ import annotations

import math
from dataclasses import dataclass

import numpy as np
import pandas as pd
import scipy.stats as sps

from ...paths import ROOT
from ...stats import anova
from ...store import Store
from ..kit import data
from ..kit.catalogue import Experiment, PlannedRun
from ..kit.claims import Claim, judged
from ..kit.study import Context
from .experiments import DELAYS_MS, LEVEL, MSS, RWND_SEGMENTS, STOP_S

PUBLISHED = ROOT / "data" / "published" / "ceten_thesis.csv"
PUBLISHED_ANOVA = ROOT / "data" / "published" / "ceten_anova.csv"

COLUMNS = ["experiment", "arm", "delay_ms", "ber", "replication", "key", "status", "flow", "variant", "goodput_bps",
           "srtt_s", "timeouts", "fast_recoveries", "retransmissions"]


def collect(store: Store, runs: list[PlannedRun], experiments: list[Experiment]) -> pd.DataFrame:
    """One row per run x flow (``COLUMNS``)."""
    if not runs:
        return pd.DataFrame(columns=COLUMNS)
    got = data.stored(store, runs, ("flows",))
    variants = {(e.id, a.label): a.flow_variants for e in experiments for a in e.arms}
    rows = []
    for p, status, flows in got.each(runs):
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

def thesis_claims(per_rep: pd.DataFrame, tables: pd.DataFrame, anovas: dict[str, pd.DataFrame]) -> list[Claim]:
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
    out.append(judged(id="gains_at_1e-5", wording="At BER 1e-5 CETEN-R gains 34% to 146% (every homogeneous cell)",
                    holds=(all(ok) if ok else None),
                    evidence="ours/thesis On vs Off: " + "; ".join(
                        f"{c}c {v} {d}ms {g[0] * 100:+.0f}%/{g[1] * 100:+.0f}%" for g, (c, v, d) in hi) +
                    " (criterion: +30% or more in every cell)"))
    lo = [(gain(c, v, d, 1e-7), (c, v, d)) for c, v, d in cells]
    ok = [g[0] <= 0.05 for g, _ in lo if not math.isnan(g[0])]
    out.append(judged(id="no_gain_at_1e-7", wording="At BER 1e-7 CETEN-R provides no advantage (about zero, or "
                                                  "slightly negative for Reno)",
                    holds=(all(ok) if ok else None),
                    evidence="ours/thesis: " + "; ".join(
                        f"{c}c {v} {d}ms {g[0] * 100:+.1f}%/{g[1] * 100:+.1f}%" for g, (c, v, d) in lo) +
                    " (criterion: at most +5% in every cell)"))
    nr = [(gain(1, "newreno", d, 1e-5)[0], gain(1, "reno", d, 1e-5)[0], d) for d in DELAYS_MS]
    ok = [a > b for a, b, _ in nr if not (math.isnan(a) or math.isnan(b))]
    out.append(judged(id="newreno_gains_more", wording="CETEN-R's gain over NewReno exceeds its gain over Reno at "
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
        out.append(judged(id="window_limited", wording="At BER 1e-7 goodput is window-limited: 20 x 536 bytes per "
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
        out.append(judged(id=f"anova_order_{scope}", wording=f"Delay and error rate dominate the variation ({label}); "
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
        out.append(judged(id="mixed_not_unfair", wording="In most mixed cases CETEN-R is not unfair to the stock "
                                                       "clients (one of twelve cells differs: -3.8%)",
                        holds=bad <= 1,
                        evidence=f"stock clients beside one CETEN-R client vs all stock: {min(losses) * 100:+.1f}% to "
                                 f"{max(losses) * 100:+.1f}%; {bad} of {len(losses)} cells below -5% "
                                 "(criterion: at most one)"))
    return out


@dataclass
class Analysis:
    """The CETEN-R report's material."""

    observations: pd.DataFrame
    per_rep: pd.DataFrame  # one row per replication of each thesis row
    rows: pd.DataFrame  # every thesis row with ours beside it
    anovas: dict[str, pd.DataFrame]  # by scope: ours beside the thesis' percentages
    runs: pd.DataFrame


def analyse(ctx: Context) -> Analysis:
    per_rep = observations(ctx.observations)
    rows = table_rows(per_rep, load_published())
    pub_anova = load_published_anova()
    anovas = {}
    for scope in ("one_client", "four_clients", "all"):
        try:
            anovas[scope] = anova_rows(our_anova(per_rep, scope), pub_anova, scope)
        except (ValueError, KeyError):
            pass  # a factor with one level: the experiment was left out (--only)
    return Analysis(ctx.observations, per_rep, rows, anovas, ctx.runs)


def claims(analysis: Analysis) -> list[Claim]:
    return thesis_claims(analysis.per_rep, analysis.rows, analysis.anovas)
