//! Hand-worked cases of CETEN-R (`tcp/cc/ceten.rs`, `router/ceten.rs`) on
//! tests.rs's set-up (MSS 1000, no delayed ACK, 100 Mb/s, 50 ms one way).

use crate::tcp::cc::ceten::{Ceten, CetenCfg, Coin};
use crate::tcp::cc::{Cc, Env, Verdict, WindowController};
use super::harness::Harness;
use super::{cfg as base_cfg, drop_first_tx_of, seg};
use crate::net::packet::ceten_option::Ceten as Opt;
use crate::net::{Kind, Packet, TcpHeader};
use crate::router::ceten::CetenRouter;
use crate::router::RouterAgent;
use crate::scenario::{Controller, InitialWindow, Recovery, TcpCfg};
use crate::sim::Rng;

const MS: u64 = 1_000_000;

fn ceten_cfg(coin: Coin) -> CetenCfg {
    CetenCfg { coin, ..CetenCfg::default() }
}

/// A data segment carrying the CETEN option as a sender starts it.
fn segment(alpha: f32) -> Packet {
    let mut h = TcpHeader::default();
    let o = Opt { status: 1, alpha, fwd_survival: 1.0, bwd_survival: 1.0, fwd_congestion: 1.0, bwd_congestion: 1.0 }.to_option();
    assert!(h.set_research(o.exid, o.wire_len, &o.words[..6]));
    Packet::tcp(0, 1, 1, h, 1000, 1, false)
}

fn opt(p: &Packet) -> Opt {
    Opt::from_option(&p.tcp.research().unwrap()).unwrap()
}

#[test]
fn estimator_updates_on_clean_and_corrupted_packets() {
    // alpha 0.5 from 1.0: corrupted -> 0.5, clean -> 0.75, clean -> 0.875;
    // each clean packet leaves with its forward survival times the updated
    // estimate of the interface it came in on (3); interface 5 untouched
    let mut r = CetenRouter::new(1.0, false);
    r.on_corrupted(0, 3, &segment(0.5));
    assert_eq!(r.survival(3), 0.5);
    let mut p = segment(0.5);
    r.on_arrival(0, 3, &mut p);
    assert_eq!(r.survival(3), 0.75);
    assert_eq!(opt(&p).fwd_survival, 0.75);
    let mut q = segment(0.5);
    r.on_arrival(0, 3, &mut q);
    assert_eq!((r.survival(3), opt(&q).fwd_survival), (0.875, 0.875));
    assert_eq!(r.survival(5), 1.0);
    // a segment without the option (or with status 0) changes nothing
    let mut plain = Packet::tcp(0, 1, 1, TcpHeader::default(), 1000, 1, false);
    r.on_arrival(0, 3, &mut plain);
    assert_eq!(r.survival(3), 0.875);
}

#[test]
fn per_packet_estimator_keeps_no_memory() {
    // `estimator = "per_packet"` from 0: each intact packet's P is one EWMA
    // step from 0, alpha (0.25), whatever came before; two routers give
    // 0.25^2, so S_err is small and the printed congestion ratio of 0 makes
    // P(corruption) = (1 - S) / (2 - S), about one half
    let mut r1 = CetenRouter::new(0.0, false).per_packet(true);
    let mut r2 = CetenRouter::new(0.0, false).per_packet(true);
    r1.on_corrupted(0, 3, &segment(0.25));
    let mut p = segment(0.25);
    r1.on_arrival(0, 3, &mut p);
    assert_eq!(opt(&p).fwd_survival, 0.25);
    let mut q = segment(0.25);
    r1.on_arrival(0, 3, &mut q);
    assert_eq!(opt(&q).fwd_survival, 0.25, "no memory of the corrupted packet or of p");
    r2.on_arrival(0, 9, &mut q);
    assert_eq!(opt(&q).fwd_survival, 0.0625);
    let env = Env { abc_limit: 1, tick_ns: 1, pacing: false, rng: Rng::new(7, 1), dupthresh: 3 };
    let mut c = <Ceten as WindowController>::new(&CetenCfg { initial_congestion: 0.0, ..ceten_cfg(Coin::EveryDupack) }, env);
    c.set_ratios(0.0625, 0.0);
    assert!((c.p_corruption() - 0.9375 / 1.9375).abs() < 1e-12);
}

