"""The results store: what a run leaves in it, resume, failures, and the
same results whatever the number of workers."""

from __future__ import annotations

import json
import os
import signal
import subprocess

import pandas as pd
import pyarrow.parquet as pq
import pytest

import satcp
from satcp import shards
from satcp.execute import WORKER_DIED, LocalPool, execute_runs, run_sweep, run_task
from satcp.store import Store
import satcp.store as store_module
from satcp.sweep import Run, canonical_json, expand, from_dict, run_key
from conftest import GEO, REPO, run_cli, satcp_cmd
from sweep_helpers import assert_same_results, bulk_sweep, crash_on_flow_named_crash


def _flatten(d, prefix=""):
    out = {}
    for k, v in d.items():
        name = f"{prefix}{k}"
        if isinstance(v, dict):
            out.update(_flatten(v, name + "_"))
        else:
            out[name] = canonical_json(v) if isinstance(v, list) else v
    return out


def flow_rows(summary):
    """The store's flow rows by the documented rules, in Python: the
    reference the Rust flattening (`satcp_core::stats::store_rows`) is
    checked against. A nested object's fields become `outer_inner`
    columns, an array its canonical JSON text; a row starts with `flow`
    (the flow's name) and `flow_index` and leaves `name` out."""
    return [dict({"flow": f.get("name"), "flow_index": i},
                 **{k: v for k, v in _flatten(f).items() if k != "name"})
            for i, f in enumerate(summary.get("flows", []))]


def link_rows(summary):
    """The store's link rows by the same rules; a row starts with `link`
    ("from->to")."""
    return [dict({"link": f'{l.get("from")}->{l.get("to")}'}, **_flatten(l)) for l in summary.get("links", [])]


def named_rows(summary, table, lead, name=None):
    """Rows of one of the summary's other lists by the same rules: a row
    starts with `lead` (the entry's `name`, left out of the rest, or `name`
    of the entry) when given, then `<lead>_index`."""
    rows = []
    for i, x in enumerate(summary.get(table, [])):
        first = {lead: name(x)} if name else {lead: x.get("name")} if lead != "agent" else {}
        rest = {k: v for k, v in _flatten(x).items() if not (k == "name" and lead in ("station", "node"))}
        rows.append(dict(first, **{f"{lead}_index": i}, **rest))
    return rows


def pep_leg_rows(summary):
    """The store's PEP leg rows by the same rules: one per leg of each
    connection each PEP split, starting with `pep` (the PEP's node),
    `pep_index`, `connection_index`, the connection's fields but `legs`,
    `leg_index`, then the leg's fields."""
    rows = []
    for k, p in enumerate(summary.get("peps", [])):
        for c, conn in enumerate(p.get("connections", [])):
            for i, leg in enumerate(conn.get("legs", [])):
                head = {"pep": p.get("node"), "pep_index": k, "connection_index": c}
                head.update({f: conn.get(f) for f in ("flow", "opened_s", "state", "bytes_to_acceptor", "bytes_to_opener",
                                                      "peak_to_acceptor_bytes", "peak_to_opener_bytes")})
                rows.append(dict(head, leg_index=i, **_flatten(leg)))
    return rows


#: Every table made from a run's summary, by the rules in Python.
RULES = {
    "flows": flow_rows,
    "links": link_rows,
    "agents": lambda s: named_rows(s, "agents", "agent"),
    "paths": lambda s: named_rows(s, "paths", "path", lambda p: f'{p["src"]}->{p["dst"]}'),
    "ground_stations": lambda s: named_rows(s, "ground_stations", "station"),
    "nodes": lambda s: named_rows(s, "nodes", "node"),
    "pep_legs": pep_leg_rows,
}


VARIANT = "flows.download.tcp.variant"
BER = "links.1.errors_ab.ber"


def small_sweep(**over):
    doc = {"base": str(GEO), "replications": 2, "label": "small",
           "factors": {VARIANT: ["newreno", "sack"], BER: [1e-6, 1e-5],
                       "flows.download.app.size": ["200KB"]}}
    doc.update(over)
    return from_dict(doc)


@pytest.fixture(scope="module")
def small_store(tmp_path_factory):
    path = tmp_path_factory.mktemp("store") / "small.duckdb"
    with Store(path) as st:
        report = run_sweep(small_sweep(), st, LocalPool(2))
    assert report.ran == report.ok == 8
    return path


def test_every_summary_field_is_stored(small_store):
    direct = satcp.run(GEO, set=["flows.download.app.size=200KB"])
    with Store(small_store, read_only=True) as st:
        flows = st.query("SELECT * FROM flows")
        links = st.query("SELECT * FROM links")
        runs = st.runs()
    # nested tables flattened (limited -> limited_cwnd, ...), as in Result.flows
    flow_fields = set(direct.flows.columns) - {"name"}
    assert flow_fields <= set(flows.columns)
    assert {"limited_cwnd", "limited_rwnd", "limited_app", "limited_pacing", "profile"} <= flow_fields
    assert {"flow", "flow_index"} <= set(flows.columns)
    link_fields = set(direct.links.columns)  # drops flattened as drops_queue/drops_errors
    assert link_fields <= set(links.columns) and "link" in links.columns
    assert len(runs) == 8 and set(runs["status"]) == {"ok"}
    # each column has the type of the summary's values
    assert flows["flow_index"].dtype.kind == "i" and flows["retransmissions"].dtype.kind == "i"
    assert flows["goodput_bps"].dtype.kind == "f" and flows["completed"].dtype == bool
    assert flows["completion_s"].dtype.kind == "f" and flows["fin_done_at_s"].isna().all()
    assert links["drops_errors"].dtype.kind == "i" and links["utilization"].dtype.kind == "f"
    assert len(flows) == 8 and len(links) == 8 * 4  # 1 flow, 2 links x 2 directions per run
    assert set(links["link"]) == {"server->gateway", "gateway->server", "gateway->client", "client->gateway"}


