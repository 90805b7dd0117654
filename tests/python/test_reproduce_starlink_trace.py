"""`satcp reproduce starlink-trace`: the catalogue, the measurements on
hand-made traces and series (a trace's capacity over a window, timeouts
after reconfigurations, goodput and RTT inflation), one `--quick` run end
to end (every cell, sane numbers), and the study on a user's trace
directory with a measured series (run once per module)."""

from __future__ import annotations

import io
import json
import math
from pathlib import Path

import numpy as np
import pandas as pd
import pytest

from satcp.reproduce import reproduce
from satcp.reproduce.kit import catalogue
from satcp.reproduce.starlink_trace import experiments as st
from satcp.reproduce.starlink_trace import results, traces

ROOT = Path(__file__).resolve().parents[2]


@pytest.fixture(scope="module", autouse=True)
def trace_cache(tmp_path_factory):
    """The synthetic traces made once for the module, in its own cache."""
    mp = pytest.MonkeyPatch()
    mp.setenv("SATCP_TRACE_CACHE", str(tmp_path_factory.mktemp("trace-cache")))
    yield
    mp.undo()


def test_the_catalogue_is_three_queues_six_controllers_and_the_replications():
    full = catalogue.plan(st.catalogue(quick=False), ROOT, quick=False, validate=True)
    quick = catalogue.plan(st.catalogue(quick=True), ROOT, quick=True, validate=False)
    assert not full.unavailable and not quick.unavailable
    reps = len(traces.SEEDS) * len(st.OFFSETS_S)
    assert len(full.runs) == len(st.QUEUES) * len(st.VARIANTS) * reps
    assert len(quick.runs) == len(st.QUEUES) * len(st.VARIANTS) * len(traces.QUICK_SEEDS) * len(st.QUICK_OFFSETS_S)
    # the link table carries the experiment's queue, ECN only with FQ-CoDel
    for r in quick.runs:
        s = json.loads(r.run.scenario_json)
        link = next(l for l in s["links"] if l["name"] == st.LINK)
        assert link["queue"] == st.QUEUES[r.experiment][1]
        assert "capacity_trace_ab" in link and "rate_ab" not in link and "delay" not in link
        assert link["delay_trace"]["interval"] == "10ms"
        flow = s["flows"][0]
        assert flow["tcp"]["ecn"] is (r.experiment == "fq_codel_ecn")
        assert flow["app"] == {"kind": "ftp", "start": f"{r.levels['offset_s']}s",
                               "stop": f"{r.levels['offset_s'] + st.QUICK_TRANSFER_S}s"}


def test_a_traces_capacity_over_a_window_counts_its_opportunities_and_repeats(tmp_path):
    bw = tmp_path / "bw.txt"
    bw.write_text("1\n1\n3\n4\n")  # 4 opportunities, period 4 ms
    per = 1504 * 8
    # [0, 4 ms): the opportunities at 1, 1 and 3 ms (the one at 4 is the next period's start)
    assert results.capacity_bps(bw, 0.0, 0.004) == pytest.approx(3 * per / 0.004)
    # [1 ms, 9 ms): 1, 1, 3, 4, 5, 5, 7, 8
    assert results.capacity_bps(bw, 0.001, 0.009) == pytest.approx(8 * per / 0.008)
    assert results.capacity_bps(bw, 0.0015, 0.003) == 0.0


def test_reconfigurations_and_timeouts_after_them_are_split_by_hand():
    assert results.reconfigurations(50, 80) == [57.0, 72.0]
    assert results.reconfigurations(12, 12.5) == [12.0]
    t = np.round(np.arange(0, 3.0, 0.05), 2)
    counter = np.zeros_like(t)
    counter[t >= 0.5] = 1  # one in (0.45, 0.5]: 0.5 s after the instant at 0
    counter[t >= 1.05] = 3  # two in (1.0, 1.05]: the last interval that may hold 1 s after it
    counter[t >= 1.1] = 4  # one in (1.05, 1.1]: more than 1 s after it, elsewhere
    counter[t >= 2.0] = 5  # one at 2.0: elsewhere
    assert results.timeout_split(t, counter, [0.0]) == (3, 2)
    assert results.timeout_split(t, counter, []) == (0, 5)
    assert results.timeout_split(t, counter, [0.0, 1.5]) == (4, 1)


