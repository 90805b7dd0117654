//! A packet at a node: delivered to its endpoint or UDP sink there, or
//! routed on (TTL, routing table, the node's router agents) to a link
//! direction's transmitter. The common case, a FIFO direction that accepts
//! the packet, stays in `forward`; everything rarer is out of line, so the
//! hot path keeps its size and its inlining.

use super::{cut_through, World};
use crate::net::routing;
use crate::net::{Enqueued, Kind, LinkDir, Packet};
use crate::sim::{Event, Time};
use crate::tcp::Ctx;

impl World {
    /// The first packet on direction `dir`'s wire, pool index `id`,
    /// arrives at `at`.
    #[inline]
    pub(super) fn schedule_arrival(&mut self, at: Time, dir: u32, id: u32) {
        self.head_ids[dir as usize] = id;
        self.q.push(at, Event::Arrive { dir });
    }

    /// `p` arrived intact at `node` over link direction `dir`: the node's
    /// agents that watch arrivals see it first.
    #[inline]
    pub(super) fn arrive(&mut self, dir: u32, node: u32, p: &mut Packet) {
        if self.agents.any() && self.agents.on_arrivals(dir) {
            self.agents.arrival(self.now, dir, p);
        }
        self.at_node(node, p);
    }

    fn at_node(&mut self, node: u32, p: &mut Packet) {
        if p.dst_node == node && p.kind == Kind::Udp {
            if let Some(u) = self.apps[p.flow().index()].udp() {
                u.received(p.ip_bytes);
            }
        } else if p.dst_node == node && p.kind == Kind::Quic {
            let f = p.flow().index();
            let mut ctx = Ctx { now: self.now, q: &mut self.q, out: &mut self.out, notes: &mut self.notes };
            self.quic[f].as_deref_mut().expect("a QUIC flow").on_datagram(&mut ctx, p);
            self.settle();
        } else if p.dst_node == node {
            debug_assert!(p.kind.is_tcp(), "{:?} delivered to a node", p.kind);
            let ep = p.endpoint().index();
            let mut ctx = Ctx { now: self.now, q: &mut self.q, out: &mut self.out, notes: &mut self.notes };
            self.eps[ep].on_segment(&mut ctx, p);
            #[cfg(debug_assertions)]
            self.eps[ep].check_invariants();
            self.settle();
        } else if self.peps.is_some() && p.kind.is_tcp() && self.pep_take(node, p) {
            // a PEP on the node took it (`world/pep.rs`)
        } else {
            self.forward(node, p);
        }
    }

    /// Send `p` from `node` towards its destination: TTL, routing, the
    /// node's agents, then the link's transmitter.
    pub(super) fn forward(&mut self, node: u32, p: &mut Packet) {
        if self.routes_dirty {
            self.recompute_routes();
        }
        if node != p.src_node {
            if p.ttl <= 1 {
                return self.drop_at_node(node, p, false);
            }
            p.ttl -= 1;
        }
        let d = self.routes.next_dir(node, p.dst_node);
        if d == routing::NO_ROUTE {
            return self.drop_at_node(node, p, true);
        }
        if self.agents.any() && self.agents.on(d) {
            if self.agents.wants_backlog(d) {
                let n = self.dirs[d as usize].tcp_queue_packets(self.now);
                self.agents.backlog(d, n);
            }
            self.agents.forward(self.now, d, p);
        }
        let dir = &mut self.dirs[d as usize];
        if dir.offered_by_protocol() {
            return self.offer_to_protocol(d, *p);
        }
        let fate = enqueue_packet(dir, self.now, p);
        if p.kind.low_priority() {
            count_low_priority(dir, &fate);
        }
        if let Some(c) = self.capture.as_deref_mut() {
            if !matches!(fate, Enqueued::DroppedQueue | Enqueued::DroppedRed | Enqueued::Down { sent: false } | Enqueued::LostAtHead) {
                c.on_accept(d, self.now, dir.last_tx_start(), p);
            }
        }
        if let Enqueued::Arrives(at) = fate {
            if self.cut_to.get(d as usize).is_some_and(|&e| e != cut_through::NO_CUT) && self.try_cut(d, at, p) {
                return;
            }
            let id = self.pkts.insert(*p);
            if self.dirs[d as usize].push_in_flight(at, id) {
                self.schedule_arrival(at, d, id);
            }
        } else {
            self.not_arriving(d, *p, fate);
        }
    }

    #[cold]
    #[inline(never)]
    pub(super) fn recompute_routes(&mut self) {
        self.routes.update(&edges_of(&self.dirs), &self.relay);
        self.routes_dirty = false;
    }

    /// `node` cannot send `p` on: no route, or its TTL ran out.
    #[cold]
    #[inline(never)]
    fn drop_at_node(&mut self, node: u32, p: &Packet, no_route: bool) {
        let n = &mut self.nodes[node as usize];
        if no_route {
            n.drops_no_route += 1;
        } else {
            n.drops_ttl += 1;
        }
        self.lose(p);
    }

    /// The FIFO of direction `d` gave `p` any fate but an intact, in-order
    /// arrival.
    #[inline(never)]
    pub(super) fn not_arriving(&mut self, d: u32, p: Packet, fate: Enqueued) {
        match fate {
            Enqueued::Arrives(_) | Enqueued::ArrivesLate(_) | Enqueued::CorruptedArrives(_) => {
                let id = self.pkts.insert(p);
                let mut ctx = link_ctx!(self);
                self.dirs[d as usize].put_on_wire(d, id, fate, &mut ctx);
                self.flush_link_out();
            }
            Enqueued::DroppedQueue | Enqueued::DroppedRed => {
                self.agents.queue_drop(self.now, d, &p);
                self.lose(&p);
            }
            Enqueued::Corrupted | Enqueued::Down { .. } | Enqueued::LostAtHead => self.lose(&p),
        }
    }

    /// A packet is lost (dropped, corrupted, no route): UDP sources count it.
    pub(super) fn lose(&mut self, p: &Packet) {
        if p.kind == Kind::Udp {
            if let Some(u) = self.apps[p.flow().index()].udp() {
                u.packets_lost += 1;
            }
        }
    }
}

/// The routing graph: (from, to, delay now, up) of every link direction.
pub(super) fn edges_of(dirs: &[LinkDir]) -> Vec<(u32, u32, u64, bool)> {
    dirs.iter().map(|d| (d.from, d.to, d.delay_ns, d.up)).collect()
}

/// Offer `p` to direction `dir`'s FIFO at `now`; a RED queue with `ecn`
/// may mark it CE instead of an early drop (written into `p`).
#[inline(always)]
pub(super) fn enqueue_packet(dir: &mut LinkDir, now: Time, p: &mut Packet) -> Enqueued {
    let mut ecn = p.ecn();
    let fate = dir.enqueue_ecn(now, p.ip_bytes, &mut ecn);
    p.set_ecn(ecn);
    fate
}

/// A dummy segment or dummy ACK offered to a FIFO direction: counted as
/// sent unless its queue dropped it (or it never got on: head loss, outage).
#[cold]
#[inline(never)]
pub(super) fn count_low_priority(dir: &mut LinkDir, fate: &Enqueued) {
    match fate {
        Enqueued::DroppedQueue | Enqueued::DroppedRed => dir.stats.low_priority_dropped += 1,
        Enqueued::LostAtHead | Enqueued::Down { sent: false } => {}
        _ => dir.stats.low_priority_tx += 1,
    }
}
