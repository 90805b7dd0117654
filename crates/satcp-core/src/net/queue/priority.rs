//! A two-class priority queue with push-out: what routers that drop TCP
//! Peach's dummy segments first need (`queue = { kind = "priority", ... }`).
//!
//! * Classes: low priority = dummy segments and their ACKs
//!   (`Kind::low_priority`), high = everything else. Strict priority: the
//!   transmitter takes the oldest high-priority packet, and a low-priority
//!   one only when no high-priority packet waits. FIFO within a class.
//! * The limit (packets or IP bytes) counts waiting packets of both classes,
//!   not the one being sent, as for drop-tail.
//! * Full: an arriving low-priority packet is dropped; an arriving
//!   high-priority packet pushes out queued low-priority packets, the most
//!   recently queued first (the least waiting time is thrown away), as many
//!   as it takes to make room; if all of them would not make room, the
//!   arrival is dropped and nothing is pushed out.
//! * `dummy_drop = "queued"` (an option; the Modified Peach paper does not
//!   say which rule its routers used): an arriving low-priority packet is
//!   also dropped whenever more than one packet waits, as GTNetS's
//!   `PeachQueue` does, so dummies only use a nearly idle link.
//!
//! The transmitter that holds packets (`net/link/mod.rs`) owns this queue: a
//! pushed-out packet must be found and freed after it was accepted, which a
//! FIFO that only keeps departure times cannot do.

use std::collections::VecDeque;

use crate::scenario::{LowDrop, QueueLimit};

/// A packet waiting: its pool index and IP bytes.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Held {
    pub id: u32,
    pub bytes: u32,
}

/// What became of an offered packet.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Admit {
    Accepted,
    /// The queue was full (and pushing out low-priority packets could not
    /// make room).
    Refused,
}

#[derive(Clone, Debug)]
pub struct PriorityQueue {
    high: VecDeque<Held>,
    low: VecDeque<Held>,
    limit: QueueLimit,
    low_drop: LowDrop,
    bytes: u64,
}

impl PriorityQueue {
    pub fn new(limit: QueueLimit, low_drop: LowDrop) -> Self {
        PriorityQueue { high: VecDeque::new(), low: VecDeque::new(), limit, low_drop, bytes: 0 }
    }

    pub fn len(&self) -> usize {
        self.high.len() + self.low.len()
    }

    pub fn bytes(&self) -> u64 {
        self.bytes
    }

    fn fits(&self, extra_packets: usize, extra_bytes: u64) -> bool {
        match self.limit {
            QueueLimit::Unlimited => true,
            QueueLimit::Packets(n) => self.len() + extra_packets <= n as usize,
            QueueLimit::Bytes(b) => self.bytes + extra_bytes <= b,
        }
    }

    /// Offer `h`; pushed-out packets are appended to `pushed_out`.
    pub fn offer(&mut self, h: Held, low_priority: bool, pushed_out: &mut Vec<Held>) -> Admit {
        if low_priority && self.low_drop == LowDrop::Queued && self.len() > 1 {
            return Admit::Refused;
        }
        if !self.fits(1, h.bytes as u64) {
            if low_priority {
                return Admit::Refused;
            }
            // how many of the newest low-priority packets must go
            let (mut k, mut freed) = (0, 0u64);
            while !self.fits_after(k, freed, h.bytes) {
                if k == self.low.len() {
                    return Admit::Refused;
                }
                freed += self.low[self.low.len() - 1 - k].bytes as u64;
                k += 1;
            }
            for _ in 0..k {
                let v = self.low.pop_back().expect("counted");
                self.bytes -= v.bytes as u64;
                pushed_out.push(v);
            }
        }
        self.push(h, low_priority);
        Admit::Accepted
    }

    /// Room for `bytes` more once `k` low-priority packets of `freed` bytes
    /// are gone.
    fn fits_after(&self, k: usize, freed: u64, bytes: u32) -> bool {
        match self.limit {
            QueueLimit::Unlimited => true,
            QueueLimit::Packets(n) => self.len() - k < n as usize,
            QueueLimit::Bytes(b) => self.bytes - freed + bytes as u64 <= b,
        }
    }

    /// Queue `h` without a limit check (the transmitter is idle and takes
    /// it at once).
    pub fn push(&mut self, h: Held, low_priority: bool) {
        self.bytes += h.bytes as u64;
        if low_priority {
            self.low.push_back(h);
        } else {
            self.high.push_back(h);
        }
    }

