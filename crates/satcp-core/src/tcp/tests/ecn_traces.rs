//! ECN (RFC 3168 section 6.1, `tcp/ecn.rs`) on the two-endpoint harness:
//! negotiation, which segments are ECN-capable, the receiver's echo until
//! CWR and the sender's single reduction per window. A router marking CE
//! is played by the harness's rewrite hook.

use super::harness::Harness;
use super::{cfg, seg, MS};
use crate::net::packet::{Ecn, FLAG_CWR, FLAG_ECE, FLAG_SYN};
use crate::scenario::Recovery;
use crate::tcp::ecn::EcnSetting;
use crate::tcp::Endpoint;

/// 100 Mb/s, 50 ms one way, NewReno, MSS 1000, IW 10, no delayed ACK; the
/// initiator's and the responder's settings.
fn harness(initiator: EcnSetting, responder: EcnSetting) -> Harness {
    let mut c = cfg(Recovery::NewReno);
    c.ecn = initiator;
    let mut h = Harness::new(&c, 100_000_000, 50 * MS);
    c.ecn = responder;
    h.eps[1] = Endpoint::new(1, 0, 1, 0, &c);
    h
}

fn ect_packets(h: &Harness) -> usize {
    h.log.iter().filter(|s| s.pkt.ecn() != Ecn::NotEct).count()
}

#[test]
fn both_on_negotiates_and_sends_new_data_ect0_only() {
    let mut h = harness(EcnSetting::On, EcnSetting::On);
    h.transfer(30_000);
    h.run_until(10_000 * MS);
    assert_eq!(h.delivered(), 30_000);
    let syn = h.log[0].pkt.tcp;
    assert!(syn.has(FLAG_SYN) && syn.has(FLAG_ECE) && syn.has(FLAG_CWR), "ECN-setup SYN");
    let synack = h.log.iter().find(|s| s.from == 1 && s.pkt.tcp.has(FLAG_SYN)).unwrap().pkt;
    assert!(synack.tcp.has(FLAG_ECE) && !synack.tcp.has(FLAG_CWR), "ECN-setup SYN-ACK");
    assert!(h.eps[0].ecn.ok && h.eps[1].ecn.ok);
    for s in &h.log {
        let want = if s.from == 0 && s.pkt.payload > 0 && !s.pkt.retx { Ecn::Ect0 } else { Ecn::NotEct };
        assert_eq!(s.pkt.ecn(), want, "{s:?}");
        if !s.pkt.tcp.has(FLAG_SYN) {
            assert!(!s.pkt.tcp.has(FLAG_ECE) && !s.pkt.tcp.has(FLAG_CWR), "no mark, no echo: {s:?}");
        }
    }
    assert_eq!(ect_packets(&h), 30);
}

/// One side off (or only accepting, Linux's tcp_ecn = 2 on both): no ECN,
/// no ECN-capable packet at all.
#[test]
fn without_both_sides_no_packet_is_ecn_capable() {
    for (i, r, negotiated) in [
        (EcnSetting::On, EcnSetting::Off, false),
        (EcnSetting::Off, EcnSetting::On, false),
        (EcnSetting::Accept, EcnSetting::Accept, false),
        (EcnSetting::Accept, EcnSetting::On, false),
        (EcnSetting::On, EcnSetting::Accept, true),
    ] {
        let mut h = harness(i, r);
        h.transfer(20_000);
        h.run_until(10_000 * MS);
        assert_eq!(h.delivered(), 20_000);
        assert_eq!((h.eps[0].ecn.ok, h.eps[1].ecn.ok), (negotiated, negotiated), "{i:?} {r:?}");
        assert_eq!(ect_packets(&h), if negotiated { 20 } else { 0 }, "{i:?} {r:?}");
        let syn = h.log[0].pkt.tcp;
        assert_eq!(syn.has(FLAG_ECE) && syn.has(FLAG_CWR), i == EcnSetting::On);
    }
}

/// `handshake = false`: the shared setting decides.
#[test]
fn without_a_handshake_the_flow_setting_decides() {
    for (setting, ect) in [(EcnSetting::On, true), (EcnSetting::Accept, false), (EcnSetting::Off, false)] {
        let mut c = cfg(Recovery::NewReno);
        c.handshake = false;
        c.ecn = setting;
        let mut h = Harness::new(&c, 100_000_000, 50 * MS);
        h.transfer(10_000);
        h.run_until(10_000 * MS);
        assert_eq!(h.delivered(), 10_000);
        assert_eq!(ect_packets(&h) > 0, ect, "{setting:?}");
    }
}

