"""The study kit (`satcp.reproduce.kit`) and the one list of studies: the
verdicts every report prints, the list driving the command's help, names,
options, profiles and the Makefile's targets, the door to the data, the
peers' pool, and a study that is one package plus one line in the list,
run end to end through the one `reproduce()` (the worked example of
docs/reproduce.md, as the page writes it)."""

from __future__ import annotations

import io
import re
import subprocess
import sys
import threading
import time

import pytest

import satcp
from satcp import cli
from satcp import reproduce as studies_pkg
from satcp.peers import run_peers
from satcp.reproduce import reproduce, studies
from satcp.reproduce.kit import catalogue, data
from satcp.reproduce.kit.claims import Claim, Verdict, count_line, counts, judged, lines
from satcp.reproduce.kit.study import EXIT_USAGE
from satcp.store import Store
from conftest import REPO, run_cli

STUDIES = ["adalr", "transat", "peach", "ceten", "xfwa", "leo-geo", "starlink-trace", "quic-geo", "pep"]


# ----- verdicts -------------------------------------------------------------------


def test_one_vocabulary_of_verdicts():
    assert [str(v) for v in Verdict] == ["holds", "holds in direction only", "does not hold", "no data"]
    assert (Verdict.of(True), Verdict.of(False), Verdict.of(None)) == (Verdict.HOLDS, Verdict.DOES_NOT_HOLD,
                                                                       Verdict.NO_DATA)
    # a verdict prints as its words, in f-strings and tables alike
    assert f"{Verdict.DIRECTION_ONLY}" == "holds in direction only"
    claims = [judged("a", "w", True, "e1"), judged("b", "w", None, "e2"), Claim("c", "w", Verdict.DIRECTION_ONLY, "e3")]
    assert lines(claims) == "claim a: holds (e1)\nclaim b: no data (e2)\nclaim c: holds in direction only (e3)"
    assert counts(claims) == {Verdict.HOLDS: 1, Verdict.DIRECTION_ONLY: 1, Verdict.DOES_NOT_HOLD: 0,
                              Verdict.NO_DATA: 1}
    assert count_line(claims) == "claims: 1 holds, 1 holds in direction only, 0 does not hold, 1 no data"


def test_the_old_verdict_words_map_onto_the_kits():
    # the comparison of reports before and after the kit reads old words as new
    sys.path.insert(0, str(REPO / "scripts"))
    try:
        import compare_outputs as c
    finally:
        sys.path.remove(str(REPO / "scripts"))
    old = "claims: 3 borne out, 2 direction only, 1 not borne out, 0 not evaluated\nclaim x: no data (-)"
    new = "claims: 3 holds, 2 holds in direction only, 1 does not hold, 0 no data\nclaim x: no data (-)"
    assert c.normalise_report(old) == c.normalise_report(new) == new.splitlines()
    assert [t for t, _ in c.report_tokens(new)] == ["3", "holds", "2", "holds in direction only", "1",
                                                    "does not hold", "0", "no data", "no data"]
    assert c._token_differences("x", old, new.replace("2 holds in", "3 holds in"))


# ----- the one list ---------------------------------------------------------------


def test_the_list_names_every_study_and_its_profile():
    known = studies()
    assert list(known) == STUDIES
    profiles = satcp.reproduce.profiles()
    assert {n: p.name for n, p in profiles.items()} == {"adalr": "rfc", "transat": "ns2-2003", "peach": "ns2",
                                                        "ceten": "rfc", "xfwa": "ns2", "leo-geo": "rfc",
                                                        "starlink-trace": "linux", "quic-geo": "linux", "pep": "linux"}
    for name, s in known.items():
        assert s.profile.why and s.title and s.replications
        assert (REPO / "docs" / f"reproduce-{name}.md").is_file(), name
        for part in ("experiments", "results", "report"):
            assert s.part(part).__name__ == f"{s.package}.{part}"


def test_the_command_help_lists_every_study_from_the_list():
    r = run_cli("reproduce", "--help")
    assert r.returncode == 0
    text = " ".join(r.stdout.split())
    for name, s in studies().items():
        assert name in text and " ".join(s.title.split()) in text, name
    assert "--seeds N adalr only" in text
    top = " ".join(run_cli("--help").stdout.split())
    assert "reproduce a study's tables and claims: " + ", ".join(STUDIES) in top


