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
    let json = |t: &str| {
        let mut out = run(t).0;
        out.summary.wall_s = 0.0;
        out.summary_json()
    };
    // 0-RTT too: the ticket's earlier connection is seeded as well
    for quic in ["{ cc = \"cubic\" }", "{ cc = \"cubic\", zero_rtt = true }"] {
        let flow = quic_flow("d", quic, "1MB").replace("size = \"1MB\"", "size = \"1MB\", request = \"300B\"");
        let text = geo(100, "{ per = 1e-2 }", &flow);
        let a = json(&text);
        std::thread::sleep(std::time::Duration::from_millis(5));
        assert_eq!(a, json(&text), "{quic}");
        assert_ne!(a, json(&text.replace("seed = 1", "seed = 2")), "{quic}");
    }
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
        (q("{ max_ack_delay = \"500us\" }"), "flows.d.quic.max_ack_delay"),
        (q("{ max_ack_delay = \"20s\" }"), "to 16383ms"),
        (q("{ ack_frequency = { threshold = -1 } }"), "flows.d.quic.ack_frequency.threshold"),
        (q("{ ack_frequency = { reordering = 1.5 } }"), "flows.d.quic.ack_frequency.reordering"),
        (q("{ ack_frequency = { every = 3 } }"), "unknown key \"every\""),
        (q("{ ack_frequency = 3 }"), "{ threshold = N, reordering = N }"),
        (q("{ zero_rtt = 1 }"), "flows.d.quic.zero_rtt"),
        (q("{ pacing = false }"), "quinn always paces"),
        (q("{ pacing = \"yes\" }"), "flows.d.quic.pacing"),
        (q("{ careful_resume = true }"), "an inline table of the saved path state"),
        (q("{ cc = \"quinn-bbr\" }"), "operating system"),
        (q("{ cc = \"peach\" }"), "window controllers and BBR only"),
        (q("{ cc = \"quinn-cubic\", hybla_rtt0 = \"25ms\" }"), "unknown key \"hybla_rtt0\""),
        (q("{ stream_window = 0 }"), "flows.d.quic.stream_window"),
        (tcp_flow("d", "{}", "1MB").replace("tcp = {}", "quic = {}"), "no quic table"),
        (q("{}").replace("transport = \"quic\"", "transport = \"quic\"\ntcp = {}"), "no tcp table"),
        (q("{}").replace("kind = \"ftp\", size = \"1MB\"", "kind = \"cbr\", rate = \"1Mbps\""), "ftp and http"),
    ] {
        let e = err(&flow);
        assert!(e.contains(says), "{flow}\n=> {e}");
    }
    let tls = parse_toml(&geo(100, "", &q("{ crypto = \"tls\" }")), &[]);
    if cfg!(feature = "tls") {
        assert!(tls.is_ok(), "{:?}", tls.err());
        let zero = parse_toml(&geo(100, "", &q("{ crypto = \"tls\", zero_rtt = true }")), &[]);
        assert!(zero.is_ok(), "{:?}", zero.err());
    } else {
        assert!(tls.unwrap_err().to_string().contains("built without real TLS 1.3"));
    }
    // what quinn does anyway: no change
    assert_eq!(quic_cfg("{ pacing = true }"), quic_cfg("{}"));
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

