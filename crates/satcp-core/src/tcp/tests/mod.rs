//! The TCP model's unit tests: hand-worked traces on a two-endpoint
//! harness (`harness.rs`). This file holds the transfers every scheme
//! shares and the helpers the trace files use; each `*_traces.rs` holds the
//! traces of one source (ns-2's rules, OPNET's, a paper's controller, the
//! controller hooks).

mod adalr_traces;
mod bbr3_traces;
mod cc_traces;
mod deferred_read_traces;
mod ceten_traces;
mod ecn_traces;
mod harness;
mod hook_traces;
mod ns2_traces;
mod opnet_traces;
mod peach_traces;

use harness::{tcp_cfg, DropRule, Harness};
use crate::scenario::{InitialWindow, Recovery, TcpCfg};

const MS: u64 = 1_000_000;

/// MSS 1000, IW 10, no delayed ACK, fast link (100 Mb/s), 50 ms one way.
pub(super) fn cfg(recovery: Recovery) -> TcpCfg {
    let mut c = tcp_cfg();
    c.mss = 1000;
    c.initial_window = InitialWindow::Segments(10);
    c.delayed_ack = false;
    c.rwnd_bytes = 1 << 20;
    c.recovery = recovery;
    c.sack = matches!(recovery, Recovery::Sack | Recovery::Fack);
    c
}

/// Absolute offset of 1000-byte segment k (1-based): 1 + (k-1)*1000.
pub(super) fn seg(k: u64) -> u64 {
    1 + (k - 1) * 1000
}

/// Drop the first `n` transmissions of data segment k (the original and
/// n - 1 retransmissions).
pub(super) fn drop_first_sends_of(k: u64, n: u32) -> DropRule {
    let mut sent = 0;
    Box::new(move |p, from| {
        if from == 0 && p.payload > 0 && p.stream_off == seg(k) {
            sent += 1;
            return sent <= n;
        }
        false
    })
}

/// A transfer of `bytes` over the harness's usual path (100 Mb/s, 50 ms one
/// way) with `drop`'s losses, run to the end; every byte must arrive.
pub(super) fn transfer_with(c: &TcpCfg, drop: DropRule, bytes: u64) -> Harness {
    let mut h = Harness::new(c, 100_000_000, 50 * MS);
    h.drop = drop;
    h.transfer(bytes);
    h.run_until(30_000 * MS);
    assert_eq!(h.delivered(), bytes);
    h
}

pub(super) fn drop_first_tx_of(segs: &'static [u64]) -> DropRule {
    Box::new(move |p, from| from == 0 && p.payload > 0 && !p.retx && segs.iter().any(|&k| seg(k) == p.stream_off))
}

#[test]
fn handshake_then_initial_window_then_slow_start() {
    let mut h = Harness::new(&cfg(Recovery::NewReno), 100_000_000, 50 * MS);
    h.transfer(30_000);
    h.run_until(10_000 * MS);
    assert_eq!(h.delivered(), 30_000);
    let data = h.data_sent();
    // the first 10 segments leave as soon as the SYN-ACK arrives (one RTT)
    let first_round: Vec<_> = data.iter().filter(|d| d.0 < 150 * MS).collect();
    assert_eq!(first_round.len(), 10);
    assert!(first_round.iter().all(|d| d.0 >= 100 * MS));
    // each ACK of one segment grows cwnd by one segment: 20 in the second round
    let second_round = data.iter().filter(|d| d.0 >= 150 * MS && d.0 < 250 * MS).count();
    assert_eq!(second_round, 20);
    assert!(data.iter().all(|d| !d.2), "no retransmissions on a clean path");
    assert!(h.eps[0].is_finished() && h.eps[1].is_finished());
}

/// One loss in a window of 14 segments (see the numbers in the comments).
#[test]
fn newreno_single_loss_hand_worked() {
    let mut h = Harness::new(&cfg(Recovery::NewReno), 100_000_000, 50 * MS);
    h.drop = drop_first_tx_of(&[3]);
    h.transfer(20_000);
    h.run_until(10_000 * MS);
    assert_eq!(h.delivered(), 20_000);
    let st = h.eps[0].stats;
    assert_eq!((st.retransmissions, st.fast_recoveries, st.timeouts), (1, 1, 0));
    // ACKs of segments 1 and 2 grow cwnd to 12 and release segments 11-14:
    // FlightSize = 14001 - 2001 = 12000 at the third duplicate ACK.
    let entry = h.win.iter().find(|w| w.in_recovery).unwrap();
    assert_eq!(entry.ssthresh, 6000);
    assert_eq!(entry.cwnd, 6000 + 3 * 1000);
    // the retransmission is of segment 3, sent at the third duplicate ACK
    let retx: Vec<_> = h.data_sent().into_iter().filter(|d| d.2).collect();
    assert_eq!(retx.len(), 1);
    assert_eq!(retx[0].1, seg(3));
    // leaving recovery: cwnd = min(ssthresh, max(FlightSize, SMSS) + SMSS)
    let exit = h.win.iter().skip_while(|w| !w.in_recovery).find(|w| !w.in_recovery).unwrap();
    assert_eq!(exit.ssthresh, 6000);
    assert!(exit.cwnd <= 6000);
}

#[test]
fn newreno_partial_ack_repairs_second_hole_without_timeout() {
    let mut h = Harness::new(&cfg(Recovery::NewReno), 100_000_000, 50 * MS);
    h.drop = drop_first_tx_of(&[3, 6]);
    h.transfer(20_000);
    h.run_until(10_000 * MS);
    assert_eq!(h.delivered(), 20_000);
    let st = h.eps[0].stats;
    assert_eq!((st.retransmissions, st.fast_recoveries, st.timeouts), (2, 1, 0));
    let retx: Vec<_> = h.data_sent().into_iter().filter(|d| d.2).collect();
    assert_eq!(retx.iter().map(|d| d.1).collect::<Vec<_>>(), vec![seg(3), seg(6)]);
    // the second hole is repaired one RTT (100 ms) after the first
    let gap = retx[1].0 - retx[0].0;
    assert!((95 * MS..=110 * MS).contains(&gap), "gap {gap}");
}

