//! PEP tests that look inside the world at an instant (`world/pep.rs`):
//! the states of the flow's and the PEP's endpoints.

use super::World;
use crate::scenario::parse_toml;
use crate::tcp::State;

/// client -(100 Mb/s, 1 ms)- term -(2 Mb/s down, 256 kb/s up, 250 ms)- gw
/// -(10 Mb/s, 5 ms)- server, and `rest` (flows, PEPs).
pub(crate) fn chain(rest: &str) -> String {
    format!("[run]\nseed = 3\nstop = \"300s\"\n{}\n{rest}\n", include_str!("../../tests/data/pep_chain.toml"))
}

const WEB: &str = r#"
[[flows]]
name = "web"
src = "server"
dst = "client"
tcp = { variant = "sack", rwnd = "1MB" }
app = { kind = "http", pages = 1, main_object = "10kB", embedded_objects = 0 }
"#;

/// The world after every event before `t_ns`.
fn world_at(text: &str, t_ns: u64) -> World {
    let scn = parse_toml(text, &[]).unwrap();
    let mut w = World::build(&scn);
    w.run_observed(1, &mut |now| now < t_ns);
    w
}

/// The spoofed handshake: the client's SYN (52 bytes: 4.2 us at 100 Mb/s)
/// reaches the terminal's PEP at 1.004 ms, whose end answers; the SYN-ACK
/// is back at 2.008 ms: the client is established after one access round
/// trip, not the 0.5 s of the satellite's. Without the PEP it is still
/// waiting at 100 ms. The PEP's own end has sent its SYN towards the
/// server at the same instant (1.004 ms) and waits for the satellite.
#[test]
fn the_client_is_established_after_one_access_round_trip() {
    let pep = chain(&format!("{WEB}\n[[peps]]\nnode = \"term\"\n"));
    let client = 1; // flow 0's client endpoint
    assert_eq!(world_at(&pep, 2_000_000).eps[client].state, State::SynSent);
    let w = world_at(&pep, 2_100_000);
    assert_eq!(w.eps[client].state, State::Established);
    // the PEP's ends: 2 (answered the client), 3 (opened towards the server)
    assert_eq!(w.eps.len(), 4);
    // (the PEP's end is established when the client's ACK arrives, ~3 ms)
    assert_eq!((w.eps[2].state, w.eps[3].state), (State::SynRcvd, State::SynSent));
    assert_eq!(world_at(&pep, 3_100_000).eps[2].state, State::Established);
    assert_eq!(w.eps[0].state, State::Listen, "the server has seen nothing yet");
    let e2e = chain(WEB);
    assert_eq!(world_at(&e2e, 100_000_000).eps[client].state, State::SynSent);
}

/// A non-TCP flow is never looked at: a CBR flow and a QUIC flow across
/// a pair of PEPs leave the PEPs without a slot set, and the run's flows
/// and links are those of the run without PEPs (but for the count of
/// events: a PEP's node is not cut through).
#[test]
fn udp_and_quic_pass_the_peps_untouched() {
    let flows = r#"
[[flows]]
name = "cbr"
src = "server"
dst = "client"
app = { kind = "cbr", rate = "200kbps", packet_size = 500, stop = "5s" }
[[flows]]
name = "quic"
src = "server"
dst = "client"
transport = "quic"
app = { kind = "ftp", size = "200kB" }
"#;
    let with = chain(&format!("{flows}\n[[peps]]\nnode = \"gw\"\npeer = \"term\"\n"));
    let scn = parse_toml(&with, &[]).unwrap();
    let mut w = World::build(&scn);
    w.run();
    let peps = w.peps.as_deref().unwrap();
    assert!(peps.list.iter().all(|p| p.flows.iter().all(|s| *s == crate::pep::Slot::Unseen)));
    assert!(peps.relays.is_empty());
    let a = w.into_output().summary;
    let b = crate::run(&parse_toml(&chain(flows), &[]).unwrap()).summary;
    let strip = |s: &crate::stats::output::Summary| {
        let mut v = serde_json::to_value(s).unwrap();
        let o = v.as_object_mut().unwrap();
        o.remove("wall_s");
        o.remove("peps");
        // a PEP's node is never cut through: more events, the same run
        o.remove("events");
        for f in o["flows"].as_array_mut().unwrap() {
            f.as_object_mut().unwrap().remove("first_byte_s");
        }
        v
    };
    assert_eq!(strip(&a), strip(&b));
    assert!(a.flows.iter().all(|f| f.completed || f.udp.is_some()));
}