/// 0-RTT on real TLS 1.3 (`crypto = "tls"`, `zero_rtt = true`),
/// loss-free: the client resumes from a rustls ticket of an in-memory
/// earlier connection, so as with the null crypto its request rides the
/// first flight (`handshake_s` 0 against one round trip without) and the
/// file arrives sooner, by at least 0.3 s and at most the 555 ms round
/// trip; every byte arrives; and two runs give the same summary (the
/// ticket's and the resumed handshake's bytes differ from run to run,
/// their sizes do not).
#[cfg(feature = "tls")]
#[test]
fn tls_zero_rtt_sends_the_request_with_the_first_flight() {
    let flow = |quic: &str| quic_flow("d", quic, "1MB").replace("size = \"1MB\"", "size = \"1MB\", request = \"300B\"");
    let json = |t: &str| {
        let mut out = run(t).0;
        out.summary.wall_s = 0.0;
        (out.summary_json(), out.summary.flows[0].clone())
    };
    let one = json(&geo(100_000, "", &flow("{ cc = \"cubic\", crypto = \"tls\" }"))).1;
    let zero_text = geo(100_000, "", &flow("{ cc = \"cubic\", crypto = \"tls\", zero_rtt = true }"));
    let (a, zero) = json(&zero_text);
    assert_eq!(a, json(&zero_text).0, "two 0-RTT TLS runs");
    delivered_whole(&one, 1_000_000);
    delivered_whole(&zero, 1_000_000);
    let (h1, h0) = (one.quic.unwrap().handshake_s.unwrap(), zero.quic.unwrap().handshake_s.unwrap());
    assert!(h1 > 0.5 && h0 == 0.0, "1-RTT {h1} s, 0-RTT {h0} s");
    let (c1, c0) = (one.completion_s.unwrap(), zero.completion_s.unwrap());
    assert!(c1 - c0 > 0.3 && c1 - c0 <= h1 + 0.002, "1-RTT {c1} s, 0-RTT {c0} s");
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
/// server's bytes in flight from its first connection on; the TCP-only
/// columns are NaN.
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
    assert!(s.rto_s.iter().all(|x| x.is_nan()) && s.ssthresh_bytes.iter().all(|x| x.is_nan()));
    assert!(s.flight_bytes[0].is_nan() && s.flight_bytes[i..].iter().all(|x| !x.is_nan()));
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

/// The client's ACK frames and the file's completion, for `quic` settings
/// over the loss-free GEO path (a queue no window reaches).
fn acks_and_completion(quic: &str, size: &str, bytes: u64) -> (u64, f64) {
    let (_, f) = run(&geo(100_000, "", &quic_flow("d", quic, size)));
    delivered_whole(&f[0], bytes);
    (f[0].quic.unwrap().client_acks, f[0].completion_s.unwrap())
}

/// The ACK-frequency extension: without it quinn's client acknowledges
/// every second packet (RFC 9000 section 13.2.2), about one ACK per 2,900
/// bytes of a 2 MB file: at least 2 MB / 2 / 1,452 (quinn's largest
/// payload) = 688. Asked to wait for more than 10 packets (and up to
/// 100 ms: 11 packets at 2,048 kbit/s take 64 ms, so the count binds),
/// it sends an ACK per 11 packets: at least 2 MB / 11 / 1,452 = 125
/// and far fewer than half the default's; the file still arrives whole.
#[test]
fn a_larger_ack_threshold_sends_fewer_acks_and_completes() {
    let (plain, _) = acks_and_completion("{ cc = \"cubic\" }", "2MB", 2_000_000);
    let (sparse, _) = acks_and_completion("{ cc = \"cubic\", max_ack_delay = \"100ms\", ack_frequency = { threshold = 10 } }", "2MB", 2_000_000);
    assert!(plain >= 688, "{plain}");
    assert!(sparse >= 125 && sparse * 3 < plain, "threshold 10: {sparse} ACKs, default: {plain}");
}

/// `max_ack_delay` with a threshold no flight reaches: the client
/// acknowledges on its ACK timer only. At 200 ms, no two ACKs of the data
/// are less than 200 ms apart: at most completion / 0.2 of them (plus the
/// handshake's few); at 25 ms, while the file crosses the 2,048 kbit/s
/// downlink back to back (at least 2 MB x 8 / 2.048 Mbit/s = 7.8 s), an ACK
/// comes at most 25 ms + one packet's 5.8 ms after the previous: at least
/// 7.8 / 0.0308 = 253. Asked for 20 s, quinn clamps the request to the
/// path's RTT (at most max(RTT, 25 ms)): ACKs keep coming every RTT or so,
/// more than a 20 s timer would send (the completion / 20 s, under 3).
#[test]
fn max_ack_delay_sets_when_the_receiver_acknowledges() {
    let q = |d: &str| format!("{{ cc = \"cubic\", max_ack_delay = \"{d}\", ack_frequency = {{ threshold = 100000 }} }}");
    let (slow, c_slow) = acks_and_completion(&q("200ms"), "2MB", 2_000_000);
    let (fast, _) = acks_and_completion(&q("25ms"), "2MB", 2_000_000);
    assert!((slow as f64) <= c_slow / 0.2 + 6.0, "{slow} ACKs in {c_slow} s");
    assert!(fast >= 253, "{fast}");
    let (clamped, c) = acks_and_completion(&q("16s"), "2MB", 2_000_000);
    assert!(clamped as f64 > c / 16.0 + 6.0 && clamped as f64 > c / 1.5, "{clamped} ACKs in {c} s");
}

/// PTOs are counted exactly: none on a loss-free run; a 2 s outage of
/// the satellite hop (both ways) in the middle of the transfer (every
/// datagram in flight lost, no ACK comes back) makes the probe timers
/// expire: the server's (its data) and the client's (its flow-control
/// updates are ack-eliciting too). A PTO is at least the 510 ms path RTT
/// and doubles at each expiry: at 0.51, 1.53 and 3.57 s at the earliest
/// after a side's last ack-eliciting packet, so at most 3 per side in the
/// 2 s outage and the round trip after it (the probe sent after it gets
/// through), at most 6 in all; the file still arrives whole.
#[test]
fn the_summary_counts_ptos_exactly() {
    let (_, f) = run(&geo(100_000, "", &quic_flow("d", "{ cc = \"cubic\" }", "1MB")));
    delivered_whole(&f[0], 1_000_000);
    assert_eq!(f[0].quic.unwrap().ptos, 0);
    let outage = geo(100_000, "", &quic_flow("d", "{ cc = \"cubic\" }", "1MB"))
        .replace("queue_ab =", "changes = [{ at = \"3s\", down = true }, { at = \"5s\", down = false }]\nqueue_ab =");
    let (_, f) = run(&outage);
    delivered_whole(&f[0], 1_000_000);
    let q = f[0].quic.unwrap();
    assert!(q.ptos >= 1 && q.ptos <= 6, "{q:?}");
}

/// The parsed `quic` settings of a one-flow scenario.
fn quic_cfg(quic: &str) -> crate::scenario::QuicCfg {
    let scn = parse_toml(&geo(100, "", &quic_flow("d", quic, "1MB")), &[]).unwrap_or_else(|e| panic!("{quic}: {e}"));
    scn.flows[0].quic.clone().expect("a QUIC flow")
}

/// `variant` selects the controller a `tcp` table's variant runs, with
/// the same parameters as `cc` (and its keys); `newreno` is RFC 9002's
/// NewReno window, satcp's aimd; `variant` and `cc` that agree are taken.
#[test]
fn variant_selects_the_same_controller_as_cc() {
    for (variant, cc) in [("cubic", "cubic"), ("hybla", "hybla"), ("newreno", "aimd")] {
        let v = quic_cfg(&format!("{{ variant = \"{variant}\" }}"));
        assert_eq!(v, quic_cfg(&format!("{{ cc = \"{cc}\" }}")), "{variant}");
        assert_eq!(v, quic_cfg(&format!("{{ variant = \"{variant}\", cc = \"{cc}\" }}")), "{variant}");
        assert_eq!(v.cc.name(), cc);
    }
    let h = quic_cfg("{ variant = \"hybla\", hybla_rtt0 = \"50ms\" }");
    assert_eq!(h, quic_cfg("{ cc = \"hybla\", hybla_rtt0 = \"50ms\" }"));
    assert_ne!(h, quic_cfg("{ cc = \"hybla\" }"));
    // a run with it is the cc's run, labelled by its controller
    let (_, a) = run(&geo(100, "", &quic_flow("d", "{ variant = \"newreno\" }", "300kB")));
    let (_, b) = run(&geo(100, "", &quic_flow("d", "{ cc = \"aimd\" }", "300kB")));
    delivered_whole(&a[0], 300_000);
    assert_eq!((a[0].variant.as_str(), a[0].completion_s), ("quic/aimd", b[0].completion_s));
}

/// `profile = "linux"` gives satcp's controllers the `linux` profile's
/// defaults, as on TCP: CUBIC's window and HyStart in Linux's style,
/// AIMD's per-byte increase (on QUIC under `rfc` too), Hybla's Linux
/// style; keys given win.
#[test]
fn profile_linux_gives_the_controllers_their_linux_defaults() {
    let linux = quic_cfg("{ cc = \"cubic\", profile = \"linux\" }");
    assert_eq!(linux, quic_cfg("{ cc = \"cubic\", cubic_style = \"linux\", cubic_hystart_style = \"linux\" }"));
    assert_ne!(linux, quic_cfg("{ cc = \"cubic\" }"));
    assert_eq!(quic_cfg("{ cc = \"cubic\", profile = \"rfc\" }"), quic_cfg("{ cc = \"cubic\" }"));
    assert_eq!(
        quic_cfg("{ cc = \"cubic\", profile = \"linux\", cubic_style = \"rfc9438\" }"),
        quic_cfg("{ cc = \"cubic\", cubic_hystart_style = \"linux\" }")
    );
    assert_eq!(quic_cfg("{ variant = \"newreno\", profile = \"linux\" }"), quic_cfg("{ cc = \"aimd\", ca_increment = \"bytes\" }"));
    // RFC 9002's NewReno counts bytes in congestion avoidance (its B.5):
    // AIMD's default on QUIC under either profile; a key given wins
    assert_eq!(quic_cfg("{ cc = \"aimd\" }"), quic_cfg("{ cc = \"aimd\", ca_increment = \"bytes\" }"));
    assert_ne!(quic_cfg("{ cc = \"aimd\" }"), quic_cfg("{ cc = \"aimd\", ca_increment = \"rfc5681\" }"));
    assert_eq!(quic_cfg("{ variant = \"hybla\", profile = \"linux\" }"), quic_cfg("{ cc = \"hybla\", hybla_style = \"linux\" }"));
}

/// What `variant` and `profile` cannot mean on QUIC is refused, naming
/// the reason and what is allowed.
#[test]
fn variants_and_profiles_quic_cannot_run_are_refused() {
    let err = |quic: &str| parse_toml(&geo(100, "", &quic_flow("d", quic, "1MB")), &[]).unwrap_err().to_string();
    for (quic, says) in [
        ("{ variant = \"sack\" }", "names a TCP loss-recovery scheme"),
        ("{ variant = \"reno\" }", "QUIC's recovery is always RFC 9002's"),
        ("{ variant = \"fack\" }", "flows.d.quic.variant"),
        ("{ variant = \"enhanced\" }", "loss-recovery scheme"),
        ("{ variant = \"vegas\" }", "window controllers only"),
        ("{ variant = \"modified-peach\" }", "window controllers only"),
        ("{ variant = \"bogus\" }", "one of \"newreno\", \"cubic\", \"hybla\""),
        ("{ variant = 3 }", "one of \"newreno\""),
        ("{ variant = \"cubic\", cc = \"hybla\" }", "variant = \"cubic\" runs cc = \"cubic\""),
        ("{ variant = \"cubic\", cc = \"quinn-cubic\" }", "a variant of the controller cc names"),
        ("{ variant = \"newreno\", cubic_c = 0.4 }", "unknown key \"cubic_c\""),
        ("{ cc = \"cubic\", profile = \"ns2\" }", "ns-2 has no QUIC"),
        ("{ cc = \"cubic\", profile = \"bsd\" }", "one of \"rfc\", \"linux\""),
        ("{ profile = \"linux\" }", "no profile with quinn's controllers"),
        ("{ cc = \"quinn-newreno\", profile = \"rfc\" }", "no profile with quinn's controllers"),
    ] {
        let e = err(quic);
        assert!(e.contains(says), "{quic}\n=> {e}");
    }
}

/// 0-RTT (`zero_rtt = true`, null crypto), loss-free (a queue no window
/// reaches): the client resumes from a ticket of an earlier connection and
/// its request rides its first datagram, so the handshake as the client
/// sees it takes no round trip (`handshake_s` 0, against one round trip,
/// 555.1 ms, without). The server has the request when the client's
/// Initial arrives, as it would start a pushed file: the requested file
/// arrives no later than the pushed one (allowed: the 300-byte request's
/// 9.4 ms on the 256 kbit/s uplink), and sooner than with a 1-RTT request,
/// whose request leaves one handshake (555 ms) later: by at most that
/// (measured 0.394 s: the later answer starts with an RTT sample and a
/// calmer pacer, which win back part of it; not worked by hand), and by
/// at least 0.3 s. Every byte arrives.
#[test]
fn zero_rtt_sends_the_request_with_the_first_flight() {
    let flow = |quic: &str| quic_flow("d", quic, "1MB").replace("size = \"1MB\"", "size = \"1MB\", request = \"300B\"");
    let (_, one) = run(&geo(100_000, "", &flow("{ cc = \"cubic\" }")));
    let (_, zero) = run(&geo(100_000, "", &flow("{ cc = \"cubic\", zero_rtt = true }")));
    let (_, pushed) = run(&geo(100_000, "", &quic_flow("d", "{ cc = \"cubic\", zero_rtt = true }", "1MB")));
    for f in [&one[0], &zero[0], &pushed[0]] {
        delivered_whole(f, 1_000_000);
    }
    let (h1, h0) = (one[0].quic.unwrap().handshake_s.unwrap(), zero[0].quic.unwrap().handshake_s.unwrap());
    assert!((h1 - 0.5552).abs() < 0.002 && h0 == 0.0, "1-RTT {h1} s, 0-RTT {h0} s");
    let (c1, c0, cp) = (one[0].completion_s.unwrap(), zero[0].completion_s.unwrap(), pushed[0].completion_s.unwrap());
    assert!(c0 <= cp + 0.0094, "0-RTT request {c0} s, pushed {cp} s");
    assert!(c1 - c0 > 0.3 && c1 - c0 <= 0.5552 + 0.002, "1-RTT {c1} s, 0-RTT {c0} s");
}

/// A 1 MB file with `response_end` = `end` (`request` bytes asked first
/// when > 0), on the loss-free path (a queue no window reaches) or with
/// `errors` on the downlink: (completion, the last byte's time) in s.
fn response_end(end: &str, request: u32, errors: &str) -> (f64, f64) {
    let app = if request > 0 { format!("size = \"1MB\", request = \"{request}B\"") } else { "size = \"1MB\"".to_string() };
    let flow = quic_flow("d", "{ cc = \"cubic\" }", "1MB").replace("size = \"1MB\"", &format!("{app}, response_end = \"{end}\""));
    let (_, f) = run(&geo(100_000, errors, &flow));
    delivered_whole(&f[0], 1_000_000);
    assert_eq!(f[0].fin_done_at_s, None, "not reported for QUIC");
    (f[0].completion_s.unwrap(), f[0].last_byte_at_s.unwrap())
}

/// `response_end` on QUIC, worked by hand on the loss-free GEO path:
/// * `fin` (the client read the response stream to its end) is the last
///   byte's instant exactly: quinn sends the FIN bit on the file's last
///   STREAM frame, since FTP finishes the stream before that frame leaves;
/// * `last_ack` (the server heard that all of it, FIN included, is
///   acknowledged) is one trip of the client's ACK up the path later. With
///   the file pushed, the client closes the connection on reading the
///   stream's end and quinn puts its pending ACKs in the CONNECTION_CLOSE
///   packet, at once (no ACK delay): 255 ms of propagation + the packet
///   (under 100 bytes) serialised on the 256 kbit/s uplink (under 3.2 ms,
///   and at most one ACK of the same size ahead of it: 6.3 ms) and the
///   10 Mbit/s hop: 255.0 to 261.5 ms. With a request, the client keeps
///   the connection open and acknowledges as quinn's receiver does (every
///   second ack-eliciting packet, or 25 ms, quinn's max_ack_delay, after
///   the first unacknowledged one): 255.0 to 286.5 ms; with the
///   ACK-frequency extension asking for a timer-only ACK at 100 ms
///   (threshold 100,000), the ACK of the last packets waits for that
///   timer: 255 ms + up to 100 ms.
/// Each end taken at another event fails: `fin` at the ACK's arrival
/// would be 255 ms late, `last_ack` at the client's read 255 ms early.
#[test]
fn response_end_fin_and_last_ack_are_the_streams_end_and_its_acknowledgement() {
    let (lb, lb_at) = response_end("last_byte", 0, "");
    assert_eq!(lb, lb_at, "pushed at 0");
    let (fin, fin_lb) = response_end("fin", 0, "");
    let (ack, ack_lb) = response_end("last_ack", 0, "");
    // the same run up to the last byte, whichever end is asked
    assert_eq!((fin_lb, ack_lb), (lb_at, lb_at));
    assert_eq!(fin, lb, "fin is the stream's end, read with its last byte");
    let up = ack - lb;
    assert!((0.2550..=0.2615).contains(&up), "last_ack {up} s after the last byte");
    // with a request: the ACK waits for quinn's receiver (25 ms at most)
    let (lb, _) = response_end("last_byte", 300, "");
    let (fin, _) = response_end("fin", 300, "");
    let (ack, _) = response_end("last_ack", 300, "");
    assert_eq!(fin, lb);
    let up = ack - lb;
    assert!((0.2550..=0.2865).contains(&up), "last_ack {up} s after the last byte (request)");
}

/// `last_ack` follows the ACK policy the client is asked for: a
/// timer-only ACK (threshold 100,000) at `max_ack_delay` = 100 ms puts
/// the end 255 ms of propagation + up to 100 ms after the last byte (the
/// last packet's ACK waits for the timer started by the first packet not
/// yet acknowledged), and more than quinn's 25 ms allows.
#[test]
fn last_ack_waits_for_the_ack_delay_asked_for() {
    let flow = |end: &str| {
        quic_flow("d", "{ cc = \"cubic\", max_ack_delay = \"100ms\", ack_frequency = { threshold = 100000 } }", "1MB")
            .replace("size = \"1MB\"", &format!("size = \"1MB\", request = \"300B\", response_end = \"{end}\""))
    };
    let (_, a) = run(&geo(100_000, "", &flow("last_ack")));
    let (_, b) = run(&geo(100_000, "", &flow("last_byte")));
    delivered_whole(&a[0], 1_000_000);
    assert_eq!(a[0].last_byte_at_s, b[0].last_byte_at_s);
    let up = a[0].completion_s.unwrap() - b[0].completion_s.unwrap();
    assert!((0.255..=0.3615).contains(&up), "{up}");
}

/// With losses (PER 1e-2 down) every end is reached: the last ACK reaches
/// the server (re-sent by quinn's PTO probes and the client's answers if
/// lost), at least a one-way trip after the last byte; `fin` stays the
/// last byte's instant.
#[test]
fn response_ends_are_reached_on_a_lossy_path() {
    for request in [0, 300] {
        let (lb, _) = response_end("last_byte", request, "{ per = 1e-2 }");
        let (fin, _) = response_end("fin", request, "{ per = 1e-2 }");
        let (ack, ack_lb) = response_end("last_ack", request, "{ per = 1e-2 }");
        assert_eq!(fin, lb, "request {request}");
        assert!(ack >= ack_lb + 0.255, "request {request}: {ack} {ack_lb}");
    }
}

/// The series' bytes in flight (`quic/flight.rs`), for quinn's controller
/// and satcp's (a window one and BBR): 1 MB loss-free (a queue no window
/// reaches) and ended at `last_ack`, with a TCP download on a path of its
/// own keeping the run going to 12 s. At every sample the server's flight is within its
/// window plus one datagram (quinn sends only while flight + the next
/// packet fits the window, PTO probes aside: none here); it reaches the
/// path's bandwidth-delay product (2,048 kbit/s x 510 ms = 131 kB) while
/// the file is sent, and it is 0 once the last ACK is in (every sample
/// after the flow's end).
#[test]
fn the_series_carry_the_servers_bytes_in_flight() {
    for cc in ["quinn-cubic", "cubic", "bbr"] {
        let flow = quic_flow("d", &format!("{{ cc = \"{cc}\" }}"), "1MB").replace("size = \"1MB\"", "size = \"1MB\", response_end = \"last_ack\"");
        // a TCP download on a path of its own keeps the run going
        let keeper = "[nodes.k1]\n[nodes.k2]\n[[links]]\na = \"k1\"\nb = \"k2\"\nrate = \"10Mbps\"\ndelay = \"1ms\"\n\
                      [[flows]]\nname = \"k\"\nsrc = \"k1\"\ndst = \"k2\"\napp = { kind = \"ftp\", size = \"100MB\" }\n";
        let text = geo(100_000, "", &(flow + keeper)).replace("stop = \"6000s\"", "stop = \"12s\"\nsample_interval = \"50ms\"");
        let (out, f) = run(&text);
        delivered_whole(&f[0], 1_000_000);
        assert_eq!(f[0].retransmissions, 0, "{cc}: loss-free");
        let end = f[0].completion_s.unwrap();
        let s = &out.flow_series;
        let rows: Vec<usize> = (0..s.time_s.len()).filter(|&k| s.flow[k] == 0 && !s.flight_bytes[k].is_nan()).collect();
        assert!(rows.len() > 100, "{cc}: {}", rows.len());
        for &k in &rows {
            assert!(s.flight_bytes[k] <= s.cwnd_bytes[k] + 1452.0, "{cc} at {} s: flight {} cwnd {}", s.time_s[k], s.flight_bytes[k], s.cwnd_bytes[k]);
        }
        let max = rows.iter().map(|&k| s.flight_bytes[k]).fold(0.0, f64::max);
        assert!(max >= 131_000.0, "{cc}: at most {max} bytes in flight");
        let after: Vec<f64> = rows.iter().filter(|&&k| s.time_s[k] > end).map(|&k| s.flight_bytes[k]).collect();
        assert!(!after.is_empty() && after.iter().all(|&x| x == 0.0), "{cc}: {after:?}");
    }
}
