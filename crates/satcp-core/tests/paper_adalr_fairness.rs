//! ADaLR thesis section 7.5.5 (Fig. 7.52): the TCP NewReno baseline of
//! Tables 7.12 / 7.13, ADaLR NewReno (7.11) and the mix (7.14 / 7.15): six lossless FTP downloads with RTTs 25-500 ms share
//! one 10 Mb/s link (`scenarios/adalr/fairness.toml`). Each connection's
//! average throughput is over its own lifetime; Jain's index (7.4) and
//! max-min fairness (7.5) are computed here from the six averages. The
//! reading, the numbers and the deviations are in docs/validation.md, "ADaLR
//! fairness topology".

mod common;
use common::*;
use satcp_core::RunOutput;

const FILE: &str = "adalr/fairness.toml";
const RTTS_MS: [u32; 6] = [25, 50, 100, 300, 400, 500];
/// 44 whole segments of 1,460 B fit in the 65,535-byte receive window.
const WINDOW_BYTES: f64 = 44.0 * 1460.0;
/// Round-trip serialisation on top of the propagation RTT: three 10 Mb/s
/// hops of a 1,500-byte data packet (1.2 ms each) and a 40-byte ACK.
const SERIALISATION_S: f64 = 3.0 * (1500.0 + 40.0) * 8.0 / 10e6;

/// Jain's fairness index (thesis Eq. 7.4): (sum t)^2 / (n sum t^2).
fn jain(t: &[f64]) -> f64 {
    let sum: f64 = t.iter().sum();
    sum * sum / (t.len() as f64 * t.iter().map(|x| x * x).sum::<f64>())
}

/// Max-min fairness (thesis Eq. 7.5): t_min / t_max.
fn max_min(t: &[f64]) -> f64 {
    t.iter().cloned().fold(f64::INFINITY, f64::min) / t.iter().cloned().fold(0.0, f64::max)
}

/// The thesis' average throughputs (bytes/s) of one table, by RTT.
fn thesis(table: &str) -> Vec<f64> {
    RTTS_MS.iter().map(|rtt| adalr_thesis(table, &[("flow", &format!("c{rtt}")), ("metric", "throughput_Bps")])).collect()
}

/// Each connection's average throughput (bytes/s) over its own lifetime,
/// first SYN to last byte, after checking the run was lossless and complete.
fn averages(out: &RunOutput) -> Vec<f64> {
    for l in &out.summary.links {
        assert_eq!(l.drops.queue + l.drops.errors, 0, "link {} {} dropped packets", l.a, l.b);
    }
    RTTS_MS
        .iter()
        .map(|rtt| {
            let f = out.summary.flows.iter().find(|f| f.name == format!("c{rtt}")).unwrap();
            assert!(f.completed, "{} did not complete", f.name);
            assert_eq!(f.retransmissions, 0, "{}", f.name);
            assert_eq!(f.bytes_delivered, 50 << 20, "{}", f.name);
            f.throughput_bps / 8.0
        })
        .collect()
}

fn report(label: &str, ours: &[f64], theirs: &[f64]) {
    for ((rtt, o), t) in RTTS_MS.iter().zip(ours).zip(theirs) {
        eprintln!("{label} {rtt:>3} ms: ours {o:>9.1} B/s, thesis {t:>9.1} B/s, {:+.1}%", 100.0 * (o - t) / t);
    }
    eprintln!(
        "{label} Jain ours {:.4} thesis {:.4}; max-min ours {:.4} thesis {:.4}; sum ours {:.2} Mb/s thesis {:.2} Mb/s",
        jain(ours),
        jain(theirs),
        max_min(ours),
        max_min(theirs),
        ours.iter().sum::<f64>() * 8e-6,
        theirs.iter().sum::<f64>() * 8e-6
    );
}

