//! One direction of a full-duplex point-to-point link: a FIFO transmitter with
//! a rate, a propagation delay, a drop-tail queue and an error model.
//!
//! Because the queue is FIFO, a packet's departure time is known the moment it
//! is accepted (`max(now, busy_until) + framed_bits / rate`), so the arrival
//! at the far end is scheduled then: one event per packet per hop. Queue
//! occupancy at any instant follows from the committed transmission start
//! times (`waiting`), which is all drop-tail needs.
//!
//! Packets accepted and not yet arrived are kept here in arrival order
//! (`in_flight`, pool indices), so the event queue needs one entry per busy
//! direction rather than one per packet.
//!
//! Queue semantics (a choice; ns-2's): the limit counts packets (or IP bytes)
//! waiting for the transmitter, not the one being transmitted. A packet that
//! finds the transmitter idle is never dropped by the queue.

use std::collections::VecDeque;

use super::error_model::ErrorModel;
use crate::scenario::{LinkDirCfg, QueueCfg, QueueLimit};
use crate::sim::{Rng, Time, NS_PER_S};

pub struct LinkDir {
    pub from: u32,
    pub to: u32,
    pub rate_bps: u64,
    pub delay_ns: u64,
    pub overhead_bytes: u32,
    limit: QueueLimit,
    errors: ErrorModel,
    /// When the transmitter finishes everything accepted so far.
    busy_until: Time,
    /// (transmission start, IP bytes) of accepted packets not yet started.
    waiting: VecDeque<(Time, u32)>,
    waiting_bytes: u64,
    /// (arrival time at the far end, packet pool index), in arrival order.
    in_flight: VecDeque<(Time, u32)>,
    pub stats: LinkStats,
}

#[derive(Clone, Copy, Debug, Default)]
pub struct LinkStats {
    pub packets_tx: u64,
    pub bytes_tx: u64,
    pub bytes_ok: u64,
    /// Sum of transmission times of every accepted packet.
    pub busy_ns: u64,
    pub drops_queue: u64,
    pub drops_errors: u64,
    pub max_queue_packets: u64,
}

/// What became of a packet offered to the link.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Enqueued {
    /// It will arrive intact at the far end at this time.
    Arrives(Time),
    /// The queue was full.
    DroppedQueue,
    /// It is transmitted but corrupted; the far end discards it.
    Corrupted,
}

impl LinkDir {
    pub fn new(from: u32, to: u32, cfg: &LinkDirCfg, rng: Rng) -> Self {
        let QueueCfg::DropTail { limit } = cfg.queue;
        LinkDir {
            from,
            to,
            rate_bps: cfg.rate_bps,
            delay_ns: cfg.delay_ns,
            overhead_bytes: cfg.overhead_bytes,
            limit,
            errors: ErrorModel::new(cfg.errors, rng),
            busy_until: 0,
            waiting: VecDeque::new(),
            waiting_bytes: 0,
            in_flight: VecDeque::new(),
            stats: LinkStats::default(),
        }
    }

    /// Serialisation time of a packet of `ip_bytes`, rounded up to a whole ns.
    #[inline]
    pub fn tx_time(&self, ip_bytes: u32) -> u64 {
        let bits = 8 * (ip_bytes as u64 + self.overhead_bytes as u64);
        match bits.checked_mul(NS_PER_S) {
            Some(n) => n.div_ceil(self.rate_bps),
            None => ((bits as u128 * NS_PER_S as u128).div_ceil(self.rate_bps as u128)) as u64,
        }
    }

    /// Record that packet `pkt` will arrive at `at`. Returns true if it is
    /// now the first in flight (so its arrival must be scheduled).
    pub fn push_in_flight(&mut self, at: Time, pkt: u32) -> bool {
        debug_assert!(self.in_flight.back().is_none_or(|&(t, _)| t <= at), "FIFO arrivals");
        self.in_flight.push_back((at, pkt));
        self.in_flight.len() == 1
    }

    /// Take the first packet in flight; also return when the next one
    /// arrives, if any.
    pub fn pop_arrival(&mut self) -> (u32, Option<Time>) {
        let (_, pkt) = self.in_flight.pop_front().expect("an arrival was scheduled");
        (pkt, self.in_flight.front().map(|&(t, _)| t))
    }

    /// Forget accepted packets whose transmission has started by `now`.
    #[inline]
    fn advance(&mut self, now: Time) {
        while let Some(&(start, bytes)) = self.waiting.front() {
            if start > now {
                break;
            }
            self.waiting.pop_front();
            self.waiting_bytes -= bytes as u64;
        }
    }

    /// Packets waiting (not in transmission) at `now`.
    pub fn queue_packets(&mut self, now: Time) -> usize {
        self.advance(now);
        self.waiting.len()
    }

    pub fn queue_bytes(&mut self, now: Time) -> u64 {
        self.advance(now);
        self.waiting_bytes
    }

