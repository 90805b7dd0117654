//! An on/off source over TCP (`transport = "tcp"`): ns-2's traffic
//! generator on a TCP agent, the XFWA paper's web-like ON-OFF sources. Its
//! writes arrive in order over the connection at the source's mean rate
//! (peak x on / (on + off)) when the path is not the limit, and it closes at
//! its stop.

mod common;
use common::*;

/// 10 Mb/s, 50 ms; Pareto on/off writes into one TCP connection.
fn path() -> String {
    TwoNodes::new("10Mbps", "50ms")
        .stop("120s")
        .flow(
            Some("web"),
            "variant = \"newreno\", rwnd = \"1MiB\"",
            "kind = \"onoff\", transport = \"tcp\", dist = \"pareto\", shape = 1.5, rate = \"1Mbps\", packet_size = 1000, mean_on = \"160ms\", mean_off = \"160ms\", stop = \"100s\"",
        )
        .toml()
}

#[test]
fn tcp_onoff_delivers_its_writes_at_the_mean_rate_and_closes() {
    let out = run_text(&path(), &[]);
    let f = &out.summary.flows[0];
    assert!(f.udp.is_none(), "a TCP flow, not UDP cross traffic");
    assert_eq!(f.integrity_errors, 0);
    // mean rate ~ 1 Mb/s x 0.5 over the 100 s it runs (Pareto with shape
    // 1.5 converges slowly: 25%)
    let rate = f.bytes_delivered as f64 * 8.0 / 100.0;
    assert!((rate / 500_000.0 - 1.0).abs() < 0.25, "{rate}");
    // whole writes of 1000 bytes
    assert_eq!(f.bytes_delivered % 1000, 0);
    // it closed after its stop
    let fin = f.fin_done_at_s.expect("closes at stop");
    assert!(fin >= 100.0 && fin < 102.0, "{fin}");
    // a tcp table with a UDP on/off source is refused
    let bad = satcp_core::scenario::parse_toml(&path().replace("transport = \"tcp\", ", ""), &[]).expect_err("udp with tcp");
    assert_eq!(bad.path, "flows.web.tcp");
}
