//! Split-TCP PEPs (`pep/`, docs/models/pep.md): what the issue's "what
//! must hold" asks, on the run's outputs. The states inside the world at
//! an instant (the spoofed handshake) are checked in
//! `src/world/pep_tests.rs`; deferred reads and resets on the TCP harness
//! in `src/tcp/tests/deferred_read_traces.rs`.

mod common;
use common::{run_file, run_text};
use satcp_core::scenario::parse_toml;

/// server -(10 Mb/s, 5 ms)- gw -(2 Mb/s down, 256 kb/s up, 250 ms)- term
/// -(100 Mb/s, 1 ms)- client, then `rest`.
fn chain(run: &str, rest: &str) -> String {
    format!("[run]\nseed = 3\n{run}\n{}\n{rest}\n", include_str!("data/pep_chain.toml"))
}

fn ftp(name: &str, size: &str, extra: &str) -> String {
    format!("[[flows]]\nname = \"{name}\"\nsrc = \"server\"\ndst = \"client\"\ntcp = {{ variant = \"sack\", rwnd = \"1MB\" }}\napp = {{ kind = \"ftp\", size = \"{size}\" {extra} }}\n")
}

/// One PEP at the gateway with a 64 kB buffer offered whole
/// (`receive_window = "fixed"`); the server (which opens
/// the connection and sends 2 MB) is 10 ms away, the client behind the
/// 2 Mb/s satellite. The PEP acknowledges the server's data at once: at
/// some 10 ms tick the server has had ~64 kB more acknowledged than the
/// client has received, and never more than the buffer (what the PEP
/// acknowledged and the satellite leg has not delivered is held by it:
/// at most its buffer). The peak the PEP held is the buffer to within a
/// segment. Back-pressure: the satellite leg drains the buffer at 2 Mb/s,
/// the server's window closes (its effective window falls under a
/// segment at some tick; it is window-limited most of the time), and no
/// byte is lost or duplicated: the client gets the 2 MB in order, the
/// server retransmits nothing, the PEP relayed exactly 2 MB.
#[test]
fn the_pep_acknowledges_ahead_within_its_buffer_and_back_pressure_closes_the_window() {
    let buffer = 64_000.0;
    let text = chain(
        "stop = \"200s\"\nsample_interval = \"10ms\"",
        &format!("{}\n[[peps]]\nnode = \"gw\"\nbuffer = \"64kB\"\nreceive_window = \"fixed\"\n", ftp("bulk", "2MB", "")),
    );
    let out = run_text(&text, &[]);
    let f = &out.summary.flows[0];
    assert!(f.completed);
    assert_eq!(f.bytes_delivered, 2_000_000);
    assert_eq!(f.integrity_errors, 0);
    let pep = &out.summary.peps[0];
    assert_eq!(pep.counters["split"], 1);
    let c = &pep.connections[0];
    assert_eq!(c.bytes_to_acceptor, 2_000_000, "relayed exactly once");
    assert!(c.peak_to_acceptor_bytes as f64 <= buffer && c.peak_to_acceptor_bytes as f64 > buffer - 1460.0, "{}", c.peak_to_acceptor_bytes);
    // the server's leg lost nothing; the server is held by the window
    assert_eq!(c.legs[0].retransmissions, 0);
    assert_eq!(f.retransmissions, 0, "the server and the client resent nothing");
    let lim = f.limited.unwrap();
    assert!(lim.rwnd > 0.5, "window-limited most of the time: {lim:?}");
    let s = &out.flow_series;
    let mut ahead_max: f64 = 0.0;
    let mut closed = false;
    for i in 0..s.time_s.len() {
        let acked = s.snd_max_bytes[i] - s.flight_bytes[i];
        let ahead = acked - s.delivered_bytes[i];
        assert!(ahead <= buffer, "at {} s the PEP acknowledged {ahead} bytes not delivered", s.time_s[i]);
        ahead_max = ahead_max.max(ahead);
        closed |= s.eff_window_bytes[i] < 1460.0 && s.delivered_bytes[i] < 1.9e6;
    }
    assert!(ahead_max > buffer - 3000.0, "acknowledged ahead of delivery: at most {ahead_max}");
    assert!(closed, "the server's window closed at some tick");
    // the buffer series never holds more than the buffer and reaches it
    let ps = &out.pep_series;
    assert!(!ps.time_s.is_empty());
    assert!(ps.to_acceptor_bytes.iter().all(|&b| b <= buffer));
    assert!(ps.to_acceptor_bytes.iter().any(|&b| b > buffer / 2.0));
    assert!(ps.pool_used_bytes.iter().all(|&b| b == 128_000.0));
}

