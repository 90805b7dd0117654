//! TRANSAT Table 1 rows 5-8, all six columns (the same column overrides as
//! rows 1-4, `common::TRANSAT_COLUMNS`): one 1 MB TCP flow plus a CBR flow
//! of 0.8 or 1.7 Mb/s through the 50-packet buffer at Satellite Node 1,
//! window scaling on and off (`scenarios/transat_table1.toml` with the CBR
//! flow below appended).
//!
//! CBR choices where the paper is silent (spec 001 section 6 item 29): UDP
//! packets of 1000 IP bytes (the paper's MTU), from H1 to H2 (so it shares
//! the 50-packet queue toward the satellite with the TCP data), from t = 0
//! for the whole run. Measured: starting it at 0.5 or 1 s changes no cell by
//! more than 1.2 s (most by 0.01 s); ns-2's default 210-byte CBR packets
//! break the loss-free row 6 (IW 4 21.44 s against the paper's 13.03), so
//! 1000 bytes it is.
//!
//! Asserted: row 6 (loss-free, receiver-window limited) and four cells of
//! row 8 within 5 %; the loss-free sanity checks of row 6; every lossy row
//! slower than row 6; SACK faster than Ref. in rows 5, 7, 8 and under half
//! of it in row 5; Enhanced slower than SACK in row 8. Rows 5 and 7 and row
//! 8's Ref. and Iwin=4 are printed, not asserted; docs/validation.md
//! explains each.

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

fn run_row(r: &Row, column: &[&str]) -> satcp_core::RunOutput {
    let text = std::fs::read_to_string(repo_root().join("scenarios/transat_table1.toml")).unwrap() + CBR;
    let mut sets = vec!["links.satellite.queue_ab.packets=50".to_string(), format!("flows.cbr.app.rate={}", r.cbr)];
    if !r.ws {
        sets.push("flows.bulk.tcp.window_scaling=false".into());
        sets.push("flows.bulk.tcp.rwnd=65535".into());
    }
    let mut sets: Vec<&str> = sets.iter().map(String::as_str).collect();
    sets.extend_from_slice(column);
    run_text(&text, &sets)
}

const ROWS: [Row; 4] = [
    Row { row: "5", cbr: "0.8Mbps", ws: true },
    Row { row: "6", cbr: "0.8Mbps", ws: false },
    Row { row: "7", cbr: "1.7Mbps", ws: true },
    Row { row: "8", cbr: "1.7Mbps", ws: false },
];

/// One measured cell: completion time, retransmissions, timeouts, CBR
/// packets lost.
struct Cell {
    t: f64,
    retx: u64,
    cbr_lost: u64,
}

/// Cells within 5% of the paper; the others are explained in
/// docs/validation.md ("TRANSAT Table 1 rows 5-8"): row 5 but Enhanced and
/// row 7's Ref., Iwin=4, DAASS and Enhanced (the paper's NewReno window
/// handling during and after recovery), and row 8's Enhanced (11% fast with
/// one timed segment per round trip, as in ns-2). Row 5's Enhanced, row 7's
/// SACK columns and row 8's Ref. and Iwin=4 came within 5% when a packet
/// arriving at a full queue at the very instant a transmission begins
/// started to find the queue still full, as in ns-2.
fn reproduced(row: &str, col: &str) -> bool {
    match row {
        "5" => col == "enhanced",
        "6" => true,
        "7" => matches!(col, "sack" | "sack_limtran"),
        "8" => col != "enhanced",
        _ => false,
    }
}

