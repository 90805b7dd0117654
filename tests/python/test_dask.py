"""A sweep through a real dask.distributed cluster: a scheduler and two
workers started as separate processes on loopback. The results must equal
the local pool's, table for table."""

from __future__ import annotations

import os
import signal
import subprocess
import sys
import time
from pathlib import Path

import pytest

from conftest import REPO, run_cli
from sweep_helpers import assert_same_results, bulk_sweep, free_port


def _dask_exe() -> str:
    exe = Path(sys.executable).with_name("dask")
    assert exe.is_file(), "the dask command line (dask[distributed]) is not installed in this venv"
    return str(exe)


def _start(args: list[str], log: Path) -> subprocess.Popen:
    out = open(log, "w")
    p = subprocess.Popen([_dask_exe(), *args], stdout=out, stderr=subprocess.STDOUT, cwd=REPO,
                         start_new_session=True)
    out.close()
    return p


def _stop(procs: list[subprocess.Popen]) -> None:
    for p in procs:
        if p.poll() is None:
            os.killpg(p.pid, signal.SIGTERM)
    for p in procs:
        try:
            p.wait(timeout=20)
        except subprocess.TimeoutExpired:
            os.killpg(p.pid, signal.SIGKILL)
            p.wait(timeout=20)


@pytest.fixture
def cluster(tmp_path):
    """``tcp://127.0.0.1:PORT`` of a scheduler with two single-thread workers."""
    from distributed import Client

    port = free_port()
    address = f"tcp://127.0.0.1:{port}"
    procs = [_start(["scheduler", "--host", "127.0.0.1", "--port", str(port), "--no-dashboard"],
                    tmp_path / "scheduler.log")]
    try:
        for i in range(2):
            procs.append(_start(["worker", address, "--host", "127.0.0.1", "--nthreads", "1",
                                 "--nworkers", "1", "--no-dashboard", "--name", f"w{i}"],
                                tmp_path / f"worker{i}.log"))
        deadline = time.monotonic() + 120
        while True:  # the scheduler may not listen yet
            try:
                with Client(address, timeout="5s") as c:
                    c.wait_for_workers(2, timeout=max(1.0, deadline - time.monotonic()))
                    assert len(c.scheduler_info()["workers"]) == 2
                break
            except (OSError, TimeoutError):
                if time.monotonic() > deadline:
                    logs = "\n".join(p.read_text() for p in tmp_path.glob("*.log"))
                    raise AssertionError(f"Dask cluster did not come up:\n{logs}") from None
                time.sleep(0.5)
        yield address
    finally:
        _stop(procs)


def test_dask_and_local_give_identical_results(cluster, tmp_path):
    sweep_file = bulk_sweep(tmp_path / "d.toml", replications=3, stop="30s")  # 12 runs
    r = run_cli("sweep", sweep_file, "--scheduler", cluster, "--store", tmp_path / "dask.duckdb")
    assert r.returncode == 0, r.stdout + r.stderr
    assert f"12 to run on Dask at {cluster} (2 worker threads)" in r.stdout
    assert sum(1 for l in r.stdout.splitlines() if l.startswith("[") and " ok " in l) == 12

    local = run_cli("sweep", sweep_file, "--workers", "2", "--store", tmp_path / "local.duckdb")
    assert local.returncode == 0, local.stderr
    assert_same_results(tmp_path / "dask.duckdb", tmp_path / "local.duckdb")

    # resuming through Dask runs nothing that is stored
    again = run_cli("sweep", sweep_file, "--scheduler", cluster, "--store", tmp_path / "dask.duckdb")
    assert again.returncode == 0 and "12 already stored, 0 to run" in again.stdout


def test_unreachable_scheduler_is_an_error():
    from satcp.execute import DaskPool

    with pytest.raises(OSError, match="127.0.0.1"):
        DaskPool(f"tcp://127.0.0.1:{free_port()}", timeout_s=2)