/// The same download through a PEP whose sockets autotune as Linux's
/// (`receive_window = "autotune"`) with a 1 MB buffer: half of it is the receive buffer,
/// whose window opens from Linux's initial 80,896 bytes (131,072 x
/// 158/256) by Right-Sizing up to 500,000; the other half the satellite
/// leg's send buffer (twice its congestion window). The server's window
/// starts at 80,896 bytes, never exceeds 500,000 and grows beyond the
/// initial one; the PEP holds at most the 1 MB (receive and send buffers
/// together), more than the window it offers at some tick (the send
/// buffer holds what the satellite leg has not delivered); back-pressure
/// still holds the server (window-limited most of the time) and every
/// byte arrives once.
#[test]
fn an_autotuned_pep_offers_linux_s_window_and_holds_at_most_its_buffer() {
    let (buffer, half) = (1_000_000.0, 500_000.0);
    let text = chain(
        "stop = \"200s\"\nsample_interval = \"10ms\"",
        &format!("{}\n[[peps]]\nnode = \"gw\"\nbuffer = \"1MB\"\nreceive_window = \"autotune\"\n", ftp("bulk", "2MB", "")),
    );
    let out = run_text(&text, &[]);
    let f = &out.summary.flows[0];
    assert!(f.completed);
    assert_eq!((f.bytes_delivered, f.integrity_errors, f.retransmissions), (2_000_000, 0, 0));
    let c = &out.summary.peps[0].connections[0];
    assert_eq!(c.bytes_to_acceptor, 2_000_000, "relayed exactly once");
    assert!(c.peak_to_acceptor_bytes as f64 <= buffer && c.peak_to_acceptor_bytes as f64 > half, "{}", c.peak_to_acceptor_bytes);
    assert!(f.limited.unwrap().rwnd > 0.5, "window-limited most of the time: {:?}", f.limited);
    let s = &out.flow_series;
    // the server's window where it binds (below its cwnd)
    let rwnd: Vec<f64> = (0..s.time_s.len()).filter(|&i| s.eff_window_bytes[i] < s.cwnd_bytes[i]).map(|i| s.eff_window_bytes[i]).collect();
    assert!(!rwnd.is_empty());
    assert!(rwnd.iter().all(|&w| w <= half), "never beyond the receive half: {:?}", rwnd.iter().cloned().fold(0.0, f64::max));
    assert!(rwnd.iter().any(|&w| w > 80_896.0), "Right-Sizing opened it beyond the initial window");
    let first = (0..s.time_s.len()).find(|&i| s.snd_max_bytes[i] > 0.0).unwrap();
    assert!(s.eff_window_bytes[first] <= 80_896.0, "the first window: Linux's initial {}", s.eff_window_bytes[first]);
    for i in 0..s.time_s.len() {
        let ahead = s.snd_max_bytes[i] - s.flight_bytes[i] - s.delivered_bytes[i];
        assert!(ahead <= buffer, "at {} s the PEP acknowledged {ahead} bytes not delivered", s.time_s[i]);
    }
    let ps = &out.pep_series;
    assert!(ps.to_acceptor_bytes.iter().all(|&b| b <= buffer));
    assert!(ps.to_acceptor_bytes.iter().any(|&b| b > half), "the send buffer holds beyond the window offered");
}

