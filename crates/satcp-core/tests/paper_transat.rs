//! TRANSAT Table 1, loss-free rows: Reference TCP (NewReno, IW 1, delayed ACK
//! 200 ms, 1000-byte packets, 1 MB, 2 Mb/s GEO at 255 ms, 10 Mb/s access,
//! 200-packet buffer) within 3% of the paper with and without window scaling.
//! The access delay (20 ms) and packet reading are documented in the scenario
//! file and docs/validation.md.

mod common;
use common::*;

#[test]
fn table1_rows_1_and_2_reference_tcp_within_3_percent() {
    let rows = published("transat_table1.csv");
    let paper = |row: &str| -> f64 { rows.iter().find(|r| r["row"] == row).unwrap()["ref_tcp"].parse().unwrap() };
    let ws_on = run_file("transat_table1.toml", &[]);
    let ws_off = run_file("transat_table1.toml", &["flows.bulk.tcp.window_scaling=false", "flows.bulk.tcp.rwnd=65535"]);
    for (out, row) in [(&ws_on, "1"), (&ws_off, "2")] {
        let f = &out.summary.flows[0];
        assert!(f.completed);
        assert_eq!(f.retransmissions, 0, "the optimum case is loss-free");
        let ours = f.completion_s.unwrap();
        let err = rel_err(ours, paper(row));
        eprintln!("TRANSAT Table 1 row {row}: ours {ours:.2} s, paper {:.2} s, {:.1}%", paper(row), 100.0 * err);
        assert!(err < 0.03, "row {row}: {ours} vs {}", paper(row));
    }
    // window scaling off is receiver-window limited: slower
    assert!(ws_off.summary.flows[0].completion_s > ws_on.summary.flows[0].completion_s);
}

#[test]
fn table1_sack_equals_reference_when_nothing_is_lost() {
    // the paper's sanity check: SACK equals Ref. in loss-free rows (to the
    // paper's 10 ms resolution; the SYN's SACK-permitted option adds 4 bytes)
    let r = run_file("transat_table1.toml", &[]).summary.flows[0].completion_s.unwrap();
    let s = run_file("transat_table1.toml", &["flows.bulk.tcp.variant=sack", "flows.bulk.tcp.sack=true"]).summary.flows[0].completion_s.unwrap();
    assert!((r - s).abs() < 1e-3, "{r} vs {s}");
}