#[test]
fn sack_repairs_three_holes_in_one_round_trip_newreno_needs_three() {
    let holes: &'static [u64] = &[3, 6, 9];
    let mut spans = vec![];
    for rec in [Recovery::Sack, Recovery::NewReno] {
        let mut h = Harness::new(&cfg(rec), 100_000_000, 50 * MS);
        h.drop = drop_first_tx_of(holes);
        h.transfer(20_000);
        h.run_until(10_000 * MS);
        assert_eq!(h.delivered(), 20_000);
        let st = h.eps[0].stats;
        assert_eq!((st.retransmissions, st.fast_recoveries, st.timeouts), (3, 1, 0), "{rec:?}");
        let retx: Vec<_> = h.data_sent().into_iter().filter(|d| d.2).collect();
        assert_eq!(retx.iter().map(|d| d.1).collect::<Vec<_>>(), vec![seg(3), seg(6), seg(9)]);
        spans.push(retx[2].0 - retx[0].0);
    }
    // SACK: the holes at 6 and 9 are known lost once enough SACKed data lies
    // above them, and sent as soon as pipe falls below cwnd, within one RTT.
    assert!(spans[0] <= 105 * MS, "SACK: {}", spans[0]);
    // NewReno: one hole per partial ACK, one RTT each
    assert!(spans[1] >= 195 * MS, "NewReno: {}", spans[1]);
}

/// RFC 6675 entry: FlightSize 14000 (segments 1-16 sent, 1-2 acked) gives
/// cwnd = ssthresh = 7000; the rescue retransmission (rule 4) is optional.
#[test]
fn sack_entry_window_and_optional_rescue() {
    for rescue in [false, true] {
        let mut c = cfg(Recovery::Sack);
        c.rescue_retransmission = rescue;
        let mut h = Harness::new(&c, 100_000_000, 50 * MS);
        h.drop = drop_first_tx_of(&[3, 6, 9]);
        h.transfer(20_000);
        h.run_until(10_000 * MS);
        let entry = h.win.iter().find(|w| w.in_recovery).unwrap();
        assert_eq!((entry.cwnd, entry.ssthresh), (7000, 7000));
        let retx: Vec<u64> = h.data_sent().into_iter().filter(|d| d.2).map(|d| d.1).collect();
        if rescue {
            // the highest unSACKed segment (20, with the FIN) is resent once
            assert_eq!(retx, vec![seg(3), seg(6), seg(9), seg(20)]);
        } else {
            assert_eq!(retx, vec![seg(3), seg(6), seg(9)]);
        }
        assert_eq!(h.delivered(), 20_000);
    }
}

#[test]
fn rto_backs_off_exponentially_to_the_cap() {
    let mut c = cfg(Recovery::NewReno);
    c.min_rto_ns = 1000 * MS;
    c.max_rto_ns = 8000 * MS;
    let mut h = Harness::new(&c, 100_000_000, 50 * MS);
    // the last segment never gets through (so no duplicate ACKs either)
    h.drop = Box::new(|p, from| from == 0 && p.stream_off == seg(11) && p.payload > 0);
    h.transfer(11_000);
    h.run_until(60_000 * MS);
    let times: Vec<u64> = h.data_sent().into_iter().filter(|d| d.1 == seg(11)).map(|d| d.0).collect();
    let gaps: Vec<u64> = times.windows(2).map(|w| (w[1] - w[0]) / MS).collect();
    // the first resend is the RTO (1 s floor; the timer restarted at the last
    // ACK, < 1 ms after segment 11 left), then it doubles up to the 8 s cap
    assert!((1000..=1001).contains(&gaps[0]), "{gaps:?}");
    assert_eq!(&gaps[1..5], &[2000, 4000, 8000, 8000], "{gaps:?}");
    let st = h.eps[0].stats;
    assert!(st.timeouts >= 5, "{st:?}");
    let w = h.win.last().unwrap();
    assert_eq!(w.cwnd, 1000, "one segment after an expiry");
    assert_eq!(h.delivered(), 10_000);
    assert!(!h.eps[0].is_finished());
}

#[test]
fn delayed_ack_every_second_segment_and_timer_for_an_odd_one() {
    let mut c = cfg(Recovery::NewReno);
    c.delayed_ack = true;
    c.delayed_ack_timeout_ns = 200 * MS;
    c.initial_window = InitialWindow::Segments(3);
    let pure_acks = |h: &Harness| -> Vec<u64> {
        h.log.iter().filter(|s| s.from == 1 && s.pkt.payload == 0 && !s.pkt.tcp.has(crate::net::packet::FLAG_SYN) && !s.pkt.tcp.has(crate::net::packet::FLAG_FIN)).map(|s| s.t).collect()
    };
    // two segments: the second triggers the ACK at once
    let mut h = Harness::new(&c, 100_000_000, 50 * MS);
    h.transfer_open(2000);
    h.run_until(5000 * MS);
    let second_arrival = h.log.iter().filter(|s| s.from == 0 && s.pkt.payload > 0).nth(1).unwrap().t + 50 * MS;
    let acks = pure_acks(&h);
    assert_eq!(acks.len(), 1);
    assert!(acks[0] - second_arrival < MS);
    // one segment: the ACK waits for the 200 ms timer
    let mut h = Harness::new(&c, 100_000_000, 50 * MS);
    h.transfer_open(1000);
    h.run_until(5000 * MS);
    let arrival = h.log.iter().find(|s| s.from == 0 && s.pkt.payload > 0).unwrap().t + 50 * MS;
    let acks = pure_acks(&h);
    assert_eq!(acks.len(), 1);
    let wait = acks[0] - arrival;
    assert!((199 * MS..=201 * MS).contains(&wait), "delayed ACK timer: {wait}");
}

#[test]
fn lost_syn_is_resent_after_the_initial_rto_and_iw_drops_to_one() {
    let mut c = cfg(Recovery::NewReno);
    c.initial_rto_ns = 1000 * MS;
    let mut h = Harness::new(&c, 100_000_000, 50 * MS);
    let mut first = true;
    h.drop = Box::new(move |p, from| {
        let syn = from == 0 && p.tcp.has(crate::net::packet::FLAG_SYN);
        let d = syn && first;
        if syn {
            first = false;
        }
        d
    });
    h.transfer(5000);
    h.run_until(10_000 * MS);
    let syns: Vec<_> = h.log.iter().filter(|s| s.from == 0 && s.pkt.tcp.has(crate::net::packet::FLAG_SYN)).map(|s| s.t).collect();
    assert_eq!(syns, vec![0, 1000 * MS]);
    // IW = 1 segment after a lost SYN (RFC 5681 3.1)
    let first_data: Vec<_> = h.data_sent().into_iter().filter(|d| d.0 < 1200 * MS).collect();
    assert_eq!(first_data.len(), 1);
    assert_eq!(h.delivered(), 5000);
}

#[test]
fn window_scaling_negotiates_and_limits_the_flight() {
    let mut c = cfg(Recovery::NewReno);
    c.rwnd_bytes = 1 << 20;
    c.window_scaling = true;
    let mut h = Harness::new(&c, 1_000_000_000, 50 * MS);
    h.transfer(20_000_000);
    h.run_until(300 * MS);
    assert_eq!(h.eps[0].snd.peer_wnd, 1 << 20);
    let mut c2 = c.clone();
    c2.window_scaling = false;
    c2.rwnd_bytes = 65_535;
    let mut h2 = Harness::new(&c2, 1_000_000_000, 50 * MS);
    h2.transfer(20_000_000);
    h2.run_until(3000 * MS);
    assert_eq!(h2.eps[0].snd.peer_wnd, 65_535);
    assert!(h2.win.iter().all(|w| w.flight <= 65_535 + 1));
}

