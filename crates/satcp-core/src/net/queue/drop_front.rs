//! Drop-front (head-drop) FIFO (`queue = { kind = "dropfront", packets = N }`
//! or `bytes = "64KB"`): when a packet arrives to a full queue, the oldest
//! waiting packet is dropped to make room and the arrival is queued at the
//! tail. Reported for Starlink's access buffers by the 2026 measurement
//! study the issue cites; also Linux's `pfifo_head_drop` (net/sched/
//! sch_fifo.c), which drops one packet from the head per arrival over the
//! limit.
//!
//! * The limit counts waiting packets (or IP bytes), not the one being
//!   sent, as drop-tail does here. With a byte limit, as many head packets
//!   go as the arrival needs; an arrival larger than the whole byte limit is
//!   itself dropped (counted as an overflow) and nothing is pushed out.
//! * Head drops are counted apart (`drops.head`); a packet that finds the
//!   transmitter idle is sent at once, as for every queue here.
//! * Sojourn time: from enqueue to the start of its transmission.

use std::collections::VecDeque;

use super::priority::{Admit, Held};
use super::sojourn::Sojourns;
use crate::scenario::QueueLimit;
use crate::sim::Time;

#[derive(Clone, Debug)]
pub struct DropFrontQueue {
    q: VecDeque<(Held, Time)>,
    limit: QueueLimit,
    bytes: u64,
    pub sojourns: Sojourns,
}

impl DropFrontQueue {
    pub fn new(limit: QueueLimit) -> Self {
        DropFrontQueue { q: VecDeque::new(), limit, bytes: 0, sojourns: Sojourns::default() }
    }

    pub fn len(&self) -> usize {
        self.q.len()
    }

    pub fn bytes(&self) -> u64 {
        self.bytes
    }

    fn fits(&self, bytes: u32) -> bool {
        match self.limit {
            QueueLimit::Unlimited => true,
            QueueLimit::Packets(n) => self.q.len() < n as usize,
            QueueLimit::Bytes(b) => self.bytes + bytes as u64 <= b,
        }
    }

    /// Queue `h` at `now` without a limit check (the transmitter is idle).
    pub fn push(&mut self, h: Held, now: Time) {
        self.bytes += h.bytes as u64;
        self.q.push_back((h, now));
    }

    /// Offer `h` at `now`: the head packets dropped to make room are
    /// appended to `dropped`.
    pub fn offer(&mut self, h: Held, now: Time, dropped: &mut Vec<Held>) -> Admit {
        if let QueueLimit::Bytes(b) = self.limit {
            if h.bytes as u64 > b {
                return Admit::Refused;
            }
        }
        while !self.fits(h.bytes) {
            let (old, _) = self.q.pop_front().expect("a full queue holds a packet");
            self.bytes -= old.bytes as u64;
            dropped.push(old);
        }
        self.push(h, now);
        Admit::Accepted
    }

    /// The oldest packet, taken for transmission at `now`.
    pub fn pop(&mut self, now: Time) -> Option<Held> {
        let (h, t) = self.q.pop_front()?;
        self.bytes -= h.bytes as u64;
        self.sojourns.record(now - t);
        Some(h)
    }

    pub fn drain_into(&mut self, out: &mut Vec<Held>) {
        out.extend(self.q.drain(..).map(|(h, _)| h));
        self.bytes = 0;
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn h(id: u32) -> Held {
        Held { id, bytes: 100 }
    }

    #[test]
    fn a_full_queue_drops_its_oldest_waiting_packet_for_the_arrival() {
        let mut q = DropFrontQueue::new(QueueLimit::Packets(3));
        let mut out = vec![];
        for id in 1..=3 {
            assert_eq!(q.offer(h(id), id as Time, &mut out), Admit::Accepted);
        }
        assert!(out.is_empty());
        assert_eq!(q.offer(h(4), 4, &mut out), Admit::Accepted);
        assert_eq!(q.offer(h(5), 5, &mut out), Admit::Accepted);
        assert_eq!(out, vec![h(1), h(2)], "the oldest go, in order");
        assert_eq!(q.len(), 3);
        let order: Vec<u32> = std::iter::from_fn(|| q.pop(10)).map(|x| x.id).collect();
        assert_eq!(order, vec![3, 4, 5]);
        // sojourns 7, 6, 5 ns
        assert_eq!((q.sojourns.count(), q.sojourns.percentile(0.5), q.sojourns.percentile(1.0)), (3, Some(6), Some(7)));
    }

    #[test]
    fn byte_limit_drops_as_many_head_packets_as_the_arrival_needs() {
        let mut q = DropFrontQueue::new(QueueLimit::Bytes(300));
        let mut out = vec![];
        for id in 1..=3 {
            q.offer(h(id), 0, &mut out);
        }
        assert_eq!(q.offer(Held { id: 4, bytes: 250 }, 0, &mut out), Admit::Accepted);
        assert_eq!(out.iter().map(|x| x.id).collect::<Vec<_>>(), vec![1, 2, 3], "250 bytes need all three out");
        assert_eq!(q.bytes(), 250);
        out.clear();
        assert_eq!(q.offer(Held { id: 5, bytes: 301 }, 0, &mut out), Admit::Refused, "larger than the whole limit");
        assert!(out.is_empty());
        assert_eq!(q.len(), 1);
    }
}
