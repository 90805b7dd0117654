//! The holding transmitter (`Tx::Holding`): packets wait in the queue as
//! pool indices and the transmitter schedules its own end of transmission
//! (`TX_DONE`), one more event per packet than the FIFO. Used only where a
//! discipline must reorder or drop packets after accepting them: the
//! priority queue that pushes dummy segments out (`queue/priority.rs`),
//! the class queue (`queue/classes.rs`), drop-front (`queue/drop_front.rs`,
//! which drops the oldest waiting packet for an arrival) and CoDel and
//! FQ-CoDel (`queue/codel.rs`, `queue/fq_codel.rs`, which drop at dequeue).
//! When a packet starts, the service model (`service.rs`) gives its end:
//! the rate in force, or the delivery opportunities of a trace (its first
//! byte may then wait for the next one). A link protocol behind
//! `link/protocol.rs`: the world offers it packets, hands it its events and
//! its outages, and reads back what it dropped, lost or started.

use super::protocol::{LinkCtx, LinkEvent};
use super::service::Service;
use super::{serialisation_ns, Enqueued, LinkDir, Offered, Tx};
use crate::net::queue::classes::ClassQueue;
use crate::net::queue::codel::{CoDelParams, CoDelQueue};
use crate::net::queue::drop_front::DropFrontQueue;
use crate::net::queue::fq_codel::{FqCoDelParams, FqCoDelQueue};
use crate::net::queue::sojourn::Sojourns;
use crate::net::queue::priority::{Admit, Held, PriorityQueue};
use crate::net::Packet;
use crate::scenario::{LowDrop, QueueLimit};
use crate::sim::{Event, Time};

/// Its one event: the packet being sent has left.
pub(super) const TX_DONE: LinkEvent = 0;

/// A packet being sent by the holding transmitter.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Sending {
    /// Pool index.
    pub id: u32,
    pub bytes: u32,
    pub start: Time,
    pub end: Time,
}

/// The holding transmitter's queue: strict priority with push-out, the
/// TCP / other classes with shares, drop-front or CoDel.
enum HeldQueue {
    Priority(PriorityQueue),
    Classes(ClassQueue),
    DropFront(DropFrontQueue),
    CoDel(CoDelQueue),
    FqCoDel(FqCoDelQueue),
}

impl HeldQueue {
    fn len(&self) -> usize {
        match self {
            HeldQueue::Priority(q) => q.len(),
            HeldQueue::Classes(q) => q.len(),
            HeldQueue::DropFront(q) => q.len(),
            HeldQueue::CoDel(q) => q.len(),
            HeldQueue::FqCoDel(q) => q.len(),
        }
    }

    fn is_empty(&self) -> bool {
        self.len() == 0
    }

    fn bytes(&self) -> u64 {
        match self {
            HeldQueue::Priority(q) => q.bytes(),
            HeldQueue::Classes(q) => q.bytes(),
            HeldQueue::DropFront(q) => q.bytes(),
            HeldQueue::CoDel(q) => q.bytes(),
            HeldQueue::FqCoDel(q) => q.bytes(),
        }
    }

    /// Queue `h` (packet `p`) without a limit check: the transmitter is
    /// idle and takes it at once (FQ-CoDel's limit is far from an empty
    /// queue's, so its enqueue is the same).
    fn push(&mut self, h: Held, p: &Packet, now: Time, dropped: &mut Vec<Held>) {
        let kind = p.kind;
        match self {
            HeldQueue::Priority(q) => q.push(h, kind.low_priority()),
            HeldQueue::Classes(q) => q.push(h, kind.is_tcp()),
            HeldQueue::DropFront(q) => q.push(h, now),
            HeldQueue::CoDel(q) => q.push(h, now, p.ecn().capable()),
            HeldQueue::FqCoDel(q) => q.enqueue(h, p, now, dropped),
        }
    }

