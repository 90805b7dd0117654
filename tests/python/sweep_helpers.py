"""Sweep files and store comparisons shared by the sweep, store and Dask tests."""

from __future__ import annotations

import json
import os
import socket
from pathlib import Path

import pandas as pd

from satcp.execute import run_task
from satcp.store import Store

# A bulk transfer over a 50 Mb/s GEO hop: every run takes a fraction of a
# second of engine time, long enough to kill a sweep between two runs.
BULK_BASE = """
[base.run]
stop = "{stop}"

[base.nodes]
server = {{}}
gw = {{}}
client = {{}}

[[base.links]]
a = "server"
b = "gw"
rate = "100Mbps"
delay = "5ms"

[[base.links]]
a = "gw"
b = "client"
rate_ab = "50Mbps"
rate_ba = "5Mbps"
delay = "250ms"
queue_ab = {{ kind = "droptail", packets = 1000 }}
errors_ab = {{ ber = 1e-9 }}

[[base.flows]]
name = "bulk"
src = "server"
dst = "client"
tcp = {{ variant = "sack", window_scaling = true, rwnd = "8MB" }}
app = {{ kind = "ftp" }}
"""


def bulk_sweep(path: Path, replications: int, stop: str = "300s", label: str = "bulk") -> Path:
    """2 variants x 2 bit error rates x ``replications`` runs."""
    path.write_text(
        f'label = "{label}"\nreplications = {replications}\nseed = 7\ncommon_random_numbers = true\n'
        'metrics = ["goodput_bps", "retransmissions"]\n\n'
        '[factors]\n"flows.bulk.tcp.variant" = ["newreno", "sack"]\n"links.1.errors_ab.ber" = [0.0, 1e-9]\n'
        + BULK_BASE.format(stop=stop)
    )
    return path


def comparable(store_path: Path) -> dict[str, pd.DataFrame]:
    """A store's tables without what legitimately differs between two
    executions of the same runs (wall times, commit times)."""
    with Store(store_path, read_only=True) as st:
        runs = st.runs().drop(columns=["wall_s", "finished_at"])
        runs["summary_json"] = [
            None if s is None else json.dumps({k: v for k, v in json.loads(s).items() if k != "wall_s"})
            for s in runs["summary_json"]
        ]
        out = {
            "runs": runs.sort_values("key").reset_index(drop=True),
            "flows": st.query("SELECT * FROM flows ORDER BY key, flow_index"),
            "links": st.query('SELECT * FROM links ORDER BY key, "index", direction'),
            "nodes": st.query("SELECT * FROM nodes ORDER BY key, node_index"),
            "factors": st.query("SELECT * FROM factors ORDER BY key, name"),
            "flows_wide": st.flows().sort_values(["key", "flow_index"]).reset_index(drop=True),
        }
    return out


def assert_same_results(a: Path, b: Path) -> None:
    ta, tb = comparable(a), comparable(b)
    for name in ta:
        assert len(ta[name]) > 0, name
        pd.testing.assert_frame_equal(ta[name], tb[name], check_exact=True, obj=name)


def free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


def crash_on_flow_named_crash(task: dict) -> dict:
    """A worker function that dies (as an abort would) on one marked run."""
    if '"name":"crash"' in (task.get("scenario_json") or task["template_json"]):
        os._exit(134)
    return run_task(task)
