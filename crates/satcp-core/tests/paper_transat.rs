//! TRANSAT Table 1 (Astuti & Kojo, ns-2 of 2003), all eight rows and six
//! columns: one 1 MB TCP flow over 10 Mb/s access links and a 2 Mb/s GEO
//! link at 255 ms (`scenarios/transat_table1.toml`, profile `ns2-2003`,
//! elapsed time to the sender's last ACK), with a 200- or 50-packet buffer
//! at Satellite Node 1, window scaling on and off, and in rows 5-8 a CBR
//! flow of 0.8 or 1.7 Mb/s sharing that buffer. The column overrides are
//! `common::TRANSAT_COLUMNS`.
//!
//! CBR choices where the paper is silent (spec 001 section 6 item 29): UDP
//! packets of 1000 IP bytes (the paper's MTU), H1 to H2 (so it shares the
//! 50-packet queue toward the satellite with the TCP data), from t = 0 for
//! the whole run.
//!
//! Asserted: every cell within 5% but the ten `NOT_REPRODUCED` (row 3's
//! SACK columns, which ns-2 itself gives as we do, and eight cells of the
//! CBR rows, where ns-2 itself misses the paper; docs/validation.md), and
//! the paper's claims about the table.

mod common;
use common::*;
use std::collections::BTreeMap;

const CBR: &str = r#"

[[flows]]
name = "cbr"
src = "h1"
dst = "h2"
app = { kind = "cbr", rate = "0.8Mbps", packet_size = 1000 }
"#;

/// Table 1's rows: buffer (ns-2 `qlim_`), CBR rate, window scaling.
const ROWS: [(u32, u32, Option<&str>, bool); 8] = [
    (1, 200, None, true),
    (2, 200, None, false),
    (3, 50, None, true),
    (4, 50, None, false),
    (5, 50, Some("0.8Mbps"), true),
    (6, 50, Some("0.8Mbps"), false),
    (7, 50, Some("1.7Mbps"), true),
    (8, 50, Some("1.7Mbps"), false),
];

/// Cells outside 5%, each explained in docs/validation.md ("TRANSAT Table
/// 1"): row 3's SACK columns (ns-2 2.35 with the 2003 defaults gives 11.46
/// s at the sink, as satcp does; the paper's 15.5 s needs a timeout stock
/// Sack1 does not take), and cells of the CBR rows, where ns-2 itself
/// misses the paper by up to 28% (row 7 Ref. 59.66 s against 46.71 s) and
/// satcp and ns-2 part where a CBR arrival and a departure coincide.
const NOT_REPRODUCED: [(u32, &str); 10] = [
    (3, "sack"),
    (3, "sack_limtran"),
    (5, "ref_tcp"),
    (5, "ref_daass"),
    (5, "sack_limtran"),
    (5, "enhanced"),
    (7, "enhanced"),
    (8, "ref_daass"),
    (8, "sack"),
    (8, "sack_limtran"),
];

struct Cell {
    t: f64,
    retx: u64,
    rtos: u64,
}

fn run_cell(row: u32, column: &[&str]) -> satcp_core::RunOutput {
    let (_, qlim, cbr, ws) = ROWS[row as usize - 1];
    let mut text = std::fs::read_to_string(repo_root().join("scenarios/transat_table1.toml")).unwrap();
    let mut sets = vec![format!("links.satellite.queue_ab.packets={}", qlim - 1)];
    if let Some(rate) = cbr {
        text += CBR;
        sets.push(format!("flows.cbr.app.rate=\"{rate}\""));
    }
    if !ws {
        sets.push("flows.bulk.tcp.window_scaling=false".into());
        sets.push("flows.bulk.tcp.rwnd=61440".into());
    }
    let mut sets: Vec<&str> = sets.iter().map(String::as_str).collect();
    sets.extend_from_slice(column);
    run_text(&text, &sets)
}

fn table1() -> BTreeMap<(u32, &'static str), Cell> {
    let published = published("transat_table1.csv");
    let mut ours = BTreeMap::new();
    let mut within = 0;
    for (row, _, cbr, ws) in ROWS {
        let paper_row = published.iter().find(|p| p["row"] == row.to_string()).unwrap();
        for (col, sets) in TRANSAT_COLUMNS {
            let out = run_cell(row, sets);
            let f = &out.summary.flows[0];
            assert!(f.completed, "row {row} {col}");
            assert_eq!((f.bytes_delivered, f.integrity_errors), (960_000, 0));
            if cbr.is_some() {
                let u = out.summary.flows[1].udp.unwrap();
                assert_eq!(u.packets_sent, u.packets_received + u.packets_lost + u.in_flight());
            }
            let t = f.completion_s.unwrap();
            let theirs: f64 = paper_row[col].parse().unwrap();
            let missed = NOT_REPRODUCED.contains(&(row, col));
            within += (rel_err(t, theirs) < 0.05) as u32;
            eprintln!(
                "TRANSAT Table 1 row {row} (CBR {}, WS {}) {col:12}: ours {t:6.2} s, paper {theirs:6.2} s, {:+6.1}%; retx {}, RTOs {}{}",
                cbr.unwrap_or("-"),
                if ws { "on" } else { "off" },
                100.0 * (t / theirs - 1.0),
                f.retransmissions,
                f.timeouts,
                if missed { "  [not reproduced, see docs/validation.md]" } else { "" }
            );
            if !missed {
                assert!(rel_err(t, theirs) < 0.05, "row {row} {col}: {t:.2} vs {theirs}");
            }
            ours.insert((row, col), Cell { t, retx: f.retransmissions, rtos: f.timeouts });
        }
    }
    eprintln!("TRANSAT Table 1: {within} of 48 cells within 5%");
    ours
}

