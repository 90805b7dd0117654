//! Forward Acknowledgement (FACK) recovery: Mathis and Mahdavi, "Forward
//! Acknowledgment: Refining TCP Congestion Control", SIGCOMM 1996.
//!
//! State, from the SACK scoreboard:
//! * `snd.fack` = the forward-most byte the receiver holds: the end of the
//!   highest SACK block, or snd.una if there is none;
//! * `retran_data` = retransmitted bytes not yet acknowledged or SACKed (the
//!   retransmitted ranges lie in [snd.una, high_rxt); their unSACKed part;
//!   `high_rxt` is FACK's own state, moved to snd.una by an RTO);
//! * `awnd` = snd.nxt - snd.fack + retran_data: the data actually in the
//!   network, everything unSACKed below snd.fack being counted as lost.
//!
//! Rules:
//! * Enter recovery when snd.fack - snd.una > DupThresh x SMSS (the
//!   receiver holds data more than DupThresh segments past the first hole)
//!   or on the DupThresh-th duplicate ACK, provided the cumulative ACK has
//!   passed `recover` (one reduction per window): recover = snd.max,
//!   ssthresh per the window controller (FlightSize less Limited Transmit
//!   data), cwnd = ssthresh, retransmit the segment at snd.una.
//! * In recovery, on every ACK: while awnd + SMSS <= cwnd, send something:
//!   the next hole below snd.fack not yet retransmitted (in sequence order,
//!   `high_rxt` marks how far retransmission has gone), else new data if the
//!   receiver's window allows. The paper states "while awnd < cwnd" in whole
//!   segments; with byte counters that is one full segment of room.
//! * Leave when the cumulative ACK reaches `recover`; cwnd = ssthresh.
//!   After a timeout, go-back-N as for every scheme (the scoreboard stays,
//!   so SACKed data is skipped).
//!
//! The paper's two refinements, both options, off by default as in ns-2's
//! `Agent/TCP/Fack` (`ss-div4_ false`, `rampdown_ false`), which is what the
//! papers comparing against FACK ran:
//! * Overdamping (`fack_overdamping`): a loss detected during slow start is
//!   found when the window has already doubled past what the path held, so
//!   halving it is not enough; ssthresh is halved once more (floor 2 SMSS).
//! * Rampdown (`fack_rampdown`): instead of cutting cwnd to ssthresh at once
//!   (a pause of half a window), cwnd starts at awnd after the first
//!   retransmission and falls by SMSS/2 on every ACK until it reaches
//!   ssthresh, so one segment goes out for every two ACKs.
//! * `fack_style = "ns2"` (the `ns2` profiles' default; "mathis" is the
//!   above): ns-2's Agent/TCP/Fack sets cwnd to one segment
//!   (`CLOSE_CWND_RESTART`) when it enters recovery and opens it on every
//!   ACK during recovery as outside it, so the window slow-starts back to
//!   ssthresh while the holes are repaired (on leaving, cwnd stays where it
//!   has grown); and every ACK that carries SACK blocks or ends no
//!   recovery restarts the retransmission timer (`oldack()` calls
//!   `newtimer()`), so a long repair does not time out while ACKs arrive;
//!   outside recovery it sends, and opens cwnd, only on an ACK without
//!   SACK blocks (`if (dupacks_ == 0) send_much`; `oldack()` for an
//!   advancing ACK with blocks), so it has no Limited Transmit and sends
//!   nothing between the first duplicate ACK and the fast retransmit; and
//!   it leaves recovery only on an ACK without SACK blocks at or beyond
//!   `recover` (`sa_length() == 0 && last_ack_ >= recover_`), after
//!   opening cwnd on that ACK as on the others; and every ACK `oldack()`
//!   handles (all in recovery, those with SACK blocks outside it) gives an
//!   RTT sample from the timestamp the sink echoes, TS.Recent (the segment
//!   that last moved its window, so a duplicate ACK measures from the
//!   segment before the hole), in place of the timed segment's
//!   (`Endpoint::on_ack`); and a timeout in recovery keeps recovery and its
//!   `recover` (`timeout()`: "Do not clear fastrecov_ or alter recover_"),
//!   resending from snd.una and jumping past what the receiver reports
//!   (`fack_keep_recovery_at_rto`). These last three were found in the
//!   Modified Peach study at PER 0.1, where they took FACK from 36% above
//!   ns-2's goodput to 11% (one flow, ten seeds), and 24% to 2% on its ten
//!   flows. Each was
//!   found comparing ns-2's queue trace with satcp's, packet by packet
//!   (docs/validation-ns2.md).

use super::Phase;
use crate::tcp::{Ctx, Endpoint};

