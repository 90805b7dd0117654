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

/// A 12 x 12 Walker shell at 1,000 km (55 degrees, +Grid) under
/// `attach`, stations a (35 N, 10 E) and b (45 N, 40 E) and the path a-b
/// traced, to `stop`; no flows.
pub fn leo_shell(attach: &str, stop: &str) -> String {
    format!(
        r#"
[run]
stop = "{stop}"
[[constellations]]
name = "s"
walker = {{ kind = "delta", planes = 12, per_plane = 12, altitude = "1000km", inclination = 55.0, phasing = 1 }}
isl = {{ rate = "100Mbps" }}
gsl = {{ rate = "20Mbps", min_elevation = 20 }}
attach = "{attach}"
[[ground_stations]]
name = "a"
lat = 35.0
lon = 10.0
[[ground_stations]]
name = "b"
lat = 45.0
lon = 40.0
[[paths]]
src = "a"
dst = "b"
"#
    )
}

/// Rows of a published-numbers CSV in `data/published/` ('#' lines are the
/// source and labels), as maps from column name to text.
pub fn published(file: &str) -> Vec<std::collections::BTreeMap<String, String>> {
    let text = std::fs::read_to_string(repo_root().join("data/published").join(file)).unwrap();
    let mut lines = text.lines().filter(|l| !l.starts_with('#') && !l.trim().is_empty());
    let header: Vec<String> = lines.next().unwrap().split(',').map(str::to_string).collect();
    lines.map(|l| header.iter().cloned().zip(l.split(',').map(str::to_string)).collect()).collect()
}

/// The ADaLR thesis' published value (`data/published/adalr_thesis.csv`)
/// in the one row whose columns equal `want`.
#[allow(dead_code)]
pub fn adalr_thesis(table: &str, want: &[(&str, &str)]) -> f64 {
    let rows = published("adalr_thesis.csv");
    let hits: Vec<_> = rows.iter().filter(|r| r["table"] == table && want.iter().all(|(k, v)| r[*k] == *v)).collect();
    assert_eq!(hits.len(), 1, "thesis Table {table} {want:?}: {} rows", hits.len());
    hits[0]["value"].parse().unwrap()
}

pub fn rel_err(ours: f64, theirs: f64) -> f64 {
    (ours - theirs).abs() / theirs
}

/// TRANSAT Table 1's six columns as overrides of `transat_table1.toml`
/// (flow `bulk`): Ref. is the scenario; "SACK" adds SACK alone (the
/// paper's columns add one enhancement each; Limited Transmit is the next
/// column), "Enhanced" is the preset (SACK + IW 4 + DAASS + Limited
/// Transmit; the scenario's explicit IW 1 and Limited Transmit off are
/// overridden, as explicit keys win over a preset).
pub const TRANSAT_COLUMNS: [(&str, &[&str]); 6] = [
    ("ref_tcp", &[]),
    ("ref_iw4", &["flows.bulk.tcp.initial_window=4"]),
    ("ref_daass", &["flows.bulk.tcp.daass=true"]),
    ("sack", &["flows.bulk.tcp.variant=sack", "flows.bulk.tcp.sack=true"]),
    ("sack_limtran", &["flows.bulk.tcp.variant=sack", "flows.bulk.tcp.sack=true", "flows.bulk.tcp.limited_transmit=true"]),
    (
        "enhanced",
        &["flows.bulk.tcp.variant=enhanced", "flows.bulk.tcp.sack=true", "flows.bulk.tcp.initial_window=4", "flows.bulk.tcp.limited_transmit=true"],
    ),
];
/// Two nodes, `a` and `b`, joined by one link, with flows from `a` to `b`:
/// the scenario most integration tests start from, written once.
///
/// ```ignore
/// let text = TwoNodes::new("10Mbps", "300ms").seed(1).stop("300s")
///     .link("queue_ab = { kind = \"droptail\", packets = 500 }")
///     .flow(None, "variant = \"sack\", rwnd = \"64MiB\"", "kind = \"ftp\", size = \"30MB\"")
///     .toml();
/// ```
#[derive(Clone, Debug, Default)]
pub struct TwoNodes {
    run: Vec<String>,
    link: Vec<String>,
    flows: Vec<String>,
    extra: String,
}

impl TwoNodes {
    /// The link's rate and one-way delay, both directions.
    pub fn new(rate: &str, delay: &str) -> Self {
        TwoNodes { link: vec![format!("rate = \"{rate}\""), format!("delay = \"{delay}\"")], ..Default::default() }
    }

    pub fn seed(mut self, seed: u64) -> Self {
        self.run.push(format!("seed = {seed}"));
        self
    }

    pub fn stop(mut self, stop: &str) -> Self {
        self.run.push(format!("stop = \"{stop}\""));
        self
    }

    pub fn sample_interval(mut self, every: &str) -> Self {
        self.run.push(format!("sample_interval = \"{every}\""));
        self
    }

    /// More keys of the link (`name = "hop"`, `errors_ab = { per = 0.01 }`).
    pub fn link(mut self, line: &str) -> Self {
        self.link.push(line.to_string());
        self
    }

    /// A flow from `a` to `b` with these `tcp` and `app` tables' contents
    /// (an empty `tcp` leaves the table out).
    pub fn flow(mut self, name: Option<&str>, tcp: &str, app: &str) -> Self {
        let mut f = String::from("[[flows]]\n");
        if let Some(n) = name {
            f += &format!("name = \"{n}\"\n");
        }
        f += "src = \"a\"\ndst = \"b\"\n";
        if !tcp.is_empty() {
            f += &format!("tcp = {{ {tcp} }}\n");
        }
        f += &format!("app = {{ {app} }}\n");
        self.flows.push(f);
        self
    }

    /// More tables after the flows (`[[agents]]`, `[[captures]]`).
    pub fn then(mut self, toml: &str) -> Self {
        self.extra += toml;
        self
    }

    pub fn toml(&self) -> String {
        let mut s = String::new();
        if !self.run.is_empty() {
            s += &format!("[run]\n{}\n", self.run.join("\n"));
        }
        s += "[nodes]\na = {}\nb = {}\n[[links]]\na = \"a\"\nb = \"b\"\n";
        s += &self.link.join("\n");
        s += "\n";
        for f in &self.flows {
            s += f;
        }
        s + &self.extra
    }
}

/// server --(1 Gb/s, 1 ms)-- router --(the bottleneck)-- client, and one
/// FTP bulk flow `f` from server to client: `run` holds the `[run]` table's
/// lines, `hop` the router -> client link's keys (rate, delay, queue,
/// errors), `tcp` the inside of the flow's `tcp` table.
pub fn access_bottleneck(run: &str, hop: &str, tcp: &str) -> String {
    format!(
        r#"
[run]
{run}
[nodes]
server = {{}}
router = {{}}
client = {{}}
[[links]]
a = "server"
b = "router"
rate = "1Gbps"
delay = "1ms"
[[links]]
a = "router"
b = "client"
{hop}
[[flows]]
name = "f"
src = "server"
dst = "client"
tcp = {{ {tcp} }}
app = {{ kind = "ftp" }}
"#
    )
}