    /// Offer `h` at `now`; packets accepted earlier and dropped for it
    /// (pushed out, dropped at the head) are appended to `pushed_out`.
    fn offer(&mut self, h: Held, p: &Packet, now: Time, pushed_out: &mut Vec<Held>) -> Admit {
        let kind = p.kind;
        match self {
            HeldQueue::Priority(q) => q.offer(h, kind.low_priority(), pushed_out),
            HeldQueue::Classes(q) => q.offer(h, kind.is_tcp()),
            HeldQueue::DropFront(q) => q.offer(h, now, pushed_out),
            HeldQueue::CoDel(q) => q.offer(h, now, p.ecn().capable()),
            HeldQueue::FqCoDel(q) => {
                q.enqueue(h, p, now, pushed_out);
                Admit::Accepted
            }
        }
    }

    /// The next packet to send at `now` and whether the discipline marked
    /// it CE (CoDel with `ecn`); packets the discipline drops on the way
    /// (CoDel) are appended to `dropped`.
    fn pop(&mut self, now: Time, dropped: &mut Vec<Held>) -> Option<(Held, bool)> {
        match self {
            HeldQueue::Priority(q) => q.pop().map(|h| (h, false)),
            HeldQueue::Classes(q) => q.pop().map(|h| (h, false)),
            HeldQueue::DropFront(q) => q.pop(now).map(|h| (h, false)),
            HeldQueue::CoDel(q) => q.pop(now, dropped),
            HeldQueue::FqCoDel(q) => q.dequeue(now, dropped),
        }
    }

    /// The sojourn times of the packets sent, for the disciplines that
    /// measure them.
    fn sojourns(&self) -> Option<&Sojourns> {
        match self {
            HeldQueue::Priority(_) | HeldQueue::Classes(_) => None,
            HeldQueue::DropFront(q) => Some(&q.sojourns),
            HeldQueue::CoDel(q) => Some(&q.sojourns),
            HeldQueue::FqCoDel(q) => Some(&q.sojourns),
        }
    }

    fn drain_into(&mut self, out: &mut Vec<Held>) {
        match self {
            HeldQueue::Priority(q) => q.drain_into(out),
            HeldQueue::Classes(q) => q.drain_into(out),
            HeldQueue::DropFront(q) => q.drain_into(out),
            HeldQueue::CoDel(q) => q.drain_into(out),
            HeldQueue::FqCoDel(q) => q.drain_into(out),
        }
    }
}

/// The holding transmitter: the queue holds the packets themselves.
pub(in crate::net::link) struct Holding {
    queue: HeldQueue,
    sending: Option<Sending>,
    /// Transmission-complete events of transmissions an outage aborted,
    /// still in the event queue: they are ignored when they pop (they always
    /// pop before a live event at the same instant, being older).
    stale: Vec<Time>,
    /// Packets accepted earlier and dropped by the last
    /// [`LinkDir::held_offer`] (pushed out, dropped at the head) or by the
    /// last dequeue (CoDel), not yet handed back.
    pushed_out: Vec<Held>,
}

impl Holding {
    fn with(queue: HeldQueue) -> Self {
        Holding { queue, sending: None, stale: Vec::new(), pushed_out: Vec::new() }
    }

    /// Strict priority: data and ACKs before dummy segments, which are
    /// pushed out to make room (`queue/priority.rs`).
    pub(super) fn priority(limit: QueueLimit, low_drop: LowDrop) -> Self {
        Self::with(HeldQueue::Priority(PriorityQueue::new(limit, low_drop)))
    }

    /// TCP and other traffic in their own buffers with shares of the link
    /// (`queue/classes.rs`).
    pub(super) fn classes(tcp: QueueLimit, other: QueueLimit, tcp_share: f64) -> Self {
        Self::with(HeldQueue::Classes(ClassQueue::new(tcp, other, tcp_share)))
    }

    /// Drop-front: the oldest waiting packet makes room for an arrival
    /// (`queue/drop_front.rs`).
    pub(super) fn drop_front(limit: QueueLimit) -> Self {
        Self::with(HeldQueue::DropFront(DropFrontQueue::new(limit)))
    }