def test_stored_scenario_reruns_to_the_stored_summary(small_store):
    with Store(small_store, read_only=True) as st:
        runs = st.runs()
    for row in runs.itertuples():
        again = satcp.run(json.loads(row.scenario_json)).summary
        stored = json.loads(row.summary_json)
        again.pop("wall_s"), stored.pop("wall_s")
        assert again == stored
        assert row.key == run_key(row.scenario_json, row.seed, satcp.__version__)
        assert row.sim_time_s == stored["sim_time_s"] and row.events == stored["events"]


def test_flows_view_has_a_column_per_factor(small_store):
    df = satcp.load(small_store)
    with Store(small_store, read_only=True) as st:
        pd.testing.assert_frame_equal(df, st.flows())
        assert st.factor_names() == [VARIANT, BER, "flows.download.app.size"]
        factors = st.factors()
    cols = list(df.columns)
    assert cols[:9] == ["key", "sweep", "cell", "replication", "seed", "status", VARIANT, BER,
                        "flows.download.app.size"]
    assert df[BER].dtype == "float64" and sorted(set(df[BER])) == [1e-6, 1e-5]
    assert sorted(set(df[VARIANT])) == ["newreno", "sack"]
    assert set(df["sweep"]) == {"small"} and sorted(set(df["replication"])) == [0, 1]
    # the variant column agrees with what the engine reports for the flow
    assert (df[VARIANT] == df["variant"]).all()
    assert len(factors) == 8 * 3


def test_nothing_stored_runs_again_and_forgotten_runs_do(small_store, tmp_path):
    copy = tmp_path / "copy.duckdb"
    copy.write_bytes(small_store.read_bytes())
    with Store(copy) as st:
        assert run_sweep(small_sweep(), st, LocalPool(1)).ran == 0
        keys = sorted(st.stored())[:3]
        st.forget(keys)
        assert len(st.stored()) == 5
        assert st.query("SELECT count(*) AS n FROM flows WHERE key IN (SELECT unnest(?))", [keys])["n"][0] == 0
        report = run_sweep(small_sweep(), st, LocalPool(1))
        assert report.ran == 3 and report.already_stored == 5
    assert_same_results(small_store, copy)


def test_a_failing_run_is_recorded_and_the_sweep_goes_on(tmp_path):
    # execute_runs does not validate (run_sweep does), so a bad scenario
    # reaches the engine and fails there, as a panic would.
    good = expand(small_sweep(replications=1))
    scenario = json.loads(good[0].scenario_json)
    scenario["links"][1]["rate_ab"] = "fast"
    bad_json = canonical_json(scenario)
    bad = Run(run_key(bad_json, 1, satcp.__version__), "small", {"x": 1}, 0, 1, bad_json)
    runs = good[:2] + [bad] + good[2:]
    with Store(tmp_path / "f.duckdb") as st:
        report = execute_runs(runs, st, LocalPool(2))
        assert (report.ran, report.ok, report.failed) == (5, 4, 1)
        assert report.failed_keys == [bad.key] and report.failed_in_store == 1
        row = st.query("SELECT * FROM runs WHERE key = ?", [bad.key]).iloc[0]
        assert row["status"] == "failed" and row["summary_json"] is None
        assert "ScenarioError" in row["error"] and "links.1.rate_ab" in row["error"]
        assert st.query("SELECT count(*) AS n FROM flows WHERE key = ?", [bad.key])["n"][0] == 0
        # failed runs appear in flows() with their status and no metrics
        df = st.flows()
        assert len(df) == 5 and df.loc[df["key"] == bad.key, "goodput_bps"].isna().all()
        # a stored failure is not run again ...
        assert execute_runs(runs, st, LocalPool(1)).ran == 0


@pytest.mark.parametrize("name", ["geo_bent_pipe.toml", "transat/four_flows_cbr.toml", "leo/leo-vs-geo.toml",
                                  "ceten/one_client.toml", "adalr/http.toml", "xfwa/equal_rtts.toml", "pep_geo.toml"])
