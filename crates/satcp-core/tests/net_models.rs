//! The network models inside whole runs: UDP cross traffic shares queues with
//! TCP and is counted exactly; RED, the burst error models and reordering
//! keep TCP's delivery invariant; runs stay deterministic.

mod common;
use common::*;

use satcp_core::scenario::parse_toml_in;

/// h1 -> n1 (10 Mb/s, 1 ms) -> h2 over a 2 Mb/s, 50 ms link; `sat` holds
/// extra keys of the bottleneck link, `flows` the [[flows]] tables.
fn dumbbell(sat: &str, flows: &str, stop: &str) -> String {
    format!(
        r#"
[run]
seed = 7
{stop}
[nodes]
h1 = {{}}
n1 = {{}}
h2 = {{}}
[[links]]
a = "h1"
b = "n1"
rate = "10Mbps"
delay = "1ms"
[[links]]
name = "sat"
a = "n1"
b = "h2"
rate = "2Mbps"
delay = "50ms"
{sat}
{flows}
"#
    )
}

const TCP_1MB: &str = r#"
[[flows]]
name = "bulk"
src = "h1"
dst = "h2"
tcp = { variant = "sack", mss = 960, initial_window = 1, rwnd = "4MB" }
app = { kind = "ftp", size = 960000 }
"#;

fn cbr(name: &str, rate: &str, extra: &str) -> String {
    format!(
        "\n[[flows]]\nname = \"{name}\"\nsrc = \"h1\"\ndst = \"h2\"\napp = {{ kind = \"cbr\", rate = \"{rate}\", packet_size = 1000{extra} }}\n"
    )
}

#[test]
fn cbr_below_the_link_rate_delivers_every_byte() {
    // 0.8 Mb/s of 1000-byte packets for 10 s: one packet every 10 ms, the
    // first at 0 and none at or after 10 s: exactly 1000 packets, 1,000,000
    // IP bytes, all delivered (2 Mb/s link, no queue builds up).
    let out = run_text(&dumbbell("queue_ab = { kind = \"droptail\", packets = 50 }", &cbr("cbr", "0.8Mbps", ", stop = \"10s\""), ""), &[]);
    let f = &out.summary.flows[0];
    let u = f.udp.expect("udp counters");
    assert_eq!((u.packets_sent, u.bytes_sent), (1000, 1_000_000));
    assert_eq!((u.packets_received, u.bytes_received, u.packets_lost), (1000, 1_000_000, 0));
    assert_eq!((f.app.as_str(), f.variant.as_str(), f.final_cwnd_bytes, f.segments_sent), ("cbr", "udp", 0, 0));
    assert_eq!(out.summary.ended_by, "idle");
    // the sat link carried them; the last arrives 9.99 s + 4 ms + 50 ms + access
    let sat = &out.summary.links[2];
    assert_eq!(sat.bytes_tx, 1_000_000);
    assert_eq!(sat.max_queue_packets, 0);
    let end = 9.99 + 0.0008 + 0.001 + 0.004 + 0.05;
    assert!((out.summary.sim_time_s - end).abs() < 1e-6, "{}", out.summary.sim_time_s);
}

#[test]
fn cbr_above_the_link_rate_fills_the_queue_and_drops_the_excess() {
    // 3 Mb/s offered to 2 Mb/s for 20 s: the queue reaches its 50-packet
    // limit, the link delivers 2 Mb/s, and a third of the packets are lost.
    let out = run_text(&dumbbell("queue_ab = { kind = \"droptail\", packets = 50 }", &cbr("flood", "3Mbps", ", stop = \"20s\""), ""), &[]);
    let u = out.summary.flows[0].udp.unwrap();
    let sat = &out.summary.links[2];
    assert_eq!(u.packets_sent, 7500);
    assert_eq!(sat.max_queue_packets, 50);
    assert_eq!(u.packets_lost, sat.drops.queue);
    assert_eq!(u.packets_sent, u.packets_received + u.packets_lost, "nothing left in flight at the end");
    // received = what 2 Mb/s carries in 20 s plus the 50 queued: 5000 + 50 + 1
    assert!((u.packets_received as i64 - 5051).abs() <= 1, "{}", u.packets_received);
}

