//! `[[agents]]`: router agents on a node's forwarding path (`router/`).
//!
//! Keys: `node` (required), `kind` (required), `link` (optional: a link
//! index or name attached to the node; the agent then watches only that
//! interface), and the kind's own keys: `rwnd_clamp` needs `bytes`, at
//! least the largest MSS of the scenario's TCP flows (a window under one
//! segment stalls a sender that sends only full segments); `ceten` takes
//! `initial` (its estimates' starting value, in [0, 1], 1) and
//! `overflow_decays_survival` (false).

use super::*;

const AGENTS_EXPECTED: &str = "an array of agent tables ([[agents]] with node, kind and the kind's keys)";
const KINDS: &[&str] = &["rwnd_clamp", "monitor", "ceten"];

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
                let mss = flows.iter().filter(|f| !matches!(f.app, AppCfg::Cbr(_) | AppCfg::OnOff(_))).map(|f| f.tcp.mss).max();
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
            _ => AgentKind::Monitor,
        };
        out.push(AgentCfg { node, link, kind });
    }
    Ok(out)
}
