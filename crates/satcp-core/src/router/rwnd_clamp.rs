//! A receive-window clamp (`kind = "rwnd_clamp"`, `bytes = N`): the router
//! lowers the window advertised in every TCP segment it sends or forwards
//! to at most N bytes, and never raises it. The simplest router that
//! controls a sender through its ACKs; XFWA computes its window per flow
//! the same way.
//!
//! * The window field of a segment that is not a SYN counts units of 2^s
//!   bytes, s being the shift its sender announced in its SYN (RFC 7323);
//!   the clamp learns both shifts from the connection's SYN and SYN-ACK as
//!   they pass. Scaling is in force once a SYN-ACK with a window-scale
//!   option has passed (a SYN-ACK carries one only when the SYN did).
//! * A non-SYN segment's field becomes min(field, ceil(N / 2^s)): with a
//!   shift the field cannot say N exactly, and the window is N rounded up to
//!   a multiple of 2^s (rounding down could leave less than one segment,
//!   and a sender that sends only full segments would stall). A SYN's field
//!   is never scaled: min(field, N, 65535).
//! * A connection is identified by its flow (satcp's 4-tuple); a segment
//!   whose handshake the clamp never saw is read unscaled.
//! * `bytes` is at least every flow's MSS (checked with the scenario): a
//!   window under one segment would stall a sender that sends only full
//!   segments.

use std::collections::BTreeMap;

use super::RouterAgent;
use crate::net::packet::{FLAG_ACK, FLAG_SYN};
use crate::net::Packet;
use crate::sim::Time;

#[derive(Clone, Copy, Debug, Default)]
struct Conn {
    /// The shift each side announced: [server, client].
    shift: [Option<u8>; 2],
    /// A SYN-ACK with a window-scale option has passed.
    scaled: bool,
}

pub struct RwndClamp {
    bytes: u64,
    conns: Vec<Conn>,
    clamped: u64,
    seen: u64,
}

impl RwndClamp {
    pub fn new(bytes: u64, flows: usize) -> Self {
        RwndClamp { bytes, conns: vec![Conn::default(); flows], clamped: 0, seen: 0 }
    }
}

impl RouterAgent for RwndClamp {
    fn on_forward(&mut self, _now: Time, _dir: u32, p: &mut Packet) {
        if !p.kind.is_tcp() {
            return;
        }
        // the segment's sender: endpoint to_ep ^ 1 (2f is flow f's server)
        let side = ((p.to_ep ^ 1) % 2) as usize;
        let c = &mut self.conns[(p.to_ep / 2) as usize];
        let syn = p.tcp.has(FLAG_SYN);
        if syn {
            if let Some(s) = p.tcp.opt_wscale {
                c.shift[side] = Some(s);
                c.scaled |= p.tcp.has(FLAG_ACK);
            }
        }
        if !p.tcp.has(FLAG_ACK) {
            return; // a pure SYN advertises nothing to clamp
        }
        self.seen += 1;
        let limit = if syn {
            self.bytes.min(65_535)
        } else {
            let s = if c.scaled { c.shift[side].unwrap_or(0) } else { 0 };
            self.bytes.div_ceil(1 << s).clamp(1, 65_535)
        };
        if (p.tcp.wnd as u64) > limit {
            p.tcp.wnd = limit as u16;
            self.clamped += 1;
        }
    }

    fn counters(&self) -> BTreeMap<String, u64> {
        BTreeMap::from([("segments_seen".to_string(), self.seen), ("segments_clamped".to_string(), self.clamped)])
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::net::TcpHeader;

    fn seg(to_ep: u32, flags: u8, wnd: u16, wscale: Option<u8>) -> Packet {
        let h = TcpHeader { flags, wnd, opt_wscale: wscale, ..Default::default() };
        Packet::tcp(0, 1, to_ep, h, 0, 0, false)
    }

    #[test]
    fn clamps_in_the_scale_the_handshake_set_and_never_raises() {
        let mut c = RwndClamp::new(32_000, 2);
        // flow 1: client (ep 3) opens with shift 7, server (ep 2) answers with shift 5
        let mut syn = seg(2, FLAG_SYN, 65_535, Some(7));
        c.on_forward(0, 0, &mut syn);
        assert_eq!(syn.tcp.wnd, 65_535, "a pure SYN is left alone");
        let mut synack = seg(3, FLAG_SYN | FLAG_ACK, 65_535, Some(5));
        c.on_forward(0, 0, &mut synack);
        assert_eq!(synack.tcp.wnd, 32_000, "a SYN-ACK's window is unscaled");
        // the server's ACKs count 32-byte units, the client's 128-byte units
        let mut from_server = seg(3, FLAG_ACK, 2_000, None);
        c.on_forward(0, 0, &mut from_server);
        assert_eq!(from_server.tcp.wnd, 1_000);
        let mut from_client = seg(2, FLAG_ACK, 2_000, None);
        c.on_forward(0, 0, &mut from_client);
        assert_eq!(from_client.tcp.wnd, 250);
        let mut small = seg(2, FLAG_ACK, 100, None);
        c.on_forward(0, 0, &mut small);
        assert_eq!(small.tcp.wnd, 100, "never raised");
        // flow 0 never showed its handshake: read unscaled
        let mut other = seg(1, FLAG_ACK, 65_535, None);
        c.on_forward(0, 0, &mut other);
        assert_eq!(other.tcp.wnd, 32_000);
        let n = c.counters();
        assert_eq!((n["segments_seen"], n["segments_clamped"]), (5, 4));
    }

    #[test]
    fn a_clamp_between_two_units_rounds_up() {
        let mut c = RwndClamp::new(1460, 1);
        c.on_forward(0, 0, &mut seg(1, FLAG_SYN, 65_535, Some(3)));
        c.on_forward(0, 0, &mut seg(0, FLAG_SYN | FLAG_ACK, 65_535, Some(3)));
        let mut ack = seg(1, FLAG_ACK, 65_535, None);
        c.on_forward(0, 0, &mut ack);
        assert_eq!(ack.tcp.wnd, 183, "183 x 8 = 1464 >= 1460: one segment still fits");
    }

    #[test]
    fn no_scaling_unless_the_syn_ack_confirms_it() {
        let mut c = RwndClamp::new(32_000, 1);
        c.on_forward(0, 0, &mut seg(0, FLAG_SYN, 65_535, Some(7)));
        c.on_forward(0, 0, &mut seg(1, FLAG_SYN | FLAG_ACK, 65_535, None));
        let mut ack = seg(0, FLAG_ACK, 65_535, None);
        c.on_forward(0, 0, &mut ack);
        assert_eq!(ack.tcp.wnd, 32_000);
    }
}
