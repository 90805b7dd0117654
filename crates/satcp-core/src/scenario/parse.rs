//! Scenario text (TOML, or JSON) -> `--set` overrides -> validated [`Scenario`].
//!
//! Every error names the dotted path of the offending field in the syntax
//! `--set` uses (`links.1.rate_ab`, `flows.download.tcp.variant`; links are
//! addressed by 0-based index, flows by name, or by index when unnamed), the
//! value as written, and what would be accepted.
//!
//! Choices made here:
//! * Fields are read through [`Tbl`], a view of one TOML table that knows its
//!   dotted path. A table's keys are checked against the allowed list when it
//!   is opened (in file order), so a misspelt key is reported as an unknown
//!   key rather than as a confusing "missing" error for the key it was meant
//!   to be.
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

type Res<T> = Result<T, ScenarioError>;

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
    for spec in overrides {
        apply_override(&mut root, spec)?;
    }
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
    for spec in overrides {
        apply_override(&mut root, spec)?;
    }
    from_value_in(root, base_dir)
}

/// Validate a raw scenario tree (as parsed from TOML, JSON or a Python dict).
pub fn from_value(v: Value) -> Result<Scenario, ScenarioError> {
    from_value_in(v, None)
}

/// [`from_value`] with relative file paths resolved against `base_dir`.
pub fn from_value_in(v: Value, base_dir: Option<&Path>) -> Result<Scenario, ScenarioError> {
    let mut root = Tbl::new(String::new(), &v, "a table with [run], [nodes], [[links]] and [[flows]]")?;
    root.only(&["run", "nodes", "links", "flows", "captures"])?;
    let run = parse_run(&root)?;
    let nodes = parse_nodes(&root)?;
    let links = parse_links(&root, &nodes, base_dir)?;
    let flows = parse_flows(&root, &nodes, &links)?;
    let captures = parse_captures(&root)?;
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
    Ok(Scenario { run, nodes, links, flows, captures })
}

// ---------------------------------------------------------------------------
// The table walker.

/// `path.key`, or `key` at the root.
pub(crate) fn join(path: &str, key: &str) -> String {
    if path.is_empty() {
        key.to_string()
    } else {
        format!("{}.{}", path, key)
    }
}

use units::show;

fn type_error(path: &str, v: &Value, expected: &str) -> ScenarioError {
    ScenarioError::new(path, show(v), format!("expected {} (got {})", expected, units::a_type(v)))
}

fn missing(path: &str, expected: &str) -> ScenarioError {
    ScenarioError::new(path, "", format!("missing; expected {}", expected))
}

/// `> 0` variants of the unit descriptions.
fn positive(allowed: &str) -> String {
    allowed.replacen(">= 0", "> 0", 1)
}

fn quoted_list(options: &[&str]) -> String {
    let q: Vec<String> = options.iter().map(|o| format!("\"{}\"", o)).collect();
    q.join(", ")
}

/// One TOML table and its dotted path. Keys not in the allowed list (set
/// with [`Tbl::only`]) are "unknown key" errors.
struct Tbl<'a> {
    path: String,
    map: &'a toml::Table,
    allowed: &'static [&'static str],
}

impl<'a> Tbl<'a> {
    /// `v` must be a table; `what` describes the expected table in errors.
    fn new(path: String, v: &'a Value, what: &str) -> Res<Self> {
        match v {
            Value::Table(map) => Ok(Tbl { path, map, allowed: &[] }),
            other => Err(type_error(&path, other, what)),
        }
    }

    /// Declare the allowed keys and reject any other key (first in file
    /// order).
    fn only(&mut self, allowed: &'static [&'static str]) -> Res<()> {
        self.allowed = allowed;
        for (k, v) in self.map {
            if !allowed.contains(&k.as_str()) {
                let list = if allowed.is_empty() { "none".to_string() } else { allowed.join(", ") };
                return Err(ScenarioError::new(
                    self.at(k),
                    show(v),
                    format!("unknown key {:?}; allowed keys here: {}", k, list),
                ));
            }
        }
        Ok(())
    }

    fn at(&self, key: &str) -> String {
        join(&self.path, key)
    }

    fn get(&self, key: &str) -> Option<&'a Value> {
        debug_assert!(self.allowed.contains(&key), "{} read without being allowed", key);
        self.map.get(key)
    }

    /// Error for `key` whose value is out of range.
    fn bad(&self, key: &str, allowed: impl Into<String>) -> ScenarioError {
        let value = self.map.get(key).map(show).unwrap_or_default();
        ScenarioError::new(self.at(key), value, allowed)
    }

    fn require<T>(&self, key: &str, v: Option<T>, expected: &str) -> Res<T> {
        v.ok_or_else(|| missing(&self.at(key), expected))
    }

    fn str(&self, key: &str) -> Res<Option<&'a str>> {
        match self.get(key) {
            None => Ok(None),
            Some(Value::String(s)) => Ok(Some(s)),
            Some(v) => Err(type_error(&self.at(key), v, "a string")),
        }
    }

    fn bool(&self, key: &str) -> Res<Option<bool>> {
        match self.get(key) {
            None => Ok(None),
            Some(Value::Boolean(b)) => Ok(Some(*b)),
            Some(v) => Err(type_error(&self.at(key), v, "a boolean (true or false)")),
        }
    }

    /// An integer in `lo..=hi`.
    fn int(&self, key: &str, lo: i64, hi: i64) -> Res<Option<i64>> {
        let expected = if hi == i64::MAX {
            format!("an integer >= {}", lo)
        } else {
            format!("an integer in {}..={}", lo, hi)
        };
        match self.get(key) {
            None => Ok(None),
            Some(Value::Integer(i)) if (lo..=hi).contains(i) => Ok(Some(*i)),
            Some(Value::Integer(_)) => Err(self.bad(key, expected)),
            Some(v) => Err(type_error(&self.at(key), v, &expected)),
        }
    }

    fn u32_in(&self, key: &str, lo: u32, hi: u32) -> Res<Option<u32>> {
        Ok(self.int(key, lo.into(), hi.into())?.map(|i| i as u32))
    }

    /// One of `options`.
    fn choice(&self, key: &str, options: &[&str]) -> Res<Option<&'a str>> {
        let expected = format!("one of {}", quoted_list(options));
        match self.get(key) {
            None => Ok(None),
            Some(Value::String(s)) if options.contains(&s.as_str()) => Ok(Some(s)),
            Some(Value::String(_)) => Err(self.bad(key, expected)),
            Some(v) => Err(type_error(&self.at(key), v, &expected)),
        }
    }

    /// A probability in [0, 1).
    fn prob(&self, key: &str) -> Res<Option<f64>> {
        let expected = "a number in [0, 1), e.g. 1e-7";
        let x = match self.get(key) {
            None => return Ok(None),
            Some(Value::Float(x)) => *x,
            Some(Value::Integer(i)) => *i as f64,
            Some(v) => return Err(type_error(&self.at(key), v, expected)),
        };
        if x.is_finite() && (0.0..1.0).contains(&x) {
            Ok(Some(x))
        } else {
            Err(self.bad(key, expected))
        }
    }

    /// A finite number (integer or float) accepted by `ok`.
    fn number(&self, key: &str, ok: impl Fn(f64) -> bool, expected: &str) -> Res<Option<f64>> {
        let x = match self.get(key) {
            None => return Ok(None),
            Some(Value::Float(x)) => *x,
            Some(Value::Integer(i)) => *i as f64,
            Some(v) => return Err(type_error(&self.at(key), v, expected)),
        };
        if x.is_finite() && ok(x) {
            Ok(Some(x))
        } else {
            Err(self.bad(key, expected))
        }
    }

    /// A probability in [0, 1] (a channel state may lose every packet).
    fn prob_closed(&self, key: &str) -> Res<Option<f64>> {
        self.number(key, |x| (0.0..=1.0).contains(&x), "a number in [0, 1]")
    }

    fn rate(&self, key: &str) -> Res<Option<u64>> {
        self.get(key).map(|v| units::rate_bps(&self.at(key), v)).transpose()
    }

    fn duration(&self, key: &str) -> Res<Option<u64>> {
        self.get(key).map(|v| units::duration_ns(&self.at(key), v)).transpose()
    }

    /// A duration that must be > 0.
    fn duration_pos(&self, key: &str) -> Res<Option<u64>> {
        match self.duration(key)? {
            Some(0) => Err(self.bad(key, positive(units::DURATION_ALLOWED))),
            d => Ok(d),
        }
    }

    fn size(&self, key: &str) -> Res<Option<u64>> {
        self.get(key).map(|v| units::size_bytes(&self.at(key), v)).transpose()
    }

    /// A size that must be > 0.
    fn size_pos(&self, key: &str) -> Res<Option<u64>> {
        match self.size(key)? {
            Some(0) => Err(self.bad(key, positive(units::SIZE_ALLOWED))),
            s => Ok(s),
        }
    }

    /// A sub-table (None if absent).
    fn table(&self, key: &str, what: &str) -> Res<Option<Tbl<'a>>> {
        self.get(key).map(|v| Tbl::new(self.at(key), v, what)).transpose()
    }
}