def test_an_unknown_study_or_option_is_refused_with_the_allowed_names(capsys, tmp_path):
    assert reproduce("peachy", out=tmp_path) == EXIT_USAGE
    assert f"reproduce 'peachy': unknown study; allowed: {', '.join(STUDIES)}" in capsys.readouterr().err
    assert reproduce("leo-geo", options={"seeds": 3}, out=tmp_path) == EXIT_USAGE
    err = capsys.readouterr().err
    assert "--seeds: the leo-geo study's replications are 10 start times (3 with --quick); --seeds is adalr's" in err
    assert reproduce("adalr", options={"traces": "somewhere"}, out=tmp_path) == EXIT_USAGE
    assert "--traces is starlink-trace's" in capsys.readouterr().err
    assert not any(tmp_path.iterdir())  # nothing ran
    r = run_cli("reproduce", "nosuch", "--out", tmp_path / "x")
    assert r.returncode == EXIT_USAGE and "allowed: adalr, transat" in r.stderr
    r = subprocess.run([sys.executable, "-m", "satcp.reproduce", "--peers", "nosuch"], capture_output=True, text=True)
    assert r.returncode == 2 and "allowed: adalr" in r.stderr


def test_the_makefile_targets_come_from_the_list():
    text = (REPO / "Makefile").read_text()
    # no study has a target of its own in the Makefile: the targets are
    # patterns, and satcp checks the name against the list
    for name in STUDIES:
        assert f"reproduce-{name}" not in text, name
    for name in STUDIES:
        r = subprocess.run(["make", "-n", f"reproduce-{name}-quick"], cwd=REPO, capture_output=True, text=True)
        assert r.returncode == 0, r.stderr
        assert f"satcp reproduce {name} --quick --out out/reproduce-{name}-quick" in r.stdout, name
        r = subprocess.run(["make", "-n", f"reproduce-{name}"], cwd=REPO, capture_output=True, text=True)
        assert f"satcp reproduce {name} --out out/reproduce-{name}" in r.stdout, name
    # the studies that run ns-2 beside ours say so, for make to install it
    peers = {n: subprocess.run([sys.executable, "-m", "satcp.reproduce", "--peers", n], capture_output=True,
                               text=True).stdout.strip() for n in STUDIES}
    assert peers == {"adalr": "", "transat": "", "peach": "ns-2", "ceten": "", "xfwa": "ns-2", "leo-geo": "",
                     "starlink-trace": "", "quic-geo": "", "pep": ""}


# ----- a study is a package and a line --------------------------------------------

def example_files() -> dict[str, str]:
    """The worked example of docs/reproduce.md: each ```python example/FILE
    block, as the page writes it."""
    text = (REPO / "docs" / "reproduce.md").read_text()
    return dict(re.findall(r"```python example/(\S+)\n(.*?)```", text, re.S))


@pytest.fixture
def example_study(tmp_path, monkeypatch):
    """The docs' example package on the path and its line in the list."""
    files = example_files()
    assert set(files) == {"__init__.py", "experiments.py", "results.py", "report.py"}
    pkg = tmp_path / "pkgs" / "example"
    pkg.mkdir(parents=True)
    for name, text in files.items():
        (pkg / name).write_text(text)
    monkeypatch.syspath_prepend(str(tmp_path / "pkgs"))
    monkeypatch.setattr(studies_pkg, "PACKAGES", studies_pkg.PACKAGES + ("example",))
    yield tmp_path
    for m in [m for m in sys.modules if m == "example" or m.startswith("example.")]:
        del sys.modules[m]


def test_a_package_and_one_line_make_a_study(example_study, capsys):
    assert list(studies())[-1] == "example"
    # the command's help and options know it
    help_text = " ".join(cli.build_parser()._subparsers._group_actions[0].choices["reproduce"].format_help().split())
    assert "example: NewReno and SACK over the GEO demo path" in help_text
    out = example_study / "out"
    buf = io.StringIO()
    assert reproduce("example", quick=True, out=out, workers=1, stdout=buf) == 0
    text = buf.getvalue()
    assert text.startswith("TCP profile: rfc (no source to follow: the default profile)\nclaim sack_not_slower: ")
    assert "runs: 4 (4 run now, 0 already stored, 0 failed)" in text
    md = (out / "report.md").read_text()
    assert "# NewReno and SACK over the GEO demo path (quick)" in md and "| sack_not_slower |" in md
    assert "| reproduction | example --quick |" in md
    # the verdict is computed from the store: the claim's numbers are the flows table's
    with Store(out / "results.duckdb", read_only=True) as st:
        t = st.query("SELECT f.variant, avg(f.completion_s) AS c FROM flows f GROUP BY ALL").set_index("variant")["c"]
    assert f"SACK {t['sack']:.3f} s, NewReno {t['newreno']:.3f} s" in text
    # the same command again resumes: nothing new to run
    buf = io.StringIO()
    assert reproduce("example", quick=True, out=out, workers=1, stdout=buf) == 0
    assert "runs: 4 (0 run now, 4 already stored, 0 failed)" in buf.getvalue()
    # an option the study does not take is refused before anything runs
    assert reproduce("example", options={"seeds": 4}, out=example_study / "other") == EXIT_USAGE
    assert "--seeds: 2 seeds per cell; --seeds is adalr's" in capsys.readouterr().err


