//! The link-protocol interface: how the world drives a transmitter that
//! holds packets and runs events of its own (the holding transmitter of the
//! priority and class queues, `held.rs`; the link-layer ARQ, `arq/`), so
//! that the world knows none of them. A new link protocol (a DVB-S2 MAC, a
//! PEP's hop) is its own file, a variant of `Tx`, its configuration in the
//! scenario model and its keys in the parser; the world and the event loop
//! stay as they are.
//!
//! The world calls four things, each with a [`LinkCtx`]:
//! * [`LinkDir::accept`]: a packet routed onto the direction;
//! * [`link_event`]: an event the protocol scheduled for itself
//!   (`Event::Link { dir, what }`; `what` is the protocol's own code, so
//!   `sim::Event` does not change when a protocol is added);
//! * [`LinkDir::go_down`] and [`LinkDir::come_up`]: a scheduled outage
//!   begins or ends.
//!
//! The protocol schedules its events on the context's queue itself (lazy
//! timers keep their tie-break numbers as anywhere else) and puts packets
//! on the direction's in-order wire with [`LinkDir::put_on_wire`], as the
//! FIFO's do. What only the world can act on it leaves in [`LinkOut`], in
//! the order the world then handles it: transmissions started (for
//! captures), packets the queue dropped (the node's agents see them), packets
//! lost, and packets delivered intact to the node at a direction's far end
//! (the ARQ's receiver hands them to IP there).

use super::shared::Devices;
use super::{Enqueued, LinkDir, Tx};
use crate::net::{Packet, PacketPool};
use crate::sim::{Event, EventQueue, Time};

/// An event of a link protocol on one direction: its meaning is the
/// protocol's (`held::TX_DONE`, `arq::TX_DONE`, `arq::AIR_ARRIVAL`,
/// `arq::TIMER`).
pub type LinkEvent = u8;

/// What a link protocol is given when the world calls it.
pub struct LinkCtx<'a> {
    pub now: Time,
    pub q: &'a mut EventQueue,
    pub pkts: &'a mut PacketPool,
    /// Per direction, the pool index of the packet its queued arrival event
    /// is for (the world's prefetch hint, `World::prefetch_next`).
    pub heads: &'a mut Vec<u32>,
    /// Packet capture is on: report every transmission started.
    pub captures: bool,
    pub out: &'a mut LinkOut,
    /// The run's shared transmitters (`shared.rs`).
    pub devices: &'a mut Devices,
}

/// What a link protocol hands back to the world (buffers reused for the
/// whole run; the protocols write into them directly, so a packet is
/// copied once on its way back).
#[derive(Default)]
pub struct LinkOut {
    /// (direction, start, packet): a transmission began (for captures).
    pub started: Vec<(u32, Time, Packet)>,
    /// (direction, packet): the direction's queue dropped it.
    pub queue_drops: Vec<(u32, Packet)>,
    /// Packets lost otherwise: corrupted, to an outage, given up.
    pub lost: Vec<Packet>,
    /// Packets that arrived intact over direction `delivered_over` (one
    /// direction a call) and go to IP at its far end.
    pub delivered: Vec<Packet>,
    pub delivered_over: u32,
}

impl LinkOut {
    pub fn is_empty(&self) -> bool {
        self.started.is_empty() && self.queue_drops.is_empty() && self.lost.is_empty() && self.delivered.is_empty()
    }
}

impl LinkCtx<'_> {
    /// The first packet on direction `dir`'s wire, pool index `id`,
    /// arrives at `at`.
    #[inline]
    pub fn schedule_arrival(&mut self, at: Time, dir: u32, id: u32) {
        self.heads[dir as usize] = id;
        self.q.push(at, Event::Arrive { dir });
    }
}

impl LinkDir {
    /// Packet `p` is routed onto this direction `d`, whose transmitter
    /// holds packets (the FIFO takes packets with `enqueue`).
    pub fn accept(&mut self, d: u32, p: Packet, ctx: &mut LinkCtx) {
        match &self.tx {
            Tx::Holding(_) => self.held_accept(d, p, ctx),
            Tx::Arq(_) => self.arq_accept(d, p, ctx),
            Tx::Shared(_) => self.shared_accept(d, p, ctx),
            Tx::Fifo(_) => unreachable!("the FIFO takes packets with enqueue()"),
        }
    }

