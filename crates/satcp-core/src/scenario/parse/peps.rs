//! `[[peps]]`: split-TCP performance-enhancing proxies (`pep/`,
//! docs/models/pep.md).
//!
//! Keys: `node` (required), `peer` (a second PEP at the other end of the
//! satellite hop), `leg` (an inline table of `tcp` keys: the connection a
//! PEP opens; default the flow's own; without `profile`, the flow's
//! profile: `PepLeg`), `buffer` (per direction of a split
//! connection, default 4 MB), `pool` (per PEP, default 256 MB, at least two
//! buffers), `split` (`"all"` or `{ ports = [...] }`), `pool_full`
//! (`"wait"` or `"pass"`), `unknown_options` (`"strip"` or `"forward"`),
//! `receive_window` (`"autotune"`, default: Linux's socket buffers, as a
//! PEP on Linux runs them; `"fixed"`: the whole buffer from the start).

use super::tcp::parse_tcp;
use crate::tcp::profile::Profile;
use super::*;

const PEPS_EXPECTED: &str = "an array of PEP tables ([[peps]] with node and optional peer, leg, buffer, pool, split, pool_full, unknown_options, receive_window)";
const SPLIT_EXPECTED: &str = "\"all\" or a table { ports = [80, 443] }";

/// Default receive buffer of each direction of a split connection.
pub const DEFAULT_BUFFER: u64 = 4_000_000;
/// Default memory of a PEP.
pub const DEFAULT_POOL: u64 = 256_000_000;

pub(super) fn parse_peps(root: &Tbl, nodes: &[NodeCfg], flows: &[FlowCfg]) -> Res<Vec<PepCfg>> {
    let Some(v) = root.get("peps") else { return Ok(Vec::new()) };
    let Value::Array(arr) = v else { return Err(type_error("peps", v, PEPS_EXPECTED)) };
    let mut out: Vec<PepCfg> = Vec::with_capacity(arr.len());
    for (i, pv) in arr.iter().enumerate() {
        let mut t = Tbl::new(format!("peps.{}", i), pv, "a PEP table ([[peps]])")?;
        t.only(&["node", "peer", "leg", "buffer", "pool", "split", "pool_full", "unknown_options", "receive_window"])?;
        let node = node_ref(&t, "node", nodes)?;
        let peer = match t.get("peer") {
            None => None,
            Some(_) => Some(node_ref(&t, "peer", nodes)?),
        };
        if peer == Some(node) {
            return Err(t.bad("peer", format!("a node other than node (\"{}\"): the PEP at the other end of the satellite hop", nodes[node].name)));
        }
        for (key, n) in [("node", Some(node)), ("peer", peer)] {
            let Some(n) = n else { continue };
            if let Some(j) = out.iter().position(|p| p.node == n || p.peer == Some(n)) {
                return Err(t.bad(key, format!("a node without a PEP (peps.{} already has one at \"{}\")", j, nodes[n].name)));
            }
        }
        let leg = match t.get("leg") {
            None => None,
            Some(lv) => {
                let lt = Tbl::new(t.at("leg"), lv, "an inline table of TCP settings, e.g. { variant = \"hybla\", initial_window = 10 }")?;
                let (c, leg) = parse_leg(&lt, flows)?;
                if lt.map.contains_key("rwnd") {
                    return Err(lt.bad("rwnd", "no rwnd: a PEP's receive buffer on every leg is the PEP's `buffer`"));
                }
                if !c.fin {
                    return Err(lt.bad("fin", "true: a PEP passes the end of the stream on with a FIN"));
                }
                if !c.handshake && peer.is_none() {
                    return Err(lt.bad(
                        "handshake",
                        "true without a peer: only the leg between two PEPs may start established (handshake = false, a connection the PEPs keep open)",
                    ));
                }
                Some(leg)
            }
        };
        let buffer_bytes = t.size_pos("buffer")?.unwrap_or(DEFAULT_BUFFER);
        if buffer_bytes > (65_535u64 << 14) {
            return Err(t.bad("buffer", "at most 1073725440 bytes (the largest window TCP can offer, 65535 x 2^14)"));
        }
        let pool_bytes = t.size_pos("pool")?.unwrap_or(DEFAULT_POOL);
        if pool_bytes < 2 * buffer_bytes {
            return Err(t.bad("pool", format!("at least two buffers ({} bytes): a split connection reserves one per direction", 2 * buffer_bytes)));
        }
        let split = match t.get("split") {
            None => PepSplit::All,
            Some(Value::String(s)) if s == "all" => PepSplit::All,
            Some(Value::Table(_)) => {
                let st = Tbl::new(t.at("split"), t.get("split").expect("present"), SPLIT_EXPECTED)?;
                let mut st = st;
                st.only(&["ports"])?;
                let Some(Value::Array(ports)) = st.get("ports") else {
                    return Err(st.bad("ports", "an array of port numbers 1-65535, e.g. [80, 443]"));
                };
                let mut list = Vec::with_capacity(ports.len());
                for p in ports {
                    match p.as_integer() {
                        Some(n) if (1..=65535).contains(&n) => list.push(n as u16),
                        _ => return Err(st.bad("ports", "an array of port numbers 1-65535, e.g. [80, 443]")),
                    }
                }
                if list.is_empty() {
                    return Err(st.bad("ports", "at least one port (a PEP that splits nothing is no PEP)"));
                }
                PepSplit::Ports(list)
            }
            Some(_) => return Err(t.bad("split", SPLIT_EXPECTED)),
        };
        let pool_full = match t.choice("pool_full", &["wait", "pass"])? {
            Some("pass") => PoolFull::Pass,
            _ => PoolFull::Wait,
        };
        let unknown_options = match t.choice("unknown_options", &["strip", "forward"])? {
            Some("forward") => UnknownOptions::Forward,
            _ => UnknownOptions::Strip,
        };
        let receive_window = match t.choice("receive_window", &["autotune", "fixed"])? {
            Some("fixed") => PepWindow::Fixed,
            _ => PepWindow::Autotune,
        };
        out.push(PepCfg { node, peer, leg, buffer_bytes, pool_bytes, split, pool_full, unknown_options, receive_window });
    }
    Ok(out)
}

