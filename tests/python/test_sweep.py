"""Sweep files: expansion, seeds, keys, and the errors a bad sweep gets
before anything runs."""

from __future__ import annotations

import json
import tomllib
from pathlib import Path

import pytest

import satcp
from satcp.sweep import SEED_MAX, SweepError, check, expand, from_dict, load_sweep, run_key, set_levels
from conftest import GEO, REPO, run_cli

VARIANT = "flows.download.tcp.variant"
BER = "links.1.errors_ab.ber"


def geo_sweep(**over) -> dict:
    doc = {
        "base": str(GEO),
        "replications": 2,
        "seed": 10,
        "factors": {VARIANT: ["newreno", "sack"], BER: [1e-7, 1e-6, 1e-5]},
    }
    doc.update(over)
    return doc


def write(tmp_path: Path, text: str, name: str = "s.toml") -> Path:
    p = tmp_path / name
    p.write_text(text)
    return p


def test_full_factorial_in_file_order():
    # 2 variants x 3 BERs = 6 cells, x 2 replications = 12 runs; the last
    # factor varies fastest, replications innermost.
    sweep = from_dict(geo_sweep())
    runs = expand(sweep)
    assert len(runs) == 12
    got = [(r.cell[VARIANT], r.cell[BER], r.replication) for r in runs]
    want = [(v, b, r) for v in ["newreno", "sack"] for b in [1e-7, 1e-6, 1e-5] for r in range(2)]
    assert got == want
    assert len({r.key for r in runs}) == 12
    assert runs[0].cell_json == '{"flows.download.tcp.variant":"newreno","links.1.errors_ab.ber":1e-07}'


def test_levels_land_at_their_paths():
    run = expand(from_dict(geo_sweep()))[9]  # sack, 1e-6, replication 1
    s = json.loads(run.scenario_json)
    assert s["flows"][0]["tcp"]["variant"] == "sack"     # flows addressed by name
    assert s["links"][1]["errors_ab"]["ber"] == 1e-6     # links by index
    assert s["run"]["seed"] == 11 == run.seed            # seed 10 + replication 1
    assert list(s["nodes"]) == ["server", "gateway", "client"]  # file order kept
    # the stored scenario runs as is and gives the run's seed back
    assert satcp.run(s).seed == 11


def test_common_random_numbers_share_seeds_across_cells():
    runs = expand(from_dict(geo_sweep()))
    by_rep = {}
    for r in runs:
        by_rep.setdefault(r.replication, set()).add(r.seed)
    assert by_rep == {0: {10}, 1: {11}}


def test_independent_seeds_are_distinct_and_stable():
    runs = expand(from_dict(geo_sweep(common_random_numbers=False)))
    seeds = [r.seed for r in runs]
    assert len(set(seeds)) == 12 and all(0 <= s <= SEED_MAX for s in seeds)
    # adding a level leaves the seeds of the existing cells unchanged
    more = geo_sweep(common_random_numbers=False)
    more["factors"][BER] = [1e-7, 1e-6, 1e-5, 1e-4]
    again = {(json.dumps(r.cell), r.replication): r.seed for r in expand(from_dict(more))}
    assert all(again[(json.dumps(r.cell), r.replication)] == r.seed for r in runs)


def test_key_depends_on_scenario_seed_and_version():
    r = expand(from_dict(geo_sweep()))[0]
    assert r.key == run_key(r.scenario_json, r.seed, satcp.__version__)
    assert r.key != run_key(r.scenario_json, r.seed, "0.0.0-other")
    assert r.key != run_key(r.scenario_json, r.seed + 1, satcp.__version__)
    assert r.key != run_key(r.scenario_json.replace("newreno", "sack"), r.seed, satcp.__version__)
    assert expand(from_dict(geo_sweep()))[0].key == r.key  # deterministic


def test_base_path_is_relative_to_the_sweep_file(tmp_path):
    d = tmp_path / "sweeps"
    d.mkdir()
    rel = Path("..") / "scen.toml"
    (tmp_path / "scen.toml").write_text(GEO.read_text())
    p = write(d, f'base = "{rel.as_posix()}"\n[factors]\n"{VARIANT}" = ["sack"]\n')
    sweep = load_sweep(p)
    assert sweep.name == "s" and sweep.replications == 1
    assert sweep.seed == 1  # the base scenario's run.seed
    assert sweep.source == str(p)


def test_inline_base_and_unquoted_dotted_factor_keys(tmp_path):
    text = GEO.read_text()
    for table in ("[run]", "[nodes]", "[[links]]", "[[flows]]"):
        name = table.strip("[]")
        text = text.replace(table, table.replace(name, "base." + name))
    p = write(tmp_path, 'label = "inline"\n[factors]\nflows.download.tcp.variant = ["newreno", "sack"]\n\n'
              + text)
    sweep = load_sweep(p)
    assert [f.path for f in sweep.factors] == [VARIANT]
    assert sweep.base["links"][1]["errors_ab"]["ber"] == 1e-7
    check(sweep)
    assert len(expand(sweep)) == 2