/// FIN crosses: a 300 kB transfer through a pair of PEPs run to its stop
/// time: both real ends' FIN exchanges complete (the flow's
/// `fin_done_at_s`), and every split connection at both PEPs finished
/// both legs, having relayed the 300 kB each; the pool is given back.
#[test]
fn fin_crosses_both_peps() {
    let text = chain(
        "stop = \"30s\"\nend = \"stop\"",
        &format!("{}\n[[peps]]\nnode = \"gw\"\npeer = \"term\"\nleg = {{ variant = \"hybla\", initial_window = 10 }}\n", ftp("bulk", "300kB", "")),
    );
    let out = run_text(&text, &[]);
    let f = &out.summary.flows[0];
    assert!(f.completed && f.fin_done_at_s.is_some() && !f.aborted);
    for pep in &out.summary.peps {
        let c = &pep.connections[0];
        assert_eq!(c.state, "finished", "at {}", pep.node);
        assert_eq!(c.bytes_to_acceptor, 300_000);
        assert!(c.legs.iter().all(|l| l.completion_s.is_some()));
    }
    assert_eq!(out.summary.peps[0].connections[0].legs[1].variant, "hybla");
    assert_eq!(out.summary.peps[1].connections[0].legs[0].variant, "hybla");
    assert_eq!(out.summary.peps[1].connections[0].legs[1].variant, "sack");
}

/// A leg that names no profile runs its flow's, as a leg left out runs the
/// flow's whole `tcp`: through one pair, an `rfc` flow's Hybla leg is an
/// `rfc` Hybla (the paper's, paced) and a `linux` flow's a `linux` Hybla
/// (Linux's `tcp_hybla.c`, unpaced); a leg that names `profile =
/// "linux"` is Linux's for both. A leg whose keys a
/// flow's profile refuses is refused naming the leg's key and that
/// profile.
#[test]
fn a_leg_without_a_profile_takes_its_flows() {
    let flows = |leg: &str| {
        chain(
            "stop = \"60s\"",
            &format!(
                "{}{}\n[[peps]]\nnode = \"gw\"\npeer = \"term\"\nleg = {{ variant = \"hybla\", initial_window = 10{leg} }}\n",
                ftp("ends_rfc", "1MB", ""),
                ftp("ends_linux", "1MB", ", start = \"30s\"").replace("tcp = { variant = \"sack\", rwnd = \"1MB\" }\napp = { kind = \"ftp\", size = \"1MB\" , start", "tcp = { variant = \"sack\", profile = \"linux\" }\napp = { kind = \"ftp\", size = \"1MB\" , start")
            ),
        )
    };
    let leg_of = |out: &satcp_core::RunOutput, c: usize| out.summary.peps[0].connections[c].legs[1].clone();
    let own = run_text(&flows(""), &[]);
    assert!(own.summary.flows.iter().all(|f| f.completed), "both transfers complete");
    let (rfc, linux) = (leg_of(&own, 0), leg_of(&own, 1));
    assert_eq!((rfc.variant.as_str(), rfc.profile.as_str()), ("hybla", "rfc"));
    assert_eq!((linux.variant.as_str(), linux.profile.as_str()), ("hybla", "linux"));
    // legs[1] is the leg the pair opens (towards the acceptor); legs[0],
    // towards the opener, is the flow's own end and keeps its profile
    assert_eq!(leg_of(&own, 1).toward, "acceptor");
    assert_eq!(own.summary.peps[0].connections[1].legs[0].profile, "linux");
    assert_eq!(own.summary.peps[0].connections[0].legs[0].profile, "rfc");
    let named = run_text(&flows(", profile = \"linux\""), &[]);
    for c in 0..2 {
        assert_eq!(leg_of(&named, c).profile, "linux", "connection {c}");
    }
    // the paper's Hybla spaces its segments, Linux's does not
    assert!(rfc.limited.pacing > 0.05 && linux.limited.pacing == 0.0, "{rfc:?}\n{linux:?}");
    assert!(named.summary.flows.iter().all(|f| f.completed));
    assert_eq!(leg_of(&named, 0).limited.pacing, 0.0);
    let ns2 = chain(
        "stop = \"10s\"",
        "[[flows]]\nsrc = \"server\"\ndst = \"client\"\ntcp = { variant = \"sack\", profile = \"ns2\" }\napp = { kind = \"ftp\", size = \"10kB\" }\n[[peps]]\nnode = \"gw\"\nleg = { variant = \"enhanced\" }\n",
    );
    let e = parse_toml(&ns2, &[]).unwrap_err().to_string();
    assert!(e.contains("peps.0.leg.") && e.contains("here \"ns2\"") && e.contains("leg.profile"), "{e}");
    assert!(parse_toml(&ns2.replace("variant = \"enhanced\" }", "variant = \"enhanced\", profile = \"rfc\" }"), &[]).is_ok());
}