#[test]
fn congestion_estimate_from_queue_drops() {
    // on sending interface 7: a drop decays C (1 -> 0.5); the next packet
    // leaves carrying 0.5 and, once accepted (known at the following
    // offer), raises C to 0.75
    let mut r = CetenRouter::new(1.0, false);
    let mut a = segment(0.5);
    r.on_forward(0, 7, &mut a);
    assert_eq!(opt(&a).fwd_congestion, 1.0);
    r.on_queue_drop(0, 7, &a);
    assert_eq!(r.congestion(7), 0.5);
    let mut b = segment(0.5);
    r.on_forward(0, 7, &mut b);
    assert_eq!(opt(&b).fwd_congestion, 0.5);
    let mut c = segment(0.5);
    r.on_forward(0, 7, &mut c);
    assert_eq!(r.congestion(7), 0.75);
    assert_eq!(opt(&c).fwd_congestion, 0.75);
    // the printed code's reading also decays the dropped packet's arrival
    // interface
    let mut r = CetenRouter::new(1.0, true);
    let mut d = segment(0.5);
    r.on_arrival(0, 2, &mut d);
    r.on_forward(0, 7, &mut d);
    r.on_queue_drop(0, 7, &d);
    assert_eq!(r.survival(2), 0.5);
    // but not when the dropped packet started at the node: one arrives and
    // is delivered here, the node's own segment is dropped, and the
    // arrival interface keeps its estimate
    let mut r = CetenRouter::new(1.0, true);
    r.on_arrival(0, 2, &mut segment(0.5));
    let mut own = segment(0.5);
    own.src_node = 5;
    r.on_forward(0, 7, &mut own);
    r.on_queue_drop(0, 7, &own);
    assert_eq!((r.survival(2), r.congestion(7)), (1.0, 0.5));
}

#[test]
fn ratio_is_the_product_over_two_routers() {
    // router 1's interface has seen one corrupted packet in four (alpha
    // 0.5: 1 -> 0.5 -> 0.75 -> 0.875 -> 0.9375 after the packet), router
    // 2's one in two (0.5 -> 0.75): the segment arrives with 0.9375 x 0.75
    let mut r1 = CetenRouter::new(1.0, false);
    let mut r2 = CetenRouter::new(1.0, false);
    r1.on_corrupted(0, 0, &segment(0.5));
    for _ in 0..2 {
        r1.on_arrival(0, 0, &mut segment(0.5));
    }
    r2.on_corrupted(0, 2, &segment(0.5));
    let mut p = segment(0.5);
    r1.on_arrival(0, 0, &mut p);
    r1.on_forward(0, 1, &mut p);
    r2.on_arrival(0, 2, &mut p);
    assert_eq!(opt(&p).fwd_survival, 0.9375 * 0.75);
}

#[test]
fn coin_lands_corruption_with_the_stated_probability() {
    // S_err 0.9, S_cong 0.95: P(corruption) = 0.1 / (0.1 + 0.05) = 2/3;
    // 20,000 coins on a fixed seed within 4 standard deviations
    let env = Env { abc_limit: 1, tick_ns: 1, pacing: false, rng: Rng::new(7, 1), dupthresh: 3 };
    let mut c = <Ceten as WindowController>::new(&ceten_cfg(Coin::EveryDupack), env);
    c.set_ratios(0.9, 0.95);
    assert!((c.p_corruption() - 2.0 / 3.0).abs() < 1e-12);
    let w = crate::tcp::cc::Window::new(10_000, 20_000, 1000);
    let a = crate::tcp::cc::AckCtx::default();
    let d = crate::tcp::cc::DupAck { count: 1, at_dupthresh: false, in_recovery: false, head_sent_at: None };
    let n = 20_000;
    let hits = (0..n).filter(|_| c.loss_verdict(&w, &a, d) == Verdict::Corruption).count() as f64;
    let p = 2.0 / 3.0;
    let sd = (p * (1.0 - p) / n as f64).sqrt();
    assert!((hits / n as f64 - p).abs() < 4.0 * sd, "{}", hits / n as f64);
    // both ratios 1: no loss is corruption (0/0 is no verdict)
    c.set_ratios(1.0, 1.0);
    assert_eq!(c.p_corruption(), 0.0);
    // the printed code's congestion ratio of 0: at most one half
    c.set_ratios(0.0, 0.0);
    assert_eq!(c.p_corruption(), 0.5);
}