def test_no_factors_means_replications_of_the_base():
    sweep = from_dict({"base": str(GEO), "replications": 3})
    runs = expand(sweep)
    assert [r.cell for r in runs] == [{}, {}, {}]
    assert [r.seed for r in runs] == [1, 2, 3]


@pytest.mark.parametrize(
    "over, path, fragment",
    [
        ({"replication": 2}, "replication", "unknown key; allowed: base, factors"),
        ({"replications": 0}, "replications", "an integer >= 1"),
        ({"replications": True}, "replications", "an integer >= 1"),
        ({"seed": -1}, "seed", "an integer in 0..="),
        ({"seed": SEED_MAX}, "seed", "seed + replications - 1"),
        ({"common_random_numbers": "yes"}, "common_random_numbers", "true or false"),
        ({"metrics": "goodput_bps"}, "metrics", "a list of flow summary field names"),
        ({"label": ""}, "label", "a non-empty string"),
        ({"base": 3}, "base", "a scenario file path"),
        ({"base": "nowhere.toml"}, "base", "scenario file not found"),
        ({"factors": {VARIANT: []}}, f"factors.{VARIANT}", "at least one level"),
        ({"factors": {VARIANT: "sack"}}, f"factors.{VARIANT}", "a list of levels"),
        ({"factors": {BER: [1e-7, 1e-7]}}, f"factors.{BER}", "levels must differ"),
        ({"factors": {"run.seed": [1, 2]}}, "factors.run.seed", "set by seed/replications"),
        ({"factors": {"links.1.errors_ab": [{"ber": 0.0}], BER: [1e-7]}}, f"factors.{BER}",
         "lies inside factor links.1.errors_ab"),
        ({"factors": {BER: [float("nan")]}}, f"factors.{BER}.0", "a finite number"),
    ],
)
def test_sweep_file_errors_name_the_field(over, path, fragment):
    doc = geo_sweep()
    doc.update(over)
    with pytest.raises(SweepError) as ei:
        check(from_dict(doc, base_dir=REPO))
    assert ei.value.path == path
    assert fragment in str(ei.value)


def test_bad_level_names_factor_level_and_what_is_allowed():
    doc = geo_sweep(factors={VARIANT: ["newreno", "cubicle"], BER: [1e-7]})
    with pytest.raises(SweepError) as ei:
        check(from_dict(doc))
    e = ei.value
    assert e.path == f"factors.{VARIANT}" and e.value == '"cubicle"'
    assert '"newreno", "sack"' in str(e)

    doc = geo_sweep(factors={BER: [1e-7, 2.0]})
    with pytest.raises(SweepError) as ei:
        check(from_dict(doc))
    assert ei.value.path == f"factors.{BER}" and ei.value.value == "2.0"


def test_level_on_missing_array_element_names_what_exists():
    with pytest.raises(SweepError) as ei:
        check(from_dict(geo_sweep(factors={"links.5.rate": ["1Mbps"]})))
    assert ei.value.path == "factors.links.5.rate"
    assert "an index 0..=1" in str(ei.value)
    with pytest.raises(SweepError) as ei:
        check(from_dict(geo_sweep(factors={"flows.upload.tcp.mss": [1000]})))
    assert 'or a name: "download"' in str(ei.value)


def test_misspelt_factor_key_is_reported_by_validation():
    with pytest.raises(SweepError) as ei:
        check(from_dict(geo_sweep(factors={"flows.download.tcp.varient": ["sack"]})))
    assert ei.value.path == "factors.flows.download.tcp.varient"
    assert "unknown key" in str(ei.value)


def test_a_level_valid_alone_but_not_with_another_names_the_cell():
    # rwnd above 65535 is allowed with window scaling, refused without it
    doc = geo_sweep(factors={"flows.download.tcp.rwnd": [65535, 1000000],
                             "flows.download.tcp.window_scaling": [True, False]})
    with pytest.raises(SweepError) as ei:
        check(from_dict(doc))
    assert ei.value.path == "factors.flows.download.tcp.rwnd"
    assert ei.value.value == "1000000"


def test_bad_base_scenario(tmp_path):
    bad = write(tmp_path, GEO.read_text().replace('rate = "10Mbps"', 'rate = "fast"'), "bad.toml")
    with pytest.raises(SweepError) as ei:
        check(from_dict({"base": str(bad)}))
    assert ei.value.path == "base" and "links.0.rate" in str(ei.value)


def test_levels_are_placed_by_the_set_rules():
    # the engine's own rules (test_overrides.py has the rest)
    tree = {"links": [{"a": "x"}, {"name": "sat"}], "flows": [{"name": "dl", "tcp": {}}]}
    tree = set_levels(tree, {"links.sat.delay": 0.25, "flows.dl.tcp.variant": "sack", "run.stop": "10s"})
    assert tree["links"][1]["delay"] == 0.25
    assert tree["flows"][0]["tcp"]["variant"] == "sack"
    assert tree["run"] == {"stop": "10s"}
    with pytest.raises(satcp.ScenarioError, match="links.0.a is"):
        set_levels(tree, {"links.0.a.x": 1})


