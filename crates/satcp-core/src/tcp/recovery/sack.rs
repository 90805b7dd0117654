//! SACK-based loss recovery, RFC 6675 (conservative SACK), on the RFC 5681
//! window rules.
//!
//! * Enter when DupAcks reaches DupThresh or IsLost(HighACK + 1), provided
//!   the cumulative ACK has passed the previous RecoveryPoint: RecoveryPoint
//!   = HighData, ssthresh = cwnd = max(FlightSize/2, 2 SMSS), retransmit the
//!   first unacknowledged segment.
//! * While in recovery, on every ACK: send while cwnd - pipe >= SMSS, picking
//!   segments with NextSeg() rules 1 (lost holes), 2 (new data), 3 (other
//!   holes) and, if `rescue_retransmission` is on, 4 (one rescue
//!   retransmission of the highest unSACKed data per recovery; the FIN, if
//!   outstanding, rides on it).
//! * Leave when the cumulative ACK reaches RecoveryPoint; cwnd stays at
//!   ssthresh.
//! * A duplicate ACK here is one that SACKs new data (RFC 6675 section 2);
//!   with SACK not negotiated the RFC 5681 definition applies.
//! * The window controller may let each partial ACK send segments beyond
//!   cwnd - pipe (`partial_ack_credit`: TCP-ADaLR SACK, `tcp/cc/adalr.rs`,
//!   one per partial ACK, the thesis' +2 instead of +1 SMSS) and set the
//!   window on the ACK that ends recovery (`recovery_exit_cwnd`: ADaLR with
//!   `adalr_fr_guard = "full"`, cwnd - acked + 2 SMSS, 2 SMSS if cwnd <=
//!   acked).
//! * After an RTO the scoreboard is kept (RFC 6675 5.1) so go-back-N skips
//!   SACKed data, and recovery is not re-entered before RecoveryPoint.
//! * Its own state: HighRxt, whether the rescue retransmission is done, and
//!   the controller's unused credit. An RTO moves HighRxt to snd_una and
//!   leaves the other two as they are.
//!
//! With `rack = true` (the `linux` profile) RACK's time-based verdicts
//! (`rack.rs`) join IsLost: its lost boundary counts in NextSeg() rule 1,
//! in SetPipe() and in the entry test, an ACK of new data can start
//! recovery when RACK finds a loss, and retransmissions RACK finds lost
//! again are sent once more before anything else (NextSeg() "rule 0").
//! A recovery that begins while the last one's retransmissions are still
//! on their way keeps HighRxt and does not resend snd_una: Linux marks a
//! segment retransmitted (`TCPCB_SACKED_RETRANS`) until RACK finds that
//! copy lost, whatever the recovery episode, where RFC 6675 starts every
//! episode at HighRxt = HighACK. Behind a deep queue the difference is
//! large: a BBR Startup overshoot on 10 Mb/s, 300 ms and 500 packets
//! ended its first recovery as the repairs were still queued, and the
//! second resent 415 of them (1,759 retransmissions for 1,343 drops; 1,343
//! for 1,343 with the rule).
//!
//! With `prr = true` (the `linux` profile) cwnd follows Proportional Rate
//! Reduction (`prr.rs`) through the recovery instead of dropping to
//! ssthresh at entry, and is set to ssthresh when recovery ends.
//!
//! `sack_pipe = "ns2"` (the `ns2` profiles) is ns-2's Sack1 instead (Fall
//! and Floyd 1996, `tcp-sack1.cc`), which counts the pipe rather than
//! computing it from the scoreboard:
//! * enter on the DupThresh-th ACK that changes the scoreboard (no IsLost
//!   trigger); pipe = FlightSize - DupThresh segments, the fast
//!   retransmission itself not counted;
//! * every ACK that arrives in recovery takes one segment off the pipe, a
//!   partial ACK a second one; every segment sent adds one;
//! * send while pipe < cwnd (whole segments): the next hole above HighRxt
//!   below the highest SACKed byte, lost or not, else new data the
//!   receiver's window allows;
//! * (with `rto_clears_sack`, also an `ns2` default) after an RTO the
//!   scoreboard is cleared and SACK blocks are ignored until the repair is
//!   over, so the go-back-N resends SACKed data too (ns-2 clears it and
//!   sets `timeout_`).
//!
//! Not taken from Sack1: it sets `recover_ = 0` when recovery ends, so a
//! new fast retransmit may follow at once; satcp keeps `recover` and its
//! `recover_rule`. Its `partial_ack_` option (off by default) is not
//! modelled. The timer restart on every partial ACK is RFC 6298's rule
//! here too.

use super::prr::{Prr, PrrAck};
use super::{Phase, Scheme};
use crate::tcp::{Ctx, Endpoint};