/// RST crosses: the satellite goes down for good at 3 s in a 5 MB
/// transfer through one PEP at the gateway. The PEP's leg over the
/// satellite gives up after 3 timeouts in a row (`leg.max_retransmissions
/// = 3`) and the PEP resets the server's leg: the server aborts on the
/// reset, the flow is aborted "reset", the PEP counts one reset sent.
#[test]
fn a_failed_leg_resets_the_other() {
    let text = chain(
        "stop = \"200s\"",
        &format!(
            "{}\n[[peps]]\nnode = \"gw\"\nleg = {{ variant = \"sack\", max_retransmissions = 3 }}\n",
            ftp("bulk", "5MB", "")
        ),
    )
    .replace("queue_ab = { kind = \"droptail\", packets = 100 }", "queue_ab = { kind = \"droptail\", packets = 100 }\nchanges = [{ at = \"3s\", down = true }]");
    let out = run_text(&text, &[]);
    let f = &out.summary.flows[0];
    assert!(f.aborted && !f.completed);
    assert!(f.abort_reason.as_deref().unwrap().contains("reset"), "{:?}", f.abort_reason);
    let pep = &out.summary.peps[0];
    assert_eq!(pep.counters["resets_sent"], 1);
    assert_eq!(pep.connections[0].state, "reset");
    assert_eq!(pep.connections[0].legs[1].timeouts, 4, "three in a row allowed, the fourth gives up");
}

/// The demo's GEO path (2 Mb/s down, 250 ms one way): 5 MB through two
/// PEPs with Hybla (IW 10) on the satellite leg completes sooner than end
/// to end with every TCP variant satcp has with the flow's settings (issue
/// 42's criterion); and a 10 kB page's first byte comes at least one
/// satellite round trip (0.5 s) sooner than end to end. End to end with
/// the leg's own settings (Hybla, IW 10) is a near tie, not asserted
/// (21.54 s against the pair's 21.67 s: the pair saves the end-to-end
/// handshake, and its leg takes one timeout in Hybla's slow-start
/// overshoot that the end-to-end run does not; docs/models/pep.md). The
/// server's own end, on a loss-free 10 Mb/s access link into the
/// gateway's PEP, retransmits nothing and never times out (before the
/// receiver accepted data up to the highest edge it had offered, a
/// window that shrank under Linux's autotuning trimmed a segment sent to
/// the old edge: 2 retransmissions and 2 timeouts here).
#[test]
fn two_peps_beat_every_end_to_end_variant_on_the_geo_path() {
    let split = run_file("pep_geo.toml", &[]);
    let t_pep = split.summary.flows[0].completion_s.unwrap();
    let variants = satcp_core::scenario::variant_names();
    let mut best = (f64::INFINITY, String::new());
    for v in variants.iter().copied() {
        let set = format!("flows.download.tcp.variant={v}");
        let e2e = run_file("pep_geo.toml", &["flows.download.split=false", &set]);
        assert_eq!(e2e.summary.peps[0].counters["split"], 0);
        if let Some(t) = e2e.summary.flows[0].completion_s {
            if t < best.0 {
                best = (t, v.to_string());
            }
        }
    }
    assert!(t_pep < best.0, "two PEPs {t_pep} s, best end to end {best:?}");
    let server_end = &split.summary.flows[0];
    assert_eq!((server_end.retransmissions, server_end.timeouts), (0, 0), "the server's end over a loss-free access link");
    // a 10 kB page
    let page = "flows=[{name=\"web\",src=\"server\",dst=\"client\",tcp={variant=\"sack\",rwnd=\"1MB\"},app={kind=\"http\",pages=1,main_object=\"10kB\",embedded_objects=0}}]";
    let fb = |extra: &[&str]| {
        let mut sets = vec![page];
        sets.extend_from_slice(extra);
        run_file("pep_geo.toml", &sets).summary.flows[0].first_byte_s.unwrap()
    };
    let (via, e2e) = (fb(&[]), fb(&["flows.web.split=false"]));
    assert!(e2e - via >= 0.5, "first byte {via} s through the PEPs, {e2e} s end to end");
}

