//! `--set` overrides applied through `parse_toml`: value parsing, addressing
//! by index and by name, and errors for bad paths.

use satcp_core::scenario::*;

const BASE: &str = r#"
[run]
stop = "100s"

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
name = "satellite"
a = "gateway"
b = "client"
rate = "2Mbps"
delay = "250ms"

[[flows]]
name = "download"
src = "server"
dst = "client"
app = { kind = "ftp" }
"#;

fn with(sets: &[&str]) -> Result<Scenario, ScenarioError> {
    let sets: Vec<String> = sets.iter().map(|s| s.to_string()).collect();
    parse_toml(BASE, &sets)
}

#[test]
fn numeric_value() {
    let s = with(&["links.1.errors_ab={ ber = 1e-6 }", "run.seed=42", "links.0.delay=0.5"]).unwrap();
    assert_eq!(s.links[1].dirs[0].errors, ErrorCfg::Ber { ber: 1e-6, fixed_bits: None });
    assert_eq!(s.links[1].dirs[1].errors, ErrorCfg::None);
    assert_eq!(s.run.seed, 42);
    assert_eq!(s.links[0].dirs[1].delay_ns, 500_000_000);
}

#[test]
fn string_fallback() {
    let s = with(&["flows.download.tcp.variant=sack", "links.0.rate_ba=64 kbps"]).unwrap();
    assert_eq!(s.flows[0].tcp.variant, "sack");
    assert_eq!(s.flows[0].tcp.recovery, Recovery::Sack);
    assert_eq!(s.links[0].dirs[1].rate_bps, 64_000);
    assert_eq!(s.links[0].dirs[0].rate_bps, 10_000_000);
}

#[test]
fn by_name_and_by_index() {
    let by_name = with(&["links.satellite.rate_ab=\"512kbps\""]).unwrap();
    let by_index = with(&["links.1.rate_ab=512kbps"]).unwrap();
    assert_eq!(by_name, by_index);
    assert_eq!(by_name.links[1].dirs[0].rate_bps, 512_000);
    let s = with(&["flows.0.app.size=1MB"]).unwrap();
    assert_eq!(s.flows[0].app, with(&["flows.download.app.size=\"1MB\""]).unwrap().flows[0].app);
    match &s.flows[0].app {
        AppCfg::Ftp(f) => assert_eq!(f.size_bytes, Some(1_000_000)),
        other => panic!("{:?}", other),
    }
}

#[test]
fn overrides_apply_in_order() {
    let s = with(&["run.seed=5", "run.seed=6"]).unwrap();
    assert_eq!(s.run.seed, 6);
}

#[test]
fn index_out_of_range() {
    let e = with(&["links.2.rate=1Mbps"]).unwrap_err();
    assert_eq!(e.path, "links.2");
    assert!(e.allowed.contains("0..=1") && e.allowed.contains("\"satellite\""), "{}", e.allowed);
    let e = with(&["flows.upload.tcp.mss=1000"]).unwrap_err();
    assert_eq!(e.path, "flows.upload");
    assert!(e.allowed.contains("\"download\""), "{}", e.allowed);
}

#[test]
fn created_unknown_key_fails_validation() {
    let e = with(&["flows.download.tcp.variantt=sack"]).unwrap_err();
    assert_eq!(e.path, "flows.download.tcp.variantt");
    assert_eq!(e.value, "\"sack\"");
    assert!(e.allowed.contains("unknown key") && e.allowed.contains("variant"), "{}", e.allowed);
    let e = with(&["links.0.rates=1"]).unwrap_err();
    assert_eq!(e.path, "links.0.rates");
}

#[test]
fn bad_value_from_override_names_path() {
    let e = with(&["flows.download.tcp.mss=10"]).unwrap_err();
    assert_eq!(e.path, "flows.download.tcp.mss");
    assert_eq!(e.value, "10");
    assert!(e.allowed.contains("64..=65495"), "{}", e.allowed);
}

#[test]
fn malformed_spec() {
    let e = with(&["run.seed"]).unwrap_err();
    assert!(e.allowed.contains("path=value"), "{}", e.allowed);
    assert!(with(&["=3"]).is_err());
    let e = with(&["links.0.a.x=1"]).unwrap_err();
    assert_eq!(e.path, "links.0.a.x");
}

#[test]
fn json_with_overrides() {
    let json = r#"{"run": {"stop": 10}, "nodes": {"a": {}, "b": {}},
        "links": [{"a": "a", "b": "b", "rate": 1000000, "delay": 0.01}],
        "flows": [{"src": "a", "dst": "b", "app": {"kind": "http"}}]}"#;
    let s = parse_json(json, &["flows.0.tcp.mss=536".to_string()]).unwrap();
    assert_eq!(s.flows[0].name, "flow0");
    assert_eq!(s.flows[0].tcp.mss, 536);
    assert_eq!(s.links[0].dirs[0].delay_ns, 10_000_000);
    assert_eq!(s.run.stop_ns, Some(10_000_000_000));
}