#[test]
fn udp_and_tcp_share_the_bottleneck_queue() {
    // 1.7 Mb/s of CBR leaves TCP 0.3 Mb/s: the TCP flow takes far longer
    // than alone and both lose packets at the shared 50-packet queue.
    let q = "queue_ab = { kind = \"droptail\", packets = 50 }";
    let alone = run_text(&dumbbell(q, TCP_1MB, ""), &[]);
    let shared = run_text(&dumbbell(q, &format!("{TCP_1MB}{}", cbr("cbr", "1.7Mbps", "")), ""), &[]);
    let t_alone = alone.summary.flows[0].completion_s.unwrap();
    let t_shared = shared.summary.flows[0].completion_s.unwrap();
    assert!(t_shared > 3.0 * t_alone, "{t_alone} vs {t_shared}");
    let u = shared.summary.flows[1].udp.unwrap();
    let sat = &shared.summary.links[2];
    assert!(u.packets_lost > 0);
    assert!(sat.drops.queue > u.packets_lost, "TCP lost packets at the same queue");
    assert_eq!(shared.summary.flows[0].bytes_delivered, 960_000);
    assert_eq!(shared.summary.ended_by, "completed");
}

#[test]
fn onoff_sources_run_and_are_counted() {
    for dist in ["dist = \"exponential\"", "dist = \"pareto\", shape = 1.5"] {
        let flows = format!(
            "\n[[flows]]\nname = \"oo\"\nsrc = \"h1\"\ndst = \"h2\"\napp = {{ kind = \"onoff\", {dist}, rate = \"1Mbps\", packet_size = 500, mean_on = \"200ms\", mean_off = \"300ms\", stop = \"60s\" }}\n"
        );
        let out = run_text(&dumbbell("", &flows, ""), &[]);
        let u = out.summary.flows[0].udp.unwrap();
        // mean rate ~ 1 Mb/s x 0.4 over 60 s = 6000 packets of 500 B
        assert!((3000..9000).contains(&u.packets_sent), "{dist}: {}", u.packets_sent);
        assert_eq!(u.packets_received, u.packets_sent);
    }
}

fn tcp_ok(out: &satcp_core::RunOutput) {
    let f = &out.summary.flows[0];
    assert!(f.completed, "{:?}", out.summary.ended_by);
    assert_eq!(f.bytes_delivered, 960_000);
    assert_eq!(f.integrity_errors, 0);
}

#[test]
fn red_queue_drops_early_and_tcp_completes() {
    // RED with ns-2's automatic thresholds (5, 15 packets on 2 Mb/s) under a
    // TCP flow plus 1 Mb/s of CBR: early drops happen, TCP still delivers.
    let out = run_text(
        &dumbbell("queue_ab = { kind = \"red\", packets = 50 }", &format!("{TCP_1MB}{}", cbr("cbr", "1Mbps", "")), "sample_interval = \"100ms\""),
        &[],
    );
    tcp_ok(&out);
    let d = &out.summary.links[2].drops;
    assert!(d.red_early > 0, "{d:?}");
    let avg: Vec<f64> = out.link_series.red_avg_packets.iter().copied().filter(|v| !v.is_nan()).collect();
    assert!(!avg.is_empty() && avg.iter().any(|&a| a > 5.0), "the average crossed min_th");
    assert!(out.flow_series.flow.iter().all(|&f| f == 0), "the CBR flow has no TCP time series");
    // the same run twice is bit-identical
    let again = run_text(
        &dumbbell("queue_ab = { kind = \"red\", packets = 50 }", &format!("{TCP_1MB}{}", cbr("cbr", "1Mbps", "")), "sample_interval = \"100ms\""),
        &[],
    );
    assert_eq!(out.summary_json().replace(&format!("{}", out.summary.wall_s), ""), again.summary_json().replace(&format!("{}", again.summary.wall_s), ""));
}

#[test]
fn tcp_under_reordering_delivers_everything_in_order() {
    for variant in ["newreno", "sack"] {
        let out = run_text(
            &dumbbell("reorder_ab = { probability = 0.02, extra_delay = \"30ms\" }", TCP_1MB, ""),
            &[&format!("flows.bulk.tcp.variant={variant}")],
        );
        tcp_ok(&out);
        assert!(out.summary.links[2].reordered > 10, "{}", out.summary.links[2].reordered);
    }
}