/// Same scenario and seed, the same bits: the summary and the PEP series.
#[test]
fn runs_with_peps_are_deterministic() {
    let a = run_file("pep_geo.toml", &["run.sample_interval=100ms"]);
    let b = run_file("pep_geo.toml", &["run.sample_interval=100ms"]);
    let strip = |s: String| s.split("\"wall_s\"").next().unwrap().to_string() + &s[s.find("\"flows\"").unwrap()..];
    assert_eq!(strip(a.summary_json()), strip(b.summary_json()));
    assert_eq!(a.pep_series.to_acceptor_bytes, b.pep_series.to_acceptor_bytes);
    assert_eq!(a.pep_series.time_s, b.pep_series.time_s);
    assert!(!a.pep_series.time_s.is_empty());
}

/// The pool holds one connection (two 1 MB buffers of a 2 MB pool); two
/// 300 kB downloads open 100 ms apart. With `pool_full = "pass"` the
/// second goes end to end; with `"wait"` its SYN waits at the PEP until
/// the first connection ends, then it is split: both complete either way,
/// the waiting one later than the one that passed.
#[test]
fn a_full_pool_passes_or_holds_the_connection() {
    let flows = format!("{}{}", ftp("a", "300kB", ""), ftp("b", "300kB", ", start = \"100ms\""));
    let run = |policy: &str| {
        let text = chain(
            "stop = \"300s\"",
            &format!("{flows}\n[[peps]]\nnode = \"gw\"\nbuffer = \"1MB\"\npool = \"2MB\"\npool_full = \"{policy}\"\n"),
        );
        run_text(&text, &[]).summary
    };
    let pass = run("pass");
    assert!(pass.flows.iter().all(|f| f.completed));
    let c = &pass.peps[0].counters;
    assert_eq!((c["split"], c["passed_pool_full"], c["waited"]), (1, 1, 0));
    let wait = run("wait");
    assert!(wait.flows.iter().all(|f| f.completed));
    let c = &wait.peps[0].counters;
    assert_eq!((c["split"], c["passed_pool_full"], c["waited"]), (2, 0, 1));
    assert!(wait.peps[0].connections[1].opened_s > wait.peps[0].connections[0].opened_s + 1.0);
    assert!(wait.flows[1].completion_s.unwrap() > pass.flows[1].completion_s.unwrap());
    assert_eq!(c["pool_peak_bytes"], 2_000_000);
}

/// What a PEP does not split: a flow with `split = false` (IPsec-like),
/// a port the PEP's `split = { ports }` does not list, and under
/// `unknown_options = "forward"` a flow whose controller carries a
/// research option (CETEN-R); a listed port is split.
#[test]
fn opted_out_flows_ports_and_unknown_options_pass() {
    let flows = [
        ftp("ipsec", "50kB", "").replace("name = \"ipsec\"", "name = \"ipsec\"\nsplit = false"),
        ftp("ssh", "50kB", "").replace("name = \"ssh\"", "name = \"ssh\"\nport = 22"),
        ftp("web", "50kB", ""),
        ftp("ceten", "50kB", "").replace("variant = \"sack\"", "variant = \"ceten-newreno\""),
    ]
    .concat();
    let text = chain("stop = \"300s\"", &format!("{flows}\n[[peps]]\nnode = \"gw\"\nsplit = {{ ports = [80] }}\nunknown_options = \"forward\"\n"));
    let out = run_text(&text, &[]);
    assert!(out.summary.flows.iter().all(|f| f.completed));
    let c = &out.summary.peps[0].counters;
    assert_eq!((c["split"], c["passed_opt_out"], c["passed_port"], c["passed_option"]), (1, 1, 1, 1));
    assert_eq!(out.summary.peps[0].connections[0].flow, "web");
    // stripped: the CETEN-R flow is split (the option ends at the PEP)
    let strip = text.replace("unknown_options = \"forward\"", "unknown_options = \"strip\"");
    let out = run_text(&strip, &[]);
    assert_eq!(out.summary.peps[0].counters["split"], 2);
}

