//! A run of 10^8 events, its memory checked: memory grows with flows and
//! queued packets, not with simulated time. The same 50-flow GEO network
//! for about 10^7 events and then ten times as long; the process's peak
//! resident memory may grow by at most 10% (alone in its test binary, so
//! no other test's memory counts).

use satcp_core::scenario::parse_toml;

fn peak_rss_kb() -> u64 {
    let s = std::fs::read_to_string("/proc/self/status").unwrap();
    s.lines().find(|l| l.starts_with("VmHWM:")).unwrap().split_whitespace().nth(1).unwrap().parse().unwrap()
}

fn network(stop_s: u64) -> String {
    let mut s = format!(
        "[run]\nstop = \"{stop_s}s\"\n[nodes]\nservers = {{}}\ngw = {{}}\nclients = {{}}\n[[links]]\na = \"servers\"\nb = \"gw\"\nrate = \"1Gbps\"\ndelay = \"2ms\"\n[[links]]\na = \"gw\"\nb = \"clients\"\nrate = \"100Mbps\"\ndelay = \"250ms\"\nqueue_ab = {{ kind = \"droptail\", packets = 1000 }}\n"
    );
    for i in 0..50 {
        let v = if i % 2 == 0 { "sack" } else { "newreno" };
        s += &format!("[[flows]]\nsrc = \"servers\"\ndst = \"clients\"\ntcp = {{ variant = \"{v}\", rwnd = \"4MiB\" }}\napp = {{ kind = \"ftp\", start = \"{}ms\" }}\n", 20 * i);
    }
    s
}

#[test]
fn a_hundred_million_events_in_the_memory_of_ten_million() {
    let short = satcp_core::run(&parse_toml(&network(410), &[]).unwrap());
    let after_short = peak_rss_kb();
    let long = satcp_core::run(&parse_toml(&network(4100), &[]).unwrap());
    let after_long = peak_rss_kb();
    assert!(short.summary.events > 9_000_000, "{}", short.summary.events);
    assert!(long.summary.events >= 100_000_000, "{}", long.summary.events);
    assert!(
        after_long as f64 <= after_short as f64 * 1.10,
        "peak RSS {after_short} kB after {} events, {after_long} kB after {}",
        short.summary.events,
        long.summary.events
    );
}
