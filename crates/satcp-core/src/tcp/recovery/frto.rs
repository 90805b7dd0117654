//! F-RTO: detecting spurious retransmission timeouts, RFC 5682. The basic
//! algorithm (section 2), or the SACK-enhanced one (section 3) when SACK is
//! negotiated. Works beside any recovery scheme; off unless `frto = true`.
//!
//! 1. On a first expiry for a segment (not a repeated one, RFC 5682 section
//!    2.1 step 1), and not during fast recovery (its ACKs could make a real
//!    loss look spurious, section 3.2 notes the same for SACK), the timeout
//!    is handled as usual (ssthresh reduced, cwnd = 1 SMSS, the segment at
//!    snd.una retransmitted) and `recover` = the highest byte sent.
//! 2. First ACK after it: if it covers `recover`, or (basic version only)
//!    is a duplicate ACK, the timeout was genuine: carry on with the usual
//!    go-back-N slow start. If it advances snd.una without covering
//!    `recover`, send up to two new segments instead of resending old ones
//!    and wait for the next ACK (no new data or no receiver window: carry on
//!    as usual). In the SACK version a duplicate ACK here is waited out.
//! 3. Second ACK: if it acknowledges data sent before the timeout that was
//!    never retransmitted (snd.una moves, or with SACK a block below
//!    `recover` grows), the timeout was spurious; otherwise (a duplicate ACK,
//!    or SACK only of the new segments) it was genuine: cwnd = min(cwnd,
//!    3 SMSS) and the go-back-N resumes.
//!
//! Response to a spurious timeout (RFC 5682 leaves it open; section 4 names
//! the Eifel response, RFC 4015): the outstanding data is deemed not lost,
//! sending continues with new data, and the window is restored the way
//! RFC 4015 does it: ssthresh = max(FlightSize, ssthresh) as they were at the
//! timeout ("pipe_prev"), cwnd = FlightSize + min(bytes acknowledged, IW),
//! at least one SMSS (in bytes, short segments could make it less).
//! The sender then slow-starts back to where it was. The RTO keeps its
//! backed-off value until a valid sample arrives (Karn), which the new
//! segments give.

use crate::scenario::InitialWindow;
use crate::tcp::{Ctx, Endpoint};

#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
enum Stage {
    #[default]
    Off,
    /// Timeout handled, its retransmission not yet acknowledged (step 2).
    AwaitFirst,
    /// Two new segments sent, waiting for the deciding ACK (step 3).
    AwaitSecond,
}

#[derive(Clone, Copy, Debug, Default)]
pub struct Frto {
    stage: Stage,
    /// RFC 5682 "recover": one past the highest byte sent before the timeout.
    recover: u64,
    /// RFC 4015 pipe_prev = max(FlightSize, ssthresh) at the timeout.
    pipe_prev: u64,
}

impl Frto {
    pub fn active(&self) -> bool {
        self.stage != Stage::Off
    }
}

impl Endpoint {
    /// A retransmission timeout is about to be handled (before ssthresh and
    /// cwnd change).
    pub(crate) fn frto_on_rto(&mut self, in_fast_recovery: bool) {
        let s = &mut self.snd;
        let first = s.rto_streak == 1 && s.frto.stage == Stage::Off;
        s.frto = Frto::default();
        if self.cfg.frto && first && !in_fast_recovery {
            s.frto = Frto { stage: Stage::AwaitFirst, recover: s.max, pipe_prev: s.flight().max(s.w.ssthresh) };
        }
    }

    /// In step 3 the old data is neither resent nor declared lost yet.
    pub(crate) fn frto_holds_sending(&self) -> bool {
        self.snd.frto.stage == Stage::AwaitSecond
    }

    /// SACKed bytes below F-RTO's `recover` (0 when F-RTO is idle).
    pub(crate) fn frto_sacked_below_recover(&self) -> u64 {
        let s = &self.snd;
        if !s.frto.active() {
            return 0;
        }
        s.board.sacked_in(s.una, s.frto.recover.max(s.una))
    }

    /// An ACK arrived while F-RTO runs; snd.una has already moved from
    /// `prev_una`. `dup`: it neither moved snd.una nor carried data or a
    /// window change. `sacked_low`: bytes below `recover` it newly SACKed.
    pub(crate) fn frto_on_ack(&mut self, ctx: &mut Ctx, prev_una: u64, dup: bool, sacked_low: u64) {
        let sack_version = self.sack_ok;
        let f = self.snd.frto;
        let advanced = self.snd.una > prev_una;
        match f.stage {
            Stage::Off => {}
            Stage::AwaitFirst => {
                if self.snd.una >= f.recover || (dup && !sack_version) {
                    self.snd.frto.stage = Stage::Off;
                } else if advanced {
                    if self.frto_send_two_new(ctx) {
                        self.snd.frto.stage = Stage::AwaitSecond;
                    } else {
                        self.snd.frto.stage = Stage::Off;
                    }
                }
            }
            Stage::AwaitSecond => {
                if advanced || (sack_version && sacked_low > 0) {
                    self.frto_spurious(self.snd.una - prev_una);
                } else if dup {
                    self.snd.frto.stage = Stage::Off;
                    let s = &mut self.snd;
                    s.w.cwnd = s.w.cwnd.min(3 * s.smss());
                }
            }
        }
    }

    /// Step 2b: up to two previously unsent segments, within the receiver's
    /// window. Returns whether any was sent.
    fn frto_send_two_new(&mut self, ctx: &mut Ctx) -> bool {
        let mut sent = 0;
        while sent < 2 {
            let s = &self.snd;
            if s.max >= s.data_end {
                break;
            }
            let Some((len, fin)) = self.next_len_at(s.max) else { break };
            if s.max + len > s.una + s.peer_wnd {
                break;
            }
            let at = s.max;
            self.emit(ctx, at, len, fin);
            sent += 1;
        }
        sent > 0
    }

    /// Step 3b: the timeout was spurious. Eifel response (RFC 4015).
    fn frto_spurious(&mut self, acked: u64) {
        self.stats.spurious_rtos += 1;
        let iw = match self.cfg.initial_window {
            InitialWindow::Segments(n) => n as u64 * self.snd.smss(),
            InitialWindow::Rfc3390 => (4 * self.snd.smss()).min((2 * self.snd.smss()).max(4380)),
        };
        let s = &mut self.snd;
        s.w.ssthresh = s.frto.pipe_prev;
        // never below a segment: windows here are bytes, and with segments
        // shorter than the SMSS the sum can be (Linux counts packets)
        s.w.cwnd = (s.flight() + acked.min(iw)).max(s.smss());
        // nothing outstanding is lost: continue with new data, and let
        // recovery wait for the data outstanding at the timeout
        s.nxt = s.max;
        s.frto = Frto::default();
    }
}
