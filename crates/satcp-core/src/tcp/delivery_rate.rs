//! Delivery-rate sampling, draft-cheng-iccrg-delivery-rate-estimation-00
//! (what Linux's tcp_rate.c does), for BBR.
//!
//! Each transmission records the connection's delivered count and times at
//! send; when an ACK (cumulative or SACK) delivers it, the sample is
//! delivered-since-then over max(send interval, ACK interval). Only the most
//! recently sent segment delivered by an ACK makes the sample.
//!
//! Choices:
//! * Records are per transmitted range, kept in sequence order; a
//!   retransmission refreshes every record it overlaps (segment boundaries
//!   are the same on retransmission except at the end of the data).
//! * A range counts as delivered once, when first SACKed or cumulatively
//!   acknowledged; `delivered` counts bytes.
//! * Samples whose interval is shorter than the connection's minimum RTT are
//!   dropped (ACK compression would inflate them), as Linux does.
//! * App-limited: when the sender has nothing to send while its window has
//!   room, the bubble ends once everything then in flight is delivered (the
//!   draft's reading, `app_limited = "idle"`). Linux checks only when the
//!   application writes and finds nothing unsent (`tcp_rate_check_app_limited`
//!   in `tcp_sendmsg`), so a bulk sender that has written everything is
//!   never app-limited there (`app_limited = "on_write"`, the `linux`
//!   profile's); for BBR without SACK on the kernel cross-check's path that
//!   decides whether the pipe is judged full before ProbeRTT
//!   (docs/validation-linux.md).
//! * Without SACK, a duplicate ACK counts one segment delivered and the
//!   cumulative ACK that follows only what the duplicates had not counted
//!   (at least one segment), as Linux's `tcp_add_reno_sack` and
//!   `tcp_remove_reno_sacks` count `tp->delivered`: round trips and the
//!   delivery rate go on through a repair without SACK. A duplicate ACK
//!   gives no rate sample (no segment is known to have been delivered).
//! * For BBRv3 each record also keeps what the draft calls P.tx_in_flight
//!   (the bytes outstanding, SACKed ones left out, once the segment has
//!   left: Linux's `tx.in_flight`; a retransmission is already counted
//!   among them) and P.lost (the sender's lost count then), so a sample
//!   carries RS.tx_in_flight and RS.lost, and a segment marked lost can be
//!   described to the controller (`lost_in`, Linux's `skb_marked_lost`).
//! * ECN input: `on_ce_delivered` counts delivered bytes reported
//!   CE-marked (Linux's `tp->delivered_ce`); each record keeps the count
//!   at send and a sample carries the difference (`delivered_ce`). The
//!   endpoint calls it for the bytes every ECE-carrying ACK newly
//!   acknowledges or SACKs (`tcp/ecn.rs`); without ECN it stays 0.

use std::collections::VecDeque;

use crate::sim::Time;

#[derive(Clone, Copy, Debug)]
struct SendRecord {
    start: u64,
    end: u64,
    sent_at: Time,
    /// `delivered` / `delivered_at` / `first_sent_at` of the connection at
    /// send time.
    delivered: u64,
    delivered_at: Time,
    first_sent_at: Time,
    app_limited: bool,
    done: bool,
    /// Bytes outstanding once this range had left (P.tx_in_flight).
    tx_in_flight: u64,
    /// The sender's lost count when it left (P.lost).
    lost: u64,
    /// CE-marked bytes delivered when it left.
    delivered_ce: u64,
}

/// One rate sample.
#[derive(Clone, Copy, Debug, Default, PartialEq)]
pub struct RateSample {
    /// Bytes delivered over the interval.
    pub delivered: u64,
    /// The interval, ns.
    pub interval: Time,
    /// The connection's delivered count when the sampled segment was sent
    /// (BBR counts round trips with it).
    pub prior_delivered: u64,
    /// The sampled segment was sent while the sender was application-limited.
    pub app_limited: bool,
    /// Bytes outstanding once the sampled segment had left (RS.tx_in_flight).
    pub tx_in_flight: u64,
    /// Bytes marked lost between its sending and this ACK (RS.lost).
    pub lost: u64,
    /// CE-marked bytes delivered over the interval (Linux's
    /// `rs->delivered_ce`; 0 without ECN).
    pub delivered_ce: u64,
}