#[test]
fn table1_rows_5_to_8_all_columns_with_cbr() {
    let published = published("transat_table1.csv");
    let mut ours = std::collections::BTreeMap::new();
    for r in &ROWS {
        let paper_row = published.iter().find(|p| p["row"] == r.row).unwrap();
        for (col, sets) in TRANSAT_COLUMNS {
            let out = run_row(r, sets);
            let f = &out.summary.flows[0];
            assert!(f.completed, "row {} {col}", r.row);
            assert_eq!(f.bytes_delivered, 960_000);
            assert_eq!(f.integrity_errors, 0);
            let u = out.summary.flows[1].udp.unwrap();
            assert_eq!(u.packets_sent, u.packets_received + u.packets_lost + u.in_flight());
            let t = f.completion_s.unwrap();
            let theirs: f64 = paper_row[col].parse().unwrap();
            let ok = reproduced(r.row, col);
            eprintln!(
                "TRANSAT Table 1 row {} (CBR {}, WS {}) {col:12}: ours {t:6.2} s, paper {theirs:6.2} s, {:+6.1}%; TCP retx {}, RTOs {}, CBR lost {} of {}{}",
                r.row,
                r.cbr,
                if r.ws { "on" } else { "off" },
                100.0 * (t / theirs - 1.0),
                f.retransmissions,
                f.timeouts,
                u.packets_lost,
                u.packets_sent,
                if ok { "" } else { "  [not reproduced, see docs/validation.md]" }
            );
            if ok {
                assert!(rel_err(t, theirs) < 0.05, "row {} {col}: {t:.2} vs {theirs}", r.row);
            }
            ours.insert((r.row, col), Cell { t, retx: f.retransmissions, cbr_lost: u.packets_lost });
        }
    }
    let c = |row: &'static str, col: &'static str| -> &Cell { &ours[&(row, col)] };
    // Row 6: 0.8 Mb/s CBR + a 64 KB window stay below the 2 Mb/s: loss-free
    // and receiver-window limited as in rows 2 and 4, so SACK and SACK + LT
    // equal Ref. (the paper's sanity check), IW 4 and DAASS are faster and
    // Enhanced the fastest.
    for (col, _) in TRANSAT_COLUMNS {
        assert_eq!((c("6", col).retx, c("6", col).cbr_lost), (0, 0), "row 6 {col}");
    }
    for col in ["sack", "sack_limtran"] {
        assert!((c("6", col).t - c("6", "ref_tcp").t).abs() < 1e-3, "row 6 {col}");
    }
    assert!(c("6", "ref_iw4").t < c("6", "ref_tcp").t && c("6", "ref_daass").t < c("6", "ref_tcp").t);
    assert!(c("6", "enhanced").t < c("6", "ref_iw4").t && c("6", "enhanced").t < c("6", "ref_daass").t);
    // Rows 5, 7 and 8 overflow the 50-packet buffer in every column and take
    // longer than the loss-free row 6, whose 64 KB window limits it, except
    // Enhanced TCP in row 5 (window scaling on), faster than in row 6 in
    // the paper too (10.60 vs 12.22 s).
    for row in ["5", "7", "8"] {
        for (col, _) in TRANSAT_COLUMNS {
            assert!(c(row, col).retx > 0, "row {row} {col} loses packets");
            if (row, col) != ("5", "enhanced") {
                assert!(c(row, col).t > c("6", col).t + 1.0, "row {row} {col}");
            }
        }
    }
    assert!(c("5", "enhanced").t < c("6", "enhanced").t);
    // SACK recovers the congestion losses faster than NewReno in every lossy
    // row; in row 5 (the slow-start overshoot) far faster (paper 12.90 vs
    // 63.24 s, ours 17.45 vs 38.57 s).
    for row in ["5", "7", "8"] {
        for col in ["sack", "sack_limtran"] {
            assert!(c(row, col).t < c(row, "ref_tcp").t, "row {row} {col}");
        }
    }
    assert!(c("5", "sack").t < 0.5 * c("5", "ref_tcp").t);
    assert!(c("5", "enhanced").t < 0.5 * c("5", "ref_tcp").t);
    // Row 8: Enhanced TCP is slower than SACK (paper 34.68 vs 30.56 s), its
    // IW 4 + DAASS start overflowing the shared buffer harder.
    assert!(c("8", "enhanced").t > c("8", "sack").t);
    // Printed, not asserted (not reproduced; docs/validation.md):
    let claim = |text: &str, holds: bool| eprintln!("paper: {text}: {}", if holds { "reproduced" } else { "not reproduced" });
    claim("row 7 Enhanced slower than SACK (35.06 > 29.39 s)", c("7", "enhanced").t > c("7", "sack").t);
    claim("Ref. TCP faster with 1.7 Mb/s CBR than with 0.8 (46.71 < 63.24 s)", c("7", "ref_tcp").t < c("5", "ref_tcp").t);
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
