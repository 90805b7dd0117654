//! RACK time-based loss detection (RFC 8985), as the `linux` profile's SACK
//! recovery uses it (`rack = true`; Linux's `tcp_rack.c`, on by default
//! since 4.18). Without it, holes near the end of a transfer with fewer
//! than DupThresh SACKed segments above them can only wait for the RTO
//! (RFC 6675's IsLost needs three).
//!
//! * Every ACK that cumulatively acknowledges or newly SACKs segments moves
//!   RACK's reference to the most recently *sent* of them: its transmit
//!   time `xmit`, its end, and RACK.rtt = now - that time (a retransmitted
//!   segment acknowledged sooner than the minimum RTT is ignored: the ACK
//!   was for its original).
//! * A segment not SACKed and sent before the reference (earlier, or at the
//!   same time and lower in sequence) is lost once now >= its transmit
//!   time + RACK.rtt + reo_wnd. reo_wnd = min RTT / 4, and 0 in recovery
//!   or once DupThresh segments' worth of data is SACKed (Linux's
//!   `tcp_rack_reo_wnd` without reordering seen).
//!
//! How satcp applies the verdict (choices):
//! * First transmissions are sent in sequence order, so the lost ones are
//!   every segment below a boundary (`lost_below`), which joins RFC 6675's
//!   IsLost boundary in NextSeg() and SetPipe(), and which can start
//!   recovery (Linux enters recovery when anything is marked lost).
//! * Retransmissions are sent in sequence order as well: those lost again
//!   (sent before the reference and older than RACK.rtt) form a range that
//!   is resent before anything else (`rack_relost`, NextSeg() rule 0).
//!   In the go-back-N after a timeout (Linux's CA_Loss, where
//!   `tcp_identify_packet_loss` runs RACK too) the range reaches snd_nxt,
//!   what the go-back-N has resent, and is resent ahead of it
//!   (`Endpoint::resend_relost_in_loss`), counted out of flight.
//! * Detection runs on ACK arrivals and when the reordering timer expires
//!   (set for the segment that would be lost next, `tlp.rs`). With reo_wnd
//!   = 0 in recovery, an ACK that SACKs a later segment marks the earlier
//!   holes at once, which is the case the RFC 6675 scoreboard misses; a
//!   tail with nothing delivered after it needs the tail loss probe
//!   (`tlp`) to elicit an ACK, or the RTO.

use crate::sim::Time;

/// RACK's reference: the most recently sent segment known delivered.
#[derive(Clone, Copy, Debug, Default)]
pub struct Rack {
    pub xmit: Time,
    pub end: u64,
    pub rtt: Time,
    /// Some segment has been delivered since the connection began.
    pub valid: bool,
}

impl Rack {
    /// A segment [.., end) last sent at `xmit` was delivered at `now`;
    /// `retx` if it was retransmitted, `min_rtt` the connection's lowest
    /// RTT (RFC 8985 step 2).
    pub fn delivered(&mut self, xmit: Time, end: u64, retx: bool, now: Time, min_rtt: Option<Time>) {
        let rtt = now.saturating_sub(xmit);
        if retx && min_rtt.is_some_and(|m| rtt < m) {
            return;
        }
        if !self.valid || xmit > self.xmit || (xmit == self.xmit && end > self.end) {
            *self = Rack { xmit, end, rtt, valid: true };
        }
    }

    /// Whether a segment ending at `end`, last sent at `xmit`, is lost at
    /// `now` with reordering window `reo`.
    pub fn is_lost(&self, xmit: Time, end: u64, now: Time, reo: Time) -> bool {
        self.valid && (xmit < self.xmit || (xmit == self.xmit && end < self.end)) && now >= xmit + self.rtt + reo
    }

    /// The latest original send time a lost segment can have at `now`
    /// (segments sent at or before it, and before the reference, are lost).
    pub fn lost_sent_by(&self, now: Time, reo: Time) -> Option<Time> {
        if !self.valid {
            return None;
        }
        now.checked_sub(self.rtt + reo).map(|t| t.min(self.xmit))
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    const MS: u64 = 1_000_000;

    /// Segments 1-4 sent at 0, 1, 2, 3 ms; 4 is SACKed at 103 ms (RACK.rtt
    /// 100 ms). Outside recovery (reo_wnd = min RTT / 4 = 25 ms) 1 is lost
    /// from 125 ms, 3 from 128 ms; in recovery at once for 1-3.
    #[test]
    fn hand_worked_marks() {
        let mut r = Rack::default();
        r.delivered(3 * MS, 4000, false, 103 * MS, Some(100 * MS));
        assert_eq!((r.xmit, r.end, r.rtt), (3 * MS, 4000, 100 * MS));
        assert!(!r.is_lost(0, 1000, 124 * MS, 25 * MS));
        assert!(r.is_lost(0, 1000, 125 * MS, 25 * MS));
        assert!(!r.is_lost(2 * MS, 3000, 126 * MS, 25 * MS));
        assert!(r.is_lost(2 * MS, 3000, 127 * MS, 25 * MS));
        for k in 0..3u64 {
            assert!(r.is_lost(k * MS, (k + 1) * 1000, 103 * MS, 0));
        }
        // the reference itself and later segments are never lost
        assert!(!r.is_lost(3 * MS, 4000, 500 * MS, 0));
        assert!(!r.is_lost(4 * MS, 5000, 500 * MS, 0));
        // same send time: lower sequence counts as sent before
        assert!(r.is_lost(3 * MS, 3500, 103 * MS, 0));
        assert_eq!(r.lost_sent_by(103 * MS, 0), Some(3 * MS));
        assert_eq!(r.lost_sent_by(103 * MS, 25 * MS), None);
        assert_eq!(r.lost_sent_by(127 * MS, 25 * MS), Some(2 * MS));
        assert_eq!(r.lost_sent_by(130 * MS, 25 * MS), Some(3 * MS));
    }

    /// An ACK of a retransmission sooner than the minimum RTT is its
    /// original's: it does not move the reference.
    #[test]
    fn spurious_retransmission_ack_is_ignored() {
        let mut r = Rack::default();
        r.delivered(10 * MS, 2000, false, 110 * MS, Some(100 * MS));
        r.delivered(150 * MS, 1000, true, 160 * MS, Some(100 * MS));
        assert_eq!(r.xmit, 10 * MS);
        r.delivered(150 * MS, 1000, true, 250 * MS, Some(100 * MS));
        assert_eq!((r.xmit, r.rtt), (150 * MS, 100 * MS));
    }
}
