//! Hand-worked traces of TCP Peach and Modified Peach (`tcp/cc/peach.rs`)
//! on tests.rs's set-up (MSS 1000, no delayed ACK, 100 Mb/s, 50 ms one
//! way: the RTT is 100 ms plus 83.2 us of serialisation per 1040-byte
//! segment and 3.2 us per ACK), with the peer's window 64 segments and
//! Peach's initial window of one segment.

use crate::tcp::cc::peach::{Latch, Peach, PeachCfg, Rehalve};
use crate::tcp::cc::Cc;
use super::harness::{DropRule, Harness, Sent};
use super::{cfg as base_cfg, seg};
use crate::net::{Kind, Packet};
use crate::scenario::{Controller, InitialWindow, Recovery, TcpCfg};
use crate::sim::Time;

const MS: u64 = 1_000_000;
const RWND: u64 = 64_000;

/// The original Peach, every choice at its default.
fn peach_cfg() -> PeachCfg {
    PeachCfg::default()
}

fn cfg(p: PeachCfg) -> TcpCfg {
    let mut c = base_cfg(Recovery::NewReno);
    c.controller = Controller::Peach(p);
    c.initial_window = InitialWindow::Segments(1);
    c.rwnd_bytes = RWND;
    c
}

fn run(c: &TcpCfg, drop: DropRule, bytes: u64, until: Time) -> Harness {
    let mut h = Harness::new(c, 100_000_000, 50 * MS);
    h.drop = drop;
    h.transfer(bytes);
    h.run_until(until);
    h
}

fn peach(h: &Harness) -> &Peach {
    match &h.eps[0].snd.cc {
        Cc::Peach(p) => p,
        _ => unreachable!(),
    }
}

fn of_kind(h: &Harness, from: u32, kind: Kind) -> Vec<Sent> {
    h.log.iter().filter(|s| s.from == from && s.pkt.kind == kind).copied().collect()
}

/// The sender's cwnd (bytes) after the last event at or before `t`.
fn cwnd_at(h: &Harness, t: Time) -> u64 {
    h.win_at(t).cwnd
}

/// Drop the first transmission of data segments `segs` (dummies, which are
/// copies, pass).
fn drop_data(segs: &'static [u64]) -> DropRule {
    Box::new(move |p: &Packet, from| from == 0 && p.kind == Kind::Data && !p.retx && segs.iter().any(|&k| seg(k) == p.stream_off))
}

#[test]
fn sudden_start_paces_rwnd_minus_one_dummies_and_opens_cwnd_in_two_rtts() {
    let h = run(&cfg(peach_cfg()), Box::new(|_, _| false), 400_000, 2_000 * MS);
    assert_eq!(h.delivered(), 400_000);
    let data = h.data_sent();
    let t0 = data[0].0;
    // One data segment leaves when the SYN-ACK arrives (one RTT after the
    // SYN), then rwnd - 1 = 63 dummies, one every tau = SRTT / 64 from it:
    // the handshake's RTT of 100.00768 ms (SYN and SYN-ACK are 48 bytes
    // with their MSS and window-scale options) gives tau = 1.56262 ms.
    assert!((100 * MS..101 * MS).contains(&t0));
    let d = of_kind(&h, 0, Kind::Dummy);
    let sudden: Vec<Time> = d.iter().map(|s| s.t).filter(|&t| t < t0 + 100 * MS).collect();
    assert_eq!(sudden.len(), 63);
    let tau = sudden[0] - t0;
    assert_eq!(tau, 1_562_620);
    for (k, &t) in sudden.iter().enumerate() {
        assert_eq!(t, t0 + (k as u64 + 1) * tau, "dummy {} on time", k + 1);
    }
    // copies of segment 1 (the only data sent), answered by DummyAcks
    assert!(d[..63].iter().all(|s| s.pkt.stream_off == seg(1) && s.pkt.payload == 1000 && !s.pkt.retx));
    assert_eq!(of_kind(&h, 1, Kind::DummyAck).len(), d.len());
    // cwnd: one segment for the first RTT; the data ACK of segment 1 adds
    // one (congestion avoidance from 1: SMSS^2 / cwnd); each DummyAck one
    // more, capped at the peer's 64 segments: 64 by two RTTs after t0.
    let rtt = 100 * MS + 83_200 + 3_200;
    assert_eq!(cwnd_at(&h, t0 + rtt - MS), 1000);
    assert_eq!(cwnd_at(&h, t0 + rtt + MS / 2), 2000);
    let after_two = cwnd_at(&h, t0 + 2 * rtt);
    assert!((RWND..RWND + 3000).contains(&after_two), "cwnd {after_two} after two RTTs");
    // a slow start from one segment would have 4 by then
    assert_eq!(peach(&h).sudden_starts, 1);
    assert_eq!(peach(&h).dummy_acks, 63);
    assert_eq!(h.eps[0].stats.dummy_segments_sent, 63);
}

