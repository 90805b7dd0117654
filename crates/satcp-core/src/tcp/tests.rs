//! Hand-worked traces of the TCP model on a two-endpoint harness.

use super::harness::{tcp_cfg, DropRule, Harness};
use crate::scenario::{InitialWindow, Recovery, TcpCfg};

const MS: u64 = 1_000_000;

/// MSS 1000, IW 10, no delayed ACK, fast link (100 Mb/s), 50 ms one way.
fn cfg(recovery: Recovery) -> TcpCfg {
    let mut c = tcp_cfg();
    c.mss = 1000;
    c.initial_window = InitialWindow::Segments(10);
    c.delayed_ack = false;
    c.rwnd_bytes = 1 << 20;
    c.recovery = recovery;
    c.sack = recovery == Recovery::Sack;
    c
}

/// Absolute offset of 1000-byte segment k (1-based): 1 + (k-1)*1000.
fn seg(k: u64) -> u64 {
    1 + (k - 1) * 1000
}

fn drop_first_tx_of(segs: &'static [u64]) -> DropRule {
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
