//! Router agents with their real users: a receive-window clamp at the
//! gateway brings a flow down to clamp/RTT (in the window scale the
//! connection negotiated), a monitor sees every corrupted packet before the
//! node discards it, and the scenario the engine-seams issue writes out
//! (the GEO bent pipe with an outage, a rate and a delay change, and a
//! clamp) runs as written.

mod common;
use common::*;

/// A loss-free GEO path; the receiver offers 1 MiB (window scale 5: the
/// window field counts 32-byte units).
const GEO: &str = r#"
[run]
stop = "60s"
sample_interval = "100ms"
[nodes]
server = {}
gateway = {}
client = {}
[[links]]
a = "server"
b = "gateway"
rate = "10Mbps"
delay = "5ms"
[[links]]
a = "gateway"
b = "client"
rate_ab = "2048kbps"
rate_ba = "256kbps"
delay = "250ms"
[[flows]]
name = "f"
src = "server"
dst = "client"
tcp = { variant = "sack", rwnd = "1MiB", delayed_ack = false }
app = { kind = "ftp" }
[[agents]]
node = "gateway"
kind = "rwnd_clamp"
bytes = 46720
"#;

/// Goodput over [t0, t1) from the delivered-bytes series.
fn goodput(out: &satcp_core::RunOutput, t0: f64, t1: f64) -> f64 {
    let s = &out.flow_series;
    let at = |t: f64| (0..s.time_s.len()).find(|&i| (s.time_s[i] - t).abs() < 1e-9).map(|i| s.delivered_bytes[i]).unwrap();
    (at(t1) - at(t0)) * 8.0 / (t1 - t0)
}

#[test]
fn a_window_clamp_brings_the_rate_down_to_clamp_over_rtt() {
    let out = run_text(GEO, &[]);
    // 46,720 bytes = 32 segments of 1460 = 1460 units of 32 bytes: the
    // clamped window is exactly 32 segments
    let bytes = 46_720.0;
    let tx = |b: f64, rate: f64| b * 8.0 / rate;
    let rtt = 2.0 * (0.005 + 0.250) + tx(1500.0, 10e6) + tx(1500.0, 2.048e6) + tx(40.0, 256e3) + tx(40.0, 10e6);
    let expect = bytes * 8.0 / rtt;
    let ours = goodput(&out, 20.0, 59.0);
    eprintln!("clamped goodput {ours:.0} b/s, clamp/RTT {expect:.0} b/s");
    assert!(rel_err(ours, expect) < 0.02, "{ours} vs {expect}");
    let c = &out.summary.agents[0].counters;
    assert!(c["segments_clamped"] > 0 && c["segments_clamped"] <= c["segments_seen"]);
    // without the clamp the same flow fills the 2 Mb/s link
    let free = run_text(GEO, &["agents=[]"]);
    let g = goodput(&free, 20.0, 59.0);
    assert!(g > 1.8e6, "{g}");
}

#[test]
fn the_clamp_never_raises_a_window() {
    // the receiver offers 20,000 bytes: a 46,720-byte clamp changes nothing
    let small = run_text(GEO, &["flows.f.tcp.rwnd=20440"]);
    let clamped = small.summary.agents[0].counters["segments_clamped"];
    let plain = run_text(GEO, &["flows.f.tcp.rwnd=20440", "agents=[]"]);
    assert_eq!(clamped, 0);
    assert_eq!(small.summary.flows[0].bytes_delivered, plain.summary.flows[0].bytes_delivered);
}

#[test]
fn a_monitor_sees_every_corrupted_packet_before_it_is_discarded() {
    // UDP at 1 Mb/s for 50 s over a link with PER 1%; the run goes on
    // until every packet has arrived or been lost
    let cbr = TwoNodes::new("2Mbps", "250ms")
        .stop("60s")
        .link("errors_ab = { per = 0.01 }")
        .flow(None, "", "kind = \"cbr\", rate = \"1Mbps\", packet_size = 1000, stop = \"50s\"")
        .then("[[agents]]\nnode = \"b\"\nkind = \"monitor\"\n")
        .toml();
    let out = run_text(&cbr, &[]);
    let corrupted = out.summary.agents[0].counters["corrupted_arrivals"];
    let errors = out.summary.links[0].drops.errors;
    let udp = out.summary.flows[0].udp.unwrap();
    assert!(errors > 30, "{errors}");
    assert_eq!(corrupted, errors, "every packet the link corrupted reached b's agent");
    assert_eq!(out.summary.agents[0].counters["corrupted_bytes"], 1000 * errors);
    assert_eq!(udp.packets_lost, errors);
    assert_eq!(udp.packets_received + udp.packets_lost, udp.packets_sent);
    // a TCP flow's results are those of the run without the monitor:
    // delivering corrupted packets to an agent changes nothing else
    let scn = GEO.replace("kind = \"rwnd_clamp\"\nbytes = 46720", "kind = \"monitor\"");
    let with = run_text(&scn, &["links.1.errors_ab={ per = 0.01 }", "agents.0.node=client"]);
    let without = run_text(GEO, &["links.1.errors_ab={ per = 0.01 }", "agents=[]"]);
    assert!(with.summary.agents[0].counters["corrupted_arrivals"] > 0);
    assert_eq!(with.summary.flows[0].bytes_delivered, without.summary.flows[0].bytes_delivered);
    assert_eq!(with.summary.flows[0].retransmissions, without.summary.flows[0].retransmissions);
    assert_eq!(with.summary.events, without.summary.events + with.summary.agents[0].counters["corrupted_arrivals"], "one event per corrupted packet delivered, and no other");
}

#[test]
fn the_issue_scenario_runs_as_written() {
    let text = std::fs::read_to_string(repo_root().join("scenarios/geo_bent_pipe.toml")).unwrap();
    let text = text.replace(
        "errors_ab = { ber = 1e-7 }\n",
        r#"errors_ab = { ber = 1e-7 }
changes = [
  { at = "20s", down = true },          # everything queued or in flight on the link is lost
  { at = "22s", down = false },
  { at = "40s", rate_ab = "1024kbps" },
  { at = "60s", delay = "300ms" },
]
"#,
    ) + r#"
[[agents]]
node = "gateway"
kind = "rwnd_clamp"                     # lowers the window field of ACKs it forwards, never raises it
bytes = 32000
"#;
    let out = run_text(&text, &["flows.download.app.size=5MB"]);
    let f = &out.summary.flows[0];
    assert!(f.completed && f.bytes_delivered == 5_000_000 && f.integrity_errors == 0);
    let json: serde_json::Value = serde_json::from_str(&out.summary_json()).unwrap();
    let drops = &json["links"][2]["drops"];
    assert!(drops["down"].as_u64().is_some() && drops["queue"].is_u64() && drops["errors"].is_u64());
    assert_eq!(json["nodes"].as_array().unwrap().len(), 3);
    assert!(json["nodes"][0]["drops_no_route"].is_u64());
    assert_eq!(json["agents"][0]["kind"], "rwnd_clamp");
}
