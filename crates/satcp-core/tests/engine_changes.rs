//! Links and routes that change during a run, each with its real user: an
//! outage of the satellite link in the middle of a transfer (and its
//! timeouts in the flow's series), a rate change
//! seen in the link's time series, a delay change that moves a flow to a
//! longer path (seen in its srtt), and a path that comes back after an
//! outage with no alternative.

mod common;
use common::*;
use satcp_core::RunOutput;

/// server - gateway - client - host: a GEO hop (2048/256 kb/s, 250 ms) and a
/// fast last hop, so that the client forwards the data and a monitor there
/// counts what crossed the satellite link.
const GEO: &str = r#"
[run]
seed = 1
stop = "900s"
sample_interval = "100ms"
[nodes]
server = {}
gateway = {}
client = {}
host = {}
[[links]]
a = "server"
b = "gateway"
rate = "10Mbps"
delay = "5ms"
[[links]]
name = "sat"
a = "gateway"
b = "client"
rate_ab = "2048kbps"
rate_ba = "256kbps"
delay = "250ms"
queue_ab = { kind = "droptail", packets = 100 }
changes = [{ at = "20s", down = true }, { at = "22s", down = false }]
[[links]]
a = "client"
b = "host"
rate = "100Mbps"
delay = "1ms"
[[flows]]
name = "download"
src = "server"
dst = "host"
tcp = { variant = "sack", rwnd = "1MiB" }
app = { kind = "ftp", size = 4380000 }
[[agents]]
node = "gateway"
kind = "monitor"
link = "sat"
[[agents]]
node = "client"
kind = "monitor"
link = 2
"#;

fn counter(out: &RunOutput, agent: usize, key: &str) -> u64 {
    out.summary.agents[agent].counters.get(key).copied().unwrap_or(0)
}

#[test]
fn an_outage_loses_exactly_what_is_on_the_link_and_the_flow_recovers_by_rto() {
    let out = run_text(GEO, &[]);
    let f = &out.summary.flows[0];
    assert!(f.completed, "the transfer ends");
    assert_eq!(f.bytes_delivered, 4_380_000, "every byte arrives");
    assert_eq!(f.integrity_errors, 0, "once and in order");
    assert!(f.timeouts >= 1, "recovered by the retransmission timer: {}", f.timeouts);
    let sat = &out.summary.links[2];
    assert_eq!((sat.from.as_str(), sat.to.as_str()), ("gateway", "client"));
    // the link was saturated: a full queue and a pipe of packets were lost
    assert!(sat.drops.down > 50, "{}", sat.drops.down);
    // what the gateway offered the satellite link, less its queue drops and
    // the outage's losses, is what the client forwarded: nothing else was
    // lost and nothing lost was delivered
    let offered = counter(&out, 0, "packets_data");
    let arrived = counter(&out, 1, "packets_data");
    eprintln!("outage: {offered} offered, {arrived} arrived, drops {:?}, timeouts {}, completion {:?}", sat.drops, f.timeouts, f.completion_s);
    assert_eq!(offered - sat.drops.queue - sat.drops.down - sat.drops.errors, arrived, "{offered} offered, {arrived} arrived, {:?}", sat.drops);
    // ACKs on the way back were lost too, and during the outage the
    // senders had no route: counted at the nodes
    assert!(out.summary.links[3].drops.down > 0);
    let no_route: u64 = out.summary.nodes.iter().map(|n| n.drops_no_route).sum();
    assert!(no_route > 0);
    // the link's series shows no rate while it is down
    let ls = &out.link_series;
    let rate_at = |t: f64| (0..ls.time_s.len()).find(|&i| ls.link[i] == 2 && (ls.time_s[i] - t).abs() < 1e-9).map(|i| ls.rate_bps[i]).unwrap();
    assert_eq!((rate_at(19.9), rate_at(20.0), rate_at(21.9), rate_at(22.0)), (2_048_000.0, 0.0, 0.0, 2_048_000.0));
}

#[test]
fn the_flow_series_counts_the_outages_timeouts_when_they_fire() {
    let out = run_text(GEO, &[]);
    let f = &out.summary.flows[0];
    let s = &out.flow_series;
    // cumulative, ending at the summary's counts
    assert!(s.timeouts.windows(2).all(|w| w[1] >= w[0]));
    assert_eq!(*s.timeouts.last().unwrap(), f.timeouts as f64);
    assert_eq!(*s.spurious_rtos.last().unwrap(), f.spurious_rtos as f64);
    // none before the outage at 20 s; the first fires within an RTO of it
    // (the queue and the pipe lost: nothing acknowledges what was sent)
    let first = (0..s.time_s.len()).find(|&i| s.timeouts[i] > 0.0).map(|i| s.time_s[i]).expect("a timeout");
    assert!(first > 20.0 && first < 24.0, "first timeout sampled at {first} s");
}

#[test]
fn the_same_run_without_the_outage_loses_nothing_to_it() {
    let out = run_text(GEO, &["links.sat.changes=[]"]);
    assert_eq!(out.summary.links[2].drops.down, 0);
    assert_eq!(out.summary.flows[0].timeouts, 0);
    assert!(out.summary.nodes.iter().all(|n| n.drops_no_route == 0));
}

