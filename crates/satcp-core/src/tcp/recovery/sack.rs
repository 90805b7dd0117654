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
//! * TCP-ADaLR SACK (`tcp/cc/adalr.rs`): each partial ACK lets one
//!   segment go beyond cwnd - pipe (the thesis' +2 instead of +1 SMSS);
//!   with `adalr_fr_guard = "full"` the ACK ending recovery sets cwnd =
//!   cwnd - acked + 2 SMSS (2 SMSS if cwnd <= acked) instead.
//! * After an RTO the scoreboard is kept (RFC 6675 5.1) so go-back-N skips
//!   SACKed data, and recovery is not re-entered before RecoveryPoint.

use crate::scenario::AdalrFrGuard;
use crate::tcp::cc::adalr::Adalr;
use crate::tcp::{Ctx, Endpoint};

/// Which NextSeg() rule produced a segment.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum Rule {
    LostHole,
    NewData,
    OtherHole,
    Rescue,
}

impl Endpoint {
    pub(crate) fn sack_new_ack(&mut self, _ctx: &mut Ctx, acked: u64) -> bool {
        let s = &mut self.snd;
        let adalr_guard = s.cc.adalr().map(|a| a.cfg.fr_guard);
        if s.in_recovery {
            if s.una >= s.recover {
                s.in_recovery = false;
                s.dupacks = 0;
                if adalr_guard == Some(AdalrFrGuard::Full) {
                    s.w.cwnd = Adalr::deflate(&s.w, acked);
                }
                if let Some(a) = s.cc.adalr_mut() {
                    a.sack_credit = 0;
                }
            } else if adalr_guard == Some(AdalrFrGuard::Partial) {
                if let Some(a) = s.cc.adalr_mut() {
                    a.sack_credit = 1;
                }
            }
        } else {
            s.dupacks = 0;
            self.grow_window(acked);
        }
        true
    }

    pub(crate) fn sack_dupack(&mut self, ctx: &mut Ctx) {
        if self.snd.in_recovery {
            return;
        }
        self.snd.dupacks += 1;
        let s = &self.snd;
        let dt = self.cfg.dupthresh;
        let head_lost = s.board.lost_below(s.una, dt, s.smss() as u32) > s.una;
        if (s.dupacks >= dt || head_lost) && s.una >= s.recover {
            self.sack_enter(ctx);
        }
    }

    fn sack_enter(&mut self, ctx: &mut Ctx) {
        let s = &mut self.snd;
        s.recover = s.max;
        let flight = s.flight_for_ssthresh();
        s.w.ssthresh = s.cc.ssthresh_after_loss(&s.w, flight);
        s.w.cwnd = s.w.ssthresh;
        s.high_rxt = s.una;
        s.rescue_done = false;
        s.in_recovery = true;
        self.stats.fast_recoveries += 1;
        self.retransmit_head_as_hole(ctx);
    }

    /// Resend the segment at snd_una on entering a SACK-based recovery and
    /// count it in HighRxt (RFC 6675 step 4; FACK does the same).
    pub(crate) fn retransmit_head_as_hole(&mut self, ctx: &mut Ctx) {
        let una = self.snd.una;
        if let Some((len, fin)) = self.next_len_at(una) {
            self.emit(ctx, una, len, fin);
            self.snd.high_rxt = una + len + fin as u64;
        }
    }

    /// RFC 6675 step (C): transmit while cwnd - pipe >= 1 SMSS (and the
    /// burst budget lasts).
    pub(crate) fn sack_send(&mut self, ctx: &mut Ctx, budget: &mut u32, retx_left: &mut u32) {
        while *budget > 0 {
            let s = &self.snd;
            let dt = self.cfg.dupthresh;
            let pipe = s.board.pipe(s.una, s.max, s.high_rxt, dt, s.smss() as u32);
            let credit = s.cc.adalr().map_or(0, |a| a.sack_credit);
            let by_credit = s.w.cwnd < pipe + s.smss();
            if by_credit && credit == 0 {
                break;
            }
            let Some((start, len, fin, rule)) = self.next_seg() else { break };
            let retx = start < self.snd.max;
            if retx && *retx_left == 0 {
                break;
            }
            if !self.pacing_allows(ctx) {
                break;
            }
            self.emit(ctx, start, len, fin);
            *budget -= 1;
            *retx_left -= retx as u32;
            if by_credit {
                if let Some(a) = self.snd.cc.adalr_mut() {
                    a.sack_credit -= 1;
                }
            }
            let end = start + len + fin as u64;
            match rule {
                Rule::LostHole | Rule::OtherHole => self.snd.high_rxt = self.snd.high_rxt.max(end),
                Rule::Rescue => self.snd.rescue_done = true,
                Rule::NewData => {}
            }
        }
    }

    /// RFC 6675 NextSeg().
    fn next_seg(&self) -> Option<(u64, u64, bool, Rule)> {
        let s = &self.snd;
        let smss = s.smss();
        let lost = s.board.lost_below(s.una, self.cfg.dupthresh, smss as u32);
        let highest_sacked = s.board.highest().unwrap_or(s.una);
        let hole = s.board.first_unsacked_from(s.high_rxt.max(s.una));
        // (1) the first lost hole not yet retransmitted
        if hole < lost && hole < highest_sacked {
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
        if self.cfg.rescue_retransmission && !s.rescue_done {
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
