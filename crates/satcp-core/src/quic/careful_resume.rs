//! Careful Resume (RFC 9959, "Convergence of Congestion Control from
//! Retained State", formerly draft-ietf-tsvwg-careful-resume): a sender
//! that kept a path's congestion window and RTT from an earlier connection
//! (`quic.careful_resume = { saved_cwnd, saved_rtt }`) jumps to half that
//! window once the new connection has confirmed the path, then validates
//! the jump and retreats if it was too much. It wraps whichever satcp
//! controller the adapter runs (`cc_adapter.rs`): the controller keeps
//! running underneath, and Careful Resume sets or bounds its window at the
//! phase changes below. Both ends' controllers carry it (one transport
//! configuration builds both), but only a side with more to send than its
//! window, the server of a bulk flow, ever jumps: the client's requests
//! and ACKs leave it application-limited in Reconnaissance. The saved
//! state is given, not observed (the RFC's Observation phase belongs to
//! the earlier connection).
//!
//! The phases, and the choices where the RFC leaves room:
//! * Reconnaissance: the controller runs as usual. The RTT check (RFC
//!   section 4.2.1) runs on every ACK frame: a minimum RTT below half the
//!   saved RTT, or a current RTT (the frame's newest packet's, quinn's
//!   latest_rtt) at least ten times it, means another path: Normal for
//!   good. A congestion event: Normal (the controller reacts as usual).
//!   The jump is taken at the first ACK frame after which the initial
//!   window's worth of bytes has been acknowledged (the first flight
//!   confirmed the path; the count is the adapter's, every ack-eliciting
//!   packet's bytes, the handshake's included, so the jump can come a
//!   frame or two before the last of the IW's data is acknowledged) and
//!   the sender is limited by its window, not by
//!   its data (quinn's `app_limited` flag clear: its last `poll_transmit`
//!   was blocked by the window or the pacer): jump_cwnd = saved_cwnd / 2
//!   (the RFC's "no more than half"; the largest allowed). A jump no larger
//!   than the current cwnd is pointless: Normal.
//! * Unvalidated: cwnd = jump_cwnd, held there whatever the controller
//!   does on ACKs (its hooks still run: its measurements go on);
//!   PipeSize = the bytes in flight at the jump, plus every byte
//!   acknowledged since. quinn paces every flow at 1.25 x cwnd / smoothed
//!   RTT (in 2-ms bursts), so the jump is paced, as the RFC asks.
//!   It ends when the first packet sent in it is acknowledged, or more
//!   than one smoothed RTT after the jump, or when the jump is used up
//!   (after a datagram the next would not fit: quinn's send check). On
//!   leaving: if the flight is no more than PipeSize (the sender did not
//!   use the jump), cwnd = PipeSize and Normal; else cwnd = the flight
//!   and Validating until the last packet sent in Unvalidated is
//!   acknowledged.
//! * Validating: the controller runs as usual from cwnd = flight;
//!   PipeSize keeps counting acknowledged bytes. Normal when the last
//!   unvalidated packet (or a later one) is acknowledged.
//! * Safe Retreat: a congestion event in Unvalidated or Validating. After
//!   the controller's own reaction, cwnd = at most max(PipeSize / 2, 2
//!   datagrams) (RFC: "no more than PipeSize / 2"; QUIC's minimum window
//!   of 2 datagrams under it), and bounded there while it lasts; PipeSize
//!   keeps counting. It ends when the last packet sent in Unvalidated (or a
//!   later one) is acknowledged: ssthresh = at most PipeSize (the RFC's
//!   "no more than the PipeSize"; a window controller set it from its
//!   pre-loss flight, which after a jump can be far higher), then Normal.
//!   Persistent congestion ends Careful Resume in any phase: the
//!   controller's collapse stands.
//! * Packets are known to quinn's controller hooks by send time only
//!   (`rate_sampler.rs`): "the first packet sent in Unvalidated is
//!   acknowledged" is "a packet sent at or after its send time is", and
//!   likewise for the last one. A packet sent at the same simulated
//!   instant as the last unvalidated packet, after it, counts as that
//!   packet.
//! * With BBR (v1, v3) the controller sets cwnd from its model on every
//!   ACK: Careful Resume's hold in Unvalidated and bound in Safe Retreat
//!   apply over it; in Validating and Normal BBR's window stands, so the
//!   jump only lasts its Unvalidated round.

use crate::sim::Time;

/// The saved path state a scenario gives (`quic.careful_resume`).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct SavedPath {
    /// The earlier connection's congestion window, bytes.
    pub cwnd: u64,
    /// The earlier connection's RTT (its minimum), ns.
    pub rtt_ns: u64,
}

