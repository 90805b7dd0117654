//! The FIFO transmitter, the fast path (drop-tail and RED): a packet's
//! departure is known the moment it is accepted, `max(now, busy_until) +
//! framed_bits / rate`, so its arrival at the far end is scheduled then, one
//! event per packet per hop. Queue occupancy at any instant follows from
//! the committed transmission starts (`waiting`). A link whose schedule
//! changes takes the same path, out of line (`enqueue_scheduled`): the rate
//! when the transmission starts, the delay when it ends and an outage before
//! arrival are looked up at acceptance. `launch` decides a sent packet's
//! fate on the wire for every transmitter (the holding one calls it when a
//! transmission ends). On a trace of delivery opportunities the service
//! model plans the departure instead of the rate (`service.rs`), on the
//! same out-of-line path.

use super::service::Service;
use super::{serialisation_ns, Enqueued, LinkDir, Tx};
use crate::net::errors::Fate;
use crate::net::packet::Ecn;
use crate::net::queue::red::{Red, RedVerdict};
use crate::scenario::{DelayOrder, QueueLimit};
use crate::sim::Time;
use std::collections::VecDeque;

/// The queue discipline in front of the FIFO transmitter (and of the
/// ARQ's IP queue).
pub(in crate::net::link) enum Discipline {
    DropTail(QueueLimit),
    Red(Box<Red>),
}

/// The FIFO transmitter's state: committed departure times only.
pub(in crate::net::link) struct Fifo {
    pub(super) discipline: Discipline,
    /// When the transmitter finishes everything accepted so far.
    pub(super) busy_until: Time,
    /// (transmission start, IP bytes) of accepted packets not yet started.
    pub(super) waiting: VecDeque<(Time, u32)>,
    pub(super) waiting_bytes: u64,
}

impl LinkDir {
    /// Offer a packet at `now` to the FIFO transmitter.
    #[inline]
    pub fn enqueue(&mut self, now: Time, ip_bytes: u32) -> Enqueued {
        self.enqueue_ecn(now, ip_bytes, &mut Ecn::NotEct)
    }

    /// [`LinkDir::enqueue`] of a packet with ECN codepoint `ecn`, which a
    /// RED queue with `ecn = true` may set to CE instead of an early drop.
    #[inline]
    pub fn enqueue_ecn(&mut self, now: Time, ip_bytes: u32, ecn: &mut Ecn) -> Enqueued {
        if self.schedule.is_fixed() {
            self.fifo_enqueue::<true>(now, ip_bytes, ecn)
        } else {
            self.enqueue_scheduled(now, ip_bytes, ecn)
        }
    }

    /// [`LinkDir::enqueue`] on a direction whose schedule changes: kept out
    /// of line so that fixed links pay nothing for it.
    #[inline(never)]
    fn enqueue_scheduled(&mut self, now: Time, ip_bytes: u32, ecn: &mut Ecn) -> Enqueued {
        if self.schedule.down_at(now) {
            self.stats.drops_down += 1;
            return Enqueued::Down { sent: false };
        }
        self.fifo_enqueue::<false>(now, ip_bytes, ecn)
    }

