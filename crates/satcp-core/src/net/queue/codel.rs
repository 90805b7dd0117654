//! CoDel, Controlled Delay (RFC 8289), a FIFO whose drop decision is taken
//! when a packet is dequeued, from the time it spent in the queue
//! (`queue = { kind = "codel", packets = N, target = "5ms", interval = "100ms" }`).
//!
//! Follows the pseudocode of RFC 8289 section 5 (`dodequeue`, `dequeue`,
//! `control_law`) step for step:
//! * sojourn time = dequeue instant - enqueue instant (the packet's arrival
//!   at this queue; the start of its transmission is the dequeue);
//! * a packet is "ok to drop" when the sojourn has stayed at or above
//!   `target` for at least `interval` (`first_above_time`) and more than
//!   one maximum-size packet remains queued;
//! * on entering the dropping state the packet is dropped, `count` is
//!   reused as `count - lastcount` when that is above 1 and the state was
//!   left less than 16 intervals ago (else 1), and the next drop is due at
//!   `now + interval / sqrt(count)`; while dropping, every dequeue at or
//!   after the due time drops, increments `count` and moves the due time
//!   by `interval / sqrt(count)` from the previous due time.
//!
//! Choices where the sources differ or say nothing:
//! * `interval / sqrt(count)` is computed in f64 and truncated to whole
//!   nanoseconds (RFC 8289's pseudocode divides exactly; Linux
//!   `include/net/codel_impl.h` uses a Newton-iterated reciprocal square
//!   root in 32-bit fixed point and 1.024 us time units, ns-3 likewise);
//! * "a maximum-size packet" (RFC `maxpacket`, Linux `params->mtu`, the
//!   device MTU plus link header): the largest IP packet this queue has
//!   seen so far, compared with the IP bytes still queued after the
//!   dequeue (Linux compares the backlog after the dequeue too);
//! * the limit (packets, default 1000 as Linux's `sch_codel`, or bytes)
//!   counts waiting packets; an arrival to a full queue is dropped at the
//!   tail (Linux `codel_qdisc_enqueue`), counted as an overflow;
//! * ECN (`ecn = true`, RFC 3168 section 5, as Linux
//!   `include/net/codel_impl.h` `codel_dequeue` with `params->ecn`): where
//!   the control law would drop an ECN-capable packet (ECT or CE) it is
//!   marked CE and sent instead, and the law advances as for a drop (on
//!   entering the dropping state: `count`, `lastcount` and `drop_next` as
//!   for a drop, the marked packet is the one sent; while dropping: `count`
//!   raised by one and `drop_next` moved, then the marked packet is sent,
//!   ending this dequeue). A Not-ECT packet is dropped as without ECN.
//!   Linux's `ce_threshold` is not modelled.
//!
//! Counters: CoDel drops (`drops.codel`) apart from overflows, marks, and
//! the sojourn times of the packets sent.

use std::collections::VecDeque;

use super::priority::{Admit, Held};
use super::sojourn::Sojourns;
use crate::scenario::QueueLimit;
use crate::sim::Time;

/// CoDel's two parameters, in ns.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct CoDelParams {
    pub target_ns: u64,
    pub interval_ns: u64,
    /// Mark ECN-capable packets CE instead of dropping them.
    pub ecn: bool,
}

/// RFC 8289's state variables and the control law, shared by CoDel and
/// each FQ-CoDel flow.
#[derive(Clone, Debug, Default)]
pub struct CoDelState {
    first_above_time: Time,
    drop_next: Time,
    count: u32,
    lastcount: u32,
    dropping: bool,
}

/// A packet taken from a queue, with its enqueue instant, whether it is
/// ECN-capable, and (on the way out) whether CoDel marked it CE.
pub struct Dequeued {
    pub h: Held,
    pub enqueued: Time,
    pub ect: bool,
    pub marked: bool,
}

impl CoDelState {
    /// Raise `count` by `n` (FQ-CoDel's overflow drops, as Linux does).
    pub fn add_count(&mut self, n: u32) {
        self.count += n;
    }

    pub fn count(&self) -> u32 {
        self.count
    }

    fn control_law(t: Time, count: u32, p: &CoDelParams) -> Time {
        t + (p.interval_ns as f64 / (count as f64).sqrt()) as u64
    }

