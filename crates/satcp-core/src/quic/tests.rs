//! QUIC flows end to end: the demo's GEO path (`python/satcp/scenarios/
//! geo_demo.toml`: 10 Mbit/s 5 ms terrestrial hop, 2,048/256 kbit/s 250 ms
//! satellite hop, 100-packet drop-tail queue down), checked for
//! completion, handshake time, stream integrity, determinism, TCP beside
//! it, and the parser's refusals.

use crate::scenario::parse_toml;
use crate::stats::output::FlowSummary;
use super::{PATTERN_PERIOD, WRITE_CHUNK};

/// The demo's GEO path with `queue` packets of queue down, `errors` on the
/// downlink (a TOML inline table or ""), and `flows` appended.
pub(super) fn geo(queue: u32, errors: &str, flows: &str) -> String {
    let errors = if errors.is_empty() { String::new() } else { format!("errors_ab = {errors}\n") };
    format!(
        "[run]\nseed = 1\nstop = \"6000s\"\n[nodes]\nserver = {{}}\ngateway = {{}}\nclient = {{}}\n\
         [[links]]\na = \"server\"\nb = \"gateway\"\nrate = \"10Mbps\"\ndelay = \"5ms\"\n\
         [[links]]\na = \"gateway\"\nb = \"client\"\nrate_ab = \"2048kbps\"\nrate_ba = \"256kbps\"\ndelay = \"250ms\"\n\
         queue_ab = {{ kind = \"droptail\", packets = {queue} }}\n{errors}{flows}"
    )
}

pub(super) fn quic_flow(name: &str, quic: &str, size: &str) -> String {
    format!("[[flows]]\nname = \"{name}\"\nsrc = \"server\"\ndst = \"client\"\ntransport = \"quic\"\nquic = {quic}\napp = {{ kind = \"ftp\", size = \"{size}\" }}\n")
}

fn tcp_flow(name: &str, tcp: &str, size: &str) -> String {
    format!("[[flows]]\nname = \"{name}\"\nsrc = \"server\"\ndst = \"client\"\ntcp = {tcp}\napp = {{ kind = \"ftp\", size = \"{size}\" }}\n")
}

pub(super) fn run(text: &str) -> (crate::RunOutput, Vec<FlowSummary>) {
    let scn = parse_toml(text, &[]).unwrap_or_else(|e| panic!("{e}"));
    let out = crate::run(&scn);
    let flows = out.summary.flows.clone();
    (out, flows)
}

/// Every byte of the file reached the client in order and matched the
/// pattern the server wrote.
pub(super) fn delivered_whole(f: &FlowSummary, bytes: u64) {
    assert!(f.completed, "{f:?}");
    assert_eq!(f.bytes_delivered, bytes);
    assert_eq!(f.integrity_errors, 0);
    assert!(!f.aborted);
}

/// 10 MB over the demo's GEO path completes; the handshake takes one
/// round trip: 510 ms of propagation, the client's padded 1,200-byte
/// Initial (1,228 IP bytes) serialised on the 256 kbit/s uplink (38.4 ms)
/// and the 10 Mbit/s hop (1.0 ms), the server's first flight (ServerHello
/// and 656 bytes of EncryptedExtensions..Finished: one padded datagram)
/// on the 10 Mbit/s hop (1.0 ms) and the 2,048 kbit/s downlink (4.8 ms):
/// 555.2 ms by hand; allowed 2 ms either way.
#[test]
fn ten_megabytes_over_geo_complete_after_a_one_rtt_handshake() {
    let (_, f) = run(&geo(100, "", &quic_flow("d", "{ cc = \"quinn-cubic\" }", "10MB")));
    delivered_whole(&f[0], 10_000_000);
    let hs = f[0].quic.unwrap().handshake_s.unwrap();
    let dg = 1228.0 * 8.0;
    let by_hand = 0.510 + dg / 256e3 + dg / 10e6 + dg / 10e6 + dg / 2048e3;
    assert!((hs - by_hand).abs() < 0.002, "handshake {hs} s, by hand {by_hand} s");
    // the file at the downlink's rate is 39 s; slow start and headers add
    // a few seconds, never a doubling
    let c = f[0].completion_s.unwrap();
    assert!(c > 39.0 && c < 50.0, "{c}");
    assert_eq!(f[0].variant, "quic/quinn-cubic");
}

