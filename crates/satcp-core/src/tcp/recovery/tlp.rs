//! The tail loss probe and RACK's reordering timer (RFC 8985 sections 6.2
//! and 7), as the `linux` profile runs them (`tlp = true` and `rack =
//! true`; Linux's `tcp_schedule_loss_probe`, `tcp_send_loss_probe` and
//! `tcp_process_tlp_ack` in `tcp_output.c` / `tcp_input.c`, and
//! `tcp_rack_reo_timeout` in `tcp_recovery.c`). Without them a loss at the
//! tail of a flight, with nothing sent after it to be SACKed, waits for the
//! RTO (at least 200 ms beyond a round trip), and RACK's verdict on a
//! segment still inside its reordering window waits for the next ACK.
//!
//! Both live on one timer, as Linux's share `icsk_pending`: arming one
//! replaces the other.
//!
//! **Probe.** Armed after new data is sent and on every ACK that advances
//! snd_una (unless the ACK armed the reordering timer), only with SACK, in
//! the Open state (no recovery, no duplicate ACKs, nothing SACKed) and
//! with data outstanding: PTO = 2 SRTT, plus the minimum RTO when a single
//! segment is out (a delayed ACK may hold its answer) or 2 ms otherwise,
//! 1 s before any RTT sample; never later than the RTO would fire (after
//! an ACK, the RTO counted from now). On expiry, if no probe is
//! outstanding: send one new segment if the receiver's window allows,
//! whatever cwnd says, else resend the highest outstanding segment; then
//! restart the RTO from now. The probe's ACK:
//! * a probe of new data, or an ACK that duplicates nothing (the original
//!   and the probe both arrived: no loss), ends the episode;
//! * an ACK beyond snd_max at the probe, after a retransmitted probe, means
//!   the probe repaired a loss: ssthresh from the controller, cwnd =
//!   ssthresh (Linux's CWR entry and exit at once; BBR keeps its window);
//! * any SACK it brings lets RACK mark the earlier holes and start recovery.
//!
//! **Reordering timer.** After RACK's detection on an ACK, if a segment
//! sent before the reference is neither SACKed nor lost yet, the timer is
//! set for when the latest such one will be lost (its send time + RACK.rtt
//! + reo_wnd) plus 2 ms, at most one RTO from now. On expiry RACK runs
//! again; if it marks anything newly lost, SACK recovery begins (PRR
//! counting one segment delivered, as `tcp_rack_reo_timeout` passes) unless
//! it is under way, and the lost segments are resent.
//!
//! Choices:
//! * Timers are exact: Linux rounds them up to jiffies (4 ms at HZ 250).
//! * The retransmission timer keeps running beside these (satcp's RTO
//!   follows RFC 6298's restarts); a probe that falls due at the same
//!   instant as the RTO goes first, as Linux's single slot would hold the
//!   probe.
//! * No DSACK: the receiver reports a duplicate only by a duplicate ACK,
//!   which is what ends a retransmitted probe's episode without a
//!   reduction.
//! * The reordering timer watches first transmissions; a retransmission
//!   lost again is found on the next ACK.

use super::Phase;
use crate::sim::queue::TimerKind;
use crate::sim::{Event, Time};
use crate::tcp::{Ctx, Endpoint};

/// Linux's `TCP_TIMEOUT_MIN_US`, added to the probe timeout when several
/// segments are out and to the reordering timeout.
pub const TIMEOUT_MIN: Time = 2_000_000;

/// The probe timeout before any RTT sample (`TCP_TIMEOUT_INIT`).
const PTO_NO_RTT: Time = 1_000_000_000;

impl Endpoint {
    fn rack_tlp_event(&self) -> Event {
        Event::Timer { ep: self.id, kind: TimerKind::RackTlp }
    }

    /// Arm the probe if the flow may send one (`tcp_schedule_loss_probe`).
    /// `after_ack`: an ACK advanced snd_una, so the RTO that caps it counts
    /// from now. Returns whether it is armed.
    pub(crate) fn tlp_schedule(&mut self, ctx: &mut Ctx, after_ack: bool) -> bool {
        let s = &self.snd;
        if !self.cfg.tlp || !self.sack_ok || s.una >= s.max || s.phase != Phase::Open || s.board.highest().is_some() {
            return false;
        }
        let mut pto = match s.rtt.srtt {
            Some(srtt) => 2 * srtt as Time + if s.flight() <= s.smss() { self.cfg.min_rto_ns } else { TIMEOUT_MIN },
            None => PTO_NO_RTT,
        };
        let rto_left = if after_ack { Some(s.rtt.rto()) } else { self.rto_timer.deadline().map(|d| d.saturating_sub(ctx.now)) };
        if let Some(r) = rto_left.filter(|&r| r > 0) {
            pto = pto.min(r);
        }
        self.rack_tlp_probe = true;
        self.rack_tlp_timer.set(ctx.now + pto, ctx.q, self.rack_tlp_event());
        true
    }

