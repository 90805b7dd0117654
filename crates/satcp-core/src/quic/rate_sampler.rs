//! Delivery-rate samples for BBR (v1 and v3) on QUIC, built from what
//! quinn's `congestion::Controller` hooks say, with the semantics of
//! draft-cheng-iccrg-delivery-rate-estimation-00 that satcp's TCP sampler
//! (`tcp/delivery_rate.rs`) uses: each packet records, when it leaves, the
//! connection's delivered count, the time of the latest delivery, the send
//! time of the first packet of the current flight and whether the sender
//! was application-limited; an ACK frame's sample is what was delivered
//! since its newest packet left, over max(send interval, ACK interval),
//! dropped when shorter than the minimum RTT (ACK compression).
//!
//! What quinn gives, and the choices where it gives less than TCP's
//! sender knows:
//! * `on_sent(now, bytes, last_packet_number)` comes once per datagram
//!   (satcp polls one datagram at a time); `bytes` is the UDP payload. A
//!   record per datagram, kept in send order. Packet numbers are not used
//!   as keys: during the handshake a datagram coalesces packets of
//!   different number spaces, each numbered from 0.
//! * `on_ack(now, sent, bytes, ..)` comes once per newly acknowledged
//!   ack-eliciting packet, with its send time but not its number. It is
//!   matched to the oldest not yet matched record sent at that instant.
//!   Several packets leave at one simulated instant whenever an ACK opens
//!   the window for a burst; quinn reports a frame's packets in
//!   packet-number order, so with in-order delivery the oldest-first
//!   match is exact. When a later packet of a same-instant burst is
//!   acknowledged before an earlier one (reordering, or the earlier one
//!   lost), it takes the earlier one's record: the two records differ
//!   only in `tx_in_flight` (by the packets between them), never in the
//!   delivered count or times, which no ACK could change between them.
//! * `delivered` counts the bytes of acknowledged ack-eliciting packets
//!   (quinn's own in-flight bytes), one sample per ACK frame (quinn's
//!   `on_end_acks`) from the newest record the frame matched. An ACK
//!   frame that acknowledges only packets whose records are gone (see
//!   below) counts its bytes delivered and gives no sample.
//! * Records leave the front once matched. A record that is never matched
//!   belongs to a packet quinn never reports acknowledged: a lost one
//!   (see `on_lost`), an ACK-only or other non-ack-eliciting datagram, a
//!   lost path-MTU probe (quinn tells no controller of its loss), or one
//!   whose ACK came after its record was taken as lost. Such records
//!   are dropped once sent more than `FORGET_RTTS` smoothed RTTs before an
//!   ACK (quinn declares an ack-eliciting packet lost 9/8 RTT after the
//!   packet acknowledged after it, so a packet still unreported then will
//!   never be reported).
//! * App-limited (the draft's "the sender has nothing to send while its
//!   window has room"): quinn's `app_limited` flag, the state of its last
//!   `poll_transmit` (nothing to send and not blocked by the window or the
//!   pacer), as `on_ack` hands it. The first ACK of a frame that finds it
//!   set marks the bubble: it lasts until everything then in flight is
//!   delivered. Flow-control limits count as application limits there
//!   (quinn does not tell them apart).
//! * Losses: `on_congestion_event(now, sent, persistent, lost_bytes)`
//!   gives only the newest lost packet's send time and the lost bytes of
//!   the whole batch. quinn declares lost every unacknowledged
//!   ack-eliciting packet of the space sent before the newest lost one, so
//!   the lost packets are the unmatched records sent up to that time,
//!   newest first, until their bytes reach `lost_bytes` (`on_lost`); each
//!   becomes a `LostSegment` for BBRv3's per-packet check with the
//!   TCP sampler's fields. An unmatched ACK-only record among them can be
//!   taken for a lost packet (the ACK-only packets of a data sender are
//!   rare: it acknowledges the receiver's packets in its data packets).
//!   An ECN congestion event has `lost_bytes` 0 and marks nothing lost
//!   (satcp's QUIC flows do not negotiate ECN).

use std::collections::VecDeque;

use crate::sim::Time;
use crate::tcp::delivery_rate::{LostSegment, RateSample};

/// Unmatched records sent this many smoothed RTTs before an ACK are
/// forgotten (see the header).
const FORGET_RTTS: u64 = 4;

#[derive(Clone, Copy, Debug)]
struct Record {
    sent_at: Time,
    bytes: u64,
    delivered: u64,
    delivered_at: Time,
    first_sent_at: Time,
    app_limited: bool,
    /// Bytes in flight once this datagram had left (P.tx_in_flight).
    tx_in_flight: u64,
    /// The connection's lost count when it left (P.lost).
    lost: u64,
    /// Acknowledged or taken as lost.
    done: bool,
}