/// Loss-free (a queue no window reaches), CUBIC on QUIC (satcp's, through
/// the adapter) and on TCP SACK with the same initial window in bytes (10 x
/// 1,460) complete within 10% of each other.
#[test]
fn the_same_cubic_on_quic_and_on_tcp_sack_completes_within_ten_percent() {
    let q = run(&geo(100_000, "", &quic_flow("d", "{ cc = \"cubic\", initial_window = 14600 }", "10MB"))).1;
    let t = run(&geo(100_000, "", &tcp_flow("d", "{ variant = \"cubic\", initial_window = 10 }", "10MB"))).1;
    delivered_whole(&q[0], 10_000_000);
    assert!(t[0].completed);
    assert_eq!((q[0].retransmissions, t[0].retransmissions), (0, 0), "loss-free");
    let (cq, ct) = (q[0].completion_s.unwrap(), t[0].completion_s.unwrap());
    assert!((cq / ct - 1.0).abs() < 0.10, "quic {cq} s, tcp {ct} s");
}

/// PER 1e-2 on the downlink: quinn repairs the losses and the file
/// arrives whole and in order, under every controller offered.
#[test]
fn a_lossy_downlink_is_repaired_under_every_controller() {
    for cc in ["quinn-newreno", "quinn-cubic", "aimd", "cubic", "hybla"] {
        let (_, f) = run(&geo(100, "{ per = 1e-2 }", &quic_flow("d", &format!("{{ cc = \"{cc}\" }}"), "2MB")));
        delivered_whole(&f[0], 2_000_000);
        let q = f[0].quic.unwrap();
        assert!(q.lost_packets > 0 && q.congestion_events > 0, "{cc}: {q:?}");
        assert_eq!(f[0].variant, format!("quic/{cc}"));
    }
}

/// Same scenario and seed, the same bits (each run on its own time base:
/// quinn's `Instant`s are taken from the clock when the run is built);
/// another seed, other connection IDs and another run.
#[test]
fn quic_runs_are_reproducible() {
    let text = geo(100, "{ per = 1e-2 }", &quic_flow("d", "{ cc = \"cubic\" }", "1MB"));
    let json = |t: &str| {
        let mut out = run(t).0;
        out.summary.wall_s = 0.0;
        out.summary_json()
    };
    let a = json(&text);
    std::thread::sleep(std::time::Duration::from_millis(5));
    assert_eq!(a, json(&text));
    assert_ne!(a, json(&text.replace("seed = 1", "seed = 2")));
}

/// A QUIC flow and a TCP flow share the downlink's queue: both complete,
/// whole, and the queue carried both (its bytes are at least the two
/// files').
#[test]
fn quic_beside_tcp_through_one_queue() {
    let flows = quic_flow("q", "{ cc = \"quinn-cubic\" }", "1MB") + &tcp_flow("t", "{ variant = \"sack\" }", "1MB");
    let (out, f) = run(&geo(100, "", &flows));
    delivered_whole(&f[0], 1_000_000);
    assert!(f[1].completed && f[1].bytes_delivered == 1_000_000);
    let down = &out.summary.links[2];
    assert_eq!((down.from.as_str(), down.to.as_str()), ("gateway", "client"));
    assert!(down.bytes_tx > 2_000_000, "{}", down.bytes_tx);
    // TCP's line has no quic part; QUIC's has no TCP limits
    assert!(f[1].quic.is_none() && f[0].limited.is_none());
    assert!(!out.summary_json().contains("\"quic\":null"));
    // the sweep store's rows flatten QUIC's part (one column per counter)
    let rows = crate::stats::store_rows::rows_of(&out.summary);
    let names = &rows.table("flows").names;
    assert!(names.iter().any(|n| n == "quic_handshake_s") && names.iter().any(|n| n == "quic_lost_packets"), "{names:?}");
}

