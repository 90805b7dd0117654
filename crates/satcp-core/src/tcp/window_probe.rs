//! Probing a window too small for the next segment (RFC 9293 3.8.6.1, RFC
//! 1122 4.2.2.17; Linux's zero-window probe timer, `tcp_probe_timer` and
//! `tcp_write_wakeup` in net/ipv4/tcp_timer.c and tcp_output.c).
//!
//! satcp's receiver reads in order the moment data arrives, so its own
//! window never closes; but a router agent may rewrite the advertised
//! window (XFWA's feedback, the window clamp) below the next segment's
//! length. With nothing in flight no ACK will come to open it, and a
//! sender that only sends segments that fit waits for ever. A real sender
//! does not: when it has data, nothing outstanding and a window that holds
//! less than the next segment, it arms the probe timer (Linux: the
//! retransmission timer's slot, at the current RTO with its backoff) and at
//! its expiry sends what the window holds (`tcp_write_wakeup` cuts the
//! segment to the window), or, into a window of zero, one byte of new data
//! (RFC 9293 allows a probe of one octet; Linux sends a zero-length segment
//! below snd.una instead, whose only effect is the ACK that carries the
//! window, which the byte's ACK carries too). The probe then travels as
//! data: its ACK moves snd.una and sending resumes, or the timer is armed
//! again. A probe's expiry is not a retransmission timeout (Linux counts
//! it apart): it backs the timer off but counts no timeout and changes no
//! window. Scenarios where no window is ever below a segment never arm it.

use super::limits::Limit;
use super::{Ctx, Endpoint, State};

impl Endpoint {
    /// Whether the sender is stalled by the peer's window alone: data (or
    /// the FIN) waits, nothing is in flight, and the window does not hold
    /// the next segment.
    pub(crate) fn stalled_by_window(&self, why: Limit) -> bool {
        let s = &self.snd;
        self.state == State::Established && why == Limit::Rwnd && s.una >= s.max && s.nxt < s.seq_end()
    }

    /// After an attempt to send: arm the probe timer if the window stalls
    /// the sender (the retransmission timer's slot, idle then).
    pub(crate) fn arm_window_probe(&mut self, ctx: &mut Ctx, why: Limit) {
        if self.stalled_by_window(why) && !self.rto_timer.is_running() {
            self.restart_rto(ctx);
        }
    }

    /// The probe timer expired with the sender still stalled: send what
    /// the window holds of the next segment, or one byte into a closed
    /// window, and back the timer off. A probe byte still unanswered is
    /// taken back first (it goes again, as the same byte).
    pub(crate) fn window_probe(&mut self, ctx: &mut Ctx) {
        if self.snd.zero_window_probe_out() {
            self.snd.take_back_zero_window_probe();
        }
        let s = &self.snd;
        let at = s.nxt;
        let Some((len, fin)) = self.next_len_at(at) else { return };
        let room = (s.una + s.send_window()).saturating_sub(at);
        let cut = if room == 0 { 1 } else { len.min(room) };
        self.snd.rtt.backoff();
        self.emit_segment(ctx, at, cut, fin && cut == len, true);
        if room == 0 {
            self.snd.zero_window_probe = Some(self.snd.max);
        }
    }

    /// An ACK that did not cover the probe byte sent into a closed window
    /// and whose window still cannot take it: the receiver refused the
    /// byte (a receiver answers a segment beyond its window at once, with
    /// its window). Take it back (snd.nxt and snd.max to snd.una: the byte
    /// goes again in order, never a hole) and re-arm the probe timer from
    /// now at its backed-off value (Linux's `tcp_ack_probe`). Called once
    /// the ACK's window is taken, before duplicate ACKs are judged: with
    /// nothing outstanding the answer is no duplicate.
    pub(crate) fn take_back_refused_probe(&mut self, ctx: &mut Ctx, ack: u64) {
        let s = &self.snd;
        if s.zero_window_probe_out() && ack < s.max && s.una + s.send_window() < s.max {
            self.snd.take_back_zero_window_probe();
            self.restart_rto(ctx);
        }
    }
}