def test_the_workers_store_rows_follow_the_python_rules(name):
    # the rows a worker flattens in Rust are the rows flow_rows and
    # link_rows (above) make from the same summary: same columns, same values
    # and value types, a missing field null
    from satcp import _core
    summary = satcp.run(REPO / "scenarios" / name, set=["run.stop=3s"]).summary
    def as_lists(rows_bytes):
        m = _core.merge_store_rows([rows_bytes])
        out = {"sim_time_s": m["sim_time_s"][0], "events": m["events"][0]}
        for table in store_module.ROW_TABLES:
            t = m[table]
            out[table] = {"names": t["names"], "kinds": t["kinds"], "columns": [store_module._values(c) for c in t["columns"]]}
        return out
    rust = as_lists(_core.store_rows(json.dumps(summary)))
    assert (rust["sim_time_s"], rust["events"]) == (summary["sim_time_s"], summary["events"])
    # a worker gets them from the summary in memory (no JSON): the same
    # columns (in the summary's field order rather than alphabetical),
    # values and kinds
    path = REPO / "scenarios" / name
    direct = as_lists(_core.run(path.read_text(), "toml", ["run.stop=3s"], str(path.parent), None, True)["store_rows"])
    assert (direct["sim_time_s"], direct["events"]) == (rust["sim_time_s"], rust["events"])
    for table in store_module.ROW_TABLES:
        a, b = direct[table], rust[table]
        assert sorted(a["names"]) == sorted(b["names"]) and len(a["names"]) == len(set(a["names"]))
        cols = {n: (k, c) for n, k, c in zip(b["names"], b["kinds"], b["columns"])}
        for n, k, c in zip(a["names"], a["kinds"], a["columns"]):
            assert (k, c) == cols[n] and list(map(type, c)) == list(map(type, cols[n][1])), (table, n)
    assert RULES.keys() == set(store_module.ROW_TABLES)
    for table, rules in RULES.items():
        rows, got = rules(summary), rust[table]
        assert rows or table in ("agents", "paths", "ground_stations", "pep_legs"), table
        assert set(got["names"]) == {n for r in rows for n in r}, table
        for i, row in enumerate(rows):
            for n, col in zip(got["names"], got["columns"]):
                assert len(col) == len(rows)
                want = row.get(n)
                assert col[i] == want and type(col[i]) is type(want), (table, i, n, col[i], want)


def test_a_batch_of_different_runs_is_stored_row_for_row_as_the_python_rules_say(tmp_path):
    # runs of five scenarios (different columns, some only in one of them)
    # committed in one batch: the merged insert puts every run's rows under
    # its key, each cell as flow_rows / link_rows (above) give it, null where
    # a run has no such field
    names = ["geo_bent_pipe.toml", "transat/four_flows_cbr.toml", "leo/leo-vs-geo.toml",
             "ceten/one_client.toml", "adalr/http.toml"]
    batch, summaries = [], {}
    for i, name in enumerate(names):
        path = REPO / "scenarios" / name
        raw = satcp._core.run(path.read_text(), "toml", ["run.stop=3s"], str(path.parent), None, True)
        key = f"{i:016x}"
        run = Run(key=key, sweep="mixed", cell={}, replication=0, seed=1, scenario_json="{}")
        summaries[key] = json.loads(raw["summary"])
        batch.append((run, satcp._core.version(), {"key": key, "status": "ok", "error": None, "wall_s": 0.1,
                                                   "summary_json": raw["summary"], "rows": raw["store_rows"]}))
    with Store(tmp_path / "m.duckdb") as st:
        st.commit_runs(batch)
        for table, rules in RULES.items():
            stored = st.query(f"SELECT * FROM {table}")
            for key, summary in summaries.items():
                rows = rules(summary)
                got = stored[stored["key"] == key].reset_index(drop=True)
                assert len(got) == len(rows), (table, key)
                for i, row in enumerate(rows):
                    for col in stored.columns:
                        want, have = row.get(col), got.at[i, col]
                        if col == "key":
                            continue
                        if want is None:
                            assert pd.isna(have), (table, key, i, col, have)
                        else:
                            assert have == want, (table, key, i, col, have, want)
        runs = st.runs()
        assert sorted(runs["key"]) == sorted(summaries)
        for key, summary in summaries.items():
            r = runs[runs["key"] == key].iloc[0]
            assert (r["sim_time_s"], r["events"]) == (summary["sim_time_s"], summary["events"])


class _ScriptedPool:
    """Runs tasks in this process and yields them on a script: the first
    `burst` at once, then the pool goes quiet for longer than the commit
    interval (heartbeats only) while the test looks at the store, then the
    rest."""

    description = "scripted"
    slots = 1
    shard_dir = None
    writes_shards = True

    def __init__(self, burst, look):
        self.burst, self.look = burst, look

    def running(self):
        return 0

    def close(self):
        pass

    def results(self, tasks, idle_s=None):
        tasks = list(tasks)
        for t in tasks[:self.burst]:
            yield run_task(t)
        assert idle_s is not None  # the sweep asks for heartbeats
        yield None  # quiet for idle_s
        self.look()
        for t in tasks[self.burst:]:
            yield run_task(t)


def test_results_are_committed_in_batches_and_none_waits_past_a_quiet_second(tmp_path, monkeypatch):
    runs = expand(small_sweep())
    sizes = []
    with Store(tmp_path / "b.duckdb") as st:
        real = st.commit_runs
        monkeypatch.setattr(st, "commit_runs", lambda batch: (sizes.append(len(batch)), real(batch))[1])
        seen = {}
        pool = _ScriptedPool(5, lambda: seen.update(st.stored()))
        report = execute_runs(runs, st, pool)
        assert (report.ran, report.ok) == (8, 8)
        # the five fast results went in one transaction when the pool went
        # quiet, before the rest arrived; the rest at the end
        assert sizes == [5, 3], sizes
        assert sorted(seen) == sorted(r.key for r in runs[:5])
        assert sorted(st.stored()) == sorted(r.key for r in runs)
        # every row of a batch is stored as a single commit would store it
        one = tmp_path / "one.duckdb"
        with Store(one) as st1:
            for r in runs:
                out = run_task({"key": r.key, "scenario_json": r.scenario_json})
                st1.commit_run(r, satcp.__version__, out)
    assert_same_results(tmp_path / "b.duckdb", one)


