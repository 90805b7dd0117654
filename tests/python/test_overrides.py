"""The `--set` path rules have one implementation, the engine's
(`_core.apply_overrides`); sweeps place their levels with it. These tests
pin what must not move: key order through the JSON round trip (node order
is node index) and the run keys of existing sweeps."""

from __future__ import annotations

import json
import math
import tomllib

import pytest

import satcp
from satcp import _core
from satcp.engine import apply_overrides
from satcp.sweep import expand, load_sweep, set_levels, toml_value
from conftest import REPO


def test_key_order_survives_the_round_trip():
    tree = {"run": {"stop": "1s"}, "nodes": {"zulu": {}, "alpha": {}, "mike": {}},
            "links": [{"a": "zulu", "b": "alpha"}], "flows": []}
    out = json.loads(_core.apply_overrides(json.dumps(tree), ["run.seed=4", "links.0.delay=5ms", "run.stop=2s"]))
    assert list(out) == ["run", "nodes", "links", "flows"]
    assert list(out["nodes"]) == ["zulu", "alpha", "mike"]  # not sorted: the order is the node index
    assert list(out["run"]) == ["stop", "seed"]  # a replaced key keeps its place, a new one goes last
    assert out["run"] == {"stop": "2s", "seed": 4}
    assert list(out["links"][0]) == ["a", "b", "delay"]


def test_the_set_rules():
    tree = {"links": [{"a": "x"}, {"name": "sat"}], "flows": [{"name": "dl", "tcp": {}}]}
    out = apply_overrides(tree, [
        "links.1.rate=\"1Mbps\"",        # a numeric segment indexes an array
        "links.sat.delay=0.25",          # any other picks the element by name
        "flows.dl.tcp.variant=sack",     # not TOML: taken as a string
        "links.0.errors_ab={ber=1e-6}",  # TOML: a table
        "run.stop=10 s",
        "a.b.c=1",                       # missing tables are created
    ])
    assert out["links"][1] == {"name": "sat", "rate": "1Mbps", "delay": 0.25}
    assert out["flows"][0]["tcp"]["variant"] == "sack"
    assert out["links"][0]["errors_ab"] == {"ber": 1e-6}
    assert out["run"] == {"stop": "10 s"}
    assert out["a"] == {"b": {"c": 1}}
    assert tree == {"links": [{"a": "x"}, {"name": "sat"}], "flows": [{"name": "dl", "tcp": {}}]}  # a copy


def test_errors_name_path_value_and_what_exists():
    tree = {"links": [{"a": "x"}, {"name": "sat"}], "flows": [{"name": "download"}]}
    with pytest.raises(satcp.ScenarioError) as ei:
        apply_overrides(tree, ["links.2.rate=1"])
    assert (ei.value.path, ei.value.value) == ("links.2", "1")
    assert "an index 0..=1" in ei.value.allowed and '"sat"' in ei.value.allowed
    with pytest.raises(satcp.ScenarioError) as ei:
        apply_overrides(tree, ["flows.upload.tcp.mss=1000"])
    assert ei.value.path == "flows.upload" and 'or a name: "download"' in str(ei.value)
    with pytest.raises(satcp.ScenarioError) as ei:
        apply_overrides(tree, ["links.0.a.x=1"])
    assert ei.value.path == "links.0.a.x" and "links.0.a is" in ei.value.allowed
    # the binding raises its own ScenarioError with (message, path, value, allowed)
    with pytest.raises(_core.ScenarioError) as ei:
        _core.apply_overrides("{}", ["run.stop"])
    assert len(ei.value.args) == 4 and ei.value.args[1] == "run.stop"
    # what JSON cannot hold is refused, not turned into null
    for bad in ("x=nan", "x=inf", "x=1979-05-27"):
        with pytest.raises(_core.ScenarioError) as ei:
            _core.apply_overrides("{}", [bad])
        assert ei.value.args[1] == "x"


@pytest.mark.parametrize("v", [
    "sack", "10 Mbps", "", 'a "quoted" \\ back\\slash', "tab\tnew\nline\x00\x7f", "é ünï 中 😀",
    "1e-6", "true", "{ber = 1}",  # strings that look like TOML stay strings
    0, -5, 2**63 - 1, -(2**63), 1e-07, 1e-6, 1.0, -0.0, 1e+20, 0.1, 123456.789,
    True, False, [], {}, [1, 2.5, "x"], {"ber": 1e-7, "bits": 12000}, {"a": {"b": [True, {"c": "d"}]}},
])
def test_levels_reach_the_engine_unchanged(v):
    lit = toml_value(v)
    assert tomllib.loads(f"x = {lit}")["x"] == v
    out = set_levels({"t": {}}, {"t.x": v})["t"]["x"]
    assert out == v and type(out) is type(v)
    if isinstance(v, float):
        assert math.copysign(1, out) == math.copysign(1, v)


def test_geo_ber_run_keys_are_unchanged():
    # Computed with the Python set_path this replaced (commit fe70ba9) for the
    # same version string. If sweeps/geo_ber.toml or its base scenario file
    # changes, recompute it there; a change here alone means stored runs of
    # every existing sweep would be run again.
    runs = expand(load_sweep(REPO / "sweeps" / "geo_ber.toml"), version="0.0.0-test")
    r = runs[18]
    assert r.cell == {"flows.download.tcp.variant": "sack", "links.1.errors_ab.ber": 1e-6,
                      "flows.download.app.size": "1MB"}
    assert (r.replication, r.seed) == (2, 3)
    assert r.key == "f2fcf8bb243fd22e719598f8fb9fd4d580686231be2a44eea9c5e1ae9ba88a32"
    assert list(json.loads(r.scenario_json)["nodes"]) == ["server", "gateway", "client"]
