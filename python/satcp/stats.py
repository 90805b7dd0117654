"""Statistics over replicated runs: per-cell summaries with Student-t
confidence intervals, percentage improvement, paired differences, n-way
ANOVA and fairness indices.

Inputs are pandas DataFrames with one row per observation (run x flow, as
``satcp.store.Store.flows()`` gives them): factor columns (named by their
dotted scenario path, e.g. ``links.1.errors_ab.ber``) and metric columns
(``completion_s``, ``goodput_bps``, ...).

Definitions, and where they come from:

* **Confidence interval** (both theses): two-sided Student-t interval
  ``mean +- t(1 - (1 - level)/2; n - 1) * s / sqrt(n)`` with ``s`` the sample
  standard deviation (ddof = 1). The CETEN-R thesis uses level 0.90 with
  n = 5 (t = 2.132), the ADaLR thesis 0.95 with 4 seeds. n = 1 gives no
  interval (NaN).
* **Percentage improvement** (ADaLR thesis Eq. 7.2/7.3 and the way its
  tables read): positive means the new variant is better. For a metric
  where lower is better (response time, retransmissions) it is
  ``(base - new) / base * 100`` ("x% shorter": Table 7.5 gives
  (463.5 - 333.4) / 463.5 = 28.1%); where higher is better (goodput,
  throughput, utilisation) ``(new - base) / base * 100``. The CETEN-R thesis'
  Delta is the same higher-is-better form, (On - Off) / Off.
* **Paired difference** (CETEN-R Table 6): with common random numbers,
  replication i of two variants share a seed; the CI of the mean of the
  per-replication differences ``new_i - base_i``.
* **ANOVA** (CETEN-R Tables 7, 11, 15, after Jain's "The Art of Computer
  Systems Performance Analysis"): a full-factorial linear model with
  sum-to-zero (effects) coding fitted by statsmodels OLS, sums of squares
  from ``anova_lm`` (type II; for the balanced designs the theses use,
  types I, II and III coincide), and the thesis' layout: rows ``y``
  (sum of y^2, N), ``ybar`` (N * mean^2, 1), ``y - ybar`` (SST, N - 1,
  100%), the main effects, interactions grouped by order with subtotals,
  and ``Errors``. "Percentage of variation" is SS / SST * 100.
* **Jain's fairness index** (ADaLR Eq. 7.4): ``(sum x)^2 / (n sum x^2)``,
  from 1/n to 1. **Max-min fairness** (ADaLR Eq. 7.5): ``min x / max x``.
  Both over the flows of one run, x = each flow's average throughput.
"""

from __future__ import annotations

import itertools
import math
from typing import Iterable, Sequence

import numpy as np
import pandas as pd
from scipy import stats as sps

__all__ = [
    "t_interval",
    "t_interval_from_moments",
    "describe",
    "improvement",
    "compare",
    "paired_difference",
    "anova",
    "jain_index",
    "max_min_fairness",
    "fairness",
    "factor_columns",
    "LOWER_IS_BETTER",
    "HIGHER_IS_BETTER",
]

#: Metrics of satcp's flow summary where a smaller value is better.
LOWER_IS_BETTER = frozenset(
    {"completion_s", "mean_page_response_s", "retransmissions", "timeouts", "fast_recoveries",
     "last_byte_at_s", "fin_done_at_s", "response_s"}
)
#: Metrics where a larger value is better.
HIGHER_IS_BETTER = frozenset(
    {"goodput_bps", "throughput_bps", "bytes_delivered", "bytes_received", "pages_completed",
     "utilization", "utilization_ok", "jain", "max_min"}
)

#: Columns of the store's frames that identify a run or flow, not a factor.
ID_COLUMNS = ("key", "sweep", "cell", "replication", "seed", "status", "flow", "name")


def factor_columns(df: pd.DataFrame) -> list[str]:
    """The factor columns of a store frame: those named by a dotted scenario
    path (``flows.download.tcp.variant``), in frame order."""
    return [c for c in df.columns if isinstance(c, str) and "." in c]


def t_interval_from_moments(mean: float, std: float, n: int, level: float = 0.95) -> tuple[float, float]:
    """(low, high) of the two-sided Student-t interval for a mean of ``n``
    observations with sample standard deviation ``std``."""
    _check_level(level)
    if n < 2 or not np.isfinite(std):
        return (math.nan, math.nan)
    half = sps.t.ppf(0.5 + level / 2, n - 1) * std / math.sqrt(n)
    return (mean - half, mean + half)