    /// The FIFO's admission and departure; `FIXED`: the rate and delay never
    /// change (the fast path, compiled without the schedule lookups).
    #[inline(always)]
    fn fifo_enqueue<const FIXED: bool>(&mut self, now: Time, ip_bytes: u32, ecn: &mut Ecn) -> Enqueued {
        // an error model at the link's head judges the packet as offered
        let pre = if self.loss_at_head {
            match self.judge_at_head(now, ip_bytes) {
                Fate::Lost => return Enqueued::LostAtHead,
                f => Some(f),
            }
        } else {
            None
        };
        let Tx::Fifo(f) = &mut self.tx else { unreachable!("the world offers other transmitters packets with accept()") };
        f.advance(now);
        // a trace of delivery opportunities plans the packet's service
        // (`service.rs`); a rate starts it when the transmitter is free
        let plan = match &self.service {
            _ if FIXED => None,
            Service::Opportunities(o) => Some(o.plan(now, ip_bytes + self.overhead_bytes)),
            Service::Rate => None,
        };
        let start = match plan {
            Some(p) => p.start,
            None => f.busy_until.max(now),
        };
        if let Discipline::Red(red) = &mut f.discipline {
            let idle_since = (f.busy_until <= now).then_some(f.busy_until);
            let verdict = red.on_arrival(now, f.waiting.len(), idle_since, ip_bytes, ecn.capable());
            if verdict == RedVerdict::Mark {
                *ecn = Ecn::Ce;
            }
            match self.stats.count_drop(verdict) {
                None => {}
                Some(false) => return Enqueued::DroppedQueue,
                Some(true) => return Enqueued::DroppedRed,
            }
        }
        // a packet that could leave only centuries from now (a queue behind
        // a link of a few bits a second) is refused as by a full queue:
        // simulated time ends at 2^64 ns
        if start > HORIZON {
            self.stats.drops_queue += 1;
            return Enqueued::DroppedQueue;
        }
        if start > now {
            if f.full(ip_bytes) {
                self.stats.drops_queue += 1;
                return Enqueued::DroppedQueue;
            }
            f.wait(start, ip_bytes);
            self.stats.max_queue_packets = self.stats.max_queue_packets.max(f.waiting.len() as u64);
            self.stats.queue_wait_ns = self.stats.queue_wait_ns.saturating_add(start - now);
        }
        if let (Some(p), Service::Opportunities(o)) = (plan, &mut self.service) {
            o.commit(&p, ip_bytes + self.overhead_bytes);
            f.busy_until = p.end;
            self.last_start = start;
            self.count_tx(start, p.end, ip_bytes);
            return self.launch::<FIXED>(now, start, p.end, ip_bytes, pre);
        }
        let tx = if FIXED {
            let rate = self.rate_bps;
            match self.tx_cache {
                (b, r, ns) if b == ip_bytes && r == rate => ns,
                _ => {
                    let ns = serialisation_ns(ip_bytes, self.overhead_bytes, rate);
                    self.tx_cache = (ip_bytes, rate, ns);
                    ns
                }
            }
        } else {
            serialisation_ns(ip_bytes, self.overhead_bytes, self.schedule.rate_at(start))
        };
        f.busy_until = start + tx;
        let end = f.busy_until;
        self.last_start = start;
        self.count_tx(start, end, ip_bytes);
        self.launch::<FIXED>(now, start, end, ip_bytes, pre)
    }

    /// `loss_placement = "head"`: the error model's verdict on a packet
    /// offered at `now`, before the queue (a loss is counted here; the
    /// packet never reaches the queue or the wire).
    #[cold]
    #[inline(never)]
    fn judge_at_head(&mut self, now: Time, ip_bytes: u32) -> Fate {
        let fate = self.errors.judge(ip_bytes, now, now);
        if fate == Fate::Lost {
            self.stats.drops_errors += 1;
        }
        fate
    }

    /// A transmission of [start, end) is committed.
    #[inline(always)]
    pub(super) fn count_tx(&mut self, start: Time, end: Time, ip_bytes: u32) {
        self.stats.packets_tx += 1;
        self.stats.bytes_tx += ip_bytes as u64;
        self.stats.busy_ns = self.stats.busy_ns.saturating_add(end - start);
    }

