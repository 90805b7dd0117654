//! Hard edge cases a new user meets (toward the reliability issue), each
//! with what must happen: a clear error naming the field before anything
//! runs, or a run that ends (BER 0.01 and 0.999: `every_run_ends.rs`).

mod common;
use common::*;
use satcp_core::scenario::parse_toml;

const BASE: &str = r#"
[nodes]
a = {}
b = {}
c = {}
[[links]]
a = "a"
b = "b"
rate = "1Mbps"
delay = "0ms"
[[flows]]
name = "f"
src = "a"
dst = "b"
app = { kind = "ftp", size = "1MB" }
"#;

#[test]
fn a_link_with_zero_delay_carries_a_transfer() {
    // 1 MB at 1 Mb/s: the serialisation alone, 8 s and a little
    let out = run_text(BASE, &[]);
    let f = &out.summary.flows[0];
    assert!(f.completed && f.bytes_delivered == 1_000_000 && f.integrity_errors == 0);
    assert!((8.0..8.5).contains(&f.completion_s.unwrap()), "{:?}", f.completion_s);
}

#[test]
fn impossible_flows_are_refused_naming_the_field() {
    let e = |sets: &[&str]| parse_toml(BASE, &sets.iter().map(|s| s.to_string()).collect::<Vec<_>>()).expect_err("refused");
    // a zero-length transfer, a flow to itself, a node no link reaches
    let zero = e(&["flows.f.app.size=0"]);
    assert_eq!(zero.path, "flows.f.app.size");
    let own = e(&["flows.f.dst=\"a\""]);
    assert_eq!(own.path, "flows.f.dst");
    let unreachable = e(&["flows.f.dst=\"c\""]);
    assert_eq!(unreachable.path, "flows.f.dst");
    assert!(unreachable.allowed.contains("reachable"), "{}", unreachable.allowed);
}

/// 10,000 flows on one link: every one completes with every byte.
#[test]
fn ten_thousand_flows_share_one_link() {
    let mut text = String::from(
        "[nodes]\nservers = {}\nclients = {}\n[[links]]\na = \"servers\"\nb = \"clients\"\nrate = \"1Gbps\"\ndelay = \"20ms\"\nqueue = { kind = \"droptail\", packets = 2000 }\n",
    );
    for i in 0..10_000 {
        text += &format!("[[flows]]\nsrc = \"servers\"\ndst = \"clients\"\napp = {{ kind = \"ftp\", size = \"10kB\", start = \"{}us\" }}\n", i * 97);
    }
    let out = run_text(&text, &[]);
    assert_eq!(out.summary.ended_by, "completed");
    assert_eq!(out.summary.flows.len(), 10_000);
    assert!(out.summary.flows.iter().all(|f| f.completed && f.bytes_delivered == 10_000 && f.integrity_errors == 0));
}
