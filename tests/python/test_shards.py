"""Sweeps that store through Parquet shards (satcp.shards): the workers
write their batches' rows, the parent merges the files. What a sharded
sweep stores must equal what the parent's own inserts store; a finished
batch is never lost to an interruption, and a run is stored once however
many shards hold it."""

from __future__ import annotations

import json
import sys
import textwrap

import pyarrow.parquet as pq
import pytest

import satcp
from satcp import shards
from satcp.execute import LocalPool, _tasks, execute_runs, run_sweep
from satcp.store import Store
from satcp.sweep import Run, expand, load_sweep
from satcp.worker import run_chunk, run_task
from conftest import run_cli
from sweep_helpers import assert_same_results, bulk_sweep


class _InProcessPool:
    """Runs each task in this process, a chunk of ``chunk`` at a time
    through the worker's run_chunk, and records the keys it ran."""

    description = "in process"
    slots = 1
    shard_dir = None
    writes_shards = True

    def __init__(self, chunk=3, quiet_inside_a_chunk=False):
        self.chunk, self.ran, self.quiet = chunk, [], quiet_inside_a_chunk

    def running(self):
        return 0

    def close(self):
        pass

    def results(self, tasks, idle_s=None):
        tasks = list(tasks)
        for i in range(0, len(tasks), self.chunk):
            chunk = tasks[i:i + self.chunk]
            self.ran += [t["key"] for t in chunk]
            receipts = run_chunk(run_task, chunk)
            yield receipts[0]
            if self.quiet:
                yield None  # the sweep merges: the chunk's first run has arrived, the rest not yet
            yield from receipts[1:]


def _sweep(tmp_path, replications=2, stop="20s"):
    return load_sweep(bulk_sweep(tmp_path / "s.toml", replications=replications, stop=stop))


def test_a_sharded_sweep_stores_what_the_parents_inserts_store(tmp_path):
    sweep = _sweep(tmp_path, replications=3)
    for name, sharded in (("sharded", True), ("direct", False)):
        with Store(tmp_path / f"{name}.duckdb") as st:
            report = run_sweep(sweep, st, LocalPool(2), shards=sharded)
            assert report.ran == report.ok == 12
    assert_same_results(tmp_path / "sharded.duckdb", tmp_path / "direct.duckdb")
    assert not shards.shard_dir(tmp_path / "sharded.duckdb").exists()  # merged and removed


def test_a_workers_batch_comes_back_as_receipts_and_one_shard(tmp_path):
    runs = expand(_sweep(tmp_path))[:3]
    spec = {"version": satcp._core.version(), "dir": str(tmp_path / "sh")}
    receipts = run_chunk(run_task, list(_tasks(runs, None, spec)))
    assert [r["key"] for r in receipts] == [r.key for r in runs]
    assert all(r["summary_json"] is None and "rows" not in r and r["status"] == "ok" for r in receipts)
    (shard,) = {r["shard"] for r in receipts}
    assert shards.complete(tmp_path / "sh") == [shard]
    files = sorted(p.name.removeprefix(shard + ".") for p in (tmp_path / "sh").iterdir())
    assert files == ["factors.parquet", "flows.parquet", "links.parquet", "nodes.parquet", "runs.parquet"]
    rows = pq.read_table(shards.path(tmp_path / "sh", shard, "runs")).to_pylist()
    # the worker rebuilt each run's scenario text from its cell's template and seed
    assert [(r["key"], r["scenario_json"], r["seed"]) for r in rows] == [(r.key, r.scenario_json, r.seed) for r in runs]
    # handed back instead when the workers do not share the parent's disk
    back = run_chunk(run_task, list(_tasks(runs, None, dict(spec, dir=None))))
    assert set(back[0]["shard_files"]) == {f.removesuffix(".parquet") for f in files}
    assert all("shard_files" not in r for r in back[1:])