/// SACK recovery's own state.
#[derive(Clone, Copy, Debug, Default)]
pub struct SackState {
    /// RFC 6675 HighRxt as an exclusive end.
    pub high_rxt: u64,
    /// The rescue retransmission (NextSeg() rule 4) of this recovery is done.
    pub rescue_done: bool,
    /// Segments the controller lets out beyond cwnd - pipe, from the last
    /// partial ACK until used or recovery ends.
    pub credit: u32,
    /// ns-2 Sack1's counted pipe (`sack_pipe = "ns2"`).
    pub ns2: bool,
    /// The counted pipe, bytes (may go negative, as ns-2's `pipe_` does).
    pub pipe: i64,
    /// PRR's state for this recovery (`prr`).
    pub prr: Prr,
    /// What the ACK being processed told PRR.
    pub prr_ack: PrrAck,
}

impl Scheme {
    fn sack(&mut self) -> &mut SackState {
        match self {
            Scheme::Sack(st) => st,
            _ => unreachable!("SACK recovery keeps SACK's state"),
        }
    }

    fn sack_ref(&self) -> &SackState {
        match self {
            Scheme::Sack(st) => st,
            _ => unreachable!("SACK recovery keeps SACK's state"),
        }
    }
}

/// Which NextSeg() rule produced a segment.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum Rule {
    /// RACK found this retransmission lost again.
    Relost,
    LostHole,
    NewData,
    OtherHole,
    Rescue,
}

impl Endpoint {
    pub(crate) fn sack_new_ack(&mut self, ctx: &mut Ctx, acked: u64) -> bool {
        let prr = self.prr_on();
        let s = &mut self.snd;
        if s.phase.in_recovery() {
            if s.una >= s.recover {
                s.phase = Phase::Open;
                if prr {
                    // tcp_end_cwnd_reduction
                    s.w.cwnd = s.w.ssthresh;
                }
                s.w.cwnd = s.cc.recovery_exit_cwnd(&s.w, acked, s.w.cwnd);
                s.scheme.sack().credit = 0;
            } else {
                let credit = s.cc.partial_ack_credit(&s.w, acked);
                s.scheme.sack().credit = credit;
            }
        } else {
            s.phase.end_dupacks();
            self.grow_window(acked);
            // RACK marks losses on any ACK, and Linux then enters recovery
            let s = &self.snd;
            if s.rack_lost_below > s.una && s.past_recover() && !s.scheme.sack_ref().ns2 {
                self.sack_enter(ctx);
            }
        }
        true
    }

    /// A duplicate ACK (one that SACKs new data), already counted in the
    /// phase.
    pub(crate) fn sack_dupack(&mut self, ctx: &mut Ctx) {
        if self.snd.phase.in_recovery() {
            return;
        }
        let s = &self.snd;
        let dt = self.cfg.dupthresh;
        let head_lost = !s.scheme.sack_ref().ns2 && s.lost_boundary(dt) > s.una;
        if (s.phase.dupacks() >= dt || head_lost) && s.past_recover() {
            self.sack_enter(ctx);
        }
    }

    fn sack_enter(&mut self, ctx: &mut Ctx) {
        let prr = self.prr_on();
        let s = &mut self.snd;
        s.recover = s.max;
        s.fast_retransmit_timing();
        let prior_cwnd = s.w.cwnd / s.smss();
        s.w.ssthresh = s.loss_ssthresh();
        s.w.cwnd = s.w.ssthresh;
        let una = s.una;
        let rack = self.cfg.rack;
        let st = s.scheme.sack();
        // Linux's retransmitted marks outlive the episode (module doc)
        let resent_ahead = rack && st.high_rxt > una;
        if !resent_ahead {
            st.high_rxt = una;
        }
        st.rescue_done = false;
        st.prr = Prr::start(prior_cwnd);
        // tcp_init_cwnd_reduction ends a probe episode
        s.tlp_high = None;
        s.phase.enter_recovery();
        self.stats.fast_recoveries += 1;
        if prr {
            // the entry ACK is PRR's first; the fast retransmit is its
            // first segment out
            self.prr_reduce();
            if !resent_ahead {
                self.snd.scheme.sack().prr.sent(1);
            }
        }
        if !resent_ahead {
            self.retransmit_head_as_hole(ctx);
        }
        let s = &mut self.snd;
        let pipe = (s.max - s.una) as i64 - self.cfg.dupthresh as i64 * s.smss() as i64;
        s.scheme.sack().pipe = pipe;
    }

    /// RACK's reordering timer found a loss outside recovery: start it, PRR
    /// counting one segment delivered (`tcp_rack_reo_timeout`).
    pub(crate) fn sack_enter_on_timer(&mut self, ctx: &mut Ctx) {
        self.snd.scheme.sack().prr_ack = PrrAck { delivered: 1, una_advanced: false, newly_lost: true };
        self.sack_enter(ctx);
    }

