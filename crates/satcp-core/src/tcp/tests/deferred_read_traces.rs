//! Hand-worked traces of a receiving application that reads when it
//! chooses (`tcp/deferred_read.rs`) and of resets (`tcp/reset.rs`).

use super::harness::Harness;
use super::{cfg, MS};
use crate::net::packet::FLAG_RST;
use crate::scenario::Recovery;
use crate::tcp::reset::ResetSide;
use crate::tcp::State;

/// From `from_ms` on, every 100 ms for `rounds` rounds, the receiver (end
/// 1) reads all it holds unread.
fn read_as_it_arrives(h: &mut Harness, from_ms: u64, rounds: u64) {
    for k in 0..rounds {
        let t = (from_ms + 100 * k) * MS;
        h.run_until(t);
        h.now = t;
        let n = h.eps[1].unread();
        h.ctx_do(1, &mut |e, c| e.read(c, n));
    }
}

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
    read_as_it_arrives(&mut h, 1600, 40);
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

/// A zero window probed, then reopened (`tcp/window_probe.rs`). MSS 1000,
/// IW 10, SACK, a 4000-byte receive buffer, 100 Mb/s, 50 ms one way; the
/// receiver reads nothing until 5 s. Four segments fill the buffer by
/// ~150 ms and the last ACK (at ~200 ms) offers a window of 0 with 6000
/// bytes waiting. The probe timer sends one byte of new data (offset
/// 4001) into the closed window; the receiver trims it and answers with
/// window 0 (ack 4001). The sender takes the refused byte back (snd.nxt =
/// snd.max = snd.una, as BSD pulls snd.nxt back) and probes again with
/// the timer backed off. At 5 s the receiver reads all: the window update
/// opens 4000 bytes and the sender resumes at 4001 with a whole segment,
/// the probe byte in order. No hole: no SACK block, no duplicate ACK
/// counted, no fast recovery, no retransmission, no timeout.
#[test]
fn a_zero_window_probe_refused_is_sent_again_in_order() {
    let mut c = cfg(Recovery::Sack);
    c.rwnd_bytes = 4000;
    let mut h = Harness::new(&c, 100_000_000, 50 * MS);
    h.eps[1].defer_reads();
    h.transfer(10_000);
    h.run_until(4999 * MS);
    assert_eq!(h.delivered(), 4000);
    let probes: Vec<_> = h.data_sent().into_iter().filter(|d| d.0 > 200 * MS).collect();
    assert!(probes.len() >= 2, "probes before the read: {probes:?}");
    for (i, p) in probes.iter().enumerate() {
        assert_eq!((p.1, p.2), (4001, false), "probe {i} is the byte at 4001, not a retransmission: {probes:?}");
    }
    let sizes: Vec<u32> = h.log.iter().filter(|s| s.from == 0 && s.t > 200 * MS && s.pkt.payload > 0).map(|s| s.pkt.payload).collect();
    assert!(sizes.iter().all(|&n| n == 1), "one byte each: {sizes:?}");
    // the timer backs off: each gap at least twice the one before
    for w in probes.windows(3) {
        assert!(w[2].0 - w[1].0 >= 2 * (w[1].0 - w[0].0) - MS, "backed off: {probes:?}");
    }
    // every probe is answered with ack 4001 and a zero window
    let answers: Vec<_> = h.log.iter().filter(|s| s.from == 1 && s.t > 200 * MS).map(|s| (s.pkt.tcp.wnd, s.pkt.tcp.sack().len())).collect();
    assert_eq!(answers, vec![(0, 0); probes.len()]);
    let s = &h.eps[0].snd;
    assert_eq!((s.una, s.nxt, s.max), (4001, 4001, 4001), "the refused probe is taken back");
    assert_eq!(h.eps[0].stats.timeouts, 0, "a probe is not a timeout");
    h.now = 5000 * MS;
    h.ctx_do(1, &mut |e, c| e.read(c, 4000));
    read_as_it_arrives(&mut h, 5000, 50);
    h.run_until(30_000 * MS);
    let after: Vec<_> = h.data_sent().into_iter().filter(|d| d.0 >= 5000 * MS).collect();
    assert_eq!(after[0].1, 4001, "resumes with the probe byte: {after:?}");
    let sizes: Vec<u32> = h.log.iter().filter(|s| s.from == 0 && s.t >= 5000 * MS && s.pkt.payload > 0).map(|s| s.pkt.payload).collect();
    assert_eq!(sizes[0], 1000, "a whole segment from 4001: {sizes:?}");
    let starts: Vec<u64> = after.iter().map(|d| d.1).collect();
    assert!(starts.windows(2).all(|w| w[1] > w[0]), "every byte once, in order: {starts:?}");
    assert!(after.iter().all(|d| !d.2), "no retransmission: {after:?}");
    assert!(h.log.iter().all(|s| s.from != 1 || s.pkt.tcp.sack().is_empty()), "no SACK block: no hole");
    assert!(h.win.iter().all(|w| !w.in_recovery), "no recovery");
    let st = &h.eps[0].stats;
    assert_eq!((st.retransmissions, st.timeouts, st.fast_recoveries), (0, 0, 0), "{st:?}");
    assert_eq!(h.delivered(), 10_000);
    assert_eq!(h.eps[1].stats.integrity_errors, 0);
    assert!(h.eps[0].is_finished() && h.eps[1].is_finished());
}