    /// The ACK just processed advanced snd_una: the probe is re-armed, or,
    /// if the flow may not probe, the pending probe or reordering timer
    /// gives way to the RTO (Linux's `tcp_set_xmit_timer`).
    pub(crate) fn tlp_after_ack(&mut self, ctx: &mut Ctx) {
        if !self.tlp_schedule(ctx, true) {
            self.rack_tlp_timer.stop();
        }
    }

    /// Arm the reordering timer if RACK's last detection left a segment
    /// waiting (`tcp_rack_mark_lost`). Returns whether it is armed.
    pub(crate) fn rack_reo_arm(&mut self, ctx: &mut Ctx) -> bool {
        let Some(at) = self.snd.rack_reo_at else { return false };
        let at = (at.max(ctx.now) + TIMEOUT_MIN).min(ctx.now + self.snd.rtt.rto());
        self.rack_tlp_probe = false;
        self.rack_tlp_timer.set(at, ctx.q, self.rack_tlp_event());
        true
    }

    /// The shared timer expired.
    pub(crate) fn on_rack_tlp_timer(&mut self, ctx: &mut Ctx) {
        if self.rack_tlp_probe {
            self.tlp_fire(ctx);
        } else {
            self.rack_reo_fire(ctx);
        }
    }

    /// Whether a probe falls due now (it goes before an RTO due at the same
    /// instant).
    pub(crate) fn tlp_due(&self, now: Time) -> bool {
        self.rack_tlp_probe && self.rack_tlp_timer.deadline().is_some_and(|d| d <= now)
    }

    /// Send the probe (`tcp_send_loss_probe`); returns whether one left.
    pub(crate) fn tlp_fire(&mut self, ctx: &mut Ctx) -> bool {
        self.rack_tlp_timer.stop();
        let s = &self.snd;
        if s.tlp_high.is_some() || s.una >= s.max {
            return false; // one probe at a time; the RTO stays armed
        }
        let new = (s.max < s.seq_end())
            .then(|| self.next_len_at(s.max))
            .flatten()
            .filter(|&(len, _)| len == 0 || s.max + len <= s.una + s.send_window());
        let retransmitted = match new {
            Some((len, fin)) => {
                let at = self.snd.max;
                self.emit(ctx, at, len, fin);
                false
            }
            None => {
                let Some((start, _)) = self.snd.last_segment() else { return false };
                let Some((len, fin)) = self.next_len_at(start) else { return false };
                self.emit(ctx, start, len, fin);
                true
            }
        };
        self.snd.tlp_high = Some((self.snd.max, retransmitted));
        self.stats.loss_probes += 1;
        self.restart_rto(ctx);
        true
    }

    /// What an ACK says about the outstanding probe (`tcp_process_tlp_ack`).
    /// `pure_dup`: it advanced nothing, carried no data, changed no window
    /// and SACKed nothing new.
    pub(crate) fn tlp_on_ack(&mut self, ack: u64, pure_dup: bool) {
        let Some((high, retransmitted)) = self.snd.tlp_high else { return };
        if ack < high {
            return;
        }
        if !retransmitted || (ack == high && pure_dup) {
            self.snd.tlp_high = None;
        } else if ack > high {
            // the probe repaired a loss: enter and leave CWR at once
            self.snd.tlp_high = None;
            if !self.snd.caps.sets_recovery_cwnd {
                let s = &mut self.snd;
                s.w.ssthresh = s.loss_ssthresh();
                s.w.cwnd = s.w.ssthresh;
            }
        }
    }

    /// The reordering timer expired (`tcp_rack_reo_timeout`): mark what is
    /// lost by now, start recovery if that is news, and resend.
    fn rack_reo_fire(&mut self, ctx: &mut Ctx) {
        let dt = self.cfg.dupthresh;
        let before = self.snd.lost_boundary(dt).max(self.snd.una);
        let in_recovery = self.snd.phase.in_recovery();
        self.snd.rack_detect(ctx.now, in_recovery, dt);
        if self.snd.lost_boundary(dt) <= before {
            return;
        }
        if !in_recovery && !matches!(self.snd.phase, Phase::Loss(_)) && self.snd.past_recover() {
            self.sack_enter_on_timer(ctx);
        }
        self.send_data(ctx);
    }
}