/// Segment 200 lost once when the window is 64 segments; `drop_dummies`:
/// the network drops every dummy sent after the loss (congestion).
fn rapid_recovery(drop_dummies: bool) -> Harness {
    let mut lost = false;
    let drop: DropRule = Box::new(move |p: &Packet, from| {
        if from != 0 {
            return false;
        }
        if p.kind == Kind::Data && !p.retx && p.stream_off == seg(200) && !lost {
            lost = true;
            return true;
        }
        drop_dummies && lost && p.kind == Kind::Dummy
    });
    let h = run(&cfg(peach_cfg()), drop, 600_000, 5_000 * MS);
    assert_eq!(h.delivered(), 600_000);
    h
}

#[test]
fn rapid_recovery_halves_then_dummies_restore_the_window_or_not() {
    for drop_dummies in [false, true] {
        let h = rapid_recovery(drop_dummies);
        let p = peach(&h);
        assert_eq!(p.rapid_recoveries, 1);
        assert_eq!(h.eps[0].stats.fast_recoveries, 1);
        // the fast retransmit: W = min(cwnd, rwnd) = 64 segments, so
        // ssthresh 32 and 32 dummies, one per duplicate ACK
        let fr = h.log.iter().find(|s| s.from == 0 && s.pkt.retx && s.pkt.kind == Kind::Data).unwrap().t;
        let entry = h.win_at(fr);
        assert_eq!(entry.ssthresh, 32_000);
        assert!(entry.in_recovery);
        let rr_dummies: Vec<Sent> = of_kind(&h, 0, Kind::Dummy).into_iter().filter(|s| s.t >= fr).collect();
        assert_eq!(rr_dummies.len(), 32);
        // no new data before the 32 dummies: each duplicate ACK sends one
        let first_new = h.log.iter().find(|s| s.from == 0 && s.t >= fr && s.pkt.kind == Kind::Data && !s.pkt.retx).unwrap();
        assert!(first_new.t >= rr_dummies[31].t, "data waits for the dummies");
        // one RTT after recovery: restored to 64 segments when the dummies
        // came back, about 32 (plus congestion avoidance) when dropped
        let later = h.win_at(fr + 2 * 101 * MS);
        assert!(!later.in_recovery);
        if drop_dummies {
            assert_eq!(p.dummy_acks, 63);
            assert!((32_000..34_000).contains(&later.cwnd), "kept halved: {}", later.cwnd);
        } else {
            assert_eq!(p.dummy_acks, 63 + 32);
            assert!((RWND..RWND + 2000).contains(&later.cwnd), "restored: {}", later.cwnd);
        }
    }
}

