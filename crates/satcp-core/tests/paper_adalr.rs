//! ADaLR thesis Table 7.5 (and 7.6), lossless TCP SACK / NewReno 50 MB
//! download over the Fig. 7.2 GEO path: within 5% of the thesis with delayed
//! ACK enabled and disabled. Delays and readings are documented in
//! scenarios/adalr_geo.toml and docs/validation.md.

mod common;
use common::*;

/// The thesis' baseline value for a variant name and a delayed-ACK column
/// (`x`: Table 5.1's RTT in ms, else empty).
fn thesis_baseline(table: &str, x: &str, variant: &str, col: &str) -> f64 {
    let preset = if variant == "TCP SACK" { "sack" } else { "newreno" };
    let dack = if col == "delayed_ack_enabled_s" { "true" } else { "false" };
    adalr_thesis(table, &[("variant", preset), ("delayed_ack", dack), ("x", x)])
}

fn paper(table: &str, _eth: &str, variant: &str, col: &str) -> f64 {
    thesis_baseline(table, "", variant, col)
}

fn check(table: &str, eth: &str, extra: &[&str]) {
    for (variant, preset) in [("TCP SACK", "sack"), ("TCP NewReno", "newreno")] {
        for (col, dack) in [("delayed_ack_enabled_s", "true"), ("delayed_ack_disabled_s", "false")] {
            let v = format!("flows.ftp.tcp.variant={preset}");
            let s = format!("flows.ftp.tcp.sack={}", preset == "sack");
            let d = format!("flows.ftp.tcp.delayed_ack={dack}");
            let mut sets = vec![v.as_str(), s.as_str(), d.as_str()];
            sets.extend_from_slice(extra);
            let out = run_file("adalr_geo.toml", &sets);
            let f = &out.summary.flows[0];
            assert!(f.completed && f.fin_done_at_s.is_some());
            assert_eq!(f.retransmissions, 0);
            let ours = f.completion_s.unwrap();
            let theirs = paper(table, eth, variant, col);
            let err = rel_err(ours, theirs);
            eprintln!("ADaLR Table {table} {variant} {col}: ours {ours:.1} s, thesis {theirs:.1} s, {:.2}%", 100.0 * err);
            assert!(err < 0.05, "Table {table} {variant} {col}: {ours} vs {theirs}");
        }
    }
}

#[test]
fn table_7_5_sack_and_newreno_lossless_within_5_percent() {
    check("7.5", "base", &[]);
}

#[test]
fn table_7_6_ethernet_delay_50ms_within_5_percent() {
    check("7.6", "50ms", &["links.ethernet.delay=50ms"]);
}

#[test]
fn delayed_ack_costs_about_one_percent_as_the_thesis_says() {
    let on = run_file("adalr_geo.toml", &[]).summary.flows[0].completion_s.unwrap();
    let off = run_file("adalr_geo.toml", &["flows.ftp.tcp.delayed_ack=false"]).summary.flows[0].completion_s.unwrap();
    let diff = (on - off) / off;
    assert!(diff > 0.0 && diff < 0.03, "{diff}");
}

// ----- baselines of the other tables (data/published/adalr_thesis.csv) --

const PRESETS: [(&str, &str); 2] = [("TCP SACK", "sack"), ("TCP NewReno", "newreno")];
const DACK: [(&str, &str); 2] = [("delayed_ack_enabled_s", "true"), ("delayed_ack_disabled_s", "false")];

fn baseline(table: &str, case: &str, variant: &str, col: &str) -> f64 {
    let x = case.strip_prefix("rtt").and_then(|c| c.strip_suffix("ms")).unwrap_or("");
    thesis_baseline(table, x, variant, col)
}

/// Overrides selecting a variant preset and the delayed-ACK setting for flow `flow`.
fn variant_sets(flow: &str, preset: &str, dack: &str) -> Vec<String> {
    vec![
        format!("flows.{flow}.tcp.variant={preset}"),
        format!("flows.{flow}.tcp.sack={}", preset == "sack"),
        format!("flows.{flow}.tcp.delayed_ack={dack}"),
    ]
}