#[test]
fn sequence_numbers_wrap_on_the_wire() {
    let mut c = cfg(Recovery::Sack);
    c.iss = u32::MAX - 5000;
    let mut h = Harness::new(&c, 100_000_000, 5 * MS);
    h.drop = drop_first_tx_of(&[4, 5, 9]);
    h.transfer(50_000);
    h.run_until(10_000 * MS);
    assert_eq!(h.delivered(), 50_000);
    assert_eq!(h.eps[1].stats.integrity_errors, 0);
    assert!(h.log.iter().any(|s| s.from == 0 && s.pkt.payload > 0 && s.pkt.tcp.seq < 100_000), "the wire sequence wrapped");
}

/// Retransmitted data segments of endpoint 0, as segment numbers.
fn retx_segs(h: &Harness) -> Vec<u64> {
    h.data_sent().into_iter().filter(|d| d.2).map(|d| (d.1 - 1) / 1000 + 1).collect()
}

/// Tahoe, segments 3 and 6 lost. Segments 1-10 go out, the ACKs of 1 and 2
/// raise cwnd to 12 and release 11-14; FlightSize at the third duplicate ACK
/// (from segment 7) is 12000, so ssthresh = 6000 and cwnd = 1 segment.
/// Go-back-N: the ACK of the resent 3 covers 4-5 (cwnd 2 in slow start) and
/// releases 6 and 7; 7 was already held by the receiver and is resent anyway.
#[test]
fn tahoe_resets_to_one_segment_after_three_dupacks_and_goes_back_n() {
    let mut h = Harness::new(&cfg(Recovery::Tahoe), 100_000_000, 50 * MS);
    h.drop = drop_first_tx_of(&[3, 6]);
    h.transfer(20_000);
    h.run_until(10_000 * MS);
    assert_eq!(h.delivered(), 20_000);
    let st = h.eps[0].stats;
    assert_eq!((st.fast_recoveries, st.timeouts), (1, 0));
    let fr = h.win.iter().find(|w| w.ssthresh == 6000).unwrap();
    assert_eq!(fr.cwnd, 1000);
    assert!(h.win.iter().all(|w| !w.in_recovery), "Tahoe has no recovery phase");
    assert_eq!(&retx_segs(&h)[..3], &[3, 6, 7]);
}

/// Reno, one loss (segment 3): recovery entered at ssthresh 6000, cwnd
/// 9000, and left on the ACK of the retransmission with cwnd = ssthresh.
#[test]
fn reno_leaves_recovery_on_the_first_new_ack() {
    let mut h = Harness::new(&cfg(Recovery::Reno), 100_000_000, 50 * MS);
    h.drop = drop_first_tx_of(&[3]);
    h.transfer(20_000);
    h.run_until(10_000 * MS);
    assert_eq!(h.delivered(), 20_000);
    let entry = h.win.iter().find(|w| w.in_recovery).unwrap();
    assert_eq!((entry.cwnd, entry.ssthresh), (9000, 6000));
    let exit = h.win.iter().skip_while(|w| !w.in_recovery).find(|w| !w.in_recovery).unwrap();
    assert_eq!((exit.cwnd, exit.ssthresh), (6000, 6000));
    assert_eq!(h.eps[0].stats.timeouts, 0);
}

/// Reno, segments 3 and 6 lost. Ten duplicate ACKs (4, 5, 7-14) inflate
/// cwnd to 16000 and release new segments 15-18. The ACK of the resent 3
/// acknowledges 3-5 only (a partial ACK), yet Reno leaves recovery with cwnd
/// = ssthresh = 6000 < FlightSize. The duplicate ACKs that 15-18 provoke
/// cannot start a second fast retransmit (snd_una is below `recover`), so
/// segment 6 waits for the retransmission timer; NewReno resends it on the
/// partial ACK with no timeout (`newreno_partial_ack_...` above).
#[test]
fn reno_two_losses_in_a_window_need_a_timeout() {
    let mut h = Harness::new(&cfg(Recovery::Reno), 100_000_000, 50 * MS);
    h.drop = drop_first_tx_of(&[3, 6]);
    h.transfer(20_000);
    h.run_until(20_000 * MS);
    assert_eq!(h.delivered(), 20_000);
    let st = h.eps[0].stats;
    assert_eq!((st.fast_recoveries, st.timeouts), (1, 1));
    assert_eq!(&retx_segs(&h)[..2], &[3, 6]);
    let peak = h.win.iter().filter(|w| w.in_recovery).map(|w| w.cwnd).max().unwrap();
    assert_eq!(peak, 16_000);
    let exit = h.win.iter().skip_while(|w| !w.in_recovery).find(|w| !w.in_recovery).unwrap();
    assert_eq!(exit.cwnd, 6000);
    // the timer, not a duplicate ACK, resent segment 6: at least min_rto
    // (1 s) after the partial ACK
    let sent = h.data_sent();
    let t3 = sent.iter().find(|d| d.2 && d.1 == seg(3)).unwrap().0;
    let t6 = sent.iter().find(|d| d.2 && d.1 == seg(6)).unwrap().0;
    assert!(t6 - t3 >= 1000 * MS, "{}", t6 - t3);
}

