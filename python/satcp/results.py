"""Tables of stored results: one row per cell (factor levels x flow).

``cell_table`` is where per-cell statistics are computed; it reports the
number of runs and the mean of each metric. Confidence intervals, quartiles
and the like belong to ``satcp.stats`` and extend this table.
"""

from __future__ import annotations

import json
from typing import Sequence

import pandas as pd

DEFAULT_METRICS = ["completion_s", "goodput_bps", "retransmissions", "timeouts"]


def cell_table(flows: pd.DataFrame, factors: Sequence[str], metrics: Sequence[str]) -> pd.DataFrame:
    """Per (sweep, factor levels, flow): ``runs`` (stored runs), ``failed``
    and the mean of each metric over the successful runs.

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
    means = ok.groupby(by + ["flow"], dropna=False, sort=False)[list(metrics)].mean()
    table = means.reset_index().merge(runs.reset_index(), on=by, how="outer")
    table = table[by + ["flow", "runs", "failed"] + list(metrics)]
    # each sweep's cells in its own factor order (the order of its cell JSON)
    parts = []
    for sweep, part in table.groupby("sweep", sort=True, dropna=False):
        order = list(json.loads(flows.loc[flows["sweep"] == sweep, "cell"].iloc[0] or "{}"))
        parts.append(part.sort_values(order + ["flow"], kind="stable", na_position="last"))
    return pd.concat(parts, ignore_index=True) if parts else table