/// The link direction from node `from` to node `to`.
fn link<'a>(out: &'a satcp_core::RunOutput, from: &str, to: &str) -> &'a satcp_core::stats::output::LinkSummary {
    out.summary.links.iter().find(|l| l.from == from && l.to == to).unwrap()
}

fn run_sets(file: &str, sets: &[String]) -> satcp_core::RunOutput {
    let refs: Vec<&str> = sets.iter().map(String::as_str).collect();
    run_file(file, &refs)
}

/// Table 5.1: TCP SACK with delayed ACK, RTT r in {25, ..., 500} ms, as the
/// satellite hop's one-way delay r/2 + 18 ms (the Ethernet stays at 10 ms), so
/// that r = 500 is Table 7.5's path. Rows 25-200 are capped by the downlink
/// (with its 292-byte framing), rows 250-500 by the 64 KB window.
#[test]
fn table_5_1_sack_rtt_sweep_within_5_percent() {
    for r in [25u32, 50, 100, 200, 250, 500] {
        let delay = format!("links.satellite.delay={}us", r * 500 + 18_000);
        let out = run_sets("adalr_geo.toml", &[delay]);
        let f = &out.summary.flows[0];
        assert!(f.completed && f.fin_done_at_s.is_some());
        assert_eq!(f.retransmissions, 0);
        let ours = f.completion_s.unwrap();
        let theirs = baseline("5.1", &format!("rtt{r}ms"), "TCP SACK", "delayed_ack_enabled_s");
        let err = rel_err(ours, theirs);
        eprintln!("ADaLR Table 5.1 RTT {r} ms: ours {ours:.1} s, thesis {theirs:.1} s, {:+.2}%", 100.0 * (ours - theirs) / theirs);
        assert!(err < 0.05, "Table 5.1 RTT {r} ms: {ours} vs {theirs}");
    }
}

/// The rate-capped rows of Table 5.1 rise by 0.2, 0.4 and 1.0 s from 25 to
/// 200 ms (the handshake and slow start taking a little longer); ours rise
/// within 0.1 s of each step.
#[test]
fn table_5_1_rate_capped_rows_rise_as_the_thesis_does() {
    let t = |r: u32| {
        let out = run_sets("adalr_geo.toml", &[format!("links.satellite.delay={}us", r * 500 + 18_000)]);
        out.summary.flows[0].completion_s.unwrap()
    };
    let ours: Vec<f64> = [25, 50, 100, 200].iter().map(|&r| t(r)).collect();
    let theirs = [251.9, 252.1, 252.5, 253.5];
    for i in 1..4 {
        let (dq, dt) = (ours[i] - ours[0], theirs[i] - theirs[0]);
        assert!((dq - dt).abs() < 0.1, "step {i}: ours {dq:.2} s, thesis {dt:.2} s");
    }
}

/// Table 7.7: satellite downlink 10 Mb/s, uplink 1 Mb/s (window-limited, so
/// only about 2% faster than at 2 Mb/s).
#[test]
fn table_7_7_faster_satellite_link_within_5_percent() {
    for (variant, preset) in PRESETS {
        for (col, dack) in DACK {
            let mut sets = variant_sets("ftp", preset, dack);
            sets.push("links.satellite.rate_ab=10Mbps".into());
            sets.push("links.satellite.rate_ba=1Mbps".into());
            let out = run_sets("adalr_geo.toml", &sets);
            let f = &out.summary.flows[0];
            assert!(f.completed);
            assert_eq!(f.retransmissions, 0);
            let ours = f.completion_s.unwrap();
            let theirs = baseline("7.7", "sat10Mbps", variant, col);
            eprintln!("ADaLR Table 7.7 {variant} {col}: ours {ours:.1} s, thesis {theirs:.1} s, {:+.2}%", 100.0 * (ours - theirs) / theirs);
            assert!(rel_err(ours, theirs) < 0.05, "Table 7.7 {variant} {col}: {ours} vs {theirs}");
        }
    }
}

fn http_page(sets: &[String]) -> (f64, satcp_core::RunOutput) {
    http_page_in("adalr/http.toml", sets)
}

fn http_page_in(file: &str, sets: &[String]) -> (f64, satcp_core::RunOutput) {
    let out = run_sets(file, sets);
    let f = &out.summary.flows[0];
    assert!(f.completed);
    assert_eq!(f.pages_completed, 1);
    (f.mean_page_response_s.unwrap(), out)
}

