"""The Modified Peach study's figures: Figs. 3-5 redrawn (the paper's
metric over time, ours solid and ns-2's dotted, and goodput per flow), and
the curves they draw, from stored runs run again with sampling."""

from __future__ import annotations

import pandas as pd

from ...plotting import pyplot
from ..kit import data
from ..kit.figures import axis_label, legend, runs_and_mean
from .experiments import FIGURE_SEEDS, MSS, NAMES, PERS, QUICK_FIGURE_SEEDS, SAMPLE_S, VARIANTS


COLORS = {"tahoe": "tab:brown", "reno": "tab:olive", "newreno": "tab:blue", "sack": "tab:cyan", "fack": "tab:purple",
          "vegas": "tab:orange", "westwood": "tab:green", "modified-peach": "tab:red", "peach": "tab:pink"}


def figure_curves(obs: pd.DataFrame, runs: pd.DataFrame, quick: bool) -> pd.DataFrame:
    """The paper's metric over time: per variant, PER and sample
    time, the highest segment cumulatively acknowledged, averaged over the
    ten flows and the figure seeds (the first FIGURE_SEEDS replications of
    the experiment ``per``, stored runs run again with 5 s sampling)."""
    scenario = runs.set_index("key")["scenario_json"]
    first = obs[(obs["experiment"] == "per") & (obs["status"] == "ok")
                & (obs["replication"] < (QUICK_FIGURE_SEEDS if quick else FIGURE_SEEDS))]
    rows = []
    for v in VARIANTS:
        for per in PERS:
            sel = first[(first["arm"] == v) & (first["per"] == per)].drop_duplicates("key")
            for key, seed in zip(sel["key"], sel["seed"]):
                s = data.rerun(scenario[key], SAMPLE_S).series
                una = (s["snd_max_bytes"] - s["flight_bytes"]) / MSS
                g = pd.DataFrame({"t": s["time_s"].round(6), "segments": una}).groupby("t")["segments"].mean()
                rows += [dict(variant=v, per=per, seed=seed, t=t, segments=x) for t, x in g.items()]
    df = pd.DataFrame(rows, columns=["variant", "per", "seed", "t", "segments"])
    return df.groupby(["variant", "per", "t"])["segments"].mean().reset_index()


def figure(curves: pd.DataFrame, ns2c: pd.DataFrame, table: pd.DataFrame, per_run: pd.DataFrame, per: float,
           number: str, profile: str):
    """Left, the paper's metric over time (ours solid, ns-2's dotted);
    right, goodput per flow: each replication's mean a point, the mean of
    them with an interval within them, ns-2's mean beside."""
    plt = pyplot()
    fig, (ax, bx) = plt.subplots(1, 2, figsize=(12, 4.5), gridspec_kw={"width_ratios": [3, 2]})
    for v in VARIANTS:
        c = curves[(curves["variant"] == v) & (curves["per"] == per)]
        if not c.empty:
            ax.plot(c["t"], c["segments"], color=COLORS[v], lw=1.6 if "peach" in v else 1.1,
                    ls="--" if v == "peach" else "-", label=NAMES[v])
        n = ns2c[(ns2c["variant"] == v) & (ns2c["per"] == per)]
        if not n.empty:
            ax.plot(n["t"], n["segments"], color=COLORS[v], lw=0.9, ls=":")
    ax.set_xlabel(axis_label("time", "s"))
    ax.set_ylabel(axis_label("highest segment ACKed, mean of 10 flows", "segments"))
    ax.set_title(f"Fig. {number}: PER {per:g} (solid: satcp; dotted: ns-2 2.35)", fontsize=9)
    ax.grid(alpha=0.3)
    legend(ax, profile, fontsize=7, ncol=2)
    t = table[(table["experiment"] == "per") & (table["per"] == per)].set_index("arm").reindex(VARIANTS)
    runs = per_run[(per_run["experiment"] == "per") & (per_run["per"] == per)]
    for i, v in enumerate(t.index):
        runs_and_mean(bx, i, runs[runs["arm"] == v]["goodput_bps"] / 1e3, color=COLORS[v], spread=0.2,
                      label="satcp" if i == 0 else None)
    bx.plot(range(len(t)), t["ns2_kbps"], "k_", ms=14, mew=2, label="ns-2 2.35 (mean)")
    bx.set_xticks(range(len(t)), [NAMES[v] for v in t.index], rotation=45, ha="right", fontsize=7)
    bx.set_ylabel(axis_label("goodput per flow", "kb/s"))
    bx.set_ylim(bottom=0)
    bx.grid(alpha=0.3, axis="y")
    legend(bx, profile, fontsize=7)
    fig.tight_layout()
    return fig