/// Keys not implemented yet, controllers not adapted yet, and tables that
/// do not fit the transport are refused by name before anything runs.
#[test]
fn the_parser_refuses_what_quic_flows_do_not_do_yet() {
    let err = |flow: &str| parse_toml(&geo(100, "", flow), &[]).unwrap_err().to_string();
    let q = |quic: &str| quic_flow("d", quic, "1MB");
    for (flow, says) in [
        (q("{ max_ack_delay = \"10ms\" }"), "quic.max_ack_delay is not implemented"),
        (q("{ zero_rtt = true }"), "quic.zero_rtt is not implemented"),
        (q("{ careful_resume = true }"), "an inline table of the saved path state"),
        (q("{ cc = \"quinn-bbr\" }"), "operating system"),
        (q("{ cc = \"peach\" }"), "window controllers and BBR only"),
        (q("{ cc = \"quinn-cubic\", hybla_rtt0 = \"25ms\" }"), "unknown key \"hybla_rtt0\""),
        (q("{ stream_window = 0 }"), "flows.d.quic.stream_window"),
        (tcp_flow("d", "{}", "1MB").replace("tcp = {}", "quic = {}"), "no quic table"),
        (q("{}").replace("transport = \"quic\"", "transport = \"quic\"\ntcp = {}"), "no tcp table"),
        (q("{}").replace("size = \"1MB\"", "size = \"1MB\", response_end = \"fin\""), "response_end"),
        (q("{}").replace("kind = \"ftp\", size = \"1MB\"", "kind = \"cbr\", rate = \"1Mbps\""), "ftp and http"),
    ] {
        let e = err(&flow);
        assert!(e.contains(says), "{flow}\n=> {e}");
    }
    let tls = parse_toml(&geo(100, "", &q("{ crypto = \"tls\" }")), &[]);
    if cfg!(feature = "tls") {
        assert!(tls.is_ok(), "{:?}", tls.err());
    } else {
        assert!(tls.unwrap_err().to_string().contains("built without real TLS 1.3"));
    }
    // a satcp controller's own keys are accepted in the quic table
    let ok = parse_toml(&geo(100, "", &q("{ cc = \"hybla\", hybla_rtt0 = \"25ms\" }")), &[]);
    assert!(ok.is_ok(), "{:?}", ok.err());
}

/// Real TLS 1.3 (`crypto = "tls"`): the file arrives whole over a lossy
/// path; two runs give the same summary bits although rustls's random
/// values differ (their sizes do not, `quic/tls.rs`); the handshake takes
/// the null crypto's one round trip (the same datagram count: both first
/// flights fit one datagram) within a millisecond.
#[cfg(feature = "tls")]
#[test]
fn tls_runs_give_the_same_summaries() {
    let text = |crypto: &str| geo(100, "{ per = 1e-2 }", &quic_flow("d", &format!("{{ cc = \"cubic\", crypto = \"{crypto}\" }}"), "1MB"));
    let json = |t: &str| {
        let mut out = run(t).0;
        out.summary.wall_s = 0.0;
        (out.summary_json(), out.summary.flows[0].clone())
    };
    let (a, fa) = json(&text("tls"));
    let (b, _) = json(&text("tls"));
    assert_eq!(a, b);
    delivered_whole(&fa, 1_000_000);
    let (_, fnull) = json(&text("null"));
    let (ht, hn) = (fa.quic.unwrap().handshake_s.unwrap(), fnull.quic.unwrap().handshake_s.unwrap());
    assert!((ht - hn).abs() < 0.001, "tls {ht} s, null {hn} s");
}

/// A QUIC flow that has delivered its file closes its connection; it is
/// not counted as aborted when a TCP flow beside it runs on for longer than
/// quinn's 30 s idle timeout, and the run ends "completed".
#[test]
fn a_finished_quic_flow_closes_and_is_not_aborted() {
    let flows = quic_flow("q", "{}", "200kB") + &tcp_flow("t", "{ variant = \"sack\" }", "12MB");
    let (out, f) = run(&geo(100, "", &flows));
    delivered_whole(&f[0], 200_000);
    assert!(f[1].completed && f[1].completion_s.unwrap() > f[0].completion_s.unwrap() + 30.0, "{:?}", f[1].completion_s);
    assert_eq!(out.summary.ended_by, "completed");
}

/// FTP with a request: the client's request rides a bidirectional stream
/// it opens, the server answers with the file on that stream once the
/// whole request has arrived; every byte arrives in order, and the
/// connection ends without an abort (the client's work is done when the
/// answer's stream has ended, so the idle timeout that follows is none).
#[test]
fn a_requested_file_comes_back_on_the_request_stream() {
    let flow = quic_flow("d", "{}", "1MB").replace("size = \"1MB\"", "size = \"1MB\", request = \"300B\"");
    let flows = flow + &tcp_flow("t", "{ variant = \"sack\" }", "12MB");
    let (out, f) = run(&geo(100, "", &flows));
    delivered_whole(&f[0], 1_000_000);
    assert_eq!(out.summary.ended_by, "completed");
    // the request waits for the handshake: 1 RTT more than a pushed file
    let pushed = run(&geo(100, "", &quic_flow("d", "{}", "1MB"))).1;
    let extra = f[0].completion_s.unwrap() - pushed[0].completion_s.unwrap();
    assert!(extra > 0.5, "{extra}");
}