#[test]
fn fairness_indices_hand_worked_and_thesis_tables_7_13_7_15() {
    // Hand-worked: t = (1, 3): Jain = 4^2 / (2 x 10) = 0.8, max-min = 1/3.
    assert!((jain(&[1.0, 3.0]) - 0.8).abs() < 1e-12);
    assert!((max_min(&[1.0, 3.0]) - 1.0 / 3.0).abs() < 1e-12);
    // One connection gets everything: Jain = 1/n.
    assert!((jain(&[5.0, 0.0, 0.0, 0.0]) - 0.25).abs() < 1e-12);
    // The thesis' published indices follow from its published averages
    // (Tables 7.11, 7.12 and 7.14 -> 7.13 and 7.15) to the 4 decimals printed,
    // except Table 7.15's max-min: 177,309.9 / 253,202.9 = 0.70027, printed
    // as "0.7000" (rounded to 2 decimals and padded).
    for (table, j, m, m_tol) in
        [("7.11", 0.9510, 0.5677, 5e-5), ("7.12", 0.8650, 0.3388, 5e-5), ("7.14", 0.9859, 0.7000, 5e-3)]
    {
        let t = thesis(table);
        assert!((jain(&t) - j).abs() < 5e-5, "Table {table} Jain {}", jain(&t));
        assert!((max_min(&t) - m).abs() < m_tol, "Table {table} max-min {}", max_min(&t));
    }
}

/// Table 7.12 / 7.13 with the RTTs read as propagation RTTs (the scenario
/// as written). Measured: Jain 0.8692 (thesis 0.8650), max-min 0.3405
/// (0.3388); every connection 3.5-7.5% above the thesis, the same sign for
/// all six (docs/validation.md: the thesis' paths are slower than their
/// labels, which scales every average and leaves both indices unchanged).
#[test]
fn table_7_12_newreno_baseline_fairness_indices_and_ordering() {
    let out = run_file(FILE, &[]);
    let ours = averages(&out);
    let theirs = thesis("7.12");
    report("Table 7.12 (RTT = propagation)", &ours, &theirs);
    assert!((jain(&ours) - 0.8650).abs() < 0.01, "Jain {}", jain(&ours));
    assert!((max_min(&ours) - 0.3388).abs() < 0.01, "max-min {}", max_min(&ours));
    for w in ours.windows(2) {
        assert!(w[0] > w[1], "throughput must fall with RTT: {ours:?}");
    }
    for ((rtt, o), t) in RTTS_MS.iter().zip(&ours).zip(&theirs) {
        let err = (o - t) / t;
        assert!(err > 0.0 && err < 0.08, "{rtt} ms: ours {o}, thesis {t}");
    }
    // Own-lifetime averages: the sum exceeds the 10 Mb/s link, as the
    // thesis' does (10.27 Mb/s), but not the link's rate by more than the
    // share of the run the short connections are gone.
    let sum_bps = ours.iter().sum::<f64>() * 8.0;
    assert!(sum_bps > 10e6 && sum_bps < 11e6, "{sum_bps}");
}

/// The mechanism behind the long-RTT numbers: once the short connections
/// have finished, the 500 ms connection runs alone and is window-limited:
/// 44 segments per round trip of 500 ms + serialisation.
#[test]
fn longest_connection_ends_window_limited() {
    let out = run_file(FILE, &["run.sample_interval=1s"]);
    let flows = &out.summary.flows;
    let idx = |name: &str| flows.iter().position(|f| f.name == name).unwrap() as u32;
    let (c400, c500) = (idx("c400"), idx("c500"));
    let c400_done = flows[c400 as usize].last_byte_at_s.unwrap();
    let c500_done = flows[c500 as usize].last_byte_at_s.unwrap();
    let s = &out.flow_series;
    let delivered_at = |t: f64| {
        let i = (0..s.time_s.len()).find(|&i| s.flow[i] == c500 && s.time_s[i] >= t).unwrap();
        (s.time_s[i], s.delivered_bytes[i])
    };
    let (t0, b0) = delivered_at(c400_done + 2.0);
    let (t1, b1) = delivered_at(c500_done - 2.0);
    let rate = (b1 - b0) / (t1 - t0);
    let bound = WINDOW_BYTES / (0.5 + SERIALISATION_S);
    eprintln!("c500 alone from {t0:.0} s to {t1:.0} s: {rate:.0} B/s, window bound {bound:.0} B/s");
    assert!(t1 - t0 > 50.0, "c500 runs alone for {} s", t1 - t0);
    assert!(rate <= bound * 1.001 && rate > 0.99 * bound, "{rate} vs {bound}");
}