/// Scenario errors name the field, the value and what is allowed.
#[test]
fn bad_pep_keys_are_refused_with_what_is_allowed() {
    let flow = ftp("f", "10kB", "");
    let cases = [
        ("node = \"gw\"\npeer = \"gw\"", "peps.0.peer", "a node other than node"),
        ("node = \"nowhere\"", "peps.0.node", "the name of a node"),
        ("node = \"gw\"\nbuffer = \"4MB\"\npool = \"6MB\"", "peps.0.pool", "at least two buffers"),
        ("node = \"gw\"\nsplit = \"some\"", "peps.0.split", "\"all\" or a table"),
        ("node = \"gw\"\nsplit = { ports = [0] }", "peps.0.split.ports", "port numbers 1-65535"),
        ("node = \"gw\"\npool_full = \"drop\"", "peps.0.pool_full", "\"wait\", \"pass\""),
        ("node = \"gw\"\nleg = { handshake = false }", "peps.0.leg.handshake", "only the leg between two PEPs"),
        ("node = \"gw\"\nleg = { variant = \"nope\" }", "peps.0.leg.variant", "hybla"),
        ("node = \"gw\"\ncolour = 1", "peps.0", "colour"),
        ("node = \"gw\"\nleg = { rwnd = \"1MB\" }", "peps.0.leg.rwnd", "the PEP's `buffer`"),
        ("node = \"gw\"\nreceive_window = \"auto\"", "peps.0.receive_window", "\"autotune\", \"fixed\""),
    ];
    for (pep, path, allowed) in cases {
        let text = chain("stop = \"10s\"", &format!("{flow}\n[[peps]]\n{pep}\n"));
        let e = parse_toml(&text, &[]).unwrap_err().to_string();
        assert!(e.contains(path) && e.contains(allowed), "{pep}: {e}");
    }
    let two = chain("stop = \"10s\"", &format!("{flow}\n[[peps]]\nnode = \"gw\"\npeer = \"term\"\n[[peps]]\nnode = \"term\"\n"));
    let e = parse_toml(&two, &[]).unwrap_err().to_string();
    assert!(e.contains("peps.1.node") && e.contains("peps.0 already has one"), "{e}");
}

/// A PEP sees both directions of a connection or cannot split it: with a
/// terrestrial return link from the client to the server (50 ms; 10 s the
/// other way, so data still comes down the satellite), the client's
/// segments go back over it and bypass the gateway. The scenario is
/// refused before it runs, naming the PEP's key, its node and the flow;
/// the same flow opted out (`split = false`) runs, and with the return
/// link as slow both ways the routes are symmetric again and it runs.
#[test]
fn a_pep_that_one_direction_bypasses_is_refused_naming_the_pep_and_the_flow() {
    let modem = |back: &str| format!("[[links]]\nname = \"modem\"\na = \"client\"\nb = \"server\"\nrate = \"1Mbps\"\ndelay_ab = \"{back}\"\ndelay_ba = \"10s\"\n");
    let with = |flow: &str, back: &str, pep: &str| chain("stop = \"20s\"", &format!("{}\n{flow}\n[[peps]]\n{pep}\n", modem(back)));
    let e = parse_toml(&with(&ftp("bulk", "100kB", ""), "50ms", "node = \"gw\""), &[]).unwrap_err().to_string();
    assert!(e.contains("peps.0.node") && e.contains("\"gw\"") && e.contains("flow \"bulk\"") && e.contains("from \"server\" crosses \"gw\"") && e.contains("split = false"), "{e}");
    // the pair's second PEP is checked too
    let e = parse_toml(&with(&ftp("bulk", "100kB", ""), "50ms", "node = \"gw\"\npeer = \"term\""), &[]).unwrap_err().to_string();
    assert!(e.contains("peps.0.node") && e.contains("flow \"bulk\""), "{e}");
    let opted_out = ftp("bulk", "100kB", "").replace("tcp = {", "split = false\ntcp = {");
    let out = run_text(&with(&opted_out, "50ms", "node = \"gw\""), &[]);
    assert!(out.summary.flows[0].completed);
    assert_eq!(out.summary.peps[0].counters["passed_opt_out"], 1);
    let out = run_text(&with(&ftp("bulk", "100kB", ""), "10s", "node = \"gw\""), &[]);
    assert!(out.summary.flows[0].completed);
    assert_eq!(out.summary.peps[0].counters["split"], 1);
}

