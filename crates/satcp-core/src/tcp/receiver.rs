//! The receiving half of a TCP endpoint: reassembly, the advertised window,
//! SACK block generation (RFC 2018) and the delayed-ACK decision (RFC 1122
//! 4.2.3.2, RFC 5681 4.2).
//!
//! Choices:
//! * The application reads in-order data the moment it arrives, so zero
//!   windows never occur here (a router agent may still lower the window
//!   a sender sees below a segment: `tcp/window_probe.rs`). The right edge is
//!   rcv_nxt + buffer, out-of-order data sitting inside that window; or,
//!   with `ooo_takes_buffer` (the `linux` profile), out-of-order data takes
//!   room in the buffer as a kernel's skbs do, so the edge moves to
//!   rcv_nxt plus the buffer less the bytes held out of order, and never
//!   back (RFC 7323 2.4): in a recovery the sender's window then slides
//!   only by what the buffer frees.
//!   Measured against the kernel (docs/validation-linux.md): reno with SACK,
//!   a 786,432-byte window, 10 Mb/s, 250 ms, a 100-packet queue, 50 MB:
//!   Linux's advertised window fell from 784,992 to 640,992 bytes during
//!   the first recovery, which ended with the pipe far below cwnd and a
//!   burst that a second recovery followed (85.8 s); the edge at rcv_nxt +
//!   buffer kept the sender's flight up and recovered once (63.6 s).
//!   Held data counts in payload bytes: the kernel charges an skb's
//!   truesize to the buffer and offers a constant share of it as window, so
//!   payload takes window bytes one for one. Not modelled: the kernel's
//!   receiver-side silly-window avoidance while data is held
//!   (`__tcp_select_window` holds back small openings; satcp's edge moves by
//!   whatever is freed).
//! * Data beyond the advertised right edge is trimmed off (RFC 793).
//! * An ACK is sent at once for out-of-order data, for data that fills (part
//!   of) a hole, for duplicates (but with `delay_duplicate_ack`, ns-2's
//!   DelAck sink, not for a copy of the highest in-order segment, which it
//!   takes for new in-order data) and for a FIN; otherwise at least every
//!   `delayed_ack_segments` segments (counting segments of any size, as ns-2,
//!   ns-3 and OPNET count "maximum ACK segments") or when the delayed-ACK
//!   timer (started by the first unacknowledged segment) expires.
//! * SACK blocks: the first reports the block holding the segment just
//!   received, the rest repeat the most recently reported blocks (RFC 2018
//!   section 4). No D-SACK.
//! * DAASS (`TcpCfg::daass_segments`, RFC 2760 section 3.3 as TRANSAT used
//!   it): each of the first N segments carrying data is ACKed at once. Every
//!   arriving data segment counts (in order, out of order, duplicates), the
//!   SYN does not, and the count never restarts (TRANSAT ACKs "the first ten
//!   segments" of the connection; a receiver cannot see when a later slow
//!   start begins).
//! * Linux's receive window (profile `linux`, or `rwnd = "auto"`): it opens
//!   from the initial window as Linux opens it, segment by segment under a
//!   clamp that Dynamic Right-Sizing raises once a round trip, with a
//!   quick ACK for every segment that opens it and sixteen at the start
//!   (`tcp/receive_buffer.rs`). A fixed buffer (the other profiles) offers
//!   its whole size from the start.

use super::intervals::IntervalSet;
use super::receive_buffer::LinuxWindow;
use crate::net::packet::MAX_SACK_BLOCKS;
use crate::sim::Time;

#[derive(Clone, Debug, Default)]
pub struct Receiver {
    /// Next in-order absolute offset expected.
    pub(in crate::tcp) nxt: u64,
    /// Out-of-order data held, all above `nxt`.
    ooo: IntervalSet,
    /// Recently received out-of-order ranges, most recent first.
    recent: Vec<(u64, u64)>,
    /// Bytes of the advertised window (the receive buffer).
    pub(in crate::tcp) buffer: u64,
    /// Linux's window (`buffer` follows it); None: a fixed buffer.
    linux: Option<LinuxWindow>,
    /// Out-of-order data takes room in the buffer (see the module doc).
    pub(in crate::tcp) ooo_takes_buffer: bool,
    /// With `ooo_takes_buffer`, the furthest right edge a sent segment
    /// has offered (the endpoint notes it as each ACK leaves).
    edge: u64,
    pub(in crate::tcp) fin_at: Option<u64>,
    pub(in crate::tcp) fin_received: bool,
    /// Segments received since the last ACK was sent.
    pub(in crate::tcp) unacked_segments: u32,
    /// Highest absolute offset received (in order or not), exclusive.
    pub(in crate::tcp) high: u64,
    /// Data bytes that arrived (duplicates and retransmissions included).
    pub(in crate::tcp) bytes_arrived: u64,
    /// Data bytes delivered in order.
    pub(in crate::tcp) bytes_delivered: u64,
    /// Segments with payload that arrived (duplicates included): DAASS
    /// counts these.
    pub(in crate::tcp) data_segments: u64,
    /// In-order bytes delivered that the application has not read yet
    /// (`tcp/deferred_read.rs`); always 0 for an application that reads
    /// at once.
    pub(in crate::tcp) unread: u64,
}

