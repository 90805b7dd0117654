//! Scenario text (TOML, or JSON) -> `--set` overrides -> validated [`Scenario`].
//!
//! Every error names the dotted path of the offending field in the syntax
//! `--set` uses (`links.1.rate_ab`, `flows.download.tcp.variant`; links are
//! addressed by 0-based index, flows by name, or by index when unnamed), the
//! value as written, and what would be accepted.
//!
//! Choices made here:
//! * Fields are read through [`Tbl`] (`scenario/reader.rs`), a view of one
//!   TOML table that knows its dotted path and rejects keys it does not
//!   allow, the first in file order.
//! * Validation is sequential (run, nodes, links in order, flows in order,
//!   then cross-checks); the first error is returned and nothing is clamped.
//! * Link fields come in three spellings: `rate` (both directions), `rate_ab`
//!   and `rate_ba`. Writing `rate` together with `rate_ab` is allowed: the
//!   specific one wins for its direction (the general one is still validated).
//! * `tcp.sack` defaults to true when the variant is "sack" or the recovery is
//!   SACK, so `recovery = "sack"` alone does not trip the sack/recovery check.
//! * Flow and link names must be non-empty, not all digits and free of `.`
//!   and `=`, so that they can be used as `--set` path segments.
//! * JSON is read with key order preserved (node index = order in the file),
//!   and a JSON `null` anywhere is an error naming its path.

use super::model::*;
use super::units;
use super::{apply_override, ScenarioError};
use std::path::Path;
use toml::Value;

mod agents;
mod peps;
mod apps;
mod captures;
mod constellations;
mod flows;
mod json;
mod links;
mod multihop;
mod quic;
mod tcp;

pub use tcp::variants as variant_names;

use agents::parse_agents;
use captures::parse_captures;
use flows::parse_flows;
use links::parse_links;

pub(crate) use super::reader::{array, few, join, lookup, missing, positive, quoted_list, show, type_error, Res, Tbl};

/// Parse TOML text, apply `overrides` (`dotted.path=value`, in order) and
/// validate.
pub fn parse_toml(text: &str, overrides: &[String]) -> Result<Scenario, ScenarioError> {
    parse_toml_in(text, overrides, None)
}

/// [`parse_toml`] for a scenario file in `base_dir`: relative paths in it
/// (error traces) are resolved against that directory.
pub fn parse_toml_in(text: &str, overrides: &[String], base_dir: Option<&Path>) -> Result<Scenario, ScenarioError> {
    let table: toml::Table = toml::from_str(text)
        .map_err(|e| ScenarioError::new("<toml>", "", format!("malformed TOML: {}", e.to_string().trim_end())))?;
    let mut root = Value::Table(table);
    apply_overrides(&mut root, overrides)?;
    from_value_in(root, base_dir)
}

/// Parse JSON text (same schema as the TOML form), apply `overrides` and
/// validate. A JSON `null` is an error naming its path.
pub fn parse_json(text: &str, overrides: &[String]) -> Result<Scenario, ScenarioError> {
    parse_json_in(text, overrides, None)
}

/// [`parse_json`] with relative paths resolved against `base_dir`.
pub fn parse_json_in(text: &str, overrides: &[String], base_dir: Option<&Path>) -> Result<Scenario, ScenarioError> {
    let json: json::Json = serde_json::from_str(text)
        .map_err(|e| ScenarioError::new("<json>", "", format!("malformed JSON: {}", e)))?;
    let mut root = json.into_toml("")?;
    apply_overrides(&mut root, overrides)?;
    from_value_in(root, base_dir)
}

/// The last scenario [`parse_json_reseeded`] parsed, by its template text.
#[derive(Default)]
pub struct ReseedCache(Option<(String, Scenario)>);

impl ReseedCache {
    /// Whether the next replication of `template` will be a copy.
    pub fn holds(&self, template: &str) -> bool {
        self.0.as_ref().is_some_and(|(t, _)| t == template)
    }
}