/// A PEP goes down: the terminal's links (satellite and access) are down
/// from 3 s to 4 s in a 5 MB download through a pair of PEPs. The
/// terminal's PEP loses its split connection and what its buffers held;
/// the gateway PEP's end keeps resending over the satellite, and its
/// first segment to reach the terminal after 4 s is answered with a
/// reset; that end aborts and the gateway resets the server's leg: the
/// server (the sender) sees a reset and the flow is aborted. The client,
/// a receiver with nothing to send, hears nothing (as with a real proxy
/// without keepalives). The same outage in an upload through the
/// terminal's PEP: the client, now the sender, gets the reset itself.
#[test]
fn a_pep_that_goes_down_loses_its_connections_and_the_ends_see_resets() {
    let outage = "changes = [{ at = \"3s\", down = true }, { at = \"4s\", down = false }]";
    let pair = "\n[[peps]]\nnode = \"gw\"\npeer = \"term\"\nleg = { variant = \"hybla\", initial_window = 10 }\n";
    let with_outage = |t: String| {
        t.replace("queue_ab = { kind = \"droptail\", packets = 100 }", &format!("queue_ab = {{ kind = \"droptail\", packets = 100 }}\n{outage}"))
            .replace("rate = \"100Mbps\"\ndelay = \"1ms\"", &format!("rate = \"100Mbps\"\ndelay = \"1ms\"\n{outage}"))
    };
    let text = with_outage(chain("stop = \"120s\"", &format!("{}{pair}", ftp("down", "5MB", ""))));
    let out = run_text(&text, &[]);
    let f = &out.summary.flows[0];
    assert!(f.aborted && !f.completed && f.bytes_delivered < 5_000_000);
    assert!(f.abort_reason.as_deref().unwrap().contains("reset received"), "{:?}", f.abort_reason);
    let (gw, term) = (&out.summary.peps[0], &out.summary.peps[1]);
    assert_eq!((term.counters["outages"], term.counters["connections_lost"]), (1, 1));
    assert!(term.counters["lost_answered"] >= 1);
    assert_eq!(term.connections[0].state, "lost");
    assert_eq!((gw.connections[0].state.as_str(), gw.counters["resets_sent"]), ("reset", 1));
    // an upload: the client sends through the terminal's PEP
    let up = ftp("up", "5MB", "").replace("src = \"server\"\ndst = \"client\"", "src = \"client\"\ndst = \"server\"");
    let text = with_outage(chain("stop = \"120s\"", &format!("{up}\n[[peps]]\nnode = \"term\"\n")));
    let out = run_text(&text, &[]);
    let f = &out.summary.flows[0];
    assert!(f.aborted, "the uploading client is reset");
    assert!(f.abort_reason.as_deref().unwrap().contains("reset received"));
    assert_eq!(out.summary.peps[0].counters["connections_lost"], 1);
}