/// FACK's own state.
#[derive(Clone, Copy, Debug, Default)]
pub struct FackState {
    /// How far retransmission of the holes has gone (an exclusive end).
    pub high_rxt: u64,
    /// `fack_style = "ns2"`: a timeout in recovery kept it (ns-2's
    /// `timeout()` leaves `fastrecov_` and `recover_`), and the go-back-N
    /// from snd.nxt has not reached snd.max yet.
    pub resending: bool,
}

impl Endpoint {
    /// snd.fack: the forward-most byte held by the receiver.
    pub(crate) fn fack_point(&self) -> u64 {
        let s = &self.snd;
        s.board.highest().unwrap_or(s.una).max(s.una)
    }

    /// awnd = snd.nxt - snd.fack + retran_data (snd.nxt is snd.max but in
    /// the go-back-N of a timeout that kept recovery).
    pub(crate) fn fack_awnd(&self) -> u64 {
        let s = &self.snd;
        let fack = self.fack_point();
        let rxt_end = s.scheme.high_rxt().clamp(s.una, s.max);
        let retran_data = (rxt_end - s.una) - s.board.sacked_in(s.una, rxt_end);
        let top = if s.scheme.fack_resending() { s.nxt.max(fack) } else { s.max };
        top.saturating_sub(fack) + retran_data
    }

    /// `fack_style = "ns2"`: a timeout during recovery keeps it, as ns-2's
    /// FACK does (`timeout()`: "Do not clear fastrecov_ or alter
    /// recover_"): the window and the scoreboard are reset as for any
    /// timeout, and the repair goes on in recovery, resending from snd.una
    /// (`t_seqno_ = last_ack_ + 1`) and jumping past what the receiver
    /// reports holding (`t_seqno_ = fack_ + 1`).
    pub(crate) fn fack_keep_recovery_at_rto(&mut self, recover: u64) {
        let s = &mut self.snd;
        s.phase = Phase::Recovery(0);
        s.recover = recover;
        s.scheme.set_fack_resending(true);
    }

    /// `fack_style = "ns2"`, outside recovery: ns-2's Agent/TCP/Fack sends,
    /// and opens cwnd, only on an ACK without SACK blocks (`if (dupacks_ ==
    /// 0) send_much`), so nothing goes out while the receiver reports a
    /// hole and the fast retransmit has not come yet. Not in the go-back-N
    /// after a timeout: ns-2 clears its scoreboard there, and a scoreboard
    /// kept (`rto_clears_sack = false`) must not hold the repair back.
    pub(crate) fn fack_ns2_holds(&self) -> bool {
        self.cfg.fack_ns2
            && self.cfg.recovery == crate::scenario::Recovery::Fack
            && matches!(self.snd.phase, Phase::Open | Phase::Disorder(_))
            && self.snd.board.highest().is_some()
    }

    fn fack_trigger(&self) -> bool {
        let s = &self.snd;
        let dt = self.cfg.dupthresh;
        let far = self.fack_point() - s.una > dt as u64 * s.smss();
        (s.phase.dupacks() >= dt || far) && s.past_recover() && s.una < s.max
    }

    pub(crate) fn fack_new_ack(&mut self, ctx: &mut Ctx, acked: u64) -> bool {
        let s = &mut self.snd;
        if s.phase.in_recovery() {
            // ns-2's Agent/TCP/Fack leaves recovery only on an ACK without
            // SACK blocks (`sa_length() == 0 && last_ack_ >= recover_`)
            let sack_left = self.cfg.fack_ns2 && s.board.highest().is_some();
            if s.una >= s.recover && !sack_left {
                if !self.cfg.fack_ns2 {
                    s.w.cwnd = s.w.ssthresh;
                }
                s.phase = Phase::Open;
                s.rtx_log.clear();
                s.rtx_lost_stall = false;
                s.scheme.set_fack_resending(false);
                // ns-2 opens cwnd on this ACK too (`opencwnd()` comes before
                // the test that ends recovery)
                self.fack_restart_step();
            } else {
                if self.cfg.fack_ns2 {
                    self.fack_check_lost_retransmissions();
                }
                self.fack_rampdown_step();
                self.fack_restart_step();
            }
            return true;
        }
        s.phase.end_dupacks();
        // ns-2's Agent/TCP/Fack opens cwnd only on an ACK without SACK
        // blocks (`recv_newack_helper`); one that carries some goes through
        // `oldack()`, which does not
        if !self.fack_ns2_holds() {
            self.grow_window(acked);
        }
        if self.fack_trigger() {
            self.fack_enter(ctx);
        }
        true
    }

    /// A duplicate ACK (one that SACKs new data), already counted in the
    /// phase.
    pub(crate) fn fack_dupack(&mut self, ctx: &mut Ctx) {
        if self.cfg.fack_ns2 && self.snd.una < self.snd.max {
            self.restart_rto(ctx);
        }
        if self.snd.phase.in_recovery() {
            if self.cfg.fack_ns2 {
                self.fack_check_lost_retransmissions();
            }
            self.fack_rampdown_step();
            self.fack_restart_step();
            return;
        }
        if self.fack_trigger() {
            self.fack_enter(ctx);
        }
    }

