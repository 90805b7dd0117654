//! End-to-end tests of ECN (RFC 3168): TCP flows with `tcp.ecn = true`
//! through RED, CoDel and FQ-CoDel bottlenecks with `ecn = true`; the
//! issue's bound "a marked flow loses nothing and halves once per RTT of
//! marks"; the keys and the summary's fields.

use crate::scenario::parse_toml;

use crate::queue_tests::{bulk_with as bulk, run};

/// A marked flow loses nothing: no retransmission, no drop anywhere, the
/// bottleneck marks, and the sender reduces at most once per round trip
/// (the 30 s hold at most 30 s / 40 ms = 750 RTTs) and no more often than
/// it is marked.
fn check_marked_flow(queue: &str, tcp: &str) -> (u64, u64) {
    let out = run(&bulk(queue, tcp, "30s"));
    let f = &out.summary.flows[0];
    let l = &out.summary.links[2];
    eprintln!("{queue} {tcp}: marks {} drops {:?} reductions {:?} goodput {:.0} util {:.3}", l.marks, l.drops, f.ecn_reductions, f.goodput_bps, l.utilization);
    for l in &out.summary.links {
        let d = &l.drops;
        assert_eq!(d.queue + d.errors + d.red_early + d.red_forced + d.down + d.pushed_out + d.head + d.codel, 0, "{queue}: {d:?}");
    }
    assert_eq!(f.retransmissions, 0, "{queue}");
    assert_eq!(f.timeouts + f.fast_recoveries, 0);
    assert!(l.marks > 0, "{queue}");
    let red = f.ecn_reductions.expect("tcp.ecn = true reports its reductions");
    assert!(red > 0 && red <= l.marks, "{queue}: {red} reductions, {} marks", l.marks);
    assert!(red <= 750, "{queue}: {red}");
    // halving on a 50-packet path costs NewReno some of the link
    assert!(l.utilization > 0.8, "{queue}: {}", l.utilization);
    (red, l.marks)
}

#[test]
fn newreno_through_marking_codel_loses_nothing() {
    check_marked_flow(r#"{ kind = "codel", ecn = true }"#, r#"{ variant = "newreno", rwnd = "8MiB", ecn = true }"#);
}

#[test]
fn cubic_through_marking_codel_fq_codel_and_red_loses_nothing() {
    let tcp = r#"{ variant = "sack", cc = "cubic", rwnd = "8MiB", ecn = true }"#;
    check_marked_flow(r#"{ kind = "codel", ecn = true }"#, tcp);
    check_marked_flow(r#"{ kind = "fq_codel", ecn = true }"#, tcp);
    check_marked_flow(r#"{ kind = "red", packets = 1000, min_th = 20, max_th = 60, ecn = true }"#, tcp);
}

/// The same queues drop a flow that did not negotiate ECN: nothing is
/// ECN-capable, nothing is marked, and no reduction field is reported.
#[test]
fn a_flow_without_ecn_is_dropped_not_marked() {
    let out = run(&bulk(r#"{ kind = "codel", ecn = true }"#, r#"{ variant = "sack", cc = "cubic", rwnd = "8MiB" }"#, "20s"));
    let (f, l) = (&out.summary.flows[0], &out.summary.links[2]);
    assert_eq!(l.marks, 0);
    assert!(l.drops.codel > 0 && f.retransmissions > 0);
    assert!(f.ecn_reductions.is_none());
    let json = serde_json::to_value(&out.summary).unwrap();
    assert!(json["links"][2].get("marks").is_none(), "no marks column without marks");
    assert!(json["flows"][0].get("ecn_reductions").is_none());
}

/// The linux profile's default (tcp_ecn = 2) accepts but never asks: a
/// flow's two ends share it, so no ECN; `ecn = true` under linux asks.
#[test]
fn linux_profile_accepts_but_does_not_ask() {
    use crate::tcp::ecn::EcnSetting;
    let scn = parse_toml(&bulk(r#"{ kind = "codel", ecn = true }"#, r#"{ profile = "linux" }"#, "1s"), &[]).unwrap();
    assert_eq!(scn.flows[0].tcp.ecn, EcnSetting::Accept);
    let scn = parse_toml(&bulk(r#"{ kind = "codel" }"#, r#"{ profile = "rfc" }"#, "1s"), &[]).unwrap();
    assert_eq!(scn.flows[0].tcp.ecn, EcnSetting::Off);
    let out = run(&bulk(r#"{ kind = "codel", ecn = true }"#, r#"{ profile = "linux", rwnd = "8MiB" }"#, "20s"));
    assert_eq!(out.summary.links[2].marks, 0);
    assert!(out.summary.links[2].drops.codel > 0);
    let out = run(&bulk(r#"{ kind = "codel", ecn = true }"#, r#"{ profile = "linux", rwnd = "8MiB", ecn = true }"#, "20s"));
    assert!(out.summary.links[2].marks > 0);
    assert_eq!(out.summary.flows[0].retransmissions, 0);
}

#[test]
fn ecn_runs_are_deterministic() {
    let text = bulk(r#"{ kind = "fq_codel", ecn = true }"#, r#"{ variant = "sack", cc = "cubic", rwnd = "8MiB", ecn = true }"#, "10s");
    let a = run(&text).summary;
    let mut b = run(&text).summary;
    b.wall_s = a.wall_s;
    assert_eq!(serde_json::to_string(&a).unwrap(), serde_json::to_string(&b).unwrap());
}

#[test]
fn ecn_keys_are_checked() {
    let err = |q: &str, t: &str| parse_toml(&bulk(q, t, "1s"), &[]).unwrap_err().to_string();
    assert!(err(r#"{ kind = "codel", ecn = "yes" }"#, "{}").contains("ecn"));
    assert!(err(r#"{ kind = "dropfront", ecn = true }"#, "{}").contains("ecn"));
    assert!(err(r#"{ kind = "codel" }"#, r#"{ ecn = 1 }"#).contains("ecn"));
    let scn = parse_toml(&bulk(r#"{ kind = "red", ecn = true }"#, "{}", "1s"), &[]).unwrap();
    assert!(matches!(&scn.links[1].dirs[0].queue, crate::scenario::QueueCfg::Red(r) if r.ecn));
}
