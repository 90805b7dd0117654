//! An application that reads delivered data when it chooses, not the
//! moment it arrives: what a relay does (a split-TCP proxy reads from one
//! connection only as the other acknowledges, `pep/`), so that its
//! receive window closes as its buffer fills (back-pressure).
//!
//! * Bytes delivered in order and not yet read (`unread`) take room in the
//!   receive buffer: the window offered is the buffer less them (and less
//!   out-of-order data under `ooo_takes_buffer`). Data arriving in order
//!   moves rcv_nxt and `unread` alike, so the right edge offered never
//!   moves left (RFC 7323 2.4); a full buffer offers a zero window and the
//!   sender probes it (`tcp/window_probe.rs`).
//! * A read that opens the window sends a window update when Linux's
//!   `tcp_cleanup_rbuf` (net/ipv4/tcp.c) would: the window offered now is
//!   at most half the buffer and the new one is at least twice it (any
//!   opening of a zero window). Otherwise the next ACK carries it.
//! * `note_acks` asks for a `Note::Acked` at every ACK of new data (how
//!   much of what was written the peer holds), so that a relay frees its
//!   buffer by what the next hop has taken.
//!
//! * Under Linux's receive window (`tcp/receive_buffer.rs`), unread bytes
//!   take room as in the kernel (`tcp_space`): the window offered is the
//!   smaller of its bound and the clamp less what is unread, the bound
//!   grows only within that room, and Right-Sizing measures what the
//!   application reads (at each read, as `tcp_recvmsg` calls
//!   `tcp_rcv_space_adjust`), not what arrives.
//!
//! An endpoint never asked for either behaves as before (the application
//! reads at once, no notes): the flags are false and `unread` stays 0.

use super::{Ctx, Endpoint};

impl Endpoint {
    /// The application will read delivered data itself (`read`).
    pub fn defer_reads(&mut self) {
        self.deferred_read = true;
    }

    /// Leave a `Note::Acked` at every ACK of new data.
    pub fn note_acks(&mut self) {
        self.notes_acked = true;
    }

    /// The send buffer Linux would size for this end now, in payload
    /// bytes (`tcp_sndbuf_expand`, net/ipv4/tcp_input.c): twice the larger
    /// of 10 segments (`TCP_INIT_CWND`) and the congestion window. The
    /// kernel sizes it in memory for one skb per segment (a segment's
    /// memory rounded up to a power of two plus the skb's own); counted
    /// here in payload bytes, the share a segmentation-offloaded skb's
    /// payload has of its memory being close to one.
    pub fn linux_send_buffer(&self) -> u64 {
        let mss = self.snd.smss();
        2 * self.snd.w.cwnd.max(10 * mss)
    }

    /// Bytes delivered and not yet read.
    pub fn unread(&self) -> u64 {
        self.rcv.unread
    }

    /// The application reads `n` of the bytes delivered (at most those
    /// unread); a window update goes out if the window opened enough.
    pub fn read(&mut self, ctx: &mut Ctx, n: u64) {
        debug_assert!(self.deferred_read, "read() on an endpoint that reads at once");
        let n = n.min(self.rcv.unread);
        if n == 0 {
            return;
        }
        let before = self.adv_right_edge() - self.rcv.nxt;
        self.rcv.unread -= n;
        // Linux's Right-Sizing counts what the application reads
        self.rcv.app_read(ctx.now);
        let after = self.adv_right_edge() - self.rcv.nxt;
        let established = self.state == super::State::Established;
        if established && !self.rcv.fin_received && 2 * before <= self.rcv.buffer && after > before && after >= 2 * before {
            self.send_pure_ack(ctx);
        }
    }
}
