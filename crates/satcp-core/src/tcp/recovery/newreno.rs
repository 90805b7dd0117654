//! NewReno fast retransmit and fast recovery, RFC 6582 (with RFC 5681).
//!
//! * Enter on the DupThresh-th duplicate ACK if the cumulative ACK covers
//!   more than `recover` (RFC 6582 step 2; no "careful variant" heuristics):
//!   recover = HighData, ssthresh = max(FlightSize/2, 2 SMSS), retransmit
//!   the first unacknowledged segment, cwnd = ssthresh + DupThresh x SMSS.
//! * Each further duplicate ACK inflates cwnd by SMSS.
//! * Partial ACK: retransmit the next unacknowledged segment, deflate cwnd by
//!   the bytes acknowledged and add back SMSS if at least SMSS was
//!   acknowledged; restart the retransmission timer on the first partial ACK
//!   only ("impatient" variant, RFC 6582 section 4, the default) or on every
//!   one (`partial_ack_timer = "slow_but_steady"`, ns-2's NewReno).
//! * Full ACK: leave recovery with cwnd = min(ssthresh, max(FlightSize,
//!   SMSS) + SMSS) (RFC 6582 option 1, the recommended one) or cwnd =
//!   ssthresh (`full_ack_cwnd = "ssthresh"`, ns-3's classic recovery).
//! * TCP-ADaLR NewReno (`tcp/cc/adalr.rs`): a partial ACK sets cwnd =
//!   cwnd - acked + 2 SMSS (2 SMSS if cwnd <= acked), or, with
//!   `adalr_fr_guard = "full"`, the full ACK does.

use crate::scenario::{AdalrFrGuard, FullAckCwnd, PartialAckTimer};
use crate::tcp::cc::adalr::Adalr;
use crate::tcp::{Ctx, Endpoint};

impl Endpoint {
    pub(crate) fn newreno_new_ack(&mut self, ctx: &mut Ctx, acked: u64) -> bool {
        let smss = self.snd.smss();
        if !self.snd.in_recovery {
            self.snd.dupacks = 0;
            self.grow_window(acked);
            return true;
        }
        let adalr_guard = self.snd.cc.adalr().map(|a| a.cfg.fr_guard);
        if self.snd.una >= self.snd.recover {
            let s = &mut self.snd;
            s.w.cwnd = match (adalr_guard, self.cfg.full_ack_cwnd) {
                (Some(AdalrFrGuard::Full), _) => Adalr::deflate(&s.w, acked),
                (_, FullAckCwnd::FlightSize) => s.w.ssthresh.min(s.flight().max(smss) + smss),
                (_, FullAckCwnd::Ssthresh) => s.w.ssthresh,
            };
            s.in_recovery = false;
            s.dupacks = 0;
            return true;
        }
        let s = &mut self.snd;
        if adalr_guard == Some(AdalrFrGuard::Partial) {
            s.w.cwnd = Adalr::deflate(&s.w, acked);
        } else {
            s.w.cwnd = s.w.cwnd.saturating_sub(acked);
            if acked >= smss {
                s.w.cwnd += smss;
            }
            s.w.cwnd = s.w.cwnd.max(smss);
        }
        s.partial_acks += 1;
        let restart = s.partial_acks == 1 || self.cfg.partial_ack_timer == PartialAckTimer::SlowButSteady;
        self.retransmit_head(ctx);
        restart
    }

    pub(crate) fn newreno_dupack(&mut self, ctx: &mut Ctx) {
        let smss = self.snd.smss();
        if self.snd.in_recovery {
            self.snd.w.cwnd += smss;
            return;
        }
        self.snd.dupacks += 1;
        if self.snd.dupacks == self.cfg.dupthresh && self.snd.una >= self.snd.recover {
            let s = &mut self.snd;
            s.recover = s.max;
            let flight = s.flight_for_ssthresh();
            s.w.ssthresh = s.cc.ssthresh_after_loss(&s.w, flight);
            s.in_recovery = true;
            s.partial_acks = 0;
            self.stats.fast_recoveries += 1;
            self.retransmit_head(ctx);
            let s = &mut self.snd;
            s.w.cwnd = s.w.ssthresh + self.cfg.dupthresh as u64 * smss;
        }
    }

    /// Resend the segment at snd_una.
    pub(crate) fn retransmit_head(&mut self, ctx: &mut Ctx) {
        let una = self.snd.una;
        if let Some((len, fin)) = self.next_len_at(una) {
            self.emit(ctx, una, len, fin);
        }
    }
}
