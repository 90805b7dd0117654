"""A single run's progress callback: simulated time as the run goes, no
effect on the results, and a way to stop a long run (Ctrl-C)."""

from __future__ import annotations

import json
import signal
import subprocess
import time

import pytest

import satcp
from conftest import GEO, REPO, satcp_cmd

LOSSY = ["flows.download.app.size=200MB"]  # ~0.5 million events, base BER 1e-7


def test_progress_sees_simulated_time_and_changes_nothing():
    seen = []
    observed = satcp.run(GEO, set=LOSSY, progress=seen.append)
    plain = satcp.run(GEO, set=LOSSY)
    # one call per 65,536 events taken off the queue
    assert len(seen) == plain.events // 65536 >= 1
    assert seen == sorted(seen) and seen[-1] <= plain.sim_time_s
    a, b = observed.to_dict(), plain.to_dict()
    a.pop("wall_s"), b.pop("wall_s")
    assert a == b


def test_an_exception_in_progress_stops_the_run():
    calls = []

    def stop_at_second(sim_s):
        calls.append(sim_s)
        if len(calls) == 2:
            raise RuntimeError("enough")

    with pytest.raises(RuntimeError, match="enough"):
        satcp.run(GEO, set=LOSSY, progress=stop_at_second)
    assert len(calls) == 2


def test_ctrl_c_stops_a_long_run_with_progress(tmp_path):
    # 10^7 simulated seconds of a 2 Mb/s transfer: minutes of engine time.
    # The child gets SIGINT's default action back: a shell that starts a
    # command in the background (as a CI job may be) leaves SIGINT ignored,
    # and Python then never installs its handler.
    cmd = satcp_cmd() + ["run", str(GEO), "--progress", "--set", "run.stop=10000000s",
                         "--set", "flows.download.app.size=1000GB"]
    proc = subprocess.Popen(cmd, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True, cwd=REPO,
                            preexec_fn=lambda: signal.signal(signal.SIGINT, signal.SIG_DFL))
    time.sleep(3)  # imports, then the run is under way
    assert proc.poll() is None
    proc.send_signal(signal.SIGINT)
    out, err = proc.communicate(timeout=60)
    assert proc.returncode == 130, err
    assert "interrupted" in err and out == ""


def test_cli_progress_leaves_stdout_alone():
    cmd = satcp_cmd() + ["run", str(GEO), "--progress", "--json", "--set", "flows.download.app.size=1MB"]
    r = subprocess.run(cmd, capture_output=True, text=True, cwd=REPO, timeout=120)
    assert r.returncode == 0, r.stderr
    assert json.loads(r.stdout)["flows"][0]["completed"] is True
