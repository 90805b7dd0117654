//! An established TCP receiver fed arbitrary segments.

use super::{tcp_cfg, Bytes};
use crate::net::packet::{FLAG_ACK, FLAG_FIN, FLAG_SYN};
use crate::net::{Packet, TcpHeader};
use crate::sim::{Event, EventQueue, Time};
use crate::tcp::endpoint::State;
use crate::tcp::intervals::IntervalSet;
use crate::tcp::{Ctx, Endpoint, Note};

const SETTINGS: &[&[&str]] = &[
    &["flows.0.tcp.variant=\"newreno\""],
    &["flows.0.tcp.variant=\"sack\""],
    &["flows.0.tcp.variant=\"sack\"", "flows.0.tcp.delayed_ack=false"],
    &["flows.0.tcp.profile=\"linux\"", "flows.0.tcp.variant=\"cubic\""],
    &["flows.0.tcp.profile=\"ns2\"", "flows.0.tcp.variant=\"newreno\""],
    &["flows.0.tcp.variant=\"sack\"", "flows.0.tcp.rwnd=\"20KB\"", "flows.0.tcp.window_scaling=false"],
];

/// Two endpoints joined without a link: `step` hands what one sent to the
/// other until nothing more is sent.
pub(super) struct Pair {
    pub eps: [Endpoint; 2],
    pub q: EventQueue,
    pub now: Time,
    out: Vec<Packet>,
    notes: Vec<Note>,
}

impl Pair {
    pub(super) fn new(cfg: &crate::scenario::TcpCfg) -> Self {
        Pair { eps: [Endpoint::new(0, 1, 0, 1, cfg), Endpoint::new(1, 0, 1, 0, cfg)], q: EventQueue::new(), now: 0, out: Vec::new(), notes: Vec::new() }
    }

    /// Run `f` on endpoint `ep`; return what it sent.
    pub(super) fn act(&mut self, ep: usize, f: &mut dyn FnMut(&mut Endpoint, &mut Ctx)) -> Vec<Packet> {
        {
            let mut ctx = Ctx { now: self.now, q: &mut self.q, out: &mut self.out, notes: &mut self.notes };
            f(&mut self.eps[ep], &mut ctx);
        }
        self.notes.clear();
        std::mem::take(&mut self.out)
    }

    /// Deliver `pkts` to their endpoints, and what they send in turn, until
    /// quiet (at most `rounds` rounds); return every packet seen.
    pub(super) fn exchange(&mut self, mut pkts: Vec<Packet>, rounds: usize) -> Vec<Packet> {
        let mut seen = Vec::new();
        for _ in 0..rounds {
            if pkts.is_empty() {
                break;
            }
            let mut next = Vec::new();
            for p in pkts {
                seen.push(p);
                next.extend(self.act(p.to_ep as usize, &mut |e, c| e.on_segment(c, &p)));
            }
            pkts = next;
        }
        seen
    }

    /// Connect endpoint 0 to listening endpoint 1; the client's SYN.
    pub(super) fn connect(&mut self) -> Packet {
        self.eps[1].listen(self.now);
        let syn = self.act(0, &mut |e, c| e.connect(c));
        let first = syn[0];
        self.exchange(syn, 4);
        first
    }

    /// Fire the timers due by `now` of endpoint `which` (others' are dropped).
    pub(super) fn timers(&mut self, which: usize) -> Vec<Packet> {
        let mut sent = Vec::new();
        while let Some(t) = self.q.peek_time() {
            if t > self.now {
                break;
            }
            let (_, ev) = self.q.pop().expect("peeked");
            if let Event::Timer { ep, kind } = ev {
                if ep as usize == which {
                    sent.extend(self.act(which, &mut |e, c| e.on_timer(c, kind)));
                }
            }
        }
        sent
    }
}