/// Table 7.8: the HTTP page (scenarios/adalr/http.toml) on the lossless path.
#[test]
fn table_7_8_http_page_within_5_percent() {
    for (variant, preset) in PRESETS {
        for (col, dack) in DACK {
            let (ours, out) = http_page(&variant_sets("http", preset, dack));
            assert_eq!(out.summary.flows[0].retransmissions, 0);
            let theirs = baseline("7.8", "http_ideal", variant, col);
            eprintln!("ADaLR Table 7.8 {variant} {col}: ours {ours:.2} s, thesis {theirs:.1} s, {:+.2}%", 100.0 * (ours - theirs) / theirs);
            assert!(rel_err(ours, theirs) < 0.05, "Table 7.8 {variant} {col}: {ours} vs {theirs}");
        }
    }
}

/// The delayed-ACK penalty of Table 7.8 (0.6 s) comes from slow start at
/// every page: ours is within 0.1 s of it.
#[test]
fn table_7_8_delayed_ack_penalty_matches() {
    let (on, _) = http_page(&variant_sets("http", "sack", "true"));
    let (off, _) = http_page(&variant_sets("http", "sack", "false"));
    assert!(((on - off) - 0.6).abs() < 0.1, "on {on:.3} s, off {off:.3} s");
}

/// Tables 7.9 and 7.10 (congestion: gateway buffer of 25 packets for FTP and
/// 15 for HTTP, spec ambiguity 28; 15/25 also checked) are NOT reproduced
/// with the buffer on the 2,048 kb/s link alone (the gateway-service reading
/// below does reproduce Table 7.9): this single window-limited flow (at most 45 segments in flight against a
/// path that holds about 80) never fills such a buffer with delayed ACK (the
/// queue peaks at 9 packets) and only just fills 15 without it (peak 15-17),
/// so it loses 0-4 packets where the thesis' 2.6-fold slowdown needs hundreds.
/// Printed: ours vs thesis; asserted: what the mechanism says.
#[test]
fn tables_7_9_and_7_10_buffer_on_the_2_mbps_link_not_reproduced_and_why() {
    for (variant, preset) in PRESETS {
        for (col, dack) in DACK {
            for (file, flow, table, case, buffer) in [
                ("adalr_geo.toml", "ftp", "7.9", "ftp_congestion", 25),
                ("adalr_geo.toml", "ftp", "7.9", "ftp_congestion", 15),
                ("adalr/http.toml", "http", "7.10", "http_congestion", 15),
                ("adalr/http.toml", "http", "7.10", "http_congestion", 25),
            ] {
                let mut sets = variant_sets(flow, preset, dack);
                let lossless = run_sets(file, &sets);
                sets.push(format!("links.satellite.queue_ab={{packets={buffer}}}"));
                let out = run_sets(file, &sets);
                let f = &out.summary.flows[0];
                let sat = &out.summary.links[2];
                let time = |o: &satcp_core::RunOutput| {
                    let f = &o.summary.flows[0];
                    if flow == "ftp" { f.completion_s.unwrap() } else { f.mean_page_response_s.unwrap() }
                };
                let (ours, base) = (time(&out), time(&lossless));
                let theirs = baseline(table, case, variant, col);
                eprintln!(
                    "ADaLR Table {table} {variant} {col} buffer {buffer}: ours {ours:.2} s (lossless {base:.2} s; {} drops, {} timeouts, {} fast recoveries, queue peak {}), thesis {theirs:.1} s",
                    sat.drops.queue, f.timeouts, f.fast_recoveries, sat.max_queue_packets
                );
                assert!(f.completed);
                assert!(sat.max_queue_packets <= buffer);
                if dack == "true" {
                    // ACK every 2 segments: each ACK releases 3 segments in slow
                    // start, the queue peaks at 9 packets, nothing is lost.
                    assert_eq!(sat.drops.queue, 0);
                    assert_eq!(ours, base);
                } else {
                    assert!(sat.drops.queue <= 4, "{} drops", sat.drops.queue);
                    assert_eq!(f.timeouts, 0);
                    assert!(ours >= base - 1.0);
                }
                // far from the thesis' congested times (2.6x lossless for FTP)
                assert!(ours < 0.6 * theirs, "{ours} vs {theirs}");
            }
        }
    }
}