def test_a_sweep_commits_on_one_duckdb_thread_with_rarer_checkpoints_and_restores_the_settings(tmp_path):
    runs = expand(small_sweep())
    with Store(tmp_path / "t.duckdb") as st:
        setting = lambda k: st.con.execute(f"SELECT current_setting('{k}')").fetchone()[0]
        st.con.execute("SET threads = 2")
        st.con.execute("SET checkpoint_threshold = '8MiB'")
        seen = []
        execute_runs(runs, st, _ScriptedPool(3, lambda: seen.append((setting("threads"), setting("checkpoint_threshold")))))
        assert seen == [(1, "256.0 MiB")]  # while the sweep ran
        assert (setting("threads"), setting("checkpoint_threshold")) == (2, "8.0 MiB")  # afterwards, what the store had


def test_short_runs_go_to_the_workers_in_chunks(tmp_path):
    # runs of a few milliseconds are handed over tens at a time once the
    # pool has seen how long they take; every run is still stored once
    sweep = small_sweep(replications=30, factors={"flows.download.app.size": ["20KB"]})
    pool = LocalPool(2)
    with Store(tmp_path / "c.duckdb") as st:
        report = run_sweep(sweep, st, pool)
        assert report.ran == report.ok == 30
        assert pool.chunk > 10, pool.chunk
        assert st.query("SELECT count(DISTINCT key) AS n FROM flows")["n"][0] == 30


def test_a_run_that_kills_its_worker_is_recorded_and_the_rest_run(tmp_path):
    good = expand(small_sweep(replications=1))
    scenario = json.loads(good[1].scenario_json)
    scenario["flows"][0]["name"] = "crash"
    sj = canonical_json(scenario)
    crash = Run(run_key(sj, 1, satcp.__version__), "small", {"x": 2}, 0, 1, sj)
    runs = good[:2] + [crash] + good[2:]
    with Store(tmp_path / "c.duckdb") as st:
        report = execute_runs(runs, st, LocalPool(2, fn=crash_on_flow_named_crash))
        assert (report.ran, report.ok, report.failed) == (5, 4, 1)
        assert st.query("SELECT error FROM runs WHERE key = ?", [crash.key])["error"][0] == WORKER_DIED
        assert sorted(st.stored()) == sorted(r.key for r in runs)


def test_same_results_with_one_or_two_workers(tmp_path):
    sweep_file = bulk_sweep(tmp_path / "w.toml", replications=2, stop="20s")
    for n in (1, 2):
        r = run_cli("sweep", sweep_file, "--workers", n, "--store", tmp_path / f"w{n}.duckdb")
        assert r.returncode == 0, r.stderr
        assert f"on {n} local worker" in r.stdout
    assert_same_results(tmp_path / "w1.duckdb", tmp_path / "w2.duckdb")


def _executed(stdout: str) -> list[str]:
    """Key prefixes of the runs a `satcp sweep` log says it finished."""
    return [l.rsplit("key ", 1)[1] for l in stdout.splitlines() if l.startswith("[") and " key " in l]


def test_kill_and_resume(tmp_path):
    # 20 runs of about half a second each: long enough that the sweep is
    # still running when the fourth is reported and the busy check is done
    # (at 300 s a run takes 80 ms and a loaded machine let it finish first)
    sweep_file = bulk_sweep(tmp_path / "k.toml", replications=5, stop="3000s")
    store = tmp_path / "k.duckdb"
    cmd = satcp_cmd() + ["sweep", str(sweep_file), "--workers", "1", "--store", str(store)]
    proc = subprocess.Popen(cmd, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True,
                            cwd=REPO, start_new_session=True)
    seen = []
    try:
        for line in proc.stdout:
            if line.startswith("[") and " ok " in line:
                seen.append(line.rsplit("key ", 1)[1].strip())
                if len(seen) == 2:
                    # the running sweep holds the store: readers are told so
                    busy = run_cli("results", store)
                    assert busy.returncode == 2 and "open in another process" in busy.stderr
                if len(seen) == 4:
                    break
    finally:
        os.killpg(proc.pid, signal.SIGKILL)  # the CLI and its worker process
        proc.wait(timeout=60)
        proc.stdout.close()
        proc.stderr.close()
    assert len(seen) == 4, "the sweep ended before it could be killed"

    with Store(store, read_only=True) as st:
        stored = st.stored()
        flow_keys = set(st.query("SELECT key FROM flows")["key"])
        link_keys = set(st.query("SELECT key FROM links")["key"])
        factor_counts = st.query("SELECT key, count(*) AS n FROM factors GROUP BY key")
    # every run the log reported is stored; some are missing; nothing half-written
    assert all(any(k.startswith(p) for k in stored) for p in seen)
    assert 4 <= len(stored) < 20
    assert set(stored.values()) == {"ok"}
    assert flow_keys == set(stored) == link_keys
    assert set(factor_counts["key"]) == set(stored) and (factor_counts["n"] == 2).all()

    # batches the worker finished (their shards written) that the sweep had not merged yet
    sdir = shards.shard_dir(store)
    left = {k for s in shards.complete(sdir)
            for k in pq.read_table(shards.path(sdir, s, "runs"), columns=["key"])["key"].to_pylist()}
    finished = set(stored) | left
    again = subprocess.run(cmd, capture_output=True, text=True, cwd=REPO, timeout=600)
    assert again.returncode == 0, again.stderr
    assert f"20 runs, {len(finished)} already stored, {20 - len(finished)} to run" in again.stdout
    ran = _executed(again.stdout)
    assert len(ran) == 20 - len(finished) == len(set(ran))
    assert not any(k.startswith(p) for k in finished for p in ran)  # none ran twice

    reference = tmp_path / "ref.duckdb"
    r = run_cli("sweep", sweep_file, "--workers", "2", "--store", reference)
    assert r.returncode == 0, r.stderr
    assert_same_results(store, reference)