    /// ns-2 Sack1: every ACK in recovery takes a segment off the counted
    /// pipe, a partial ACK (new data below `recover`) a second one. Called
    /// for every ACK before the scheme sees it.
    pub(crate) fn sack_ns2_count_ack(&mut self, ack: u64) {
        let s = &mut self.snd;
        if !s.phase.in_recovery() {
            return;
        }
        let (una, recover, smss) = (s.una, s.recover, s.smss() as i64);
        if let Scheme::Sack(st) = &mut s.scheme {
            if st.ns2 {
                st.pipe -= smss;
                if ack > una && ack < recover {
                    st.pipe -= smss;
                }
            }
        }
    }

    /// ns-2 Sack1 sends while pipe < cwnd: holes below the highest SACKed
    /// byte in order, then new data.
    fn sack_ns2_send(&mut self, ctx: &mut Ctx, budget: &mut u32, retx_left: &mut u32) {
        while *budget > 0 {
            let s = &self.snd;
            let smss = s.smss();
            let cwnd_whole = (s.w.cwnd / smss * smss) as i64;
            if s.scheme.sack_ref().pipe >= cwnd_whole {
                break;
            }
            let highest_sacked = s.board.highest().unwrap_or(s.una);
            let hole = s.board.first_unsacked_from(s.scheme.sack_ref().high_rxt.max(s.una));
            let (start, len, fin) = if hole < highest_sacked {
                let Some((len, fin)) = self.next_len_at(hole) else { break };
                (hole, len, fin)
            } else if s.max < s.seq_end() {
                let Some((len, fin)) = self.next_len_at(s.max) else { break };
                if s.max + len > s.una + s.send_window() && len > 0 {
                    break;
                }
                (s.max, len, fin)
            } else {
                break;
            };
            let retx = start < self.snd.max;
            if !self.sack_try_emit(ctx, start, len, fin, budget, retx_left) {
                break;
            }
            let st = self.snd.scheme.sack();
            st.pipe += smss as i64;
            if retx {
                st.high_rxt = st.high_rxt.max(start + len + fin as u64);
            }
        }
    }

    /// Send [start, start + len) in recovery if the retransmission budget
    /// and the pacer allow it, charging the budgets; false if not sent.
    fn sack_try_emit(&mut self, ctx: &mut Ctx, start: u64, len: u64, fin: bool, budget: &mut u32, retx_left: &mut u32) -> bool {
        let retx = start < self.snd.max;
        if (retx && *retx_left == 0) || !self.pacing_allows(ctx) {
            return false;
        }
        self.emit(ctx, start, len, fin);
        *budget -= 1;
        *retx_left -= retx as u32;
        self.snd.scheme.sack().prr.sent(1);
        true
    }

    /// PRR runs in this flow's SACK recovery: asked for, with RFC 6675's
    /// pipe, and the controller does not set the window itself.
    pub(crate) fn prr_on(&self) -> bool {
        self.cfg.prr && !self.snd.scheme.sack_pipe_ns2() && !self.snd.caps.sets_recovery_cwnd
    }

    /// Before an ACK's SACK blocks and cumulative ACK are applied: the
    /// SACKed bytes and the lost boundary PRR compares with afterwards.
    pub(crate) fn prr_before_ack(&self) -> Option<(u64, u64)> {
        let s = &self.snd;
        (matches!(s.scheme, Scheme::Sack(_)) && self.prr_on()).then(|| (s.board.sacked_in(s.una, s.max), s.lost_boundary(self.cfg.dupthresh)))
    }

    /// After the ACK is applied (snd_una was `old_una`): what it delivered
    /// and whether it marked new losses, for PRR.
    pub(crate) fn prr_note_ack(&mut self, old_una: u64, (sacked_before, lost_before): (u64, u64)) {
        let s = &mut self.snd;
        let sacked = s.board.sacked_in(s.una, s.max);
        let delivered = (s.una - old_una + sacked).saturating_sub(sacked_before);
        let ack = PrrAck {
            delivered: delivered.div_ceil(s.smss()),
            una_advanced: s.una > old_una,
            newly_lost: s.lost_boundary(self.cfg.dupthresh) > lost_before.max(s.una),
        };
        s.scheme.sack().prr_ack = ack;
    }

    /// What `prr_note_ack` records for an ACK that acknowledges and SACKs
    /// nothing with nothing outstanding (the endpoint's quiet-ACK path).
    pub(crate) fn prr_note_quiet_ack(&mut self) {
        if self.prr_on() {
            if let Scheme::Sack(st) = &mut self.snd.scheme {
                st.prr_ack = PrrAck::default();
            }
        }
    }

