//! The service model of a link direction: when a packet the transmitter
//! takes leaves it. Both transmitters that serialise packets consult it, the
//! FIFO at acceptance (`fifo.rs`) and the holding transmitter when it
//! starts a packet (`held.rs`), so any queue in front of either can run on
//! any capacity:
//! * **a rate** (`rate`, its `changes`, or a `rate_trace` series, all kept
//!   by the direction's schedule, `schedule.rs`): a packet takes
//!   `8 x (IP bytes + overhead) / rate` from its start; the rate is the one
//!   in force when it starts. A fixed rate never reaches this file: the
//!   FIFO's fast path computes it inline, as it always has.
//! * **Mahimahi delivery opportunities** (`capacity_trace`): a trace of
//!   instants, each allowing 1,504 bytes to leave (`Opportunities`).
//!
//! Sources: Mahimahi's link queue (ravinet/mahimahi
//! `src/frontend/link_queue.cc` and `.hh`, `LinkQueue::rationalize` and
//! `use_a_delivery_opportunity`; LeoReplayer's copy in SpaceNetLab/LeoCC
//! `leoreplayer/replayer/src/frontend/link_queue.cc` changes only the base
//! timestamp, shared with its delay queue). What they do, and what satcp
//! does:
//! * An opportunity carries `PACKET_SIZE` = 1,504 bytes (Mahimahi's TUN
//!   MTU: a 1,500-byte IP packet with the 4-byte packet-information header a
//!   TUN device reads). A packet takes its IP bytes plus the direction's
//!   `overhead`, which on a `capacity_trace` direction defaults to those 4
//!   bytes (so a 1,500-byte IP packet fills one opportunity exactly, as in
//!   Mahimahi); an `overhead` written on the link replaces the 4.
//! * The bytes of an opportunity are a fluid: the packet at the head takes
//!   what it needs, and what is left goes to the next packet waiting, so
//!   several small packets (ACKs) leave at one opportunity. A packet that
//!   needs more than is left takes the rest and continues at the next
//!   opportunity (Mahimahi's `packet_in_transit_bytes_left_`); it leaves at
//!   the opportunity that carries its last byte. Mahimahi refuses packets
//!   over 1,504 bytes; here a larger one spans as many opportunities as it
//!   needs.
//! * Bytes of an opportunity that find the queue empty are lost (Mahimahi
//!   breaks out of its loop and the opportunity is spent): capacity cannot
//!   be saved up while the link idles.
//! * The trace repeats, the last timestamp being its period
//!   (`base_timestamp_ += schedule_.back()` on wrap-around; Mahimahi's
//!   default, `repeat`); trace time 0 is the start of the run (LeoReplayer
//!   aligns its link and delay queues on one `BASE_TIMESTAMP`).
//! * Simultaneous events (an ambiguity, and frequent: opportunities and
//!   trace delays are whole milliseconds, so arrivals land on
//!   opportunities): Mahimahi serves every opportunity up to the current
//!   millisecond before it reads a packet that came in during it
//!   (`read_packet` calls `rationalize(now)` first). Its clock is in whole
//!   milliseconds, so "during it" means anywhere in that millisecond. satcp's
//!   clock is in nanoseconds, and its rule for simultaneous events is that
//!   an arrival comes before the transmitter's step at the same instant
//!   (`net/link/mod.rs`, queue semantics): a packet offered at exactly an
//!   opportunity's instant may use it; one offered a nanosecond later may
//!   not.
//!
//! A packet's departure is computed when the transmitter takes it, as for a
//! rate: the opportunities are known before the run, so the FIFO keeps its
//! one event per packet. Its transmission "starts" at the opportunity that
//! carries its first byte (the queue counts it as waiting until then, as
//! Mahimahi's queue holds it until it is dequeued into transit) and ends at
//! the one that carries its last.
//!
//! Outages: when the link goes down ([`Opportunities::go_down`]) the
//! packets it held are lost and the opportunities they had been given are
//! free again; while it is down nothing is accepted. Gaps in a trace are not
//! outages: packets wait for the next opportunity (and the queue's limit
//! drops what does not fit), as in Mahimahi. Loss that follows a measured
//! outage is written in the delay series (`down` lines, `schedule.rs`) or
//! the loss series (probability 1).

use std::sync::Arc;

use crate::sim::Time;

/// Bytes one delivery opportunity carries (Mahimahi's `PACKET_SIZE`).
pub const OPPORTUNITY_BYTES: u32 = 1504;

/// Framing bytes a packet takes from the opportunities when the link does
/// not set `overhead`: the TUN packet-information header Mahimahi counts.
pub const TUN_HEADER_BYTES: u32 = 4;