def test_results_command_tables_and_exports(small_store, tmp_path):
    r = run_cli("results", small_store)
    assert r.returncode == 0, r.stderr
    lines = r.stdout.splitlines()
    header = lines[0].split()
    assert header[:4] == ["sweep", VARIANT, BER, "flows.download.app.size"]
    assert "completion_s" in header and "runs" in header
    assert len(lines) == 2 + 4  # 4 cells, one flow each
    assert all(l.split()[header.index("runs")] == "2" for l in lines[2:])

    r = run_cli("results", small_store, "--format", "csv", "--metric", "goodput_bps")
    cells = pd.read_csv(pd.io.common.StringIO(r.stdout))
    flows = satcp.load(small_store)
    sack_hi = flows[(flows[VARIANT] == "sack") & (flows[BER] == 1e-5)]["goodput_bps"].mean()
    got = cells[(cells[VARIANT] == "sack") & (cells[BER] == 1e-5)]["goodput_bps"].iloc[0]
    assert got == pytest.approx(sack_hi, rel=1e-12)

    for ext in ("parquet", "csv"):
        out = tmp_path / f"flows.{ext}"
        r = run_cli("results", small_store, "--table", "flows", "--export", out)
        assert r.returncode == 0, r.stderr
        back = pd.read_parquet(out) if ext == "parquet" else pd.read_csv(out)
        assert len(back) == 8 and list(back.columns) == list(flows.columns)

    r = run_cli("results", small_store, "--query",
                f'SELECT "{VARIANT}" AS v, count(*) AS n FROM flows_wide GROUP BY 1 ORDER BY 1',
                "--format", "csv")
    assert r.returncode == 0, r.stderr
    assert r.stdout.splitlines() == ["v,n", "newreno,4", "sack,4"]

    r = run_cli("results", small_store, "--metric", "goodput")
    assert r.returncode == 2 and "no flow field 'goodput'" in r.stderr
    r = run_cli("results", tmp_path / "none.duckdb")
    assert r.returncode == 2 and "no results store" in r.stderr
    r = run_cli("results", small_store, "--query", "SELECT nope FROM runs")
    assert r.returncode == 2 and "query failed" in r.stderr
    not_a_store = tmp_path / "x.duckdb"
    not_a_store.write_text("hello")
    r = run_cli("results", not_a_store)
    assert r.returncode == 2 and "is not a results store" in r.stderr
    Store(tmp_path / "empty.duckdb").close()
    r = run_cli("results", tmp_path / "empty.duckdb")
    assert r.returncode == 0 and "no runs stored" in r.stderr


def test_cli_exit_status_reports_failed_runs(tmp_path):
    # a worker-count error is a usage error; nothing runs
    p = tmp_path / "s.toml"
    p.write_text(f'base = "{GEO}"\n[factors]\n"flows.download.app.size" = ["100KB"]\n')
    r = run_cli("sweep", p, "--workers", "0")
    assert r.returncode == 2 and "--workers 0" in r.stderr
    r = run_cli("sweep", p, "--quiet")
    assert r.returncode == 0 and r.stdout.startswith("sweep s: ran 1 (1 ok, 0 failed)")


def test_flow_columns_follow_what_the_summary_reports(tmp_path):
    def outcome(**fields):
        s = {"sim_time_s": 1.0, "events": 1, "flows": [{"name": "f", **fields}], "links": []}
        return {"status": "ok", "error": None, "wall_s": 0.0, "summary_json": json.dumps(s)}

    with Store(tmp_path / "t.duckdb") as st:
        # a field first seen as null is a DOUBLE; an integer field that later
        # holds a fraction becomes DOUBLE; a new field becomes a new column
        st.commit_run(Run("a", "t", {}, 0, 1, "{}"), "v", outcome(opt=None, n=1))
        st.commit_run(Run("b", "t", {}, 0, 2, "{}"), "v", outcome(opt=2.5, n=1.5, extra="x"))
        df = st.query("SELECT key, opt, n, extra FROM flows ORDER BY key")
        types = dict(st.con.execute("SELECT column_name, data_type FROM information_schema.columns "
                                    "WHERE table_name = 'flows'").fetchall())
    assert types["opt"] == "DOUBLE" and types["n"] == "DOUBLE" and types["extra"] == "VARCHAR"
    assert df["n"].tolist() == [1.0, 1.5] and df["extra"].tolist()[1] == "x"
    assert pd.isna(df["opt"][0]) and df["opt"][1] == 2.5 and pd.isna(df["extra"][0])


