//! `[[agents]]`: router agents on a node's forwarding path (`router/`).
//!
//! Keys: `node` (required), `kind` (required), `link` (optional: a link
//! index or name attached to the node; the agent then watches only that
//! interface), and the kind's own keys: `rwnd_clamp` needs `bytes`, at
//! least the largest MSS of the scenario's TCP flows (a window under one
//! segment stalls a sender that sends only full segments); `ceten` takes
//! `initial` (its estimates' starting value, in [0, 1], 1),
//! `overflow_decays_survival` (false) and `estimator`; `xfwa` needs `link`
//! and takes `alpha`, `isl_delay`, `extra_hops`, `q_size`, `new_flows`,
//! `rtt_error` and `rtt_error_dist` (`router/xfwa.rs`).

use super::*;
use crate::router::xfwa::{ErrorDist, NewFlows, QSize, XfwaCfg};

const AGENTS_EXPECTED: &str = "an array of agent tables ([[agents]] with node, kind and the kind's keys)";
const KINDS: &[&str] = &["rwnd_clamp", "monitor", "ceten", "xfwa"];
const XFWA_KEYS: &[&str] = &[
    "node", "kind", "link", "alpha", "isl_delay", "extra_hops", "q_size", "new_flows", "rtt_error", "rtt_error_dist",
];

pub(super) fn parse_agents(root: &Tbl, nodes: &[NodeCfg], links: &[LinkCfg], flows: &[FlowCfg]) -> Res<Vec<AgentCfg>> {
    let Some(v) = root.get("agents") else { return Ok(Vec::new()) };
    let Value::Array(arr) = v else { return Err(type_error("agents", v, AGENTS_EXPECTED)) };
    let mut out = Vec::with_capacity(arr.len());
    for (i, av) in arr.iter().enumerate() {
        let mut t = Tbl::new(format!("agents.{}", i), av, "an agent table ([[agents]])")?;
        t.allowed = &["kind"];
        let kind = t.choice("kind", KINDS)?;
        let kind = t.require("kind", kind, &format!("one of {}", quoted_list(KINDS)))?;
        t.only(match kind {
            "rwnd_clamp" => &["node", "kind", "link", "bytes"],
            "ceten" => &["node", "kind", "link", "initial", "overflow_decays_survival", "estimator"],
            "xfwa" => XFWA_KEYS,
            _ => &["node", "kind", "link"],
        })?;
        let node = node_ref(&t, "node", nodes)?;
        let link = link_ref(root, &t, "link")?;
        if let Some(l) = link {
            if links[l].a != node && links[l].b != node {
                let (a, b) = (&nodes[links[l].a].name, &nodes[links[l].b].name);
                return Err(t.bad(
                    "link",
                    format!("a link attached to node \"{}\" (links.{} joins \"{}\" and \"{}\")", nodes[node].name, l, a, b),
                ));
            }
        }
        let kind = match kind {
            "rwnd_clamp" => {
                let bytes = t.require("bytes", t.size_pos("bytes")?, &positive(units::SIZE_ALLOWED))?;
                let udp = |f: &FlowCfg| match &f.app {
                    AppCfg::Cbr(_) => true,
                    AppCfg::OnOff(o) => !o.tcp,
                    _ => false,
                };
                let mss = flows.iter().filter(|f| !udp(f)).map(|f| f.tcp.mss).max();
                if let Some(mss) = mss.filter(|&m| bytes < m as u64) {
                    return Err(t.bad(
                        "bytes",
                        format!("a size >= the largest mss of the scenario's TCP flows ({mss} bytes): a window under one segment stalls a sender that sends only full segments"),
                    ));
                }
                AgentKind::RwndClamp { bytes }
            }
            "ceten" => AgentKind::Ceten {
                initial: t.prob_closed("initial")?.unwrap_or(1.0),
                overflow_decays_survival: t.bool("overflow_decays_survival")?.unwrap_or(false),
                per_packet: t.choice("estimator", &["persistent", "per_packet"])? == Some("per_packet"),
            },
            "xfwa" => {
                if link.is_none() {
                    return Err(missing(&t.at("link"), "the link whose interface the agent adjusts (its data leaves over it)"));
                }
                AgentKind::Xfwa(parse_xfwa(&t)?)
            }
            _ => AgentKind::Monitor,
        };
        out.push(AgentCfg { node, link, kind });
    }
    Ok(out)
}

/// XFWA's keys (`router/xfwa.rs`); every one has the paper's default.
fn parse_xfwa(t: &Tbl) -> Res<XfwaCfg> {
    let d = XfwaCfg::default();
    Ok(XfwaCfg {
        alpha: t.number("alpha", |x| x > 0.0 && x <= 10.0, "a skew factor in (0, 10], e.g. 1")?.unwrap_or(d.alpha),
        isl_delay_ns: t.duration("isl_delay")?.unwrap_or(d.isl_delay_ns),
        extra_hops: t.u32_in("extra_hops", 0, 64)?.unwrap_or(d.extra_hops),
        q_size: match t.choice("q_size", &["capacity", "free"])? {
            Some("free") => QSize::Free,
            Some(_) => QSize::Capacity,
            None => d.q_size,
        },
        new_flows: match t.choice("new_flows", &["wait", "immediate"])? {
            Some("immediate") => NewFlows::Immediate,
            Some(_) => NewFlows::Wait,
            None => d.new_flows,
        },
        rtt_error: t.number("rtt_error", |x| (0.0..1.0).contains(&x), "a relative error sigma in [0, 1), e.g. 0.1")?.unwrap_or(d.rtt_error),
        rtt_error_dist: match t.choice("rtt_error_dist", &["uniform", "uniform_variance", "normal"])? {
            Some("uniform_variance") => ErrorDist::UniformVariance,
            Some("normal") => ErrorDist::Normal,
            Some(_) => ErrorDist::Uniform,
            None => d.rtt_error_dist,
        },
    })
}