/// How an arriving segment relates to what was held.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Arrival {
    /// New in-order bytes delivered to the application by this segment.
    pub delivered: u64,
    pub out_of_order: bool,
    /// It advanced rcv_nxt while out-of-order data was held.
    pub filled_hole: bool,
    /// Nothing in it was new.
    pub duplicate: bool,
    /// A duplicate that ends at rcv_nxt with nothing held above it: a copy
    /// of the highest in-order segment (ns-2's DelAck sink cannot tell it
    /// from new in-order data).
    pub duplicate_of_last: bool,
    /// It carried the FIN, now in order.
    pub fin_now_in_order: bool,
    /// Linux's window opened on it.
    pub window_grew: bool,
}

impl Receiver {
    pub fn new(buffer: u64) -> Self {
        Receiver { buffer, ..Default::default() }
    }

    /// Linux's window (`tcp/receive_buffer.rs`) for segments of `mss`
    /// bytes.
    pub fn linux(w: LinuxWindow) -> Self {
        Receiver { buffer: w.window, linux: Some(w), ..Default::default() }
    }

    /// The connection is established at `now` (Linux's window starts
    /// measuring what the application reads).
    pub fn established(&mut self, now: Time) {
        if let Some(l) = &mut self.linux {
            l.established(now, self.bytes_delivered);
        }
    }

    /// A data segment of `len` bytes arrived at `now`, with the timestamp
    /// clock reading and the echo it carried (`ts`, if the option is on);
    /// `rto` is this end's retransmission timeout: Linux's receiver
    /// samples its round trip and gives quick ACKs at the first data and
    /// after a silence.
    pub fn data_arrived(&mut self, now: Time, len: u64, ts: Option<(u32, u32)>, rto: Time) {
        if let Some(l) = &mut self.linux {
            l.on_data(now, len, ts, rto);
        }
    }

    /// The application has read everything delivered, at `now` (Linux's
    /// Right-Sizing).
    pub fn app_read(&mut self, now: Time) {
        if let Some(l) = &mut self.linux {
            // what the application has read: all delivered, less what a
            // deferred reader (`tcp/deferred_read.rs`) has left unread
            l.read(now, self.nxt, self.bytes_delivered - self.unread);
        }
    }

    /// Whether the next ACK goes at once (Linux's quick ACKs).
    pub fn quickack(&self) -> bool {
        self.linux.as_ref().is_some_and(LinuxWindow::quickack)
    }

    /// An ACK of new data went out.
    pub fn ack_sent(&mut self) {
        if let Some(l) = &mut self.linux {
            l.ack_sent();
        }
    }

    /// With `ooo_takes_buffer` set as given (see the module doc).
    pub fn taking_buffer_for_ooo(self, yes: bool) -> Self {
        Receiver { ooo_takes_buffer: yes, ..self }
    }

    /// The window offered beyond rcv_nxt (see the module doc).
    pub fn window(&self) -> u64 {
        let free = self.free_for_window();
        if !self.ooo_takes_buffer {
            return free;
        }
        (self.nxt + free.saturating_sub(self.held())).max(self.edge) - self.nxt
    }

    /// The window the buffer offers before out-of-order data: a fixed
    /// buffer less what the application has not read; Linux's window
    /// bound (`rcv_ssthresh`) within the buffer's free part, the clamp
    /// less what is unread (`__tcp_select_window`: the window is the free
    /// space, at most `rcv_ssthresh`). With nothing unread (an application
    /// that reads at once) both are the buffer.
    fn free_for_window(&self) -> u64 {
        match &self.linux {
            Some(l) if self.unread > 0 => self.buffer.min(l.clamp().saturating_sub(self.unread)),
            _ => self.buffer.saturating_sub(self.unread),
        }
    }

    pub fn right_edge(&self) -> u64 {
        self.nxt + self.window()
    }

    /// The sender was offered data up to `edge` (with `ooo_takes_buffer`,
    /// the edge never moves back from there).
    pub fn offered(&mut self, edge: u64) {
        self.edge = self.edge.max(edge);
    }

    /// Bytes held out of order.
    pub fn held(&self) -> u64 {
        self.ooo.total()
    }

    pub fn has_ooo(&self) -> bool {
        !self.ooo.is_empty()
    }

