//! Helpers shared by the integration tests.
#![allow(dead_code)]

use std::path::PathBuf;

use satcp_core::scenario::parse_toml;
use satcp_core::RunOutput;

pub fn repo_root() -> PathBuf {
    PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("../..")
}

/// Run a scenario file from the repository's `scenarios/` with overrides.
pub fn run_file(name: &str, sets: &[&str]) -> RunOutput {
    let text = std::fs::read_to_string(repo_root().join("scenarios").join(name)).unwrap();
    run_text(&text, sets)
}

pub fn run_text(text: &str, sets: &[&str]) -> RunOutput {
    let sets: Vec<String> = sets.iter().map(|s| s.to_string()).collect();
    let scn = parse_toml(text, &sets).unwrap_or_else(|e| panic!("scenario: {e}"));
    satcp_core::run(&scn)
}

/// Rows of a published-numbers CSV in `data/published/` ('#' lines are the
/// source and labels), as maps from column name to text.
pub fn published(file: &str) -> Vec<std::collections::BTreeMap<String, String>> {
    let text = std::fs::read_to_string(repo_root().join("data/published").join(file)).unwrap();
    let mut lines = text.lines().filter(|l| !l.starts_with('#') && !l.trim().is_empty());
    let header: Vec<String> = lines.next().unwrap().split(',').map(str::to_string).collect();
    lines.map(|l| header.iter().cloned().zip(l.split(',').map(str::to_string)).collect()).collect()
}

pub fn rel_err(ours: f64, theirs: f64) -> f64 {
    (ours - theirs).abs() / theirs
}