/// A PEP's `leg` table: as named, or (no `profile`) over each profile the
/// flows use, the profile `rfc` when there are none. Returns one of the
/// parsed configurations (the keys' checks that follow do not depend on
/// the profile) and the leg. An error under a flow's profile says so.
fn parse_leg(lt: &Tbl, flows: &[FlowCfg]) -> Res<(TcpCfg, PepLeg)> {
    if lt.map.contains_key("profile") {
        let c = parse_tcp(Tbl { path: lt.path.clone(), map: lt.map, allowed: &[] })?;
        return Ok((c.clone(), PepLeg::Named(c)));
    }
    let mut profiles: Vec<Profile> = flows.iter().map(|f| f.tcp.profile).collect();
    profiles.sort_by_key(|p| *p as usize);
    profiles.dedup();
    if profiles.is_empty() {
        profiles.push(Profile::Rfc);
    }
    let mut by = Vec::with_capacity(profiles.len());
    for p in profiles {
        let mut map = lt.map.clone();
        map.insert("profile".into(), Value::String(p.name().into()));
        let c = parse_tcp(Tbl { path: lt.path.clone(), map: &map, allowed: &[] }).map_err(|mut e| {
            e.allowed = format!(
                "{} (the leg names no profile, so it takes its flows' profile, here \"{}\"; give the leg its own with leg.profile)",
                e.allowed,
                p.name()
            );
            e
        })?;
        by.push(c);
    }
    Ok((by[0].clone(), PepLeg::FlowProfile(by)))
}

/// Every TCP flow a PEP may split must cross its node both ways, or
/// neither: a PEP on one direction's route only would see the opener's
/// SYN, answer it and open its own connection, whose replies (addressed,
/// as a transparent proxy's are, to the opener) take the other route and
/// never reach it; a real one breaks such a connection (its SYN-ACK
/// reaches an end that opened nothing). So such a scenario is refused,
/// naming the PEP and the flow, rather than run as a network where the
/// PEP sees half a connection. Checked on the routes at the start (every
/// link up, the shortest paths the run starts with, `net/routing.rs`);
/// routes that change later (`changes`, a constellation: PEPs are not
/// checked with `[[constellations]]`) are not. Flows the PEP would not
/// split (`split = false`, a port not listed, UDP, QUIC) are not checked.
pub(super) fn check_pep_routes(peps: &[PepCfg], flows: &[FlowCfg], links: &[LinkCfg], nodes: &[NodeCfg], leo: bool) -> Res<()> {
    if peps.is_empty() || leo {
        return Ok(());
    }
    let edges: Vec<crate::net::routing::Edge> =
        links.iter().flat_map(|l| [(l.a as u32, l.b as u32, l.dirs[0].delay_ns, true), (l.b as u32, l.a as u32, l.dirs[1].delay_ns, true)]).collect();
    let mut dsts: Vec<u32> = flows.iter().flat_map(|f| [f.src as u32, f.dst as u32]).collect();
    dsts.sort_unstable();
    dsts.dedup();
    let routes = crate::net::routing::compute(nodes.len(), &edges, &dsts, &[]);
    // the nodes a route passes through (its ends excluded)
    let inside = |from: usize, to: usize| -> Vec<u32> {
        routes.path(from as u32, to as u32).map(|p| p.iter().map(|&d| edges[d as usize].1).filter(|&n| n != to as u32).collect()).unwrap_or_default()
    };
    for (i, c) in peps.iter().enumerate() {
        for (key, node) in [("node", Some(c.node)), ("peer", c.peer)] {
            let Some(node) = node else { continue };
            for f in flows {
                let tcp = f.quic.is_none() && matches!(f.app, AppCfg::Ftp(_) | AppCfg::Http(_));
                let listed = match &c.split {
                    PepSplit::All => true,
                    PepSplit::Ports(p) => p.contains(&f.port),
                };
                if !(tcp && f.split && listed) {
                    continue;
                }
                let there = inside(f.src, f.dst).contains(&(node as u32));
                let back = inside(f.dst, f.src).contains(&(node as u32));
                if there != back {
                    let (yes, no) = if there { (&nodes[f.src], &nodes[f.dst]) } else { (&nodes[f.dst], &nodes[f.src]) };
                    return Err(ScenarioError::new(
                        format!("peps.{i}.{key}"),
                        format!("\"{}\"", nodes[node].name),
                        format!(
                            "a node both directions of flow \"{}\" cross, or neither: its route from \"{}\" crosses \"{}\" and the way back from \"{}\" does not, and a PEP that sees one direction cannot split a connection (give the flow split = false, or make the routes symmetric)",
                            f.name, yes.name, nodes[node].name, no.name
                        ),
                    ));
                }
            }
        }
    }
    Ok(())
}
