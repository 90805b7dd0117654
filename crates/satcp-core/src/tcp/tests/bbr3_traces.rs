//! BBRv3 driven through two real endpoints (the test harness): its state
//! machine on a clean path and on a shallow buffer.

use super::harness::{tcp_cfg, Harness};
use crate::scenario::{Bbr3Cfg, Bbr3Source, Controller, InitialWindow, QueueLimit, Recovery, TcpCfg};
use crate::tcp::cc::bbr3::{Bbr3, Mode, Phase};
use crate::tcp::cc::Cc;

const MS: u64 = 1_000_000;

fn cfg(source: Bbr3Source) -> TcpCfg {
    let mut c = tcp_cfg();
    c.controller = Controller::Bbr3(Bbr3Cfg::of(source));
    c.recovery = Recovery::Sack;
    c.sack = true;
    c.initial_window = InitialWindow::Segments(10);
    c.delayed_ack = false;
    c.rwnd_bytes = 64 << 20;
    c
}

fn bbr3(h: &Harness) -> &Bbr3 {
    match &h.eps[0].snd.cc {
        Cc::Bbr3(b) => b,
        _ => unreachable!(),
    }
}

/// The mode sequence with the time each mode began, sampled every ms.
fn modes(h: &mut Harness, until: u64) -> Vec<(u64, Mode)> {
    let mut seq: Vec<(u64, Mode)> = vec![(0, Mode::Startup)];
    let mut t = 0;
    while t < until {
        t += MS;
        h.run_until(t);
        let m = bbr3(h).mode;
        if m != seq.last().unwrap().1 {
            seq.push((t, m));
        }
    }
    seq
}

/// 10 Mb/s, 150 ms each way, a one-BDP queue (250 packets), no random
/// loss: Startup -> Drain -> ProbeBW (DOWN, then CRUISE), ProbeRTT every
/// 5 s and a bit (the 5-s minimum is taken again when ProbeRTT ends; the
/// path's RTT never gets strictly lower), each held 200 ms and at least a
/// round (300 ms), so about 0.3-0.6 s with the drain to half the BDP; the
/// probes REFILL -> UP -> DOWN in between, 2-3 s apart. Measured: Drain
/// at 3.79 s, ProbeRTT at 5.30, 10.75, 16.29, 21.78, 27.32 s.
#[test]
fn bbr3_state_sequence_on_a_one_bdp_buffer() {
    let mut h = Harness::with_queue(&cfg(Bbr3Source::Linux), 10_000_000, 150 * MS, QueueLimit::Packets(250));
    h.transfer(200_000_000);
    let seq = modes(&mut h, 30_000 * MS);
    let m: Vec<Mode> = seq.iter().map(|s| s.1).collect();
    assert_eq!(&m[..4], &[Mode::Startup, Mode::Drain, Mode::ProbeBw(Phase::Down), Mode::ProbeBw(Phase::Cruise)], "{seq:?}");
    let probe_rtt: Vec<(u64, u64)> = seq
        .windows(2)
        .filter(|p| p[0].1 == Mode::ProbeRtt)
        .map(|p| (p[0].0, p[1].0))
        .collect();
    assert!(probe_rtt.len() >= 4, "{seq:?}");
    for (k, &(enter, exit)) in probe_rtt.iter().enumerate() {
        assert!((300 * MS..700 * MS).contains(&(exit - enter)), "ProbeRTT {k} {seq:?}");
        if k > 0 {
            let gap = enter - probe_rtt[k - 1].1;
            assert!((5_000 * MS..5_400 * MS).contains(&gap), "ProbeRTT {k} {gap} after the last {seq:?}");
        }
    }
    // every probe goes REFILL -> UP -> DOWN, UP lasting a few rounds
    let ups: Vec<u64> = seq.windows(2).filter(|p| p[0].1 == Mode::ProbeBw(Phase::Up)).map(|p| p[1].0 - p[0].0).collect();
    assert!(ups.len() >= 3, "{seq:?}");
    for w in seq.windows(2) {
        if w[1].1 == Mode::ProbeBw(Phase::Up) {
            assert_eq!(w[0].1, Mode::ProbeBw(Phase::Refill), "{seq:?}");
        }
    }
    let b = bbr3(&h);
    let payload = 10e6 * 1460.0 / 1500.0;
    assert!((b.max_bw() / payload - 1.0).abs() < 0.02, "{}", b.max_bw());
    let rt = b.min_rtt.unwrap();
    assert!((300 * MS..303 * MS).contains(&rt), "{rt}");
}

/// The same path with a 25-packet queue (0.1 BDP): Startup ends with
/// inflight_hi set; from then on cwnd stays within inflight_hi in ProbeBW,
/// inflight_hi stays below v1's 2 x BDP (750,000 bytes) and most of the
/// time is what the path holds, BDP + queue = 275 segments of 1460 bytes =
/// 401,500 bytes (measured: 403,542-411,720 from 14 s, 463,180 at most
/// while a probe's loss feedback is a round late, 128,850 once when a
/// probe's loss surfaced in ProbeRTT with its small cwnd).
#[test]
fn bbr3_bounds_its_window_by_inflight_hi_on_a_shallow_buffer() {
    let mut h = Harness::with_queue(&cfg(Bbr3Source::Linux), 10_000_000, 150 * MS, QueueLimit::Packets(25));
    h.transfer(200_000_000);
    let mut t = 0;
    let mut his = vec![];
    while t < 40_000 * MS {
        t += 10 * MS;
        h.run_until(t);
        let b = bbr3(&h);
        let cwnd = h.eps[0].snd.w.cwnd;
        if b.full_bw_reached {
            assert!(b.inflight_hi < 750_000, "t {t} inflight_hi {}", b.inflight_hi);
        }
        if t > 10_000 * MS && matches!(b.mode, Mode::ProbeBw(_)) {
            assert!(cwnd <= b.inflight_hi.max(4 * 1460), "t {t} cwnd {cwnd} hi {}", b.inflight_hi);
            his.push(b.inflight_hi);
        }
    }
    assert!(his.len() > 2000, "{}", his.len());
    his.sort();
    let median = his[his.len() / 2] as f64;
    assert!((median / 401_500.0 - 1.0).abs() < 0.1, "median inflight_hi {median}");
}