/// What a transmitter asks when it takes a packet.
pub(in crate::net::link) enum Service {
    /// The schedule's rate (fixed, changed, or a rate series).
    Rate,
    /// A Mahimahi delivery-opportunity trace.
    Opportunities(Box<Opportunities>),
}

/// A packet's service on the opportunities, planned but not yet committed
/// (a queue may still refuse it).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Plan {
    /// The instants of the opportunities carrying its first and last byte.
    pub start: Time,
    pub end: Time,
    next: u64,
    left: u32,
}

/// See [`Opportunities::cursor`].
#[derive(Clone, Copy, Debug)]
pub(in crate::net::link) struct Cursor {
    next: u64,
    left: u32,
    used_bytes: u64,
}

/// A repeating trace of delivery opportunities and how far it is used.
#[derive(Clone, Debug)]
pub struct Opportunities {
    /// The instants within one period (ns), non-decreasing; the last is the
    /// period.
    at: Arc<[u64]>,
    period: u64,
    /// Number (from the start of the run, over repetitions) of the first
    /// opportunity no packet has used.
    next: u64,
    /// Bytes left in opportunity `next - 1` after the packets given to it.
    left: u32,
    /// Bytes (IP and framing) given to packets so far.
    pub(in crate::net::link) used_bytes: u64,
}

impl Opportunities {
    /// From a trace's instants in milliseconds (checked by
    /// `trace_files::parse_opportunities`: non-decreasing, last > 0).
    pub fn new(ms: &[u64]) -> Self {
        let at: Arc<[u64]> = ms.iter().map(|&m| m * 1_000_000).collect();
        let period = *at.last().expect("a trace with one opportunity or more");
        debug_assert!(period > 0 && at.windows(2).all(|w| w[0] <= w[1]));
        Opportunities { at, period, next: 0, left: 0, used_bytes: 0 }
    }

    /// The instant of opportunity number `k`.
    #[inline]
    fn time(&self, k: u64) -> Time {
        let n = self.at.len() as u64;
        (k / n) * self.period + self.at[(k % n) as usize]
    }

    /// The number of the first opportunity at or after `t`.
    fn first_from(&self, t: Time) -> u64 {
        let n = self.at.len() as u64;
        let (mut cycle, mut off) = (t / self.period, t % self.period);
        if off == 0 && cycle > 0 {
            // the previous cycle's last opportunities are at this instant too
            cycle -= 1;
            off = self.period;
        }
        cycle * n + self.at.partition_point(|&x| x < off) as u64
    }

    /// When a packet of `bytes` (IP and framing) offered at `now` leaves,
    /// behind every packet given opportunities before it.
    #[inline]
    pub fn plan(&self, now: Time, bytes: u32) -> Plan {
        let cap = OPPORTUNITY_BYTES;
        let (first, left) = if self.left > 0 && self.time(self.next - 1) >= now {
            (self.next - 1, self.left)
        } else {
            (self.next.max(self.first_from(now)), cap)
        };
        let (last, left) = if bytes <= left {
            (first, left - bytes)
        } else {
            let more = bytes - left;
            let extra = more.div_ceil(cap);
            (first + extra as u64, extra * cap - more)
        };
        Plan { start: self.time(first), end: self.time(last), next: last + 1, left }
    }

    /// The packet planned is taken.
    #[inline]
    pub fn commit(&mut self, p: &Plan, bytes: u32) {
        self.next = p.next;
        self.left = p.left;
        self.used_bytes += bytes as u64;
    }

    /// The link goes down at `now`: what it held is lost, and the
    /// opportunities from `now` on are free for what comes after.
    pub fn go_down(&mut self, now: Time) {
        self.next = self.first_from(now);
        self.left = 0;
    }

    /// How far the trace is used (for a summary put back as it was,
    /// `LinkDir::rewind_summary`).
    pub(in crate::net::link) fn cursor(&self) -> Cursor {
        Cursor { next: self.next, left: self.left, used_bytes: self.used_bytes }
    }

    pub(in crate::net::link) fn set_cursor(&mut self, c: Cursor) {
        (self.next, self.left, self.used_bytes) = (c.next, c.left, c.used_bytes);
    }

    /// Opportunities at instants in [0, end].
    pub fn count_until(&self, end: Time) -> u64 {
        self.first_from(end.saturating_add(1))
    }

    /// Bits the opportunities in (from, to] carry.
    pub fn bits_between(&self, from: Time, to: Time) -> u64 {
        (self.count_until(to) - self.count_until(from)) * OPPORTUNITY_BYTES as u64 * 8
    }