# ----- the door to the data -------------------------------------------------------


def test_the_door_reads_each_table_in_order_and_reruns_a_stored_run(tmp_path, example_study):
    out = tmp_path / "door"
    assert reproduce("example", quick=True, out=out, workers=2, stdout=io.StringIO()) == 0
    exps = studies()["example"].part("experiments").catalogue(True)
    planned = catalogue.plan(exps, REPO, quick=True).runs
    with Store(out / "results.duckdb", read_only=True) as st:
        got = data.stored(st, planned, ("flows", "links", "nodes"), run_columns=("status", "scenario_json"))
    assert list(got.runs.index) == sorted(p.run.key for p in planned)
    links = got["links"]
    assert list(links["key"]) == sorted(links["key"]) and len(links) == 4 * 4
    assert set(got.by_key("nodes")) == set(got.runs.index)
    each = list(got.each(planned))
    assert [p.run.key for p, _, _ in each] == [p.run.key for p in planned]
    assert all(status == "ok" and len(f) == 1 for _, status, f in each)
    # a re-run is the stored run, sampled
    key = planned[0].run.key
    again = data.rerun(got.runs.loc[key, "scenario_json"], 0.5)
    assert again.summary["flows"][0]["completion_s"] == got["flows"].set_index("key").loc[key, "completion_s"]
    assert len(again.series) > 0 and (again.series["time_s"].diff().dropna().round(9) == 0.5).all()


# ----- the peers' pool ------------------------------------------------------------


def test_peer_runs_come_back_in_task_order_whatever_finishes_first():
    active, most = [0], [0]
    lock = threading.Lock()

    def slow_first(k):
        with lock:
            active[0] += 1
            most[0] = max(most[0], active[0])
        time.sleep(0.05 * (3 - k))
        with lock:
            active[0] -= 1
        return k * 10

    seen = []
    assert run_peers(slow_first, range(4), 2, done=lambda k, n: seen.append((k, n))) == [0, 10, 20, 30]
    assert seen == [(1, 4), (2, 4), (3, 4), (4, 4)] and most[0] == 2
    assert run_peers(str, [1, 2], 0) == ["1", "2"]  # at least one thread


# ----- figures ---------------------------------------------------------------------


def test_a_figures_interval_stays_within_its_runs_and_repeats():
    import math

    import pandas as pd

    from satcp import stats
    from satcp.reproduce.kit.figures import bootstrap_interval

    runs = [0.953, 0.968, 2.738]  # LEO NewReno's 1 MB completion times at three start times (s)
    mean, lo, hi = bootstrap_interval(runs)
    assert min(runs) <= lo <= mean <= hi <= max(runs)
    assert bootstrap_interval(runs) == (mean, lo, hi)  # seeded: the same figure every time
    # the Student-t interval the table prints over the same runs reaches below zero
    _, t_lo, _ = stats.t_interval(pd.Series(runs))
    assert t_lo < 0 < lo
    assert bootstrap_interval([5.0]) == (5.0, 5.0, 5.0)
    assert all(math.isnan(v) for v in bootstrap_interval([math.nan]))


def test_the_leo_geo_figure_draws_runs_and_no_time_below_zero():
    import pandas as pd

    from satcp.reproduce.leo_geo.figures import completion_figure

    rows = []
    for path, times in (("leo", [0.953, 0.968, 2.738]), ("geo", [6.46, 6.46, 6.46])):
        for v in ("newreno", "hybla"):
            rows += [dict(experiment=path, variant=v, size_mb=1, status="ok", completion_s=t) for t in times]
    fig = completion_figure(pd.DataFrame(rows), "rfc")
    ax = fig.axes[0]
    lows = [seg[:, 1].min() for c in ax.collections for seg in c.get_segments()]
    assert lows and min(lows) >= 0.953 - 1e-9  # no interval below the fastest run
    points = [y for line in ax.get_lines() for y in line.get_ydata()]
    assert {0.953, 0.968, 2.738} <= {round(float(y), 3) for y in points}  # every run drawn
    assert ax.get_ylabel() == "completion time (s)"
    assert fig.axes[-1].get_legend().get_title().get_text() == "satcp, profile rfc"