/// A name usable as a `--set` path segment.
fn check_name(t: &Tbl, key: &str, name: &str) -> Res<()> {
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

fn parse_run(root: &Tbl) -> Res<RunCfg> {
    let Some(mut t) = root.table("run", "a table ([run]) with seed, stop and sample_interval")? else {
        return Ok(RunCfg { seed: 1, stop_ns: None, sample_interval_ns: None });
    };
    t.only(&["seed", "stop", "sample_interval"])?;
    Ok(RunCfg {
        seed: t.int("seed", 0, i64::MAX)?.map_or(1, |s| s as u64),
        stop_ns: t.duration_pos("stop")?,
        sample_interval_ns: t.duration_pos("sample_interval")?,
    })
}

// ---------------------------------------------------------------------------
// [nodes]

const NODES_EXPECTED: &str = "a table of nodes ([nodes] with lines such as server = {}) with at least 2 nodes";

fn parse_nodes(root: &Tbl) -> Res<Vec<NodeCfg>> {
    let v = root.get("nodes").ok_or_else(|| missing("nodes", NODES_EXPECTED))?;
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
    if nodes.len() < 2 {
        return Err(ScenarioError::new("nodes", show(v), NODES_EXPECTED));
    }
    Ok(nodes)
}

/// The index of the node named by `t[key]` (required).
fn node_ref(t: &Tbl, key: &str, nodes: &[NodeCfg]) -> Res<usize> {
    let names: Vec<&str> = nodes.iter().map(|n| n.name.as_str()).collect();
    let expected = format!("the name of a node: {}", quoted_list(&names));
    let name = t.require(key, t.str(key)?, &expected)?;
    names.iter().position(|n| *n == name).ok_or_else(|| t.bad(key, expected))
}

// ---------------------------------------------------------------------------
// [[links]]

const LINK_KEYS: &[&str] = &[
    "name", "a", "b", "rate", "rate_ab", "rate_ba", "delay", "delay_ab", "delay_ba", "queue", "queue_ab",
    "queue_ba", "errors", "errors_ab", "errors_ba", "overhead", "overhead_ab", "overhead_ba", "reorder",
    "reorder_ab", "reorder_ba",
];

fn array<'a>(root: &Tbl<'a>, key: &str, what: &str) -> Res<&'a Vec<Value>> {
    match root.get(key) {
        None => Err(missing(key, what)),
        Some(Value::Array(a)) if a.is_empty() => Err(ScenarioError::new(key, "[]", what)),
        Some(Value::Array(a)) => Ok(a),
        Some(v) => Err(type_error(key, v, what)),
    }
}

/// `base` (both directions), `base_ab` and `base_ba`: the value for each
/// direction, the specific key winning. All present keys are validated.
fn per_direction<T: Clone>(
    t: &Tbl,
    base: &str,
    read: impl Fn(&Tbl, &str) -> Res<Option<T>>,
) -> Res<[(Option<T>, String); 2]> {
    let both = read(t, base)?;
    let mut out = Vec::with_capacity(2);
    for dir in ["ab", "ba"] {
        let key = format!("{}_{}", base, dir);
        out.push((read(t, &key)?.or_else(|| both.clone()), key));
    }
    let ba = out.pop().unwrap();
    let ab = out.pop().unwrap();
    Ok([ab, ba])
}

/// Like [`per_direction`], but every direction must end up with a value.
fn per_direction_required<T: Copy>(
    t: &Tbl,
    base: &str,
    expected: &str,
    read: impl Fn(&Tbl, &str) -> Res<Option<T>>,
) -> Res<[T; 2]> {
    let [ab, ba] = per_direction(t, base, read)?;
    let need = |(v, key): (Option<T>, String)| {
        v.ok_or_else(|| {
            missing(&t.at(&key), &format!("{} (set {} for both directions or {} for this one)", expected, base, key))
        })
    };
    Ok([need(ab)?, need(ba)?])
}

fn parse_links(root: &Tbl, nodes: &[NodeCfg], base_dir: Option<&Path>) -> Res<Vec<LinkCfg>> {
    let arr = array(root, "links", "an array of at least one link table ([[links]])")?;
    let mut links = Vec::new();
    let mut names: Vec<&str> = Vec::new();
    for (i, lv) in arr.iter().enumerate() {
        let mut t = Tbl::new(format!("links.{}", i), lv, "a link table ([[links]])")?;
        t.only(LINK_KEYS)?;
        if let Some(name) = t.str("name")? {
            check_name(&t, "name", name)?;
            if names.contains(&name) {
                return Err(t.bad("name", "a name not used by another link"));
            }
            names.push(name);
        }
        let a = node_ref(&t, "a", nodes)?;
        let b = node_ref(&t, "b", nodes)?;
        if a == b {
            return Err(t.bad("b", format!("a node other than a (\"{}\"): a link joins two different nodes", nodes[a].name)));
        }
        let rate = per_direction_required(&t, "rate", units::RATE_ALLOWED, |t, k| t.rate(k))?;
        let delay = per_direction_required(&t, "delay", units::DURATION_ALLOWED, |t, k| t.duration(k))?;
        let queue = per_direction(&t, "queue", parse_queue)?;
        let errors = per_direction(&t, "errors", |t, k| parse_errors(t, k, base_dir))?;
        let overhead = per_direction(&t, "overhead", |t, k| t.u32_in(k, 0, u32::MAX))?;
        let reorder = per_direction(&t, "reorder", parse_reorder)?;
        let dir = |d: usize| LinkDirCfg {
            rate_bps: rate[d],
            delay_ns: delay[d],
            queue: queue[d].0.unwrap_or(QueueCfg::DropTail { limit: QueueLimit::Unlimited }),
            errors: errors[d].0.clone().unwrap_or(ErrorCfg::None),
            overhead_bytes: overhead[d].0.unwrap_or(0),
            reorder: reorder[d].0,
        };
        for (d, (q, key)) in queue.iter().enumerate() {
            if let Some(QueueCfg::Red(r)) = q {
                check_red(&t, key, r, rate[d], delay[d])?;
            }
        }
        links.push(LinkCfg { a, b, dirs: [dir(0), dir(1)] });
    }
    Ok(links)
}

const QUEUE_EXPECTED: &str =
    "an inline table: { kind = \"droptail\", packets = N } or { kind = \"droptail\", bytes = \"64KB\" } or { kind = \"droptail\" } (unlimited) or { kind = \"red\", packets = N, ... }";