/// Table 7.9 under the gateway-service reading (scenarios/adalr/ftp_congestion.toml:
/// the gateway forwards 360 kb/s of IP bytes behind a drop-tail buffer of 25
/// packets, or 15 as
/// section 7.3 says): within 5% in all eight cells, losses in every run, and
/// our four times per buffer within 5% of each other, as the thesis' are
/// (its spread is 1.6%), because the bottleneck stays busy through recovery.
#[test]
fn table_7_9_gateway_service_reading_within_5_percent() {
    for buffer in [25u32, 15] {
        let mut times = vec![];
        for (variant, preset) in PRESETS {
            for (col, dack) in DACK {
                let mut sets = variant_sets("ftp", preset, dack);
                sets.push(format!("links.forwarding.queue_ab={{packets={buffer}}}"));
                let out = run_sets("adalr/ftp_congestion.toml", &sets);
                let f = &out.summary.flows[0];
                let sat = link(&out, "gateway", "gateway_out");
                assert!(f.completed && f.fin_done_at_s.is_some());
                assert!(sat.drops.queue >= 10, "{} drops", sat.drops.queue);
                assert!(sat.utilization > 0.9, "bottleneck busy: {}", sat.utilization);
                // the satellite link itself is far from full, as the
                // thesis' "severely reduced" utilisation (Fig. 7.48) says
                assert!(link(&out, "gateway_out", "client").utilization_ok < 0.25);
                let ours = f.completion_s.unwrap();
                let theirs = baseline("7.9", "ftp_congestion", variant, col);
                eprintln!(
                    "ADaLR Table 7.9 (360 kb/s gateway) buffer {buffer} {variant} {col}: ours {ours:.1} s ({} drops, {} timeouts, {} fast recoveries), thesis {theirs:.1} s, {:+.2}%",
                    sat.drops.queue, f.timeouts, f.fast_recoveries, 100.0 * (ours - theirs) / theirs
                );
                assert!(rel_err(ours, theirs) < 0.05, "Table 7.9 buffer {buffer} {variant} {col}: {ours} vs {theirs}");
                times.push(ours);
            }
        }
        let (lo, hi) = times.iter().fold((f64::MAX, 0.0f64), |(l, h), &t| (l.min(t), h.max(t)));
        assert!(hi / lo < 1.05, "spread {lo}..{hi}");
    }
}

/// Table 7.10 (HTTP, buffer 15) under the same 360 kb/s gateway: NOT
/// reproduced. With delayed ACK the page's slow start queues at most 14
/// packets, so nothing is lost (thesis 13.8 / 16.6 s); without it the queue
/// overflows once, 13 packets are lost and one timeout follows (thesis 11.7 s).
#[test]
fn table_7_10_under_the_gateway_service_reading_not_reproduced() {
    for (variant, preset) in PRESETS {
        for (col, dack) in DACK {
            let mut sets = variant_sets("http", preset, dack);
            let (ours, out) = http_page_in("adalr/http_congestion.toml", &sets);
            sets.push("links.forwarding.queue_ab={}".into());
            let (lossless, _) = http_page_in("adalr/http_congestion.toml", &sets);
            let f = &out.summary.flows[0];
            let sat = link(&out, "gateway", "gateway_out");
            let theirs = baseline("7.10", "http_congestion", variant, col);
            eprintln!(
                "ADaLR Table 7.10 (360 kb/s gateway) {variant} {col}: ours {ours:.2} s (lossless {lossless:.2} s; {} drops, {} timeouts, {} fast recoveries, queue peak {}), thesis {theirs:.1} s",
                sat.drops.queue, f.timeouts, f.fast_recoveries, sat.max_queue_packets
            );
            if dack == "true" {
                assert_eq!(sat.drops.queue, 0);
                assert_eq!(ours, lossless);
                assert!(ours < 0.5 * theirs);
            } else {
                assert!(sat.drops.queue > 0 && f.timeouts >= 1);
                assert!(ours > lossless + 2.0 && ours < theirs);
            }
        }
    }
}