#[test]
fn tcp_under_burst_errors_delivers_everything() {
    let models = [
        // gaps of 1-2 s so that bursts fall inside the ~5 s transfer
        "errors_ab = { model = \"dsn_burst\", gap_max = \"2s\" }",
        "errors_ab = { model = \"dsn_burst\", gap_max = \"2s\", per_burst = 0.25, burst_delay = \"550ms\" }",
        "errors_ab = { model = \"dsn_burst\", gap_max = \"2s\", per_burst = 0.01, burst_delay = \"550ms\", burst_delay_order = \"overtake\" }",
        "errors = { model = \"dsn_burst\", gap_max = \"2s\", clock = \"arrival\", bounding = \"clamp\", gap_from = \"end\" }",
        "errors = { model = \"gilbert_elliott\", p_gb = 0.01, p_bg = 0.2, per_bad = 0.8 }",
        "errors_ab = { model = \"gilbert_elliott\", mean_good = \"2s\", mean_bad = \"200ms\", clock = \"arrival\" }",
    ];
    for m in models {
        for variant in ["newreno", "sack"] {
            let out = run_text(&dumbbell(m, TCP_1MB, ""), &[&format!("flows.bulk.tcp.variant={variant}")]);
            tcp_ok(&out);
            let l = &out.summary.links[2];
            assert!(l.drops.errors > 0 || l.burst_delayed > 0, "{m}: the channel did something");
        }
    }
}

#[test]
fn trace_driven_errors_from_a_file_relative_to_the_scenario() {
    // data/two_bursts.csv: [2.0, 2.3) s at PER 1, [5.0, 5.4) s at PER 0.5.
    // A 1.5 Mb/s CBR (1000 B: 187.5 pkt/s) from t = 0 loses every packet
    // sent in the first burst (56 or 57 of them: transmission starts in
    // [2.0, 2.3)) and about half of the 75 in the second.
    let text = dumbbell("errors_ab = { model = \"trace\", file = \"data/two_bursts.csv\" }", &cbr("cbr", "1.5Mbps", ", stop = \"8s\""), "");
    let base = repo_root().join("crates/satcp-core/tests");
    let scn = parse_toml_in(&text, &[], Some(&base)).unwrap();
    let out = satcp_core::run(&scn);
    let u = out.summary.flows[0].udp.unwrap();
    let lost = out.summary.links[2].drops.errors;
    assert_eq!(u.packets_lost, lost);
    assert!((56 + 25..=57 + 50).contains(&lost), "{lost}");
    assert_eq!(u.packets_sent, 1500);
    // the same file by absolute path; a missing file names the field
    let abs = text.replace("data/two_bursts.csv", &base.join("data/two_bursts.csv").display().to_string());
    assert!(parse_toml_in(&abs, &[], None).is_ok());
    let e = parse_toml_in(&text, &[], None).unwrap_err();
    assert_eq!(e.path, "links.sat.errors_ab.file".replace("sat", "1"));
    assert!(e.allowed.contains("cannot read"), "{}", e.allowed);
}

/// The S-LACP approximation on a replayed burst (`burst_delay` on the
/// trace model): data/one_clean_burst.csv is [2.0, 2.3) s at PER 0, so the
/// 1.5 Mb/s CBR loses nothing and each of its 56 or 57 packets whose
/// transmission starts in the burst arrives 100 ms late; in order, the
/// packets behind them wait too, so none is reordered.
#[test]
fn trace_bursts_can_delay_the_packets_they_spare() {
    let text = dumbbell(
        "errors_ab = { model = \"trace\", file = \"data/one_clean_burst.csv\", burst_delay = \"100ms\" }",
        &cbr("cbr", "1.5Mbps", ", stop = \"8s\""),
        "",
    );
    let base = repo_root().join("crates/satcp-core/tests");
    let out = satcp_core::run(&parse_toml_in(&text, &[], Some(&base)).unwrap());
    let l = &out.summary.links[2];
    assert_eq!((l.drops.errors, l.reordered), (0, 0));
    assert!((56..=57).contains(&l.burst_delayed), "{}", l.burst_delayed);
    let overtake = text.replace("burst_delay = \"100ms\"", "burst_delay = \"100ms\", burst_delay_order = \"overtake\"");
    let out = satcp_core::run(&parse_toml_in(&overtake, &[], Some(&base)).unwrap());
    assert!(out.summary.links[2].reordered > 0);
}