/// Careful Resume's phases (RFC 9959 section 3).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Phase {
    Reconnaissance,
    Unvalidated,
    Validating,
    SafeRetreat,
    Normal,
}

/// What a phase change asks of the window.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct Set {
    pub cwnd: Option<u64>,
    /// ssthresh = min(ssthresh, this).
    pub ssthresh_at_most: Option<u64>,
}

/// What an ACK frame tells Careful Resume.
#[derive(Clone, Copy, Debug, Default)]
pub struct Frame {
    pub now: Time,
    /// Bytes it acknowledged.
    pub acked: u64,
    /// Send time of the newest packet it acknowledged.
    pub newest_sent: Time,
    /// Bytes in flight after it.
    pub flight: u64,
    /// quinn's flag: the sender had nothing to send though its window had
    /// room.
    pub app_limited: bool,
    /// Bytes acknowledged since the connection began, this frame's
    /// included.
    pub acked_total: u64,
    /// Minimum RTT, the frame's RTT and smoothed RTT, ns.
    pub min_rtt: Option<Time>,
    pub rtt: Option<Time>,
    pub srtt: Option<Time>,
    /// cwnd after the controller saw the frame.
    pub cwnd: u64,
}

#[derive(Clone, Debug)]
pub struct CarefulResume {
    saved: SavedPath,
    iw: u64,
    smss: u64,
    phase: Phase,
    jump: u64,
    pipesize: u64,
    entered: Time,
    first_unvalidated: Option<Time>,
    last_unvalidated: Time,
    retreat: u64,
    /// Each phase entered and when, in order (Reconnaissance at 0 first).
    pub log: Vec<(Time, Phase)>,
}

impl CarefulResume {
    pub fn new(saved: SavedPath, iw: u64, smss: u64) -> Self {
        CarefulResume {
            saved,
            iw,
            smss,
            phase: Phase::Reconnaissance,
            jump: 0,
            pipesize: 0,
            entered: 0,
            first_unvalidated: None,
            last_unvalidated: 0,
            retreat: 0,
            log: vec![(0, Phase::Reconnaissance)],
        }
    }

    pub fn phase(&self) -> Phase {
        self.phase
    }

    pub fn pipesize(&self) -> u64 {
        self.pipesize
    }

    fn enter(&mut self, now: Time, p: Phase) {
        self.phase = p;
        self.log.push((now, p));
    }

    pub fn set_smss(&mut self, smss: u64) {
        self.smss = smss;
    }

    /// The RFC's RTT check (section 4.2.1): the path is not the saved one.
    fn rtt_mismatch(&self, f: &Frame) -> bool {
        let s = self.saved.rtt_ns;
        f.min_rtt.is_some_and(|m| m < s / 2) || f.rtt.is_some_and(|r| r >= s.saturating_mul(10))
    }

    /// The window Careful Resume imposes now on `cwnd` (the controller's).
    pub fn hold(&self, cwnd: u64) -> u64 {
        match self.phase {
            Phase::Unvalidated => self.jump,
            Phase::SafeRetreat => cwnd.min(self.retreat),
            _ => cwnd,
        }
    }

    /// A datagram left at `now`, leaving `flight` bytes in flight under
    /// `cwnd`.
    pub fn on_sent(&mut self, now: Time, flight: u64, cwnd: u64) -> Set {
        if self.phase != Phase::Unvalidated {
            return Set::default();
        }
        self.first_unvalidated.get_or_insert(now);
        self.last_unvalidated = now;
        if flight + self.smss >= cwnd {
            return self.leave_unvalidated(now, flight);
        }
        Set::default()
    }