    /// Take in payload [seq, seq + len) and a FIN after it if `fin`.
    /// `limit` is the advertised right edge; bytes beyond it are dropped.
    pub fn on_segment(&mut self, seq: u64, len: u64, fin: bool, limit: u64) -> Arrival {
        let mut a = Arrival {
            delivered: 0,
            out_of_order: false,
            filled_hole: false,
            duplicate: false,
            duplicate_of_last: false,
            fin_now_in_order: false,
            window_grew: false,
        };
        let end = seq + len;
        self.bytes_arrived += len;
        self.data_segments += (len > 0) as u64;
        // a FIN counts inside the window only (one below what was received,
        // or beyond what may be sent, is no peer's end of stream); of two,
        // the lower is reached first, as a TCP's out-of-order queue would
        if fin && end >= self.nxt && end <= limit && !self.fin_received {
            self.fin_at = Some(self.fin_at.map_or(end, |f| f.min(end)));
        }
        let (s, e) = (seq.max(self.nxt), end.min(limit));
        let new_data = s < e && !self.covered(s, e);
        if s < e && new_data {
            self.high = self.high.max(e);
            if s == self.nxt {
                let had_ooo = !self.ooo.is_empty();
                self.nxt = e;
                // pull in held intervals now contiguous
                while let Some((_, he)) = self.ooo.pop_first_if_starts_by(self.nxt) {
                    self.nxt = self.nxt.max(he);
                }
                a.filled_hole = had_ooo;
                a.delivered = self.nxt - s;
                self.bytes_delivered += a.delivered;
                // unread data takes room as held data does (`tcp_space`)
                let held = self.held() + self.unread;
                if let Some(l) = &mut self.linux {
                    a.window_grew = l.grow(len, held);
                    self.buffer = l.window;
                }
                self.recent.retain(|&(_, re)| re > self.nxt);
            } else {
                a.out_of_order = true;
                self.ooo.insert(s, e);
                self.recent.retain(|&(rs, re)| !(rs >= s && re <= e));
                self.recent.insert(0, (s, e));
                self.recent.truncate(MAX_SACK_BLOCKS);
            }
        } else if len > 0 {
            a.duplicate = true;
            if seq > self.nxt {
                a.out_of_order = true;
            }
            a.duplicate_of_last = end == self.nxt && self.ooo.is_empty();
        }
        if let Some(f) = self.fin_at {
            if !self.fin_received && self.nxt == f {
                self.fin_received = true;
                self.nxt += 1; // the FIN occupies one sequence number
                a.fin_now_in_order = true;
            }
        }
        a
    }

    fn covered(&self, s: u64, e: u64) -> bool {
        e <= self.nxt || self.ooo.covers(s, e)
    }


