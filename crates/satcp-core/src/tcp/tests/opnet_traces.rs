//! Hand-worked traces of the three keys the CETEN-R study's calibration
//! takes from its OPNET TCP (`docs/models/ceten-r.md`): the timer on the
//! clock's ticks (`rto_timer`), ssthresh from cwnd alone (`ssthresh_basis
//! = "cwnd"`) and out-of-order segments under the delayed-ACK rule
//! (`ack_out_of_order`). Each test sets one key and shows what it changes
//! against the RFC reading on the same drops (tests.rs's set-up: MSS 1000,
//! 100 Mb/s, 50 ms one way).

use super::{cfg, drop_first_tx_of, seg, transfer_with};
use crate::net::packet::FLAG_SYN;
use crate::scenario::{CwndValidation, InitialWindow, Recovery, SsthreshBasis};

const MS: u64 = 1_000_000;

/// Segment 1 of a one-segment transfer is lost; the resend is the
/// timeout's. Returns (first send, resend).
fn first_send_and_resend(ticks: bool) -> (u64, u64) {
    let mut c = cfg(Recovery::NewReno);
    c.min_rto_ns = 1000 * MS;
    c.clock_granularity_ns = 500 * MS;
    c.rto_on_ticks = ticks;
    let h = transfer_with(&c, drop_first_tx_of(&[1]), 1000);
    let d = h.data_sent();
    (d[0].0, d.iter().find(|s| s.2).expect("the timeout resends").0)
}

#[test]
fn rto_timer_on_ticks_fires_at_the_next_tick_of_the_clock() {
    // the handshake's sample (about 100 ms) gives RTO = max(1 s, 100 ms +
    // max(G, 4 x 50 ms)) = 1 s; the segment leaves at about 100 ms
    let (sent, resent) = first_send_and_resend(false);
    assert_eq!(resent - sent, 1000 * MS, "exact: the deadline itself");
    let (sent2, resent2) = first_send_and_resend(true);
    assert_eq!(sent2, sent);
    // ticks at multiples of 500 ms: the deadline (about 1.1 s) rounds up
    // to 1.5 s, as OPNET's 1 s RTO fires about 1.5 s after a loss
    assert_eq!(resent2, (sent + 1000 * MS).div_ceil(500 * MS) * 500 * MS);
    assert_eq!(resent2, 1500 * MS);
}

/// A receiver window of 10 segments, cwnd left to grow past it (no
/// validation), segment 40 lost: the window at the third duplicate ACK and
/// the ssthresh recovery starts with.
fn entry(basis: SsthreshBasis) -> (u64, u64, u64) {
    let mut c = cfg(Recovery::Reno);
    c.rwnd_bytes = 10_000;
    c.initial_window = InitialWindow::Segments(1);
    c.cwnd_validation = CwndValidation::Off;
    c.ssthresh_basis = basis;
    let h = transfer_with(&c, drop_first_tx_of(&[40]), 80_000);
    let i = h.win.iter().position(|w| w.in_recovery).unwrap();
    let before = h.win[i - 1];
    (before.cwnd, before.flight, h.win[i].ssthresh)
}

#[test]
fn cwnd_basis_halves_the_congestion_window_not_the_flight() {
    // RFC 5681: FlightSize (the receiver's 10 segments) / 2
    let (cwnd, flight, ss) = entry(SsthreshBasis::Flight);
    assert_eq!(flight, 10_000);
    assert_eq!(ss, 5_000);
    // slow start from one segment up to the receiver window's 10, then on
    // by a segment per ACK (ssthresh starts unbounded): cwnd is far past
    // the receiver window when segment 40 is found lost
    assert!(cwnd >= 30_000, "{cwnd}");
    let (cwnd2, _, ss2) = entry(SsthreshBasis::Cwnd);
    assert_eq!(cwnd2, cwnd);
    assert_eq!(ss2, cwnd / 2);
}

/// IW 10, delayed ACK every second segment, segment 3 lost: the
/// receiver's ACKs of 3 (duplicates) before the fast retransmission.
fn duplicates_for_segment_3(delayed: bool) -> Vec<u64> {
    let mut c = cfg(Recovery::NewReno);
    c.delayed_ack = true;
    c.delayed_ack_segments = 2;
    c.delayed_ack_timeout_ns = 200 * MS;
    c.dupthresh = 3;
    c.delay_out_of_order_ack = delayed;
    let h = transfer_with(&c, drop_first_tx_of(&[3]), 30_000);
    let resend = h.data_sent().into_iter().find(|s| s.2 && s.1 == seg(3)).expect("segment 3 resent").0;
    let acks: Vec<_> = h.log.iter().filter(|s| s.from == 1 && s.pkt.payload == 0 && !s.pkt.tcp.has(FLAG_SYN) && s.t < resend).collect();
    // the first ACK acknowledges segments 1 and 2; the duplicates repeat it
    acks.iter().skip(1).filter(|s| s.pkt.tcp.ack == acks[0].pkt.tcp.ack).map(|s| s.t).collect()
}

#[test]
fn out_of_order_segments_acked_under_the_delayed_ack_rule() {
    // RFC 5681 4.2: segments 4-10 arrive above the hole, each ACKed at once:
    // seven duplicates, the third of which brings the fast retransmission
    // (the ACK of 1-2 comes before, for two in-order segments)
    let now = duplicates_for_segment_3(false);
    assert_eq!(now.len(), 7);
    // delayed: every second one, at the arrivals of segments 5, 7 and 9
    // (80 us apart at 100 Mb/s), so the fast retransmission waits for
    // segment 9's instead of segment 6's
    let later = duplicates_for_segment_3(true);
    assert_eq!(later.len(), 3, "{later:?}");
    let gap = 1040 * 8 * 1000 / 100; // one 1040-byte packet at 100 Mb/s, ns
    assert_eq!((later[1] - later[0], later[2] - later[1]), (2 * gap, 2 * gap));
    assert_eq!(later[0], now[1], "the first delayed duplicate is segment 5's");
}