impl RateSample {
    /// Delivery rate in bit/s.
    pub fn bps(&self) -> f64 {
        self.delivered as f64 * 8e9 / self.interval as f64
    }
}

#[derive(Clone, Debug, Default)]
pub struct DeliveryRate {
    recs: VecDeque<SendRecord>,
    pub delivered: u64,
    delivered_at: Time,
    first_sent_at: Time,
    /// Nonzero while app-limited: the `delivered` count that ends it.
    app_limited_until: u64,
    /// CE-marked bytes delivered so far (`tp->delivered_ce`).
    pub delivered_ce: u64,
}

/// A segment the sender has just marked lost, as its send record describes
/// it (Linux's `skb_marked_lost` hook; see `WindowController::on_lost`).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct LostSegment {
    /// Its bytes.
    pub len: u64,
    /// Bytes outstanding once it had left (P.tx_in_flight).
    pub tx_in_flight: u64,
    /// Bytes marked lost since it left, itself included.
    pub lost: u64,
    /// It was sent while the sender was application-limited.
    pub app_limited: bool,
}

impl DeliveryRate {
    /// A transmission of [start, end); `flight` = bytes outstanding before it
    /// (a retransmission among them), `lost` = the sender's lost count.
    pub fn on_send(&mut self, start: u64, end: u64, now: Time, flight: u64, lost: u64) {
        if flight == 0 {
            self.first_sent_at = now;
            self.delivered_at = now;
        }
        let rec = SendRecord {
            start,
            end,
            sent_at: now,
            delivered: self.delivered,
            delivered_at: self.delivered_at,
            first_sent_at: self.first_sent_at,
            app_limited: self.app_limited_until != 0,
            done: false,
            tx_in_flight: flight,
            lost,
            delivered_ce: self.delivered_ce,
        };
        let i = self.recs.partition_point(|r| r.end <= start);
        if i == self.recs.len() || self.recs[i].start >= end {
            self.recs.insert(i, SendRecord { tx_in_flight: flight + (end - start), ..rec });
            return;
        }
        for r in self.recs.range_mut(i..) {
            if r.start >= end {
                break;
            }
            if !r.done {
                *r = SendRecord { start: r.start, end: r.end, ..rec };
            }
        }
    }

    /// The sends at or above `at` are taken back (a zero-window probe the
    /// receiver refused): their records go.
    pub fn forget_from(&mut self, at: u64) {
        let i = self.recs.partition_point(|r| r.start < at);
        self.recs.truncate(i);
    }

    /// The sender has nothing to send although its window has room.
    pub fn mark_app_limited(&mut self, inflight: u64) {
        self.app_limited_until = (self.delivered + inflight).max(1);
    }

    /// `bytes` of the data just delivered arrived CE-marked (the ECN input:
    /// call it before `on_ack` for the same ACK).
    pub fn on_ce_delivered(&mut self, bytes: u64) {
        self.delivered_ce += bytes;
    }

    /// The segments not yet delivered within [from, to), in sequence order,
    /// as they would be marked lost one by one after `lost_before` bytes
    /// had been (each one's `lost` counts itself and those before it).
    pub fn lost_in(&self, from: u64, to: u64, lost_before: u64, out: &mut Vec<LostSegment>) {
        let mut lost = lost_before;
        let i = self.recs.partition_point(|r| r.end <= from);
        for r in self.recs.range(i..) {
            if r.start >= to {
                break;
            }
            if r.done {
                continue;
            }
            let len = r.end.min(to) - r.start.max(from);
            lost += len;
            out.push(LostSegment { len, tx_in_flight: r.tx_in_flight, lost: lost - r.lost.min(lost), app_limited: r.app_limited });
        }
    }

    /// A duplicate ACK without SACK reported `bytes` delivered.
    pub fn on_reno_dupack(&mut self, bytes: u64, now: Time) {
        self.delivered += bytes;
        self.delivered_at = now;
    }

