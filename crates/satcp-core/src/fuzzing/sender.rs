//! An established TCP sender fed arbitrary ACK streams and timer expiries,
//! for every variant (window controller and recovery) and profile.

use super::receiver::Pair;
use super::{tcp_cfg, Bytes};
use crate::net::packet::{FLAG_ACK, FLAG_FIN, FLAG_SYN};
use crate::net::{Packet, TcpHeader};
use crate::tcp::State;

const PROFILES: &[&str] = &["rfc", "linux", "ns2"];

/// Every variant name the scenario accepts.
fn variants() -> Vec<&'static str> {
    crate::tcp::cc::REGISTRY.iter().flat_map(|e| e.presets.iter().map(|p| p.name)).collect()
}

pub fn sender(data: &[u8]) {
    let mut b = Bytes::new(data);
    let names = variants();
    let variant = names[b.pick(names.len())];
    let profile = PROFILES[b.pick(PROFILES.len())];
    let mut sets = vec![format!("flows.0.tcp.variant=\"{variant}\""), format!("flows.0.tcp.profile=\"{profile}\"")];
    if b.bool() {
        sets.push("flows.0.tcp.max_retransmissions=0".into());
    }
    let Some(mut cfg) = tcp_cfg(&sets) else { return };
    cfg.iss = b.u32();
    let mut pair = Pair::new(&cfg);
    pair.connect();
    assert_eq!(pair.eps[0].state, State::Established);
    let total = 1 + b.u32() as u64 % 2_000_000;
    let sent = pair.act(0, &mut |e, c| e.write(c, total));
    check_sent(&pair, &sent, &sets);
    let iss = cfg.iss;
    for _ in 0..3000 {
        if b.done() {
            break;
        }
        let s = pair.eps[0].flow_counters();
        let (una, max) = (s.snd_una, s.snd_max);
        let out = match b.pick(6) {
            // time passes; the sender's timers fire
            0 => {
                pair.now += b.u16() as u64 * 50_000;
                pair.timers(0)
            }
            op => {
                // an ACK at or near una, near max, or anywhere
                let ack = match op {
                    1 | 2 => una + (b.u16() as u64 % 4000),
                    3 => (max as i64 - (b.u16() as i64 % 4000)).max(0) as u64,
                    4 => una,
                    _ => b.u32() as u64,
                };
                let mut h = TcpHeader { seq: b.u32(), ack: iss.wrapping_add(ack as u32), wnd: b.u16(), flags: FLAG_ACK, ..Default::default() };
                if b.u8() < 8 {
                    h.flags |= if b.bool() { FLAG_SYN } else { FLAG_FIN };
                }
                let n = b.pick(5);
                let blocks: Vec<(u32, u32)> = (0..n)
                    .map(|_| {
                        let s = una + b.u16() as u64 * 16;
                        let e = s + b.u16() as u64 % 20_000;
                        if b.u8() < 30 {
                            (b.u32(), b.u32())
                        } else {
                            (iss.wrapping_add(s as u32), iss.wrapping_add(e as u32))
                        }
                    })
                    .collect();
                h.set_sack(&blocks);
                pair.now += b.u8() as u64 * 100_000;
                let p = Packet::tcp(1, 0, 0, h, 0, 0, false);
                pair.act(0, &mut |e, c| e.on_segment(c, &p))
            }
        };
        check_sent(&pair, &out, &sets);
    }
}

/// The sender's state after an event, and what it sent in it.
fn check_sent(pair: &Pair, out: &[Packet], sets: &[String]) {
    let e = &pair.eps[0];
    let s = e.flow_counters();
    let smss = s.smss;
    assert!(s.snd_una <= s.snd_max, "una {} above max {}", s.snd_una, s.snd_max);
    if e.state != State::Established {
        return;
    }
    assert!(s.cwnd >= smss, "cwnd {} below one segment ({smss}; {sets:?})", s.cwnd);
    // BBR keeps its packet-conservation window there and no threshold
    let bbr = sets.iter().any(|x| x.contains("\"bbr"));
    let ssthresh = s.ssthresh.unwrap_or(u64::MAX);
    assert!(bbr || ssthresh >= 2 * smss, "ssthresh {ssthresh} below two segments ({sets:?})");
    for p in out.iter().filter(|p| p.payload > 0 && !p.retx) {
        let end = p.stream_off + p.payload as u64;
        // new data within the peer's window (a probe of one segment when
        // it is closed)
        assert!(end <= s.snd_una + s.peer_wnd.max(smss) || end <= s.snd_max, "new data to {end} beyond una {} + window {}", s.snd_una, s.peer_wnd);
    }
}