/// Hand-worked: data segment 5 is marked CE on its way. Its ACK (at once)
/// carries ECE; the sender, at that ACK, has sent segments 1..=18 (IW 10,
/// two more per ACK of 1..4) and snd_una is segment 6's start: flight 13
/// segments, so NewReno's ssthresh = 13000 / 2 = 6500 and cwnd = 6500,
/// without a retransmission. Every ACK after carries ECE until the first
/// new data segment sent after the reduction (it carries CWR, the only
/// one) arrives; the ECE ACKs in between do not reduce again.
#[test]
fn ce_is_echoed_until_cwr_and_the_sender_halves_once() {
    let mut h = harness(EcnSetting::On, EcnSetting::On);
    h.rewrite = Some(Box::new(|p, from| {
        if from == 0 && p.payload > 0 && p.stream_off == seg(5) && !p.retx {
            p.set_ecn(Ecn::Ce);
        }
    }));
    h.transfer(60_000);
    h.run_until(10_000 * MS);
    assert_eq!(h.delivered(), 60_000);
    assert_eq!(h.eps[0].stats.retransmissions, 0);
    assert_eq!(h.eps[0].stats.fast_recoveries, 0);
    assert_eq!(h.eps[0].stats.ecn_reductions, 1);
    // the ACK of segment 5: the first with ECE
    let acks: Vec<_> = h.log.iter().filter(|s| s.from == 1 && !s.pkt.tcp.has(FLAG_SYN)).collect();
    let first = acks.iter().position(|s| s.pkt.tcp.has(FLAG_ECE)).unwrap();
    let ack5 = crate::tcp::seq::wire(cfg(Recovery::NewReno).iss, seg(6));
    assert_eq!(acks[first].pkt.tcp.ack, ack5);
    // the ACK arrives 50 ms + 3.2 us (its 40 bytes at 100 Mb/s) after it
    // left, the next one 80 us later: the window 10 us after is its work
    let t_red = acks[first].t + 50 * MS;
    let w = h.win_at(t_red + 10_000);
    assert_eq!((w.cwnd, w.ssthresh), (6500, 6500));
    // CWR on exactly one segment: the first new data after the reduction
    let cwr: Vec<_> = h.log.iter().filter(|s| s.pkt.tcp.has(FLAG_CWR) && !s.pkt.tcp.has(FLAG_SYN)).collect();
    assert_eq!(cwr.len(), 1);
    let cwr = cwr[0];
    assert_eq!(cwr.from, 0);
    assert_eq!(cwr.pkt.stream_off, seg(19));
    assert!(cwr.t > t_red);
    // ECE on every ACK from the first until the CWR segment arrives, none after
    let cwr_arrives = cwr.t + 50 * MS;
    for s in &acks[first..] {
        assert_eq!(s.pkt.tcp.has(FLAG_ECE), s.t < cwr_arrives, "{s:?}");
    }
}

/// Every first transmission is marked CE: the sender halves once per round
/// trip (100 ms here), never more often, and loses nothing. Each reduction
/// puts CWR on the next new data segment: their send times are ≥ 1 RTT
/// apart (the next reduction waits for the ACK of data sent after this
/// one) and < 2 RTT (every round trip brings marks).
#[test]
fn marks_on_every_segment_halve_once_per_round_trip() {
    let mut h = harness(EcnSetting::On, EcnSetting::On);
    h.rewrite = Some(Box::new(|p, from| {
        if from == 0 && p.payload > 0 && !p.retx {
            p.set_ecn(Ecn::Ce);
        }
    }));
    // the window falls to 2 segments and stays there: ~20 kB a round trip
    h.transfer(300_000);
    h.run_until(30_000 * MS);
    assert_eq!(h.delivered(), 300_000);
    assert_eq!(h.eps[0].stats.retransmissions, 0);
    let cwr: Vec<_> = h.log.iter().filter(|s| s.from == 0 && s.pkt.tcp.has(FLAG_CWR) && !s.pkt.tcp.has(FLAG_SYN)).map(|s| s.t).collect();
    let n = h.eps[0].stats.ecn_reductions;
    assert!(cwr.len() as u64 == n || cwr.len() as u64 + 1 == n, "one CWR per reduction (the last may find no data left)");
    for p in cwr.windows(2) {
        assert!(p[1] - p[0] >= 100 * MS, "reductions {} ms apart", (p[1] - p[0]) / MS);
        assert!(p[1] - p[0] < 200 * MS, "every round trip has marks: {} ms apart", (p[1] - p[0]) / MS);
    }
    assert!(n > 50, "{n}");
    assert_eq!(h.win.last().unwrap().ssthresh, 2000, "halved down to 2 SMSS");
}

/// BBRv3's ECN inputs: the bytes every ECE-carrying ACK newly acknowledges
/// count as delivered CE (Linux's `tcp_count_delivered` with `ece_ack`),
/// worked out here from the ACKs on the wire.
#[test]
fn delivered_ce_counts_what_ece_acks_deliver() {
    use crate::scenario::{Bbr3Cfg, Bbr3Source, Controller};
    let mut c = cfg(Recovery::Sack);
    c.controller = Controller::Bbr3(Bbr3Cfg::of(Bbr3Source::Linux));
    c.ecn = EcnSetting::On;
    let mut h = Harness::new(&c, 100_000_000, 50 * MS);
    h.rewrite = Some(Box::new(|p, from| {
        if from == 0 && p.payload > 0 && !p.retx && (p.stream_off == seg(5) || p.stream_off == seg(40)) {
            p.set_ecn(Ecn::Ce);
        }
    }));
    h.transfer(100_000);
    h.run_until(10_000 * MS);
    assert_eq!(h.delivered(), 100_000);
    let mut want = 0u64;
    let mut last_ack: Option<u32> = None;
    for s in h.log.iter().filter(|s| s.from == 1 && !s.pkt.tcp.has(FLAG_SYN)) {
        let a = s.pkt.tcp.ack;
        let newly = last_ack.map_or(0, |l| a.wrapping_sub(l) as u64);
        if s.pkt.tcp.has(FLAG_ECE) {
            want += newly;
        }
        last_ack = Some(a);
    }
    let got = h.eps[0].snd.rate.as_ref().expect("BBRv3 samples delivery rates").delivered_ce;
    assert!(want >= 2000, "both marks were echoed: {want}");
    assert_eq!(got, want);
    assert_eq!(h.eps[0].stats.retransmissions, 0);
}
