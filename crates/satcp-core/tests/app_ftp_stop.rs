//! `app.stop` on an unlimited FTP flow: the sender writes nothing new
//! after it, what it had sent completes, and it closes (a flow that leaves
//! a path at a handover: XFWA's scenarios B to D).

mod common;
use common::*;

/// 2 Mb/s, 100 ms; one unlimited FTP flow from 1 s, stopped at 6 s.
fn path() -> String {
    TwoNodes::new("2Mbps", "100ms")
        .stop("30s")
        .sample_interval("100ms")
        .flow(Some("f"), "variant = \"newreno\", rwnd = \"1MiB\", delayed_ack = false", "kind = \"ftp\", start = \"1s\", stop = \"6s\"")
        .toml()
}

#[test]
fn a_stopped_flow_finishes_what_it_sent_and_closes() {
    let out = run_text(&path(), &[]);
    let f = &out.summary.flows[0];
    let s = &out.flow_series;
    let at = |t: f64| (0..s.time_s.len()).find(|&i| (s.time_s[i] - t).abs() < 1e-9).map(|i| s.delivered_bytes[i]).unwrap();
    // it ran at the link's rate while it was on...
    assert!(at(6.0) - at(3.0) > 0.9 * 2e6 / 8.0 * 3.0, "{}", at(6.0) - at(3.0));
    // ... then delivered what it had sent (at most its 1 MiB window, which
    // 2 Mb/s drains in 4.2 s) and nothing more
    assert!(at(7.0) > at(6.0), "what was sent still arrives");
    assert_eq!(at(11.5), at(29.0));
    assert_eq!(f.bytes_delivered as f64, at(29.0));
    // the FIN exchange completed, and not before the stop
    let fin = f.fin_done_at_s.expect("the stopped flow closes");
    assert!(fin > 6.0 && fin < 6.0 + 1048576.0 * 8.0 / 2e6 + 1.0, "{fin}");
    assert!(!f.completed, "an unlimited flow never completes");
    // stop must come after start
    let bad = satcp_core::scenario::parse_toml(&path().replace("stop = \"6s\"", "stop = \"1s\""), &[]).expect_err("stop <= start");
    assert_eq!(bad.path, "flows.f.app.stop");
}