/// Parse one replication of a sweep's cell: `template` is the cell's
/// scenario as JSON with a placeholder in `run.seed`, `seed` the
/// replication's. A sweep's replications differ only in their seed, and
/// parsing is a tenth of a millisecond beside runs of a few, so the parse
/// of a template is kept in `cache` and the next replication of it only
/// gets its seed: the same `Scenario` as parsing its own text (a test checks
/// every scenario file), except where the parser itself draws on the seed
/// (`[multihop]`'s start jitter), which is parsed anew every time.
pub fn parse_json_reseeded(template: &str, seed: u64, cache: &mut ReseedCache) -> Result<Scenario, ScenarioError> {
    // refused as `run.seed = ...` in the text would be, kept parse or not
    let as_int = i64::try_from(seed).map_err(|_| ScenarioError::new("run.seed", seed.to_string(), "an integer from 0 to 9223372036854775807"))?;
    if let Some((t, scn)) = &cache.0 {
        if t == template {
            let mut scn = scn.clone();
            scn.run.seed = seed;
            return Ok(scn);
        }
    }
    let json: json::Json = serde_json::from_str(template)
        .map_err(|e| ScenarioError::new("<json>", "", format!("malformed JSON: {}", e)))?;
    let mut root = json.into_toml("")?;
    match root.get_mut("run") {
        Some(Value::Table(run)) => {
            run.insert("seed".into(), Value::Integer(as_int));
        }
        _ => return Err(ScenarioError::new("run", "", "a table ([run]) with seed, stop and sample_interval")),
    }
    let seed_free = root.get("multihop").is_none();
    let scn = from_value_in(root, None)?;
    cache.0 = seed_free.then(|| (template.to_string(), scn.clone()));
    Ok(scn)
}

/// Apply `overrides` in order: those of `multihop.*` keys first, then the
/// `[multihop]` expansion, then the rest (which may name what it made).
fn apply_overrides(root: &mut Value, overrides: &[String]) -> Res<()> {
    let (mh, rest): (Vec<&String>, Vec<&String>) = overrides.iter().partition(|s| s.trim_start().starts_with("multihop."));
    for spec in mh {
        apply_override(root, spec)?;
    }
    multihop::expand(root)?;
    for spec in rest {
        apply_override(root, spec)?;
    }
    Ok(())
}

/// Validate a raw scenario tree (as parsed from TOML, JSON or a Python dict).
pub fn from_value(v: Value) -> Result<Scenario, ScenarioError> {
    from_value_in(v, None)
}