    /// An ACK frame has been processed (by the controller too).
    pub fn on_ack_frame(&mut self, f: &Frame) -> Set {
        match self.phase {
            Phase::Reconnaissance => {
                if self.rtt_mismatch(f) {
                    self.enter(f.now, Phase::Normal);
                    return Set::default();
                }
                if f.acked_total < self.iw || f.app_limited || f.rtt.is_none() {
                    return Set::default();
                }
                let jump = self.saved.cwnd / 2;
                if jump <= f.cwnd {
                    self.enter(f.now, Phase::Normal);
                    return Set::default();
                }
                self.jump = jump;
                self.pipesize = f.flight;
                self.entered = f.now;
                self.first_unvalidated = None;
                self.enter(f.now, Phase::Unvalidated);
                Set { cwnd: Some(jump), ssthresh_at_most: None }
            }
            Phase::Unvalidated => {
                self.pipesize += f.acked;
                let first_acked = self.first_unvalidated.is_some_and(|t| f.newest_sent >= t);
                let rtt_passed = f.srtt.is_some_and(|s| f.now - self.entered > s);
                if first_acked || rtt_passed {
                    return self.leave_unvalidated(f.now, f.flight);
                }
                Set::default()
            }
            Phase::Validating => {
                self.pipesize += f.acked;
                if f.newest_sent >= self.last_unvalidated {
                    self.enter(f.now, Phase::Normal);
                }
                Set::default()
            }
            Phase::SafeRetreat => {
                self.pipesize += f.acked;
                if f.newest_sent >= self.last_unvalidated {
                    self.enter(f.now, Phase::Normal);
                    return Set { cwnd: None, ssthresh_at_most: Some(self.pipesize.max(2 * self.smss)) };
                }
                Set::default()
            }
            Phase::Normal => Set::default(),
        }
    }

    fn leave_unvalidated(&mut self, now: Time, flight: u64) -> Set {
        if flight <= self.pipesize {
            self.enter(now, Phase::Normal);
            return Set { cwnd: Some(self.pipesize.max(2 * self.smss)), ssthresh_at_most: None };
        }
        self.enter(now, Phase::Validating);
        Set { cwnd: Some(flight), ssthresh_at_most: None }
    }