def test_shards_left_by_an_interrupted_sweep_are_merged_and_their_runs_not_run_again(tmp_path):
    sweep = _sweep(tmp_path, replications=3)
    runs = expand(sweep)
    store = tmp_path / "i.duckdb"
    sdir = shards.shard_dir(store)
    spec = {"version": satcp._core.version(), "dir": str(sdir)}
    # a sweep killed after two batches were written, before it merged them,
    # and while a third was being written
    run_chunk(run_task, list(_tasks(runs[:3], None, spec)))
    run_chunk(run_task, list(_tasks(runs[3:5], None, spec)))
    (sdir / "unfinished.flows.parquet").write_bytes(b"whole, but its runs file never came")
    (sdir / "unfinished.runs.parquet.tmp").write_bytes(b"half")
    pool = _InProcessPool()
    with Store(store) as st:
        report = execute_runs(runs, st, pool, sweep_name=sweep.name)
    assert report.already_stored == 5 and report.ran == report.ok == 7
    assert sorted(pool.ran) == sorted(r.key for r in runs[5:])  # nothing finished ran twice
    assert not sdir.exists()
    with Store(tmp_path / "ref.duckdb") as st:
        run_sweep(sweep, st, LocalPool(2), shards=False)
    assert_same_results(store, tmp_path / "ref.duckdb")


def test_a_chunks_receipts_may_straddle_two_merges(tmp_path):
    sweep = _sweep(tmp_path)
    runs = expand(sweep)
    with Store(tmp_path / "q.duckdb") as st:
        report = execute_runs(runs, st, _InProcessPool(quiet_inside_a_chunk=True), sweep_name=sweep.name)
        assert report.ran == report.ok == 8
        assert sorted(st.stored()) == sorted(r.key for r in runs)
    with Store(tmp_path / "ref.duckdb") as st:
        run_sweep(sweep, st, LocalPool(2), shards=False)
    assert_same_results(tmp_path / "q.duckdb", tmp_path / "ref.duckdb")


def test_a_run_in_two_shards_or_already_stored_is_stored_once(tmp_path):
    runs = expand(_sweep(tmp_path))[:4]
    sdir = tmp_path / "sh"
    spec = {"version": satcp._core.version(), "dir": str(sdir)}
    with Store(tmp_path / "d.duckdb") as st:
        st.commit_runs([(runs[0], satcp._core.version(), run_task({"key": runs[0].key,
                                                                     "scenario_json": runs[0].scenario_json}))])
        run_chunk(run_task, list(_tasks(runs[:3], None, spec)))
        run_chunk(run_task, list(_tasks(runs[1:4], None, spec)))  # a batch run again after its worker died
        st.merge_shards(sdir, shards.complete(sdir))
        counts = {t: st.query(f"SELECT key, count(*) AS n FROM {t} GROUP BY key") for t in ("runs", "flows", "factors")}
    for t, c in counts.items():
        assert sorted(c["key"]) == sorted(r.key for r in runs), t
    assert (counts["runs"]["n"] == 1).all() and (counts["flows"]["n"] == 1).all() and (counts["factors"]["n"] == 2).all()


def test_a_column_of_text_and_numbers_is_text_through_a_shard_as_directly(tmp_path):
    def outcome(key, x):
        summary = {"sim_time_s": 1.0, "events": 5, "links": [], "flows": [{"name": "f", "x": x, "ok": True}]}
        return {"key": key, "status": "ok", "error": None, "wall_s": 0.01, "summary_json": "{}",
                "satcp_version": satcp._core.version(), "rows": satcp._core.store_rows(json.dumps(summary))}
    runs = [Run(key=f"{i:016x}", sweep="mixed", cell={}, replication=i, seed=i, scenario_json="{}") for i in range(12)]
    outs = [outcome(r.key, i if i % 2 else (f"t{i}" if i % 4 else i % 8 == 0)) for i, r in enumerate(runs)]
    with Store(tmp_path / "direct.duckdb") as st:
        st.commit_runs([(r, satcp._core.version(), o) for r, o in zip(runs, outs)])
        direct = st.query("SELECT key, x, ok FROM flows ORDER BY key")
    tasks = [{"key": r.key, "scenario_json": r.scenario_json, "run": (r.sweep, r.cell_json, r.replication, r.seed),
              "factors": []} for r in runs]
    spec = {"version": satcp._core.version(), "dir": str(tmp_path / "sh")}
    from satcp.shards import write_batch

    write_batch(spec, tasks, outs)
    with Store(tmp_path / "sharded.duckdb") as st:
        st.merge_shards(tmp_path / "sh", shards.complete(tmp_path / "sh"))
        sharded = st.query("SELECT key, x, ok FROM flows ORDER BY key")
        types_ = dict(st.con.execute("SELECT column_name, data_type FROM information_schema.columns "
                                     "WHERE table_name = 'flows'").fetchall())
    assert types_["x"] == "VARCHAR" and types_["ok"] == "BOOLEAN"
    assert list(sharded["x"]) == list(direct["x"])
    assert list(sharded["x"])[:3] == ["True", "1", "t2"]


