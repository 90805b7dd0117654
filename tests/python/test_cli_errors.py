"""Bad scenarios are rejected before anything runs: the CLI exits non-zero,
names the field path and the bad value on stderr and prints nothing on
stdout; the Python API raises satcp.ScenarioError with .path set."""

from __future__ import annotations

import re

import pytest

import satcp
from conftest import run_cli, to_toml


def _unknown_node(d):
    d["links"][1]["b"] = "clinet"


def _zero_rate(d):
    d["links"][0]["rate"] = "0Mbps"


def _negative_rate(d):
    d["links"][0]["rate"] = "-5Mbps"


def _ber_one(d):
    d["links"][1]["errors_ab"] = {"ber": 1.0}


def _unknown_variant(d):
    d["flows"][0]["tcp"]["variant"] = "cubicle"


def _unknown_key(d):
    d["links"][0]["rtae"] = "10Mbps"


def _bad_unit(d):
    d["links"][0]["delay"] = "5parsecs"


def _no_route(d):
    d["nodes"]["island"] = {}
    d["flows"][0]["dst"] = "island"


# (id, mutation, accepted field paths, bad value as it must appear on stderr)
CASES = [
    ("unknown-node", _unknown_node, ["links.1.b"], "clinet"),
    ("zero-rate", _zero_rate, ["links.0.rate"], "0Mbps"),
    ("negative-rate", _negative_rate, ["links.0.rate"], "-5Mbps"),
    ("ber-one", _ber_one, ["links.1.errors_ab.ber"], re.compile(r"\b1(\.0*)?\b")),
    ("unknown-variant", _unknown_variant,
     ["flows.download.tcp.variant", "flows.0.tcp.variant"], "cubicle"),
    ("unknown-key", _unknown_key, ["links.0.rtae"], None),
    ("bad-unit", _bad_unit, ["links.0.delay"], "5parsecs"),
    ("no-route", _no_route, ["flows.download", "flows.0"], "island"),
]


def _check_stderr(stderr: str, paths, value) -> None:
    assert stderr.startswith("error: "), stderr
    n = stderr
    assert any(p in n for p in paths), f"none of {paths} in stderr: {stderr!r}"
    if value is None:
        return
    if isinstance(value, re.Pattern):
        # the value must appear after the path
        rest = n.split(next(p for p in paths if p in n), 1)[1]
        assert value.search(rest[:40]), f"bad value not named in {stderr!r}"
    else:
        assert value in stderr, f"{value!r} not in stderr: {stderr!r}"


@pytest.mark.parametrize("name,mutate,paths,value", CASES, ids=[c[0] for c in CASES])
def test_cli_rejects_bad_scenario(tmp_path, scenario, name, mutate, paths, value):
    mutate(scenario)
    f = tmp_path / f"{name}.toml"
    f.write_text(to_toml(scenario))
    out = tmp_path / "out"
    r = run_cli("run", f, "--json", "--out", out)
    assert r.returncode == 2, (r.returncode, r.stderr)
    assert r.stdout == "", "something ran: " + r.stdout[:200]
    assert not out.exists(), "--out directory written although the scenario is invalid"
    _check_stderr(r.stderr, paths, value)
    # and the same through `satcp validate`
    v = run_cli("validate", f)
    assert v.returncode == 2 and v.stdout == ""
    _check_stderr(v.stderr, paths, value)


@pytest.mark.parametrize("name,mutate,paths,value", CASES, ids=[c[0] for c in CASES])
def test_api_raises_scenario_error(scenario, name, mutate, paths, value):
    mutate(scenario)
    with pytest.raises(satcp.ScenarioError) as ei:
        satcp.run(scenario)
    e = ei.value
    assert isinstance(e, ValueError)
    assert any(e.path == p or e.path.startswith(p + ".") for p in paths), e.path
    if isinstance(value, str):
        assert value in e.value or value in str(e), (e.value, str(e))
    assert e.allowed, "ScenarioError.allowed should say what is accepted"
    assert e.path in str(e)
    # validate() agrees with run()
    with pytest.raises(satcp.ScenarioError):
        satcp.validate(scenario)


def test_bad_override_is_rejected(tmp_path, scenario):
    f = tmp_path / "ok.toml"
    f.write_text(to_toml(scenario))
    r = run_cli("run", f, "--set", "links.1.errors_ab={ber=2.5}")
    assert r.returncode == 2
    assert r.stdout == ""
    _check_stderr(r.stderr, ["links.1.errors_ab.ber"], "2.5")
    with pytest.raises(satcp.ScenarioError) as ei:
        satcp.run(scenario, set=["flows.download.tcp.variant=cubicle"])
    assert "cubicle" in str(ei.value)


def test_malformed_toml(tmp_path):
    f = tmp_path / "broken.toml"
    f.write_text('[run\nseed = 1\n\n[nodes]\na = {}\n')
    r = run_cli("run", f, "--json")
    assert r.returncode == 2
    assert r.stdout == ""
    assert r.stderr.startswith("error: ") and len(r.stderr.strip()) > len("error: ")
    assert "Traceback" not in r.stderr
    with pytest.raises(satcp.ScenarioError):
        satcp.run('[run\nseed = 1\n')


def test_missing_file(tmp_path):
    missing = tmp_path / "no_such_scenario.toml"
    r = run_cli("run", missing, "--json")
    assert r.returncode == 2
    assert r.stdout == ""
    assert str(missing) in r.stderr
    assert "Traceback" not in r.stderr
    with pytest.raises(FileNotFoundError) as ei:
        satcp.run(missing)
    assert str(missing) in str(ei.value)
    with pytest.raises(FileNotFoundError):
        satcp.run(str(missing))


def test_scenario_error_is_catchable_by_class():
    assert issubclass(satcp.ScenarioError, ValueError)
    try:
        satcp.validate({"run": {"seed": 1}, "nodes": {}, "links": [], "flows": [],
                        "bogus_section": {}})
    except satcp.ScenarioError as e:
        assert e.path and isinstance(e.value, str) and isinstance(e.allowed, str)
    else:
        pytest.fail("an unknown top-level key must be rejected")