    /// A congestion event (after the controller's reaction).
    pub fn on_congestion(&mut self, now: Time, persistent: bool) -> Set {
        match self.phase {
            Phase::Reconnaissance => self.enter(now, Phase::Normal),
            Phase::Unvalidated | Phase::Validating if persistent => self.enter(now, Phase::Normal),
            Phase::Unvalidated | Phase::Validating => {
                self.retreat = (self.pipesize / 2).max(2 * self.smss);
                self.enter(now, Phase::SafeRetreat);
            }
            Phase::SafeRetreat if persistent => self.enter(now, Phase::Normal),
            Phase::SafeRetreat | Phase::Normal => {}
        }
        Set::default()
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    const MS: u64 = 1_000_000;
    const IW: u64 = 12_000;
    const MSS: u64 = 1_200;

    fn cr(saved_cwnd: u64, saved_rtt_ms: u64) -> CarefulResume {
        CarefulResume::new(SavedPath { cwnd: saved_cwnd, rtt_ns: saved_rtt_ms * MS }, IW, MSS)
    }

    fn frame(now_ms: u64, acked: u64, newest_sent_ms: u64, flight: u64, acked_total: u64, cwnd: u64) -> Frame {
        Frame {
            now: now_ms * MS,
            acked,
            newest_sent: newest_sent_ms * MS,
            flight,
            app_limited: false,
            acked_total,
            min_rtt: Some(500 * MS),
            rtt: Some(500 * MS),
            srtt: Some(500 * MS),
            cwnd,
        }
    }

    /// Saved 200,000 bytes over a 500 ms path, the new one 500 ms too. The
    /// IW (12,000 bytes) is acknowledged at 1,000 ms with 12,000 in
    /// flight and the controller at 24,000: jump to 100,000, PipeSize
    /// 12,000. Packets leave from 1,000 ms; the window is used up at 1,300
    /// ms (flight 99,000 + 1,200 >= 100,000): Validating with cwnd 99,000.
    /// ACKs bring PipeSize to 12,000 + 12,000 + 50,000; the last
    /// unvalidated packet's ACK (sent at 1,300 ms) at 1,800 ms: Normal.
    #[test]
    fn hand_worked_jump_validation_and_normal() {
        let mut c = cr(200_000, 500);
        assert_eq!(c.on_ack_frame(&frame(1000, 12_000, 500, 12_000, 12_000, 24_000)), Set { cwnd: Some(100_000), ssthresh_at_most: None });
        assert_eq!((c.phase(), c.pipesize(), c.hold(24_000)), (Phase::Unvalidated, 12_000, 100_000));
        assert_eq!(c.on_sent(1000 * MS, 13_200, 100_000), Set::default());
        let s = c.on_sent(1300 * MS, 99_000, 100_000);
        assert_eq!((s.cwnd, c.phase()), (Some(99_000), Phase::Validating));
        assert_eq!(c.hold(120_000), 120_000, "the controller's window stands");
        c.on_ack_frame(&frame(1500, 12_000, 800, 87_000, 24_000, 99_000));
        assert_eq!(c.phase(), Phase::Validating);
        c.on_ack_frame(&frame(1700, 50_000, 1200, 37_000, 74_000, 99_000));
        assert_eq!((c.phase(), c.pipesize()), (Phase::Validating, 74_000));
        c.on_ack_frame(&frame(1800, 1_200, 1300, 36_000, 75_200, 99_000));
        assert_eq!(c.phase(), Phase::Normal);
        let phases: Vec<_> = c.log.iter().map(|l| l.1).collect();
        assert_eq!(phases, [Phase::Reconnaissance, Phase::Unvalidated, Phase::Validating, Phase::Normal]);
    }

    /// RFC 9959 section 4.2.1: a minimum RTT under half the saved RTT, or a
    /// current RTT of ten times it or more, is another path (the boundaries
    /// themselves: half is kept, ten times is not).
    #[test]
    fn an_rtt_far_from_the_saved_one_disables_the_jump() {
        for (min, rtt, keeps) in [(249, 500, false), (250, 500, true), (500, 4999, true), (500, 5000, false)] {
            let mut c = cr(200_000, 500);
            let f = Frame { min_rtt: Some(min * MS), rtt: Some(rtt * MS), ..frame(1000, 12_000, 500, 12_000, 12_000, 24_000) };
            let s = c.on_ack_frame(&f);
            assert_eq!(c.phase() == Phase::Unvalidated, keeps, "min {min} ms rtt {rtt} ms");
            assert_eq!(s.cwnd.is_some(), keeps);
            if !keeps {
                assert_eq!(c.phase(), Phase::Normal);
            }
        }
    }

    /// No jump before the IW is acknowledged, nor while application-limited;
    /// a jump no larger than cwnd ends Careful Resume; a loss in
    /// Reconnaissance too.
    #[test]
    fn reconnaissance_waits_then_gives_up_when_it_must() {
        let mut c = cr(200_000, 500);
        assert_eq!(c.on_ack_frame(&frame(600, 6_000, 100, 6_000, 6_000, 18_000)), Set::default());
        let f = Frame { app_limited: true, ..frame(1000, 6_000, 500, 0, 12_000, 24_000) };
        assert_eq!((c.on_ack_frame(&f), c.phase()), (Set::default(), Phase::Reconnaissance));
        let mut small = cr(40_000, 500);
        small.on_ack_frame(&frame(1000, 12_000, 500, 12_000, 12_000, 24_000));
        assert_eq!(small.phase(), Phase::Normal, "jump 20,000 <= cwnd 24,000");
        c.on_congestion(1100 * MS, false);
        assert_eq!(c.phase(), Phase::Normal);
    }

    /// A loss while Unvalidated: Safe Retreat bounds cwnd to PipeSize / 2
    /// (PipeSize 12,000 at the jump + 30,000 acknowledged: 21,000); it
    /// ends when the last unvalidated packet (sent at 1,400 ms) is
    /// acknowledged, with ssthresh at most PipeSize (42,000 + 8,000).
    #[test]
    fn a_loss_in_unvalidated_retreats_to_half_the_pipe() {
        let mut c = cr(400_000, 500);
        c.on_ack_frame(&frame(1000, 12_000, 500, 12_000, 12_000, 24_000));
        c.on_sent(1000 * MS, 13_200, 200_000);
        c.on_sent(1400 * MS, 150_000, 200_000);
        c.on_ack_frame(&frame(1450, 30_000, 900, 120_000, 42_000, 24_000));
        assert_eq!(c.phase(), Phase::Unvalidated);
        c.on_congestion(1460 * MS, false);
        assert_eq!((c.phase(), c.hold(140_000), c.hold(10_000)), (Phase::SafeRetreat, 21_000, 10_000));
        assert_eq!(c.on_ack_frame(&frame(1600, 8_000, 1100, 90_000, 50_000, 140_000)), Set::default());
        let s = c.on_ack_frame(&frame(1900, 0, 1400, 10_000, 50_000, 21_000));
        assert_eq!((s.ssthresh_at_most, c.phase()), (Some(50_000), Phase::Normal));
    }

    /// Leaving Unvalidated with a flight no larger than PipeSize (the jump
    /// not used: the sender ran out of data): cwnd = PipeSize, Normal.
    #[test]
    fn an_unused_jump_keeps_the_pipe() {
        let mut c = cr(200_000, 500);
        c.on_ack_frame(&frame(1000, 12_000, 500, 12_000, 12_000, 24_000));
        c.on_sent(1000 * MS, 14_000, 100_000);
        let s = c.on_ack_frame(&frame(1510, 14_000, 1000, 0, 26_000, 24_000));
        assert_eq!((s.cwnd, c.phase()), (Some(26_000), Phase::Normal));
    }
}