    /// The next packet to send: the oldest high-priority one, else the
    /// oldest low-priority one.
    pub fn pop(&mut self) -> Option<Held> {
        let h = self.high.pop_front().or_else(|| self.low.pop_front())?;
        self.bytes -= h.bytes as u64;
        Some(h)
    }

    /// Empty the queue (the link went down), appending what was held.
    pub fn drain_into(&mut self, out: &mut Vec<Held>) {
        out.extend(self.high.drain(..));
        out.extend(self.low.drain(..));
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
    fn high_priority_first_fifo_within_a_class() {
        let mut q = PriorityQueue::new(QueueLimit::Unlimited, LowDrop::Full);
        let mut out = vec![];
        for (id, low) in [(1, true), (2, false), (3, true), (4, false)] {
            assert_eq!(q.offer(h(id), low, &mut out), Admit::Accepted);
        }
        let order: Vec<u32> = std::iter::from_fn(|| q.pop()).map(|x| x.id).collect();
        assert_eq!(order, vec![2, 4, 1, 3]);
    }

    #[test]
    fn full_queue_drops_low_arrivals_and_pushes_the_newest_low_out() {
        let mut q = PriorityQueue::new(QueueLimit::Packets(3), LowDrop::Full);
        let mut out = vec![];
        q.offer(h(1), true, &mut out);
        q.offer(h(2), false, &mut out);
        q.offer(h(3), true, &mut out);
        assert_eq!(q.offer(h(4), true, &mut out), Admit::Refused, "a low arrival to a full queue is dropped");
        assert_eq!(q.offer(h(5), false, &mut out), Admit::Accepted);
        assert_eq!(out, vec![h(3)], "the newest queued dummy is pushed out");
        assert_eq!(q.offer(h(6), false, &mut out), Admit::Accepted);
        assert_eq!(out, vec![h(3), h(1)]);
        assert_eq!(q.offer(h(7), false, &mut out), Admit::Refused, "only data left: drop the arrival");
        assert_eq!(q.len(), 3);
        let order: Vec<u32> = std::iter::from_fn(|| q.pop()).map(|x| x.id).collect();
        assert_eq!(order, vec![2, 5, 6]);
    }

    #[test]
    fn byte_limit_pushes_out_as_many_as_needed_or_none() {
        let mut q = PriorityQueue::new(QueueLimit::Bytes(300), LowDrop::Full);
        let mut out = vec![];
        q.offer(Held { id: 1, bytes: 100 }, true, &mut out);
        q.offer(Held { id: 2, bytes: 100 }, true, &mut out);
        q.offer(Held { id: 3, bytes: 100 }, false, &mut out);
        // 200 more bytes need both dummies out (one frees only 100)
        assert_eq!(q.offer(Held { id: 4, bytes: 200 }, false, &mut out), Admit::Accepted);
        assert_eq!(out.iter().map(|x| x.id).collect::<Vec<_>>(), vec![2, 1]);
        assert_eq!(q.bytes(), 300);
        out.clear();
        // nothing low left: a data packet that does not fit is dropped, no push-out
        assert_eq!(q.offer(Held { id: 5, bytes: 1 }, false, &mut out), Admit::Refused);
        assert!(out.is_empty());
        let mut all = vec![];
        q.drain_into(&mut all);
        assert_eq!((all.len(), q.bytes(), q.len()), (2, 0, 0));
    }

    #[test]
    fn queued_rule_drops_a_dummy_whenever_more_than_one_packet_waits() {
        let mut q = PriorityQueue::new(QueueLimit::Packets(10), LowDrop::Queued);
        let mut out = vec![];
        assert_eq!(q.offer(h(1), true, &mut out), Admit::Accepted, "an empty queue takes a dummy");
        assert_eq!(q.offer(h(2), false, &mut out), Admit::Accepted);
        assert_eq!(q.offer(h(3), true, &mut out), Admit::Refused, "two wait: the dummy is dropped");
        assert_eq!(q.offer(h(4), false, &mut out), Admit::Accepted, "data is never held to the rule");
        assert_eq!(q.pop().map(|x| x.id), Some(2));
        assert_eq!(q.pop().map(|x| x.id), Some(4));
        assert_eq!(q.offer(h(5), true, &mut out), Admit::Accepted, "one waits: accepted");
        assert!(out.is_empty());
    }
}
