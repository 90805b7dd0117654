//! TRANSAT Table 1 rows 5-8, Reference TCP column: one 1 MB Reference TCP
//! flow (NewReno, IW 1, delayed ACK 200 ms, 1000-byte packets) plus a CBR
//! flow of 0.8 or 1.7 Mb/s through the 50-packet buffer at Satellite Node 1,
//! window scaling on and off (`scenarios/transat_table1.toml` with the CBR
//! flow below appended).
//!
//! CBR choices where the paper is silent (spec 001 section 6 item 29): UDP
//! packets of 1000 IP bytes (the paper's MTU), from H1 to H2 (so it shares
//! the bottleneck queue toward the satellite with the TCP data), from t = 0
//! for the whole run. Moving its start by 0-1 s changes row 5 by at most
//! 1.3 s and the other rows not at all (measured when this test was written).
//!
//! What holds and is asserted: row 6 (0.8 Mb/s, WS OFF) is loss-free and
//! receiver-window limited, within 3 % of the paper; rows 5, 7 and 8 lose
//! packets and take longer; rows 7 and 8 within 20 %. What does not hold:
//! the paper's row 5 (63.24 s) comes from NewReno recovering ~55 losses one
//! per RTT and a second loss burst at t = 45 s; it is reproduced neither with
//! our default NewReno (an RTO during recovery, then go-back-N: about 22 s)
//! nor with ns-2's timer reset on every partial ACK (about 39 s measured by
//! hand, no second loss episode). So "Ref. TCP is faster with 1.7 than with
//! 0.8 Mb/s CBR" is printed, not asserted. docs/validation.md explains.

mod common;
use common::*;

const CBR: &str = r#"

[[flows]]
name = "cbr"
src = "h1"
dst = "h2"
app = { kind = "cbr", rate = "0.8Mbps", packet_size = 1000 }
"#;

struct Row {
    row: &'static str,
    cbr: &'static str,
    ws: bool,
}

fn run_row(r: &Row) -> satcp_core::RunOutput {
    let text = std::fs::read_to_string(repo_root().join("scenarios/transat_table1.toml")).unwrap() + CBR;
    let mut sets = vec!["links.satellite.queue_ab.packets=50".to_string(), format!("flows.cbr.app.rate={}", r.cbr)];
    if !r.ws {
        sets.push("flows.bulk.tcp.window_scaling=false".into());
        sets.push("flows.bulk.tcp.rwnd=65535".into());
    }
    let sets: Vec<&str> = sets.iter().map(String::as_str).collect();
    run_text(&text, &sets)
}

#[test]
fn table1_rows_5_to_8_reference_tcp_with_cbr() {
    let published = published("transat_table1.csv");
    let paper = |row: &str| -> f64 { published.iter().find(|r| r["row"] == row).unwrap()["ref_tcp"].parse().unwrap() };
    let rows = [
        Row { row: "5", cbr: "0.8Mbps", ws: true },
        Row { row: "6", cbr: "0.8Mbps", ws: false },
        Row { row: "7", cbr: "1.7Mbps", ws: true },
        Row { row: "8", cbr: "1.7Mbps", ws: false },
    ];
    let mut ours = std::collections::BTreeMap::new();
    for r in &rows {
        let out = run_row(r);
        let f = &out.summary.flows[0];
        assert!(f.completed);
        assert_eq!(f.bytes_delivered, 960_000);
        assert_eq!(f.integrity_errors, 0);
        let u = out.summary.flows[1].udp.unwrap();
        let sat = out.summary.links.iter().find(|l| l.from == "n1" && l.to == "n2").unwrap();
        let t = f.completion_s.unwrap();
        eprintln!(
            "TRANSAT Table 1 row {} (CBR {}, WS {}): ours {:.2} s, paper {:.2} s ({:+.1}%); TCP retx {}, RTOs {}; \
             CBR lost {} of {}; drops at the 50-packet queue {}",
            r.row,
            r.cbr,
            if r.ws { "on" } else { "off" },
            t,
            paper(r.row),
            100.0 * (t / paper(r.row) - 1.0),
            f.retransmissions,
            f.timeouts,
            u.packets_lost,
            u.packets_sent,
            sat.drops.queue
        );
        assert_eq!(u.packets_sent, u.packets_received + u.packets_lost + u.in_flight());
        ours.insert(r.row, (t, f.retransmissions, u.packets_lost));
    }
    // Row 6: 0.8 Mb/s CBR + 64 KB window stays below the free 1.2 Mb/s: no
    // loss, receiver-window limited as in rows 2 and 4.
    let (t6, retx6, lost6) = ours["6"];
    assert_eq!((retx6, lost6), (0, 0));
    assert!(rel_err(t6, paper("6")) < 0.03, "row 6: {t6}");
    // The others overflow the 50-packet buffer and take longer.
    for row in ["5", "7", "8"] {
        let (t, retx, _) = ours[row];
        assert!(retx > 0, "row {row} loses packets");
        assert!(t > t6 + 1.0, "row {row}: {t} vs row 6 {t6}");
    }
    for row in ["7", "8"] {
        let t = ours[row].0;
        assert!(rel_err(t, paper(row)) < 0.20, "row {row}: {t} vs {}", paper(row));
    }
    let (t5, t7) = (ours["5"].0, ours["7"].0);
    eprintln!(
        "paper: Ref. TCP faster with 1.7 Mb/s CBR than with 0.8 (46.71 < 63.24 s); ours {:.2} vs {:.2} s: {}",
        t7,
        t5,
        if t7 < t5 { "reproduced" } else { "not reproduced" }
    );
}

/// The paper's Fig. 5 (Ref. + RED, one flow, 50-packet buffer): the
/// instantaneous queue swings widely during the initial slow start while
/// RED's average "stays under the minimum threshold for the entire
/// slow-start phase", so the overshoot losses are overflows, not early
/// drops. With ns-2's 2003 defaults (min_th 5, w_q 2.6e-4 on this link).
#[test]
fn fig5_red_average_stays_below_min_th_during_slow_start() {
    let out = run_file(
        "transat_table1.toml",
        &["links.satellite.queue_ab={kind=\"red\",packets=50}", "run.sample_interval=10ms", "run.stop=12s", "flows.bulk.app.size=100MB"],
    );
    let ls = &out.link_series;
    let sat = out.summary.links.iter().position(|l| l.from == "n1" && l.to == "n2").unwrap() as u32;
    let rows: Vec<usize> = (0..ls.time_s.len()).filter(|&i| ls.link[i] == sat).collect();
    // slow start ends when the buffer first fills (the overshoot losses)
    let full = *rows.iter().find(|&&i| ls.queue_packets[i] >= 50.0).expect("the overshoot fills the buffer");
    let avg_at_full = ls.red_avg_packets[full];
    let max_avg_before = rows.iter().filter(|&&i| i <= full).map(|&i| ls.red_avg_packets[i]).fold(0.0, f64::max);
    let max_avg = rows.iter().map(|&i| ls.red_avg_packets[i]).fold(0.0, f64::max);
    let d = &out.summary.links[sat as usize].drops;
    eprintln!(
        "Fig. 5: buffer full at {:.2} s with RED average {avg_at_full:.3} (max before {max_avg_before:.3}, max in 12 s {max_avg:.3}); drops {d:?}",
        ls.time_s[full]
    );
    assert!(max_avg_before < 5.0, "average {max_avg_before} stays below min_th through slow start");
    assert!(d.queue > 0, "the overshoot losses are overflows");
    assert_eq!(d.red_early + d.red_forced, 0, "no early drop in the first 12 s: the losses are overflows");
}
