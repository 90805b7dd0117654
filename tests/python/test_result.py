"""`Result` tables from hand-made summaries: drop causes and nodes the engine
adds appear without code changes, and older summaries keep their columns."""

from __future__ import annotations

import json

from satcp import Result


def result(**summary) -> Result:
    return Result({"summary": json.dumps(summary), "flow_series": [], "link_series": [], "pages": []})


def link(frm: str, to: str, **drops) -> dict:
    return {"from": frm, "to": to, "utilization": 0.5, "drops": drops}


def test_old_summary_keeps_the_four_drop_columns():
    res = result(flows=[], links=[link("a", "b", queue=3, errors=1), {"from": "b", "to": "a", "utilization": 0.1}])
    links = res.links
    assert [c for c in links.columns if c.startswith("drops")] == [
        "drops_queue", "drops_errors", "drops_red_early", "drops_red_forced"]
    assert links["drops_queue"].tolist() == [3, 0] and links["drops_red_forced"].tolist() == [0, 0]


def test_new_drop_causes_become_columns():
    res = result(flows=[], links=[
        link("a", "b", queue=3, errors=1, red_early=0, red_forced=0, down=5, pushed_out=2),
        link("b", "a", queue=0, errors=0, red_early=0, red_forced=0),  # an engine leaving zero causes out
    ])
    links = res.links
    assert {"drops_down", "drops_pushed_out"} <= set(links.columns)
    assert links["drops_down"].tolist() == [5, 0] and links["drops_pushed_out"].tolist() == [2, 0]
    assert links["drops_down"].dtype.kind == "i"  # 0, not NaN, where a link lacks the cause
    assert "drops" not in links.columns


def test_a_queue_account_becomes_queue_columns():
    codel = link("a", "b", queue=0, errors=0, red_early=0, red_forced=0, codel=31)
    codel["queue"] = {"dequeued": 100, "sojourn_p50_s": 0.002, "sojourn_p95_s": 0.006, "sojourn_p99_s": 0.008}
    links = result(flows=[], links=[codel, link("b", "a", queue=0, errors=0)]).links
    assert links["drops_codel"].tolist() == [31, 0]
    assert links["queue_sojourn_p99_s"].iloc[0] == 0.008 and links["queue_sojourn_p99_s"].isna().iloc[1]
    assert "queue" not in links.columns


def test_nodes():
    empty = result(flows=[], links=[]).nodes
    assert empty.empty and list(empty.columns) == ["name", "drops_no_route"]
    nodes = result(flows=[], links=[], nodes=[{"name": "gw", "drops_no_route": 4},
                                             {"name": "client", "drops_no_route": 0}]).nodes
    assert nodes["name"].tolist() == ["gw", "client"] and nodes["drops_no_route"].tolist() == [4, 0]


def test_ecn_marks_become_a_column_only_when_some_link_marked():
    plain = result(flows=[], links=[link("a", "b", queue=1), link("b", "a")])
    assert "marks" not in plain.links.columns
    marked = {**link("a", "b", queue=0), "marks": 17}
    res = result(flows=[], links=[marked, link("b", "a")])
    assert res.links["marks"].tolist() == [17, 0]
    assert res.links["marks"].dtype.kind == "i"
