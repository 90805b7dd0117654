//! `[[flows]]`: endpoints, reachability, and each flow's `tcp` and `app`
//! tables.

use super::apps::{parse_app, APP_EXPECTED};
use super::tcp::parse_tcp;
use super::*;
use std::collections::HashMap;
/// `component[n]`: which nodes may reach which (`components` in `mod.rs`).
pub(super) fn parse_flows(root: &Tbl, nodes: &[NodeCfg], component: &[usize]) -> Res<Vec<FlowCfg>> {
    let arr = array(root, "flows", "an array of at least one flow table ([[flows]])")?;
    let mut flows: Vec<FlowCfg> = Vec::new();
    // name -> index: a scan of the flows so far made parsing quadratic
    // (7% of a 10,000-flow run's time)
    let mut named: HashMap<String, usize> = HashMap::new();
    for (i, fv) in arr.iter().enumerate() {
        let mut t = Tbl::new(format!("flows.{}", i), fv, "a flow table ([[flows]])")?;
        t.allowed = &["name"];
        let name = match t.str("name")? {
            Some(n) => {
                check_name(&t, "name", n)?;
                if let Some(j) = named.get(n) {
                    return Err(t.bad("name", format!("a name not used by another flow (flows.{} is already named {:?})", j, n)));
                }
                t.path = format!("flows.{}", n);
                n.to_string()
            }
            None => format!("flow{}", i),
        };
        if named.contains_key(&name) {
            return Err(ScenarioError::new(
                t.at("name"),
                "",
                format!("a name for this flow: its default name {:?} is already used by another flow", name),
            ));
        }
        t.only(&["name", "src", "dst", "tcp", "app", "transport", "quic", "port", "split"])?;
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
        let quic = match t.choice("transport", &["tcp", "quic"])? {
            Some("quic") => Some(super::quic::parse_quic(&t, &app)?),
            _ => {
                if t.get("quic").is_some() {
                    return Err(t.bad("quic", "no quic table: this flow's transport is TCP (add transport = \"quic\")"));
                }
                None
            }
        };
        if udp && t.get("transport").is_some() {
            return Err(t.bad("transport", "no transport: a cbr or onoff application sends UDP (onoff takes its own transport = \"tcp\")"));
        }
        let port = t.u32_in("port", 1, 65535)?.unwrap_or(80) as u16;
        let split = t.bool("split")?.unwrap_or(true);
        named.insert(name.clone(), flows.len());
        flows.push(FlowCfg { name, src, dst, tcp, app, quic, port, split });
    }
    Ok(flows)
}

#[cfg(test)]
mod tests {
    use crate::scenario::parse_toml;

    fn scenario(flows: &str) -> String {
        format!(
            "[nodes]\na = {{}}\nb = {{}}\n[[links]]\na = \"a\"\nb = \"b\"\nrate = \"10Mbps\"\ndelay = \"10ms\"\n{flows}"
        )
    }

    fn flow(name: Option<&str>) -> String {
        let name = name.map_or(String::new(), |n| format!("name = \"{n}\"\n"));
        format!("[[flows]]\n{name}src = \"a\"\ndst = \"b\"\napp = {{ kind = \"ftp\", size = \"10kB\" }}\n")
    }

    /// A flow's name is unique: a second explicit use names the first
    /// flow's index; an unnamed flow whose default name (`flow<i>`) is
    /// taken is refused; names and defaults that differ are accepted.
    #[test]
    fn flow_names_are_unique() {
        let dup = scenario(&[flow(Some("x")), flow(None), flow(Some("x"))].concat());
        let e = parse_toml(&dup, &[]).unwrap_err().to_string();
        assert!(e.contains("flows.0 is already named \"x\""), "{e}");
        let clash = scenario(&[flow(Some("flow1")), flow(None)].concat());
        let e = parse_toml(&clash, &[]).unwrap_err().to_string();
        assert!(e.contains("its default name \"flow1\" is already used"), "{e}");
        let ok = scenario(&[flow(Some("x")), flow(None), flow(Some("flow0")), flow(None)].concat());
        let s = parse_toml(&ok, &[]).unwrap();
        let names: Vec<&str> = s.flows.iter().map(|f| f.name.as_str()).collect();
        assert_eq!(names, ["x", "flow1", "flow0", "flow3"]);
        // thousands of flows: each name checked once (a map, not a scan)
        let many = scenario(&(0..3000).map(|_| flow(None)).collect::<String>());
        assert_eq!(parse_toml(&many, &[]).unwrap().flows.len(), 3000);
    }
}