def t_interval(values: Iterable[float], level: float = 0.95) -> tuple[float, float, float]:
    """(mean, low, high) of the Student-t interval of ``values`` (NaNs dropped)."""
    x = np.asarray(list(values), dtype=float)
    x = x[~np.isnan(x)]
    if x.size == 0:
        return (math.nan, math.nan, math.nan)
    mean = float(x.mean())
    std = float(x.std(ddof=1)) if x.size > 1 else math.nan
    lo, hi = t_interval_from_moments(mean, std, int(x.size), level)
    return (mean, lo, hi)


def _check_level(level: float) -> None:
    if not 0.0 < level < 1.0:
        raise ValueError(f"confidence level must be in (0, 1), e.g. 0.95; got {level!r}")


def _as_list(x: str | Sequence[str] | None) -> list[str]:
    if x is None:
        return []
    if isinstance(x, str):
        return [x]
    return list(x)


def describe(
    df: pd.DataFrame,
    by: str | Sequence[str] | None,
    metrics: str | Sequence[str],
    level: float = 0.95,
) -> pd.DataFrame:
    """Per cell (the groups of ``by``) and metric: n, mean, std, sem, min,
    q1, median, q3, max and the t interval at ``level`` (ci_low, ci_high,
    ci_half). One row per (cell, metric), cells in sorted order. NaN values
    (a flow that never completed) are left out of n; ``n_missing`` counts
    them."""
    _check_level(level)
    by = _as_list(by)
    metrics = _as_list(metrics)
    missing = [c for c in by + metrics if c not in df.columns]
    if missing:
        raise KeyError(f"columns not in the frame: {missing}; it has {list(df.columns)}")
    rows = []
    groups = df.groupby(by, sort=True, dropna=False) if by else [((), df)]
    for keys, g in groups:
        keys = keys if isinstance(keys, tuple) else (keys,)
        for m in metrics:
            x = pd.to_numeric(g[m], errors="coerce").to_numpy(dtype=float)
            ok = x[~np.isnan(x)]
            n = int(ok.size)
            row = dict(zip(by, keys))
            row["metric"] = m
            row["n"] = n
            row["n_missing"] = int(x.size - n)
            if n:
                q1, med, q3 = np.percentile(ok, [25, 50, 75])
                mean = float(ok.mean())
                std = float(ok.std(ddof=1)) if n > 1 else math.nan
                lo, hi = t_interval_from_moments(mean, std, n, level)
                row.update(mean=mean, std=std, sem=std / math.sqrt(n) if n > 1 else math.nan,
                           min=float(ok.min()), q1=float(q1), median=float(med), q3=float(q3),
                           max=float(ok.max()), ci_low=lo, ci_high=hi, ci_half=(hi - lo) / 2)
            else:
                row.update({k: math.nan for k in
                            ("mean", "std", "sem", "min", "q1", "median", "q3", "max", "ci_low", "ci_high", "ci_half")})
            rows.append(row)
    out = pd.DataFrame(rows)
    out.attrs["level"] = level
    return out


def _lower_is_better(metric: str, lower_is_better: bool | None) -> bool:
    if lower_is_better is not None:
        return lower_is_better
    if metric in LOWER_IS_BETTER:
        return True
    if metric in HIGHER_IS_BETTER:
        return False
    raise ValueError(
        f"say whether lower is better for metric {metric!r} (lower_is_better=True/False); "
        f"known: lower {sorted(LOWER_IS_BETTER)}, higher {sorted(HIGHER_IS_BETTER)}"
    )


def improvement(base: float, new: float, lower_is_better: bool) -> float:
    """Percentage by which ``new`` is better than ``base`` (negative: worse).
    Lower is better: (base - new) / base * 100; else (new - base) / base * 100."""
    if base == 0 or not np.isfinite(base) or not np.isfinite(new):
        return math.nan
    d = (base - new) if lower_is_better else (new - base)
    return d / base * 100.0


def compare(
    df: pd.DataFrame,
    factor: str,
    base,
    new,
    metric: str,
    by: str | Sequence[str] | None = None,
    level: float = 0.95,
    lower_is_better: bool | None = None,
) -> pd.DataFrame:
    """Per cell of ``by``: the means and t intervals of ``metric`` for
    ``factor == base`` and ``factor == new``, the percentage improvement of
    new over base and whether the intervals overlap (the CETEN-R thesis'
    side-by-side reading: overlapping intervals = no difference shown)."""
    lib = _lower_is_better(metric, lower_is_better)
    by = [b for b in _as_list(by) if b != factor]
    d = describe(df[df[factor].isin([base, new])], by + [factor], metric, level)
    rows = []
    cells = d.groupby(by, sort=True, dropna=False) if by else [((), d)]
    for keys, g in cells:
        keys = keys if isinstance(keys, tuple) else (keys,)
        b = g[g[factor] == base]
        nw = g[g[factor] == new]
        if b.empty or nw.empty:
            continue
        b, nw = b.iloc[0], nw.iloc[0]
        row = dict(zip(by, keys))
        row.update(metric=metric, base=base, new=new, base_mean=b["mean"], base_ci_low=b["ci_low"],
                   base_ci_high=b["ci_high"], new_mean=nw["mean"], new_ci_low=nw["ci_low"],
                   new_ci_high=nw["ci_high"], improvement_pct=improvement(b["mean"], nw["mean"], lib),
                   ci_overlap=bool(b["ci_low"] <= nw["ci_high"] and nw["ci_low"] <= b["ci_high"]))
        rows.append(row)
    out = pd.DataFrame(rows)
    out.attrs["level"] = level
    out.attrs["lower_is_better"] = lib
    return out