def test_a_run_is_measured_from_its_series(tmp_path):
    delay = tmp_path / "delay.txt"
    delay.write_text("20\n" * 100 + "25\n" * 100)  # 20 ms for 1 s, then 25 ms (repeats every 2 s)
    bw = tmp_path / "bw.txt"
    bw.write_text("\n".join(str(m) for m in range(1, 2001)) + "\n")  # one opportunity a ms: 12.032 Mb/s
    tr = traces.TraceSet("hand", bw, delay, "10ms", None, None, False)
    t = np.round(np.arange(0, 4.05, 0.05), 2)
    # 1 MB/s delivered from 1 s on; srtt = base + 10 ms
    delivered = np.clip(t - 1.0, 0, None) * 1e6
    base = 0.010 + 2 * np.where(np.floor(t / 1.0 + 1e-9) % 2 == 0, 0.020, 0.025)
    s = pd.DataFrame({"time_s": t, "delivered_bytes": delivered, "srtt_s": base + 0.010,
                      "timeouts": np.zeros_like(t), "spurious_rtos": np.zeros_like(t)})
    m = results.measure(s, tr, 1.0, 2.0)
    assert m.goodput_bps == pytest.approx(8e6)
    assert m.per_second_bps == pytest.approx([8e6, 8e6])
    assert m.capacity_bps == pytest.approx(1504 * 8 * 1000)
    assert m.inflation_p50_s == pytest.approx(0.010) and m.inflation_p95_s == pytest.approx(0.010)
    assert (m.timeouts_near, m.timeouts_else, m.reconfigurations) == (0, 0, 0)


@pytest.fixture(scope="module")
def quick_run(tmp_path_factory):
    out = tmp_path_factory.mktemp("reproduce-starlink-trace")
    buf = io.StringIO()
    status = reproduce("starlink-trace", quick=True, out=out, workers=2, stdout=buf)
    return status, buf.getvalue(), out


def test_quick_study_reports_every_cell_with_sane_numbers(quick_run):
    status, text, out = quick_run
    assert status == 0, text
    assert (out / "index.html").is_file() and (out / "report.md").is_file()
    for f in ("goodput_inflation", "per_second", "timeline", "timeouts"):
        assert (out / "figures" / f"{f}.png").stat().st_size > 1000
    table = pd.read_csv(out / "table.csv")
    assert len(table) == len(st.QUEUES) * len(st.VARIANTS)
    assert set(zip(table["queue"], table["variant"])) == {(q, v) for q in st.QUEUES for v in st.VARIANTS}
    assert (table["runs"] == len(st.QUICK_OFFSETS_S)).all()
    runs = pd.read_csv(out / "runs.csv")
    assert (runs["status"] == "ok").all()
    # goodput: positive, below the trace's capacity over the same window
    assert (runs["goodput_bps"] > 0).all() and (runs["goodput_bps"] < runs["capacity_bps"]).all()
    assert (table["goodput_bps"] < table["capacity_bps"]).all()
    assert (table["per_second_p10_bps"] <= table["per_second_p50_bps"]).all()
    assert (table["per_second_p50_bps"] <= table["per_second_p90_bps"]).all()
    # the queues: head drops only on drop-front, marks only with FQ-CoDel+ECN,
    # no sojourn account on drop-tail
    by = {q: g for q, g in runs.groupby("experiment")}
    assert (by["dropfront"]["drops_queue"] == 0).all() and by["dropfront"]["drops_head"].sum() > 0
    assert (by["droptail"]["drops_head"] == 0).all() and by["droptail"]["drops_queue"].sum() > 0
    assert by["fq_codel_ecn"]["marks"].sum() > 0 and (by["droptail"]["marks"] == 0).all()
    assert by["droptail"]["sojourn_p95_s"].isna().all() and by["dropfront"]["sojourn_p95_s"].notna().all()
    # FQ-CoDel+ECN keeps queueing delay below drop-tail's, for every controller
    t = table.set_index(["queue", "variant"])
    for v in st.VARIANTS:
        assert t.loc[("fq_codel_ecn", v), "inflation_p95_s"] < t.loc[("droptail", v), "inflation_p95_s"], v
    # random loss holds the loss-based controllers far below BBR
    assert t.loc[("droptail", "bbr"), "goodput_bps"] > 2 * t.loc[("droptail", "cubic"), "goodput_bps"]
    for claim in ("goodput_within_capacity", "fq_codel_ecn_cuts_queueing_delay",
                  "bbr_outruns_cubic_under_random_loss", "timeouts_cluster_after_reconfigurations",
                  "spurious_timeouts_cluster_after_reconfigurations", "dropfront_no_worse_delay"):
        assert f"claim {claim}: " in text
    assert "claim goodput_within_capacity: holds" in text
    md = (out / "report.md").read_text()
    assert "SYNTHETIC" in md and "no published numbers" in md