const RED_KEYS: &[&str] = &[
    "kind", "packets", "min_th", "max_th", "max_p", "w_q", "gentle", "wait", "mean_pktsize", "byte_mode",
    "target_delay",
];

fn parse_queue(link: &Tbl, key: &str) -> Res<Option<QueueCfg>> {
    let Some(mut t) = link.table(key, QUEUE_EXPECTED)? else { return Ok(None) };
    t.allowed = &["kind"];
    if t.choice("kind", &["droptail", "red"])? == Some("red") {
        t.only(RED_KEYS)?;
        return Ok(Some(QueueCfg::Red(parse_red(&t)?)));
    }
    t.only(&["kind", "packets", "bytes"])?;
    let packets = t.u32_in("packets", 1, u32::MAX)?;
    let bytes = t.size_pos("bytes")?;
    let limit = match (packets, bytes) {
        (Some(_), Some(_)) => {
            return Err(link.bad(key, "a queue limit in packets or in bytes, not both"));
        }
        (Some(p), None) => QueueLimit::Packets(p),
        (None, Some(b)) => QueueLimit::Bytes(b),
        (None, None) => QueueLimit::Unlimited,
    };
    Ok(Some(QueueCfg::DropTail { limit }))
}

const ERRORS_EXPECTED: &str =
    "an inline table: { per = x } or { ber = x } or { ber = x, bits = N }, with x in [0, 1), or { model = \"dsn_burst\" | \"gilbert_elliott\" | \"trace\", ... }";

fn parse_errors(link: &Tbl, key: &str, base_dir: Option<&Path>) -> Res<Option<ErrorCfg>> {
    let Some(mut t) = link.table(key, ERRORS_EXPECTED)? else { return Ok(None) };
    if t.map.contains_key("model") {
        t.allowed = &["model"];
        let model = t.choice("model", &["dsn_burst", "gilbert_elliott", "trace"])?;
        return Ok(Some(match model {
            Some("dsn_burst") => {
                t.only(DSN_KEYS)?;
                ErrorCfg::DsnBurst(parse_dsn_burst(&t)?)
            }
            Some("gilbert_elliott") => {
                t.only(GE_KEYS)?;
                ErrorCfg::GilbertElliott(parse_gilbert_elliott(&t)?)
            }
            _ => {
                t.only(&["model", "file", "clock"])?;
                ErrorCfg::Trace(parse_error_trace(&t, base_dir)?)
            }
        }));
    }
    t.only(&["per", "ber", "bits"])?;
    let per = t.prob("per")?;
    let ber = t.prob("ber")?;
    let bits = t.u32_in("bits", 1, u32::MAX)?;
    match (per, ber, bits) {
        (Some(_), Some(_), _) => Err(link.bad(key, format!("either per or ber, not both: {}", ERRORS_EXPECTED))),
        (Some(_), None, Some(_)) => Err(t.bad("bits", "bits only goes with ber (a fixed number of bits per packet)")),
        (Some(p), None, None) => Ok(Some(ErrorCfg::Per(p))),
        (None, Some(b), fixed_bits) => Ok(Some(ErrorCfg::Ber { ber: b, fixed_bits })),
        (None, None, _) => Err(link.bad(key, ERRORS_EXPECTED)),
    }
}

fn parse_red(t: &Tbl) -> Res<RedCfg> {
    use crate::net::red::{DEFAULT_MAX_P, DEFAULT_MEAN_PKTSIZE, DEFAULT_TARGET_DELAY_NS};
    let th = |k: &str| t.number(k, |x| x > 0.0, "a number of packets > 0 (leave out for ns-2's automatic setting)");
    Ok(RedCfg {
        limit_packets: t.u32_in("packets", 1, u32::MAX)?,
        min_th: th("min_th")?,
        max_th: th("max_th")?,
        max_p: t.number("max_p", |x| x > 0.0 && x <= 1.0, "a number in (0, 1]")?.unwrap_or(DEFAULT_MAX_P),
        w_q: t.number("w_q", |x| x > 0.0 && x <= 1.0, "a number in (0, 1] (leave out for ns-2's automatic setting)")?,
        gentle: t.bool("gentle")?.unwrap_or(true),
        wait: t.bool("wait")?.unwrap_or(true),
        mean_pktsize: t.u32_in("mean_pktsize", 1, u32::MAX)?.unwrap_or(DEFAULT_MEAN_PKTSIZE),
        byte_mode: t.bool("byte_mode")?.unwrap_or(false),
        target_delay_ns: t.duration_pos("target_delay")?.unwrap_or(DEFAULT_TARGET_DELAY_NS),
    })
}

/// min_th < max_th once the automatic values are worked out for this
/// direction's rate and delay.
fn check_red(link: &Tbl, key: &str, r: &RedCfg, rate: u64, delay: u64) -> Res<()> {
    let p = crate::net::red::RedParams::resolve(r, rate, delay);
    if p.min_th < p.max_th {
        return Ok(());
    }
    let base = key.trim_end_matches("_ab").trim_end_matches("_ba");
    let written = if link.map.contains_key(key) { key } else { base };
    let which = if r.max_th.is_some() { "max_th" } else { "min_th" };
    Err(ScenarioError::new(
        format!("{}.{}", link.at(written), which),
        format!("{}", if which == "max_th" { p.max_th } else { p.min_th }),
        format!("min_th < max_th (here min_th = {}, max_th = {}, after ns-2's automatic settings)", p.min_th, p.max_th),
    ))
}

const DSN_KEYS: &[&str] = &[
    "model", "burst_mean", "burst_min", "burst_max", "gap_mean", "gap_min", "gap_max", "bounding", "gap_from",
    "per_burst", "per_good", "clock", "burst_delay", "burst_delay_order",
];

fn parse_clock(t: &Tbl) -> Res<ErrorClock> {
    Ok(match t.choice("clock", &["tx_start", "arrival"])? {
        Some("arrival") => ErrorClock::Arrival,
        _ => ErrorClock::TxStart,
    })
}

/// `<name>_mean`, `<name>_min`, `<name>_max` with defaults (ns).
fn bounded_exp(t: &Tbl, name: &str, def: (u64, u64, u64), bounding: Bounding) -> Res<BoundedExp> {
    let k = |s: &str| format!("{}_{}", name, s);
    let mean_ns = t.duration_pos(&k("mean"))?.unwrap_or(def.0);
    let min_ns = t.duration(&k("min"))?.unwrap_or(def.1);
    let max_ns = t.duration_pos(&k("max"))?.unwrap_or(def.2);
    if min_ns > max_ns {
        let key = if t.map.contains_key(&k("max")) { k("max") } else { k("min") };
        return Err(t.bad(&key, format!("{} <= {} ({} ns vs {} ns)", k("min"), k("max"), min_ns, max_ns)));
    }
    Ok(BoundedExp { mean_ns, min_ns, max_ns, bounding })
}

fn parse_dsn_burst(t: &Tbl) -> Res<DsnBurstCfg> {
    let bounding = match t.choice("bounding", &["truncate", "clamp"])? {
        Some("clamp") => Bounding::Clamp,
        _ => Bounding::Truncate,
    };
    let burst = bounded_exp(t, "burst", (300_000_000, 100_000_000, 500_000_000), bounding)?;
    let gap = bounded_exp(t, "gap", (5_500_000_000, 1_000_000_000, 10_000_000_000), bounding)?;
    let gap_from = match t.choice("gap_from", &["start", "end"])? {
        Some("end") => GapFrom::End,
        _ => GapFrom::Start,
    };
    if gap_from == GapFrom::Start && gap.min_ns < burst.max_ns {
        return Err(t.bad(
            "gap_min",
            format!(
                "a duration >= burst_max ({} ns) when gaps run start to start (bursts would overlap), or set gap_from = \"end\"",
                burst.max_ns
            ),
        ));
    }
    if gap.max_ns == 0 {
        return Err(t.bad("gap_max", "a duration > 0"));
    }
    let burst_delay_order = match t.choice("burst_delay_order", &["in_order", "overtake"])? {
        Some("overtake") => DelayOrder::Overtake,
        _ => DelayOrder::InOrder,
    };
    Ok(DsnBurstCfg {
        burst,
        gap,
        gap_from,
        per_burst: t.prob_closed("per_burst")?.unwrap_or(1.0),
        per_good: t.prob_closed("per_good")?.unwrap_or(0.0),
        clock: parse_clock(t)?,
        burst_delay_ns: t.duration("burst_delay")?.unwrap_or(0),
        burst_delay_order,
    })
}