/// The other reading (docs/validation.md): each connection's path is 56 ms
/// (round trip) slower than its label, the offset the thesis' own
/// Table 5.1 / 7.5 path shows (labelled "RTT 500 ms", reproduced with 556 ms
/// of propagation in scenarios/adalr_geo.toml). Measured: every connection
/// within -1.4% .. +4.2%, Jain 0.8538, max-min 0.3205.
#[test]
fn table_7_12_with_the_table_7_5_path_offset() {
    let sets: Vec<String> = RTTS_MS
        .iter()
        .map(|rtt| format!("links.access_s{rtt}.delay={}ms", *rtt as f64 / 2.0 - 7.5 + 28.0))
        .collect();
    let sets: Vec<&str> = sets.iter().map(String::as_str).collect();
    let out = run_file(FILE, &sets);
    let ours = averages(&out);
    let theirs = thesis("7.12");
    report("Table 7.12 (RTT + 56 ms)", &ours, &theirs);
    for ((rtt, o), t) in RTTS_MS.iter().zip(&ours).zip(&theirs) {
        assert!(rel_err(*o, *t) < 0.05, "{rtt} ms: ours {o}, thesis {t}");
    }
    assert!((jain(&ours) - 0.8650).abs() < 0.015, "Jain {}", jain(&ours));
    assert!((max_min(&ours) - 0.3388).abs() < 0.02, "max-min {}", max_min(&ours));
}

/// Averages with ADaLR NewReno on the connections named.
fn adalr_on(conns: &[u32]) -> Vec<f64> {
    let sets: Vec<String> = conns.iter().map(|rtt| format!("flows.c{rtt}.tcp.variant=adalr-newreno")).collect();
    let sets: Vec<&str> = sets.iter().map(String::as_str).collect();
    let out = run_file(FILE, &sets);
    let variants: Vec<&str> = out.summary.flows.iter().map(|f| f.variant.as_str()).collect();
    assert_eq!(variants.iter().filter(|v| **v == "adalr-newreno").count(), conns.len());
    averages(&out)
}

/// Tables 7.11 and 7.13: six ADaLR NewReno connections share more fairly
/// than six NewReno ones (Jain and max-min both higher); the 500 ms
/// connection gains and the 25 ms one loses, as in the thesis (+47% and
/// -12% there; ours smaller, docs/validation.md "TCP-ADaLR itself").
#[test]
fn tables_7_11_and_7_13_adalr_fairer_than_newreno() {
    let a = adalr_on(&RTTS_MS);
    let n = averages(&run_file(FILE, &[]));
    report("Table 7.11 (ADaLR NewReno)", &a, &thesis("7.11"));
    eprintln!("500 ms: {:+.1}% vs NewReno (thesis +47%); 25 ms: {:+.1}% (thesis -12%)", 100.0 * (a[5] / n[5] - 1.0), 100.0 * (a[0] / n[0] - 1.0));
    assert!(jain(&a) > jain(&n) + 0.03 && max_min(&a) > max_min(&n) + 0.08);
    assert!(a[5] > 1.15 * n[5], "500 ms: {} vs {}", a[5], n[5]);
    assert!(a[0] < 0.95 * n[0], "25 ms: {} vs {}", a[0], n[0]);
    for w in a.windows(2) {
        assert!(w[0] > w[1], "throughput still falls with RTT: {a:?}");
    }
}

/// Tables 7.14 and 7.15: NewReno on 25-100 ms, ADaLR NewReno on 300-500 ms.
/// The mix is fairer than six NewReno connections (the direction of the
/// thesis' friendliness, Jain 0.9859 there) and each ADaLR connection gets
/// more than it would as NewReno.
#[test]
fn tables_7_14_and_7_15_friendliness_mix_fairer_than_newreno_alone() {
    let m = adalr_on(&[300, 400, 500]);
    let n = averages(&run_file(FILE, &[]));
    report("Table 7.14 (mix)", &m, &thesis("7.14"));
    assert!(jain(&m) > jain(&n) && max_min(&m) > max_min(&n));
    for i in 3..6 {
        assert!(m[i] > n[i], "{} ms: ADaLR {} vs NewReno {}", RTTS_MS[i], m[i], n[i]);
    }
}