    /// An ACK moved the cumulative point to `una` and SACKed `blocks`;
    /// `counted` of the bytes it covers were counted by duplicate ACKs
    /// already (`on_reno_dupack`); `lost` is the sender's lost count now.
    /// Returns the rate sample, if the ACK delivered anything.
    pub fn on_ack(
        &mut self,
        una: u64,
        blocks: &[(u64, u64)],
        now: Time,
        min_rtt: Option<Time>,
        counted: u64,
        lost: u64,
    ) -> Option<RateSample> {
        let mut newest: Option<SendRecord> = None;
        let mut take = |r: &mut SendRecord, delivered: &mut u64| {
            r.done = true;
            *delivered += r.end - r.start;
            if newest.is_none_or(|n| (r.delivered, r.sent_at) > (n.delivered, n.sent_at)) {
                newest = Some(*r);
            }
        };
        let mut delivered = self.delivered;
        for &(s, e) in blocks {
            let i = self.recs.partition_point(|r| r.end <= s);
            for r in self.recs.range_mut(i..) {
                if r.start >= e {
                    break;
                }
                if !r.done && r.start >= s && r.end <= e {
                    take(r, &mut delivered);
                }
            }
        }
        while let Some(r) = self.recs.front_mut() {
            if r.end > una {
                break;
            }
            if !r.done {
                take(r, &mut delivered);
            }
            self.recs.pop_front();
        }
        let p = newest?;
        self.delivered = delivered.saturating_sub(counted).max(self.delivered);
        self.delivered_at = now;
        if self.app_limited_until != 0 && self.delivered > self.app_limited_until {
            self.app_limited_until = 0;
        }
        self.first_sent_at = p.sent_at;
        let send_elapsed = p.sent_at - p.first_sent_at;
        let ack_elapsed = now - p.delivered_at;
        let interval = send_elapsed.max(ack_elapsed);
        if interval == 0 || min_rtt.is_some_and(|m| interval < m) {
            return None;
        }
        Some(RateSample {
            delivered: self.delivered - p.delivered,
            interval,
            prior_delivered: p.delivered,
            app_limited: p.app_limited,
            tx_in_flight: p.tx_in_flight,
            lost: lost.saturating_sub(p.lost),
            delivered_ce: self.delivered_ce - p.delivered_ce,
        })
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    const MS: u64 = 1_000_000;

    /// Ten 1000-byte segments sent 1 ms apart from t = 0 (an idle start),
    /// ACKed one by one 100 ms later, 1 ms apart: the first ACK's interval
    /// is max(0, 100 ms) (min RTT 100 ms), later ones max(k ms, 100 ms):
    /// segment k (0-based) sent at k ms was sent with delivered = 0, so the
    /// sample at its ACK is (k+1) x 1000 bytes over 100 + k ms.
    #[test]
    fn hand_worked_samples_on_a_paced_train() {
        let mut d = DeliveryRate::default();
        for k in 0..10u64 {
            d.on_send(1 + k * 1000, 1 + (k + 1) * 1000, k * MS, k * 1000, 0);
        }
        for k in 0..10u64 {
            let s = d.on_ack(1 + (k + 1) * 1000, &[], 100 * MS + k * MS, Some(100 * MS), 0, 0).unwrap();
            assert_eq!(s.delivered, (k + 1) * 1000);
            assert_eq!(s.interval, 100 * MS + k * MS);
            assert_eq!(s.prior_delivered, 0);
        }
        assert_eq!(d.delivered, 10_000);
    }

    #[test]
    fn sacked_range_counts_once_and_short_intervals_are_dropped() {
        let mut d = DeliveryRate::default();
        for k in 0..4u64 {
            d.on_send(k * 1000, (k + 1) * 1000, 0, k * 1000, 0);
        }
        // segment 1 lost: SACK of [2000, 4000) at 50 ms
        let s = d.on_ack(1000, &[(2000, 4000)], 50 * MS, None, 0, 0).unwrap();
        assert_eq!(s.delivered, 3000);
        // the retransmission of [1000, 2000) at 60 ms, acked at 110 ms with
        // the SACKed bytes: only 1000 new bytes
        d.on_send(1000, 2000, 60 * MS, 3000, 0);
        let s = d.on_ack(4000, &[], 110 * MS, None, 0, 0).unwrap();
        assert_eq!(d.delivered, 4000);
        assert_eq!(s.delivered, 1000);
        assert_eq!(s.prior_delivered, 3000);
        // an interval below the minimum RTT gives no sample
        d.on_send(4000, 5000, 200 * MS, 0, 0);
        assert_eq!(d.on_ack(5000, &[], 201 * MS, Some(10 * MS), 0, 0), None);
        assert_eq!(d.delivered, 5000);
    }

    #[test]
    fn app_limited_marks_until_the_bubble_is_delivered() {
        let mut d = DeliveryRate::default();
        d.on_send(0, 1000, 0, 0, 0);
        d.mark_app_limited(1000);
        d.on_send(1000, 2000, MS, 1000, 0);
        let s = d.on_ack(1000, &[], 10 * MS, None, 0, 0).unwrap();
        assert!(!s.app_limited);
        let s = d.on_ack(2000, &[], 11 * MS, None, 0, 0).unwrap();
        assert!(s.app_limited);
        d.on_send(2000, 3000, 12 * MS, 0, 0);
        let s = d.on_ack(3000, &[], 22 * MS, None, 0, 0).unwrap();
        assert!(!s.app_limited, "delivered (2000) passed the bubble end (1000) before this send");
    }

    /// Without SACK: segments 0..4 of 1000 bytes sent at 0, segment 0 lost;
    /// three duplicate ACKs at 50, 51, 52 ms count 3000 bytes delivered and
    /// give no sample; the retransmission of segment 0, sent at 60 ms, is
    /// acknowledged cumulatively with the three at 110 ms: only 1000 new
    /// bytes, over max(60 ms since the first send, 110 - 52 ms since the
    /// delivery counted before the retransmission left).
    #[test]
    fn duplicate_acks_count_delivery_without_sack() {
        let mut d = DeliveryRate::default();
        for k in 0..4u64 {
            d.on_send(k * 1000, (k + 1) * 1000, 0, k * 1000, 0);
        }
        for k in 0..3u64 {
            d.on_reno_dupack(1000, (50 + k) * MS);
        }
        assert_eq!(d.delivered, 3000);
        d.on_send(0, 1000, 60 * MS, 4000, 0);
        let s = d.on_ack(4000, &[], 110 * MS, None, 3000, 0).unwrap();
        assert_eq!((d.delivered, s.delivered, s.prior_delivered), (4000, 1000, 3000));
        assert_eq!(s.interval, 60 * MS);
    }

    /// BBRv3's per-record fields: four segments of 1000 bytes sent with
    /// the sender's lost count at 0, 0, 0, 1000 and nothing outstanding
    /// before the first: tx_in_flight 1000, 2000, 3000, 4000. Segment 1 is
    /// marked lost with 1000 counted before it (`lost_in`: it is the 2000th
    /// byte lost since it left). The ACK of segment 3, with CE on 500
    /// bytes, samples tx_in_flight 4000, lost 2000 - 1000 since it left,
    /// delivered_ce 500.
    #[test]
    fn records_carry_tx_in_flight_lost_and_ce_for_bbr3() {
        let mut d = DeliveryRate::default();
        for k in 0..4u64 {
            d.on_send(k * 1000, (k + 1) * 1000, k * MS, k * 1000, if k == 3 { 1000 } else { 0 });
        }
        let mut lost = vec![];
        d.lost_in(1000, 2000, 1000, &mut lost);
        assert_eq!(lost, vec![LostSegment { len: 1000, tx_in_flight: 2000, lost: 2000, app_limited: false }]);
        d.on_ce_delivered(500);
        let s = d.on_ack(0, &[(3000, 4000)], 100 * MS, None, 0, 2000).unwrap();
        assert_eq!((s.tx_in_flight, s.lost, s.delivered_ce), (4000, 1000, 500));
        // a SACKed segment is delivered, not lost
        lost.clear();
        d.lost_in(0, 4000, 2000, &mut lost);
        assert_eq!(lost.iter().map(|l| (l.len, l.tx_in_flight)).collect::<Vec<_>>(), vec![(1000, 1000), (1000, 2000), (1000, 3000)]);
        // a retransmission is already in flight: its record keeps flight as is
        d.on_send(1000, 2000, 200 * MS, 2500, 2000);
        let s = d.on_ack(2000, &[], 300 * MS, None, 0, 2000).unwrap();
        assert_eq!((s.tx_in_flight, s.lost), (2500, 0));
    }
}