const GE_KEYS: &[&str] =
    &["model", "p_gb", "p_bg", "mean_good", "mean_bad", "per_good", "per_bad", "initial", "clock"];

fn parse_gilbert_elliott(t: &Tbl) -> Res<GilbertElliottCfg> {
    let p = |k: &str| t.number(k, |x| x > 0.0 && x <= 1.0, "a transition probability in (0, 1]");
    let (p_gb, p_bg) = (p("p_gb")?, p("p_bg")?);
    let (mg, mb) = (t.duration_pos("mean_good")?, t.duration_pos("mean_bad")?);
    const BOTH: &str = "either p_gb and p_bg (per-packet transitions) or mean_good and mean_bad (time-driven), not both";
    let transitions = match (p_gb, p_bg, mg, mb) {
        (Some(p_gb), Some(p_bg), None, None) => GeTransitions::PerPacket { p_gb, p_bg },
        (None, None, Some(mean_good_ns), Some(mean_bad_ns)) => GeTransitions::Time { mean_good_ns, mean_bad_ns },
        (Some(_), Some(_), _, _) => return Err(t.bad(if mg.is_some() { "mean_good" } else { "mean_bad" }, BOTH)),
        _ => {
            let missing_key = [("p_gb", p_gb.is_none() && p_bg.is_some()), ("p_bg", p_bg.is_none() && p_gb.is_some()),
                ("mean_good", mg.is_none() && mb.is_some()), ("mean_bad", mb.is_none() && mg.is_some())]
                .iter()
                .find(|(_, m)| *m)
                .map_or("p_gb", |(k, _)| *k);
            return Err(missing(&t.at(missing_key), BOTH));
        }
    };
    let initial = match t.choice("initial", &["good", "bad", "stationary"])? {
        Some("bad") => GeInitial::Bad,
        Some("stationary") => GeInitial::Stationary,
        _ => GeInitial::Good,
    };
    Ok(GilbertElliottCfg {
        transitions,
        per_good: t.prob_closed("per_good")?.unwrap_or(0.0),
        per_bad: t.prob_closed("per_bad")?.unwrap_or(1.0),
        initial,
        clock: parse_clock(t)?,
    })
}

fn parse_error_trace(t: &Tbl, base_dir: Option<&Path>) -> Res<ErrorTraceCfg> {
    const FILE: &str = "a path to a CSV file of error intervals start,end[,per] in seconds";
    let file = t.require("file", t.str("file")?, FILE)?;
    let path = Path::new(file);
    let full = match base_dir {
        Some(b) if path.is_relative() => b.join(path),
        _ => path.to_path_buf(),
    };
    let text = std::fs::read_to_string(&full)
        .map_err(|e| t.bad("file", format!("{} (cannot read {}: {})", FILE, full.display(), e)))?;
    let intervals = crate::net::error_trace::parse_intervals(&text).map_err(|e| t.bad("file", format!("{}: {}", full.display(), e)))?;
    Ok(ErrorTraceCfg { file: file.to_string(), intervals: intervals.into(), clock: parse_clock(t)? })
}

const REORDER_EXPECTED: &str = "an inline table { probability = p, extra_delay = \"20ms\" } with p in (0, 1]";

fn parse_reorder(link: &Tbl, key: &str) -> Res<Option<ReorderCfg>> {
    let Some(mut t) = link.table(key, REORDER_EXPECTED)? else { return Ok(None) };
    t.only(&["probability", "extra_delay"])?;
    let probability = t.number("probability", |x| x > 0.0 && x <= 1.0, "a number in (0, 1]")?;
    let extra = t.duration_pos("extra_delay")?;
    Ok(Some(ReorderCfg {
        probability: t.require("probability", probability, REORDER_EXPECTED)?,
        extra_delay_ns: t.require("extra_delay", extra, REORDER_EXPECTED)?,
    }))
}

// ---------------------------------------------------------------------------
// [[flows]]

fn parse_flows(root: &Tbl, nodes: &[NodeCfg], links: &[LinkCfg]) -> Res<Vec<FlowCfg>> {
    let arr = array(root, "flows", "an array of at least one flow table ([[flows]])")?;
    let mut flows: Vec<FlowCfg> = Vec::new();
    for (i, fv) in arr.iter().enumerate() {
        let mut t = Tbl::new(format!("flows.{}", i), fv, "a flow table ([[flows]])")?;
        t.allowed = &["name"];
        let name = match t.str("name")? {
            Some(n) => {
                check_name(&t, "name", n)?;
                if let Some(j) = flows.iter().position(|f| f.name == n) {
                    return Err(t.bad("name", format!("a name not used by another flow (flows.{} is already named {:?})", j, n)));
                }
                t.path = format!("flows.{}", n);
                n.to_string()
            }
            None => format!("flow{}", i),
        };
        if flows.iter().any(|f| f.name == name) {
            return Err(ScenarioError::new(
                t.at("name"),
                "",
                format!("a name for this flow: its default name {:?} is already used by another flow", name),
            ));
        }
        t.only(&["name", "src", "dst", "tcp", "app"])?;
        let src = node_ref(&t, "src", nodes)?;
        let dst = node_ref(&t, "dst", nodes)?;
        if src == dst {
            return Err(t.bad("dst", format!("a node other than src (\"{}\")", nodes[src].name)));
        }
        let reach = reachable(src, nodes.len(), links);
        if !reach[dst] {
            let names: Vec<&str> =
                nodes.iter().zip(&reach).filter(|(_, r)| **r).map(|(n, _)| n.name.as_str()).collect();
            return Err(t.bad(
                "dst",
                format!(
                    "a node reachable from {:?} over the links (reachable: {})",
                    nodes[src].name,
                    quoted_list(&names)
                ),
            ));
        }
        let empty = Value::Table(toml::Table::new());
        let tcp_v = t.get("tcp").unwrap_or(&empty);
        let tcp = parse_tcp(Tbl::new(t.at("tcp"), tcp_v, "an inline table of TCP settings, e.g. { variant = \"sack\" }")?)?;
        let app_v = t.get("app").ok_or_else(|| missing(&t.at("app"), APP_EXPECTED))?;
        let app = parse_app(Tbl::new(t.at("app"), app_v, APP_EXPECTED)?)?;
        if matches!(app, AppCfg::Cbr(_) | AppCfg::OnOff(_)) && t.get("tcp").is_some() {
            return Err(t.bad("tcp", "no tcp table: a cbr or onoff application sends UDP"));
        }
        flows.push(FlowCfg { name, src, dst, tcp, app });
    }
    Ok(flows)
}

/// Nodes reachable from `src`, links usable in both directions.
fn reachable(src: usize, n: usize, links: &[LinkCfg]) -> Vec<bool> {
    let mut seen = vec![false; n];
    seen[src] = true;
    let mut stack = vec![src];
    while let Some(u) = stack.pop() {
        for l in links {
            let other = if l.a == u { l.b } else if l.b == u { l.a } else { continue };
            if !seen[other] {
                seen[other] = true;
                stack.push(other);
            }
        }
    }
    seen
}

