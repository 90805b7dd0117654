"""The result of one run: the summary (a dict) plus pandas views of it."""

from __future__ import annotations

import copy
import json
from functools import cached_property
from typing import Any

from typing import TYPE_CHECKING

if TYPE_CHECKING:  # pandas loads on first use: `satcp --help` and `satcp run` start without it
    import pandas as pd


#: Drop causes every summary has had; older summaries may lack some keys.
DROP_CAUSES = ("queue", "errors", "red_early", "red_forced")


def columns_frame(cols: list[tuple[str, str, bytes]]) -> pd.DataFrame:
    """Columnar triples (name, numpy dtype, little-endian bytes) -> DataFrame."""
    import numpy as np
    import pandas as pd

    data = {name: np.frombuffer(buf, dtype=np.dtype(dtype)) for name, dtype, buf in cols}
    return pd.DataFrame(data)


class Result:
    """What :func:`satcp.run` returns.

    Attributes
    ----------
    summary : dict
        The run summary (``satcp_version``, ``seed``, ``sim_time_s``,
        ``ended_by``, ``events``, ``wall_s``, ``flows``, ``links`` and, from
        engines that report it, ``nodes``).
    flows : DataFrame
        One row per flow, the fields of ``summary["flows"]``; the ``udp``
        counters of cross-traffic flows flattened into ``udp_packets_sent``,
        ``udp_bytes_sent``, ``udp_packets_received``, ``udp_bytes_received``
        and ``udp_packets_lost`` (NaN for TCP flows); the TCP sender's
        shares of time limited by each cause (``limited`` in the summary)
        into ``limited_cwnd``, ``limited_rwnd``, ``limited_app`` and
        ``limited_pacing`` (NaN for UDP flows); ``ecn_reductions`` when a
        flow has ``tcp.ecn = true`` (NaN for the others).
    links : DataFrame
        One row per link direction; every key of ``drops`` flattened into a
        ``drops_<cause>`` column: ``drops_queue``, ``drops_errors``,
        ``drops_red_early`` and ``drops_red_forced`` always (0 when the
        summary lacks them), plus any cause the engine reports, e.g.
        ``drops_down`` (the link was down) and ``drops_pushed_out`` (pushed
        out of a priority queue); a cause missing on some links is 0 there.
        On a link with a link-layer ARQ, its account of each direction's
        frames as ``arq_<key>`` columns (``arq_retransmissions``,
        ``arq_residual_loss``, ``arq_mean_extra_delay_s``, ...; NaN on
        links without one). On a drop-front, CoDel or FQ-CoDel queue,
        ``queue_dequeued`` and ``queue_sojourn_p50_s`` / ``_p95_s`` /
        ``_p99_s`` (NaN elsewhere); those queues' drops add
        ``drops_head`` and ``drops_codel``. When some queue marked packets
        (``ecn = true``), ``marks`` (0 on the other links).
    nodes : DataFrame
        One row per node: ``name``, ``drops_no_route`` (packets dropped for
        want of a route) and any other per-node field of ``summary["nodes"]``;
        empty, with those two columns, when the summary has no ``nodes``.
    series : DataFrame
        Per-flow time series (one row per sample time and flow) plus
        ``flow_name``. Empty unless ``run.sample_interval`` is set.
    link_series : DataFrame
        Per-link-direction time series plus ``link_name`` ("from->to").
    pages : DataFrame
        One row per completed HTTP page (``flow``, ``page``, ``start_s``,
        ``end_s``, ``response_s``) plus ``flow_name``.
    paths : list of dict
        One per ``[[paths]]`` pair (constellations): ``src``, ``dst``,
        ``changes_s`` (the steps at which the path changed), ``min_rtt_s``,
        ``max_rtt_s``, ``steps_without_path`` and ``routes`` (each distinct
        path, its nodes separated by spaces). Empty without pairs.
    path_series : DataFrame
        One row per topology step and traced pair: ``t_s``, ``src``,
        ``dst``, ``rtt_s`` (twice the path's propagation delay; NaN with no
        path), ``hops`` and ``path`` (its nodes separated by spaces).
    ground_stations : list of dict
        One per ``[[ground_stations]]`` entry: ``handovers``,
        ``handover_times_s``, ``links_up``, ``links_down``,
        ``steps_without_satellite``.
    peps : list of dict
        One per PEP (``[[peps]]``; a pair gives two): ``node``, ``peer``,
        ``counters``, ``connections`` (each split connection's two legs).
        Empty without PEPs (docs/models/pep.md).
    pep_series : DataFrame
        One row per split connection and sampling tick: ``t_s``, ``pep``
        (its node), ``connection``, ``flow``, ``flow_name``,
        ``to_acceptor_bytes``, ``to_opener_bytes``, ``pool_used_bytes``.
    """

    def __init__(self, raw: dict[str, Any]):
        self._raw = raw
        self._summary_json: str = raw["summary"]
        self.summary: dict[str, Any] = json.loads(self._summary_json)

    # -- scalars -----------------------------------------------------------
    @property
    def events(self) -> int:
        return self.summary["events"]

    @property
    def wall_s(self) -> float:
        return self.summary["wall_s"]

    @property
    def sim_time_s(self) -> float:
        return self.summary["sim_time_s"]

    @property
    def seed(self) -> int:
        return self.summary["seed"]

    @property
    def ended_by(self) -> str:
        return self.summary["ended_by"]

    # -- tables --------------------------------------------------------------
    @cached_property
    def flows(self) -> pd.DataFrame:
        import pandas as pd

        rows = []
        for flow in self.summary["flows"]:
            row = {k: v for k, v in flow.items() if k not in ("udp", "limited")}
            for k, v in (flow.get("udp") or {}).items():
                row["udp_" + k] = v
            for k, v in (flow.get("limited") or {}).items():
                row["limited_" + k] = v
            rows.append(row)
        return pd.DataFrame(rows)

    @cached_property
    def links(self) -> pd.DataFrame:
        import pandas as pd

        links = self.summary["links"]
        # Generic, so a drop cause the engine adds gets its column unasked;
        # every link gets every cause (0 where absent) so no column has NaN.
        causes = dict.fromkeys(DROP_CAUSES)
        for link in links:
            causes.update(dict.fromkeys(link.get("drops") or {}))
        # ECN marks (`ecn = true` queues): a column only when some link
        # marked, 0 on the others
        any_marks = any("marks" in link for link in links)
        rows = []
        for link in links:
            row = {k: v for k, v in link.items() if k not in ("drops", "arq", "queue")}
            if any_marks:
                row["marks"] = link.get("marks", 0)
            drops = link.get("drops") or {}
            row.update({f"drops_{c}": drops.get(c, 0) for c in causes})
            # a link-layer ARQ's account, as arq_<key> columns (NaN on the
            # directions of links without one)
            row.update({f"arq_{k}": v for k, v in (link.get("arq") or {}).items()})
            # a drop-front / CoDel / FQ-CoDel queue's account, as queue_<key>
            # columns (absent when no link has one)
            row.update({f"queue_{k}": v for k, v in (link.get("queue") or {}).items()})
            rows.append(row)
        return pd.DataFrame(rows)

    @cached_property
    def nodes(self) -> pd.DataFrame:
        import pandas as pd

        nodes = self.summary.get("nodes") or []
        if not nodes:
            return pd.DataFrame({"name": pd.Series(dtype=object), "drops_no_route": pd.Series(dtype="int64")})
        df = pd.DataFrame(nodes)
        if "drops_no_route" not in df.columns:
            df["drops_no_route"] = 0
        return df

    def _flow_names(self) -> dict[int, str]:
        return {i: f["name"] for i, f in enumerate(self.summary["flows"])}

    def _link_names(self) -> dict[int, str]:
        # link_series' `link` is 2 x link index + direction (0 a->b, 1 b->a);
        # a constellation's idle directions are not in the summary
        return {2 * l.get("index", i // 2) + (l.get("direction") == "ba"): f'{l["from"]}->{l["to"]}'
                for i, l in enumerate(self.summary["links"])}

    @cached_property
    def series(self) -> pd.DataFrame:
        df = columns_frame(self._raw["flow_series"])
        df["flow_name"] = df["flow"].map(self._flow_names()).astype(object)
        return df

    @cached_property
    def link_series(self) -> pd.DataFrame:
        df = columns_frame(self._raw["link_series"])
        df["link_name"] = df["link"].map(self._link_names()).astype(object)
        return df

    @cached_property
    def pages(self) -> pd.DataFrame:
        df = columns_frame(self._raw["pages"])
        df["flow_name"] = df["flow"].map(self._flow_names()).astype(object)
        return df

    @property
    def paths(self) -> list[dict[str, Any]]:
        return self.summary.get("paths") or []

    @property
    def ground_stations(self) -> list[dict[str, Any]]:
        return self.summary.get("ground_stations") or []

    @property
    def peps(self) -> list[dict[str, Any]]:
        """One entry per PEP (`[[peps]]`; a pair gives two), empty without."""
        return self.summary.get("peps") or []

    @cached_property
    def pep_series(self) -> pd.DataFrame:
        """Per split connection and sampling tick: the bytes a PEP holds
        towards the acceptor and towards the opener, and its pool in use
        (runs with `[[peps]]` and `run.sample_interval`)."""
        import pandas as pd

        raw = self._raw.get("pep_series")
        cols = ["t_s", "pep", "connection", "flow", "flow_name", "to_acceptor_bytes", "to_opener_bytes", "pool_used_bytes"]
        if not raw:
            return pd.DataFrame({c: pd.Series(dtype=object) for c in cols})
        df = columns_frame(raw)
        nodes = [p["node"] for p in self.peps]
        names = self._flow_names()
        return pd.DataFrame({
            "t_s": df["time_s"],
            "pep": [nodes[int(i)] for i in df["pep"]],
            "connection": df["connection"],
            "flow": df["flow"],
            "flow_name": [names[int(i)] for i in df["flow"]],
            "to_acceptor_bytes": df["to_acceptor_bytes"],
            "to_opener_bytes": df["to_opener_bytes"],
            "pool_used_bytes": df["pool_used_bytes"],
        })

    @cached_property
    def path_series(self) -> pd.DataFrame:
        import pandas as pd

        raw = self._raw.get("path_series")
        cols = ["t_s", "src", "dst", "rtt_s", "hops", "path"]
        if not raw:
            return pd.DataFrame({c: pd.Series(dtype=object) for c in cols})
        df = columns_frame(raw)
        pairs = self.paths
        src = [p["src"] for p in pairs]
        dst = [p["dst"] for p in pairs]
        pair = df["pair"].to_numpy()
        route = df["route"].to_numpy()
        paths = [pairs[int(i)]["routes"][int(r)] if r != 0xFFFFFFFF else "" for i, r in zip(pair, route)]
        return pd.DataFrame({
            "t_s": df["time_s"],
            "src": [src[int(i)] for i in pair],
            "dst": [dst[int(i)] for i in pair],
            "rtt_s": df["rtt_s"],
            "hops": df["hops"],
            "path": paths,
        })

    # -- export --------------------------------------------------------------
    def to_json(self) -> str:
        """The summary as the engine serialised it (one JSON object)."""
        return self._summary_json

    def to_dict(self) -> dict[str, Any]:
        """A copy of the summary as a dict."""
        return copy.deepcopy(self.summary)

    def __repr__(self) -> str:
        s = self.summary
        return (
            f"<satcp.Result seed={s.get('seed')} sim_time_s={s.get('sim_time_s')} "
            f"ended_by={s.get('ended_by')!r} flows={len(s.get('flows', []))} "
            f"links={len(s.get('links', []))}>"
        )