def test_the_study_runs_on_a_users_trace_directory_and_draws_the_measurement(tmp_path):
    import subprocess
    import sys

    d = tmp_path / "mine"
    r = subprocess.run([sys.executable, "-m", "satcp", "trace", "synth", "--seed", "9", "--duration", "1min",
                        "--out", str(d)], capture_output=True, text=True)
    assert r.returncode == 0, r.stderr
    (d / "synth.json").unlink()
    pd.DataFrame({"t_s": np.arange(30.0), "goodput_bps": np.full(30, 12e6), "rtt_ms": np.full(30, 45.0),
                  "loss": np.full(30, 0.002)}).to_csv(d / "measured.csv", index=False)
    buf = io.StringIO()
    status = reproduce("starlink-trace", quick=True, out=tmp_path / "r", workers=2, only=["droptail"],
                       options={"traces": str(d)}, stdout=buf)
    assert status == 0, buf.getvalue()
    runs = pd.read_csv(tmp_path / "r" / "runs.csv")
    assert set(runs["trace"]) == {"measured"} and len(runs) == len(st.VARIANTS) * len(st.QUICK_OFFSETS_S)
    md = (tmp_path / "r" / "report.md").read_text()
    assert "Measured and simulated" in md and "the user's (--traces)" in md
    assert (tmp_path / "r" / "figures" / "measured.png").stat().st_size > 1000


def test_a_traces_directory_without_a_capacity_trace_is_refused_before_anything_runs(tmp_path, capsys):
    (tmp_path / "delay.txt").write_text("20\n")
    status = reproduce("starlink-trace", quick=True, out=tmp_path / "r", options={"traces": str(tmp_path)})
    assert status == 2
    assert "bw.txt not found" in capsys.readouterr().err
    assert not (tmp_path / "r" / "results.duckdb").exists()


def test_a_link_toml_names_the_users_files_and_their_intervals(tmp_path):
    for f in ("bw.txt", "delay.txt", "loss.txt"):
        (tmp_path / f).write_text("1\n")
    (tmp_path / "link.toml").write_text('# as satcp trace import --relative-to prints it\n'
                                        'capacity_trace = "bw.txt"\n'
                                        'delay_trace = { file = "delay.txt", interval = "1s" }\n'
                                        'loss_trace = { file = "loss.txt", interval = "2s" }\n')
    s = traces.user_set(str(tmp_path))
    assert (s.capacity, s.delay, s.loss) == tuple((tmp_path / f).resolve() for f in ("bw.txt", "delay.txt", "loss.txt"))
    assert (s.delay_interval, s.loss_interval, s.synthetic, s.measured) == ("1s", "2s", False, None)
    assert s.link_keys()["loss_trace_ab"] == {"file": str(s.loss), "interval": "2s"}
    (tmp_path / "link.toml").write_text('capacity_trace = "bw.txt"\nrate_ba = "1Mbps"\n')
    with pytest.raises(traces.UsageError, match="key 'rate_ba' not taken"):
        traces.user_set(str(tmp_path))
    (tmp_path / "link.toml").write_text('capacity_trace = "bw.txt"\ndelay_trace = "delay.txt"\n')
    with pytest.raises(traces.UsageError, match="delay_trace = 'delay.txt': expected"):
        traces.user_set(str(tmp_path))
    # by name, without link.toml: LeoReplayer's 10 ms, a loss per second
    (tmp_path / "link.toml").unlink()
    (tmp_path / "loss.txt").unlink()
    s = traces.user_set(str(tmp_path))
    assert (s.delay_interval, s.loss, s.loss_interval) == ("10ms", None, None)
    assert "loss_trace_ab" not in s.link_keys()