/// FACK, segments 3, 4 and 5 lost. The first duplicate ACK (from segment 6)
/// SACKs [6, 7): snd.fack - snd.una = 4000 > 3 x SMSS, so FACK enters
/// recovery on that one ACK (RFC 6675 SACK would wait for the third).
/// ssthresh = cwnd = FlightSize/2 = 6000; after resending 3, awnd =
/// (14 - 6) x 1000 + 1000 = 9000. Each further SACK moves snd.fack up one
/// segment; when awnd + SMSS <= cwnd (after the SACK of 10: 4000 + 1000)
/// the next hole below snd.fack (4) goes out, then 5 after the SACK of 11.
#[test]
fn fack_enters_on_forward_most_sack_and_resends_holes_below_it() {
    let mut h = Harness::new(&cfg(Recovery::Fack), 100_000_000, 50 * MS);
    h.drop = drop_first_tx_of(&[3, 4, 5]);
    h.transfer(20_000);
    h.run_until(10_000 * MS);
    assert_eq!(h.delivered(), 20_000);
    let st = h.eps[0].stats;
    assert_eq!((st.fast_recoveries, st.timeouts), (1, 0));
    assert_eq!(retx_segs(&h), vec![3, 4, 5]);
    let first_sack_ack = h.log.iter().find(|s| s.from == 1 && !s.pkt.tcp.sack().is_empty()).unwrap().t;
    let sent = h.data_sent();
    let rx = |k: u64| sent.iter().find(|d| d.2 && d.1 == seg(k)).unwrap().0;
    // resent when that ACK arrives (50 ms and 4 us of serialisation later),
    // before the next one (80 us behind it)
    let wait = rx(3) - first_sack_ack - 50 * MS;
    assert!(wait < 10_000, "resent on the first duplicate ACK: {wait} ns");
    let entry = h.win.iter().find(|w| w.in_recovery).unwrap();
    assert_eq!((entry.cwnd, entry.ssthresh), (6000, 6000));
    // the SACKs of segments 10 and 11 leave the receiver 4 and 5 segment
    // times (80 us each at 100 Mb/s) after the one of segment 6
    let gap = |k: u64| rx(k) - rx(3);
    assert!(gap(4) > 0 && gap(5) > gap(4), "{} {}", gap(4), gap(5));
    // SACK recovery on the same losses enters two duplicate ACKs later
    let mut h2 = Harness::new(&cfg(Recovery::Sack), 100_000_000, 50 * MS);
    h2.drop = drop_first_tx_of(&[3, 4, 5]);
    h2.transfer(20_000);
    h2.run_until(10_000 * MS);
    let sack_rx3 = h2.data_sent().into_iter().find(|d| d.2).unwrap().0;
    assert!(sack_rx3 > rx(3), "{} vs {}", sack_rx3, rx(3));
}

/// awnd = snd.nxt - snd.fack + retran_data, by hand (SMSS 1000):
/// 0-14000 sent, [3000, 6000) SACKed, [0, 1000) resent -> 8000 + 1000.
#[test]
fn fack_awnd_accounting_by_hand() {
    let mut e = crate::tcp::Endpoint::new(0, 1, 0, 1, &cfg(Recovery::Fack));
    e.snd.una = 0;
    e.snd.max = 14_000;
    e.snd.board.insert(0, 14_000, 3000, 6000);
    e.snd.scheme.set_high_rxt(1000);
    assert_eq!(e.fack_point(), 6000);
    assert_eq!(e.fack_awnd(), 8000 + 1000);
    // the retransmission is SACKed: no longer counted
    e.snd.board.insert(0, 14_000, 0, 1000);
    assert_eq!(e.fack_awnd(), 8000);
    // a SACK further up moves snd.fack and shrinks awnd
    e.snd.board.insert(0, 14_000, 9000, 10_000);
    assert_eq!(e.fack_awnd(), 4000);
}

/// FACK rampdown: cwnd starts at awnd after the first retransmission and
/// falls by SMSS/2 per ACK to ssthresh; overdamping halves ssthresh again
/// for a loss found in slow start (IW 10, ssthresh infinite: slow start).
#[test]
fn fack_rampdown_and_overdamping() {
    let mut c = cfg(Recovery::Fack);
    c.fack_rampdown = true;
    let h = transfer_with(&c, drop_first_tx_of(&[3, 4, 5]), 20_000);
    let rec: Vec<u64> = h.win.iter().filter(|w| w.in_recovery).map(|w| w.cwnd).collect();
    assert_eq!(rec[0], 9000, "awnd after resending 3");
    assert!(rec.windows(2).all(|p| p[1] <= p[0] && p[0] - p[1] <= 500), "{rec:?}");
    assert_eq!(*rec.last().unwrap(), 6000);
    let mut c = cfg(Recovery::Fack);
    c.fack_overdamping = true;
    let mut h = Harness::new(&c, 100_000_000, 50 * MS);
    h.drop = drop_first_tx_of(&[3, 4, 5]);
    h.transfer(20_000);
    h.run_until(10_000 * MS);
    let entry = h.win.iter().find(|w| w.in_recovery).unwrap();
    assert_eq!((entry.cwnd, entry.ssthresh), (3000, 3000));
    assert_eq!(h.delivered(), 20_000);
}

/// Limited Transmit, IW 3, 5 segments, segment 1 lost: only two duplicate
/// ACKs can come back, so without it the loss waits for the timer. With it
/// each duplicate ACK sends a new segment (4, then 5, cwnd staying 3000),
/// whose ACKs make the third duplicate. FlightSize at the fast retransmit is
/// 5001 (the FIN included); without the 2000 Limited Transmit bytes, ssthresh
/// = max(3001/2, 2000) = 2000, not 2500.
#[test]
fn limited_transmit_turns_a_timeout_into_a_fast_retransmit() {
    for lt in [false, true] {
        let mut c = cfg(Recovery::NewReno);
        c.initial_window = InitialWindow::Segments(3);
        c.limited_transmit = lt;
        let h = transfer_with(&c, drop_first_tx_of(&[1]), 5000);
        let st = h.eps[0].stats;
        if lt {
            assert_eq!((st.fast_recoveries, st.timeouts), (1, 0));
            let entry = h.win.iter().find(|w| w.in_recovery).unwrap();
            assert_eq!(entry.ssthresh, 2000);
            let before = h.win.iter().take_while(|w| !w.in_recovery).filter(|w| w.flight > 1);
            assert!(before.clone().all(|w| w.cwnd == 3000));
            assert_eq!(before.map(|w| w.flight).max(), Some(5001));
        } else {
            assert_eq!((st.fast_recoveries, st.timeouts), (0, 1));
        }
    }
}

/// ns-2 maxburst_: no event sends more than `max_burst` segments. IW 10
/// with max_burst 4 sends 4 at once; the rest follow the ACKs.
#[test]
fn max_burst_caps_segments_per_event() {
    let mut c = cfg(Recovery::Sack);
    c.max_burst = Some(4);
    let h = transfer_with(&c, drop_first_tx_of(&[5, 9, 12, 30]), 60_000);
    let data = h.data_sent();
    let mut most = 0;
    for d in &data {
        most = most.max(data.iter().filter(|e| e.0 == d.0).count());
    }
    assert_eq!(most, 4);
    let first_round = data.iter().filter(|d| d.0 == data[0].0).count();
    assert_eq!(first_round, 4);
    // unlimited: the initial window leaves at once
    let mut h = Harness::new(&cfg(Recovery::Sack), 100_000_000, 50 * MS);
    h.transfer(60_000);
    h.run_until(20_000 * MS);
    let data = h.data_sent();
    assert_eq!(data.iter().filter(|d| d.0 == data[0].0).count(), 10);
}