/// One UDP source at 3 Mb/s over a 2 Mb/s link that halves its rate at 40 s.
fn rate_change() -> String {
    TwoNodes::new("2Mbps", "10ms")
        .stop("60s")
        .sample_interval("100ms")
        .link("queue = { kind = \"droptail\", packets = 50 }")
        .link("changes = [{ at = \"40s\", rate_ab = \"1Mbps\" }]")
        .flow(None, "", "kind = \"cbr\", rate = \"3Mbps\", packet_size = 1000")
        .toml()
}

#[test]
fn a_rate_change_shows_in_the_link_series_at_its_time() {
    let out = run_text(&rate_change(), &[]);
    let ls = &out.link_series;
    let rows: Vec<usize> = (0..ls.time_s.len()).filter(|&i| ls.link[i] == 0).collect();
    let first_slow = rows.iter().find(|&&i| ls.rate_bps[i] < 2e6).map(|&i| ls.time_s[i]);
    assert_eq!(first_slow, Some(40.0), "the series' rate changes at the scheduled time");
    // bits that left the transmitter per second over a window
    let left = |t: f64| {
        let i = *rows.iter().find(|&&i| (ls.time_s[i] - t).abs() < 1e-9).unwrap();
        ls.bytes_tx[i] - ls.queue_bytes[i]
    };
    let rate = |t0: f64, t1: f64| (left(t1) - left(t0)) * 8.0 / (t1 - t0);
    let before = rate(30.0, 39.9);
    let after = rate(40.5, 59.9);
    eprintln!("departures {before:.0} b/s before, {after:.0} b/s after");
    assert!(rel_err(before, 2e6) < 0.01, "{before}");
    assert!(rel_err(after, 1e6) < 0.01, "{after}");
    // the reverse direction was not changed
    assert_eq!(out.summary.links[1].rate_bps, 2_000_000);
}

/// Two paths from server to client: a short one through r1 (10 + 10 ms) and a
/// long one through r2 (100 + 100 ms). At 10 s the r1-client hop's delay
/// grows to 300 ms, so the long path becomes the shortest.
const TWO_PATHS: &str = r#"
[run]
stop = "30s"
sample_interval = "100ms"
[nodes]
server = {}
r1 = {}
r2 = {}
client = {}
[[links]]
a = "server"
b = "r1"
rate = "10Mbps"
delay = "10ms"
[[links]]
name = "short"
a = "r1"
b = "client"
rate = "10Mbps"
delay = "10ms"
changes = [{ at = "10s", delay = "300ms" }]
[[links]]
a = "server"
b = "r2"
rate = "10Mbps"
delay = "100ms"
[[links]]
a = "r2"
b = "client"
rate = "10Mbps"
delay = "100ms"
[[flows]]
src = "server"
dst = "client"
tcp = { variant = "newreno", rwnd = 20000 }
app = { kind = "ftp" }
[[agents]]
node = "r2"
kind = "monitor"
"#;

fn mean_srtt(out: &RunOutput, t0: f64, t1: f64) -> f64 {
    let s = &out.flow_series;
    let v: Vec<f64> = (0..s.time_s.len()).filter(|&i| s.time_s[i] >= t0 && s.time_s[i] < t1).map(|i| s.srtt_s[i]).collect();
    v.iter().sum::<f64>() / v.len() as f64
}

#[test]
fn a_route_change_to_a_longer_path_shows_in_the_srtt() {
    let out = run_text(TWO_PATHS, &[]);
    let before = mean_srtt(&out, 5.0, 10.0);
    let after = mean_srtt(&out, 20.0, 30.0);
    eprintln!("srtt {before:.4} s before the change, {after:.4} s after");
    // window-limited (20 kB at 10 Mb/s): RTT = propagation + a little
    assert!((0.040..0.050).contains(&before), "{before}");
    assert!((0.400..0.410).contains(&after), "{after}: the new path's 2 x 200 ms");
    assert!(counter(&out, 0, "packets_data") > 0, "data crossed r2 after the change");
    // without the change, r2 never carries data
    let out = run_text(TWO_PATHS, &["links.short.changes=[]"]);
    assert_eq!(counter(&out, 0, "packets_data"), 0);
    assert!((0.040..0.050).contains(&mean_srtt(&out, 20.0, 30.0)));
}

#[test]
fn a_flow_recovers_when_its_only_route_comes_back() {
    let scn = GEO.replace(
        r#"changes = [{ at = "20s", down = true }, { at = "22s", down = false }]"#,
        r#"changes = [{ at = "5s", down = true }, { at = "65s", down = false }]"#,
    );
    let out = run_text(&scn, &[]);
    let f = &out.summary.flows[0];
    assert!(f.completed && f.bytes_delivered == 4_380_000 && f.integrity_errors == 0);
    // a minute without a route: the retransmission timer backs off
    assert!(f.timeouts >= 4, "{}", f.timeouts);
    let server = out.summary.nodes.iter().find(|n| n.name == "server").unwrap();
    assert!(server.drops_no_route >= 4, "each RTO retransmission finds no route: {}", server.drops_no_route);
}
