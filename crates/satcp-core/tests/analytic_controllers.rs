//! Analytical checks of the window controllers through the whole engine:
//! * Hybla: in congestion avoidance the sending rate cwnd/RTT grows at
//!   1/RTT0^2 segments/s per second whatever the RTT (the window itself
//!   grows rho^2 segments per RTT = rho/RTT0 segments per second);
//! * Vegas: on a stable path it keeps between alpha and beta segments queued
//!   at the bottleneck;
//! * CUBIC: between losses cwnd follows W(t) = C (t - K)^3 + W_max;
//! * BBR: delivers near the bottleneck rate with a small standing queue.
//!
//! Each test prints its measured numbers (run with --nocapture).

mod common;
use common::*;
use satcp_core::RunOutput;

/// server --(1 Gb/s, 1 ms)-- router --(`rate`, one way `delay`)-- client;
/// the router's queue toward the client holds `queue` (a TOML value).
fn path(rate: &str, delay_ms: f64, queue: &str, tcp: &str, stop_s: u32, sample: &str) -> String {
    access_bottleneck(
        &format!("stop = \"{stop_s}s\"\nsample_interval = \"{sample}\""),
        &format!("rate = \"{rate}\"\ndelay = \"{delay_ms}ms\"\nqueue_ab = {queue}"),
        &format!("mss = 1460, rwnd = \"1000MB\", delayed_ack = false, {tcp}"),
    )
}

/// (t, cwnd in segments) of the flow's samples with t in [from, to).
fn cwnd_series(out: &RunOutput, from: f64, to: f64) -> Vec<(f64, f64)> {
    let fs = &out.flow_series;
    (0..fs.time_s.len()).filter(|&i| fs.time_s[i] >= from && fs.time_s[i] < to).map(|i| (fs.time_s[i], fs.cwnd_bytes[i] / 1460.0)).collect()
}

/// Queue length samples (packets) of link direction `dir` with t >= from.
fn queue_series(out: &RunOutput, dir: u32, from: f64) -> Vec<f64> {
    let ls = &out.link_series;
    (0..ls.time_s.len()).filter(|&i| ls.link[i] == dir && ls.time_s[i] >= from).map(|i| ls.queue_packets[i]).collect()
}

fn slope(xy: &[(f64, f64)]) -> f64 {
    let n = xy.len() as f64;
    let (mx, my) = (xy.iter().map(|p| p.0).sum::<f64>() / n, xy.iter().map(|p| p.1).sum::<f64>() / n);
    let sxy: f64 = xy.iter().map(|p| (p.0 - mx) * (p.1 - my)).sum();
    let sxx: f64 = xy.iter().map(|p| (p.0 - mx) * (p.0 - mx)).sum();
    sxy / sxx
}

fn mean(v: &[f64]) -> f64 {
    v.iter().sum::<f64>() / v.len() as f64
}

/// Hybla (unpaced: the rule alone) with RTT0 = 25 ms on 50, 250 and 600 ms paths, starting in
/// congestion avoidance (ssthresh 10 segments) with no loss and no queue,
/// measured from 10 to 20 s: d(cwnd/RTT)/dt is the same on all three and
/// close to 1/RTT0^2 = 1600 segments/s^2 (Caini and Firrincieli's goal),
/// while d(cwnd)/dt ~ rho / RTT0 grows with the RTT. The window's growth
/// matches the round-by-round recurrence of the per-ACK rule within 2%.
#[test]
fn hybla_rate_growth_is_independent_of_rtt() {
    let mut growth = vec![];
    for rtt_ms in [50.0, 250.0, 600.0] {
        let one_way = rtt_ms / 2.0 - 1.0;
        let text = path("10Gbps", one_way, "{ kind = \"droptail\" }", "variant = \"hybla\", pacing = false, initial_window = 10, initial_ssthresh = 14600", 20, "50ms");
        let out = run_text(&text, &[]);
        let f = &out.summary.flows[0];
        assert_eq!((f.retransmissions, f.timeouts), (0, 0));
        let s = cwnd_series(&out, 10.0, 20.0);
        let w_per_s = slope(&s);
        let rate_growth = w_per_s / (rtt_ms / 1000.0);
        let rho = rtt_ms / 25.0;
        // round by round, each of the W ACKs adds rho^2 / W with W growing
        // inside the round: W' = sqrt(W^2 + 2 rho^2 W) (slightly under
        // W + rho^2 while rho^2 is not small against W)
        let (w0, w1) = (s[0].1, s[s.len() - 1].1);
        let rounds = (s[s.len() - 1].0 - s[0].0) / (rtt_ms / 1000.0);
        let mut w = w0;
        for _ in 0..rounds.floor() as u32 {
            w = (w * w + 2.0 * rho * rho * w).sqrt();
        }
        let frac = rounds - rounds.floor();
        w += frac * ((w * w + 2.0 * rho * rho * w).sqrt() - w);
        eprintln!(
            "hybla RTT {rtt_ms} ms: rho {rho:.1}, cwnd growth {w_per_s:.1} seg/s (fluid rho/RTT0 = {:.1}), rate growth {rate_growth:.1} seg/s^2 (1/RTT0^2 = 1600); cwnd {w0:.0} -> {w1:.0}, round recurrence {w:.0}",
            rho / 0.025
        );
        assert!(rel_err(w1 - w0, w - w0) < 0.02, "{w1} vs {w}");
        growth.push(rate_growth);
    }
    for g in &growth {
        assert!(rel_err(*g, 1600.0) < 0.06, "{growth:?}");
    }
    let (lo, hi) = (growth.iter().cloned().fold(f64::MAX, f64::min), growth.iter().cloned().fold(0.0, f64::max));
    assert!(hi / lo < 1.06, "{growth:?}");
}