/// As above, with the first probe lost: no answer comes, and at the
/// timer's next expiry the probe still outstanding is sent again as a
/// probe (the same byte, backed off), not handled as a retransmission
/// timeout; its answer takes it back and the transfer ends as before.
#[test]
fn a_lost_zero_window_probe_is_probed_again_not_timed_out() {
    let mut c = cfg(Recovery::Sack);
    c.rwnd_bytes = 4000;
    let mut h = Harness::new(&c, 100_000_000, 50 * MS);
    let mut dropped = false;
    h.drop = Box::new(move |p, from| {
        let first_probe = from == 0 && p.payload == 1 && !dropped;
        dropped |= first_probe;
        first_probe
    });
    h.eps[1].defer_reads();
    h.transfer(10_000);
    h.run_until(6999 * MS);
    let probes: Vec<_> = h.data_sent().into_iter().filter(|d| d.0 > 200 * MS).collect();
    assert!(probes.len() >= 2, "{probes:?}");
    assert!(probes[0].3 && !probes[1].3, "the first lost, the second not: {probes:?}");
    assert!(probes.iter().all(|p| (p.1, p.2) == (4001, false)), "{probes:?}");
    assert_eq!(h.eps[0].stats.timeouts, 0);
    h.now = 7000 * MS;
    h.ctx_do(1, &mut |e, c| e.read(c, 4000));
    read_as_it_arrives(&mut h, 7000, 50);
    h.run_until(30_000 * MS);
    let after: Vec<_> = h.data_sent().into_iter().filter(|d| d.0 >= 7000 * MS).collect();
    assert_eq!(after[0].1, 4001, "{after:?}");
    let st = &h.eps[0].stats;
    assert_eq!((st.retransmissions, st.timeouts, st.fast_recoveries), (0, 0, 0), "{st:?}");
    assert_eq!(h.delivered(), 10_000);
    assert!(h.eps[0].is_finished() && h.eps[1].is_finished());
}

/// The window probe's timer gives way to a retransmission timer when data
/// goes out again (`tcp/window_probe.rs`; Linux's
/// `tcp_event_new_data_sent` re-arms the RTO when nothing was
/// outstanding, `tcp_ack_probe` having cleared the probe timer). MSS
/// 1000, IW 10, SACK, a 4000-byte receive buffer, 100 Mb/s, 50 ms one way
/// (RTT 100 ms), the `rfc` profile's 1 s minimum RTO. Four segments fill
/// the buffer; the ACK of the fourth (at ~200.3 ms) offers a window of 0
/// with nothing outstanding, so the probe timer is armed for ~1,200.3 ms.
/// At 1,100 ms the receiver reads all: the window update reaches the
/// sender at ~1,150 ms and four segments leave at once; their ACKs come
/// back one round trip later, ~1,250 ms. The retransmission timer must
/// then run one RTO (1 s) from 1,150 ms, not fire at the probe's
/// ~1,200 ms: before the fix it stayed at the probe's deadline, and at
/// ~1,200 ms, 50 ms after the data left, the sender timed out (without
/// TLP) or sent a tail loss probe, whose timeout is capped by the RTO's
/// (with TLP): a retransmission of data never lost, either way. With
/// TLP the probe timeout is 2 SRTT + 2 ms from the send (~1,352 ms),
/// after the ACKs. Nothing is retransmitted, timed out or probed.
#[test]
fn data_after_a_window_stall_restarts_the_retransmission_timer() {
    for tlp in [false, true] {
        let mut c = cfg(Recovery::Sack);
        c.rwnd_bytes = 4000;
        c.tlp = tlp;
        let mut h = Harness::new(&c, 100_000_000, 50 * MS);
        h.eps[1].defer_reads();
        h.transfer(8000);
        h.run_until(1099 * MS);
        assert_eq!(h.delivered(), 4000);
        assert_eq!(h.data_sent().len(), 4, "tlp {tlp}: the window stalls the sender after four segments");
        let probe_at = h.eps[0].rto_timer.deadline().expect("the probe timer is armed");
        assert!(probe_at > 1200 * MS && probe_at < 1201 * MS, "tlp {tlp}: the probe timer one RTO after the last ACK: {probe_at}");
        h.now = 1100 * MS;
        h.ctx_do(1, &mut |e, c| e.read(c, 4000));
        // the update arrives at ~1,150 ms and four segments leave
        h.run_until(1160 * MS);
        let resumed: Vec<_> = h.data_sent().into_iter().filter(|d| d.0 > 1100 * MS).collect();
        assert_eq!(resumed.len(), 4, "tlp {tlp}: {resumed:?}");
        let sent_at = resumed[0].0;
        assert!(sent_at > 1150 * MS && sent_at < 1151 * MS, "tlp {tlp}: {sent_at}");
        let rto_at = h.eps[0].rto_timer.deadline().expect("a retransmission timer with data out");
        assert_eq!(rto_at, sent_at + 1000 * MS, "tlp {tlp}: one RTO from the first segment sent after the stall");
        // the receiver reads what arrives from now on
        read_as_it_arrives(&mut h, 1160, 30);
        h.run_until(30_000 * MS);
        assert_eq!(h.delivered(), 8000);
        let st = &h.eps[0].stats;
        assert_eq!((st.retransmissions, st.timeouts, st.loss_probes), (0, 0, 0), "tlp {tlp}: {st:?}");
        assert!(h.data_sent().iter().all(|d| !d.2), "tlp {tlp}: no retransmission");
        assert!(h.eps[0].is_finished() && h.eps[1].is_finished());
    }
}