/// [`from_value`] with relative file paths resolved against `base_dir`.
pub fn from_value_in(mut v: Value, base_dir: Option<&Path>) -> Result<Scenario, ScenarioError> {
    multihop::expand(&mut v)?;
    let mut root = Tbl::new(String::new(), &v, "a table with [run], [nodes], [[links]] and [[flows]]")?;
    root.only(&["run", "nodes", "links", "flows", "captures", "agents", "peps", "constellations", "ground_stations", "paths"])?;
    let (mut run, leo_keys, end_given) = parse_run(&root)?;
    let moving = root.get("constellations").is_some() || root.get("ground_stations").is_some();
    let mut nodes = parse_nodes(&root, moving)?;
    let stations = constellations::parse_ground_stations(&root, &mut nodes, base_dir)?;
    let n_links = match root.get("links") {
        Some(Value::Array(a)) => a.len(),
        _ => 0,
    };
    let (shells, isl_links, epoch) = constellations::parse_constellations(&root, &leo_keys, &mut nodes, n_links, base_dir)?;
    if nodes.len() < 2 {
        return Err(ScenarioError::new("nodes", "", NODES_EXPECTED));
    }
    let mut links = if moving && root.get("links").is_none() { Vec::new() } else { parse_links(&root, &nodes, base_dir)? };
    links.extend(isl_links);
    let paths = constellations::parse_paths(&root, &nodes)?;
    if !moving && !paths.is_empty() {
        return Err(ScenarioError::new(
            "paths",
            "",
            "[[paths]] trace routes through a constellation: add [[constellations]] and [[ground_stations]] (a fixed network's path does not change)",
        ));
    }
    let leo = moving.then(|| {
        Box::new(LeoCfg { step_ns: leo_keys.step_ns.unwrap_or(100_000_000), threads: leo_keys.threads.unwrap_or(1), epoch, shells, stations, paths })
    });
    // paths are traced to run.stop unless run.end says the flows end it
    if !end_given && run.stop_ns.is_some() && leo.as_ref().is_some_and(|l| !l.paths.is_empty()) {
        run.to_stop = true;
    }
    // a path-only scenario (Hypatia's path analysis): paths traced, no flows
    let path_only = leo.as_ref().is_some_and(|l| !l.paths.is_empty()) && root.get("flows").is_none_or(|f| f.as_array().is_some_and(Vec::is_empty));
    if path_only && run.stop_ns.is_none() {
        return Err(missing("run.stop", "a stop time: a scenario without flows traces its [[paths]] until run.stop"));
    }
    let flows = if path_only { Vec::new() } else { parse_flows(&root, &nodes, &components(nodes.len(), &links, leo.as_deref()))? };
    let captures = parse_captures(&root)?;
    let agents = parse_agents(&root, &nodes, &links, &flows)?;
    let peps = peps::parse_peps(&root, &nodes, &flows)?;
    peps::check_pep_routes(&peps, &flows, &links, &nodes, leo.is_some())?;
    let finite = flows.iter().any(|f| match &f.app {
        AppCfg::Ftp(a) => a.size_bytes.is_some(),
        AppCfg::Http(a) => a.pages.is_some(),
        AppCfg::Cbr(_) | AppCfg::OnOff(_) => false,
    });
    // Only UDP sources, each with a stop: the run ends once they drain.
    let udp_bounded = flows.iter().all(|f| match &f.app {
        AppCfg::Cbr(a) => a.stop_ns.is_some() || a.max_packets.is_some(),
        AppCfg::OnOff(a) => a.stop_ns.is_some(),
        _ => false,
    });
    if run.stop_ns.is_none() && !finite && !udp_bounded {
        return Err(ScenarioError::new(
            "run.stop",
            "",
            "required when every flow is unlimited (set run.stop, an ftp app's size or an http app's pages)",
        ));
    }
    // A link that goes down for good could keep a sender retrying for
    // ever (its timer backs off to max_rto and fires again): every run ends.
    if run.stop_ns.is_none() {
        if let Some((i, k)) = links.iter().enumerate().find_map(|(i, l)| {
            let last = l.changes.iter().rposition(|c| c.up.is_some())?;
            (l.changes[last].up == Some(false)).then_some((i, last))
        }) {
            return Err(ScenarioError::new(
                "run.stop",
                "",
                format!("required when a link goes down and never comes back (links.{i}.changes.{k}): a transfer across it would retry for ever"),
            ));
        }
    }
    check_series_size(&run, flows.iter().filter(|f| matches!(f.app, AppCfg::Ftp(_) | AppCfg::Http(_))).count(), 2 * links.len())?;
    Ok(Scenario { run, nodes, links, flows, captures, agents, peps, leo })
}

/// Time-series rows a run may record: [`MAX_SERIES_ROWS`], about 9 GB of
/// memory. One row per TCP flow and per link direction at every sample.
pub const MAX_SERIES_ROWS: u128 = 100_000_000;