/// Vegas alone on a 2 Mb/s, 200 ms bottleneck with a large buffer. Vegas's
/// diff = (Expected - Actual) x BaseRTT is the queueing delay in units of
/// the bottleneck's packet time, i.e. the packets waiting in the bottleneck
/// queue (BaseRTT already holds one packet's transmission). Rounded as ns-2
/// rounds it (int(diff + 0.5)), Vegas stops growing once diff >= alpha -
/// 0.5 and shrinks above beta + 0.5: the waiting queue sampled every 10 ms
/// over the last 100 s must average within [alpha - 0.5, beta + 0.5], for
/// (alpha, beta) = (1, 3) and (2, 4), and rise with alpha.
#[test]
fn vegas_keeps_alpha_to_beta_segments_queued() {
    let mut means = vec![];
    for (alpha, beta) in [(1u32, 3u32), (2, 4)] {
        let tcp = format!("variant = \"vegas\", vegas_alpha = {alpha}, vegas_beta = {beta}");
        let text = path("2Mbps", 99.0, "{ kind = \"droptail\", packets = 500 }", &tcp, 150, "10ms");
        let out = run_text(&text, &[]);
        let f = &out.summary.flows[0];
        assert_eq!(f.retransmissions, 0, "a stable path: Vegas never overflows the buffer");
        let q = queue_series(&out, 2, 50.0);
        let busy = out.summary.links[2].utilization;
        let m = mean(&q);
        let (lo, hi) = (q.iter().cloned().fold(f64::MAX, f64::min), q.iter().cloned().fold(0.0, f64::max));
        eprintln!("vegas alpha {alpha} beta {beta}: packets waiting at the bottleneck: mean {m:.2} (min {lo}, max {hi}), utilization {busy:.4}");
        assert!(m >= alpha as f64 - 0.5 && m <= beta as f64 + 0.5, "mean queue {m}");
        assert!(hi <= beta as f64 + 1.0, "max queue {hi}");
        assert!(busy > 0.97, "{busy}");
        means.push(m);
    }
    assert!(means[1] > means[0] + 0.5, "{means:?}");
}

