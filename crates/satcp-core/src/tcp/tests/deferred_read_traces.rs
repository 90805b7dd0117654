//! Hand-worked traces of a receiving application that reads when it
//! chooses (`tcp/deferred_read.rs`) and of resets (`tcp/reset.rs`).

use super::harness::Harness;
use super::{cfg, MS};
use crate::net::packet::FLAG_RST;
use crate::scenario::Recovery;
use crate::tcp::reset::ResetSide;
use crate::tcp::State;

/// MSS 1000, IW 10, a 4000-byte receive buffer, 100 Mb/s, 50 ms one way;
/// the receiver reads nothing. The SYN-ACK offers 4000 bytes: four
/// segments leave at 100 ms and arrive at ~150 ms, each ACK offering 1000
/// bytes less (3000, 2000, 1000, 0), and the sender stops with 6000 bytes
/// waiting. At 1 s the receiver reads 1000 bytes: a window of 0 opening to
/// 1000 sends a window update at once (Linux's rule: at least twice the
/// window offered), and the fifth segment follows one round trip later.
/// A later read of 1000 with 3000 offered (above half the buffer) sends no
/// update.
#[test]
fn unread_data_closes_the_window_and_a_read_reopens_it() {
    let mut c = cfg(Recovery::NewReno);
    c.rwnd_bytes = 4000;
    let mut h = Harness::new(&c, 100_000_000, 50 * MS);
    h.eps[1].defer_reads();
    h.transfer(10_000);
    h.run_until(900 * MS);
    assert_eq!(h.delivered(), 4000);
    assert_eq!(h.eps[1].unread(), 4000);
    let acks: Vec<u16> = h.log.iter().filter(|s| s.from == 1 && s.pkt.payload == 0 && s.t > 0 && s.t < 900 * MS && !s.pkt.tcp.has(crate::net::packet::FLAG_SYN)).map(|s| s.pkt.tcp.wnd).collect();
    assert_eq!(acks, [3000, 2000, 1000, 0], "each ACK offers what is left of the buffer");
    assert_eq!(h.data_sent().len(), 4, "the sender waits at a zero window");
    let before = h.log.len();
    h.now = 1000 * MS;
    h.ctx_do(1, &mut |e, c| e.read(c, 1000));
    let update: Vec<_> = h.log[before..].iter().filter(|s| s.from == 1).collect();
    assert_eq!(update.len(), 1, "a window update at once");
    assert_eq!(update[0].pkt.tcp.wnd, 1000);
    h.run_until(1150 * MS);
    assert_eq!(h.delivered(), 5000);
    assert!(h.data_sent()[4].0 >= 1050 * MS, "the fifth segment leaves when the update arrives");
    // read 3000 at 1.2 s (window 0 -> 3000: an update); three segments
    // follow and fill the buffer again
    h.now = 1200 * MS;
    h.ctx_do(1, &mut |e, c| e.read(c, 3000));
    h.run_until(1400 * MS);
    assert_eq!((h.delivered(), h.eps[1].unread()), (8000, 4000));
    // at 1.5 s, three reads of 1000 at once: 0 -> 1000 and 1000 -> 2000
    // double the window (updates); 2000 -> 3000 does not (none)
    h.now = 1500 * MS;
    let mut sent = Vec::new();
    for _ in 0..3 {
        let before = h.log.len();
        h.ctx_do(1, &mut |e, c| e.read(c, 1000));
        sent.push(h.log[before..].iter().filter(|s| s.from == 1).map(|s| s.pkt.tcp.wnd).collect::<Vec<_>>());
    }
    assert_eq!(sent, [vec![1000], vec![2000], vec![]]);
    // every byte arrives once the reader keeps up
    for k in 0..40 {
        h.run_until((1600 + 100 * k) * MS);
        h.now = (1600 + 100 * k) * MS;
        let n = h.eps[1].unread();
        h.ctx_do(1, &mut |e, c| e.read(c, n));
    }
    h.run_until(30_000 * MS);
    assert_eq!(h.delivered(), 10_000);
    assert_eq!(h.eps[1].stats.integrity_errors, 0);
}

/// A reset sent by one end at 1 s of a transfer: it carries RST and ACK,
/// the sender's end aborts at once, the peer aborts when it arrives (50
/// ms later) and nothing more is sent by either.
#[test]
fn a_reset_aborts_both_ends() {
    let c = cfg(Recovery::NewReno);
    let mut h = Harness::new(&c, 100_000_000, 50 * MS);
    h.transfer(100_000_000);
    h.run_until(1000 * MS);
    h.now = 1000 * MS;
    h.ctx_do(1, &mut |e, c| e.reset(c));
    let rst: Vec<_> = h.log.iter().filter(|s| s.pkt.tcp.has(FLAG_RST)).collect();
    assert_eq!(rst.len(), 1);
    assert_eq!(rst[0].from, 1);
    assert_eq!((h.eps[1].state, h.eps[1].reset_side()), (State::Aborted, Some(ResetSide::Sent)));
    h.run_until(1100 * MS);
    assert_eq!((h.eps[0].state, h.eps[0].reset_side()), (State::Aborted, Some(ResetSide::Received)));
    let n = h.log.len();
    h.run_until(60_000 * MS);
    let after: Vec<_> = h.log[n..].iter().filter(|s| s.t > 1100 * MS).collect();
    assert!(after.is_empty(), "nothing sent after both aborted: {}", after.len());
}
