//! TCP-ADaLR's own rows of the thesis' lossless tables (7.5, 7.6, 7.7, 7.8;
//! the fairness tables are in paper_adalr_fairness.rs), against
//! `data/published/adalr_thesis.csv`. The bar for lossless cases:
//! ADaLR's improvement over SACK and NewReno within 10 percentage points of
//! the thesis' figure, or the difference explained in docs/validation.md
//! (ADaLR section); the baselines' own 5% checks are in paper_adalr.rs.
//! Printed with `--nocapture`; asserted: what holds, and for the cells that
//! do not reproduce, what the mechanism explains.

mod common;
use common::*;

fn thesis(table: &str, variant: &str, dack: &str) -> f64 {
    adalr_thesis(table, &[("variant", variant), ("delayed_ack", dack)])
}

/// Response time of `variant` (FTP or HTTP page) in `file` with `extra`.
fn response(file: &str, flow: &str, variant: &str, dack: &str, extra: &[&str]) -> f64 {
    let v = format!("flows.{flow}.tcp.variant={variant}");
    let d = format!("flows.{flow}.tcp.delayed_ack={dack}");
    let mut sets = vec![v.as_str(), d.as_str()];
    sets.extend_from_slice(extra);
    let out = run_file(file, &sets);
    let f = &out.summary.flows[0];
    assert!(f.completed, "{variant} {dack} {extra:?}");
    assert_eq!(f.retransmissions, 0, "lossless: {variant} {dack} {extra:?}");
    assert_eq!(f.integrity_errors, 0);
    if flow == "http" {
        f.mean_page_response_s.unwrap()
    } else {
        f.completion_s.unwrap()
    }
}

/// (base - ADaLR) / base in percent, the thesis' "x% shorter".
fn shorter(base: f64, adalr: f64) -> f64 {
    100.0 * (base - adalr) / base
}

struct Cell {
    ours_pp: f64,
    thesis_pp: f64,
    ours_s: f64,
    thesis_s: f64,
}

/// ADaLR vs its base variant for one table, both delayed-ACK settings.
fn cells(table: &str, file: &str, flow: &str, extra: &[&str]) -> Vec<Cell> {
    let mut out = Vec::new();
    for (adalr, base) in [("adalr-sack", "sack"), ("adalr-newreno", "newreno")] {
        for dack in ["true", "false"] {
            let (a, b) = (response(file, flow, adalr, dack, extra), response(file, flow, base, dack, extra));
            let (ta, tb) = (thesis(table, adalr, dack), thesis(table, base, dack));
            let c = Cell { ours_pp: shorter(b, a), thesis_pp: shorter(tb, ta), ours_s: a, thesis_s: ta };
            eprintln!(
                "Table {table} {adalr} delayed_ack={dack}: ours {a:.1} s vs {b:.1} s ({:.1}% shorter), thesis {ta:.1} vs {tb:.1} ({:.1}% shorter), ADaLR time {:+.1}%, improvement {:+.1} pp",
                c.ours_pp,
                c.thesis_pp,
                100.0 * (a - ta) / ta,
                c.ours_pp - c.thesis_pp
            );
            out.push(c);
        }
    }
    out
}

#[test]
fn table_7_5_improvement_within_10_points_and_times_within_5_percent() {
    for c in cells("7.5", "adalr_geo.toml", "ftp", &[]) {
        assert!((c.ours_pp - c.thesis_pp).abs() < 10.0, "{} vs {}", c.ours_pp, c.thesis_pp);
        assert!(rel_err(c.ours_s, c.thesis_s) < 0.05, "{} vs {}", c.ours_s, c.thesis_s);
    }
}

#[test]
fn table_7_6_improvement_within_10_points() {
    for c in cells("7.6", "adalr_geo.toml", "ftp", &["links.ethernet.delay=50ms"]) {
        assert!((c.ours_pp - c.thesis_pp).abs() < 10.0, "{} vs {}", c.ours_pp, c.thesis_pp);
    }
}

