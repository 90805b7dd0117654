//! `[multihop]`: a multihop satellite path in the notation of Taleb, Kato
//! and Nemoto (IEEE JSAC 2003, Fig. 3; spec 004 section 2),
//! Topology(n_sat, N, f(i), h_s(i), h_r(i, j)), written out as nodes,
//! links, flows and (optionally) an XFWA agent before the scenario is
//! read, so everything after sees an ordinary scenario.
//!
//! ```toml
//! [multihop]
//! satellites = 3                 # n_sat: the bottleneck chain b1 .. b3
//! bottleneck = "T1"              # T1 1.5, T2 10, T3 45, OC3 155 Mb/s, or a rate
//! groups = [{ flows = 8, hops_before = 0, hops_after = 0 }]   # f(i), h_s(i), h_r(i, j)
//! schedule = "A"                 # the flow-count scenarios A-D of Fig. 4
//! xfwa = true                    # or { alpha = 1, ... }: the agent on b1's ISL
//! tcp = { profile = "ns2", variant = "newreno", mss = 1000, rwnd = "1MB" }
//! ```
//!
//! * A group's `flows` is a number, or "MAX" or "MAX/k": Table I's flow
//!   count for the bottleneck's link type (T1 8, T2 32, T3 128, OC3 512),
//!   divided by k (so one scenario file serves every link type).
//! * Flows f1 .. fN (numbered across the groups in order) go from `src<k>`
//!   through `hops_before` private satellites (`f<k>u1` ..), the chain, and
//!   `hops_after` private satellites (`f<k>d1` ..) to `dst<k>`.
//!   `hops_after` is a number or a list with one entry per flow of the
//!   group (h_r(i, j)).
//! * Links: every hop `isl_delay` (20 ms; the up- and downlinks too, the
//!   reading that gives the paper's 160 ms, spec A2); the chain's ISLs at
//!   the bottleneck rate with a drop-tail buffer of `buffer` packets
//!   ("bdp": the bottleneck's rate times `bdp_rtt`, the flows' mean
//!   propagation RTT by default, in packets of mss + 40 bytes, rounded to
//!   the nearest, at least 1; spec A9); every other link at `access_rate`
//!   (10 Mb/s) with `access_buffer` packets (1000, never reached).
//! * Schedules (spec section 2.6; every start jittered uniformly in [0,
//!   `start_jitter` = 5 ms] after its cohort's time, from the run's seed,
//!   spec A11): "A" all from 0; "B" a quarter more every 5 s; "C" all from
//!   0, the last quarter stops at 5 s, the third at 10 s, the second at 15
//!   s; "D" the first half from 0, the second at 5 s, the second quarter
//!   stops at 10 s and the third at 15 s. A stop is the FTP `stop`.
//! * `tcp` and `app` are every flow's tables (`app` defaults to an
//!   unlimited FTP; the schedule sets its start and stop). A group may
//!   have its own `app` (e.g. ON-OFF TCP sources beside persistent FTP
//!   flows, section V-D); a `start` in it is added to the schedule's, a
//!   `stop` in it is kept.
//! * Overrides of `multihop.*` keys apply before the expansion, others
//!   after (so `flows.f3.app.stop` reaches a generated flow).

use super::*;
use crate::sim::Rng;

const KEYS: &[&str] = &[
    "satellites", "bottleneck", "isl_delay", "access_rate", "access_delay", "buffer", "bdp_rtt", "access_buffer",
    "groups", "schedule", "start_jitter", "xfwa", "tcp", "app",
];

/// The paper's link types (section IV; T1 is 1.5 Mb/s there, 1.544 in
/// Appendix II; T2 is the paper's 10 Mb/s, not the standard 6.312).
const LINK_TYPES: &[(&str, &str)] = &[("T1", "1.5Mbps"), ("T2", "10Mbps"), ("T3", "45Mbps"), ("OC3", "155Mbps")];

/// Table I: the most flows per link type ("MAX").
const MAX_FLOWS: &[(&str, u32)] = &[("T1", 8), ("T2", 32), ("T3", 128), ("OC3", 512)];

/// Random stream of the start jitter (apart from every other).
const STREAM_MULTIHOP: u64 = 5 << 32;