/// The sampling interval against what it would record: a slip of unit
/// (`"167ns"` for 167 ms, the fuzzer's find) would fill memory with rows
/// long before the run ended. Sampling faster than a microsecond (a
/// 1500-byte packet's time at 10 Gb/s) shows nothing a packet-level model
/// changes between samples. A constellation's link directions, known only
/// as the run goes, are not counted.
fn check_series_size(run: &RunCfg, tcp_flows: usize, directions: usize) -> Res<()> {
    let Some(iv) = run.sample_interval_ns else { return Ok(()) };
    let given = format!("{} s", iv as f64 / 1e9);
    if iv < 1_000 {
        return Err(ScenarioError::new("run.sample_interval", given, "at least 1us (100ms is the usual; a time series of TCP and queue state)"));
    }
    let Some(stop) = run.stop_ns else { return Ok(()) };
    let per_sample = (tcp_flows + directions).max(1) as u128;
    let rows = (stop / iv) as u128 * per_sample;
    if rows > MAX_SERIES_ROWS {
        let least = (stop as u128 * per_sample).div_ceil(MAX_SERIES_ROWS);
        return Err(ScenarioError::new(
            "run.sample_interval",
            given,
            format!(
                "an interval of at least {} s here: run.stop / sample_interval x ({tcp_flows} TCP flows + {directions} link directions) would be {rows} rows of time series, more than {MAX_SERIES_ROWS} (about 9 GB)",
                least as f64 / 1e9
            ),
        ));
    }
    Ok(())
}

/// Which nodes may reach which: `out[a] == out[b]` when a path may join
/// them (links both ways; a constellation's satellites and the ground
/// stations that may see them count as joined).
fn components(n: usize, links: &[LinkCfg], leo: Option<&LeoCfg>) -> Vec<usize> {
    fn find(p: &mut [usize], mut x: usize) -> usize {
        while p[x] != x {
            p[x] = p[p[x]];
            x = p[x];
        }
        x
    }
    let mut p: Vec<usize> = (0..n).collect();
    let union = |p: &mut Vec<usize>, a: usize, b: usize| {
        let (ra, rb) = (find(p, a), find(p, b));
        p[ra.max(rb)] = ra.min(rb);
    };
    for l in links {
        union(&mut p, l.a, l.b);
    }
    if let Some(leo) = leo {
        for sh in &leo.shells {
            for k in 0..sh.satellites as usize {
                union(&mut p, sh.first_node, sh.first_node + k);
            }
            for st in &leo.stations {
                union(&mut p, sh.first_node, st.node);
            }
        }
    }
    (0..n).map(|x| find(&mut p, x)).collect()
}

/// Link names as written (links are validated before anything refers to
/// them).
fn link_names<'a>(root: &Tbl<'a>) -> Vec<Option<&'a str>> {
    match root.get("links") {
        Some(Value::Array(ls)) => ls.iter().map(|l| l.get("name").and_then(Value::as_str)).collect(),
        _ => Vec::new(),
    }
}

/// What a reference to a link may be.
pub(crate) fn links_expected(root: &Tbl) -> String {
    let names = link_names(root);
    let n = names.len();
    let named: Vec<String> = names.iter().flatten().map(|s| format!("\"{}\"", s)).collect();
    if named.is_empty() {
        format!("a link index 0..={}", n - 1)
    } else {
        format!("a link index 0..={} or a link name: {}", n - 1, named.join(", "))
    }
}

/// The link `t[key]` names, by index or by name (None if absent).
pub(crate) fn link_ref(root: &Tbl, t: &Tbl, key: &str) -> Res<Option<usize>> {
    let names = link_names(root);
    let n = names.len();
    Ok(Some(match t.get(key) {
        None => return Ok(None),
        Some(Value::Integer(k)) if (0..n as i64).contains(k) => *k as usize,
        Some(Value::String(s)) => {
            names.iter().position(|l| *l == Some(s.as_str())).ok_or_else(|| t.bad(key, links_expected(root)))?
        }
        Some(Value::Integer(_)) => return Err(t.bad(key, links_expected(root))),
        Some(other) => return Err(type_error(&t.at(key), other, &links_expected(root))),
    }))
}