/// Extra window (in SMSS) that a time implies over the 64 KB window, given
/// the baseline's time with the 64 KB window on the same path: the transfer
/// is window-limited, so the rate scales with the window.
fn implied_extra_smss(base_s: f64, t_s: f64) -> f64 {
    (65535.0 * base_s / t_s - 65535.0) / 1460.0
}

/// Table 7.7 (10 Mb/s down) is NOT reproduced: the thesis' 283.0 / 235.4 s
/// imply 28 / 43 SMSS beyond the 64 KB window, while Algorithm 5.3 adds at
/// most 0.25 x 60 = 15 SMSS once (rho <= 60). With the link no longer the
/// limit, ours stays where Table 7.5's window puts it: as fast as at 2 Mb/s.
#[test]
fn table_7_7_not_reproduced_window_bound_explains_it() {
    let base_ours = response("adalr_geo.toml", "ftp", "sack", "false", &["links.satellite.rate_ab=10Mbps", "links.satellite.rate_ba=1Mbps"]);
    for dack in ["true", "false"] {
        let t = thesis("7.7", "adalr-sack", dack);
        let need = implied_extra_smss(base_ours, t);
        eprintln!("Table 7.7 ADaLR delayed_ack={dack}: thesis {t} s implies {need:.1} SMSS beyond 64 KB (Algorithm 5.3: at most 15)");
        assert!(need > 15.0);
    }
    let fast = ["links.satellite.rate_ab=10Mbps", "links.satellite.rate_ba=1Mbps"];
    let c = cells("7.7", "adalr_geo.toml", "ftp", &fast);
    for x in &c {
        // ADaLR still much faster than its base, but the thesis' further gain
        // needs a window ours cannot open
        assert!(x.ours_pp > 15.0 && x.ours_pp < x.thesis_pp);
    }
    // at 10 Mb/s ours is within 2% of ours at 2 Mb/s (window-limited both)
    let slow = response("adalr_geo.toml", "ftp", "adalr-sack", "false", &[]);
    let quick = response("adalr_geo.toml", "ftp", "adalr-sack", "false", &fast);
    assert!(rel_err(quick, slow) < 0.02, "{quick} vs {slow}");
}

/// Table 7.8 (HTTP page): with delayed ACK on the improvement is within 10
/// points; off, ours is larger (ADaLR's slow start adds 1.94 SMSS per ACK at
/// rho = 60, and without delayed ACK every segment is an ACK). The exact
/// sample (rho 33, `adalr_rho_source = "sample"`) brings both within 10 points
/// but puts Table 7.5 16-17% slow: the two tables want different rho.
#[test]
fn table_7_8_http_improvement() {
    let c = cells("7.8", "adalr/http.toml", "http", &[]);
    for (i, x) in c.iter().enumerate() {
        assert!(x.ours_pp > 0.0);
        if i % 2 == 0 {
            assert!((x.ours_pp - x.thesis_pp).abs() < 10.0, "delayed ACK on: {} vs {}", x.ours_pp, x.thesis_pp);
        } else {
            assert!(x.ours_pp > x.thesis_pp + 10.0, "delayed ACK off: {} vs {}", x.ours_pp, x.thesis_pp);
        }
    }
    let exact = ["flows.http.tcp.adalr_rho_source=sample"];
    for dack in ["true", "false"] {
        let a = response("adalr/http.toml", "http", "adalr-sack", dack, &exact);
        let b = response("adalr/http.toml", "http", "sack", dack, &[]);
        let (ta, tb) = (thesis("7.8", "adalr-sack", dack), thesis("7.8", "sack", dack));
        eprintln!("Table 7.8 exact sample delayed_ack={dack}: ours {:.1}% shorter, thesis {:.1}%", shorter(b, a), shorter(tb, ta));
        assert!((shorter(b, a) - shorter(tb, ta)).abs() < 10.0);
    }
}