def test_factor_level_under_a_value_names_the_factor():
    with pytest.raises(SweepError) as ei:
        check(from_dict(geo_sweep(factors={"links.0.rate.x": [1]})))
    assert ei.value.path == "factors.links.0.rate.x" and ei.value.value == "1"
    assert "links.0.rate is a string" in str(ei.value)


# -- the command line ----------------------------------------------------------

def test_cli_bad_sweep_exits_2_and_creates_no_store(tmp_path):
    p = write(tmp_path, f'base = "{GEO}"\n[factors]\n"{VARIANT}" = ["newreno", "cubicle"]\n')
    r = run_cli("sweep", p)
    assert r.returncode == 2
    assert f"factors.{VARIANT} = \"cubicle\"" in r.stderr
    assert not (tmp_path / "s.duckdb").exists()


def test_cli_dry_run_lists_runs(tmp_path):
    p = write(tmp_path, f'base = "{GEO}"\nreplications = 3\n[factors]\n"{VARIANT}" = ["newreno", "sack"]\n')
    r = run_cli("sweep", p, "--dry-run")
    assert r.returncode == 0, r.stderr
    lines = r.stdout.splitlines()
    assert sum(1 for l in lines if '{"flows.download.tcp.variant":' in l) == 6
    assert "6 runs (2 cells x 3 replications), 0 in" in lines[-1] and lines[-1].endswith("6 to run")
    assert not (tmp_path / "s.duckdb").exists()


def test_example_sweep_file_is_valid():
    sweep = load_sweep(REPO / "sweeps" / "geo_ber.toml")
    check(sweep)
    runs = expand(sweep)
    assert sweep.name == "geo-ber" and len(runs) == 2 * 3 * 4
    assert {r.seed for r in runs} == {1, 2, 3, 4}


@pytest.mark.parametrize("crn", [True, False])
def test_a_cell_resolved_once_gives_each_replication_the_scenario_resolved_alone(crn):
    # expand resolves a cell once and writes each replication's seed into
    # its text: the same JSON, byte for byte, as resolving every run
    from satcp.sweep import canonical_json, resolve, run_seed

    sweep = from_dict(geo_sweep(replications=3, common_random_numbers=crn))
    for r in expand(sweep):
        assert r.seed == run_seed(sweep, r.cell, r.replication)
        assert r.scenario_json == canonical_json(resolve(sweep, r.cell, r.seed))
        assert json.loads(r.scenario_json)["run"]["seed"] == r.seed


def test_a_base_without_run_seed_gets_it_where_the_engine_puts_it(tmp_path):
    from satcp.sweep import _SEED_MARK, canonical_json, resolve

    base = GEO.read_text().replace("seed = 1\n", "")
    assert "seed" not in base.split("[nodes]")[0]
    p = write(tmp_path, base, "base.toml")
    sweep = from_dict({"base": str(p), "replications": 2, "factors": {VARIANT: ["sack"]}})
    runs = expand(sweep)
    assert [r.scenario_json for r in runs] == [canonical_json(resolve(sweep, r.cell, r.seed)) for r in runs]
    # a base holding `"seed": <marker>` elsewhere is resolved seed by seed
    # (written into the text, the marker would be replaced twice)
    tree = tomllib.loads(base)
    tree["extra"] = {"seed": _SEED_MARK}
    sweep2 = from_dict({"base": tree, "replications": 2, "factors": {VARIANT: ["sack"]}})
    runs2 = expand(sweep2)
    assert [r.scenario_json for r in runs2] == [canonical_json(resolve(sweep2, r.cell, r.seed)) for r in runs2]
    assert all(json.loads(r.scenario_json)["extra"]["seed"] == _SEED_MARK for r in runs2)
    assert [json.loads(r.scenario_json)["run"]["seed"] for r in runs2] == [r.seed for r in runs2]
    # ... and its workers parse each run's own text (no template)
    assert all(r.template_json is None for r in runs2) and all(r.template_json for r in runs)


def test_a_replication_run_from_its_cells_template_is_the_run_of_its_own_text():
    # workers parse a cell's template once and give each replication its
    # seed: the same summaries as running each scenario's text (the engine's
    # test checks the parsed scenarios of every scenario file)
    from satcp.worker import run_task

    sweep = from_dict(geo_sweep(replications=3))
    runs = expand(sweep)[:6]
    assert all(r.template_json for r in runs)

    def summary(task):
        out = run_task(task)
        assert out["status"] == "ok", out["error"]
        s = json.loads(out["summary_json"])
        s.pop("wall_s")
        return s, out["rows"]
    for r in runs:
        own = summary({"key": r.key, "scenario_json": r.scenario_json})
        assert summary({"key": r.key, "template_json": r.template_json, "seed": r.seed}) == own
        assert own[0]["seed"] == r.seed
    assert len({json.dumps(summary({"key": r.key, "scenario_json": r.scenario_json})[0]) for r in runs}) > 1