def paired_difference(
    df: pd.DataFrame,
    factor: str,
    base,
    new,
    metric: str,
    pair_on: str | Sequence[str] = "replication",
    by: str | Sequence[str] | None = None,
    level: float = 0.95,
) -> pd.DataFrame:
    """CETEN-R Table 6: per cell of ``by``, the mean of ``new - base`` over
    observations paired by ``pair_on`` (the replication index: with common
    random numbers replication i of both levels shares its seed), its
    standard deviation, standard error, t interval, and whether 0 is
    outside the interval (a difference shown)."""
    pair_on = _as_list(pair_on)
    by = [b for b in _as_list(by) if b != factor]
    keys = by + pair_on
    a = df[df[factor] == base].set_index(keys)[metric].astype(float)
    b = df[df[factor] == new].set_index(keys)[metric].astype(float)
    if a.index.has_duplicates or b.index.has_duplicates:
        raise ValueError(f"observations are not unique per {keys}: add the other factors (and the flow) to by")
    diff = (b - a).dropna().rename("diff").reset_index()
    rows = []
    cells = diff.groupby(by, sort=True) if by else [((), diff)]
    for cell, g in cells:
        cell = cell if isinstance(cell, tuple) else (cell,)
        x = g["diff"].to_numpy(dtype=float)
        mean, lo, hi = t_interval(x, level)
        sd = float(x.std(ddof=1)) if x.size > 1 else math.nan
        row = dict(zip(by, cell))
        row.update(metric=metric, base=base, new=new, n=int(x.size), mean_diff=mean, std=sd,
                   sem=sd / math.sqrt(x.size) if x.size > 1 else math.nan, ci_low=lo, ci_high=hi,
                   significant=bool(lo > 0 or hi < 0))
        rows.append(row)
    out = pd.DataFrame(rows)
    out.attrs["level"] = level
    return out


_ORDER_NAMES = {1: "Main Effects", 2: "First-Order Interactions", 3: "Second-Order Interactions",
                4: "Third-Order Interactions", 5: "Fourth-Order Interactions"}


def _short_labels(factors: Sequence[str]) -> dict[str, str]:
    """The last path segment of each factor (``links.1.errors_ab.ber`` ->
    ``ber``), or the full path where the last segments collide."""
    last = {f: f.rsplit(".", 1)[-1] for f in factors}
    counts = pd.Series(list(last.values())).value_counts()
    return {f: (s if counts[s] == 1 else f) for f, s in last.items()}