    /// RFC 8289 `dodequeue`: is the packet `d` (None: queue empty), taken
    /// at `now` with `backlog` IP bytes left behind it, ok to drop?
    fn ok_to_drop(&mut self, d: Option<&Dequeued>, now: Time, backlog: u64, maxpacket: u64, p: &CoDelParams) -> bool {
        let Some(d) = d else {
            self.first_above_time = 0;
            return false;
        };
        let sojourn = now - d.enqueued;
        if sojourn < p.target_ns || backlog <= maxpacket {
            self.first_above_time = 0;
            false
        } else if self.first_above_time == 0 {
            self.first_above_time = now + p.interval_ns;
            false
        } else {
            now >= self.first_above_time
        }
    }

    /// RFC 8289 `dequeue` over a queue `take` dequeues from (its result and
    /// the bytes left after it): the packet to send, the dropped ones
    /// appended to `dropped`.
    pub fn dequeue(
        &mut self,
        now: Time,
        maxpacket: u64,
        p: &CoDelParams,
        dropped: &mut Vec<Held>,
        mut take: impl FnMut() -> (Option<Dequeued>, u64),
    ) -> Option<Dequeued> {
        let (mut r, backlog) = take();
        let mut ok = self.ok_to_drop(r.as_ref(), now, backlog, maxpacket, p);
        if r.is_none() {
            self.dropping = false;
            return None;
        }
        if self.dropping {
            if !ok {
                self.dropping = false;
            }
            while self.dropping && now >= self.drop_next {
                self.count += 1;
                let d = r.as_mut().expect("a packet while dropping");
                if p.ecn && d.ect {
                    d.marked = true;
                    self.drop_next = Self::control_law(self.drop_next, self.count, p);
                    return r;
                }
                dropped.push(r.take().expect("a packet while dropping").h);
                let (n, backlog) = take();
                r = n;
                ok = self.ok_to_drop(r.as_ref(), now, backlog, maxpacket, p);
                if !ok {
                    self.dropping = false;
                } else {
                    self.drop_next = Self::control_law(self.drop_next, self.count, p);
                }
            }
        } else if ok {
            let d = r.as_mut().expect("ok to drop a packet");
            if p.ecn && d.ect {
                d.marked = true;
            } else {
                dropped.push(r.take().expect("ok to drop a packet").h);
                let (n, backlog) = take();
                r = n;
                self.ok_to_drop(r.as_ref(), now, backlog, maxpacket, p);
            }
            self.dropping = true;
            let delta = self.count.wrapping_sub(self.lastcount);
            self.count = 1;
            if delta > 1 && (now as i128 - self.drop_next as i128) < 16 * p.interval_ns as i128 {
                self.count = delta;
            }
            self.drop_next = Self::control_law(now, self.count, p);
            self.lastcount = self.count;
        }
        r
    }
}

#[derive(Clone, Debug)]
pub struct CoDelQueue {
    /// (packet, enqueue instant, ECN-capable)
    q: VecDeque<(Held, Time, bool)>,
    limit: QueueLimit,
    bytes: u64,
    maxpacket: u64,
    p: CoDelParams,
    state: CoDelState,
    pub sojourns: Sojourns,
}

impl CoDelQueue {
    pub fn new(limit: QueueLimit, p: CoDelParams) -> Self {
        CoDelQueue { q: VecDeque::new(), limit, bytes: 0, maxpacket: 0, p, state: CoDelState::default(), sojourns: Sojourns::default() }
    }

    pub fn len(&self) -> usize {
        self.q.len()
    }

    pub fn bytes(&self) -> u64 {
        self.bytes
    }

    /// Queue `h` at `now` (`ect`: the packet is ECN-capable).
    pub fn push(&mut self, h: Held, now: Time, ect: bool) {
        self.bytes += h.bytes as u64;
        self.maxpacket = self.maxpacket.max(h.bytes as u64);
        self.q.push_back((h, now, ect));
    }

    /// Tail drop when full (counted by the caller as an overflow).
    pub fn offer(&mut self, h: Held, now: Time, ect: bool) -> Admit {
        let fits = match self.limit {
            QueueLimit::Unlimited => true,
            QueueLimit::Packets(n) => self.q.len() < n as usize,
            QueueLimit::Bytes(b) => self.bytes + h.bytes as u64 <= b,
        };
        if !fits {
            return Admit::Refused;
        }
        self.push(h, now, ect);
        Admit::Accepted
    }

