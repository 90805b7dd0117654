//! Window controllers driven through two real endpoints (the test harness):
//! behaviour that needs the engine (pacing, delivery-rate samples, round
//! counting) rather than a hand-fed ACK stream.

use crate::tcp::cc::bbr::Mode;
use crate::tcp::cc::Cc;
use super::harness::{tcp_cfg, Harness};
use crate::scenario::{AimdCfg, BbrCfg, Controller, InitialWindow, Recovery, TcpCfg};

const MS: u64 = 1_000_000;

fn bbr_cfg() -> TcpCfg {
    let mut c = tcp_cfg();
    c.controller = Controller::Bbr(BbrCfg { cwnd_gain: 2.0, probe_rtt_interval_ns: 10_000 * MS, probe_rtt_duration_ns: 200 * MS });
    c.recovery = Recovery::Sack;
    c.sack = true;
    c.initial_window = InitialWindow::Segments(10);
    c.delayed_ack = false;
    c.rwnd_bytes = 16 << 20;
    c
}

fn bbr_mode(h: &Harness) -> Mode {
    match &h.eps[0].snd.cc {
        Cc::Bbr(b) => b.mode,
        _ => unreachable!(),
    }
}

/// 10 Mb/s, 50 ms each way, unlimited queue, no loss: BBR goes Startup ->
/// Drain -> ProbeBW within a few round trips, enters ProbeRTT when its
/// RTprop is 10 s old (the path's minimum never gets strictly lower), holds
/// it for 200 ms and at least a round, and returns to ProbeBW. Its bandwidth
/// estimate is the bottleneck's payload rate: 10 Mb/s x 1460/1500.
#[test]
fn bbr_state_sequence_on_a_clean_path() {
    let mut h = Harness::new(&bbr_cfg(), 10_000_000, 50 * MS);
    h.transfer(30_000_000);
    let mut seq: Vec<(u64, Mode)> = vec![(0, Mode::Startup)];
    let mut t = 0;
    while t < 14_000 * MS {
        t += MS;
        h.run_until(t);
        let m = bbr_mode(&h);
        if m != seq.last().unwrap().1 {
            seq.push((t, m));
        }
    }
    let modes: Vec<Mode> = seq.iter().map(|s| s.1).collect();
    assert_eq!(modes, vec![Mode::Startup, Mode::Drain, Mode::ProbeBw, Mode::ProbeRtt, Mode::ProbeBw], "{seq:?}");
    let (drain_at, probe_bw_at, probe_rtt_at, back_at) = (seq[1].0, seq[2].0, seq[3].0, seq[4].0);
    // BDP = 10 Mb/s x ~101 ms = 86 segments: about log2(86/10) rounds of
    // growth and 3 without, rounds lengthening as Startup's 2.89 x BDP
    // queues up (measured: Drain at 1.60 s, ProbeBW at 1.89 s)
    assert!(drain_at > 500 * MS && drain_at < 2_500 * MS, "{seq:?}");
    assert!(probe_bw_at - drain_at < 500 * MS, "{seq:?}");
    // RTprop was last lowered in the first round trips: ProbeRTT ~10 s later
    assert!(probe_rtt_at > 10_000 * MS && probe_rtt_at < 11_000 * MS, "{seq:?}");
    let held = back_at - probe_rtt_at;
    assert!((200 * MS..500 * MS).contains(&held), "{seq:?}");
    let Cc::Bbr(b) = &h.eps[0].snd.cc else { unreachable!() };
    let payload_rate = 10e6 * 1460.0 / 1500.0;
    assert!((b.btl_bw() / payload_rate - 1.0).abs() < 0.02, "{} vs {}", b.btl_bw(), payload_rate);
    let rt = b.rt_prop.unwrap();
    assert!((100 * MS..103 * MS).contains(&rt), "{rt}");
}

/// Pacing: in ProbeBW at gain 1 segments leave no closer than one IP
/// packet's time at the pacing rate (1500 bytes at ~9.7 Mb/s = 1.23 ms);
/// without a controller rate the same sender sends a window in a burst.
#[test]
fn paced_segments_are_spaced_by_the_pacing_rate() {
    let mut h = Harness::new(&bbr_cfg(), 10_000_000, 50 * MS);
    h.transfer(8_000_000);
    h.run_until(5_000 * MS);
    let sent: Vec<u64> = h.data_sent().iter().filter(|d| d.0 > 3_000 * MS && !d.2).map(|d| d.0).collect();
    assert!(sent.len() > 1000);
    let min_gap = sent.windows(2).map(|p| p[1] - p[0]).min().unwrap();
    // the fastest phase paces at 1.25 x BtlBw: 1500 B at 12.2 Mb/s = 0.99 ms
    assert!(min_gap >= 980_000, "min gap {min_gap} ns");
    let mut c = bbr_cfg();
    c.controller = Controller::Aimd(AimdCfg::default());
    let mut h2 = Harness::new(&c, 10_000_000, 50 * MS);
    h2.transfer(100_000);
    h2.run_until(1_000 * MS);
    let first: Vec<u64> = h2.data_sent().iter().take(10).map(|d| d.0).collect();
    assert!(first.iter().all(|&t| t == first[0]), "unpaced: the initial window leaves at once");
}

/// `pacing = true` with a window-based controller: after the first ACK
/// every data segment waits for its slot at 2 x cwnd / SRTT (slow start),
/// so no two leave at the same instant; without it each ACK of one segment
/// releases two back to back.
#[test]
fn window_pacing_spreads_slow_start() {
    let mut c = tcp_cfg();
    c.initial_window = InitialWindow::Segments(10);
    c.delayed_ack = false;
    c.rwnd_bytes = 16 << 20;
    let burst_after_first_rtt = |c: &TcpCfg| {
        let mut h = Harness::new(c, 100_000_000, 50 * MS);
        h.transfer(2_000_000);
        h.run_until(2_000 * MS);
        let t: Vec<u64> = h.data_sent().iter().filter(|d| d.0 > 150 * MS).map(|d| d.0).collect();
        let same = t.windows(2).filter(|p| p[0] == p[1]).count();
        let min_gap = t.windows(2).map(|p| p[1] - p[0]).min().unwrap();
        (same, min_gap, h.delivered())
    };
    let (same, _, delivered) = burst_after_first_rtt(&c);
    assert!(same > 100 && delivered == 2_000_000, "{same}");
    c.pacing = true;
    let (same, min_gap, delivered) = burst_after_first_rtt(&c);
    assert_eq!((same, delivered), (0, 2_000_000));
    // the fastest slot: 1040 bytes at 2 x cwnd / SRTT with cwnd <= 2 MB
    // over ~100 ms (40 Mb/s): ~26 us
    assert!(min_gap > 20_000, "{min_gap}");
}