def test_a_worker_of_another_version_stores_its_runs_as_failed(tmp_path):
    runs = expand(_sweep(tmp_path))[:2]
    spec = {"version": "0.0.0-other", "dir": str(tmp_path / "sh")}
    receipts = run_chunk(run_task, list(_tasks(runs, None, spec)))
    assert {r["status"] for r in receipts} == {"failed"}
    assert receipts[0]["error"] == f"computed by satcp {satcp._core.version()}, this sweep needs 0.0.0-other"


def test_a_fixed_batch_goes_to_the_local_workers_as_it_is(tmp_path):
    pool = LocalPool(2, batch=5)
    with Store(tmp_path / "b.duckdb") as st:
        report = run_sweep(_sweep(tmp_path, replications=3), st, pool)
    assert report.ok == 12 and pool.chunk == 5


FAKE_JOBQUEUE = '''
"""A stand-in for dask-jobqueue: its SLURMCluster is a local cluster of
processes that scales as dask-jobqueue's does (workers, or jobs of one)."""
from distributed import LocalCluster


class SLURMCluster(LocalCluster):
    def __init__(self):
        super().__init__(n_workers=0, threads_per_worker=1, processes=True, dashboard_address=None)

    def scale(self, n=None, jobs=None):
        super().scale(n if n is not None else jobs)
'''


def test_scheduler_slurm_runs_through_a_jobqueue_cluster(tmp_path, monkeypatch):
    (tmp_path / "fake").mkdir()
    (tmp_path / "fake" / "dask_jobqueue.py").write_text(textwrap.dedent(FAKE_JOBQUEUE))
    monkeypatch.setenv("PYTHONPATH", str(tmp_path / "fake"))
    sweep_file = bulk_sweep(tmp_path / "j.toml", replications=2, stop="20s")
    r = run_cli("sweep", sweep_file, "--scheduler", "slurm", "--workers", "2", "--store", tmp_path / "j.duckdb")
    assert r.returncode == 0, r.stdout + r.stderr
    assert "8 to run on Dask on a SLURMCluster" in r.stdout
    local = run_cli("sweep", sweep_file, "--workers", "2", "--store", tmp_path / "local.duckdb")
    assert local.returncode == 0, local.stderr
    assert_same_results(tmp_path / "j.duckdb", tmp_path / "local.duckdb")


def test_scheduler_slurm_without_dask_jobqueue_says_what_to_install(tmp_path, monkeypatch):
    monkeypatch.setitem(sys.modules, "dask_jobqueue", None)  # import fails, installed or not
    from satcp.execute import jobqueue_cluster

    with pytest.raises(ImportError, match=r"--scheduler slurm needs dask-jobqueue \(pip install dask-jobqueue\)"):
        jobqueue_cluster("slurm", 2)
    try:
        import dask_jobqueue  # noqa: F401
    except ImportError:
        r = run_cli("sweep", bulk_sweep(tmp_path / "n.toml", replications=1), "--scheduler", "slurm",
                    "--store", tmp_path / "n.duckdb")
        assert r.returncode == 1 and "--scheduler slurm needs dask-jobqueue (pip install dask-jobqueue)" in r.stderr


def test_scheduler_names_what_it_accepts(tmp_path):
    r = run_cli("sweep", bulk_sweep(tmp_path / "n.toml", replications=1), "--scheduler", "slurmm",
                "--store", tmp_path / "n.duckdb")
    assert r.returncode == 2
    assert "--scheduler slurmm: expected a Dask scheduler's address (tcp://HOST:PORT) or a batch system" in r.stderr
    assert "slurm, pbs, sge, lsf, htcondor, oar, moab" in r.stderr



def test_batch_and_shard_dir_are_checked_before_anything_runs(tmp_path):
    sweep_file = bulk_sweep(tmp_path / "n.toml", replications=1)
    r = run_cli("sweep", sweep_file, "--batch", "0", "--store", tmp_path / "n.duckdb")
    assert r.returncode == 2 and "--batch 0: expected a number of runs >= 1" in r.stderr
    r = run_cli("sweep", sweep_file, "--shard-dir", tmp_path / "sh", "--store", tmp_path / "n.duckdb")
    assert r.returncode == 2 and "--shard-dir: only with --scheduler" in r.stderr
    assert not (tmp_path / "n.duckdb").exists()