    /// Decide a sent packet's fate on the wire: arrival time, corruption,
    /// reordering, or loss to an outage that begins at or after `since`
    /// (acceptance for the FIFO, the end of the transmission for the
    /// holding transmitter) and before it arrives.
    #[inline(always)]
    pub(super) fn launch<const FIXED: bool>(&mut self, since: Time, start: Time, end: Time, ip_bytes: u32, pre: Option<Fate>) -> Enqueued {
        let delay = if FIXED { self.delay_ns } else { self.schedule.delay_at(end) };
        let arrival = end.saturating_add(delay);
        let fate = match pre {
            Some(f) => f,
            None if self.lossless => Fate::Intact,
            None => self.errors.judge(ip_bytes, start, arrival),
        };
        // when it would arrive, held back or not, and whether later packets
        // may overtake it (burst delay in "overtake" mode, reordering)
        let (at, overtaken) = match fate {
            Fate::Lost => (arrival, false),
            Fate::Delayed { extra_ns, order } => (arrival + extra_ns, order == DelayOrder::Overtake),
            Fate::Intact => match self.reorder.as_deref_mut() {
                Some((r, rng)) => {
                    let held = rng.bernoulli(r.probability);
                    (if held { arrival + r.extra_delay_ns } else { arrival }, held)
                }
                None => (arrival, false),
            },
        };
        if !FIXED {
            // on the wire (or queued) when the link goes down: lost
            if let Some(d) = self.schedule.next_down_from(since).filter(|&d| d < at) {
                self.stats.drops_down += 1;
                return Enqueued::Down { sent: start < d };
            }
            // leaving while a delay series says the path is down: lost
            if self.schedule.series_down_at(end) {
                self.stats.drops_down += 1;
                return Enqueued::Down { sent: true };
            }
        }
        if fate == Fate::Lost {
            self.stats.drops_errors += 1;
            if !self.deliver_corrupted {
                return Enqueued::Corrupted;
            }
            let at = at.max(self.last_arrival);
            self.last_arrival = at;
            return Enqueued::CorruptedArrives(at);
        }
        self.stats.bytes_ok += ip_bytes as u64;
        if matches!(fate, Fate::Delayed { .. }) {
            self.stats.burst_delayed += 1;
        }
        if overtaken {
            self.stats.reordered += 1;
            return Enqueued::ArrivesLate(at);
        }
        // a falling delay series lets it overtake packets sent before it
        // (`schedule.rs`); it leaves the in-order wire
        if !FIXED && at < self.last_arrival && self.schedule.delay_overtakes() {
            self.stats.reordered += 1;
            return Enqueued::ArrivesLate(at);
        }
        // In-order delivery: nothing overtakes a packet in the FIFO.
        let at = at.max(self.last_arrival);
        self.last_arrival = at;
        Enqueued::Arrives(at)
    }
}

/// The latest instant a FIFO commits a transmission to start (about 146
/// years): beyond it a packet is refused as by a full queue, so that no
/// time a run computes can pass 2^64 ns.
const HORIZON: Time = u64::MAX / 4;

impl Fifo {
    pub(super) fn new(discipline: Discipline) -> Self {
        Fifo { discipline, busy_until: 0, waiting: VecDeque::new(), waiting_bytes: 0 }
    }

    /// Whether drop-tail refuses a packet of `ip_bytes` that would wait
    /// (RED decides on its own).
    #[inline(always)]
    pub(super) fn full(&self, ip_bytes: u32) -> bool {
        match self.discipline {
            Discipline::DropTail(QueueLimit::Unlimited) | Discipline::Red(_) => false,
            Discipline::DropTail(QueueLimit::Packets(n)) => self.waiting.len() >= n as usize,
            Discipline::DropTail(QueueLimit::Bytes(b)) => self.waiting_bytes + ip_bytes as u64 > b,
        }
    }

    /// A packet of `ip_bytes` accepted to wait until `start`.
    #[inline(always)]
    pub(super) fn wait(&mut self, start: Time, ip_bytes: u32) {
        self.waiting.push_back((start, ip_bytes));
        self.waiting_bytes += ip_bytes as u64;
        debug_assert!(
            match self.discipline {
                Discipline::DropTail(QueueLimit::Packets(n)) => self.waiting.len() <= n as usize,
                Discipline::DropTail(QueueLimit::Bytes(b)) => self.waiting_bytes <= b,
                _ => true,
            },
            "a queue past its limit"
        );
    }

    /// Forget accepted packets whose transmission started before `now`; one
    /// that starts at `now` still waits for a packet arriving at `now` (see
    /// the module's queue semantics).
    #[inline]
    pub(super) fn advance(&mut self, now: Time) {
        // (a packet on delivery opportunities may start at the instant it
        // ends, `busy_until`: at that instant it still waits)
        if self.busy_until < now || (self.busy_until == now && self.waiting.back().is_none_or(|&(s, _)| s < now)) {
            // idle: every packet waiting started before `busy_until`, so
            // all have left (and the ring's memory, cold on a link of a
            // large network, is not read)
            self.waiting.clear();
            self.waiting_bytes = 0;
            return;
        }
        while let Some(&(start, bytes)) = self.waiting.front() {
            if start >= now {
                break;
            }
            self.waiting.pop_front();
            self.waiting_bytes -= bytes as u64;
        }
    }
}