    /// The packet to send at `now` and whether CoDel marked it CE; those
    /// CoDel dropped on the way are appended to `dropped`.
    pub fn pop(&mut self, now: Time, dropped: &mut Vec<Held>) -> Option<(Held, bool)> {
        let CoDelQueue { q, bytes, maxpacket, p, state, .. } = self;
        let d = state.dequeue(now, *maxpacket, p, dropped, || {
            let d = q.pop_front().map(|(h, enqueued, ect)| Dequeued { h, enqueued, ect, marked: false });
            if let Some(d) = &d {
                *bytes -= d.h.bytes as u64;
            }
            (d, *bytes)
        })?;
        self.sojourns.record(now - d.enqueued);
        Some((d.h, d.marked))
    }

    pub fn drain_into(&mut self, out: &mut Vec<Held>) {
        out.extend(self.q.drain(..).map(|(h, _, _)| h));
        self.bytes = 0;
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    const MS: Time = 1_000_000;
    const P: CoDelParams = CoDelParams { target_ns: 5 * MS, interval_ns: 100 * MS, ecn: false };

    /// Two 1000-byte packets arrive every ms (at k ms, before the dequeue)
    /// and one is dequeued every ms, at 1, 2, 3 ... ms: the sojourn grows
    /// by 0.5 ms a dequeue and stays above target from 10 ms on. Returns
    /// the instants of the drops up to `end`.
    fn overload(end: Time, q: &mut CoDelQueue) -> Vec<Time> {
        let (drops, marks) = overload_ecn(end, q, false);
        assert!(marks.is_empty(), "Not-ECT packets are never marked");
        drops
    }

    /// [`overload`] with ECN-capable packets (`ect`): the instants of the
    /// drops and of the marks.
    fn overload_ecn(end: Time, q: &mut CoDelQueue, ect: bool) -> (Vec<Time>, Vec<Time>) {
        let mut drops = vec![];
        let mut marks = vec![];
        let mut id = 0;
        let mut out = vec![];
        for k in 0..=end / MS {
            let now = k * MS;
            for _ in 0..2 {
                q.offer(Held { id, bytes: 1000 }, now, ect);
                id += 1;
            }
            if k == 0 {
                continue;
            }
            out.clear();
            let (_, marked) = q.pop(now, &mut out).expect("the queue never empties");
            drops.extend(out.iter().map(|_| now));
            if marked {
                marks.push(now);
            }
        }
        (drops, marks)
    }

    /// ECN on the same overload: the ECT packets CoDel would drop are
    /// marked at exactly the instants of the drops (the queue grows by the
    /// packets it keeps, so the sojourn stays above target and the law's
    /// due times are the same), and none is dropped.
    #[test]
    fn ecn_marks_ect_packets_at_the_drop_instants_and_drops_none() {
        let (drops, _) = overload_ecn(1_000 * MS, &mut CoDelQueue::new(QueueLimit::Unlimited, P), false);
        let mut q = CoDelQueue::new(QueueLimit::Unlimited, CoDelParams { ecn: true, ..P });
        let (none, marks) = overload_ecn(1_000 * MS, &mut q, true);
        assert!(none.is_empty(), "an ECT packet is never dropped by the law");
        assert_eq!(&marks[..5], &[108 * MS, 208 * MS, 279 * MS, 337 * MS, 387 * MS]);
        assert_eq!(marks, drops);
        assert_eq!(q.state.count() as usize, marks.len(), "count advances once per mark");
        assert_eq!(q.sojourns.count(), 1_000, "a marked packet is sent");
    }

    /// With `ecn = true`, Not-ECT packets are dropped as without ECN.
    #[test]
    fn ecn_still_drops_not_ect_packets() {
        let (want, _) = overload_ecn(1_000 * MS, &mut CoDelQueue::new(QueueLimit::Unlimited, P), false);
        let (drops, marks) = overload_ecn(1_000 * MS, &mut CoDelQueue::new(QueueLimit::Unlimited, CoDelParams { ecn: true, ..P }), false);
        assert!(marks.is_empty());
        assert_eq!(drops, want);
    }

    #[test]
    fn drop_times_follow_rfc8289s_control_law_on_a_fixed_overload() {
        let mut q = CoDelQueue::new(QueueLimit::Unlimited, P);
        let got = overload(1_000 * MS, &mut q);
        // Worked independently: dequeue k (at k ms) takes packet k - 1
        // (packet j arrives at floor(j / 2) ms), so its sojourn is
        // k - floor((k - 1) / 2) ms: 5 ms first at k = 8 (8 - 3), so
        // first_above_time = 108 ms and the first drop is at 108 ms
        // (count 1). The due times then are D2 = 109 + 100 ms and
        // D(n+1) = D(n) + 100 ms / sqrt(n); each drop happens at the first
        // whole ms at or after its due time.
        let mut want = vec![108 * MS];
        let mut due = 108.0e6 + 100.0e6;
        let mut n = 1.0f64;
        // the engine truncates each step to whole ns: so does this list
        let mut due_ns: u64 = 108 * MS + 100 * MS;
        while due_ns <= 1_000 * MS {
            want.push(due_ns.div_ceil(MS) * MS);
            n += 1.0;
            due += 100.0e6 / n.sqrt();
            due_ns += (100.0e6 / n.sqrt()) as u64;
        }
        assert!((due - due_ns as f64).abs() < 20.0, "truncation moved the due times by under 20 ns");
        assert_eq!(&want[..5], &[108 * MS, 208 * MS, 279 * MS, 337 * MS, 387 * MS], "108, +100, +70.7, +57.7, +50 ms");
        assert_eq!(got, want);
        assert_eq!(q.sojourns.count(), 1_000);
    }

    #[test]
    fn count_is_reused_when_dropping_resumes_soon_after() {
        let mut q = CoDelQueue::new(QueueLimit::Unlimited, P);
        let drops = overload(400 * MS, &mut q);
        assert_eq!(drops, [108 * MS, 208 * MS, 279 * MS, 337 * MS, 387 * MS]);
        // count is 5, lastcount 1. Empty the queue at 400.5 ms: dropping ends.
        let mut out = vec![];
        let t = 400 * MS + MS / 2;
        while q.pop(t, &mut out).is_some() {}
        assert!(!q.state.dropping);
        let drop_next = q.state.drop_next;
        assert_eq!((q.state.count, q.state.lastcount), (5, 1));
        // A standing queue again: 40 packets at 401 ms, one dequeued a ms.
        for id in 0..40 {
            q.offer(Held { id: 10_000 + id, bytes: 1000 }, 401 * MS, false);
        }
        let mut drops = vec![];
        for k in 402..=420 {
            out.clear();
            q.pop(k * MS, &mut out);
            drops.extend(out.iter().map(|_| k * MS));
        }
        // sojourn >= 5 ms first at 406 ms (first_above_time 506 ms): no drop
        // by 420 ms yet; push on, one arrival and one dequeue a ms, with
        // about 20 packets standing, to 506 ms
        assert!(drops.is_empty());
        for k in 421..=506 {
            q.offer(Held { id: 20_000 + k as u32, bytes: 1000 }, k * MS, false);
            out.clear();
            q.pop(k * MS, &mut out);
            drops.extend(out.iter().map(|_| k * MS));
        }
        assert_eq!(drops, [506 * MS]);
        // delta = 5 - 1 = 4 > 1 and 506 ms - drop_next < 1.6 s: count = 4
        assert!(506 * MS - drop_next < 16 * P.interval_ns);
        assert_eq!((q.state.count, q.state.lastcount), (4, 4));
        assert_eq!(q.state.drop_next, 506 * MS + 50 * MS, "100 ms / sqrt(4)");
    }

    #[test]
    fn no_drop_while_one_packet_or_less_remains() {
        // sojourns far above target, but never more than one maximum-size
        // packet left behind the one dequeued
        let mut q = CoDelQueue::new(QueueLimit::Unlimited, P);
        let mut out = vec![];
        q.offer(Held { id: 0, bytes: 1000 }, 0, false);
        q.offer(Held { id: 1, bytes: 1000 }, 0, false);
        // at 200 ms: the first dequeue finds a 200 ms sojourn, but only one
        // packet (= maxpacket) stays behind it: never ok to drop
        assert_eq!(q.pop(200 * MS, &mut out).map(|h| h.0.id), Some(0));
        assert_eq!(q.state.first_above_time, 0);
        assert_eq!(q.pop(400 * MS, &mut out).map(|h| h.0.id), Some(1));
        assert!(out.is_empty());
        assert_eq!(q.pop(500 * MS, &mut out), None);
    }

    #[test]
    fn a_full_codel_queue_refuses_at_the_tail() {
        let mut q = CoDelQueue::new(QueueLimit::Packets(2), P);
        assert_eq!(q.offer(Held { id: 0, bytes: 10 }, 0, false), Admit::Accepted);
        assert_eq!(q.offer(Held { id: 1, bytes: 10 }, 0, false), Admit::Accepted);
        assert_eq!(q.offer(Held { id: 2, bytes: 10 }, 0, false), Admit::Refused);
        assert_eq!(q.len(), 2);
    }
}