    /// A scheduled outage begins at `ctx.now` (after `on_change`): what is
    /// queued or being sent is lost. The FIFO counted its losses when it
    /// accepted them (it knew the outage was coming); a protocol that holds
    /// packets hands them back as lost; a member of a shared device leaves
    /// its packets their turns (a moving link's outage marks them lost as
    /// they come off the wire, `LinkDir::go_down_now`).
    pub fn go_down(&mut self, d: u32, ctx: &mut LinkCtx) {
        let now = ctx.now;
        match &mut self.tx {
            Tx::Fifo(f) => {
                f.advance(now);
                f.waiting.clear();
                f.waiting_bytes = 0;
                if f.busy_until > now {
                    // (on delivery opportunities a packet's time is only
                    // from its first byte's opportunity: at most this)
                    self.stats.busy_ns = self.stats.busy_ns.saturating_sub(f.busy_until - now);
                    f.busy_until = now;
                }
                if let super::service::Service::Opportunities(o) = &mut self.service {
                    o.go_down(now);
                }
            }
            Tx::Holding(_) => self.held_go_down(ctx),
            Tx::Arq(_) => self.arq_go_down(d, ctx),
            // what it queued keeps its turns on the device (`shared.rs`)
            Tx::Shared(_) => {}
        }
    }

    /// A scheduled outage ends at `ctx.now` (after `on_change`).
    pub fn come_up(&mut self, d: u32, ctx: &mut LinkCtx) {
        if let Tx::Arq(_) = self.tx {
            self.arq_come_up(d, ctx);
        }
    }

    /// Packet `id` (in the pool) has been sent on this direction `d` with
    /// this fate: on the wire (its arrival scheduled if it is first there),
    /// held back to arrive late, or lost.
    pub fn put_on_wire(&mut self, d: u32, id: u32, fate: Enqueued, ctx: &mut LinkCtx) {
        match fate {
            Enqueued::Arrives(at) => {
                if self.push_in_flight(at, id) {
                    ctx.schedule_arrival(at, d, id);
                }
            }
            Enqueued::CorruptedArrives(at) => {
                ctx.pkts.get_mut(id).set_corrupted(true);
                if self.push_in_flight(at, id) {
                    ctx.schedule_arrival(at, d, id);
                }
            }
            Enqueued::ArrivesLate(at) => {
                self.push_late(at, id);
                ctx.q.push(at, Event::ArriveLate { dir: d });
            }
            Enqueued::Corrupted | Enqueued::Down { .. } | Enqueued::DroppedQueue | Enqueued::DroppedRed | Enqueued::LostAtHead => {
                ctx.out.lost.push(ctx.pkts.remove(id));
            }
        }
    }
}

/// The event `what` the protocol of direction `d` scheduled has come (the
/// ARQ's arrivals are taken by the link's other end: `dirs` is every
/// direction, each link's two side by side).
pub fn link_event(dirs: &mut [LinkDir], d: u32, what: LinkEvent, ctx: &mut LinkCtx) {
    match &dirs[d as usize].tx {
        Tx::Holding(_) => dirs[d as usize].held_event(d, what, ctx),
        Tx::Arq(_) => super::arq::arq_event(dirs, d, what, ctx),
        Tx::Fifo(_) | Tx::Shared(_) => unreachable!("a FIFO schedules no events of its own"),
    }
}

/// What owns a [`LinkCtx`]'s parts in a test without a world.
#[cfg(test)]
#[derive(Default)]
pub(crate) struct TestWorld {
    pub q: EventQueue,
    pub pkts: PacketPool,
    pub heads: Vec<u32>,
    pub out: LinkOut,
    pub devices: Devices,
}

#[cfg(test)]
impl TestWorld {
    /// A context at `now` for directions 0..`dirs`.
    pub fn ctx(&mut self, now: Time, dirs: usize) -> LinkCtx<'_> {
        self.heads.resize(dirs, 0);
        LinkCtx { now, q: &mut self.q, pkts: &mut self.pkts, heads: &mut self.heads, captures: true, out: &mut self.out, devices: &mut self.devices }
    }
}