/// One QUIC connection's delivery-rate sampler.
#[derive(Clone, Debug, Default)]
pub struct QuicRateSampler {
    recs: VecDeque<Record>,
    /// Bytes delivered so far (acknowledged ack-eliciting packets).
    pub delivered: u64,
    /// Bytes declared lost so far.
    pub lost: u64,
    delivered_at: Time,
    first_sent_at: Time,
    /// Nonzero while app-limited: the delivered count that ends it.
    app_limited_until: u64,
    /// The newest record the current ACK frame matched (its index).
    newest: Option<usize>,
    /// The current frame has been checked for the app-limited mark.
    frame_open: bool,
}

impl QuicRateSampler {
    /// Send records kept (tests).
    #[cfg(test)]
    pub fn records(&self) -> usize {
        self.recs.len()
    }

    /// A datagram of `bytes` left at `now` with `inflight` bytes in flight
    /// before it.
    pub fn on_sent(&mut self, now: Time, bytes: u64, inflight: u64) {
        if inflight == 0 {
            self.first_sent_at = now;
            self.delivered_at = now;
        }
        self.recs.push_back(Record {
            sent_at: now,
            bytes,
            delivered: self.delivered,
            delivered_at: self.delivered_at,
            first_sent_at: self.first_sent_at,
            app_limited: self.app_limited_until != 0,
            tx_in_flight: inflight + bytes,
            lost: self.lost,
            done: false,
        });
    }

    /// A packet sent at `sent` of `bytes` was acknowledged; `app_limited`
    /// is quinn's flag, `inflight` the bytes in flight before this frame.
    pub fn on_acked(&mut self, sent: Time, bytes: u64, app_limited: bool, inflight: u64) {
        if !self.frame_open {
            self.frame_open = true;
            if app_limited {
                self.app_limited_until = (self.delivered + inflight).max(1);
            }
        }
        self.delivered += bytes;
        let i = self.recs.partition_point(|r| r.sent_at < sent);
        let hit = (i..self.recs.len()).take_while(|&j| self.recs[j].sent_at == sent).find(|&j| !self.recs[j].done);
        if let Some(j) = hit {
            self.recs[j].done = true;
            if self.newest.is_none_or(|n| j > n) {
                self.newest = Some(j);
            }
        }
    }

    /// The ACK frame is processed, at `now`: its sample, if it gives one.
    pub fn on_end_acks(&mut self, now: Time, min_rtt: Option<Time>, srtt: Option<f64>) -> Option<RateSample> {
        self.frame_open = false;
        let sample = self.newest.take().and_then(|j| {
            let p = self.recs[j];
            self.delivered_at = now;
            if self.app_limited_until != 0 && self.delivered > self.app_limited_until {
                self.app_limited_until = 0;
            }
            self.first_sent_at = p.sent_at;
            let interval = (p.sent_at - p.first_sent_at).max(now - p.delivered_at);
            if interval == 0 || min_rtt.is_some_and(|m| interval < m) {
                return None;
            }
            Some(RateSample {
                delivered: self.delivered - p.delivered,
                interval,
                prior_delivered: p.delivered,
                app_limited: p.app_limited,
                tx_in_flight: p.tx_in_flight,
                lost: self.lost - p.lost,
                delivered_ce: 0,
            })
        });
        let horizon = srtt.map_or(0, |s| now.saturating_sub(FORGET_RTTS * s as Time));
        while self.recs.front().is_some_and(|r| r.done || r.sent_at < horizon) {
            self.recs.pop_front();
        }
        sample
    }