    /// CoDel, deciding at dequeue (`queue/codel.rs`).
    pub(super) fn codel(limit: QueueLimit, p: CoDelParams) -> Self {
        Self::with(HeldQueue::CoDel(CoDelQueue::new(limit, p)))
    }

    /// FQ-CoDel (`queue/fq_codel.rs`).
    pub(super) fn fq_codel(p: FqCoDelParams) -> Self {
        Self::with(HeldQueue::FqCoDel(FqCoDelQueue::new(p)))
    }

    /// The sojourn times of the packets sent, where the queue measures them.
    pub(super) fn sojourns(&self) -> Option<&Sojourns> {
        self.queue.sojourns()
    }

    /// Packets of the pool it holds (queued, being sent, pushed out and not
    /// yet handed back).
    pub(super) fn pool_packets(&self) -> usize {
        self.queue.len() + self.sending.is_some() as usize + self.pushed_out.len()
    }

    pub(super) fn queue_len(&self) -> usize {
        self.queue.len()
    }

    /// Packets a TCP packet queues behind: the TCP class's under the class
    /// queue, every waiting packet otherwise.
    pub(super) fn tcp_queue_len(&self) -> usize {
        match &self.queue {
            HeldQueue::Classes(q) => q.tcp_len(),
            q => q.len(),
        }
    }

    pub(super) fn queue_bytes(&self) -> u64 {
        self.queue.bytes()
    }

    pub(super) fn busy_until(&self) -> Time {
        self.sending.map_or(0, |s| s.end)
    }
}

impl LinkDir {
    // ----- the link protocol: what the world calls ---------------------------

    /// The world routed `p` onto this direction `d`: queue it (packets it
    /// pushes out, or it itself if refused, are the queue's drops), and
    /// start sending if the transmitter is idle.
    pub(super) fn held_accept(&mut self, d: u32, p: Packet, ctx: &mut LinkCtx) {
        let id = ctx.pkts.insert(p);
        match self.held_offer(ctx.now, id, &p) {
            Offered::Queued => {
                self.hand_back_dropped(d, ctx);
                self.held_kick(d, ctx);
            }
            Offered::DroppedQueue => {
                ctx.pkts.remove(id);
                if p.kind.low_priority() {
                    self.stats.low_priority_dropped += 1;
                }
                ctx.out.queue_drops.push((d, p));
            }
            Offered::DroppedDown => {
                ctx.pkts.remove(id);
                ctx.out.lost.push(p);
            }
        }
    }

    /// Its event at `ctx.now` (`TX_DONE`): the packet sent goes on the wire
    /// with its fate, and the next one starts.
    pub(super) fn held_event(&mut self, d: u32, what: LinkEvent, ctx: &mut LinkCtx) {
        debug_assert_eq!(what, TX_DONE);
        if let Some((id, fate)) = self.finish(ctx.now) {
            self.put_on_wire(d, id, fate, ctx);
        }
        self.held_kick(d, ctx);
    }

    /// The link goes down at `ctx.now`: the packet being sent and the queue
    /// are lost (counted here).
    pub(super) fn held_go_down(&mut self, ctx: &mut LinkCtx) {
        let now = ctx.now;
        let Tx::Holding(h) = &mut self.tx else { unreachable!() };
        let before = ctx.out.lost.len();
        if let Some(s) = h.sending.take() {
            ctx.out.lost.push(ctx.pkts.remove(s.id));
            h.stale.push(s.end);
            self.stats.busy_ns -= s.end - s.start.max(now);
        }
        if let Service::Opportunities(o) = &mut self.service {
            o.go_down(now);
        }
        let mut held = Vec::new();
        h.queue.drain_into(&mut held);
        ctx.out.lost.extend(held.into_iter().map(|x| ctx.pkts.remove(x.id)));
        self.stats.drops_down += (ctx.out.lost.len() - before) as u64;
    }

