"""The synthetic Starlink-like trace generator (`satcp trace synth`,
python/satcp/traces/synthetic.py): reconfiguration instants worked by
hand, the capacity trace's mean against the generator's target, outages
with no opportunity inside them, the parameters' ranges, byte-identical
files for a seed, and the command line."""

from __future__ import annotations

import json
import subprocess
import sys

import numpy as np
import pytest

from satcp.traces import synthetic as syn
from satcp.traces.writers import MAHIMAHI_OPPORTUNITY_BYTES, read_capacity


def test_reconfiguration_instants_are_12_27_42_57_past_each_minute():
    # worked by hand: two minutes and a bit
    assert syn.reconfiguration_instants(130) == [12.0, 27.0, 42.0, 57.0, 72.0, 87.0, 102.0, 117.0]
    assert syn.reconfiguration_instants(12) == []
    assert syn.reconfiguration_instants(12.001) == [12.0]


def test_the_delay_steps_exactly_at_the_reconfigurations_and_drifts_little_elsewhere():
    p = syn.Params(duration_s=120, outage_probability=0.0)
    tr = syn.generate(7, p)
    d = tr.delay_ms
    assert np.isfinite(d).all() and len(d) == 120 * 100
    jumps = np.flatnonzero(np.abs(np.diff(d)) > 0.05) + 1  # line index of the new value
    # line i covers [10 i, 10 (i + 1)) ms: the reconfiguration at 12 s is line 1200
    assert (jumps * syn.DELAY_INTERVAL_MS / 1e3).tolist() == tr.reconfigurations_s
    # within a slot the drift is at most drift_ms over the slot
    assert (d >= p.delay_min_ms - p.drift_ms - 0.01).all() and (d <= p.delay_max_ms + p.drift_ms + 0.01).all()


@pytest.mark.parametrize("seed", [1, 2, 3])
def test_the_capacity_trace_carries_the_target_mean_within_half_an_opportunity(tmp_path, seed):
    tr = syn.generate(seed, syn.Params(duration_s=120))
    assert tr.target_mean_bps == pytest.approx(25e6, rel=1e-9)  # bisection to the target
    paths = syn.write(tr, tmp_path)
    stamps = read_capacity(paths["capacity"])
    assert stamps[-1] == 120_000  # the period is the trace's duration
    carried = len(stamps) * MAHIMAHI_OPPORTUNITY_BYTES
    # the stated tolerance: half an opportunity over the whole trace
    assert abs(carried - tr.target_mean_bps * 120 / 8) <= MAHIMAHI_OPPORTUNITY_BYTES / 2 + 1e-6
    meta = json.loads(paths["meta"].read_text())
    assert meta["synthetic"] is True and meta["seed"] == seed
    assert meta["trace_mean_bps"] == pytest.approx(25e6, rel=1e-4)