/// DAASS with N = 10 and delayed ACKs: the receiver ACKs each of the first
/// ten data segments at once, then every second one. 20 segments, IW 4.
#[test]
fn daass_acks_the_first_n_segments_at_once() {
    let pure_acks = |daass: Option<u32>| -> usize {
        let mut c = cfg(Recovery::NewReno);
        c.delayed_ack = true;
        c.initial_window = InitialWindow::Segments(4);
        c.daass_segments = daass;
        let mut h = Harness::new(&c, 100_000_000, 50 * MS);
        h.transfer_open(20_000);
        h.run_until(10_000 * MS);
        assert_eq!(h.delivered(), 20_000);
        h.log.iter().filter(|s| s.from == 1 && s.pkt.payload == 0 && !s.pkt.tcp.has(crate::net::packet::FLAG_SYN)).count()
    };
    // without: 20 segments, one ACK per two = 10
    assert_eq!(pure_acks(None), 10);
    // with: 10 + the remaining 10 in pairs = 15
    assert_eq!(pure_acks(Some(10)), 15);
    assert_eq!(pure_acks(Some(20)), 20);
}

/// F-RTO on a spurious timeout: the data path holds everything sent in
/// [1.0 s, 2.5 s) and delivers it late (an outage with link-layer
/// buffering, TRANSAT's S-LACP case). The RTO fires, resends snd.una; the
/// first late ACK advances snd.una short of `recover`, so two new segments
/// go out; the next ACK acknowledges data never resent: spurious. Without
/// F-RTO the go-back-N resends the whole window.
#[test]
fn frto_detects_a_spurious_timeout_and_undoes_the_reduction() {
    for sack in [false, true] {
        let run = |frto: bool| {
            let mut c = cfg(if sack { Recovery::Sack } else { Recovery::NewReno });
            c.frto = frto;
            c.initial_window = InitialWindow::Segments(4);
            let mut h = Harness::new(&c, 10_000_000, 50 * MS);
            h.hold = Some((0, 1000 * MS, 2500 * MS));
            h.transfer(3_000_000);
            h.run_until(60_000 * MS);
            assert_eq!(h.delivered(), 3_000_000);
            h
        };
        let plain = run(false);
        let f = run(true);
        let (p, q) = (plain.eps[0].stats, f.eps[0].stats);
        assert!(p.timeouts >= 1 && q.timeouts >= 1, "{p:?} {q:?}");
        assert_eq!(q.spurious_rtos, 1, "sack {sack}");
        assert_eq!(p.spurious_rtos, 0);
        assert_eq!(q.retransmissions, 1, "only the timeout's own retransmission (sack {sack})");
        assert!(p.retransmissions > 10, "{}", p.retransmissions);
        // the response restores ssthresh to max(FlightSize, ssthresh) at the
        // timeout: no lasting halving, unlike the conventional recovery
        let ss_after = |h: &Harness| h.win.last().unwrap().ssthresh;
        assert!(ss_after(&f) > 2 * ss_after(&plain), "{} vs {}", ss_after(&f), ss_after(&plain));
    }
}

/// F-RTO on a genuine timeout: the last segment is lost, the first ACK after
/// the resend covers `recover`, and the conventional recovery goes on.
#[test]
fn frto_leaves_a_genuine_timeout_alone() {
    let mut c = cfg(Recovery::NewReno);
    c.frto = true;
    let h = transfer_with(&c, drop_first_tx_of(&[11]), 11_000);
    let st = h.eps[0].stats;
    assert_eq!((st.timeouts, st.spurious_rtos, st.retransmissions), (1, 0, 1));
}

/// A receiver-limited sender (rwnd = 10 segments) sends one burst of 10 per
/// 100 ms round trip. After 50 clean samples RTTVAR has decayed, so the RTO
/// sits at its 150 ms floor. Segment 51, the first of the sixth burst, is
/// lost: the timer was last restarted at T0, when the ACK of segment 50
/// released that burst; the duplicate ACKs arrive at T0 + 100 ms and the
/// fast retransmission's ACK could be back at T0 + 200 ms. With RFC 6298's
/// rule the timer fires at T0 + 150 ms, a spurious timeout; re-armed at the
/// fast retransmission it would fire at T0 + 250 ms, after the ACK.
#[test]
fn rearming_the_timer_at_the_fast_retransmission_avoids_a_spurious_timeout() {
    for (rearm, timeouts) in [(false, 1), (true, 0)] {
        let mut c = cfg(Recovery::Sack);
        c.rwnd_bytes = 10_000;
        c.min_rto_ns = 150 * MS;
        c.rearm_rto_on_retransmit = rearm;
        let h = transfer_with(&c, drop_first_tx_of(&[51]), 100_000);
        let st = h.eps[0].stats;
        assert_eq!(st.fast_recoveries, 1, "rearm = {rearm}");
        assert_eq!(st.timeouts, timeouts, "rearm = {rearm}");
    }
}

/// RTT samples: the cumulative ACK that covers segments the receiver had
/// already SACKed gives the timer no sample (they arrived earlier than the
/// ACK says), and under one timed segment per round trip the window
/// controller still gets a sample from every ACK of new data.
#[test]
fn rtt_samples_skip_sacked_segments_and_reach_the_controller_per_ack() {
    use crate::scenario::RttSampling;
    use crate::sim::Rng;
    use crate::tcp::sender::Sender;
    let mut c = cfg(Recovery::Sack);
    c.rtt_sampling = RttSampling::EveryAck;
    let mut s = Sender::new(&c, Rng::new(0, 0));
    for k in 1..=4u64 {
        s.record_send(seg(k), seg(k) + 1000, k * MS, false);
    }
    // 3 and 4 SACKed at 100 ms; the ACK of everything at 400 ms
    s.note_sacked(seg(3), seg(5), 100 * MS);
    assert_eq!(s.rtt_sample_on_ack(seg(2), 101 * MS), (Some(100 * MS), Some(100 * MS)));
    assert_eq!(s.rtt_sample_on_ack(seg(5), 400 * MS), (None, None));
    let mut c = cfg(Recovery::NewReno);
    c.rtt_sampling = RttSampling::OnePerRtt;
    let mut s = Sender::new(&c, Rng::new(0, 0));
    for k in 1..=3u64 {
        s.record_send(seg(k), seg(k) + 1000, k * MS, false);
    }
    // segment 1 is timed: its ACK samples both; segment 2's only the controller's
    assert_eq!(s.rtt_sample_on_ack(seg(2), 101 * MS), (Some(100 * MS), Some(100 * MS)));
    assert_eq!(s.rtt_sample_on_ack(seg(3), 112 * MS), (None, Some(110 * MS)));
}

