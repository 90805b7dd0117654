//! NewReno fast retransmit and fast recovery, RFC 6582 (with RFC 5681).
//!
//! * Enter on the DupThresh-th duplicate ACK if the cumulative ACK covers
//!   more than `recover` (RFC 6582 step 2; no "careful variant" heuristics):
//!   recover = HighData, ssthresh = max(FlightSize/2, 2 SMSS), retransmit
//!   the first unacknowledged segment, cwnd = ssthresh + DupThresh x SMSS.
//! * Each further duplicate ACK inflates cwnd by SMSS (unless the window
//!   controller turns inflation off, `recovery_inflation`: then cwnd =
//!   ssthresh on entry and duplicate ACKs leave it alone).
//! * Partial ACK: retransmit the next unacknowledged segment, deflate cwnd by
//!   the bytes acknowledged and add back SMSS if at least SMSS was
//!   acknowledged (with `partial_window_deflation = false`, the ns-2 of
//!   2003's `partial_window_deflation_ 0`: drop the inflation whole, cwnd =
//!   ssthresh); restart the retransmission timer on the first partial ACK
//!   only ("impatient" variant, RFC 6582 section 4, the default) or on every
//!   one (`partial_ack_timer = "slow_but_steady"`, ns-2's NewReno).
//! * With `newreno_within_cwnd` (the `linux` profile) the partial ACK's
//!   retransmission waits until the pipe (the flight less the segments
//!   duplicate ACKs reported, Linux's Reno emulation of SACK,
//!   `Sender::reno_sacked`) is below cwnd, as `tcp_xmit_retransmit_queue`
//!   stops at `tcp_packets_in_flight >= cwnd`; it is tried again on every
//!   ACK of the recovery, and if none comes the RTO repairs. RFC 6582 sends
//!   it at once.
//! * Full ACK: leave recovery with cwnd = min(ssthresh, max(FlightSize,
//!   SMSS) + SMSS) (RFC 6582 option 1, the recommended one) or cwnd =
//!   ssthresh (`full_ack_cwnd = "ssthresh"`, ns-3's classic recovery).
//! * The window controller may change the window after a partial ACK
//!   (`partial_ack_cwnd`, given the deflated window above) and on the full
//!   ACK (`recovery_exit_cwnd`); TCP-ADaLR NewReno (`tcp/cc/adalr.rs`) sets
//!   cwnd - acked + 2 SMSS (2 SMSS if cwnd <= acked) on a partial ACK, or,
//!   with `adalr_fr_guard = "full"`, on the full ACK.
//! * Its own state: the partial ACKs of the current recovery. Reno shares
//!   the duplicate-ACK steps (`newreno_dupack`).

use super::{Phase, Scheme};
use crate::scenario::{FullAckCwnd, PartialAckTimer};
use crate::tcp::{Ctx, Endpoint};

/// NewReno's own state.
#[derive(Clone, Copy, Debug, Default)]
pub struct NewRenoState {
    /// Partial ACKs seen in the current recovery.
    pub partial_acks: u32,
}

impl Endpoint {
    pub(crate) fn newreno_new_ack(&mut self, ctx: &mut Ctx, acked: u64) -> bool {
        let smss = self.snd.smss();
        if !self.snd.phase.in_recovery() {
            self.snd.phase.end_dupacks();
            self.grow_window(acked);
            return true;
        }
        let s = &mut self.snd;
        if s.una >= s.recover {
            let cwnd = match self.cfg.full_ack_cwnd {
                FullAckCwnd::FlightSize => s.w.ssthresh.min(s.flight().max(smss) + smss),
                FullAckCwnd::Ssthresh => s.w.ssthresh,
            };
            s.w.cwnd = s.cc.recovery_exit_cwnd(&s.w, acked, cwnd);
            s.phase = Phase::Open;
            if self.cfg.exit_opens_cwnd {
                self.grow_window(acked);
            }
            return true;
        }
        let deflated = if self.cfg.partial_window_deflation {
            let mut d = s.w.cwnd.saturating_sub(acked);
            if acked >= smss {
                d += smss;
            }
            d.max(smss)
        } else {
            // the ns-2 of 2003: dupwnd_ = 0, the window is cwnd_ = ssthresh
            s.w.ssthresh.min(s.w.cwnd).max(smss)
        };
        s.w.cwnd = s.cc.partial_ack_cwnd(&s.w, acked, deflated);
        let Scheme::NewReno(st) = &mut s.scheme else { unreachable!("NewReno recovery keeps NewReno's state") };
        st.partial_acks += 1;
        let restart = st.partial_acks == 1 || self.cfg.partial_ack_timer == PartialAckTimer::SlowButSteady;
        self.snd.head_rtx_owed = true;
        // tcp_newreno_mark_lost: the new head is lost
        let head_end = self.snd.una + self.snd.smss();
        self.snd.mark_lost_to(head_end.min(self.snd.max), ctx.now);
        self.newreno_pay_owed(ctx);
        restart
    }

    /// Resend the segment at snd_una if a partial ACK asked for it and, under
    /// `newreno_within_cwnd`, the pipe (Linux's packets in flight: the flight
    /// less what duplicate ACKs reported) is below cwnd, as
    /// `tcp_xmit_retransmit_queue` waits; tried again on every ACK of the
    /// recovery.
    pub(crate) fn newreno_pay_owed(&mut self, ctx: &mut Ctx) {
        if !self.snd.head_rtx_owed {
            return;
        }
        if self.cfg.newreno_within_cwnd && self.snd.pipe(self.cfg.dupthresh) >= self.snd.w.cwnd {
            return;
        }
        self.snd.head_rtx_owed = false;
        self.retransmit_head(ctx);
    }

    /// A duplicate ACK, already counted in the phase (NewReno and Reno).
    pub(crate) fn newreno_dupack(&mut self, ctx: &mut Ctx) {
        let smss = self.snd.smss();
        if self.snd.phase.in_recovery() {
            if self.snd.caps.recovery_inflation {
                self.snd.w.cwnd += smss;
            }
            self.newreno_pay_owed(ctx);
            return;
        }
        let s = &mut self.snd;
        if s.phase.dupacks() == self.cfg.dupthresh && s.past_recover() {
            s.recover = s.max;
            s.fast_retransmit_timing();
            s.w.ssthresh = s.loss_ssthresh();
            s.phase.enter_recovery();
            if let Scheme::NewReno(st) = &mut s.scheme {
                st.partial_acks = 0;
            }
            self.stats.fast_recoveries += 1;
            let head_end = self.snd.una + smss;
            self.snd.mark_lost_to(head_end.min(self.snd.max), ctx.now);
            self.retransmit_head(ctx);
            let s = &mut self.snd;
            let inflation = if s.caps.recovery_inflation { self.cfg.dupthresh as u64 * smss } else { 0 };
            s.w.cwnd = s.w.ssthresh + inflation;
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
