//! A receive-window clamp (`kind = "rwnd_clamp"`, `bytes = N`): the router
//! lowers the window advertised in every TCP segment it sends or forwards
//! to at most N bytes, and never raises it. The simplest router that
//! controls a sender through its ACKs; XFWA computes its window per flow
//! the same way.
//!
//! * The window is read and lowered as `window_field.rs` says (scales
//!   learnt from the handshake; never raised; rounded up to the scale's
//!   unit so that one segment still fits).
//! * `bytes` is at least every flow's MSS (checked with the scenario): a
//!   window under one segment would leave the sender to its window
//!   probe (`tcp/window_probe.rs`), one cut segment per RTO.

use std::collections::BTreeMap;

use super::window_field::WindowField;
use super::{AgentEnv, AgentParams, AgentPlugin, AgentSite, RouterAgent};
use crate::net::packet::FLAG_ACK;
use crate::net::Packet;
use crate::scenario::reader::{positive, Res, Tbl};
use crate::scenario::{units, AppCfg, FlowCfg};
use crate::sim::Time;

/// `bytes`: the largest window any passing segment may advertise.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct RwndClampCfg {
    pub bytes: u64,
}

impl AgentParams for RwndClampCfg {
    const KEYS: &'static [&'static str] = &["bytes"];

    fn parse(t: &Tbl, site: &AgentSite) -> Res<Self> {
        let bytes = t.require("bytes", t.size_pos("bytes")?, &positive(units::SIZE_ALLOWED))?;
        let udp = |f: &FlowCfg| match &f.app {
            AppCfg::Cbr(_) => true,
            AppCfg::OnOff(o) => !o.tcp,
            _ => false,
        };
        let mss = site.flows.iter().filter(|f| !udp(f)).map(|f| f.tcp.mss).max();
        if let Some(mss) = mss.filter(|&m| bytes < m as u64) {
            return Err(t.bad(
                "bytes",
                format!("a size >= the largest mss of the scenario's TCP flows ({mss} bytes): a window under one segment stalls a sender that sends only full segments"),
            ));
        }
        Ok(RwndClampCfg { bytes })
    }
}

pub struct RwndClamp {
    bytes: u64,
    field: WindowField,
    clamped: u64,
    seen: u64,
}

impl RwndClamp {
    pub fn new(bytes: u64, flows: usize) -> Self {
        RwndClamp { bytes, field: WindowField::new(flows), clamped: 0, seen: 0 }
    }
}

impl AgentPlugin for RwndClamp {
    type Params = RwndClampCfg;

    fn new(p: &RwndClampCfg, env: AgentEnv) -> Self {
        RwndClamp::new(p.bytes, env.flows)
    }
}

impl RouterAgent for RwndClamp {
    fn on_forward(&mut self, _now: Time, _dir: u32, p: &mut Packet) {
        if !p.kind.is_tcp() {
            return;
        }
        self.field.observe(p);
        if !p.tcp.has(FLAG_ACK) {
            return; // a pure SYN advertises nothing to clamp
        }
        self.seen += 1;
        if self.field.lower(p, self.bytes) {
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
    use crate::net::packet::FLAG_SYN;
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
