//! The world's side of the link directions behind the link-protocol
//! interface (`net/link/protocol.rs`): packets handed to them,
//! and what they hand back (captures, queue drops the node's agents see,
//! losses, packets delivered at a far end); and the scheduled changes of
//! every link (rate, delay, outages).

use super::World;
use crate::ids::DirId;
use crate::net::Packet;

impl World {
    /// Offer `p` to direction `d`'s transmitter, one behind the
    /// link-protocol interface (it holds packets, or shares a device).
    #[inline(never)]
    pub(super) fn offer_to_protocol(&mut self, d: u32, p: Packet) {
        let mut ctx = link_ctx!(self);
        self.dirs[d as usize].accept(d, p, &mut ctx);
        self.flush_link_out();
    }

    /// Act on what link protocols handed back: captures first (their
    /// transmissions began during the call), then the queues' drops (the
    /// sending node's agents see them), losses, and last the packets that
    /// reached a far end, which may make endpoints send (and protocols
    /// hand back more, handled as it comes).
    pub(super) fn flush_link_out(&mut self) {
        if self.link_out.is_empty() {
            return;
        }
        let mut out = std::mem::take(&mut self.link_out);
        if let Some(c) = self.capture.as_deref_mut() {
            for (d, start, p) in &out.started {
                c.on_accept(*d, self.now, *start, p);
            }
        }
        out.started.clear();
        for (d, p) in out.queue_drops.drain(..) {
            self.agents.queue_drop(self.now, d, &p);
            self.lose(&p);
        }
        for p in out.lost.drain(..) {
            self.lose(&p);
        }
        let d = out.delivered_over;
        for k in 0..out.delivered.len() {
            let mut p = out.delivered[k];
            let node = self.dirs[d as usize].to;
            self.arrive(d, node, &mut p);
        }
        out.delivered.clear();
        self.link_out = out;
    }

    /// Link `link`'s next scheduled change happens now.
    pub(super) fn link_change(&mut self, link: usize) {
        let ch = self.scn.links[link].changes[self.next_change[link]];
        self.next_change[link] += 1;
        let mut ctx = link_ctx!(self);
        for d in DirId::both(link) {
            let dir = &mut self.dirs[d.index()];
            dir.on_change(ctx.now);
            if ch.up == Some(false) {
                dir.go_down(d.0, &mut ctx);
            }
        }
        if ch.up == Some(true) {
            for d in DirId::both(link) {
                self.dirs[d.index()].come_up(d.0, &mut ctx);
            }
        }
        self.flush_link_out();
        if ch.up.is_some() || ch.dirs.iter().any(|c| c.delay_ns.is_some()) {
            self.routes_dirty = true;
        }
        if ch.up == Some(false) && self.peps.is_some() {
            self.pep_outages(link);
        }
        if ch.up == Some(true) && self.peps.is_some() {
            self.pep_back(link);
        }
    }
}