def test_capacity_swings_within_its_bounds_and_loss_stays_in_range():
    p = syn.Params(duration_s=600)
    tr = syn.generate(1, p)
    up = syn.up_per_ms(tr).reshape(-1, p.step_ms).mean(axis=1) == 1
    r = tr.rate_bps[up]
    assert r.min() >= p.capacity_min_mbps * 1e6 - 1e-6 and r.max() <= p.capacity_max_mbps * 1e6 + 1e-6
    # swings of tens of Mb/s within a few seconds somewhere in the trace
    per_s = tr.rate_bps.reshape(-1, 1000 // p.step_ms).mean(axis=1)
    assert max(per_s[i:i + 5].max() - per_s[i:i + 5].min() for i in range(len(per_s) - 5)) > 30e6
    assert ((tr.loss >= p.loss_min) & (tr.loss <= p.loss_max)).all() and len(tr.loss) == 600


def test_an_outage_starts_at_its_reconfiguration_has_no_opportunity_and_down_delay_lines(tmp_path):
    p = syn.Params(duration_s=60, outage_probability=1.0)
    tr = syn.generate(4, p)
    assert [a for a, _ in tr.outages_s] == [12.0, 27.0, 42.0, 57.0]
    stamps = read_capacity(syn.write(tr, tmp_path)["capacity"])
    for a, b in tr.outages_s:
        assert p.outage_min_ms / 1e3 <= b - a <= p.outage_max_ms / 1e3 + 1e-9 or b == p.duration_s
        a_ms, b_ms = round(a * 1e3), round(b * 1e3)
        # an opportunity stamped m carries the bytes of millisecond m - 1
        assert not ((stamps > a_ms) & (stamps <= b_ms)).any()
        assert ((stamps > a_ms - 100) & (stamps <= a_ms)).any()  # and there was capacity before it
        lines = np.arange(len(tr.delay_ms)) * syn.DELAY_INTERVAL_MS
        down = np.isnan(tr.delay_ms)
        overlapping = (lines + syn.DELAY_INTERVAL_MS > a_ms) & (lines < b_ms)
        assert down[overlapping].all()
    text = (tmp_path / "delay.txt").read_text().split()
    assert text.count("down") == int(np.isnan(tr.delay_ms).sum()) > 0


def test_the_same_seed_gives_identical_files_and_another_seed_others(tmp_path):
    a = syn.synthesize(11, tmp_path / "a", syn.Params(duration_s=30))
    b = syn.synthesize(11, tmp_path / "b", syn.Params(duration_s=30))
    c = syn.synthesize(12, tmp_path / "c", syn.Params(duration_s=30))
    for k in ("capacity", "delay", "loss", "meta"):
        assert a[k].read_bytes() == b[k].read_bytes()
    assert a["capacity"].read_bytes() != c["capacity"].read_bytes()
    assert a["delay"].read_bytes() != c["delay"].read_bytes()


def test_the_cache_makes_a_trace_once_under_a_name_of_its_seed_and_parameters(tmp_path):
    p = syn.Params(duration_s=30)
    d1 = syn.cached(3, tmp_path, p)
    stamp = (d1 / "bw.txt").stat().st_mtime_ns
    assert syn.cached(3, tmp_path, p) == d1 and (d1 / "bw.txt").stat().st_mtime_ns == stamp
    assert syn.cached(3, tmp_path, syn.Params(duration_s=30, mean_mbps=20)) != d1
    assert sorted(x.name for x in tmp_path.iterdir()) == sorted([d1.name, syn.cached(3, tmp_path, syn.Params(
        duration_s=30, mean_mbps=20)).name])  # no temporary directory left behind


@pytest.mark.parametrize("field,value", [("duration_s", 10), ("mean_mbps", 80.0), ("step_ms", 300),
                                         ("loss_max", 1.5), ("outage_probability", 2.0)])
def test_parameters_out_of_range_are_refused_naming_the_field(field, value):
    with pytest.raises(ValueError, match=field):
        syn.Params(**{field: value}).check()


def test_the_command_writes_the_files_and_prints_keys_a_scenario_takes(tmp_path):
    out = tmp_path / "t"
    r = subprocess.run([sys.executable, "-m", "satcp", "trace", "synth", "--seed", "2", "--duration", "1min",
                        "--out", str(out)], capture_output=True, text=True)
    assert r.returncode == 0, r.stderr
    assert "SYNTHETIC" in r.stderr
    assert sorted(p.name for p in out.iterdir()) == ["bw.txt", "delay.txt", "loss.txt", "synth.json"]
    assert f'capacity_trace_ab = "{out / "bw.txt"}"' in r.stdout
    assert 'interval = "10ms"' in r.stdout and 'interval = "1s"' in r.stdout
    # the keys run: a link with them in a scenario
    import satcp

    keys = "\n".join(l for l in r.stdout.splitlines() if not l.startswith("#"))
    scen = f"""
[run]
stop = "3s"
[nodes]
a = {{}}
b = {{}}
[[links]]
a = "a"
b = "b"
rate_ba = "10Mbps"
{keys}
[[flows]]
src = "a"
dst = "b"
app = {{ kind = "ftp", size = "1MB" }}
"""
    res = satcp.run(scen)
    assert res.flows["bytes_delivered"].iloc[0] > 0
    bad = subprocess.run([sys.executable, "-m", "satcp", "trace", "synth", "--seed", "2", "--duration", "5s",
                          "--out", str(out)], capture_output=True, text=True)
    assert bad.returncode == 2 and "--duration" in bad.stderr and ">= 15" in bad.stderr