    pub fn busy_until(&self) -> Time {
        self.busy_until
    }

    /// Offer a packet at `now`.
    pub fn enqueue(&mut self, now: Time, ip_bytes: u32) -> Enqueued {
        self.advance(now);
        let start = self.busy_until.max(now);
        if start > now {
            let full = match self.limit {
                QueueLimit::Unlimited => false,
                QueueLimit::Packets(n) => self.waiting.len() >= n as usize,
                QueueLimit::Bytes(b) => self.waiting_bytes + ip_bytes as u64 > b,
            };
            if full {
                self.stats.drops_queue += 1;
                return Enqueued::DroppedQueue;
            }
            self.waiting.push_back((start, ip_bytes));
            self.waiting_bytes += ip_bytes as u64;
            self.stats.max_queue_packets = self.stats.max_queue_packets.max(self.waiting.len() as u64);
        }
        let tx = self.tx_time(ip_bytes);
        self.busy_until = start + tx;
        self.stats.packets_tx += 1;
        self.stats.bytes_tx += ip_bytes as u64;
        self.stats.busy_ns += tx;
        if self.errors.corrupts(ip_bytes) {
            self.stats.drops_errors += 1;
            Enqueued::Corrupted
        } else {
            self.stats.bytes_ok += ip_bytes as u64;
            Enqueued::Arrives(self.busy_until + self.delay_ns)
        }
    }

    /// Fraction of [0, end] the transmitter was busy.
    pub fn utilization(&self, end: Time) -> f64 {
        if end == 0 {
            return 0.0;
        }
        let beyond = self.busy_until.saturating_sub(end);
        (self.stats.busy_ns.saturating_sub(beyond)) as f64 / end as f64
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::scenario::ErrorCfg;

    fn dir(rate: u64, delay: u64, limit: QueueLimit) -> LinkDir {
        let cfg = LinkDirCfg { rate_bps: rate, delay_ns: delay, queue: QueueCfg::DropTail { limit }, errors: ErrorCfg::None, overhead_bytes: 0 };
        LinkDir::new(0, 1, &cfg, Rng::new(1, 1))
    }

    #[test]
    fn back_to_back_packets_serialise_fifo() {
        // 1500 B at 2048 kb/s = 5.859375 ms each.
        let mut l = dir(2_048_000, 250_000_000, QueueLimit::Unlimited);
        let tx = 5_859_375;
        assert_eq!(l.enqueue(0, 1500), Enqueued::Arrives(tx + 250_000_000));
        assert_eq!(l.enqueue(0, 1500), Enqueued::Arrives(2 * tx + 250_000_000));
        assert_eq!(l.enqueue(1, 1500), Enqueued::Arrives(3 * tx + 250_000_000));
        // idle link: starts immediately
        assert_eq!(l.enqueue(10 * tx, 1500), Enqueued::Arrives(11 * tx + 250_000_000));
    }

    #[test]
    fn droptail_limit_counts_waiting_packets_only() {
        let mut l = dir(8_000, 0, QueueLimit::Packets(2)); // 1 ms per byte
        assert!(matches!(l.enqueue(0, 10), Enqueued::Arrives(10_000_000))); // in service
        assert!(matches!(l.enqueue(0, 10), Enqueued::Arrives(_))); // waits (1)
        assert!(matches!(l.enqueue(0, 10), Enqueued::Arrives(_))); // waits (2)
        assert_eq!(l.enqueue(0, 10), Enqueued::DroppedQueue);
        assert_eq!(l.queue_packets(0), 2);
        // after the first finishes, the second is in service: one waiting
        assert_eq!(l.queue_packets(10_000_000), 1);
        assert!(matches!(l.enqueue(10_000_000, 10), Enqueued::Arrives(40_000_000)));
        assert_eq!(l.stats.drops_queue, 1);
        assert_eq!(l.stats.max_queue_packets, 2);
    }

    #[test]
    fn byte_limit() {
        let mut l = dir(8_000, 0, QueueLimit::Bytes(25));
        l.enqueue(0, 10);
        assert!(matches!(l.enqueue(0, 10), Enqueued::Arrives(_)));
        assert!(matches!(l.enqueue(0, 15), Enqueued::Arrives(_)));
        assert_eq!(l.enqueue(0, 1), Enqueued::DroppedQueue);
        assert_eq!(l.queue_bytes(0), 25);
    }

    #[test]
    fn utilization_is_busy_fraction_and_at_most_one() {
        let mut l = dir(8_000, 0, QueueLimit::Unlimited);
        for _ in 0..10 {
            l.enqueue(0, 10); // 10 ms each -> busy until 100 ms
        }
        assert!((l.utilization(200_000_000) - 0.5).abs() < 1e-12);
        assert!((l.utilization(50_000_000) - 1.0).abs() < 1e-12);
    }
}
