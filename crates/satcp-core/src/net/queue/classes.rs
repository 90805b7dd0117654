//! A two-class queue: TCP and everything else, each with its own buffer
//! and a share of the link (`queue = { kind = "classes", ... }`): how the
//! XFWA paper keeps non-responsive traffic out of the window computation
//! (section III-D: traffic classified into classes, each with its own
//! queue and discipline, XFWA applied to the TCP class only).
//!
//! * Classes: TCP (`Kind::is_tcp`: data, ACKs, dummies) and other (UDP).
//!   Each is a drop-tail FIFO with its own limit (packets or IP bytes,
//!   waiting packets only, as for drop-tail).
//! * Service: work-conserving weighted sharing by bytes. The transmitter
//!   takes the head of the backlogged class whose bytes sent so far,
//!   divided by its share, are the least; a class that was idle starts
//!   again level with the other (no credit saved while idle), so each gets
//!   at least its share when both are backlogged and all of the link when
//!   alone.
//! * XFWA on such a link computes with the TCP class's share of the rate
//!   and the TCP class's buffer.

use std::collections::VecDeque;

use super::priority::{Admit, Held};
use crate::scenario::QueueLimit;

#[derive(Clone, Debug)]
struct Class {
    q: VecDeque<Held>,
    limit: QueueLimit,
    bytes: u64,
    share: f64,
    /// Bytes served / share: the class's normalised service so far.
    served: f64,
}

impl Class {
    fn fits(&self, bytes: u32) -> bool {
        match self.limit {
            QueueLimit::Unlimited => true,
            QueueLimit::Packets(n) => self.q.len() < n as usize,
            QueueLimit::Bytes(b) => self.bytes + bytes as u64 <= b,
        }
    }
}

#[derive(Clone, Debug)]
pub struct ClassQueue {
    /// [TCP, other].
    classes: [Class; 2],
}

impl ClassQueue {
    /// `tcp_share` in (0, 1): the TCP class's share of the link.
    pub fn new(tcp: QueueLimit, other: QueueLimit, tcp_share: f64) -> Self {
        let class = |limit, share| Class { q: VecDeque::new(), limit, bytes: 0, share, served: 0.0 };
        ClassQueue { classes: [class(tcp, tcp_share), class(other, 1.0 - tcp_share)] }
    }

    pub fn len(&self) -> usize {
        self.classes[0].q.len() + self.classes[1].q.len()
    }

    pub fn bytes(&self) -> u64 {
        self.classes[0].bytes + self.classes[1].bytes
    }

    /// Packets waiting in the TCP class.
    pub fn tcp_len(&self) -> usize {
        self.classes[0].q.len()
    }

    fn class_of(tcp: bool) -> usize {
        usize::from(!tcp)
    }

    /// Queue `h` without a limit check (the transmitter is idle and takes
    /// it at once).
    pub fn push(&mut self, h: Held, tcp: bool) {
        let k = Self::class_of(tcp);
        if self.classes[k].q.is_empty() {
            // back from idle: level with the other class's service
            let other = &self.classes[1 - k];
            if !other.q.is_empty() {
                self.classes[k].served = self.classes[k].served.max(other.served);
            } else {
                let m = self.classes[0].served.max(self.classes[1].served);
                self.classes[k].served = self.classes[k].served.max(m);
            }
        }
        let c = &mut self.classes[k];
        c.bytes += h.bytes as u64;
        c.q.push_back(h);
    }

    /// Offer `h` to its class: refused when that class is full.
    pub fn offer(&mut self, h: Held, tcp: bool) -> Admit {
        if !self.classes[Self::class_of(tcp)].fits(h.bytes) {
            return Admit::Refused;
        }
        self.push(h, tcp);
        Admit::Accepted
    }

    /// The next packet to send: the head of the backlogged class least
    /// served for its share (TCP on a tie).
    pub fn pop(&mut self) -> Option<Held> {
        let k = match (self.classes[0].q.is_empty(), self.classes[1].q.is_empty()) {
            (true, true) => return None,
            (false, true) => 0,
            (true, false) => 1,
            (false, false) => usize::from(self.classes[1].served < self.classes[0].served),
        };
        let c = &mut self.classes[k];
        let h = c.q.pop_front().expect("backlogged");
        c.bytes -= h.bytes as u64;
        c.served += h.bytes as f64 / c.share;
        Some(h)
    }

    /// Empty the queue (the link went down), appending what was held.
    pub fn drain_into(&mut self, out: &mut Vec<Held>) {
        for c in &mut self.classes {
            out.extend(c.q.drain(..));
            c.bytes = 0;
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn h(id: u32) -> Held {
        Held { id, bytes: 1000 }
    }

    #[test]
    fn both_backlogged_each_gets_its_share() {
        // TCP 0.75: three TCP packets for every other one
        let mut q = ClassQueue::new(QueueLimit::Packets(100), QueueLimit::Packets(100), 0.75);
        for i in 0..40 {
            q.push(h(i), true);
            q.push(h(1000 + i), false);
        }
        let first: Vec<bool> = (0..40).map(|_| q.pop().unwrap().id < 1000).collect();
        assert_eq!(first.iter().filter(|&&t| t).count(), 30);
        // in order within a class
        let mut q = ClassQueue::new(QueueLimit::Unlimited, QueueLimit::Unlimited, 0.5);
        for i in 0..4 {
            q.push(h(i), true);
        }
        assert_eq!((0..4).map(|_| q.pop().unwrap().id).collect::<Vec<_>>(), vec![0, 1, 2, 3]);
    }

    #[test]
    fn alone_a_class_takes_the_link_and_saves_no_credit() {
        let mut q = ClassQueue::new(QueueLimit::Unlimited, QueueLimit::Unlimited, 0.5);
        // TCP alone for 10 packets: all its
        for i in 0..10 {
            q.push(h(i), true);
        }
        for _ in 0..10 {
            assert!(q.pop().unwrap().id < 1000);
        }
        // now both: the other class does not get 10 in a row for its idle time
        for i in 0..10 {
            q.push(h(100 + i), true);
            q.push(h(1000 + i), false);
        }
        let first4: Vec<bool> = (0..4).map(|_| q.pop().unwrap().id < 1000).collect();
        assert_eq!(first4.iter().filter(|&&t| t).count(), 2, "{first4:?}");
    }

    #[test]
    fn each_class_has_its_own_buffer() {
        let mut q = ClassQueue::new(QueueLimit::Packets(2), QueueLimit::Packets(1), 0.8);
        assert_eq!(q.offer(h(1), true), Admit::Accepted);
        assert_eq!(q.offer(h(2), true), Admit::Accepted);
        assert_eq!(q.offer(h(3), true), Admit::Refused);
        assert_eq!(q.offer(h(4), false), Admit::Accepted, "the other class's room is its own");
        assert_eq!(q.offer(h(5), false), Admit::Refused);
        assert_eq!((q.len(), q.bytes()), (3, 3000));
        let mut out = vec![];
        q.drain_into(&mut out);
        assert_eq!((out.len(), q.len(), q.bytes()), (3, 0, 0));
    }
}