const TCP_KEYS: &[&str] = &[
    "variant", "recovery", "cc", "sack", "mss", "initial_window", "rwnd", "window_scaling", "initial_ssthresh",
    "delayed_ack", "delayed_ack_timeout", "delayed_ack_segments", "dupthresh", "min_rto", "max_rto", "initial_rto",
    "clock_granularity", "rtt_sampling", "full_ack_cwnd", "abc_limit", "iss", "max_retransmissions",
    "rescue_retransmission", "rearm_rto_on_retransmit", "daass", "daass_segments", "limited_transmit", "max_burst", "frto",
    "fack_overdamping", "fack_rampdown", "partial_ack_timer",
    // window-controller parameters (CC_PARAMS)
    "vegas_alpha", "vegas_beta", "vegas_gamma", "westwood_filter_gain", "hybla_rtt0", "hybla_rtt", "cubic_c",
    "cubic_beta", "cubic_fast_convergence", "cubic_hystart", "bbr_cwnd_gain", "bbr_probe_rtt_interval",
    "bbr_probe_rtt_duration", "pacing", "accept_beyond_window", "adalr_rtt_dev_gain", "adalr_rho_break",
    "adalr_initial_rho", "adalr_rho_source", "adalr_rwnd_boost", "adalr_boost_check", "adalr_increments", "adalr_ca_gate", "adalr_fr_guard",
    "adalr_at_ssthresh", "adalr_rto_offset", "adalr_retx_limit",
];

/// Preset names for `variant`. "enhanced" is TRANSAT's "Enhanced TCP" (spec
/// 001 section 3.3): SACK + IW 4 + DAASS + Limited Transmit.
const VARIANTS: &[&str] = &[
    "newreno", "sack", "tahoe", "reno", "fack", "enhanced", "vegas", "westwood", "hybla", "cubic", "bbr", "adalr-sack",
    "adalr-newreno",
];
const RECOVERIES: &[&str] = &["newreno", "sack", "tahoe", "reno", "fack"];

fn recovery_named(name: &str) -> Recovery {
    match name {
        "sack" => Recovery::Sack,
        "tahoe" => Recovery::Tahoe,
        "reno" => Recovery::Reno,
        "fack" => Recovery::Fack,
        _ => Recovery::NewReno,
    }
}

/// Largest window with window scaling: 65535 * 2^14 (RFC 7323).
const MAX_SCALED_WINDOW: u64 = 65535 << 14;

fn parse_tcp(mut t: Tbl) -> Res<TcpCfg> {
    t.only(TCP_KEYS)?;
    let variant = t.choice("variant", VARIANTS)?.unwrap_or("newreno");
    let enhanced = variant == "enhanced";
    let adalr_preset = variant.starts_with("adalr-");
    let (preset, preset_cc) = preset_parts(variant);
    let recovery = t.choice("recovery", RECOVERIES)?.map_or(preset, recovery_named);
    let cc = t.choice("cc", &["aimd", "vegas", "westwood", "hybla", "cubic", "bbr", "adalr"])?.unwrap_or(preset_cc);
    let controller = parse_controller(&t, cc)?;
    let needs_sack = matches!(recovery, Recovery::Sack | Recovery::Fack);
    let sack = t.bool("sack")?.unwrap_or(needs_sack || matches!(preset, Recovery::Sack | Recovery::Fack));
    if needs_sack && !sack {
        let name = if recovery == Recovery::Sack { "sack" } else { "fack" };
        return Err(t.bad(
            "sack",
            format!("true when recovery is \"{name}\" (it needs SACK blocks), or set recovery = \"newreno\""),
        ));
    }
    let mss = t.u32_in("mss", 64, 65495)?.unwrap_or(1460);
    let initial_window = match t.get("initial_window") {
        None if enhanced => InitialWindow::Segments(4),
        None if adalr_preset => InitialWindow::Segments(2),
        None => InitialWindow::Rfc3390,
        Some(Value::String(s)) if s == "rfc3390" => InitialWindow::Rfc3390,
        Some(Value::Integer(i)) if (1..=i64::from(u32::MAX)).contains(i) => InitialWindow::Segments(*i as u32),
        Some(_) => return Err(t.bad("initial_window", "an integer >= 1 (segments) or \"rfc3390\"")),
    };
    let window_scaling = t.bool("window_scaling")?.unwrap_or(true);
    let rwnd = t.size("rwnd")?.unwrap_or(65535);
    if rwnd < u64::from(mss) {
        return Err(t.bad("rwnd", format!("a size >= mss ({} bytes)", mss)));
    }
    if !window_scaling && rwnd > 65535 {
        return Err(t.bad("rwnd", "at most 65535 bytes without window scaling: enable window_scaling or lower rwnd"));
    }
    if rwnd > MAX_SCALED_WINDOW {
        return Err(t.bad("rwnd", format!("at most {} bytes (65535 * 2^14, the largest scaled window)", MAX_SCALED_WINDOW)));
    }
    let initial_ssthresh = match t.get("initial_ssthresh") {
        Some(Value::String(s)) if s == "inf" => None,
        Some(_) => match t.size("initial_ssthresh") {
            Ok(Some(0)) | Err(_) => {
                return Err(t.bad("initial_ssthresh", format!("\"inf\" or {}", positive(units::SIZE_ALLOWED))))
            }
            Ok(s) => s,
        },
        None => None,
    };
    let delayed_ack = t.bool("delayed_ack")?.unwrap_or(true);
    let delayed_ack_timeout = t.duration_pos("delayed_ack_timeout")?.unwrap_or(200_000_000);
    if delayed_ack_timeout > 1_000_000_000 {
        return Err(t.bad("delayed_ack_timeout", "a duration in (0, 1s] (RFC 1122: at most 500 ms is usual)"));
    }
    let delayed_ack_segments = t.u32_in("delayed_ack_segments", 1, u32::MAX)?.unwrap_or(2);
    let dupthresh = t.u32_in("dupthresh", 1, u32::MAX)?.unwrap_or(3);
    let min_rto = t.duration_pos("min_rto")?.unwrap_or(1_000_000_000);
    let max_rto_set = t.duration_pos("max_rto")?;
    let max_rto = max_rto_set.unwrap_or(60_000_000_000);
    if max_rto < min_rto {
        return Err(if max_rto_set.is_some() {
            t.bad("max_rto", format!("a duration >= min_rto ({} ns)", min_rto))
        } else {
            t.bad("min_rto", "a duration <= max_rto (default 60s)")
        });
    }
    let initial_rto = t.duration_pos("initial_rto")?.unwrap_or(1_000_000_000);
    if initial_rto > max_rto {
        return Err(t.bad("initial_rto", format!("a duration > 0 and <= max_rto ({} ns)", max_rto)));
    }
    let clock_granularity = t.duration("clock_granularity")?.unwrap_or(1_000_000);
    let rtt_sampling = match t.choice("rtt_sampling", &["every_ack", "one_per_rtt"])? {
        Some("one_per_rtt") => RttSampling::OnePerRtt,
        _ => RttSampling::EveryAck,
    };
    let full_ack_cwnd = match t.choice("full_ack_cwnd", &["flightsize", "ssthresh"])? {
        Some("ssthresh") => FullAckCwnd::Ssthresh,
        _ => FullAckCwnd::FlightSize,
    };
    let abc_limit = t.u32_in("abc_limit", 1, u32::MAX)?.unwrap_or(1);
    let iss = t.u32_in("iss", 0, u32::MAX)?.unwrap_or(0);
    let max_retransmissions = t.u32_in("max_retransmissions", 1, u32::MAX)?;
    let rescue_retransmission = t.bool("rescue_retransmission")?.unwrap_or(false);
    let rearm_rto_on_retransmit = t.bool("rearm_rto_on_retransmit")?.unwrap_or(false);
    let daass = t.bool("daass")?.unwrap_or(enhanced);
    let daass_n = t.u32_in("daass_segments", 1, u32::MAX)?;
    if daass_n.is_some() && !daass {
        return Err(t.bad("daass_segments", "only with daass = true (the number of segments ACKed at once)"));
    }
    if daass && !delayed_ack {
        return Err(t.bad("daass", "false when delayed_ack = false (DAASS only changes when a delayed-ACK receiver ACKs)"));
    }
    let daass_segments = daass.then(|| daass_n.unwrap_or(10));
    let limited_transmit = t.bool("limited_transmit")?.unwrap_or(enhanced);
    let max_burst = t.u32_in("max_burst", 1, u32::MAX)?;
    let frto = t.bool("frto")?.unwrap_or(false);
    let fack_overdamping = t.bool("fack_overdamping")?.unwrap_or(false);
    let fack_rampdown = t.bool("fack_rampdown")?.unwrap_or(false);
    for key in ["fack_overdamping", "fack_rampdown"] {
        if t.get(key).is_some() && recovery != Recovery::Fack {
            return Err(t.bad(key, "only with recovery = \"fack\" (or variant = \"fack\")"));
        }
    }
    let partial_ack_timer = match t.choice("partial_ack_timer", &["impatient", "slow_but_steady"])? {
        Some("slow_but_steady") => PartialAckTimer::SlowButSteady,
        _ => PartialAckTimer::Impatient,
    };
    let pacing = t.bool("pacing")?.unwrap_or(false);
    let accept_beyond_window = t.bool("accept_beyond_window")?.unwrap_or(adalr_preset);
    Ok(TcpCfg {
        variant: variant.to_string(),
        recovery,
        controller,
        sack,
        mss,
        initial_window,
        rwnd_bytes: rwnd,
        window_scaling,
        initial_ssthresh_bytes: initial_ssthresh,
        delayed_ack,
        delayed_ack_timeout_ns: delayed_ack_timeout,
        delayed_ack_segments,
        dupthresh,
        min_rto_ns: min_rto,
        max_rto_ns: max_rto,
        initial_rto_ns: initial_rto,
        clock_granularity_ns: clock_granularity,
        rtt_sampling,
        full_ack_cwnd,
        abc_limit,
        iss,
        max_retransmissions,
        rescue_retransmission,
        rearm_rto_on_retransmit,
        daass_segments,
        limited_transmit,
        max_burst,
        frto,
        fack_overdamping,
        fack_rampdown,
        partial_ack_timer,
        pacing,
        accept_beyond_window,
    })
}

