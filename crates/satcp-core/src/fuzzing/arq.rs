//! The link-layer ARQ's two ends with frames lost, duplicated, reordered
//! and forged, and link ACKs forged. Forged frames that look right may
//! reach IP (a checksum tells them apart, not the ARQ); every genuine
//! packet reaches it at most once and in order, and nothing hangs or holds
//! more than its window whatever is forged.

use super::Bytes;
use crate::net::link::arq::selective_repeat::{ArqParams, ArqReceiver, ArqSender, Frame, LinkAck, MAX_ACK_BLOCKS};
use crate::net::packet::TcpHeader;
use crate::net::Packet;
use crate::sim::Time;

pub fn arq(data: &[u8]) {
    let mut b = Bytes::new(data);
    let timeout_ns = 1_000_000 * (1 + b.u8() as u64);
    let persistence = b.pick(5) as u32;
    let p = ArqParams {
        persistence,
        window: 1 + b.pick(64) as u32,
        timeout_ns,
        reseq_timeout_ns: (persistence as u64 + 1) * timeout_ns,
        header_bytes: 8,
        ack_bytes: 40,
        ack_blocks: 1 + b.pick(MAX_ACK_BLOCKS),
    };
    let mut snd = ArqSender::new(p);
    let mut rcv = ArqReceiver::new(&p);
    let mut air: Vec<Frame> = Vec::new();
    let (mut now, mut next_id): (Time, u64) = (0, 0);
    let (mut out, mut gone) = (Vec::new(), Vec::new());
    let mut last_delivered: Option<u64> = None;
    for _ in 0..5000 {
        if b.done() {
            break;
        }
        match b.pick(8) {
            0 | 1 => {
                if snd.can_send_new() {
                    let pkt = Packet::tcp(0, 1, 0, TcpHeader::default(), 100, next_id, false);
                    next_id += 1;
                    let f = snd.send_new(pkt, now);
                    snd.sent(&f, now);
                    air.push(f);
                }
            }
            2 => {
                if let Some(f) = snd.send_retx() {
                    snd.sent(&f, now);
                    air.push(f);
                }
            }
            // a frame arrives (kept on the air for a duplicate, or not)
            3 | 4 if !air.is_empty() => {
                let k = b.pick(air.len());
                let f = if b.u8() < 40 { air[k] } else { air.swap_remove(k) };
                rcv.on_frame(now, &f, &mut out);
            }
            // a forged frame
            5 => {
                let mut f = air.first().copied().unwrap_or(Frame { lseq: 0, floor: 0, txn: 1, nominal: now, pkt: Packet::tcp(0, 1, 0, TcpHeader::default(), 100, u64::MAX, false) });
                f.lseq = if b.bool() { f.lseq.wrapping_add(b.u16() as u64) } else { b.u32() as u64 * b.u32() as u64 };
                f.floor = if b.bool() { f.floor } else { b.u32() as u64 * b.u32() as u64 };
                f.txn = b.u32() as u64;
                f.pkt.stream_off = u64::MAX; // never a packet of the stream
                rcv.on_frame(now, &f, &mut out);
            }
            // a link ACK, as built or forged
            6 => {
                let mut ack = rcv.build_ack();
                if b.u8() < 60 {
                    ack = LinkAck { cum: b.u32() as u64, blocks: [(0, 0); MAX_ACK_BLOCKS], n_blocks: b.pick(MAX_ACK_BLOCKS + 1) as u8, largest_txn: b.u32() as u64 };
                    for blk in ack.blocks.iter_mut().take(ack.n_blocks as usize) {
                        let s = b.u32() as u64;
                        *blk = (s, s.saturating_add(b.u32() as u64 * b.u16() as u64));
                    }
                }
                snd.on_ack(&ack, &mut gone);
            }
            // time passes: both timers
            _ => {
                now += b.u16() as u64 * 10_000;
                snd.on_timer(now, &mut gone);
                rcv.on_timer(now, &mut out);
            }
        }
        for p in out.drain(..) {
            if p.stream_off == u64::MAX {
                // a forged frame that looked right: telling it apart is the
                // link's checksum's work, not the ARQ's
                continue;
            }
            assert!(last_delivered.is_none_or(|l| p.stream_off > l), "packet {} reached IP after {:?}", p.stream_off, last_delivered);
            last_delivered = Some(p.stream_off);
        }
        gone.clear();
        assert!(snd.in_window() <= p.window as usize, "the sender holds more than its window");
        assert!(rcv.buffered() <= p.window as usize, "the receiver holds {} frames, window {}", rcv.buffered(), p.window);
    }
}
