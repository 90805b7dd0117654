"""``satcp reproduce adalr [--quick] [--out DIR] [--store PATH] [--workers N]
[--only EXPERIMENT ...]``: run the thesis' experiments through the
platform, write the report, print ours beside the thesis' per table row and
the claims' verdicts, and the total wall time.

Exit status: 0 when every experiment ran and every run is ok; 1 when some
arm could not run (missing scenario, a setting this build refuses) or some
run failed (both are listed in the report), or the store is in use; 2 for
an unknown reproduction or experiment name (nothing ran); 130 on Ctrl-C
(finished runs are kept: rerun to resume).
"""

from __future__ import annotations

import importlib
import sys
import time
from pathlib import Path
from typing import TextIO

import pandas as pd

from ..tables import format_table
from . import PROFILES, REPRODUCTIONS, adalr, claims, compare, published, report, runner

EXIT_USAGE = 2


def _err(msg: str) -> None:
    print(f"error: {msg}", file=sys.stderr)


def summary_text(tables: pd.DataFrame, claim_rows: pd.DataFrame) -> str:
    rows = []
    for _, r in tables.iterrows():
        ci = "" if pd.isna(r["ci_half"]) else f"+-{report.fmt(r['ci_half'])}"
        rows.append((r["table"], adalr.VARIANT_NAMES.get(r["variant"], r["variant"]),
                     "on" if r["delayed_ack"] else "off",
                     "" if pd.isna(r["x"]) else report.fmt(r["x"]), r["flow"], r["metric"],
                     report.fmt(r["ours"]), ci, report.fmt(r["value"]), report.fmt(r["deviation_pct"])))
    text = format_table(["table", "variant", "dack", "x", "flow", "metric", "satcp", "95% CI", "thesis", "dev %"],
                        rows, "llllllrrrr")
    if not claim_rows.empty:
        counts = claim_rows["verdict"].value_counts()
        text += ("\nclaims: " + ", ".join(f"{int(counts.get(v, 0))} {v}" for v in
                                           (claims.BORNE_OUT, claims.DIRECTION_ONLY, claims.NOT_BORNE_OUT, claims.NOT_EVALUATED)))
    return text


#: The reproductions with a command of their own: their module and their
#: replications (what --seeds would change).
_STUDIES = {
    "transat": ("transat_report", "the TRANSAT study has 20 replications per cell (5 with --quick)"),
    "peach": ("peach_report", "the Modified Peach study has 10 replications per cell (3 with --quick)"),
    "ceten": ("ceten_report", "the CETEN-R study has the thesis' 5 replications per cell"),
    "xfwa": ("xfwa_report", "the XFWA study has 5 replications per cell (2 with --quick)"),
    "leo-geo": ("leo_geo_report", "the leo-geo study's replications are 10 start times (3 with --quick)"),
}


def reproduce(name: str, *, quick: bool = False, out: str | Path | None = None, store: str | Path | None = None,
              workers: int | None = None, only: list[str] | None = None, seeds: int | None = None,
              root: Path | None = None,
              stdout: TextIO = sys.stdout) -> int:
    t0 = time.perf_counter()
    if name not in REPRODUCTIONS:
        _err(f"reproduce {name!r}: unknown reproduction; allowed: {', '.join(REPRODUCTIONS)}")
        return EXIT_USAGE
    if name in _STUDIES:
        module, replications = _STUDIES[name]
        if seeds is not None:
            _err(f"--seeds: {replications}; --seeds is adalr's")
            return EXIT_USAGE
        study = importlib.import_module(f".{module}", __package__)
        return study.reproduce(quick=quick, out=out, store=store, workers=workers, only=only, root=root,
                               stdout=stdout)
    if seeds is not None and seeds < 2:
        _err(f"--seeds {seeds}: expected a number of seeds >= 2 (a confidence interval needs two runs)")
        return EXIT_USAGE
    s = runner.setup(name, adalr.experiments(seeds), quick=quick, out=out, store=store, workers=workers, only=only,
                     root=root, default_root=published.REPO_ROOT)
    if isinstance(s, int):
        return s
    chosen, out = s.chosen, s.out
    outcome = runner.run_or_status(name, s, quick, workers)
    if isinstance(outcome, int):
        return outcome
    pub = published.load_published()
    pub = pub[pub["experiment"].isin([e.id for e in chosen])]
    settings, claim_list = claims.load_claims(published.CLAIMS_TOML)
    claim_list = [c for c in claim_list if c.experiment in {e.id for e in chosen}
                  and (c.reference_experiment is None or c.reference_experiment in {e.id for e in chosen})]
    verdicts = claims.evaluate_all(claim_list, outcome.observations, settings)
    tables = compare.table_rows(outcome.observations, pub, settings.level)
    claim_rows = compare.claim_rows(verdicts)
    header = report.header_rows(name, quick, outcome.report, outcome.observations, time.perf_counter() - t0)
    html_path, md_path = report.write(
        out, experiments=chosen, obs=outcome.observations, runs=outcome.runs, tables=tables, claims=claim_rows,
        published=pub, unavailable=outcome.plan.unavailable, header=header, level=settings.level,
        title=f"satcp reproduction of the TCP-ADaLR thesis (Omueti 2007){' (quick)' if quick else ''}")
    profile, why = PROFILES[name]
    print(f"TCP profile: {profile} ({why})", file=stdout)
    print(summary_text(tables, claim_rows), file=stdout)
    return runner.finish(outcome, s, (html_path, md_path), t0, stdout)