def test_retry_failed_runs_again_only_the_failed_runs(tmp_path):
    sweep = small_sweep(replications=1)  # 4 runs
    runs = expand(sweep)
    with Store(tmp_path / "r.duckdb") as st:
        # as if a worker had died on the first run in an earlier session
        st.commit_run(runs[0], satcp.__version__,
                      {"status": "failed", "error": WORKER_DIED, "wall_s": None, "summary_json": None})
        report = run_sweep(sweep, st, LocalPool(1))
        assert (report.ran, report.failed_in_store) == (3, 1)
        report = run_sweep(sweep, st, LocalPool(1), retry_failed=True)
        assert (report.ran, report.ok, report.failed_in_store) == (1, 1, 0)
        assert set(st.stored().values()) == {"ok"} and len(st.stored()) == 4
        assert len(st.query("SELECT * FROM factors WHERE key = ?", [runs[0].key])) == 3


def test_results_cells_carry_t_interval_half_widths(small_store):
    r = run_cli("results", small_store, "--format", "csv", "--metric", "completion_s", "--level", "0.9")
    assert r.returncode == 0, r.stderr
    cells = pd.read_csv(pd.io.common.StringIO(r.stdout))
    flows = satcp.load(small_store)
    one = flows[(flows[VARIANT] == "sack") & (flows[BER] == 1e-5)]["completion_s"]
    from satcp.stats import t_interval

    _, lo, hi = t_interval(one, 0.9)
    got = cells[(cells[VARIANT] == "sack") & (cells[BER] == 1e-5)]["completion_s_ci"].iloc[0]
    assert got == pytest.approx((hi - lo) / 2, rel=1e-12) and got > 0
    r = run_cli("results", small_store, "--level", "95")
    assert r.returncode == 2 and "confidence level in (0, 1)" in r.stderr


def test_report_command_writes_a_page_from_the_store(small_store, tmp_path):
    from test_report import render

    out = tmp_path / "rep"
    r = run_cli("report", small_store, "--out", out, "--level", "0.9")
    assert r.returncode == 0, r.stderr
    page = out / "index.html"
    assert r.stdout.strip() == str(page)
    html = page.read_text(encoding="utf-8")
    assert VARIANT.split(".")[-1] in html and "90%" in html
    res, _ = render(page, tmp_path)
    assert len(res["images"]) >= 3 and all(i["w"] > 100 for i in res["images"])
    assert res["tables"] and all(n > 0 for n in res["tables"]) and res["errors"] == []
    r = run_cli("report", small_store, "--out", out, "--x", "nope")
    assert r.returncode == 2 and "nope" in r.stderr
    r = run_cli("report", tmp_path / "none.duckdb", "--out", out)
    assert r.returncode == 2 and "no results store" in r.stderr


def test_a_run_past_its_wall_clock_limit_is_stopped_and_reported(tmp_path):
    # the 5 s runs finish; the runs of a million simulated seconds (a
    # minute of wall time each) are stopped at 0.5 s and stored as failed,
    # saying why; a rerun without the limit would run them (--retry-failed)
    from sweep_helpers import BULK_BASE
    sweep_file = tmp_path / "w.toml"
    sweep_file.write_text('label = "limit"\nreplications = 1\nseed = 7\n\n[factors]\n"run.stop" = ["5s", "1000000s"]\n'
                          + BULK_BASE.format(stop="5s"))
    store = tmp_path / "w.duckdb"
    r = run_cli("sweep", sweep_file, "--workers", "2", "--store", store, "--wall-limit", "0.5")
    assert r.returncode == 1, r.stdout + r.stderr
    with Store(store, read_only=True) as st:
        runs = st.runs()
    assert len(runs) == 2
    by = {json.loads(c)["run.stop"]: row for c, (_, row) in zip(runs["cell"], runs.iterrows())}
    assert by["5s"]["status"] == "ok"
    long = by["1000000s"]
    assert long["status"] == "failed" and long["error"].startswith("wall-clock limit: stopped after 0.5 s")
    assert long["wall_s"] < 5
    r = run_cli("sweep", sweep_file, "--store", store, "--wall-limit", "0")
    assert r.returncode == 2 and "--wall-limit" in r.stderr and "expected a number of seconds > 0" in r.stderr


def _tmpfs(path, size: str):
    """Mount a size-limited tmpfs at ``path`` (root only; else skip)."""
    path.mkdir()
    r = subprocess.run(["mount", "-t", "tmpfs", "-o", f"size={size}", "tmpfs", str(path)], capture_output=True, text=True)
    if r.returncode != 0:
        pytest.skip(f"cannot mount a tmpfs here ({r.stderr.strip() or 'not root'})")