fn cfg(recovery: Recovery, coin: Coin) -> TcpCfg {
    let mut c = base_cfg(recovery);
    c.controller = Controller::Ceten(ceten_cfg(coin));
    c.initial_window = InitialWindow::Segments(10);
    c
}

/// The path's routers as one: every data segment arrives with a forward
/// survival of 0.5 and no congestion (ratio 1), so the sender's S_err is
/// 0.5 and S_cong 1: every loss is corruption.
fn lossy_path(h: &mut Harness) {
    h.rewrite = Some(Box::new(|p: &mut Packet, from| {
        if from == 0 && p.kind == Kind::Data {
            if let Some(mut o) = p.tcp.research().and_then(|r| Opt::from_option(&r)) {
                o.fwd_survival = 0.5;
                p.tcp.update_research(&o.words());
            }
        }
    }));
}

/// Segment 15 of 60 lost once, on a path that reports corruption (`lossy`)
/// or not.
fn run_loss(recovery: Recovery, coin: Coin, lossy: bool) -> Harness {
    let mut h = Harness::new(&cfg(recovery, coin), 100_000_000, 50 * MS);
    h.drop = drop_first_tx_of(&[15]);
    if lossy {
        lossy_path(&mut h);
    }
    h.transfer(60_000);
    h.run_until(10_000 * MS);
    assert_eq!(h.delivered(), 60_000);
    h
}

#[test]
fn corruption_branch_resends_the_head_and_leaves_the_window_alone() {
    for recovery in [Recovery::Reno, Recovery::NewReno] {
        let h = run_loss(recovery, Coin::LossEvent, true);
        let e = &h.eps[0];
        let Cc::Ceten(cc) = &e.snd.cc else { unreachable!() };
        assert_eq!((cc.s_err, cc.s_cong), (0.5, 1.0));
        // one coin at the third duplicate ACK, corruption; the event's
        // other duplicates ignored; segment 15 resent once; no recovery
        assert_eq!((cc.coins, cc.corruptions), (1, 1));
        assert_eq!(e.stats.fast_recoveries, 0);
        assert_eq!(e.stats.timeouts, 0);
        let resends: Vec<_> = h.data_sent().into_iter().filter(|d| d.2).collect();
        assert_eq!(resends.len(), 1);
        assert_eq!(resends[0].1, seg(15));
        // cwnd and ssthresh as they were just before the resend
        let before = h.win_at(resends[0].0 - 1);
        let after = h.win_at(resends[0].0);
        assert_eq!((after.cwnd, after.ssthresh), (before.cwnd, before.ssthresh));
        assert!(h.win.iter().all(|w| !w.in_recovery));
    }
}

#[test]
fn every_dupack_coin_resends_on_each_corruption_verdict() {
    // the printed code: a coin on every duplicate ACK, each corruption
    // verdict resending whatever segment is at snd_una. With P = 1 every
    // duplicate segment 15's loss brings back resends it (15 or more
    // times: the receiver answers each surplus copy with another duplicate
    // ACK), and later segments are resent too though none was lost: every
    // retransmission of the run is a corruption verdict's
    let h = run_loss(Recovery::NewReno, Coin::EveryDupack, true);
    let Cc::Ceten(cc) = &h.eps[0].snd.cc else { unreachable!() };
    let resends: Vec<_> = h.data_sent().into_iter().filter(|d| d.2).collect();
    assert_eq!(resends.len() as u64, cc.corruptions);
    assert_eq!(cc.coins, cc.corruptions);
    assert!(resends.iter().filter(|d| d.1 == seg(15)).count() >= 15);
    assert!(resends.iter().any(|d| d.1 != seg(15)), "spurious resends of segments that were not lost");
    assert_eq!(h.eps[0].stats.fast_recoveries, 0);
}

#[test]
fn without_corruption_on_the_path_a_loss_is_congestion() {
    // no router lowers the survival ratio: S_err stays 1, P(corruption) 0,
    // and the scheme's fast retransmit halves the window as usual
    let h = run_loss(Recovery::NewReno, Coin::LossEvent, false);
    let Cc::Ceten(cc) = &h.eps[0].snd.cc else { unreachable!() };
    assert_eq!((cc.coins, cc.corruptions), (1, 0));
    assert_eq!(h.eps[0].stats.fast_recoveries, 1);
}