/// A cumulative ACK that starts with a retransmission (a partial ACK of
/// NewReno): with timestamps the echo is the retransmission's, so the
/// sample runs from when it was resent, not from the first sending of the
/// segments above the hole, which waited for it; without, Karn's rule gives
/// none. If only a later segment it covers was resent, there is no sample
/// either way.
#[test]
fn rtt_sample_after_a_retransmission_is_the_retransmission_s() {
    use crate::scenario::RttSampling;
    use crate::sim::Rng;
    use crate::tcp::sender::Sender;
    let mut c = cfg(Recovery::NewReno);
    c.rtt_sampling = RttSampling::EveryAck;
    for (timestamps, sample) in [(true, Some(100 * MS)), (false, None)] {
        c.timestamps = timestamps;
        let mut s = Sender::new(&c, Rng::new(0, 0));
        for k in 1..=4u64 {
            s.record_send(seg(k), seg(k) + 1000, k * MS, false);
        }
        s.record_send(seg(1), seg(2), 200 * MS, true);
        // segments 1 (resent at 200 ms) to 3 acknowledged at 300 ms
        assert_eq!(s.rtt_sample_on_ack(seg(4), 300 * MS), (sample, sample), "timestamps {timestamps}");
    }
    // ns-2 (one timed segment per RTT): the timer's sample is gone with the
    // resent timed segment; Vegas's own times segment 3, sent once at 3 ms
    let mut n = c.clone();
    n.rtt_sampling = RttSampling::OnePerRtt;
    n.timestamps = false;
    let mut s = Sender::new(&n, Rng::new(0, 0));
    for k in 1..=4u64 {
        s.record_send(seg(k), seg(k) + 1000, k * MS, false);
    }
    s.record_send(seg(1), seg(2), 200 * MS, true);
    assert_eq!(s.rtt_sample_on_ack(seg(4), 300 * MS), (None, Some(297 * MS)));
    c.timestamps = true;
    let mut s = Sender::new(&c, Rng::new(0, 0));
    for k in 1..=3u64 {
        s.record_send(seg(k), seg(k) + 1000, k * MS, false);
    }
    s.record_send(seg(2), seg(3), 200 * MS, true);
    assert_eq!(s.rtt_sample_on_ack(seg(4), 300 * MS), (None, None));
}

/// Linux's Reno emulation of SACK, by hand: 10 segments out, 5 duplicate
/// ACKs say 5 have left the network, so the pipe is 5 segments; a partial
/// ACK of 3 segments (the hole and 2 that the duplicates had counted)
/// leaves 3 counted and 7 outstanding: a pipe of 4. The count never
/// reaches all that is outstanding (one is the hole).
#[test]
fn reno_sack_emulation_counts_duplicate_acks_out_of_the_pipe() {
    use crate::sim::Rng;
    use crate::tcp::sender::Sender;
    let c = cfg(Recovery::NewReno);
    let mut s = Sender::new(&c, Rng::new(0, 0));
    s.una = seg(1);
    s.max = seg(11);
    s.nxt = s.max;
    for _ in 0..5 {
        s.reno_sack_dupack(0);
    }
    assert_eq!((s.reno_sacked, s.pipe(3)), (5, 5000));
    s.una = seg(4);
    assert_eq!(s.reno_sack_acked(3000), 2000);
    assert_eq!((s.reno_sacked, s.pipe(3)), (3, 4000));
    for _ in 0..10 {
        s.reno_sack_dupack(0);
    }
    assert_eq!((s.reno_sacked, s.pipe(3)), (6, 1000));
}

/// RACK (the `linux` profile's SACK recovery): the last two segments of a
/// transfer are lost and the retransmission of the first hole too. RFC
/// 6675 alone cannot mark the tail holes (fewer than three SACKed segments
/// above them) nor see a retransmission lost again, and waits for the RTO;
/// RACK marks both by time and repairs them within round trips.
#[test]
fn rack_repairs_tail_holes_and_a_lost_retransmission_without_the_rto() {
    let run = |rack: bool| {
        let mut c = cfg(Recovery::Sack);
        c.rack = rack;
        c.limited_transmit = true;
        let mut h = Harness::new(&c, 100_000_000, 50 * MS);
        let mut sends_of_15 = 0;
        h.drop = Box::new(move |p, from| {
            if from != 0 || p.payload == 0 {
                return false;
            }
            if p.stream_off == seg(15) {
                sends_of_15 += 1;
                return sends_of_15 <= 2; // the original and its first retransmission
            }
            !p.retx && (p.stream_off == seg(18) || p.stream_off == seg(19))
        });
        h.transfer(20_000);
        h.run_until(30_000 * MS);
        assert_eq!(h.delivered(), 20_000);
        let done = h.log.iter().filter(|s| s.from == 1).map(|s| s.t).max().unwrap();
        (h.eps[0].stats.timeouts, done)
    };
    let (rto_rfc, t_rfc) = run(false);
    let (rto_rack, t_rack) = run(true);
    assert!(rto_rfc >= 1, "RFC 6675 alone waits for the RTO");
    assert_eq!(rto_rack, 0, "RACK repairs without it");
    assert!(t_rack + 500 * MS < t_rfc, "rack {t_rack} rfc {t_rfc}");
}

/// RACK in the go-back-N after a timeout (Linux runs it in CA_Loss: the
/// trace cross-check's BBR stalled 1.9 s where the kernel did not). The
/// whole initial window is lost, so the RTO fires; the go-back-N resends
/// segment 1, then 2 and 3, and the resend of 2 is lost again. The ACK
/// that SACKs 3 shows it: RACK marks 2 lost (sent before 3, delivered)
/// and it is resent at once, ahead of the go-back-N, with no second
/// timeout; the transfer ends within a few round trips of the first.
#[test]
fn rack_resends_a_retransmission_lost_in_the_go_back_n_after_a_timeout() {
    let mut c = cfg(Recovery::Sack);
    c.rack = true;
    let mut h = Harness::new(&c, 100_000_000, 50 * MS);
    let mut sends_of_2 = 0;
    h.drop = Box::new(move |p, from| {
        if from != 0 || p.payload == 0 {
            return false;
        }
        if p.stream_off == seg(2) {
            sends_of_2 += 1;
            return sends_of_2 <= 2; // the original and its first resend
        }
        !p.retx && p.stream_off < seg(11)
    });
    h.transfer(20_000);
    h.run_until(30_000 * MS);
    assert_eq!(h.delivered(), 20_000);
    assert_eq!(h.eps[0].stats.timeouts, 1, "one timeout: the lost resend is found by RACK, not a second RTO");
    let sent = h.data_sent();
    let resends_of_2: Vec<u64> = sent.iter().filter(|s| s.1 == seg(2) && s.2).map(|s| s.0).collect();
    assert_eq!(resends_of_2.len(), 2, "{sent:?}");
    // the second resend follows the first by about a round trip (the ACK
    // SACKing 3 comes back), far less than the backed-off RTO (2 s)
    let gap = resends_of_2[1] - resends_of_2[0];
    assert!(gap > 100 * MS && gap < 300 * MS, "gap {gap}");
}