    /// The packets the queue dropped after accepting them go to the
    /// world's queue drops.
    fn hand_back_dropped(&mut self, d: u32, ctx: &mut LinkCtx) {
        let Tx::Holding(h) = &mut self.tx else { unreachable!() };
        for v in h.pushed_out.drain(..) {
            let p = ctx.pkts.remove(v.id);
            if p.kind.low_priority() {
                self.stats.low_priority_dropped += 1;
            }
            ctx.out.queue_drops.push((d, p));
        }
    }

    /// Start the next transmission if the transmitter is idle and a packet
    /// waits (a capture records it now: a queued packet may still be pushed
    /// out, so acceptance is not transmission).
    fn held_kick(&mut self, d: u32, ctx: &mut LinkCtx) {
        let started = self.start_next(ctx.now);
        self.hand_back_dropped(d, ctx);
        if let Some((s, marked)) = started {
            if marked {
                ctx.pkts.get_mut(s.id).set_ecn(crate::net::packet::Ecn::Ce);
            }
            let p = ctx.pkts.get(s.id);
            if p.kind.low_priority() {
                self.stats.low_priority_tx += 1;
            }
            ctx.q.push(s.end, Event::Link { dir: d, what: TX_DONE });
            if ctx.captures {
                ctx.out.started.push((d, s.start, *p));
            }
        }
    }

    // ----- the transmitter's steps -------------------------------------------

    /// Offer packet `p`, already in the pool as `id`, to the holding
    /// transmitter. Afterwards the packets the arrival pushed out are in
    /// the transmitter's `pushed_out`.
    fn held_offer(&mut self, now: Time, id: u32, p: &Packet) -> Offered {
        let Tx::Holding(h) = &mut self.tx else { unreachable!("the FIFO takes packets with enqueue()") };
        if self.schedule.down_at(now) {
            self.stats.drops_down += 1;
            return Offered::DroppedDown;
        }
        let held = Held { id, bytes: p.ip_bytes };
        if h.sending.is_none() && h.queue.is_empty() {
            // an idle transmitter takes it at once: never dropped by the queue
            h.queue.push(held, p, now, &mut h.pushed_out);
            return Offered::Queued;
        }
        match h.queue.offer(held, p, now, &mut h.pushed_out) {
            Admit::Accepted => {
                let dropped = h.pushed_out.len() as u64;
                match h.queue {
                    HeldQueue::DropFront(_) => self.stats.drops_head += dropped,
                    // the fattest flow's packets dropped for room: overflow
                    HeldQueue::FqCoDel(_) => self.stats.drops_queue += dropped,
                    _ => self.stats.drops_pushed_out += dropped,
                }
                self.stats.max_queue_packets = self.stats.max_queue_packets.max(h.queue.len() as u64);
                Offered::Queued
            }
            Admit::Refused => {
                self.stats.drops_queue += 1;
                Offered::DroppedQueue
            }
        }
    }

    /// If the transmitter is idle and a packet waits, start sending it at
    /// `now` and return it, with whether the queue marked it CE (counted
    /// here; the caller sets the packet's codepoint).
    fn start_next(&mut self, now: Time) -> Option<(Sending, bool)> {
        let overhead = self.overhead_bytes;
        let Tx::Holding(h) = &mut self.tx else { return None };
        if h.sending.is_some() {
            return None;
        }
        let before = h.pushed_out.len();
        let next = h.queue.pop(now, &mut h.pushed_out);
        self.stats.drops_codel += (h.pushed_out.len() - before) as u64;
        let (next, marked) = next?;
        self.stats.marks += marked as u64;
        // the service model: the rate now, or the delivery opportunities
        // from now (the packet waited in the queue until this instant)
        let (start, end) = match &mut self.service {
            Service::Rate => (now, now + serialisation_ns(next.bytes, overhead, self.schedule.rate_at(now))),
            Service::Opportunities(o) => {
                let p = o.plan(now, next.bytes + overhead);
                o.commit(&p, next.bytes + overhead);
                (p.start, p.end)
            }
        };
        let s = Sending { id: next.id, bytes: next.bytes, start, end };
        h.sending = Some(s);
        self.count_tx(start, end, next.bytes);
        Some((s, marked))
    }