/// Invariants over many set-ups (each run with the endpoints' own
/// invariants checked in this build): every TCP variant under each
/// behaviour profile, one PEP or a pair (leg Hybla, with and without a
/// handshake), download or upload, a small or a large buffer, fixed or
/// autotuned windows, with and without bit errors on the satellite: the
/// transfer completes, every
/// byte arrives once and in order (no integrity error), each PEP relayed
/// exactly the file and never held more than its buffer; or, where the
/// variant gives up on the lossy path end to end too, the split
/// connection is reset and nothing wrong was delivered.
#[test]
fn split_transfers_deliver_every_byte_once_within_the_buffers() {
    let variants = satcp_core::scenario::variant_names();
    let profiles = ["rfc", "linux", "ns2"];
    let mut n = 0;
    for (i, v) in variants.iter().enumerate() {
        let profile = profiles[i % profiles.len()];
        if profile == "ns2" {
            // ns-2's agents open without a handshake: nothing to split
            continue;
        }
        for case in 0..4 {
            let pair = case % 2 == 1;
            let upload = case / 2 == 1;
            let buffer = if (i + case) % 2 == 0 { "30kB" } else { "2MB" };
            let window = if (i / 2 + case) % 2 == 0 { "fixed" } else { "autotune" };
            let errors = if i % 3 == 0 { "errors_ab = { per = 0.001 }\nerrors_ba = { per = 0.001 }" } else { "" };
            let (src, dst) = if upload { ("client", "server") } else { ("server", "client") };
            let peps = if pair {
                let hs = if i % 2 == 0 { ", handshake = false" } else { "" };
                format!("[[peps]]\nnode = \"gw\"\npeer = \"term\"\nbuffer = \"{buffer}\"\nreceive_window = \"{window}\"\nleg = {{ variant = \"hybla\", initial_window = 10{hs} }}\n")
            } else {
                let node = if upload { "term" } else { "gw" };
                format!("[[peps]]\nnode = \"{node}\"\nbuffer = \"{buffer}\"\nreceive_window = \"{window}\"\n")
            };
            let flow = format!(
                "[[flows]]\nname = \"f\"\nsrc = \"{src}\"\ndst = \"{dst}\"\ntcp = {{ variant = \"{v}\", profile = \"{profile}\" }}\napp = {{ kind = \"ftp\", size = \"300kB\" }}\n"
            );
            let text = chain("stop = \"2000s\"", &format!("{flow}\n{peps}"))
                .replace("queue_ab = { kind = \"droptail\", packets = 100 }", &format!("queue_ab = {{ kind = \"droptail\", packets = 100 }}\n{errors}"));
            let out = run_text(&text, &[]);
            let what = format!("{v} {profile} pair={pair} upload={upload} buffer={buffer} {window} errors={}", !errors.is_empty());
            let f = &out.summary.flows[0];
            if !f.completed {
                // a variant that gives up on this lossy path end to end too
                // (Modified Peach) gives up on its leg: the PEP resets the
                // other leg, and nothing wrong was delivered
                let e2e = run_text(&text, &["peps=[]"]);
                assert!(!e2e.summary.flows[0].completed, "{what}: not completed, though it does end to end");
                assert!(f.aborted && f.abort_reason.as_deref().unwrap().contains("reset"), "{what}");
                assert_eq!(f.integrity_errors, 0, "{what}");
                continue;
            }
            assert_eq!((f.bytes_delivered, f.integrity_errors), (300_000, 0), "{what}");
            let cap = if buffer == "30kB" { 30_000 } else { 2_000_000 };
            for pep in &out.summary.peps {
                for c in &pep.connections {
                    assert_eq!(c.bytes_to_acceptor, 300_000, "{what} at {}", pep.node);
                    assert!(c.peak_to_acceptor_bytes <= cap && c.peak_to_opener_bytes <= cap, "{what}");
                }
            }
            assert_eq!(out.summary.peps.iter().map(|p| p.connections.len()).sum::<usize>(), if pair { 2 } else { 1 }, "{what}");
            assert_eq!(out.summary.peps.iter().map(|p| p.counters["split"]).sum::<u64>(), 1, "{what}: split once, by the first PEP");
            n += 1;
        }
    }
    assert!(n >= 40, "{n} set-ups");
}