/// PRR (RFC 6937, the `linux` profile) against RFC 6675 by hand. IW 20, no
/// delayed ACK, segment 5 lost: the ACKs of 1-4 open cwnd to 24 and send
/// 21-28; the first two duplicate ACKs (SACKing 6 and 7) each let one new
/// segment out (29, 30: SACKed data has left the network); the third
/// (SACKing 8) starts recovery with 26 segments out, so ssthresh = 13,
/// prior_cwnd = 24 and the pipe is 22 (26 less 3 SACKed and the lost 5).
/// The ACKs SACKing 9-20 follow one per 83.2 us (a 1040-byte segment at
/// 100 Mb/s).
/// * RFC 6675: cwnd = 13 at once; the pipe, 23 with the fast retransmit,
///   falls by one per ACK, so nothing new leaves until the 12th recovery
///   ACK (SACKing 19, pipe 12), then one per ACK: 31 and 32, 11 and 12
///   ACK gaps after the fast retransmit.
/// * PRR: by the k-th recovery ACK it may have sent ceil(13 k / 24) in
///   all: the fast retransmit on the first, then new segments on the 2nd,
///   4th, 6th, 8th, 10th, 12th and 13th (1, 3, ..., 11, 12 gaps after).
/// Both end the recovery at cwnd = ssthresh = 13 segments, with the one
/// retransmission.
#[test]
fn prr_spreads_the_reduction_where_rfc6675_pauses() {
    const ACK_GAP: u64 = 83_200;
    let run = |prr: bool| {
        let mut c = cfg(Recovery::Sack);
        c.initial_window = InitialWindow::Segments(20);
        c.prr = prr;
        let h = transfer_with(&c, drop_first_tx_of(&[5]), 60_000);
        let sent = h.data_sent();
        let rtx_at = sent.iter().find(|d| d.2).unwrap().0;
        // new segments the first round of recovery ACKs sent: (segment,
        // ACK gaps after the fast retransmit)
        let new: Vec<(u64, u64)> = sent
            .iter()
            .filter(|d| d.0 >= rtx_at && d.0 < rtx_at + 50 * MS && !d.2)
            .map(|d| ((d.1 - 1) / 1000 + 1, (d.0 - rtx_at + ACK_GAP / 2) / ACK_GAP))
            .collect();
        let exit = h.win.iter().skip_while(|w| !w.in_recovery).find(|w| !w.in_recovery).unwrap();
        (new, (exit.cwnd, exit.ssthresh), h.eps[0].stats.retransmissions)
    };
    let (new_rfc, exit_rfc, rtx_rfc) = run(false);
    let (new_prr, exit_prr, rtx_prr) = run(true);
    // the k-th recovery ACK comes k - 1 gaps after the first (SACKing 8)
    assert_eq!(new_rfc, vec![(31, 11), (32, 12)]);
    assert_eq!(new_prr, vec![(31, 1), (32, 3), (33, 5), (34, 7), (35, 9), (36, 11), (37, 12)]);
    assert_eq!((exit_rfc, rtx_rfc), ((13_000, 13_000), 1));
    assert_eq!((exit_prr, rtx_prr), ((13_000, 13_000), 1));
}

/// The tail loss probe (the `linux` profile) by hand: 20 segments, the last
/// two lost. The ACK of 18 (about 300.7 ms) arms the probe for 2 SRTT + 2
/// ms (two segments out, SRTT about 100.1 ms); it finds no new data and
/// resends 20. Its SACK gives RACK a reference sent after 19, long enough
/// ago, so 19 is lost and SACK recovery resends it: done in two round
/// trips after the probe, no timeout. Without the probe nothing is
/// SACKed after the tail and only the RTO (1 s here) repairs it.
#[test]
fn tail_loss_probe_repairs_a_lost_tail_without_the_rto() {
    let run = |tlp: bool| {
        let mut c = cfg(Recovery::Sack);
        c.rack = true;
        c.tlp = tlp;
        let h = transfer_with(&c, drop_first_tx_of(&[19, 20]), 20_000);
        let st = h.eps[0].stats;
        let retx: Vec<(u64, u64)> = h.data_sent().into_iter().filter(|d| d.2).map(|d| (d.0, (d.1 - 1) / 1000 + 1)).collect();
        let last_ack_before = |t: u64| h.log.iter().filter(|s| s.from == 1 && s.t + 50 * MS < t).map(|s| s.t + 50 * MS).max().unwrap();
        let done = h.log.iter().filter(|s| s.from == 1).map(|s| s.t).max().unwrap();
        let pto = retx.first().map(|r| r.0 - last_ack_before(r.0));
        (st, retx, done, pto)
    };
    let (st, retx, done, pto) = run(true);
    assert_eq!((st.loss_probes, st.timeouts, st.fast_recoveries), (1, 0, 1));
    assert_eq!(retx.iter().map(|r| r.1).collect::<Vec<_>>(), vec![20, 19]);
    let pto = pto.unwrap();
    assert!((202 * MS..204 * MS).contains(&pto), "PTO {pto}");
    // the resend of 19 follows the probe by one round trip
    assert!((100 * MS..101 * MS).contains(&(retx[1].0 - retx[0].0)), "{retx:?}");
    let (st_rto, retx_rto, done_rto, _) = run(false);
    assert_eq!((st_rto.loss_probes, st_rto.timeouts), (0, 1));
    assert_eq!(retx_rto[0].1, 19);
    assert!(done + 500 * MS < done_rto, "{done} {done_rto}");
}

/// RACK's reordering timer by hand: 20 segments, 18 lost. The ACKs of 19
/// and 20 SACK two segments, fewer than DupThresh, so RFC 6675 sees no
/// loss, and outside recovery RACK allows a reordering window of min RTT /
/// 4 (about 25 ms): 18 is not lost yet when they arrive, and no ACK comes
/// after them. The timer, set for 18's send time + RACK.rtt + reo_wnd + 2
/// ms, marks it and starts recovery; the RTO (1 s) is not needed.
#[test]
fn rack_reordering_timer_marks_a_loss_no_ack_would_reveal() {
    let mut c = cfg(Recovery::Sack);
    c.rack = true;
    let h = transfer_with(&c, drop_first_tx_of(&[18]), 20_000);
    let st = h.eps[0].stats;
    assert_eq!((st.timeouts, st.fast_recoveries, st.retransmissions), (0, 1, 1));
    let sent = h.data_sent();
    let at = |k: u64, retx: bool| sent.iter().find(|d| d.1 == seg(k) && d.2 == retx).unwrap().0;
    // RACK.rtt from segment 20 (its ACK is the last before the timer), and
    // min RTT, both about 100.1 ms
    let ack20 = h.log.iter().filter(|s| s.from == 1 && s.t + 50 * MS < at(18, true)).map(|s| s.t + 50 * MS).max().unwrap();
    let rack_rtt = ack20 - at(20, false);
    let wait = at(18, true) - at(18, false);
    let expect = rack_rtt + rack_rtt / 4 + super::recovery::tlp::TIMEOUT_MIN;
    assert!(wait.abs_diff(expect) < MS / 5, "waited {wait}, expected about {expect}");
}

