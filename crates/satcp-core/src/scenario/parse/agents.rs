//! `[[agents]]`: router agents on a node's forwarding path (`router/`).
//!
//! Keys: `node` (required), `kind` (required: a name in the agent
//! registry, `router/mod.rs`), `link` (optional: a link index or name
//! attached to the node; the agent then watches only that interface), and
//! the kind's own keys, which its file in `router/` lists and reads
//! (`AgentParams`): a key of another kind is an unknown key here.

use super::*;
use crate::router::{self, AgentSite};

const AGENTS_EXPECTED: &str = "an array of agent tables ([[agents]] with node, kind and the kind's keys)";
const COMMON_KEYS: [&str; 3] = ["node", "kind", "link"];

pub(super) fn parse_agents(root: &Tbl, nodes: &[NodeCfg], links: &[LinkCfg], flows: &[FlowCfg]) -> Res<Vec<AgentCfg>> {
    let Some(v) = root.get("agents") else { return Ok(Vec::new()) };
    let Value::Array(arr) = v else { return Err(type_error("agents", v, AGENTS_EXPECTED)) };
    let kinds: Vec<&str> = router::REGISTRY.iter().map(|e| e.name).collect();
    let mut out = Vec::with_capacity(arr.len());
    for (i, av) in arr.iter().enumerate() {
        let mut t = Tbl::new(format!("agents.{}", i), av, "an agent table ([[agents]])")?;
        t.allowed = &["kind"];
        let kind = t.choice("kind", &kinds)?;
        let kind = t.require("kind", kind, &format!("one of {}", quoted_list(&kinds)))?;
        let entry = router::entry(kind).expect("a registered kind");
        t.only(allowed_keys(entry))?;
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
        let kind = (entry.parse)(&t, &AgentSite { link, flows })?;
        out.push(AgentCfg { node, link, kind });
    }
    Ok(out)
}

/// `node`, `kind`, `link` and the kind's own keys, per kind in registry
/// order.
fn allowed_keys(entry: &'static router::Entry) -> &'static [&'static str] {
    use std::sync::OnceLock;
    static LISTS: OnceLock<Vec<Vec<&'static str>>> = OnceLock::new();
    let lists = LISTS.get_or_init(|| router::REGISTRY.iter().map(|e| COMMON_KEYS.iter().chain(e.keys).copied().collect()).collect());
    let k = router::REGISTRY.iter().position(|e| std::ptr::eq(e, entry)).expect("a registered kind");
    &lists[k]
}
