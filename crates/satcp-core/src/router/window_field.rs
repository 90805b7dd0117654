//! The advertised window of segments passing a router, as a router that
//! lowers it must read it (`rwnd_clamp`, `xfwa`).
//!
//! * The window field of a segment that is not a SYN counts units of 2^s
//!   bytes, s being the shift its sender announced in its SYN (RFC 7323);
//!   the router learns both shifts from the connection's SYN and SYN-ACK as
//!   they pass. Scaling is in force once a SYN-ACK with a window-scale
//!   option has passed (a SYN-ACK carries one only when the SYN did).
//! * Lowering to N bytes sets a non-SYN segment's field to min(field,
//!   ceil(N / 2^s)): with a shift the field cannot say N exactly, and the
//!   window is N rounded up to a multiple of 2^s (rounding down could leave
//!   less than one segment, and a sender that sends only full segments
//!   would stall). A SYN's field is never scaled: min(field, N, 65535).
//! * A connection is identified by its flow (satcp's 4-tuple); a segment
//!   whose handshake the router never saw is read unscaled.

use crate::net::packet::{FLAG_ACK, FLAG_SYN};
use crate::net::Packet;

#[derive(Clone, Copy, Debug, Default)]
struct Conn {
    /// The shift each side announced: [server, client].
    shift: [Option<u8>; 2],
    /// A SYN-ACK with a window-scale option has passed.
    scaled: bool,
}

/// Per flow of the run, the window scales its handshake announced.
pub struct WindowField {
    conns: Vec<Conn>,
}

impl WindowField {
    pub fn new(flows: usize) -> Self {
        WindowField { conns: vec![Conn::default(); flows] }
    }

    /// Learn the shifts from a passing SYN or SYN-ACK (call for every TCP
    /// segment before `lower`).
    pub fn observe(&mut self, p: &Packet) {
        if p.tcp.has(FLAG_SYN) {
            if let Some(s) = p.tcp.opt_wscale {
                // the shift the segment's sender (the peer of its endpoint) offers
                let sender = p.endpoint().peer();
                let c = &mut self.conns[sender.flow().index()];
                c.shift[sender.side() as usize] = Some(s);
                c.scaled |= p.tcp.has(FLAG_ACK);
            }
        }
    }

    fn shift_of(&self, p: &Packet) -> u8 {
        if p.tcp.has(FLAG_SYN) {
            return 0;
        }
        let sender = p.endpoint().peer();
        let c = &self.conns[sender.flow().index()];
        if c.scaled {
            c.shift[sender.side() as usize].unwrap_or(0)
        } else {
            0
        }
    }

    /// Lower the window `p` advertises to at most `limit` bytes (never
    /// raise it); whether the field changed. A pure SYN is left alone.
    pub fn lower(&self, p: &mut Packet, limit: u64) -> bool {
        if !p.tcp.has(FLAG_ACK) {
            return false;
        }
        let field = if p.tcp.has(FLAG_SYN) {
            limit.min(65_535)
        } else {
            limit.div_ceil(1 << self.shift_of(p)).clamp(1, 65_535)
        };
        if (p.tcp.wnd as u64) > field {
            p.tcp.wnd = field as u16;
            true
        } else {
            false
        }
    }
}