#[test]
fn table1_all_rows_and_columns() {
    let ours = table1();
    let c = |row: u32, col: &str| &ours[&(row, TRANSAT_COLUMNS.iter().find(|x| x.0 == col).unwrap().0)];
    let cols = TRANSAT_COLUMNS.map(|x| x.0);
    for row in [1, 2, 4, 6] {
        for col in cols {
            assert_eq!(c(row, col).retx, 0, "row {row} {col} is loss-free");
        }
        // loss-free: SACK and Limited Transmit change nothing
        for col in ["sack", "sack_limtran"] {
            assert!((c(row, col).t - c(row, "ref_tcp").t).abs() < 1e-9, "row {row} {col}");
        }
        // IW 4 and DAASS shorten slow start; Enhanced (both) is the fastest
        assert!(c(row, "ref_iw4").t < c(row, "ref_tcp").t && c(row, "ref_daass").t < c(row, "ref_tcp").t);
        assert!(c(row, "enhanced").t < c(row, "ref_iw4").t && c(row, "enhanced").t < c(row, "ref_daass").t);
    }
    for col in cols {
        // row 4 == row 2: without window scaling the buffer never fills
        assert_eq!(c(4, col).t, c(2, col).t, "{col}");
        // the 50-packet buffer congests the window-scaled transfer
        assert!(c(3, col).t > c(1, col).t && c(3, col).retx > 0, "{col}");
    }
    // row 3: slow-start overshoot; SACK recovers far faster than NewReno
    // (paper: 15.52 vs 60.81 s), IW 4 and DAASS "do not help much"
    for col in ["sack", "sack_limtran", "enhanced"] {
        assert!(c(3, col).t < 0.35 * c(3, "ref_tcp").t, "{col}");
    }
    for col in ["ref_iw4", "ref_daass"] {
        assert!(c(3, col).t > 3.0 * c(3, "sack").t, "{col}");
    }
    // rows 5, 7, 8 lose packets in every column; SACK beats NewReno there
    for row in [5, 7, 8] {
        for col in cols {
            assert!(c(row, col).retx > 0, "row {row} {col}");
        }
        assert!(c(row, "sack").t < c(row, "ref_tcp").t, "row {row}");
    }
    assert!(c(5, "sack").t < 0.5 * c(5, "ref_tcp").t);
    // "Ref. TCP does better with 1.7 Mb/s CBR than with 0.8" (46.71 < 63.24)
    assert!(c(7, "ref_tcp").t < c(5, "ref_tcp").t);
    let claim = |text: &str, holds: bool| eprintln!("paper: {text}: {}", if holds { "reproduced" } else { "not reproduced" });
    claim("row 7 Enhanced slower than SACK (35.06 > 29.39 s)", c(7, "enhanced").t > c(7, "sack").t);
    claim("row 8 Enhanced slower than SACK (34.68 > 30.56 s)", c(8, "enhanced").t > c(8, "sack").t);
    eprintln!("row 3 SACK: {} timeouts (the paper's 15.52 s implies one)", c(3, "sack").rtos);
}

/// Without a FIN (ns-2's one-way agents) the last packet is ACKed like any
/// other: Ref.'s first packet is ACKed alone, so its 1000th is the odd one
/// out and waits for the 200 ms timer; the sender has that ACK one return
/// trip later (20 + 255 + 20 ms and a 40-byte ACK on each hop). DAASS ACKs
/// its first ten at once, so its last packet completes a pair.
#[test]
fn last_ack_waits_for_the_delayed_ack_of_an_odd_last_packet() {
    let back = |sets: &[&str]| {
        let out = run_file("transat_table1.toml", sets);
        let f = &out.summary.flows[0];
        f.start_s + f.completion_s.unwrap() - f.last_byte_at_s.unwrap()
    };
    let trip = 0.295 + 40.0 * 8.0 * (2.0 / 10e6 + 1.0 / 2e6);
    assert!((back(&[]) - (0.2 + trip)).abs() < 1e-6, "{}", back(&[]));
    assert!((back(&["flows.bulk.tcp.daass=true"]) - trip).abs() < 1e-6);
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