def anova(
    df: pd.DataFrame,
    factors: Sequence[str],
    metric: str,
    max_order: int | None = None,
    labels: dict[str, str] | None = None,
) -> pd.DataFrame:
    """n-way ANOVA of ``metric`` on ``factors`` (all treated as categorical),
    with interactions up to ``max_order`` factors (default: all), laid out
    as the CETEN-R thesis reports it. Columns: component, order (0 for the
    y / ybar / y - ybar rows, k for a k-factor term, -1 for Errors), kind
    ("total", "group", "term", "error"), ss, pct_variation, df, F, p.
    Needs more observations than model terms (replications) for F and p."""
    from statsmodels.formula.api import ols
    from statsmodels.stats.anova import anova_lm

    factors = list(factors)
    if not factors:
        raise ValueError("anova needs at least one factor")
    k = len(factors)
    max_order = k if max_order is None else max_order
    if not 1 <= max_order <= k:
        raise ValueError(f"max_order must be in 1..{k}; got {max_order}")
    labels = {**_short_labels(factors), **(labels or {})}
    data = df[factors + [metric]].copy()
    data = data[pd.to_numeric(data[metric], errors="coerce").notna()]
    alias = {f: f"f{i}" for i, f in enumerate(factors)}
    d = pd.DataFrame({alias[f]: data[f].astype(str).to_numpy() for f in factors})
    d["y"] = data[metric].astype(float).to_numpy()
    for f in factors:
        if d[alias[f]].nunique() < 2:
            raise ValueError(f"factor {f} has a single level in the data; leave it out of the ANOVA")
    terms = " + ".join(f"C({alias[f]}, Sum)" for f in factors)
    formula = f"y ~ ({terms})" + (f"**{max_order}" if max_order > 1 else "")
    model = ols(formula, data=d).fit()
    table = anova_lm(model, typ=2)

    y = d["y"].to_numpy()
    n = y.size
    sst = float(((y - y.mean()) ** 2).sum())
    pct = (lambda ss: ss / sst * 100.0) if sst > 0 else (lambda ss: math.nan)
    rows = [
        dict(component="y", order=0, kind="total", ss=float((y**2).sum()), pct_variation=math.nan, df=n,
             F=math.nan, p=math.nan),
        dict(component="ybar", order=0, kind="total", ss=float(n * y.mean() ** 2), pct_variation=math.nan, df=1,
             F=math.nan, p=math.nan),
        dict(component="y - ybar", order=0, kind="total", ss=sst, pct_variation=100.0, df=n - 1, F=math.nan,
             p=math.nan),
    ]
    back = {f"C({a}, Sum)": f for f, a in alias.items()}
    for order in range(1, max_order + 1):
        members = []
        for combo in itertools.combinations(factors, order):
            name = ":".join(f"C({alias[f]}, Sum)" for f in combo)
            if name not in table.index:
                continue
            r = table.loc[name]
            members.append(dict(component=" x ".join(labels[back[f"C({alias[f]}, Sum)"]] for f in combo),
                                order=order, kind="term", ss=float(r["sum_sq"]), pct_variation=pct(float(r["sum_sq"])),
                                df=int(round(r["df"])), F=float(r["F"]), p=float(r["PR(>F)"])))
        ss = sum(m["ss"] for m in members)
        rows.append(dict(component=_ORDER_NAMES.get(order, f"Order-{order} Interactions"), order=order,
                         kind="group", ss=ss, pct_variation=pct(ss), df=sum(m["df"] for m in members),
                         F=math.nan, p=math.nan))
        rows.extend(members)
    res = table.loc["Residual"]
    rows.append(dict(component="Errors", order=-1, kind="error", ss=float(res["sum_sq"]),
                     pct_variation=pct(float(res["sum_sq"])), df=int(round(res["df"])), F=math.nan, p=math.nan))
    out = pd.DataFrame(rows)
    out.attrs["metric"] = metric
    out.attrs["factors"] = factors
    return out


def jain_index(x: Iterable[float]) -> float:
    """Jain's fairness index (sum x)^2 / (n sum x^2) of the values (NaNs
    dropped); 1 when all are equal, 1/n when one takes everything."""
    a = np.asarray(list(x), dtype=float)
    a = a[~np.isnan(a)]
    if a.size == 0:
        return math.nan
    s2 = float((a * a).sum())
    return float(a.sum()) ** 2 / (a.size * s2) if s2 > 0 else math.nan


def max_min_fairness(x: Iterable[float]) -> float:
    """min / max of the values (NaNs dropped)."""
    a = np.asarray(list(x), dtype=float)
    a = a[~np.isnan(a)]
    if a.size == 0 or a.max() <= 0:
        return math.nan
    return float(a.min() / a.max())


def fairness(
    df: pd.DataFrame,
    by: str | Sequence[str] | None,
    metric: str = "throughput_bps",
    run: str | Sequence[str] = "key",
    level: float = 0.95,
) -> pd.DataFrame:
    """Jain and max-min fairness among the flows of each run (rows sharing
    ``run``), then per cell of ``by``: their mean and t interval over the
    runs (replications). Columns: the cell, n (runs), flows (per run),
    jain_mean, jain_ci_low, jain_ci_high, max_min_mean, max_min_ci_low,
    max_min_ci_high."""
    by = _as_list(by)
    run = _as_list(run)
    per_run = (
        df.groupby(by + run, sort=True, dropna=False)[metric]
        .agg(jain=jain_index, max_min=max_min_fairness, flows="count")
        .reset_index()
    )
    rows = []
    cells = per_run.groupby(by, sort=True, dropna=False) if by else [((), per_run)]
    for keys, g in cells:
        keys = keys if isinstance(keys, tuple) else (keys,)
        row = dict(zip(by, keys))
        row["n"] = len(g)
        row["flows"] = int(g["flows"].max())
        for m in ("jain", "max_min"):
            mean, lo, hi = t_interval(g[m], level)
            row.update({f"{m}_mean": mean, f"{m}_ci_low": lo, f"{m}_ci_high": hi})
        rows.append(row)
    out = pd.DataFrame(rows)
    out.attrs["level"] = level
    return out
