//! `[[flows]]`: endpoints, reachability, and each flow's `tcp` and `app`
//! tables.

use super::apps::{parse_app, APP_EXPECTED};
use super::tcp::parse_tcp;
use super::*;
/// `component[n]`: which nodes may reach which (`components` in `mod.rs`).
pub(super) fn parse_flows(root: &Tbl, nodes: &[NodeCfg], component: &[usize]) -> Res<Vec<FlowCfg>> {
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
        if component[dst] != component[src] {
            let names: Vec<&str> =
                nodes.iter().zip(component).filter(|(_, c)| **c == component[src]).map(|(n, _)| n.name.as_str()).collect();
            return Err(t.bad(
                "dst",
                format!(
                    "a node reachable from {:?} over the links (reachable: {})",
                    nodes[src].name,
                    few(&names)
                ),
            ));
        }
        let empty = Value::Table(toml::Table::new());
        let tcp_v = t.get("tcp").unwrap_or(&empty);
        let tcp = parse_tcp(Tbl::new(t.at("tcp"), tcp_v, "an inline table of TCP settings, e.g. { variant = \"sack\" }")?)?;
        let app_v = t.get("app").ok_or_else(|| missing(&t.at("app"), APP_EXPECTED))?;
        let app = parse_app(Tbl::new(t.at("app"), app_v, APP_EXPECTED)?)?;
        if let AppCfg::Ftp(f) = &app {
            if f.response_end == ResponseEnd::Fin && !tcp.fin {
                let at = Tbl::new(t.at("app"), app_v, APP_EXPECTED)?;
                return Err(at.bad(
                    "response_end",
                    "\"last_byte\" or \"last_ack\": this flow's TCP sends no FIN (tcp.fin = false, the ns2 profiles' default)",
                ));
            }
        }
        let udp = match &app {
            AppCfg::Cbr(_) => true,
            AppCfg::OnOff(o) => !o.tcp,
            _ => false,
        };
        if udp && t.get("tcp").is_some() {
            return Err(t.bad("tcp", "no tcp table: a cbr or onoff application sends UDP (onoff takes transport = \"tcp\")"));
        }
        flows.push(FlowCfg { name, src, dst, tcp, app });
    }
    Ok(flows)
}