pub fn receiver(data: &[u8]) {
    let mut b = Bytes::new(data);
    let sets: Vec<String> = SETTINGS[b.pick(SETTINGS.len())].iter().map(|s| s.to_string()).collect();
    let mut cfg = tcp_cfg(&sets).expect("the receiver's settings are valid");
    cfg.iss = b.u32();
    let mut pair = Pair::new(&cfg);
    let syn = pair.connect();
    assert_eq!(pair.eps[1].state, State::Established);
    let iss = syn.tcp.seq;
    // the stream's true end (a FIN, if one is sent, sits there)
    let end: u64 = 1 + (b.u32() as u64 % 400_000);
    let mut given = IntervalSet::default();
    let (mut delivered, mut last_ack): (u64, Option<u32>) = (0, None);
    let mut fin_sent = false;
    for _ in 0..4000 {
        if b.done() {
            break;
        }
        let rcv_nxt = pair.eps[1].receive_state().nxt;
        match b.pick(8) {
            // time passes: delayed ACKs fire
            0 => {
                pair.now += b.u16() as Time * 10_000;
                let sent = pair.timers(1);
                check_acks(&sent, &mut last_ack);
                continue;
            }
            // a stray SYN anywhere, or a FIN outside the window (below what
            // was received, or beyond the right edge): both ignored
            1 => {
                let (syn, k) = (b.bool(), b.u16() as u64 + 1);
                let right = pair.eps[1].receive_state().right_edge + (1 << 14);
                let off = if syn { b.u32() as u64 } else if b.bool() { rcv_nxt.saturating_sub(k + 1) } else { right + k };
                let mut h = header(&mut b, iss.wrapping_add(off as u32));
                h.flags |= if syn { FLAG_SYN } else { FLAG_FIN };
                let p = Packet::tcp(0, 1, 1, h, 0, 0, false);
                let sent = pair.exchange(vec![p], 1);
                check_acks(&sent[1..], &mut last_ack);
            }
            mode => {
                // data near what the receiver expects, or anywhere in the
                // stream (absolute offsets: byte k is k + 1)
                let start = if mode < 5 {
                    (rcv_nxt as i64 + (b.u16() as i16 as i64) * 8).max(1) as u64
                } else {
                    1 + b.u32() as u64 % end
                };
                let start = start.min(end);
                let len = (b.u16() as u64 % 3000).min(end - start);
                let fin = start + len == end && b.u8() < 40;
                if fin && fin_sent {
                    // one FIN, always at the same place
                } else if len == 0 && !fin {
                    continue;
                }
                fin_sent |= fin;
                let mut h = header(&mut b, iss.wrapping_add(start as u32));
                if fin {
                    h.flags |= FLAG_FIN;
                }
                if len > 0 {
                    given.insert(start, start + len);
                }
                let p = Packet::tcp(0, 1, 1, h, len as u32, start, false);
                let sent = pair.exchange(vec![p], 1);
                check_acks(&sent[1..], &mut last_ack);
            }
        }
        let r = pair.eps[1].receive_state();
        // delivered in order, never back, never a byte not given
        assert!(r.bytes_delivered >= delivered, "delivered went back");
        delivered = r.bytes_delivered;
        assert!(delivered == 0 || given.covers(1, 1 + delivered), "delivered {delivered} bytes not all given");
        assert!(delivered < end, "delivered past the stream's end");
        assert_eq!(pair.eps[1].stats.integrity_errors, 0, "a segment placed at the wrong offset");
        // it holds no more than its window (window scaling rounds it)
        assert!(r.held <= r.buffer + (1 << 14), "holds {} bytes beyond a window of {}", r.held, r.buffer);
        if r.fin_received {
            assert!(fin_sent && delivered + 1 == end, "a FIN taken at the wrong place");
        }
    }
}

/// A header with an arbitrary ACK field, window and SACK blocks.
fn header(b: &mut Bytes, seq: u32) -> TcpHeader {
    let mut h = TcpHeader { seq, ack: b.u32(), wnd: b.u16(), flags: FLAG_ACK, ..Default::default() };
    let n = b.pick(5);
    let blocks: Vec<(u32, u32)> = (0..n).map(|_| (b.u32(), b.u32())).collect();
    h.set_sack(&blocks);
    h
}

/// The cumulative ACK the receiver sends never goes back.
fn check_acks(sent: &[Packet], last: &mut Option<u32>) {
    for p in sent.iter().filter(|p| p.to_ep == 0) {
        if let Some(prev) = *last {
            assert!(p.tcp.ack.wrapping_sub(prev) as i32 >= 0, "the cumulative ACK went back from {prev} to {}", p.tcp.ack);
        }
        *last = Some(p.tcp.ack);
    }
}