/// A preset's recovery scheme and window controller: NewReno for the
/// delay- and rate-based controllers of the satellite papers (Vegas,
/// Westwood+, Hybla, as ns-2 and Linux pair them with Reno-style recovery),
/// SACK for CUBIC and BBR (as deployed in Linux).
fn preset_parts(variant: &str) -> (Recovery, &'static str) {
    match variant {
        "sack" | "enhanced" => (Recovery::Sack, "aimd"),
        "tahoe" => (Recovery::Tahoe, "aimd"),
        "reno" => (Recovery::Reno, "aimd"),
        "fack" => (Recovery::Fack, "aimd"),
        "cubic" => (Recovery::Sack, "cubic"),
        "bbr" => (Recovery::Sack, "bbr"),
        "vegas" => (Recovery::NewReno, "vegas"),
        "westwood" => (Recovery::NewReno, "westwood"),
        "hybla" => (Recovery::NewReno, "hybla"),
        "adalr-sack" => (Recovery::Sack, "adalr"),
        "adalr-newreno" => (Recovery::NewReno, "adalr"),
        _ => (Recovery::NewReno, "aimd"),
    }
}

/// Each controller parameter and the controller it belongs to.
const CC_PARAMS: &[(&str, &str)] = &[
    ("vegas_alpha", "vegas"),
    ("vegas_beta", "vegas"),
    ("vegas_gamma", "vegas"),
    ("westwood_filter_gain", "westwood"),
    ("hybla_rtt0", "hybla"),
    ("hybla_rtt", "hybla"),
    ("cubic_c", "cubic"),
    ("cubic_beta", "cubic"),
    ("cubic_fast_convergence", "cubic"),
    ("cubic_hystart", "cubic"),
    ("bbr_cwnd_gain", "bbr"),
    ("bbr_probe_rtt_interval", "bbr"),
    ("bbr_probe_rtt_duration", "bbr"),
    ("adalr_rtt_dev_gain", "adalr"),
    ("adalr_rho_break", "adalr"),
    ("adalr_initial_rho", "adalr"),
    ("adalr_rwnd_boost", "adalr"),
    ("adalr_rho_source", "adalr"),
    ("adalr_boost_check", "adalr"),
    ("adalr_increments", "adalr"),
    ("adalr_ca_gate", "adalr"),
    ("adalr_fr_guard", "adalr"),
    ("adalr_at_ssthresh", "adalr"),
    ("adalr_rto_offset", "adalr"),
    ("adalr_retx_limit", "adalr"),
];

/// A number (integer or float) for which `ok` holds.
fn number(t: &Tbl, key: &str, ok: impl Fn(f64) -> bool, expected: &str) -> Res<Option<f64>> {
    let x = match t.get(key) {
        None => return Ok(None),
        Some(Value::Float(x)) => *x,
        Some(Value::Integer(i)) => *i as f64,
        Some(v) => return Err(type_error(&t.at(key), v, expected)),
    };
    if x.is_finite() && ok(x) {
        Ok(Some(x))
    } else {
        Err(t.bad(key, expected))
    }
}

/// The window controller `cc` and its parameters; a parameter of another
/// controller is an error.
fn parse_controller(t: &Tbl, cc: &str) -> Res<Controller> {
    for &(key, owner) in CC_PARAMS {
        if owner != cc && t.map.contains_key(key) {
            return Err(t.bad(key, format!("a key used only with cc = \"{}\" (this flow's controller is \"{}\")", owner, cc)));
        }
    }
    Ok(match cc {
        "vegas" => {
            let alpha = t.u32_in("vegas_alpha", 0, 1000)?.unwrap_or(1);
            let beta = t.u32_in("vegas_beta", 0, 1000)?.unwrap_or(3);
            if beta < alpha {
                return Err(t.bad(
                    if t.map.contains_key("vegas_beta") { "vegas_beta" } else { "vegas_alpha" },
                    format!("vegas_alpha <= vegas_beta (here {} > {}): Vegas holds between alpha and beta extra segments", alpha, beta),
                ));
            }
            let gamma = t.u32_in("vegas_gamma", 0, 1000)?.unwrap_or(1);
            Controller::Vegas { alpha, beta, gamma }
        }
        "westwood" => Controller::Westwood {
            filter_gain: number(t, "westwood_filter_gain", |x| (0.0..1.0).contains(&x), "a number in [0, 1), e.g. 0.9")?.unwrap_or(0.9),
        },
        "hybla" => Controller::Hybla {
            rtt0_ns: t.duration_pos("hybla_rtt0")?.unwrap_or(25_000_000),
            rho_rtt: match t.choice("hybla_rtt", &["min_srtt", "srtt"])? {
                Some("srtt") => HyblaRtt::Srtt,
                _ => HyblaRtt::MinSrtt,
            },
        },
        "cubic" => Controller::Cubic {
            c: number(t, "cubic_c", |x| x > 0.0 && x <= 100.0, "a number in (0, 100], e.g. 0.4")?.unwrap_or(0.4),
            beta: number(t, "cubic_beta", |x| x > 0.0 && x < 1.0, "a number in (0, 1), e.g. 0.7")?.unwrap_or(0.7),
            fast_convergence: t.bool("cubic_fast_convergence")?.unwrap_or(true),
            hystart: t.bool("cubic_hystart")?.unwrap_or(true),
        },
        "bbr" => {
            let interval = t.duration_pos("bbr_probe_rtt_interval")?.unwrap_or(10_000_000_000);
            let duration = t.duration_pos("bbr_probe_rtt_duration")?.unwrap_or(200_000_000);
            if duration >= interval {
                return Err(t.bad("bbr_probe_rtt_duration", format!("a duration > 0 and shorter than bbr_probe_rtt_interval ({} ns)", interval)));
            }
            Controller::Bbr {
                cwnd_gain: number(t, "bbr_cwnd_gain", |x| (1.0..=16.0).contains(&x), "a number in [1, 16], e.g. 2")?.unwrap_or(2.0),
                probe_rtt_interval_ns: interval,
                probe_rtt_duration_ns: duration,
            }
        }
        "adalr" => Controller::Adalr(parse_adalr(t)?),
        _ => Controller::Aimd,
    })
}