/// HTTP pages over one QUIC connection, a request stream per object: 3
/// pages of a main object and 15 embedded objects complete. Requested one
/// after another, a page takes at least 16 round trips (510 ms each);
/// pipelined, the embedded objects share the connection on parallel
/// streams and a page takes a few round trips: less than a third of that.
#[test]
fn http_pages_ride_a_stream_per_object() {
    let http = |pipelining: bool| {
        format!("[[flows]]\nname = \"w\"\nsrc = \"server\"\ndst = \"client\"\ntransport = \"quic\"\n\
                 app = {{ kind = \"http\", pages = 3, page_interval = \"30s\", pipelining = {pipelining} }}\n")
    };
    let (_, f) = run(&geo(100, "", &http(false)));
    assert!(f[0].completed && f[0].integrity_errors == 0 && !f[0].aborted, "{:?}", f[0]);
    assert_eq!(f[0].pages_completed, 3);
    let serial = f[0].mean_page_response_s.unwrap();
    assert!(serial > 16.0 * 0.51 && serial < 2.0 * 16.0 * 0.51, "{serial}");
    // every object's bytes: 3 x (10,710 + 15 x 7,758)
    assert_eq!(f[0].bytes_delivered, 3 * (10_710 + 15 * 7_758));
    let (_, p) = run(&geo(100, "", &http(true)));
    assert_eq!(p[0].pages_completed, 3);
    let piped = p[0].mean_page_response_s.unwrap();
    assert!(piped < serial / 3.0, "pipelined {piped} s, one at a time {serial} s");
}

/// The `--out` series of a QUIC flow: a row per tick with quinn's window
/// and smoothed RTT (NaN before the server has a connection, quinn's
/// initial 333 ms until the server's first
/// sample, the client's Finished half a round trip after the client's
/// handshake; from then on at least the path's 510 ms) and
/// the bytes delivered, never decreasing, ending at the file's size; the
/// TCP-only columns are NaN.
#[test]
fn the_series_carry_quinns_window_rtt_and_delivery() {
    let text = geo(100, "", &quic_flow("d", "{ cc = \"cubic\" }", "1MB")).replace("[run]\n", "[run]\nsample_interval = \"100ms\"\n");
    let (out, f) = run(&text);
    let s = &out.flow_series;
    assert!(s.time_s.len() > 20 && s.flow.iter().all(|&x| x == 0));
    let after = |t: f64| s.time_s.iter().position(|&x| x >= t).unwrap();
    // no server connection before the client's Initial arrives
    assert!(s.srtt_s[0].is_nan() && s.srtt_s.contains(&0.333));
    let i = after(f[0].quic.unwrap().handshake_s.unwrap() + 0.5);
    assert!(s.srtt_s[i..].iter().all(|&r| r >= 0.51), "{:?}", &s.srtt_s[i..i + 3]);
    assert!(s.cwnd_bytes[0].is_nan() && s.cwnd_bytes[i..].iter().all(|&c| c >= 2400.0));
    assert!(s.delivered_bytes.windows(2).all(|w| w[0] <= w[1]));
    assert!(*s.delivered_bytes.last().unwrap() <= 1_000_000.0 && s.delivered_bytes.iter().any(|&d| d > 0.0));
    assert!(s.flight_bytes.iter().all(|x| x.is_nan()) && s.rto_s.iter().all(|x| x.is_nan()));
}

/// The integrity check compares slices of the pattern: data that follows
/// it at any offset passes, one wrong byte anywhere fails, across the
/// pattern's period and a piece boundary.
#[test]
fn the_pattern_check_finds_one_wrong_byte_anywhere() {
    let pattern: Vec<u8> = (0..PATTERN_PERIOD + WRITE_CHUNK).map(|i| (i % PATTERN_PERIOD) as u8).collect();
    for (offset, len) in [(0u64, 1usize), (250, 3), (1_000_003, 1452), (7, WRITE_CHUNK + 600)] {
        let good: Vec<u8> = (0..len as u64).map(|k| ((offset + k) % PATTERN_PERIOD as u64) as u8).collect();
        assert!(super::follows_pattern(&good, offset, &pattern), "{offset} {len}");
        for at in [0, len / 2, len - 1] {
            let mut bad = good.clone();
            bad[at] ^= 1;
            assert!(!super::follows_pattern(&bad, offset, &pattern), "{offset} {len} {at}");
        }
        assert!(len < 2 || !super::follows_pattern(&good, offset + 1, &pattern));
    }
}