thread_local! {
    /// Set: the endpoint takes its full paths only (`tcp::fast_paths`).
    pub(super) static SLOW_PATHS: std::cell::Cell<bool> = const { std::cell::Cell::new(false) };
    /// Set: every ACK's context gets the pipe (`tcp::always_pipe`).
    pub(super) static ALWAYS_PIPE: std::cell::Cell<bool> = const { std::cell::Cell::new(false) };
}

/// The ACK's pipe is computed only for a controller that reads it
/// (`reads_pipe`, a scoreboard walk an ACK saved for the others): for every
/// other variant, with losses repaired by each recovery scheme, computing it
/// changes no segment and no sender state but the context itself.
#[test]
fn only_a_controller_that_reads_the_pipe_is_given_it() {
    let mut checked = 0;
    for name in crate::tcp::cc::REGISTRY.iter().flat_map(|e| e.presets.iter().map(|p| p.name)) {
        let mut c = crate::scenario::parse_toml(
            "[nodes]\na = {}\nb = {}\n[[links]]\na = \"a\"\nb = \"b\"\nrate = \"1Mbps\"\ndelay = \"1ms\"\n\
             [[flows]]\nsrc = \"a\"\ndst = \"b\"\napp = { kind = \"ftp\", size = 1 }",
            &[format!("flows.0.tcp.variant=\"{name}\"")],
        )
        .unwrap()
        .flows[0]
        .tcp
        .clone();
        c.mss = 1000;
        let reads = crate::tcp::Endpoint::new(0, 1, 0, 1, &c).snd.caps.reads_pipe;
        let run = |always: bool| {
            ALWAYS_PIPE.with(|a| a.set(always));
            let h = transfer_with(&c, drop_first_tx_of(&[3, 40, 41, 90]), 150_000);
            ALWAYS_PIPE.with(|a| a.set(false));
            let log: Vec<String> = h.log.iter().map(|s| format!("{} {} {:?} {}", s.t, s.from, s.pkt, s.dropped)).collect();
            (log, format!("{:?}", h.eps[0].snd.w))
        };
        let (lazy, full) = (run(false), run(true));
        assert!(lazy.0.len() > 150, "{name}: a transfer ran");
        if reads {
            assert!(name == "bbr" || name == "bbr3", "only BBR and BBRv3 read the pipe, not {name}");
        } else {
            assert_eq!(lazy, full, "{name}: computing the pipe changed the transfer");
            checked += 1;
        }
    }
    assert!(checked >= 10, "{checked} variants checked");
}

/// The endpoint's fast paths (an idle sender's attempt to send, an ACK that
/// moves and SACKs nothing) change nothing: with them and without, every
/// segment leaves at the same time with the same header, and both
/// endpoints end in the same state, for each recovery scheme, with delayed
/// ACKs, RACK, TLP, PRR, F-RTO, pacing and the `linux` receiver's window
/// rule, over losses of originals and of retransmissions.
#[test]
fn fast_paths_give_the_full_paths_trace() {
    let mut cfgs = vec![];
    for r in [Recovery::Tahoe, Recovery::Reno, Recovery::NewReno, Recovery::Sack, Recovery::Fack] {
        let mut c = cfg(r);
        cfgs.push(c.clone());
        c.delayed_ack = true;
        c.delayed_ack_timeout_ns = 200 * MS;
        c.limited_transmit = true;
        cfgs.push(c);
    }
    let mut l = cfg(Recovery::Sack);
    (l.rack, l.tlp, l.prr, l.frto, l.delayed_ack, l.ooo_takes_buffer) = (true, true, true, true, true, true);
    cfgs.push(l.clone());
    l.pacing = true;
    cfgs.push(l);
    let drops: [fn() -> DropRule; 3] =
        [|| Box::new(|_, _| false), || drop_first_tx_of(&[3, 40, 41, 90]), || drop_first_sends_of(12, 2)];
    let run = |c: &TcpCfg, drop: DropRule, slow: bool| {
        SLOW_PATHS.with(|s| s.set(slow));
        let h = transfer_with(c, drop, 150_000);
        SLOW_PATHS.with(|s| s.set(false));
        let log: Vec<String> = h.log.iter().map(|s| format!("{} {} {:?} {}", s.t, s.from, s.pkt, s.dropped)).collect();
        (log, format!("{:?}", h.eps[0].snd), format!("{:?}", h.eps[1].snd), format!("{:?}", h.eps[1].stats))
    };
    for (i, c) in cfgs.iter().enumerate() {
        for (j, d) in drops.iter().enumerate() {
            let fast = run(c, d(), false);
            let slow = run(c, d(), true);
            assert!(fast.0.len() > 150, "a transfer ran ({i}, {j})");
            if let Some(k) = (0..fast.0.len().min(slow.0.len())).find(|&k| fast.0[k] != slow.0[k]) {
                panic!("config {i}, drops {j}: segment {k} differs:\n fast {}\n slow {}", fast.0[k], slow.0[k]);
            }
            assert_eq!(fast, slow, "config {i}, drops {j}: the fast paths changed the trace");
        }
    }
}

/// With `ooo_takes_buffer` the receiver's window shrinks while it holds
/// data out of order, but the right edge it offers (ACK + window) never
/// moves back from one sent segment to the next, delayed ACKs and holes
/// included; without the rule every window is the whole buffer.
#[test]
fn held_data_shrinks_the_window_but_never_the_offered_edge() {
    for takes in [false, true] {
        let mut c = cfg(Recovery::Sack);
        (c.ooo_takes_buffer, c.rwnd_bytes, c.delayed_ack, c.delayed_ack_timeout_ns) = (takes, 30_000, true, 200 * MS);
        let h = transfer_with(&c, drop_first_tx_of(&[5, 12, 13, 30]), 120_000);
        let acks: Vec<(u32, u32)> = h
            .log
            .iter()
            .filter(|s| s.from == 1 && !s.pkt.tcp.has(crate::net::packet::FLAG_SYN))
            .map(|s| (s.pkt.tcp.ack, s.pkt.tcp.wnd as u32))
            .collect();
        assert!(acks.len() > 50);
        // no window scaling at a 30,000-byte buffer: the field is bytes
        assert!(acks.iter().all(|&(_, w)| w <= 30_000));
        let smallest = acks.iter().map(|&(_, w)| w).min().unwrap();
        if takes {
            assert!(smallest < 30_000 - 3000, "held data took no room: {smallest}");
            for pair in acks.windows(2) {
                let (a, b) = (pair[0].0.wrapping_add(pair[0].1), pair[1].0.wrapping_add(pair[1].1));
                assert!(b.wrapping_sub(a) as i32 >= 0, "the edge moved back: {pair:?}");
            }
        } else {
            assert_eq!(smallest, 30_000);
        }
    }
}