def test_a_full_disk_and_a_read_only_store_say_so_and_resume(tmp_path):
    sweep_file = bulk_sweep(tmp_path / "d.toml", replications=10, stop="20s")
    mnt = tmp_path / "mnt"
    _tmpfs(mnt, "120k")
    store = mnt / "d.duckdb"
    try:
        # the disk fills part way: a clear error, exit 1, what was committed kept
        r = run_cli("sweep", sweep_file, "--workers", "1", "--store", store, "--quiet")
        assert r.returncode == 1, r.stdout + r.stderr
        assert "No space left on device" in r.stderr and "run the same command to resume" in r.stderr
        assert "Traceback" not in r.stderr
        with Store(store, read_only=True) as st:
            kept = set(st.runs()["key"])
        # and what the workers wrote as shards that could not be merged
        sdir = shards.shard_dir(store)
        kept |= {k for s in shards.complete(sdir)
                 for k in pq.read_table(shards.path(sdir, s, "runs"), columns=["key"])["key"].to_pylist()}
        kept = len(kept)
        assert 0 < kept < 40
        # room again: the same command runs only what is missing
        subprocess.run(["mount", "-o", "remount,size=20m", str(mnt)], check=True)
        r = run_cli("sweep", sweep_file, "--workers", "1", "--store", store, "--quiet")
        assert r.returncode == 0, r.stderr
        assert f"ran {40 - kept} " in r.stdout
        # a read-only file system: refused with the reason; reading still works
        subprocess.run(["mount", "-o", "remount,ro", str(mnt)], check=True)
        r = run_cli("sweep", sweep_file, "--store", store, "--quiet")
        assert r.returncode == 1 and "Read-only file system" in r.stderr and "Traceback" not in r.stderr
        r = run_cli("results", store)
        assert r.returncode == 0 and "bulk" in r.stdout
    finally:
        subprocess.run(["umount", str(mnt)], check=False)


def test_a_column_arrow_cannot_type_is_stored_as_text(tmp_path):
    # a field that is a number in some runs and text in others widens to
    # VARCHAR; Arrow refuses such a column and the batch goes through pandas
    def outcome(key, x):
        summary = {"sim_time_s": 1.0, "events": 5, "links": [], "flows": [{"name": "f", "x": x}]}
        return {"key": key, "status": "ok", "error": None, "wall_s": 0.01, "summary_json": "{}",
                "rows": satcp._core.store_rows(json.dumps(summary))}
    batch = []
    for i in range(12):
        key = f"{i:016x}"
        run = Run(key=key, sweep="mixed", cell={}, replication=i, seed=i, scenario_json="{}")
        batch.append((run, satcp._core.version(), outcome(key, i if i % 2 else f"t{i}")))
    with Store(tmp_path / "t.duckdb") as st:
        st.commit_runs(batch)
        got = st.query("SELECT key, x FROM flows ORDER BY key")
        types = dict(st.con.execute("SELECT column_name, data_type FROM information_schema.columns "
                                    "WHERE table_name = 'flows'").fetchall())
    assert types["x"] == "VARCHAR"
    assert list(got["x"]) == [str(i) if i % 2 else f"t{i}" for i in range(12)]


@pytest.fixture(scope="module")
def leo_and_xfwa_store(tmp_path_factory):
    """A store holding one run of the LEO study's network (a transfer the
    satellite reassignment at 12 s catches) and one of XFWA's (an agent on
    the bottleneck), and their summaries by key."""
    path = tmp_path_factory.mktemp("tables") / "t.duckdb"
    sweeps = [from_dict({"base": str(REPO / "scenarios/leo/study-leo.toml"), "label": "leo",
                         "factors": {"flows.transfer.app.start": ["11.5s"], "flows.transfer.app.size": ["1MB"]}}),
              from_dict({"base": str(REPO / "scenarios/xfwa/equal_rtts.toml"), "label": "xfwa",
                         "factors": {"run.stop": ["3s"]}})]
    with Store(path) as st:
        for sw in sweeps:
            assert run_sweep(sw, st, LocalPool(1)).ok == 1
        summaries = {k: json.loads(s) for k, s in st.query("SELECT key, summary_json FROM runs").itertuples(index=False)}
    return path, summaries


@pytest.mark.parametrize("table", ["agents", "paths", "ground_stations", "nodes"])
def test_each_new_table_holds_its_summary_list_and_answers_the_cli(leo_and_xfwa_store, table):
    path, summaries = leo_and_xfwa_store
    with Store(path, read_only=True) as st:
        stored = st.query(f"SELECT * FROM {table}")
    # every run's entries, row for row as the rules make them, the values
    # read back as stored (an array as its JSON text)
    want = [dict(r, key=k) for k, s in sorted(summaries.items()) for r in RULES[table](s)]
    assert want and len(stored) == len(want)
    order = ["key", f"{'station' if table == 'ground_stations' else table[:-1]}_index"]
    stored = stored.sort_values(order).reset_index(drop=True)
    for i, row in enumerate(sorted(want, key=lambda r: tuple(r[c] for c in order))):
        for col, v in row.items():
            have = stored.at[i, col]
            assert (pd.isna(have) if v is None else have == v), (table, i, col, have, v)
    # `satcp results STORE --query` answers from it
    r = run_cli("results", path, "--query", f"select * from {table}", "--format", "csv")
    assert r.returncode == 0, r.stderr
    assert len(r.stdout.strip().splitlines()) == len(want) + 1


