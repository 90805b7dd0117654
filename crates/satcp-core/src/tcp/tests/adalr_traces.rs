//! Hand-worked traces of TCP-ADaLR's endpoint rules (Algorithm 5.4 and the
//! timer and retransmission changes of section 5.2.3) against the same run
//! with the base recovery scheme alone.

use super::harness::{DropRule, Harness};
use super::{cfg as base_cfg, drop_first_tx_of, seg};
use crate::scenario::{parse_toml, Controller, InitialWindow, Recovery, TcpCfg};

const MS: u64 = 1_000_000;

/// tests.rs's set-up (MSS 1000, IW 10, no delayed ACK, 100 Mb/s, 50 ms one
/// way; RTT 100 ms gives rho 6, so none of the rho >= 15 increases
/// interferes), with or without ADaLR's controller.
fn cfg(recovery: Recovery, adalr: bool) -> TcpCfg {
    let mut c = base_cfg(recovery);
    if adalr {
        c.controller = adalr_controller();
    }
    c
}

/// The ADaLR preset's controller with its default readings.
fn adalr_controller() -> Controller {
    let s = parse_toml(
        "[nodes]\na = {}\nb = {}\n[[links]]\na = \"a\"\nb = \"b\"\nrate = \"1Mbps\"\ndelay = \"1ms\"\n[[flows]]\nsrc = \"a\"\ndst = \"b\"\ntcp = { variant = \"adalr-newreno\" }\napp = { kind = \"ftp\", size = 1 }",
        &[],
    )
    .unwrap();
    s.flows[0].tcp.controller
}

fn run(c: &TcpCfg, drop: DropRule, bytes: u64) -> Harness {
    let mut h = Harness::new(c, 100_000_000, 50 * MS);
    h.drop = drop;
    h.transfer(bytes);
    h.run_until(100_000 * MS);
    assert_eq!(h.delivered(), bytes);
    h
}

/// Segments sent when the ACK of the first retransmission of segment 3
/// (the partial ACK) arrives: one RTT (100 ms) plus the segment's and the
/// ACK's serialisation (about 87 us) after that retransmission.
fn sent_at_partial_ack(h: &Harness) -> Vec<u64> {
    let sent = h.data_sent();
    let r = sent.iter().find(|d| d.2 && d.1 == seg(3)).unwrap().0;
    let (lo, hi) = (r + 100 * MS + 80_000, r + 100 * MS + 95_000);
    sent.iter().filter(|d| d.0 >= lo && d.0 <= hi).map(|d| (d.1 - 1) / 1000 + 1).collect()
}

#[test]
fn newreno_partial_ack_deflates_and_adds_two_smss() {
    // Segments 3 and 6 lost (as in tests.rs): recovery enters with ssthresh
    // 6000 and cwnd 9000, inflated by one SMSS per further duplicate ACK to
    // 16000 with segments 7-18 outstanding beyond the holes. The partial ACK
    // acknowledges segments 3-5 (3000 bytes): NewReno deflates to 16000 -
    // 3000 + 1000 = 14000 and sends the retransmission of 6 and new segment
    // 19; ADaLR's 16000 - 3000 + 2000 = 15000 also lets segment 20 out.
    let base = run(&cfg(Recovery::NewReno, false), drop_first_tx_of(&[3, 6]), 40_000);
    let ad = run(&cfg(Recovery::NewReno, true), drop_first_tx_of(&[3, 6]), 40_000);
    assert_eq!(sent_at_partial_ack(&base), vec![6, 19]);
    assert_eq!(sent_at_partial_ack(&ad), vec![6, 19, 20]);
    for h in [&base, &ad] {
        assert_eq!((h.eps[0].stats.timeouts, h.eps[0].stats.fast_recoveries), (0, 1));
    }
}

#[test]
fn sack_partial_ack_sends_one_more_segment() {
    // Same losses with SACK: segment 6 is resent as soon as the SACKs show
    // it lost, so at the partial ACK RFC 6675's cwnd - pipe lets one new
    // segment (22) out; ADaLR SACK sends one more (23).
    let base = run(&cfg(Recovery::Sack, false), drop_first_tx_of(&[3, 6]), 40_000);
    let ad = run(&cfg(Recovery::Sack, true), drop_first_tx_of(&[3, 6]), 40_000);
    assert_eq!(sent_at_partial_ack(&base), vec![22]);
    assert_eq!(sent_at_partial_ack(&ad), vec![22, 23]);
}

#[test]
fn rto_after_an_expiry_waits_200_ms_longer() {
    // One 1000-byte segment, lost three times: expiries at RTO, then the
    // backed-off RTO. ADaLR adds 200 ms to every timer an expiry re-arms.
    let lose3 = || -> DropRule {
        let mut n = 0;
        Box::new(move |p, from| {
            let data = from == 0 && p.payload > 0;
            n += data as u32;
            data && n <= 3
        })
    };
    let times = |h: &Harness| h.data_sent().into_iter().map(|d| d.0).collect::<Vec<_>>();
    let b = times(&run(&cfg(Recovery::NewReno, false), lose3(), 1000));
    let a = times(&run(&cfg(Recovery::NewReno, true), lose3(), 1000));
    assert_eq!((b.len(), a.len()), (4, 4));
    // first expiry: same RTO
    assert_eq!(a[1] - a[0], b[1] - b[0]);
    // later ones: the doubled RTO plus 200 ms
    assert_eq!(a[2] - a[1], b[2] - b[1] + 200 * MS);
    assert_eq!(a[3] - a[2], b[3] - b[2] + 200 * MS);
    assert_eq!(b[2] - b[1], 2 * (b[1] - b[0]));
}

#[test]
fn at_most_three_retransmissions_per_send_opportunity() {
    // IW 40, every first transmission lost: one RTO, then go-back-N over 40
    // segments. With ABC L = 2 and an ACK per two segments, each ACK grows
    // cwnd by two segments and frees two: four retransmissions per ACK for
    // NewReno, three for ADaLR.
    let mk = |adalr| {
        let mut c = cfg(Recovery::NewReno, adalr);
        c.initial_window = InitialWindow::Segments(40);
        c.delayed_ack = true;
        c.abc_limit = 2;
        c
    };
    let most_at_once = |h: &Harness| {
        let retx: Vec<_> = h.data_sent().into_iter().filter(|d| d.2).map(|d| d.0).collect();
        let mut best = 0;
        for t in &retx {
            best = best.max(retx.iter().filter(|u| *u == t).count());
        }
        best
    };
    let all_first = || -> DropRule { Box::new(|p, from| from == 0 && p.payload > 0 && !p.retx) };
    let base = run(&mk(false), all_first(), 40_000);
    let ad = run(&mk(true), all_first(), 40_000);
    assert_eq!(most_at_once(&base), 4);
    assert_eq!(most_at_once(&ad), 3);
}
