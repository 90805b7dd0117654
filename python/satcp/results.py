"""Tables of stored results: one row per cell (factor levels x flow).

``cell_table`` reports per cell the number of runs, and per metric the mean
and the half-width of its Student-t confidence interval (``satcp.stats``).
"""

from __future__ import annotations

import json
from typing import Sequence

import pandas as pd

from . import stats

DEFAULT_METRICS = ["completion_s", "goodput_bps", "retransmissions", "timeouts"]


def cell_table(flows: pd.DataFrame, factors: Sequence[str], metrics: Sequence[str],
               level: float = 0.95) -> pd.DataFrame:
    """Per (sweep, factor levels, flow): ``runs`` (stored runs), ``failed``,
    the mean of each metric over the successful runs and ``<metric>_ci``, the
    half-width of its t interval at ``level`` (NaN with fewer than 2 runs).

    ``flows`` is :meth:`satcp.store.Store.flows` (one row per run x flow;
    failed runs have one row with no flow). Raises ``KeyError`` naming a
    metric that is not a flow column."""
    missing = [m for m in metrics if m not in flows.columns]
    if missing:
        known = [c for c in flows.columns if c not in ("key", "sweep", "cell", "replication", "seed",
                                                       "status", "flow", "flow_index", *factors)]
        raise KeyError(f"no flow field {missing[0]!r}; the store has: {', '.join(known)}")
    by = ["sweep", *factors]
    runs = flows.groupby(by, dropna=False, sort=False).agg(
        runs=("key", "nunique"),
        failed=("status", lambda s: int((s != "ok").sum())),
    )
    ok = flows[flows["status"] == "ok"]
    numeric = ok[list(metrics)].apply(pd.to_numeric, errors="coerce")
    ok = ok.assign(**{m: numeric[m] for m in metrics})
    stats._check_level(level)
    grouped = ok.groupby(by + ["flow"], dropna=False, sort=False)
    means = grouped[list(metrics)].mean()
    half = {}
    for m in metrics:
        moments = grouped[m].agg(["mean", "std", "count"])
        half[f"{m}_ci"] = [
            (hi - lo) / 2 for lo, hi in (stats.t_interval_from_moments(r["mean"], r["std"], int(r["count"]), level)
                                         for _, r in moments.iterrows())]
    means = means.assign(**half)
    table = means.reset_index().merge(runs.reset_index(), on=by, how="outer")
    cols = [c for m in metrics for c in (m, f"{m}_ci")]
    table = table[by + ["flow", "runs", "failed"] + cols]
    # each sweep's cells in its own factor order (the order of its cell JSON)
    parts = []
    for sweep, part in table.groupby("sweep", sort=True, dropna=False):
        order = list(json.loads(flows.loc[flows["sweep"] == sweep, "cell"].iloc[0] or "{}"))
        parts.append(part.sort_values(order + ["flow"], kind="stable", na_position="last"))
    return pd.concat(parts, ignore_index=True) if parts else table
