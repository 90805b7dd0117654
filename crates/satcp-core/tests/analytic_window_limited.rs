//! Analytical check: a loss-free, receiver-window-limited transfer takes the
//! time a round-by-round calculation predicts (handshake, slow start up to
//! the window, then one rwnd per RTT, serialisation included), within 2%.

mod common;
use common::*;

const SCENARIO: &str = r#"
[nodes]
server = {}
client = {}
[[links]]
a = "server"
b = "client"
rate = "100Mbps"
delay = "275ms"
[[flows]]
name = "f"
src = "server"
dst = "client"
tcp = { variant = "newreno", mss = 1460, initial_window = 2, rwnd = 65535, window_scaling = false, delayed_ack = false }
app = { kind = "ftp", size = "10MB" }
"#;

/// Time for `size` bytes: one RTT of handshake, then rounds of w segments,
/// w doubling from IW (one SMSS per ACK) until floor(rwnd / mss); the last
/// byte arrives one way after the last round starts, behind its burst.
fn analytical(size: u64, mss: u64, iw: u64, rwnd: u64, one_way_s: f64, rate_bps: f64) -> f64 {
    let hdr = 40.0;
    let tx = |bytes: f64| bytes * 8.0 / rate_bps;
    let syn_rtt = 2.0 * (one_way_s + tx(52.0)); // SYN and SYN-ACK carry 12 option bytes
    let data_rtt = 2.0 * one_way_s + tx(mss as f64 + hdr) + tx(hdr);
    let segments = size.div_ceil(mss);
    let cap = rwnd / mss;
    let (mut sent, mut w, mut rounds) = (0u64, iw, 0u64);
    let mut last_round = 0;
    while sent < segments {
        last_round = w.min(cap).min(segments - sent);
        sent += last_round;
        rounds += 1;
        w = (2 * w).min(cap);
    }
    syn_rtt + (rounds - 1) as f64 * data_rtt + last_round as f64 * tx(mss as f64 + hdr) + one_way_s
}

#[test]
fn window_limited_transfer_matches_rwnd_over_rtt() {
    let out = run_text(SCENARIO, &[]);
    let f = &out.summary.flows[0];
    assert!(f.completed);
    let ours = f.completion_s.unwrap();
    let expect = analytical(10_000_000, 1460, 2, 65535, 0.275, 100e6);
    eprintln!("window-limited 10 MB: ours {ours:.3} s, analytical {expect:.3} s");
    assert!(rel_err(ours, expect) < 0.02, "{ours} vs {expect}");
    // the steady state is rwnd-limited: goodput near 44 x 1460 B per RTT
    let per_rtt = f.goodput_bps / 8.0 * 0.550;
    assert!(per_rtt < 65535.0 && per_rtt > 0.9 * 44.0 * 1460.0, "{per_rtt}");
}

#[test]
fn doubling_the_rtt_halves_the_window_limited_rate() {
    let short = run_text(SCENARIO, &[]).summary.flows[0].goodput_bps;
    let long = run_text(SCENARIO, &["links.0.delay=550ms"]).summary.flows[0].goodput_bps;
    let ratio = short / long;
    assert!((1.9..2.05).contains(&ratio), "{ratio}");
}