    /// SACK blocks to send now, most recent first (absolute offsets).
    pub fn sack_blocks(&self, max: usize) -> ([(u64, u64); MAX_SACK_BLOCKS], usize) {
        let mut out = [(0, 0); MAX_SACK_BLOCKS];
        let mut n = 0;
        for &(rs, _) in &self.recent {
            if n >= max {
                break;
            }
            if let Some(blk) = self.ooo.containing(rs) {
                if !out[..n].contains(&blk) {
                    out[n] = blk;
                    n += 1;
                }
            }
        }
        (out, n)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Linux's window opens on in-order segments only (two segments per
    /// segment while there is room), never on out-of-order ones; a fixed
    /// buffer never moves.
    #[test]
    fn linux_s_window_opens_on_in_order_segments() {
        use super::super::receive_buffer::LinuxWindow;
        let mut r = Receiver::linux(LinuxWindow::locked(100_000, 1000));
        r.nxt = 1;
        assert_eq!(r.buffer, 80_896);
        assert!(r.on_segment(1, 1000, false, u64::MAX).window_grew);
        assert_eq!(r.buffer, 82_896);
        assert!(!r.on_segment(2001, 1000, false, u64::MAX).window_grew, "out of order");
        assert_eq!(r.buffer, 82_896);
        // the hole filled: one segment opens it once, not per byte delivered
        assert!(r.on_segment(1001, 1000, false, u64::MAX).window_grew);
        assert_eq!(r.buffer, 84_896);
        for k in 0..20 {
            r.on_segment(3001 + 1000 * k, 1000, false, u64::MAX);
        }
        assert_eq!(r.buffer, 100_000, "at its size it opens no further");
        assert!(!r.on_segment(23_001, 1000, false, u64::MAX).window_grew);
        let mut f = Receiver::new(5000);
        f.nxt = 1;
        assert!(!f.on_segment(1, 1000, false, u64::MAX).window_grew);
        assert_eq!(f.buffer, 5000);
    }

    #[test]
    fn a_copy_of_the_highest_in_order_segment_is_told_apart() {
        let mut r = Receiver::new(100_000);
        r.nxt = 1;
        r.on_segment(1, 100, false, u64::MAX);
        r.on_segment(101, 100, false, u64::MAX);
        let last = r.on_segment(101, 100, false, u64::MAX);
        assert!(last.duplicate && last.duplicate_of_last);
        let older = r.on_segment(1, 100, false, u64::MAX);
        assert!(older.duplicate && !older.duplicate_of_last);
        // with data held above a hole it is not the last: ns-2 ACKs at once
        r.on_segment(301, 100, false, u64::MAX);
        let held = r.on_segment(101, 100, false, u64::MAX);
        assert!(held.duplicate && !held.duplicate_of_last);
    }

    #[test]
    fn in_order_and_hole_filling() {
        let mut r = Receiver::new(100_000);
        r.nxt = 1;
        let a = r.on_segment(1, 100, false, u64::MAX);
        assert_eq!((a.delivered, a.out_of_order, a.filled_hole), (100, false, false));
        let b = r.on_segment(201, 100, false, u64::MAX);
        assert!(b.out_of_order && b.delivered == 0);
        let c = r.on_segment(401, 100, false, u64::MAX);
        assert!(c.out_of_order);
        // SACK: most recent block first
        let (blk, n) = r.sack_blocks(4);
        assert_eq!(&blk[..n], &[(401, 501), (201, 301)]);
        let d = r.on_segment(101, 100, false, u64::MAX);
        assert!(d.filled_hole);
        assert_eq!(d.delivered, 200);
        assert_eq!(r.nxt, 301);
        let (blk, n) = r.sack_blocks(4);
        assert_eq!(&blk[..n], &[(401, 501)]);
        let e = r.on_segment(101, 100, false, u64::MAX);
        assert!(e.duplicate && e.delivered == 0);
        assert_eq!(r.bytes_delivered, 300);
        assert_eq!(r.bytes_arrived, 500);
    }

    #[test]
    fn fin_in_order_only_after_all_data() {
        let mut r = Receiver::new(10_000);
        r.nxt = 1;
        let a = r.on_segment(101, 50, true, u64::MAX);
        assert!(!a.fin_now_in_order && !r.fin_received);
        let b = r.on_segment(1, 100, false, u64::MAX);
        assert!(b.fin_now_in_order);
        assert_eq!(r.nxt, 152);
        assert_eq!(r.bytes_delivered, 150);
    }

    #[test]
    fn data_beyond_the_window_is_trimmed() {
        let mut r = Receiver::new(150);
        r.nxt = 1;
        let limit = r.right_edge();
        let a = r.on_segment(1, 200, false, limit);
        assert_eq!(a.delivered, 150);
        assert_eq!(r.nxt, 151);
    }

    #[test]
    fn sack_blocks_merge_and_cap() {
        let mut r = Receiver::new(1 << 20);
        r.nxt = 1;
        for k in 0..6u64 {
            r.on_segment(1 + 200 * (k + 1), 100, false, u64::MAX);
        }
        let (blk, n) = r.sack_blocks(4);
        assert_eq!(n, 4);
        assert_eq!(blk[0], (1201, 1301));
        // a segment bridging two held blocks reports the merged block first
        r.on_segment(1101, 100, false, u64::MAX);
        let (blk, n) = r.sack_blocks(4);
        assert_eq!(blk[0], (1001, 1301));
        assert!(!blk[1..n].contains(&(1001, 1301)));
    }

    /// Out-of-order data takes room: a partly filled hole moves the edge by
    /// what the buffer freed, not by rcv_nxt's advance, and the edge never
    /// moves back; without the rule the edge is rcv_nxt + buffer.
    #[test]
    fn held_data_takes_room_and_the_edge_never_moves_back() {
        for takes in [false, true] {
            let mut r = Receiver::new(10_000);
            r.ooo_takes_buffer = takes;
            let seg = |r: &mut Receiver, s: u64, e: u64| {
                let limit = r.right_edge();
                r.on_segment(s, e - s, false, limit);
                let edge = r.right_edge();
                r.offered(edge);
                edge
            };
            assert_eq!(seg(&mut r, 0, 1000), 11_000);
            // 6000 held beyond a hole at [1000, 2000) and [3000, 4000)
            assert_eq!(seg(&mut r, 2000, 3000), 11_000);
            assert_eq!(seg(&mut r, 4000, 9000), 11_000);
            assert_eq!(r.window(), 10_000);
            // the first hole filled: rcv_nxt 3000, 5000 still held
            let edge = seg(&mut r, 1000, 2000);
            assert_eq!(edge, if takes { 11_000 } else { 13_000 });
            // the second: nothing held, the whole buffer free
            assert_eq!(seg(&mut r, 3000, 4000), 19_000);
        }
    }
}