    /// RFC 6937 on the ACK just processed: cwnd = pipe + sndcnt.
    pub(crate) fn prr_reduce(&mut self) {
        let s = &mut self.snd;
        let smss = s.smss();
        let pipe = s.pipe(self.cfg.dupthresh).div_ceil(smss);
        let ssthresh = s.w.ssthresh / smss;
        let st = s.scheme.sack();
        if let Some(n) = st.prr.sndcnt(st.prr_ack, ssthresh, pipe) {
            s.w.cwnd = (pipe + n) * smss;
        }
    }

    /// Resend the segment at snd_una on entering a SACK-based recovery and
    /// count it in HighRxt (RFC 6675 step 4; FACK does the same).
    pub(crate) fn retransmit_head_as_hole(&mut self, ctx: &mut Ctx) {
        let una = self.snd.una;
        if let Some((len, fin)) = self.next_len_at(una) {
            self.emit(ctx, una, len, fin);
            self.snd.scheme.set_high_rxt(una + len + fin as u64);
        }
    }

    /// RFC 6675 step (C): transmit while cwnd - pipe >= 1 SMSS (and the
    /// burst budget lasts).
    pub(crate) fn sack_send(&mut self, ctx: &mut Ctx, budget: &mut u32, retx_left: &mut u32) {
        if self.snd.scheme.sack_ref().ns2 {
            return self.sack_ns2_send(ctx, budget, retx_left);
        }
        while *budget > 0 {
            let s = &self.snd;
            let dt = self.cfg.dupthresh;
            let st = s.scheme.sack_ref();
            let pipe = s.pipe(dt);
            let by_credit = s.w.cwnd < pipe + s.smss();
            if by_credit && st.credit == 0 {
                break;
            }
            let Some((start, len, fin, rule)) = self.next_seg() else { break };
            if !self.sack_try_emit(ctx, start, len, fin, budget, retx_left) {
                break;
            }
            let st = self.snd.scheme.sack();
            if by_credit {
                st.credit -= 1;
            }
            let end = start + len + fin as u64;
            match rule {
                Rule::Relost => {
                    if let Some((_, to)) = self.snd.rack_relost {
                        self.snd.rack_relost = (end < to).then_some((end, to));
                    }
                }
                Rule::LostHole | Rule::OtherHole => st.high_rxt = st.high_rxt.max(end),
                Rule::Rescue => st.rescue_done = true,
                Rule::NewData => {}
            }
        }
    }

    /// RFC 6675 NextSeg().
    fn next_seg(&self) -> Option<(u64, u64, bool, Rule)> {
        let s = &self.snd;
        let st = s.scheme.sack_ref();
        let smss = s.smss();
        let lost = s.lost_boundary(self.cfg.dupthresh);
        let highest_sacked = s.board.highest().unwrap_or(s.una);
        // (0) RACK: a retransmission lost again
        if let Some((h, len, fin)) = self.relost_segment(s.rack_relost, s.max) {
            return Some((h, len, fin, Rule::Relost));
        }
        let hole = s.board.first_unsacked_from(st.high_rxt.max(s.una));
        // (1) the first lost hole not yet retransmitted
        // (IsLost implies data SACKed above; RACK's verdict does not)
        if hole < lost && (hole < highest_sacked || s.rack_lost_below > hole) {
            let (len, fin) = self.next_len_at(hole)?;
            return Some((hole, len, fin, Rule::LostHole));
        }
        // (2) new data, if the receiver's window allows
        if s.max < s.seq_end() {
            if let Some((len, fin)) = self.next_len_at(s.max) {
                if s.max + len <= s.una + s.send_window() || len == 0 {
                    return Some((s.max, len, fin, Rule::NewData));
                }
            }
        }
        // (3) any other hole below the highest SACKed byte
        if hole < highest_sacked {
            let (len, fin) = self.next_len_at(hole)?;
            return Some((hole, len, fin, Rule::OtherHole));
        }
        // (4) one rescue retransmission of the highest unSACKed data
        if self.cfg.rescue_retransmission && !st.rescue_done {
            let top = match s.board.blocks().last() {
                Some(&(bs, be)) if be >= s.max => bs,
                _ => s.max,
            }
            .min(s.data_end);
            if top > s.una {
                let below = s.board.blocks().iter().rev().find(|b| b.1 <= top).map_or(s.una, |b| b.1);
                let lo = top.saturating_sub(smss).max(below).max(s.una);
                let (len, fin) = self.next_len_at(lo)?;
                let len = len.min(top - lo);
                return Some((lo, len, fin && lo + len == s.data_end, Rule::Rescue));
            }
        }
        None
    }
}

