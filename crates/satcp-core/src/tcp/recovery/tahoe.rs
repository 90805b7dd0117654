//! Tahoe: fast retransmit without fast recovery (Jacobson 1988, as the BSD
//! 4.3-Tahoe stack and ns-2's `Agent/TCP` do it; RFC 5681 section 3.2 minus
//! steps 3-6).
//!
//! * On the DupThresh-th duplicate ACK: ssthresh per the window controller
//!   (AIMD: max(FlightSize/2, 2 SMSS), Limited Transmit data left out),
//!   cwnd = 1 SMSS, and sending goes back to snd_una: go-back-N, exactly as
//!   after a retransmission timeout but without backing the timer off. This
//!   is ns-2 Tahoe's choice (`t_seqno_ = highest_ack_ + 1`); the 1988 BSD
//!   code did the same by rewinding snd_nxt. Slow start then resends every
//!   segment above the hole, whether or not the receiver holds it (SACKed
//!   ranges are skipped when SACK is negotiated).
//! * No window inflation and no fast recovery: the go-back-N is the `Loss`
//!   phase, as after a timeout; further duplicate ACKs do nothing. A new fast retransmit needs the cumulative ACK to pass the
//!   highest segment sent before the last one (`recover`, ns-2's `bugFix_`,
//!   RFC 6582 section 4.1), so the duplicates the go-back-N resends provoke
//!   cannot trigger a second halving.
//! * Every ACK of new data grows cwnd through the controller (slow start
//!   below ssthresh).

use super::Phase;
use crate::tcp::{Ctx, Endpoint};

impl Endpoint {
    pub(crate) fn tahoe_new_ack(&mut self, acked: u64) -> bool {
        self.snd.phase.end_dupacks();
        self.grow_window(acked);
        true
    }

    /// A duplicate ACK, already counted in the phase.
    pub(crate) fn tahoe_dupack(&mut self, ctx: &mut Ctx) {
        let s = &mut self.snd;
        if s.phase.dupacks() != self.cfg.dupthresh || !s.past_recover() {
            return;
        }
        s.w.ssthresh = s.loss_ssthresh();
        s.w.cwnd = s.smss();
        s.recover = s.max;
        s.phase = Phase::Loss(s.phase.dupacks());
        s.nxt = s.una;
        s.clear_timing();
        s.fast_retransmit_timing();
        self.stats.fast_recoveries += 1;
        self.send_data(ctx);
    }
}