def test_the_leo_and_xfwa_runs_fill_what_their_studies_read(leo_and_xfwa_store):
    path, _ = leo_and_xfwa_store
    with Store(path, read_only=True) as st:
        paths = st.query("SELECT path, min_rtt_s, max_rtt_s, json_array_length(changes_s) AS changes FROM paths")
        hand = st.query("SELECT station, handovers, CAST(handover_times_s AS DOUBLE[]) AS t FROM ground_stations")
        xfwa = st.query("SELECT kind, counters_rtt_avg_us_last FROM agents")
        nodes = st.query("SELECT n.node FROM nodes n JOIN runs r USING (key) WHERE r.sweep = 'xfwa'")
    assert list(paths["path"]) == ["paris->new-york"]
    assert 0.035 < paths["min_rtt_s"][0] <= paths["max_rtt_s"][0] < 0.1
    # the reassignment at 12 s moves both stations to another satellite
    assert (hand["handovers"] > 0).all() and all(len(t) == n for t, n in zip(hand["t"], hand["handovers"]))
    assert list(xfwa["kind"]) == ["xfwa"] and xfwa["counters_rtt_avg_us_last"][0] == 160_000
    assert {"b1", "b2"} <= set(nodes["node"])


def test_runs_stored_before_the_new_tables_get_their_rows_when_the_store_is_opened(leo_and_xfwa_store, tmp_path):
    path, _ = leo_and_xfwa_store
    copy = tmp_path / "old.duckdb"
    copy.write_bytes(path.read_bytes())
    tables = ("agents", "paths", "ground_stations", "nodes")
    with Store(copy, read_only=True) as st:
        before = {t: st.query(f"SELECT * FROM {t} ORDER BY ALL") for t in tables}
    import duckdb
    con = duckdb.connect(str(copy))
    for t in tables:
        con.execute(f"DROP TABLE {t}")  # as a store of before them
    con.close()
    with Store(copy) as st:
        for t in tables:
            after = st.query(f"SELECT * FROM {t} ORDER BY ALL")
            assert len(after) == len(before[t]) > 0, t
            pd.testing.assert_frame_equal(after[list(before[t].columns)], before[t], check_dtype=False)


def test_a_sweep_of_pep_runs_stores_each_leg_and_results_reads_them(tmp_path):
    """A tiny sweep over the PEP pair's buffer (scenarios/pep_geo.toml, 300
    kB): every run stores four legs (two PEPs, one connection, two legs
    each) in ``pep_legs``, named by PEP, connection and leg; the leg
    towards the acceptor at the gateway is the Hybla satellite leg and
    carried the 300 kB; ``satcp results --table pep_legs`` prints them
    with the factor, and a query over ``pep_legs_wide`` groups by it. A
    run without PEPs (the geo demo) has no leg rows. A store of before
    the table gets the rows of its PEP runs when next opened."""
    import duckdb
    sweep_file = tmp_path / "s.toml"
    sweep_file.write_text(f"""base = "{REPO / 'scenarios' / 'pep_geo.toml'}"\nlabel = "pep"\n
[factors]\n"flows.download.app.size" = ["300kB"]\n"peps.0.buffer" = ["64kB", "4MB"]\n""")
    store = tmp_path / "r.duckdb"
    r = run_cli("sweep", sweep_file, "--store", store, "--workers", "1", "--quiet")
    assert r.returncode == 0, r.stderr
    with Store(store) as st:
        legs = st.pep_legs()
        assert len(legs) == 8 and (legs["status"] == "ok").all()
        assert set(legs["peps.0.buffer"]) == {"64kB", "4MB"}
        for _, run in legs.groupby("key"):
            assert list(zip(run["pep"], run["connection_index"], run["leg_index"])) == [
                ("gateway", 0, 0), ("gateway", 0, 1), ("term", 0, 0), ("term", 0, 1)]
            sat = run[(run["pep"] == "gateway") & (run["toward"] == "acceptor")].iloc[0]
            assert sat["variant"] == "hybla" and sat["to_node"] == "client" and sat["bytes_to_acceptor"] == 300_000
            assert sat["segments_sent"] > 0 and 0 <= sat["limited_cwnd"] <= 1
    out = tmp_path / "legs.csv"
    r = run_cli("results", store, "--table", "pep_legs", "--export", out)
    assert r.returncode == 0, r.stderr
    assert len(pd.read_csv(out)) == 8
    q = "SELECT \"peps.0.buffer\" AS buffer, sum(retransmissions) AS retx FROM pep_legs_wide GROUP BY 1 ORDER BY 1"
    r = run_cli("results", store, "--query", q, "--export", out)
    assert r.returncode == 0, r.stderr
    assert list(pd.read_csv(out)["buffer"]) == ["4MB", "64kB"]
    # a store of before the table: its PEP runs get their leg rows back
    con = duckdb.connect(str(store))
    con.execute("DELETE FROM pep_legs")
    con.close()
    with Store(store) as st:
        assert len(st.query("SELECT * FROM pep_legs")) == 8
    # no PEPs, no legs
    plain = satcp.run(REPO / "scenarios" / "geo_bent_pipe.toml", set=["run.stop=2s"]).summary
    assert pep_leg_rows(plain) == []