/// TCP-ADaLR's parameters (`tcp/cc/adalr.rs` explains each reading).
fn parse_adalr(t: &Tbl) -> Res<AdalrCfg> {
    let initial_rho = match t.get("adalr_initial_rho") {
        None => AdalrInitialRho::Handshake,
        Some(Value::String(s)) if s == "handshake" => AdalrInitialRho::Handshake,
        Some(_) => AdalrInitialRho::Fixed(
            number(t, "adalr_initial_rho", |x| (1.0..=60.0).contains(&x), "\"handshake\" or a number in [1, 60]")?
                .unwrap_or(1.0),
        ),
    };
    Ok(AdalrCfg {
        rtt_dev_gain: number(t, "adalr_rtt_dev_gain", |x| (0.0..=60.0).contains(&x), "a number in [0, 60], e.g. 0.25")?
            .unwrap_or(0.25),
        rho_break: number(t, "adalr_rho_break", |x| (1.0..=60.0).contains(&x), "a number in [1, 60], e.g. 15")?
            .unwrap_or(15.0),
        initial_rho,
        rho_source: match t.choice("adalr_rho_source", &["sample", "sample_ticks", "rto"])? {
            Some("sample") => AdalrRhoSource::Sample,
            Some("rto") => AdalrRhoSource::Rto,
            _ => AdalrRhoSource::SampleTicks,
        },
        rwnd_boost: match t.choice("adalr_rwnd_boost", &["once", "cumulative"])? {
            Some("cumulative") => AdalrRwndBoost::Cumulative,
            _ => AdalrRwndBoost::Once,
        },
        boost_check_advertised: t.choice("adalr_boost_check", &["increased", "advertised"])? == Some("advertised"),
        increments: match t.choice("adalr_increments", &["fractional", "whole"])? {
            Some("whole") => AdalrIncrements::Whole,
            _ => AdalrIncrements::Fractional,
        },
        ca_gate: match t.choice("adalr_ca_gate", &["literal", "rho"])? {
            Some("rho") => AdalrCaGate::Rho,
            _ => AdalrCaGate::Literal,
        },
        fr_guard: match t.choice("adalr_fr_guard", &["partial", "full"])? {
            Some("full") => AdalrFrGuard::Full,
            _ => AdalrFrGuard::Partial,
        },
        equal_is_slow_start: t.choice("adalr_at_ssthresh", &["avoidance", "slow_start"])? == Some("slow_start"),
        rto_offset_ns: t.duration("adalr_rto_offset")?.unwrap_or(200_000_000),
        retx_limit: match t.u32_in("adalr_retx_limit", 0, u32::MAX)?.unwrap_or(3) {
            0 => None,
            n => Some(n),
        },
    })
}

const APP_EXPECTED: &str =
    "an inline table such as { kind = \"ftp\", size = \"50MB\" } or { kind = \"http\", pages = 10 }";

fn parse_app(mut t: Tbl) -> Res<AppCfg> {
    t.allowed = &["kind"];
    let kind = t.choice("kind", &["ftp", "http", "cbr", "onoff"])?;
    let kind = t.require("kind", kind, "one of \"ftp\", \"http\", \"cbr\", \"onoff\"")?;
    if kind == "cbr" || kind == "onoff" {
        return parse_udp_app(t, kind);
    }
    if kind == "ftp" {
        t.only(&["kind", "size", "start", "request", "response_end"])?;
        let response_end = match t.choice("response_end", &["last_byte", "fin"])? {
            Some("fin") => ResponseEnd::Fin,
            _ => ResponseEnd::LastByte,
        };
        Ok(AppCfg::Ftp(FtpCfg {
            size_bytes: t.size_pos("size")?,
            start_ns: t.duration("start")?.unwrap_or(0),
            request_bytes: t.size("request")?.unwrap_or(0),
            response_end,
        }))
    } else {
        t.only(&[
            "kind", "start", "page_interval", "pages", "main_object", "embedded_objects", "embedded_object",
            "request", "pipelining", "first_page",
        ])?;
        Ok(AppCfg::Http(HttpCfg {
            start_ns: t.duration("start")?.unwrap_or(0),
            page_interval_ns: t.duration_pos("page_interval")?.unwrap_or(30_000_000_000),
            pages: t.u32_in("pages", 1, u32::MAX)?,
            main_object_bytes: t.size_pos("main_object")?.unwrap_or(10_710),
            embedded_objects: t.u32_in("embedded_objects", 0, u32::MAX)?.unwrap_or(15),
            embedded_object_bytes: t.size_pos("embedded_object")?.unwrap_or(7_758),
            request_bytes: t.size_pos("request")?.unwrap_or(350),
            pipelining: t.bool("pipelining")?.unwrap_or(false),
            first_page_ns: t.duration("first_page")?.unwrap_or(0),
        }))
    }
}

/// IPv4 + UDP headers: the smallest packet_size.
const UDP_HEADERS: u32 = 28;

fn parse_udp_app(mut t: Tbl, kind: &str) -> Res<AppCfg> {
    const CBR_KEYS: &[&str] = &["kind", "rate", "packet_size", "start", "stop", "jitter", "max_packets"];
    const ONOFF_KEYS: &[&str] =
        &["kind", "dist", "shape", "rate", "packet_size", "mean_on", "mean_off", "start", "stop"];
    t.only(if kind == "cbr" { CBR_KEYS } else { ONOFF_KEYS })?;
    let rate = t.rate("rate")?;
    let rate_bps = t.require("rate", rate, units::RATE_ALLOWED)?;
    if rate_bps == 0 {
        return Err(t.bad("rate", positive(units::RATE_ALLOWED)));
    }
    let packet_bytes = t.u32_in("packet_size", UDP_HEADERS + 1, 65535)?.unwrap_or(1000);
    let start_ns = t.duration("start")?.unwrap_or(0);
    let stop_ns = t.duration("stop")?;
    if stop_ns.is_some_and(|s| s <= start_ns) {
        return Err(t.bad("stop", format!("a time after start ({} ns)", start_ns)));
    }
    if kind == "cbr" {
        return Ok(AppCfg::Cbr(CbrCfg {
            rate_bps,
            packet_bytes,
            start_ns,
            stop_ns,
            jitter: t.bool("jitter")?.unwrap_or(false),
            max_packets: t.int("max_packets", 1, i64::MAX)?.map(|n| n as u64),
        }));
    }
    let dist = match t.choice("dist", &["exponential", "pareto"])? {
        Some("pareto") => {
            let shape = t.number("shape", |x| x > 1.0, "a number > 1 (a Pareto with shape <= 1 has no mean)")?;
            OnOffDist::Pareto { shape: shape.unwrap_or(1.5) }
        }
        _ => {
            if t.map.contains_key("shape") {
                return Err(t.bad("shape", "shape only goes with dist = \"pareto\""));
            }
            OnOffDist::Exponential
        }
    };
    Ok(AppCfg::OnOff(OnOffCfg {
        dist,
        peak_rate_bps: rate_bps,
        packet_bytes,
        mean_on_ns: t.duration_pos("mean_on")?.unwrap_or(500_000_000),
        mean_off_ns: t.duration_pos("mean_off")?.unwrap_or(500_000_000),
        start_ns,
        stop_ns,
    }))
}

