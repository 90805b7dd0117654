//! Reno fast retransmit and fast recovery, RFC 5681 section 3.2.
//!
//! * Enter on the DupThresh-th duplicate ACK: ssthresh per the window
//!   controller, retransmit the first unacknowledged segment, cwnd =
//!   ssthresh + DupThresh x SMSS; each further duplicate ACK inflates cwnd by
//!   SMSS (steps 2-4, shared with NewReno in `newreno.rs`).
//! * Leave recovery on the first ACK that acknowledges new data, whether it
//!   covers everything outstanding or not: cwnd = ssthresh (step 6). A second
//!   loss in the same window is therefore not repaired by this recovery.
//! * A new fast retransmit needs the cumulative ACK to have passed the
//!   highest segment sent when the previous one began (`recover`). RFC 5681
//!   leaves this out; ns-2's Reno has it (`bugFix_`, on by default) and RFC
//!   6582 section 4.1 recommends it, so that one window of losses halves
//!   cwnd once. The consequence, visible in the tests: with two losses in one
//!   window Reno leaves recovery on the partial ACK and the second hole waits
//!   for the retransmission timer.

use super::Phase;
use crate::tcp::Endpoint;

impl Endpoint {
    pub(crate) fn reno_new_ack(&mut self, acked: u64) -> bool {
        let s = &mut self.snd;
        if s.phase.in_recovery() {
            s.w.cwnd = s.w.ssthresh;
            s.phase = Phase::Open;
            if self.cfg.exit_opens_cwnd {
                self.grow_window(acked);
            }
        } else {
            s.phase.end_dupacks();
            self.grow_window(acked);
        }
        true
    }
}