/// A name usable as a `--set` path segment.
pub(crate) fn check_name(t: &Tbl, key: &str, name: &str) -> Res<()> {
    let ok = !name.is_empty()
        && !name.bytes().all(|b| b.is_ascii_digit())
        && !name.contains('.')
        && !name.contains('=');
    if ok {
        Ok(())
    } else {
        Err(t.bad(key, "a non-empty name that is not all digits and contains no '.' or '='"))
    }
}

// ---------------------------------------------------------------------------
// [run]

/// `[run]`, and whether it gave `end` (left out, a scenario that traces
/// `[[paths]]` runs on to its stop: the parser decides once it has read
/// them).
fn parse_run(root: &Tbl) -> Res<(RunCfg, constellations::LeoRunKeys, bool)> {
    let Some(mut t) = root.table("run", "a table ([run]) with seed, stop and sample_interval")? else {
        let keys = constellations::LeoRunKeys { step_ns: None, epoch: None, threads: None };
        return Ok((RunCfg { seed: 1, stop_ns: None, sample_interval_ns: None, to_stop: false }, keys, false));
    };
    t.only(&["seed", "stop", "sample_interval", "topology_step", "topology_threads", "epoch", "end"])?;
    let run = RunCfg {
        seed: t.int("seed", 0, i64::MAX)?.map_or(1, |s| s as u64),
        stop_ns: t.duration_pos("stop")?,
        sample_interval_ns: t.duration_pos("sample_interval")?,
        to_stop: t.choice("end", &["flows", "stop"])? == Some("stop"),
    };
    let end_given = t.get("end").is_some();
    if run.to_stop && run.stop_ns.is_none() {
        return Err(missing("run.stop", "a stop time: run.end = \"stop\" runs on to it after the flows are done"));
    }
    let step_ns = t.duration_pos("topology_step")?;
    if step_ns.is_some_and(|s| s < 1_000_000) {
        return Err(t.bad("topology_step", "a step of at least 1ms (100ms is the usual)"));
    }
    // 2: the next topology step's routes on a second thread
    let threads = t.int("topology_threads", 1, 2)?.map(|n| n as u32);
    Ok((run, constellations::LeoRunKeys { step_ns, epoch: constellations::parse_epoch(&t)?, threads }, end_given))
}

// ---------------------------------------------------------------------------
// [nodes]

const NODES_EXPECTED: &str = "a table of nodes ([nodes] with lines such as server = {}) with at least 2 nodes";

/// `[nodes]`; optional (and may hold fewer than 2) when ground stations
/// or constellations add nodes (`moving`).
fn parse_nodes(root: &Tbl, moving: bool) -> Res<Vec<NodeCfg>> {
    let v = match root.get("nodes") {
        Some(v) => v,
        None if moving => return Ok(Vec::new()),
        None => return Err(missing("nodes", NODES_EXPECTED)),
    };
    let t = Tbl::new("nodes".into(), v, NODES_EXPECTED)?;
    let mut nodes = Vec::new();
    for (name, nv) in t.map {
        let mut n = Tbl::new(t.at(name), nv, "an empty inline table: a node is written `name = {}`")?;
        n.only(&[])?;
        if name.is_empty() {
            return Err(ScenarioError::new("nodes", show(v), "node names must be non-empty"));
        }
        nodes.push(NodeCfg { name: name.clone() });
    }
    if nodes.len() < 2 && !moving {
        return Err(ScenarioError::new("nodes", show(v), NODES_EXPECTED));
    }
    Ok(nodes)
}

/// The index of the node named by `t[key]` (required).
pub(crate) fn node_ref(t: &Tbl, key: &str, nodes: &[NodeCfg]) -> Res<usize> {
    let expected = || {
        let names: Vec<&str> = nodes.iter().map(|n| n.name.as_str()).collect();
        format!("the name of a node: {}", few(&names))
    };
    let Some(name) = t.str(key)? else {
        return Err(missing(&t.at(key), &expected()));
    };
    nodes.iter().position(|n| n.name == name).ok_or_else(|| t.bad(key, expected()))
}


