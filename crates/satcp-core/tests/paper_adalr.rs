//! ADaLR thesis Table 7.5 (and 7.6), lossless TCP SACK / NewReno 50 MB
//! download over the Fig. 7.2 GEO path: within 5% of the thesis with delayed
//! ACK enabled and disabled. Delays and readings are documented in
//! scenarios/adalr_geo.toml and docs/validation.md.

mod common;
use common::*;

fn paper(table: &str, eth: &str, variant: &str, col: &str) -> f64 {
    let rows = published("adalr_table7_5.csv");
    rows.iter().find(|r| r["table"] == table && r["ethernet_delay"] == eth && r["variant"] == variant).unwrap()[col].parse().unwrap()
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