/// CUBIC (C = 0.4, beta = 0.7, no fast convergence, no HyStart) on 20 Mb/s,
/// RTT 600 ms (BDP 1000 segments), a 200-packet buffer: after 30 s one
/// loss every ~10 s at W ~ 1200 segments. For each such epoch, W_max = the
/// cwnd before the drop, cwnd_epoch = the cwnd recovery leaves, K =
/// cbrt((W_max - cwnd_epoch) / C), t_e = when cwnd starts to grow; the
/// epoch's samples (after its first RTT) match W(t - t_e) within 1% RMS of
/// W_max, and the best-fitting time shift is under half an RTT.
#[test]
fn cubic_window_follows_w_of_t_between_losses() {
    let tcp = "variant = \"cubic\", cubic_fast_convergence = false, cubic_hystart = false";
    let text = path("20Mbps", 299.0, "{ kind = \"droptail\", packets = 200 }", tcp, 120, "20ms");
    let out = run_text(&text, &[]);
    let s = cwnd_series(&out, 0.0, 120.0);
    // loss epochs: a sample more than 20% below the previous one
    let drops: Vec<usize> = (1..s.len()).filter(|&i| s[i].1 < 0.8 * s[i - 1].1).collect();
    assert!(drops.len() >= 8, "{} losses", drops.len());
    let mut checked = 0;
    // the first epochs follow slow start's overshoot (a timeout, several
    // recoveries); from 30 s on every epoch is one loss at the buffer's edge
    let steady: Vec<usize> = drops.into_iter().filter(|&d| s[d].0 > 30.0).collect();
    for pair in steady.windows(2) {
        let (d, next) = (pair[0], pair[1]);
        let w_max = s[d - 1].1;
        // the epoch starts when recovery ends: cwnd's lowest value after
        // the drop is cwnd_epoch
        let (e, cwnd_epoch) = (d..next).map(|i| (i, s[i].1)).fold((d, f64::MAX), |a, b| if b.1 < a.1 { b } else { a });
        let k = ((w_max - cwnd_epoch) / 0.4).cbrt();
        // the epoch begins when recovery ends: the last sample at cwnd_epoch
        let t_e = s[(e..next).find(|&i| s[i].1 > cwnd_epoch + 0.5).unwrap() - 1].0;
        let pts: Vec<(f64, f64)> = s[e..next - 1].iter().filter(|p| p.0 > t_e + 0.6).cloned().collect();
        let rms = |lead: f64| {
            let se: f64 = pts.iter().map(|&(t, w)| (0.4 * (t - t_e + lead - k).powi(3) + w_max - w).powi(2)).sum();
            (se / pts.len() as f64).sqrt() / w_max
        };
        // cwnd moves towards W(t + RTT) within each RTT, so it may run ahead
        // of W(t - t_e) (t_e is known to one 20 ms sample): fit the lead
        let (mut lead, mut best) = (0.0, f64::MAX);
        for i in -120..=120 {
            let l = i as f64 * 0.005;
            if rms(l) < best {
                best = rms(l);
                lead = l;
            }
        }
        eprintln!(
            "cubic epoch from {t_e:.2} s (loss at {:.2} s): W_max {w_max:.0} seg, cwnd_epoch {cwnd_epoch:.0}, K {k:.2} s; cwnd vs W(t - t_e + lead): best lead {lead:.3} s, rms {best:.4} (lead 0: {:.4})",
            s[d].0,
            rms(0.0)
        );
        assert!(best < 0.01, "rms {best}");
        assert!(lead.abs() < 0.3, "lead {lead}");
        assert!(rms(0.0) < 0.01, "rms at lead 0: {}", rms(0.0));
        checked += 1;
    }
    assert!(checked >= 6);
}

/// BBR on 10 Mb/s, RTT 600 ms (BDP 500 packets) with a 1000-packet buffer,
/// from 20 to 59 s: the delivery rate in most seconds (the median of
/// one-second rates) is within 3% of the bottleneck's payload rate, and the
/// standing queue stays a small part of the BDP. Overall goodput is lower by
/// ProbeRTT: every 10 s about 200 ms + 2 RTT at 4 segments, an expected
/// share of 1 - 1.4/10 = 0.86.
#[test]
fn bbr_delivers_near_the_bottleneck_with_a_small_queue() {
    let text = path("10Mbps", 299.0, "{ kind = \"droptail\", packets = 1000 }", "variant = \"bbr\"", 60, "10ms");
    let out = run_text(&text, &[]);
    let fs = &out.flow_series;
    let at = |t: f64| {
        let i = fs.time_s.iter().position(|&x| x >= t - 1e-9).unwrap();
        fs.delivered_bytes[i]
    };
    let payload_rate = 10e6 * 1460.0 / 1500.0;
    let mut per_s: Vec<f64> = (20..59).map(|t| (at(t as f64 + 1.0) - at(t as f64)) * 8.0 / payload_rate).collect();
    per_s.sort_by(|a, b| a.partial_cmp(b).unwrap());
    let median = per_s[per_s.len() / 2];
    let overall = (at(59.0) - at(20.0)) * 8.0 / 39.0 / payload_rate;
    let q = queue_series(&out, 2, 20.0);
    let (m, hi) = (mean(&q), q.iter().cloned().fold(0.0, f64::max));
    let f = &out.summary.flows[0];
    eprintln!(
        "bbr: median 1-s delivery rate {median:.4} of the payload rate, overall {overall:.4} (ProbeRTT model 0.86), queue mean {m:.1} max {hi} packets (BDP 500), retransmissions {}",
        f.retransmissions
    );
    assert!(median > 0.97 && median < 1.0 + 1e-9, "{median}");
    assert!(overall > 0.83 && overall < 0.92, "{overall}");
    assert!(m < 0.1 * 500.0, "mean queue {m}");
    assert_eq!(f.retransmissions, 0);
}
