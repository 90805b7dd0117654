//! Probing a window too small for the next segment (RFC 9293 3.8.6.1, RFC
//! 1122 4.2.2.17; Linux's zero-window probe timer, `tcp_probe_timer` and
//! `tcp_write_wakeup` in net/ipv4/tcp_timer.c and tcp_output.c; BSD's
//! persist timer, `tcp_setpersist` and the zero-window branch of
//! `tcp_output`).
//!
//! A receiver's window closes when its application does not read (a
//! PEP's ends, `tcp/deferred_read.rs`), or a router agent rewrites the
//! advertised window (XFWA's feedback, the window clamp) below the next
//! segment's length. With nothing in flight no ACK will come to open it,
//! and a sender that only sends segments that fit waits for ever. A real
//! sender does not: when it has data, nothing outstanding and a window
//! that holds less than the next segment, it arms the probe timer (Linux:
//! the retransmission timer's slot, at the current RTO with its backoff)
//! and at its expiry probes.
//!
//! * **Linux** sends what a window above zero holds (`tcp_write_wakeup`
//!   cuts the segment to the window); into a window of zero it sends a
//!   segment with no new data at snd.una - 1 (`tcp_xmit_probe_skb`), which
//!   the receiver, finding it below its window, answers with an ACK
//!   carrying its window; nothing is outstanding, so no answer is a
//!   duplicate ACK and no byte can be left behind.
//! * **BSD** sends one byte of new data into a zero window (RFC 9293
//!   allows a probe of one octet) from its persist timer. The receiver
//!   trims a byte beyond its window and answers with window 0; `tcp_output`
//!   then finds the window zero with data past snd.una outstanding, cancels
//!   the retransmission timer, pulls snd.nxt back to snd.una and keeps the
//!   persist timer going, so the byte is sent again, in order, when the
//!   window opens: never a hole, never a retransmission timeout.
//! * **satcp** sends BSD's one byte (a receiver needs no rule for
//!   segments below its window) and takes a refused probe back as BSD
//!   does: an ACK that does not cover the probe and whose window still
//!   cannot take it sets snd.nxt and snd.max back to snd.una (the byte
//!   was never accepted, so its send records go too: it is sent again as
//!   the new data it is, not counted as a retransmission; BSD keeps
//!   snd.max and counts the resend as one) and re-arms the probe timer
//!   from the ACK at its backed-off value (Linux's `tcp_ack_probe`). The
//!   answer, with nothing outstanding, is no duplicate ACK. A probe the
//!   timer finds still unanswered is taken back and sent again (backed
//!   off) rather than handled as a timeout. A probe's expiry counts no
//!   timeout, changes no window and is not a retransmission (Linux counts
//!   probes apart); it backs the timer off. No limit on unanswered probes
//!   (Linux's `tcp_retries2` abort) is modelled.
//! * The first data sent once the window opens (nothing outstanding
//!   before it) restarts the retransmission timer from now, replacing the
//!   probe timer in the shared slot (Linux: `tcp_ack_probe` clears the
//!   probe timer and `tcp_event_new_data_sent` re-arms the RTO when no
//!   packet was out; RFC 6298 5.1 starts the retransmission timer, which
//!   the persist timer is not). Before this rule the slot kept the probe's
//!   deadline, which could fall a fraction of a round trip after the
//!   data left: a spurious timeout, or (with TLP, whose timeout is capped
//!   by the RTO's) a tail loss probe resending data never lost. That was
//!   the unexplained probe of a loss-free PEP run (docs/models/pep.md).
//! * An ACK that opens the window without covering the probe (the probe
//!   crossed it, or its answer was lost) leaves it in place, as BSD does:
//!   if it was refused it is a hole that loss recovery repairs.
//!
//! Before this rule satcp's probe byte stayed sent: the sender resumed
//! after it, so every closing of a PEP's window left a hole (SACK blocks,
//! a fast recovery each time) and an unanswered probe ran into the
//! retransmission timeout. Scenarios where no window is ever below a
//! segment never arm the timer.

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