    /// The transmission-complete event at `now`: the packet sent (pool
    /// index) and its fate on the wire, or None for an event an outage
    /// made stale.
    fn finish(&mut self, now: Time) -> Option<(u32, Enqueued)> {
        let Tx::Holding(h) = &mut self.tx else { unreachable!("only the holding transmitter schedules TX_DONE") };
        if let Some(k) = h.stale.iter().position(|&t| t == now) {
            h.stale.swap_remove(k);
            return None;
        }
        let s = h.sending.take().expect("a transmission was under way");
        debug_assert_eq!(s.end, now);
        Some((s.id, self.launch::<false>(now, s.start, s.end, s.bytes, None)))
    }

}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::net::packet::Kind;
    use crate::net::link::protocol::{link_event, LinkOut};
    use crate::net::link::schedule::DirSchedule;
    use crate::net::PacketPool;
    use crate::scenario::{DirChange, ErrorCfg, LinkDirCfg, QueueCfg};
    use crate::sim::{EventQueue, Rng};

    const MS: Time = 1_000_000;

    /// 8 kb/s (a 30-byte packet takes 30 ms), 5 ms delay, a priority queue.
    fn priority_dir(limit: QueueLimit, changes: &[(Time, DirChange, Option<bool>)]) -> LinkDir {
        let cfg = LinkDirCfg { rate_bps: 8_000, delay_ns: 5_000_000, queue: QueueCfg::Priority { limit, low_drop: Default::default() }, errors: ErrorCfg::None, overhead_bytes: 0, reorder: None, loss_placement: Default::default(), traces: None };
        LinkDir::with_schedule(0, 1, &cfg, DirSchedule::new(8_000, 5_000_000, changes), Rng::new(1, 1))
    }

    fn pkt(kind: Kind, tag: u64) -> Packet {
        let mut p = Packet::udp(0, 1, 0, 30).with_kind(kind);
        p.stream_off = tag; // tells the packets apart
        p
    }

    /// The world's side of the protocol: its queue, pool and buffers.
    struct World {
        q: EventQueue,
        pkts: PacketPool,
        heads: Vec<u32>,
        out: LinkOut,
        devices: crate::net::link::Devices,
        dirs: Vec<LinkDir>,
    }

    impl World {
        fn new(dir: LinkDir) -> Self {
            World { q: EventQueue::new(), pkts: PacketPool::default(), heads: vec![0], out: LinkOut::default(), devices: Default::default(), dirs: vec![dir] }
        }

        fn call(&mut self, now: Time, f: impl FnOnce(&mut [LinkDir], &mut LinkCtx)) {
            let mut ctx = LinkCtx { now, q: &mut self.q, pkts: &mut self.pkts, heads: &mut self.heads, captures: true, out: &mut self.out, devices: &mut self.devices };
            f(&mut self.dirs, &mut ctx);
        }

        fn accept(&mut self, now: Time, p: Packet) {
            self.call(now, |d, ctx| d[0].accept(0, p, ctx));
        }

        /// Handle every event up to `until`; the tags of the packets that
        /// arrived at the far end, with their times.
        fn run_until(&mut self, until: Time) -> Vec<(Time, u64)> {
            let mut arrived = Vec::new();
            while let Some((t, ev)) = self.q.peek().filter(|&(t, _)| t <= until) {
                self.q.pop();
                match ev {
                    Event::Link { dir, what } => self.call(t, |d, ctx| link_event(d, dir, what, ctx)),
                    Event::Arrive { .. } => {
                        let (id, next) = self.dirs[0].pop_arrival();
                        arrived.push((t, self.pkts.remove(id).stream_off));
                        if let Some((at, _)) = next {
                            self.q.push(at, Event::Arrive { dir: 0 });
                        }
                    }
                    e => panic!("{e:?}"),
                }
            }
            arrived
        }

        fn tags(v: &[(u32, Packet)]) -> Vec<u64> {
            v.iter().map(|(_, p)| p.stream_off).collect()
        }
    }

    #[test]
    fn holding_priority_queue_sends_data_first_and_pushes_dummies_out() {
        let mut w = World::new(priority_dir(QueueLimit::Packets(2), &[]));
        assert!(w.dirs[0].holds_packets());
        // a dummy finds the transmitter idle: it is sent at once
        w.accept(0, pkt(Kind::Dummy, 1));
        assert_eq!(w.out.started.iter().map(|&(_, s, p)| (s, p.stream_off)).collect::<Vec<_>>(), [(0, 1)]);
        // queue: dummy 2, data 3; data 4 pushes dummy 2 out; dummy 5 is refused
        w.accept(MS, pkt(Kind::Dummy, 2));
        w.accept(2 * MS, pkt(Kind::Data, 3));
        w.accept(3 * MS, pkt(Kind::Data, 4));
        assert_eq!(World::tags(&w.out.queue_drops), [2]);
        w.accept(4 * MS, pkt(Kind::Dummy, 5));
        assert_eq!(World::tags(&w.out.queue_drops), [2, 5]);
        let s = &w.dirs[0].stats;
        assert_eq!((s.drops_pushed_out, s.drops_queue, s.low_priority_dropped), (1, 1, 2));
        assert_eq!(w.dirs[0].queue_packets(4 * MS), 2);
        assert_eq!(w.pkts.live(), 3, "the dropped packets left the pool");
        // dummy 1 arrives at 35 ms; then data 3 (sent 30-60 ms) and data 4 (60-90 ms)
        assert_eq!(w.run_until(200 * MS), [(35 * MS, 1), (65 * MS, 3), (95 * MS, 4)]);
        assert_eq!(w.dirs[0].stats.packets_tx, 3, "counted when sent, not when queued");
        assert_eq!(w.out.started.iter().map(|&(_, s, _)| s).collect::<Vec<_>>(), [0, 30 * MS, 60 * MS]);
        assert_eq!(w.pkts.live(), 0);
    }

    #[test]
    fn holding_outage_hands_back_what_it_held_and_stale_completions_are_ignored() {
        let none = DirChange::default();
        let mut w = World::new(priority_dir(QueueLimit::Unlimited, &[(40 * MS, none, Some(false)), (45 * MS, none, Some(true))]));
        for tag in 1..=3 {
            w.accept(0, pkt(Kind::Data, tag));
        }
        // packet 1 is sent over [0, 30) and arrives at 35; packet 2 is sent
        // from 30 and cut by the outage at 40
        assert_eq!(w.run_until(39 * MS), [(35 * MS, 1)]);
        w.dirs[0].on_change(40 * MS);
        assert!(!w.dirs[0].up);
        w.call(40 * MS, |d, ctx| d[0].go_down(0, ctx));
        assert_eq!(w.out.lost.iter().map(|p| p.stream_off).collect::<Vec<_>>(), [2, 3], "the packet being sent, then the queue");
        assert_eq!(w.dirs[0].stats.drops_down, 2);
        assert_eq!(w.dirs[0].stats.busy_ns, 40 * MS);
        w.accept(42 * MS, pkt(Kind::Data, 4));
        assert_eq!(w.out.lost.len(), 3, "refused while down");
        w.dirs[0].on_change(45 * MS);
        // a new packet at 45 ms ends at 75 ms; the aborted one's event (60 ms) is stale
        w.accept(45 * MS, pkt(Kind::Data, 5));
        assert_eq!(w.run_until(200 * MS), [(80 * MS, 5)]);
        assert_eq!(w.pkts.live(), 0);
    }
}