    /// quinn declared `lost_bytes` lost, the newest of them sent at `sent`:
    /// the records taken as lost, oldest first, into `out`.
    pub fn on_lost(&mut self, sent: Time, lost_bytes: u64, out: &mut Vec<LostSegment>) {
        out.clear();
        let end = self.recs.partition_point(|r| r.sent_at <= sent);
        let mut left = lost_bytes;
        let mut taken = Vec::new();
        for j in (0..end).rev() {
            if left == 0 {
                break;
            }
            if !self.recs[j].done {
                self.recs[j].done = true;
                left = left.saturating_sub(self.recs[j].bytes);
                taken.push(j);
            }
        }
        let lost_before = self.lost;
        let mut lost = lost_before;
        for &j in taken.iter().rev() {
            let r = self.recs[j];
            lost += r.bytes;
            out.push(LostSegment { len: r.bytes, tx_in_flight: r.tx_in_flight, lost: lost - r.lost.min(lost), app_limited: r.app_limited });
        }
        self.lost = lost_before + lost_bytes;
        while self.recs.front().is_some_and(|r| r.done) {
            self.recs.pop_front();
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    const MS: u64 = 1_000_000;

    /// Ten 1,000-byte packets sent 1 ms apart from an idle start, each
    /// acknowledged in its own frame 100 ms after it left: the k-th
    /// (0-based) sample is (k+1) x 1,000 bytes over 100 + k ms (the ACK
    /// interval since the first send, which set delivered_at), as the TCP
    /// sampler's hand-worked train.
    #[test]
    fn hand_worked_samples_on_a_paced_train() {
        let mut s = QuicRateSampler::default();
        for k in 0..10u64 {
            s.on_sent(k * MS, 1000, k * 1000);
        }
        for k in 0..10u64 {
            s.on_acked(k * MS, 1000, false, 10_000 - k * 1000);
            let r = s.on_end_acks(100 * MS + k * MS, Some(100 * MS), None).unwrap();
            assert_eq!((r.delivered, r.interval, r.prior_delivered), ((k + 1) * 1000, 100 * MS + k * MS, 0));
            assert_eq!(r.tx_in_flight, (k + 1) * 1000);
        }
        assert_eq!(s.delivered, 10_000);
        assert!(s.recs.is_empty(), "matched records leave");
    }

    /// Three packets leave at one instant; a frame acknowledges two: they
    /// take the two oldest records, and the sample's packet is the second
    /// (tx_in_flight 2,000). The third, acknowledged later, gets the third
    /// record: everything delivered since it left (nothing had been), over
    /// the 51 ms since the delivery time it left with (0).
    #[test]
    fn packets_of_one_instant_match_oldest_first() {
        let mut s = QuicRateSampler::default();
        for k in 0..3u64 {
            s.on_sent(0, 1000, k * 1000);
        }
        s.on_acked(0, 1000, false, 3000);
        s.on_acked(0, 1000, false, 3000);
        let r = s.on_end_acks(50 * MS, None, None).unwrap();
        assert_eq!((r.delivered, r.tx_in_flight, r.interval), (2000, 2000, 50 * MS));
        s.on_acked(0, 1000, false, 1000);
        let r = s.on_end_acks(51 * MS, None, None).unwrap();
        // it left with nothing delivered, at delivered_at 0
        assert_eq!((r.delivered, r.tx_in_flight, r.prior_delivered, r.interval), (3000, 3000, 0, 51 * MS));
    }

    /// Four packets at 0, 1, 2, 3 ms; the frame at 100 ms acknowledges the
    /// fourth; quinn then declares the first and second lost (2,000 bytes,
    /// the newest sent at 1 ms): they are reported oldest first, the
    /// first as the 1,000th byte lost since it left, the second the
    /// 2,000th. The third stays outstanding; the next sample carries the
    /// loss (RS.lost).
    #[test]
    fn losses_are_the_unmatched_records_up_to_the_newest_lost() {
        let mut s = QuicRateSampler::default();
        for k in 0..4u64 {
            s.on_sent(k * MS, 1000, k * 1000);
        }
        s.on_acked(3 * MS, 1000, false, 4000);
        assert!(s.on_end_acks(100 * MS, None, None).is_some());
        let mut out = vec![];
        s.on_lost(MS, 2000, &mut out);
        assert_eq!(
            out,
            vec![
                LostSegment { len: 1000, tx_in_flight: 1000, lost: 1000, app_limited: false },
                LostSegment { len: 1000, tx_in_flight: 2000, lost: 2000, app_limited: false },
            ]
        );
        assert_eq!(s.lost, 2000);
        s.on_sent(101 * MS, 1000, 1000);
        s.on_acked(2 * MS, 1000, false, 2000);
        s.on_acked(101 * MS, 1000, false, 2000);
        let r = s.on_end_acks(200 * MS, None, None).unwrap();
        assert_eq!((r.lost, r.prior_delivered, r.delivered), (0, 1000, 2000));
        assert!(s.recs.is_empty());
    }

    /// quinn's app-limited flag on a frame's first ACK marks a bubble that
    /// ends once what was in flight then is delivered: packets sent in it
    /// sample app-limited, later ones do not.
    #[test]
    fn the_app_limited_bubble_ends_when_its_flight_is_delivered() {
        let mut s = QuicRateSampler::default();
        s.on_sent(0, 1000, 0);
        s.on_sent(0, 1000, 1000);
        s.on_acked(0, 1000, true, 2000);
        assert!(!s.on_end_acks(10 * MS, None, None).unwrap().app_limited);
        s.on_sent(11 * MS, 1000, 1000);
        s.on_acked(0, 1000, false, 2000);
        s.on_end_acks(12 * MS, None, None);
        // delivered 2,000 = the mark (0 + 2,000): still inside
        s.on_acked(11 * MS, 1000, false, 1000);
        assert!(s.on_end_acks(21 * MS, None, None).unwrap().app_limited);
        s.on_sent(22 * MS, 1000, 0);
        s.on_acked(22 * MS, 1000, false, 1000);
        assert!(!s.on_end_acks(32 * MS, None, None).unwrap().app_limited);
    }

    /// A record never matched nor lost (an ACK-only datagram) is forgotten
    /// once older than four smoothed RTTs at an ACK.
    #[test]
    fn unreported_records_are_forgotten() {
        let mut s = QuicRateSampler::default();
        s.on_sent(0, 50, 0);
        s.on_sent(MS, 1000, 50);
        s.on_acked(MS, 1000, false, 1050);
        s.on_end_acks(20 * MS, None, Some(10e6));
        assert_eq!(s.recs.len(), 2, "the ACK-only record stays within 4 RTTs, and the matched one behind it");
        s.on_sent(30 * MS, 1000, 50);
        s.on_acked(30 * MS, 1000, false, 1050);
        s.on_end_acks(50 * MS, None, Some(10e6));
        assert!(s.recs.is_empty());
    }
}