struct Group {
    flows: u32,
    before: u32,
    after: Vec<u32>,
    app: Option<toml::Table>,
    /// The group app's own `start` (ns), added to the schedule's.
    offset: u64,
}

fn s(v: &str) -> Value {
    Value::String(v.to_string())
}

fn table(kv: &[(&str, Value)]) -> Value {
    Value::Table(kv.iter().map(|(k, v)| (k.to_string(), v.clone())).collect())
}

fn secs(ns: u64) -> Value {
    s(&format!("{}ns", ns))
}

/// Expand `multihop` in `root` (if present) into nodes, links, flows and
/// agents appended to those written out.
pub(crate) fn expand(root: &mut Value) -> Res<()> {
    let Some(Value::Table(top)) = Some(&*root) else { return Ok(()) };
    let Some(mv) = top.get("multihop").cloned() else { return Ok(()) };
    let seed = top.get("run").and_then(|r| r.get("seed")).and_then(Value::as_integer).unwrap_or(1) as u64;
    let mut t = Tbl::new("multihop".to_string(), &mv, "a table: satellites, bottleneck, groups, schedule, tcp, app")?;
    t.only(KEYS)?;
    let n_sat = t.u32_in("satellites", 2, 64)?.unwrap_or(3);
    let bottleneck = match t.get("bottleneck") {
        Some(Value::String(b)) => match LINK_TYPES.iter().find(|(k, _)| k.eq_ignore_ascii_case(b)) {
            Some((_, r)) => r.to_string(),
            None => {
                t.rate("bottleneck").map_err(|_| t.bad("bottleneck", "T1, T2, T3, OC3 or a rate such as \"1.5Mbps\""))?;
                b.clone()
            }
        },
        Some(_) => return Err(t.bad("bottleneck", "T1, T2, T3, OC3 or a rate such as \"1.5Mbps\"")),
        None => "1.5Mbps".to_string(),
    };
    let bw_bps = units::parse_rate(&bottleneck).expect("checked above") as f64;
    let max_flows = t.get("bottleneck").and_then(Value::as_str).and_then(|b| MAX_FLOWS.iter().find(|(k, _)| k.eq_ignore_ascii_case(b))).map(|m| m.1);
    let isl_ns = t.duration("isl_delay")?.unwrap_or(20_000_000);
    let access_ns = t.duration("access_delay")?.unwrap_or(isl_ns);
    let access_rate = match t.get("access_rate") {
        Some(v) => v.clone(),
        None => s("10Mbps"),
    };
    t.rate("access_rate")?;
    let access_buffer = t.u32_in("access_buffer", 1, u32::MAX)?.unwrap_or(1000);
    let jitter_ns = t.duration("start_jitter")?.unwrap_or(5_000_000);
    let schedule = t.choice("schedule", &["A", "B", "C", "D"])?.unwrap_or("A");
    // groups: f(i), h_s(i), h_r(i, j)
    let groups_v = t.get("groups").ok_or_else(|| missing(&t.at("groups"), "an array of groups: [{ flows = 8, hops_before = 0, hops_after = 0 }]"))?;
    let Value::Array(ga) = groups_v else { return Err(type_error(&t.at("groups"), groups_v, "an array of group tables")) };
    if ga.is_empty() {
        return Err(t.bad("groups", "at least one group"));
    }
    let mut groups = Vec::new();
    for (i, gv) in ga.iter().enumerate() {
        let mut g = Tbl::new(format!("multihop.groups.{i}"), gv, "a group table: flows, hops_before, hops_after")?;
        g.only(&["flows", "hops_before", "hops_after", "app"])?;
        let gapp = match g.get("app") {
            None => None,
            Some(Value::Table(a)) => Some(a.clone()),
            Some(v) => return Err(type_error(&g.at("app"), v, "a table: this group's application")),
        };
        let flows = match g.get("flows") {
            Some(Value::String(m)) => {
                let k = match m.trim() {
                    "MAX" => Some(1),
                    x => x.strip_prefix("MAX/").and_then(|k| k.trim().parse::<u32>().ok()).filter(|&k| k > 0),
                };
                let (Some(k), Some(max)) = (k, max_flows) else {
                    return Err(g.bad("flows", "a number, or \"MAX\" or \"MAX/k\" with the bottleneck a link type (T1, T2, T3, OC3)"));
                };
                if max % k != 0 {
                    return Err(g.bad("flows", format!("MAX/k with k dividing MAX ({max})")));
                }
                max / k
            }
            _ => g.require("flows", g.u32_in("flows", 0, 100_000)?, "a number of flows, or \"MAX\"")?,
        };
        let before = g.u32_in("hops_before", 0, 32)?.unwrap_or(0);
        let after = match g.get("hops_after") {
            Some(Value::Array(a)) => {
                if a.len() != flows as usize {
                    return Err(g.bad("hops_after", format!("a number, or a list of one per flow of the group ({flows})")));
                }
                a.iter()
                    .map(|x| x.as_integer().filter(|&h| (0..=32).contains(&h)).map(|h| h as u32))
                    .collect::<Option<Vec<_>>>()
                    .ok_or_else(|| g.bad("hops_after", "hop counts in [0, 32]"))?
            }
            _ => vec![g.u32_in("hops_after", 0, 32)?.unwrap_or(0); flows as usize],
        };
        let offset = match gapp.as_ref().and_then(|a| a.get("start")) {
            Some(v) => units::duration_ns(&format!("multihop.groups.{i}.app.start"), v)?,
            None => 0,
        };
        groups.push(Group { flows, before, after, app: gapp, offset });
    }
    let n_flows: u32 = groups.iter().map(|g| g.flows).sum();
    if n_flows == 0 {
        return Err(t.bad("groups", "at least one flow in all"));
    }
    let tcp = t.get("tcp").cloned().unwrap_or_else(|| Value::Table(toml::Table::new()));
    let Value::Table(tcp_t) = &tcp else { return Err(type_error(&t.at("tcp"), &tcp, "a table of TCP settings")) };
    let mss = tcp_t.get("mss").and_then(Value::as_integer).unwrap_or(1000) as f64;
    let app = t.get("app").cloned().unwrap_or_else(|| table(&[("kind", s("ftp"))]));
    let Value::Table(app_t) = &app else { return Err(type_error(&t.at("app"), &app, "a table: the flows' application")) };
    // each flow's propagation RTT: 2 x (links one way) x delay
    let rtts: Vec<f64> = groups
        .iter()
        .flat_map(|g| g.after.iter().map(move |&a| 2.0 * ((g.before + a + n_sat - 1) as f64 * isl_ns as f64 + 2.0 * access_ns as f64) * 1e-9))
        .collect();
    let buffer = match t.get("buffer") {
        None | Some(Value::String(_)) => {
            if let Some(v) = t.get("buffer").and_then(Value::as_str).filter(|v| *v != "bdp") {
                return Err(t.bad("buffer", format!("\"bdp\" or a number of packets (not {v:?})")));
            }
            let rtt = match t.get("bdp_rtt") {
                None => rtts.iter().sum::<f64>() / rtts.len() as f64,
                Some(Value::String(k)) if k == "mean" => rtts.iter().sum::<f64>() / rtts.len() as f64,
                Some(Value::String(k)) if k == "min" => rtts.iter().cloned().fold(f64::INFINITY, f64::min),
                Some(Value::String(k)) if k == "max" => rtts.iter().cloned().fold(0.0, f64::max),
                Some(_) => t.duration_pos("bdp_rtt").map_err(|_| t.bad("bdp_rtt", "\"mean\", \"min\", \"max\" or a duration"))?.unwrap() as f64 * 1e-9,
            };
            ((bw_bps * rtt / (8.0 * (mss + 40.0))).round() as i64).max(1)
        }
        Some(_) => t.u32_in("buffer", 1, u32::MAX)?.unwrap() as i64,
    };
    // the generated entries
    let mut nodes: Vec<String> = (1..=n_sat).map(|k| format!("b{k}")).collect();
    let mut links: Vec<Value> = Vec::new();
    let link = |name: String, a: &str, b: &str, rate: Value, delay: u64, q: i64| {
        table(&[
            ("name", s(&name)),
            ("a", s(a)),
            ("b", s(b)),
            ("rate", rate),
            ("delay", secs(delay)),
            ("queue", table(&[("kind", s("droptail")), ("packets", Value::Integer(q))])),
        ])
    };
    for k in 1..n_sat {
        links.push(link(format!("isl{k}"), &format!("b{k}"), &format!("b{}", k + 1), s(&bottleneck), isl_ns, buffer));
    }
    let mut rng = Rng::new(seed, STREAM_MULTIHOP);
    let mut flows = Vec::new();
    let mut k = 0u32;
    for g in &groups {
        for &after in &g.after {
            k += 1;
            let (src, dst) = (format!("src{k}"), format!("dst{k}"));
            let mut path = vec![src.clone()];
            path.extend((1..=g.before).map(|j| format!("f{k}u{j}")));
            path.push("b1".to_string());
            let tail_from = format!("b{n_sat}");
            let mut tail = vec![tail_from];
            tail.extend((1..=after).map(|j| format!("f{k}d{j}")));
            tail.push(dst.clone());
            for p in path.iter().chain(tail.iter()).filter(|p| !p.starts_with('b')) {
                nodes.push(p.clone());
            }
            for (j, w) in path.windows(2).enumerate() {
                let d = if j == 0 { access_ns } else { isl_ns };
                links.push(link(format!("f{k}up{}", j + 1), &w[0], &w[1], access_rate.clone(), d, access_buffer as i64));
            }
            for (j, w) in tail.windows(2).enumerate() {
                let d = if j + 2 == tail.len() { access_ns } else { isl_ns };
                links.push(link(format!("f{k}down{}", j + 1), &w[0], &w[1], access_rate.clone(), d, access_buffer as i64));
            }
            // the schedule: (start, stop) in ns
            let q = (k - 1) * 4 / n_flows; // quarter 0..3
            let half = (k - 1) * 2 / n_flows;
            let (start_s, stop_s): (u64, Option<u64>) = match schedule {
                "B" => (5 * q as u64, None),
                "C" => (0, match q {
                    3 => Some(5),
                    2 => Some(10),
                    1 => Some(15),
                    _ => None,
                }),
                "D" => (5 * half as u64, match q {
                    1 => Some(10),
                    2 => Some(15),
                    _ => None,
                }),
                _ => (0, None),
            };
            let mut a = g.app.clone().unwrap_or_else(|| app_t.clone());
            let start = g.offset + start_s * 1_000_000_000 + (rng.uniform() * jitter_ns as f64) as u64;
            a.entry("kind").or_insert(s("ftp"));
            a.insert("start".into(), secs(start));
            if let (Some(st), false) = (stop_s, a.contains_key("stop")) {
                a.insert("stop".into(), secs(st * 1_000_000_000));
            }
            flows.push(table(&[("name", s(&format!("f{k}"))), ("src", s(&src)), ("dst", s(&dst)), ("tcp", tcp.clone()), ("app", Value::Table(a))]));
        }
    }
    let agent = match t.get("xfwa") {
        None | Some(Value::Boolean(false)) => None,
        Some(Value::Boolean(true)) => Some(toml::Table::new()),
        Some(Value::Table(x)) => Some(x.clone()),
        Some(v) => return Err(type_error(&t.at("xfwa"), v, "true, false or a table of XFWA keys")),
    };
    // write them into the scenario
    let Value::Table(top) = root else { unreachable!() };
    top.remove("multihop");
    let nt = top.entry("nodes").or_insert_with(|| Value::Table(toml::Table::new()));
    let Value::Table(nt) = nt else { return Err(type_error("nodes", nt, "a table of nodes")) };
    for n in nodes {
        if nt.contains_key(&n) {
            return Err(ScenarioError::new(format!("nodes.{n}"), "", "a name multihop does not generate (b1.., src1.., dst1.., f1u1..)"));
        }
        nt.insert(n, Value::Table(toml::Table::new()));
    }
    let mut append = |key: &str, items: Vec<Value>| -> Res<()> {
        let e = top.entry(key).or_insert_with(|| Value::Array(Vec::new()));
        let Value::Array(a) = e else { return Err(type_error(key, e, "an array of tables")) };
        a.extend(items);
        Ok(())
    };
    append("links", links)?;
    append("flows", flows)?;
    if let Some(mut x) = agent {
        x.insert("node".into(), s("b1"));
        x.insert("kind".into(), s("xfwa"));
        x.insert("link".into(), s("isl1"));
        append("agents", vec![Value::Table(x)])?;
    }
    Ok(())
}