    /// The trace's mean rate (bits per second, rounded, at least 1).
    pub fn mean_rate_bps(ms: &[u64]) -> u64 {
        let period_ms = *ms.last().expect("a trace") as u128;
        let bits = ms.len() as u128 * OPPORTUNITY_BYTES as u128 * 8 * 1000;
        ((bits + period_ms / 2) / period_ms).max(1) as u64
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    const MS: u64 = 1_000_000;

    fn take(o: &mut Opportunities, now: Time, bytes: u32) -> (Time, Time) {
        let p = o.plan(now, bytes);
        o.commit(&p, bytes);
        (p.start, p.end)
    }

    /// Trace 10, 20, 30 ms (period 30 ms): opportunities at 10, 20, 30, 40,
    /// 50, 60 ms...
    #[test]
    fn full_packets_leave_one_an_opportunity_and_the_trace_repeats() {
        let mut o = Opportunities::new(&[10, 20, 30]);
        let ends: Vec<Time> = (0..7).map(|_| take(&mut o, 0, 1504).1).collect();
        assert_eq!(ends, [10, 20, 30, 40, 50, 60, 70].map(|m| m * MS));
        assert_eq!(o.count_until(60 * MS), 6);
        assert_eq!(o.count_until(60 * MS - 1), 5);
    }

    #[test]
    fn small_packets_share_an_opportunity_and_a_packet_spills_over() {
        let mut o = Opportunities::new(&[10, 20, 30]);
        // 40-byte ACKs with 4 bytes of framing: 34 of them fit in 1504 bytes
        for _ in 0..34 {
            assert_eq!(take(&mut o, 0, 44), (10 * MS, 10 * MS));
        }
        // 1504 - 34 x 44 = 8 bytes left: a full packet takes them and
        // leaves at 20 ms with the rest
        assert_eq!(take(&mut o, 0, 1504), (10 * MS, 20 * MS));
        // 8 bytes left at 20 ms: a 44-byte packet goes on to 30 ms
        assert_eq!(take(&mut o, 0, 44), (20 * MS, 30 * MS));
        // a jumbo packet of 4000 bytes: 1504 - 36 = 1468 left at 30 ms, then
        // 40 ms and 50 ms (4000 - 1468 - 1504 = 1028 bytes at 50 ms)
        assert_eq!(take(&mut o, 0, 4000), (30 * MS, 50 * MS));
    }

    #[test]
    fn an_idle_link_loses_its_opportunities_and_a_packet_at_the_instant_may_use_it() {
        let mut o = Opportunities::new(&[10, 20, 30]);
        assert_eq!(take(&mut o, 0, 100), (10 * MS, 10 * MS));
        // at 15 ms the rest of the 10 ms opportunity is gone
        assert_eq!(take(&mut o, 15 * MS, 100), (20 * MS, 20 * MS));
        // offered at exactly 20 ms: it may still use the rest of that one
        assert_eq!(take(&mut o, 20 * MS, 100), (20 * MS, 20 * MS));
        // a nanosecond later it may not
        assert_eq!(take(&mut o, 20 * MS + 1, 100), (30 * MS, 30 * MS));
        // idle for a long time: the first opportunity at or after 1000 ms
        // is 1000 ms itself (period 30: 990 + 10)
        assert_eq!(take(&mut o, 1000 * MS, 1504), (1000 * MS, 1000 * MS));
        assert_eq!(take(&mut o, 1000 * MS, 1504), (1010 * MS, 1010 * MS));
    }

    #[test]
    fn repeated_timestamps_and_the_period_boundary() {
        // 0, 0 and 5, 5: four opportunities, two at 0 and two at 5 ms; the
        // next cycle's two at 5 ms coincide with this cycle's two at 5 ms.
        let mut o = Opportunities::new(&[0, 0, 5, 5]);
        let ends: Vec<Time> = (0..8).map(|_| take(&mut o, 0, 1504).1).collect();
        assert_eq!(ends, [0, 0, 5, 5, 5, 5, 10, 10].map(|m| m * MS));
        assert_eq!(o.count_until(5 * MS), 6);
        let mut o = Opportunities::new(&[0, 0, 5, 5]);
        assert_eq!(take(&mut o, 5 * MS, 1504).1, 5 * MS, "the first opportunity at 5 ms is the first cycle's");
        assert_eq!(Opportunities::new(&[0, 0, 5, 5]).first_from(5 * MS), 2);
        assert_eq!(Opportunities::mean_rate_bps(&[10, 20, 30]), 1_203_200);
    }

    #[test]
    fn going_down_frees_the_opportunities_given_to_lost_packets() {
        let mut o = Opportunities::new(&[10, 20, 30]);
        for _ in 0..5 {
            take(&mut o, 0, 1504); // 10 .. 50 ms
        }
        o.go_down(25 * MS);
        assert_eq!(take(&mut o, 28 * MS, 1504).1, 30 * MS);
    }
}
