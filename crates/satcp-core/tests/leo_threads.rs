//! `run.topology_threads = 2` (the next topology step's routes on a second
//! thread, `world/routes_ahead.rs`) gives the same bits as one thread: on
//! every scenario file with a constellation and on the benchmark suite's
//! Starlink shell (shortened to 1 s).

mod common;
use common::*;

fn both_ways(text: &str, sets: &[&str], base: Option<&std::path::Path>, what: &str) {
    let run = |threads: &str| {
        let mut all: Vec<String> = sets.iter().map(|s| s.to_string()).collect();
        all.push(threads.to_string());
        let scn = satcp_core::scenario::parse_toml_in(text, &all, base).unwrap_or_else(|e| panic!("{what}: {e}"));
        let out = satcp_core::run(&scn);
        let mut s = out.summary.clone();
        s.wall_s = 0.0;
        (serde_json::to_string(&s).unwrap(), format!("{:?}", out.path_series))
    };
    let (one, two) = (run("run.topology_threads=1"), run("run.topology_threads=2"));
    assert!(one.0 == two.0, "{what}: summaries differ");
    assert!(one.1 == two.1, "{what}: traced paths differ");
}

#[test]
fn every_constellation_scenario_file_gives_the_same_bits_on_two_threads() {
    let mut files = Vec::new();
    let mut dirs = vec![repo_root().join("scenarios")];
    while let Some(d) = dirs.pop() {
        for e in std::fs::read_dir(d).unwrap() {
            let p = e.unwrap().path();
            if p.is_dir() {
                dirs.push(p);
            } else if p.extension().is_some_and(|x| x == "toml") && std::fs::read_to_string(&p).unwrap().contains("[[constellations]]") {
                files.push(p);
            }
        }
    }
    files.sort();
    assert!(files.len() >= 4, "{files:?}");
    for f in &files {
        let text = std::fs::read_to_string(f).unwrap();
        both_ways(&text, &[], f.parent(), &f.display().to_string());
    }
}

#[test]
fn the_suite_s_starlink_shell_gives_the_same_bits_on_two_threads() {
    let out = std::process::Command::new(env!("CARGO_BIN_EXE_satcp-bench"))
        .args(["--print-scenario", "starlink-1000-flows-10s"])
        .output()
        .unwrap();
    assert!(out.status.success());
    let text = String::from_utf8(out.stdout).unwrap();
    both_ways(&text, &["run.stop=1500ms"], None, "starlink-1000-flows (1.5 s)");
}

#[test]
fn a_traced_shell_under_each_attachment_policy_gives_the_same_bits_on_two_threads() {
    let text = leo_shell("shortest-path", "120s");
    both_ways(&text, &[], None, "leo_shell, shortest-path");
    for attach in ["nearest", "longest-visible", "reassign-15s"] {
        both_ways(&leo_shell(attach, "60s"), &[], None, attach);
    }
}

#[test]
fn a_thread_count_other_than_1_or_2_is_refused_naming_the_key() {
    let text = leo_shell("shortest-path", "1s");
    for bad in ["run.topology_threads=3", "run.topology_threads=0", "run.topology_threads=\"two\""] {
        let e = satcp_core::scenario::parse_toml(&text, &[bad.to_string()]).err().unwrap_or_else(|| panic!("{bad} accepted")).to_string();
        assert!(e.contains("run.topology_threads") && e.contains("1..=2"), "{bad}: {e}");
    }
}