    /// `fack_style = "ns2"`: note a retransmission of [start, end) with the
    /// highest sequence sent so far (ns-2's scoreboard `snd_nxt_`).
    fn fack_log_retransmission(&mut self, start: u64, end: u64) {
        if self.cfg.fack_ns2 && end > start {
            let max = self.snd.max;
            self.snd.rtx_log.push_back((start, end, max));
        }
    }

    /// `fack_style = "ns2"` (`CheckSndNxt`): a retransmission still
    /// unacknowledged and unSACKed when data sent after it is SACKed was
    /// lost again; ns-2's FACK then stops sending (`timeout_`) and waits
    /// for the retransmission timer.
    pub(crate) fn fack_check_lost_retransmissions(&mut self) {
        let s = &mut self.snd;
        let Some(highest) = s.board.highest() else { return };
        let (una, board) = (s.una, &s.board);
        let mut lost = false;
        s.rtx_log.retain(|&(a, e, max)| {
            if e <= una || board.sacked_in(a, e) == e - a {
                return false;
            }
            if highest > max {
                lost = true;
                return false;
            }
            true
        });
        s.rtx_lost_stall |= lost;
    }

    /// `fack_style = "ns2"`: every ACK in recovery opens cwnd as outside it
    /// (slow start from one segment back to ssthresh), as ns-2's `opencwnd()`.
    fn fack_restart_step(&mut self) {
        if self.cfg.fack_ns2 {
            let smss = self.snd.smss();
            self.grow_window(smss);
        }
    }

    fn fack_rampdown_step(&mut self) {
        if self.cfg.fack_rampdown {
            let w = &mut self.snd.w;
            w.cwnd = w.cwnd.saturating_sub(w.smss / 2).max(w.ssthresh);
        }
    }

    fn fack_enter(&mut self, ctx: &mut Ctx) {
        let s = &mut self.snd;
        let in_slow_start = s.w.cwnd < s.w.ssthresh;
        s.recover = s.max;
        s.fast_retransmit_timing();
        s.w.ssthresh = s.loss_ssthresh();
        if self.cfg.fack_overdamping && in_slow_start {
            s.w.ssthresh = (s.w.ssthresh / 2).max(2 * s.smss());
        }
        s.scheme.set_high_rxt(s.una);
        s.phase.enter_recovery();
        self.stats.fast_recoveries += 1;
        self.retransmit_head_as_hole(ctx);
        let una = self.snd.una;
        let end = self.snd.scheme.high_rxt();
        self.fack_log_retransmission(una, end);
        let awnd = self.fack_awnd();
        let w = &mut self.snd.w;
        w.cwnd = if self.cfg.fack_ns2 {
            w.smss
        } else if self.cfg.fack_rampdown {
            awnd.max(w.ssthresh)
        } else {
            w.ssthresh
        };
    }

    /// Send while awnd leaves a segment of room in cwnd: holes below
    /// snd.fack first, then new data.
    pub(crate) fn fack_send(&mut self, ctx: &mut Ctx, budget: &mut u32) {
        if self.snd.rtx_lost_stall {
            return;
        }
        while *budget > 0 {
            if self.fack_awnd() + self.snd.smss() > self.snd.w.cwnd || !self.pacing_allows(ctx) {
                break;
            }
            let s = &self.snd;
            let fack = self.fack_point();
            let hole = s.board.first_unsacked_from(s.scheme.high_rxt().max(s.una));
            if hole < fack {
                let Some((len, fin)) = self.next_len_at(hole) else { break };
                self.emit(ctx, hole, len, fin);
                self.snd.scheme.set_high_rxt(hole + len + fin as u64);
                self.fack_log_retransmission(hole, hole + len + fin as u64);
            } else if s.scheme.fack_resending() && s.board.first_unsacked_from(s.nxt.max(fack)) < s.max {
                // the go-back-N of a timeout that kept recovery
                let at = s.board.first_unsacked_from(s.nxt.max(fack));
                let Some((len, fin)) = self.next_len_at(at) else { break };
                self.snd.nxt = at;
                self.emit(ctx, at, len, fin);
            } else if s.max < s.seq_end() {
                self.snd.scheme.set_fack_resending(false);
                let s = &self.snd;
                let Some((len, fin)) = self.next_len_at(s.max) else { break };
                if len > 0 && s.max + len > s.una + s.peer_wnd {
                    break;
                }
                let at = s.max;
                self.snd.nxt = at;
                self.emit(ctx, at, len, fin);
            } else {
                break;
            }
            *budget -= 1;
        }
    }
}