// ---------------------------------------------------------------------------
// [[captures]]

/// `[[captures]]`: pcap files of chosen link directions. `link` is a link's
/// index or name; one file per entry, no file named twice.
fn parse_captures(root: &Tbl) -> Res<Vec<CaptureCfg>> {
    let Some(v) = root.get("captures") else { return Ok(Vec::new()) };
    let what = "an array of capture tables ([[captures]] with link, dir, file, snaplen, timestamp)";
    let Value::Array(arr) = v else { return Err(type_error("captures", v, what)) };
    // Link names as written (links were validated before).
    let link_names: Vec<Option<&str>> = match root.get("links") {
        Some(Value::Array(ls)) => ls.iter().map(|l| l.get("name").and_then(Value::as_str)).collect(),
        _ => Vec::new(),
    };
    let mut caps: Vec<CaptureCfg> = Vec::new();
    for (i, cv) in arr.iter().enumerate() {
        let mut t = Tbl::new(format!("captures.{}", i), cv, "a capture table ([[captures]])")?;
        t.only(&["link", "dir", "file", "snaplen", "timestamp"])?;
        let n = link_names.len();
        let named: Vec<String> = link_names.iter().flatten().map(|s| format!("\"{}\"", s)).collect();
        let link_expected = if named.is_empty() {
            format!("a link index 0..={}", n - 1)
        } else {
            format!("a link index 0..={} or a link name: {}", n - 1, named.join(", "))
        };
        let link = match t.get("link") {
            None => return Err(missing(&t.at("link"), &link_expected)),
            Some(Value::Integer(k)) if (0..n as i64).contains(k) => *k as usize,
            Some(Value::String(s)) => {
                link_names.iter().position(|l| *l == Some(s.as_str())).ok_or_else(|| t.bad("link", &link_expected))?
            }
            Some(Value::Integer(_)) => return Err(t.bad("link", link_expected)),
            Some(other) => return Err(type_error(&t.at("link"), other, &link_expected)),
        };
        let dirs = match t.choice("dir", &["ab", "ba", "both"])? {
            None | Some("both") => [true, true],
            Some("ab") => [true, false],
            _ => [false, true],
        };
        let file = t.require("file", t.str("file")?, "a file path (a non-empty string)")?;
        if file.is_empty() {
            return Err(t.bad("file", "a file path (a non-empty string)"));
        }
        if let Some(j) = caps.iter().position(|c| c.file == file) {
            return Err(t.bad("file", format!("a file not written by another capture (captures.{} writes it)", j)));
        }
        let snaplen = t.u32_in("snaplen", 1, crate::net::pcap::MAX_SNAPLEN)?.unwrap_or(crate::net::pcap::MAX_SNAPLEN);
        let timestamp = match t.choice("timestamp", &["transmit", "accept"])? {
            None | Some("transmit") => CaptureTime::Transmit,
            _ => CaptureTime::Accept,
        };
        caps.push(CaptureCfg { link, dirs, file: file.to_string(), snaplen, timestamp });
    }
    Ok(caps)
}

// ---------------------------------------------------------------------------
// JSON input

mod json {
    //! A JSON tree that keeps object key order and `null`s, so that node
    //! indices follow the file and nulls can be reported with their path.

    use super::{join, Res, ScenarioError};
    use serde::de::{Deserialize, Deserializer, MapAccess, SeqAccess, Visitor};
    use std::fmt;
    use toml::Value;

    pub enum Json {
        Null,
        Bool(bool),
        Int(i64),
        UInt(u64),
        Float(f64),
        Str(String),
        Arr(Vec<Json>),
        Obj(Vec<(String, Json)>),
    }

    impl Json {
        /// Convert to a TOML value; `path` is this value's dotted path.
        pub fn into_toml(self, path: &str) -> Res<Value> {
            let here = || if path.is_empty() { "<json>".to_string() } else { path.to_string() };
            Ok(match self {
                Json::Null => {
                    return Err(ScenarioError::new(
                        here(),
                        "null",
                        "a value (null is not allowed; leave the key out to get its default)",
                    ))
                }
                Json::Bool(b) => Value::Boolean(b),
                Json::Int(i) => Value::Integer(i),
                Json::UInt(u) => match i64::try_from(u) {
                    Ok(i) => Value::Integer(i),
                    Err(_) => return Err(ScenarioError::new(here(), u.to_string(), "an integer <= 2^63 - 1")),
                },
                Json::Float(f) => Value::Float(f),
                Json::Str(s) => Value::String(s),
                Json::Arr(items) => {
                    let mut out = Vec::with_capacity(items.len());
                    for (i, item) in items.into_iter().enumerate() {
                        let seg = segment(path, i, &item);
                        out.push(item.into_toml(&join(path, &seg))?);
                    }
                    Value::Array(out)
                }
                Json::Obj(entries) => {
                    let mut t = toml::Table::new();
                    for (k, v) in entries {
                        let p = join(path, &k);
                        if t.contains_key(&k) {
                            return Err(ScenarioError::new(p, "", "a key that appears only once in its object"));
                        }
                        let v = v.into_toml(&p)?;
                        t.insert(k, v);
                    }
                    Value::Table(t)
                }
            })
        }
    }

    /// Flows are addressed by name (when they have one), everything else by
    /// index, as in validation errors.
    fn segment(path: &str, i: usize, item: &Json) -> String {
        if path == "flows" {
            if let Json::Obj(entries) = item {
                if let Some((_, Json::Str(name))) = entries.iter().find(|(k, _)| k == "name") {
                    return name.clone();
                }
            }
        }
        i.to_string()
    }

    impl<'de> Deserialize<'de> for Json {
        fn deserialize<D: Deserializer<'de>>(d: D) -> Result<Self, D::Error> {
            d.deserialize_any(JsonVisitor)
        }
    }

    struct JsonVisitor;

    impl<'de> Visitor<'de> for JsonVisitor {
        type Value = Json;

        fn expecting(&self, f: &mut fmt::Formatter) -> fmt::Result {
            f.write_str("any JSON value")
        }
        fn visit_unit<E>(self) -> Result<Json, E> {
            Ok(Json::Null)
        }
        fn visit_none<E>(self) -> Result<Json, E> {
            Ok(Json::Null)
        }
        fn visit_bool<E>(self, b: bool) -> Result<Json, E> {
            Ok(Json::Bool(b))
        }
        fn visit_i64<E>(self, i: i64) -> Result<Json, E> {
            Ok(Json::Int(i))
        }
        fn visit_u64<E>(self, u: u64) -> Result<Json, E> {
            Ok(Json::UInt(u))
        }
        fn visit_f64<E>(self, f: f64) -> Result<Json, E> {
            Ok(Json::Float(f))
        }
        fn visit_str<E>(self, s: &str) -> Result<Json, E> {
            Ok(Json::Str(s.to_string()))
        }
        fn visit_string<E>(self, s: String) -> Result<Json, E> {
            Ok(Json::Str(s))
        }
        fn visit_seq<A: SeqAccess<'de>>(self, mut seq: A) -> Result<Json, A::Error> {
            let mut items = Vec::new();
            while let Some(item) = seq.next_element()? {
                items.push(item);
            }
            Ok(Json::Arr(items))
        }
        fn visit_map<A: MapAccess<'de>>(self, mut map: A) -> Result<Json, A::Error> {
            let mut entries = Vec::new();
            while let Some((k, v)) = map.next_entry::<String, Json>()? {
                entries.push((k, v));
            }
            Ok(Json::Obj(entries))
        }
    }
}