/// Two losses in one window (segments 200 and 210), with a receive buffer
/// large enough that new data flows in recovery (63 Sudden-Start dummies
/// still open the window to about 64 segments): the original Peach halves
/// again on the run of duplicate ACKs that follows the partial ACK;
/// Modified Peach (latched until everything outstanding at the fast
/// retransmit is acknowledged) halves once.
#[test]
fn modified_peach_halves_once_where_peach_halves_twice() {
    let mut lowest = vec![];
    for latch in [Latch::None, Latch::Recover, Latch::Retransmission] {
        let mut c = cfg(PeachCfg { latch, sudden_dummies: Some(63), ..peach_cfg() });
        c.rwnd_bytes = 1 << 20;
        let h = run(&c, drop_data(&[200, 210]), 600_000, 5_000 * MS);
        assert_eq!(h.delivered(), 600_000);
        assert_eq!(h.eps[0].stats.fast_recoveries, 1, "{latch:?}: one NewReno recovery repairs both");
        assert_eq!(h.eps[0].stats.timeouts, 0);
        let fr = h.log.iter().find(|s| s.from == 0 && s.pkt.retx).unwrap().t;
        let entry = h.win_at(fr).ssthresh;
        assert!((32_000..34_000).contains(&entry), "halved from about 64 segments: {entry}");
        // the window's halvings after the fast retransmit's: ssthresh
        // falling between two events of the recovery (the dummies' ACKs in
        // recovery raise it one SMSS at a time)
        let log: Vec<_> = h.win_log_from(fr).take_while(|w| w.in_recovery).collect();
        let halvings: Vec<(u64, u64)> =
            log.windows(2).filter(|p| p[1].ssthresh < p[0].ssthresh).map(|p| (p[0].ssthresh, p[1].ssthresh)).collect();
        assert!(halvings.iter().all(|&(a, b)| b == (a / 2).max(2000)), "{latch:?}: {halvings:?}");
        lowest.push((latch, peach(&h).rehalvings, halvings.len()));
    }
    assert_eq!(
        lowest,
        vec![
            (Latch::None, 1, 1),
            (Latch::Recover, 0, 0),
            // reading A: the partial ACK covers the retransmission and
            // clears the latch, so the next run halves as Peach does
            (Latch::Retransmission, 1, 1),
        ]
    );
}

#[test]
fn every_dupthresh_reading_halves_on_every_third_duplicate() {
    // one loss, 63 duplicate ACKs: the literal reading halves at 3 (the
    // fast retransmit), then every third until ssthresh reaches 2 SMSS
    let c = cfg(PeachCfg { rehalve: Rehalve::EveryDupthresh, ..peach_cfg() });
    let h = run(&c, drop_data(&[200]), 600_000, 5_000 * MS);
    assert_eq!(h.delivered(), 600_000);
    let p = peach(&h);
    // 32 -> 16 -> 8 -> 4 -> 2 segments: four more halvings, then the floor
    assert_eq!(p.rehalvings, 4);
    // latched (reading A) only until the ACK of the retransmission: none
    // before it, since one loss has one run
    let c = cfg(PeachCfg { rehalve: Rehalve::EveryDupthresh, latch: Latch::Retransmission, ..peach_cfg() });
    let h = run(&c, drop_data(&[200]), 600_000, 5_000 * MS);
    assert_eq!(peach(&h).rehalvings, 0);
}

/// Segment 5 lost twice: the original and its fast retransmission.
fn drop_seg5_twice() -> DropRule {
    let mut n = 0;
    Box::new(move |p: &Packet, from| {
        if from == 0 && p.kind == Kind::Data && p.stream_off == seg(5) {
            n += 1;
            return n <= 2;
        }
        false
    })
}

#[test]
fn timeout_starts_sudden_start_again() {
    // segment 5 and its first retransmission lost: the timer fires, cwnd
    // goes to one segment and the go-back-N's first segment starts a new
    // Sudden Start of 63 dummies
    let h = run(&cfg(peach_cfg()), drop_seg5_twice(), 100_000, 20_000 * MS);
    assert_eq!(h.delivered(), 100_000);
    assert!(h.eps[0].stats.timeouts >= 1);
    let p = peach(&h);
    assert_eq!(p.sudden_starts, 1 + h.eps[0].stats.timeouts as u32);
    assert_eq!(h.eps[0].stats.dummy_segments_sent, p.dummies_asked);
    assert!(p.dummies_asked >= 2 * 63);
    // with peach_rto = "slow_start" no second Sudden Start
    let h = run(&cfg(PeachCfg { rto_sudden_start: false, ..peach_cfg() }), drop_seg5_twice(), 100_000, 20_000 * MS);
    assert_eq!(peach(&h).sudden_starts, 1);
}
