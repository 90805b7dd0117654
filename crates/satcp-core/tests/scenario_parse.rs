//! Scenario parsing: the reference GEO scenario resolves to the right values,
//! and each class of mistake yields an error naming the path, the value and
//! what is allowed.

mod common;

use satcp_core::scenario::*;

/// The issue's reference scenario, exactly as the README shows it.
const GEO: &str = include_str!("../../../scenarios/geo_bent_pipe.toml");

fn parse(text: &str) -> Result<Scenario, ScenarioError> {
    parse_toml(text, &[])
}

/// Parse GEO with `from` replaced by `to` (which must occur exactly once).
fn edited(from: &str, to: &str) -> Result<Scenario, ScenarioError> {
    assert_eq!(GEO.matches(from).count(), 1, "{:?} must occur once", from);
    parse(&GEO.replace(from, to))
}

fn err(r: Result<Scenario, ScenarioError>) -> ScenarioError {
    match r {
        Ok(_) => panic!("expected an error"),
        Err(e) => e,
    }
}

#[test]
fn geo_reference_scenario() {
    let s = parse(GEO).unwrap();
    assert_eq!(s.run, RunCfg { seed: 1, stop_ns: Some(2_000_000_000_000), sample_interval_ns: None, to_stop: false });
    let names: Vec<&str> = s.nodes.iter().map(|n| n.name.as_str()).collect();
    assert_eq!(names, ["server", "gateway", "client"]);

    assert_eq!(s.links.len(), 2);
    let up = &s.links[0];
    assert_eq!((up.a, up.b), (0, 1));
    for d in &up.dirs {
        assert_eq!(d.rate_bps, 10_000_000);
        assert_eq!(d.delay_ns, 5_000_000);
        assert_eq!(d.queue, QueueCfg::DropTail { limit: QueueLimit::Unlimited });
        assert_eq!(d.errors, ErrorCfg::None);
        assert_eq!(d.overhead_bytes, 0);
    }
    let sat = &s.links[1];
    assert_eq!((sat.a, sat.b), (1, 2));
    let [ab, ba] = &sat.dirs;
    assert_eq!(ab.rate_bps, 2_048_000);
    assert_eq!(ba.rate_bps, 256_000);
    assert_eq!(ab.delay_ns, 250_000_000);
    assert_eq!(ba.delay_ns, 250_000_000);
    assert_eq!(ab.queue, QueueCfg::DropTail { limit: QueueLimit::Packets(100) });
    assert_eq!(ba.queue, QueueCfg::DropTail { limit: QueueLimit::Unlimited });
    assert_eq!(ab.errors, ErrorCfg::Ber { ber: 1e-7, fixed_bits: None });
    assert_eq!(ba.errors, ErrorCfg::None);

    assert_eq!(s.flows.len(), 1);
    let f = &s.flows[0];
    assert_eq!(f.name, "download");
    assert_eq!((f.src, f.dst), (0, 2));
    let t = &f.tcp;
    assert_eq!(t.variant, "sack");
    assert_eq!(t.recovery, Recovery::Sack);
    assert!(t.sack);
    assert_eq!(t.mss, 1460);
    assert_eq!(t.rwnd_bytes, 65535);
    assert_eq!(t.initial_window, InitialWindow::Segments(2));
    assert!(t.delayed_ack);
    assert!(t.window_scaling);
    assert_eq!(t.initial_ssthresh_bytes, None);
    assert_eq!(t.delayed_ack_timeout_ns, 200_000_000);
    assert_eq!(t.min_rto_ns, 1_000_000_000);
    assert_eq!(t.max_rto_ns, 60_000_000_000);
    assert_eq!(
        f.app,
        AppCfg::Ftp(FtpCfg { start_ns: 0, stop_ns: None, size_bytes: Some(50_000_000), request_bytes: 0, response_end: ResponseEnd::LastByte })
    );
}

#[test]
fn tcp_and_http_defaults() {
    let s = edited(
        r#"tcp = { variant = "sack", mss = 1460, initial_window = 2, rwnd = 65535, delayed_ack = true }
app = { kind = "ftp", size = "50MB" }"#,
        r#"app = { kind = "http" }"#,
    )
    .unwrap();
    let t = &s.flows[0].tcp;
    assert_eq!(t.variant, "newreno");
    assert_eq!(t.recovery, Recovery::NewReno);
    assert!(!t.sack);
    assert_eq!(t.initial_window, InitialWindow::Rfc3390);
    assert_eq!((t.dupthresh, t.abc_limit, t.iss, t.delayed_ack_segments), (3, 1, 0, 2));
    assert_eq!(t.clock_granularity_ns, 1_000_000);
    assert_eq!(t.rtt_sampling, RttSampling::EveryAck);
    assert_eq!(t.full_ack_cwnd, FullAckCwnd::FlightSize);
    // Linux's tcp_retries2 unless told (0: never give up)
    assert_eq!(t.max_retransmissions, Some(15));
    assert_eq!(
        s.flows[0].app,
        AppCfg::Http(HttpCfg {
            start_ns: 0,
            page_interval_ns: 30_000_000_000,
            pages: None,
            main_object_bytes: 10_710,
            embedded_objects: 15,
            embedded_object_bytes: 7_758,
            request_bytes: 350,
            pipelining: false,
            first_page_ns: 0,
        })
    );
}

#[test]
fn specific_direction_wins_and_fixed_bits() {
    let s = edited(
        "rate = \"10Mbps\"",
        "rate = \"10Mbps\"\nrate_ba = \"1Mbps\"\nerrors = { ber = 1e-6, bits = 12000 }\noverhead_ab = 2\nqueue = { bytes = \"64KiB\" }",
    )
    .unwrap();
    let [ab, ba] = &s.links[0].dirs;
    assert_eq!((ab.rate_bps, ba.rate_bps), (10_000_000, 1_000_000));
    assert_eq!(ab.errors, ErrorCfg::Ber { ber: 1e-6, fixed_bits: Some(12000) });
    assert_eq!(ba.errors, ab.errors);
    assert_eq!((ab.overhead_bytes, ba.overhead_bytes), (2, 0));
    assert_eq!(ba.queue, QueueCfg::DropTail { limit: QueueLimit::Bytes(65_536) });
}

#[test]
fn unknown_node_in_link() {
    let e = err(edited("b = \"client\"", "b = \"clinet\""));
    assert_eq!(e.path, "links.1.b");
    assert_eq!(e.value, "\"clinet\"");
    assert!(e.allowed.contains("\"client\"") && e.allowed.contains("\"gateway\""), "{}", e.allowed);
}

#[test]
fn zero_rate() {
    let e = err(edited("rate = \"10Mbps\"", "rate = \"0Mbps\""));
    assert_eq!(e.path, "links.0.rate");
    assert_eq!(e.value, "\"0Mbps\"");
    assert!(e.allowed.contains("> 0"), "{}", e.allowed);
    let e = err(edited("rate = \"10Mbps\"", "rate = 0"));
    assert_eq!(e.path, "links.0.rate");
    assert_eq!(e.value, "0");
}

#[test]
fn negative_rate() {
    let e = err(edited("rate_ba = \"256kbps\"", "rate_ba = \"-5Mbps\""));
    assert_eq!(e.path, "links.1.rate_ba");
    assert_eq!(e.value, "\"-5Mbps\"");
    assert!(e.allowed.contains("negative") && e.allowed.contains("Mbps"), "{}", e.allowed);
}

#[test]
fn missing_direction_rate() {
    let e = err(edited("rate_ba = \"256kbps\"", ""));
    assert_eq!(e.path, "links.1.rate_ba");
    assert!(e.allowed.contains("missing"), "{}", e.allowed);
}

#[test]
fn ber_out_of_range() {
    for bad in ["1.0", "-1e-7", "1", "nan", "inf"] {
        let e = err(edited("errors_ab = { ber = 1e-7 }", &format!("errors_ab = {{ ber = {} }}", bad)));
        assert_eq!(e.path, "links.1.errors_ab.ber", "{}", bad);
        assert!(e.allowed.contains("[0, 1)"), "{}", e.allowed);
    }
    let e = err(edited("errors_ab = { ber = 1e-7 }", "errors_ab = { ber = -1e-7 }"));
    assert_eq!(e.value, "-1e-7");
    let e = err(edited("errors_ab = { ber = 1e-7 }", "errors_ab = { ber = 1e-7, per = 0.01 }"));
    assert_eq!(e.path, "links.1.errors_ab");
    assert!(e.allowed.contains("not both"), "{}", e.allowed);
}

#[test]
fn unknown_variant() {
    let e = err(edited("variant = \"sack\"", "variant = \"cubik\""));
    assert_eq!(e.path, "flows.download.tcp.variant");
    assert_eq!(e.value, "\"cubik\"");
    assert!(e.allowed.contains("\"newreno\"") && e.allowed.contains("\"sack\""), "{}", e.allowed);
}

#[test]
fn unknown_keys() {
    let e = err(parse(&format!("{}\n[extra]\nx = 1\n", GEO)));
    assert_eq!(e.path, "extra");
    assert!(e.allowed.contains("unknown key") && e.allowed.contains("flows"), "{}", e.allowed);

    let e = err(edited("delay = \"5ms\"", "delay = \"5ms\"\nlatency = \"5ms\""));
    assert_eq!(e.path, "links.0.latency");
    assert_eq!(e.value, "\"5ms\"");
    assert!(e.allowed.contains("delay_ab"), "{}", e.allowed);

    let e = err(edited("mss = 1460", "msss = 1460"));
    assert_eq!(e.path, "flows.download.tcp.msss");
    assert!(e.allowed.contains("mss") && e.allowed.contains("rwnd"), "{}", e.allowed);

    let e = err(edited("size = \"50MB\"", "size = \"50MB\", pages = 3"));
    assert_eq!(e.path, "flows.download.app.pages");
    assert!(e.allowed.contains("response_end"), "{}", e.allowed);

    let e = err(edited("gateway = {}", "gateway = { x = 1 }"));
    assert_eq!(e.path, "nodes.gateway.x");
}

#[test]
fn unparsable_units() {
    let e = err(edited("rate = \"10Mbps\"", "rate = \"10 Mbpss\""));
    assert_eq!(e.path, "links.0.rate");
    assert_eq!(e.value, "\"10 Mbpss\"");
    assert!(e.allowed.contains("Mbpss") && e.allowed.contains("kbps"), "{}", e.allowed);

    let e = err(edited("delay = \"250ms\"", "delay = \"fast\""));
    assert_eq!(e.path, "links.1.delay");
    assert_eq!(e.value, "\"fast\"");
    assert!(e.allowed.contains("ms"), "{}", e.allowed);

    let e = err(edited("size = \"50MB\"", "size = \"50 megabytes\""));
    assert_eq!(e.path, "flows.download.app.size");
    assert!(e.allowed.contains("MiB"), "{}", e.allowed);
}

#[test]
fn no_route() {
    let text = GEO.replace("[[flows]]", "[nodes.island]\n\n[nodes.rock]\n\n[[links]]\na = \"island\"\nb = \"rock\"\nrate = 1000\ndelay = 0\n\n[[flows]]");
    // [nodes.x] after [[links]] is legal TOML; make sure the scenario is
    // otherwise fine, then point the flow at the other component.
    parse(&text).unwrap();
    let e = err(parse(&text.replace("dst = \"client\"", "dst = \"rock\"")));
    assert_eq!(e.path, "flows.download.dst");
    assert_eq!(e.value, "\"rock\"");
    assert!(e.allowed.contains("reachable from \"server\""), "{}", e.allowed);
    assert!(!e.allowed.contains("\"island\""), "{}", e.allowed);
}

#[test]
fn malformed_toml() {
    let e = err(edited("[[flows]]", "[[flows]\n"));
    assert_eq!(e.path, "<toml>");
    assert!(e.allowed.contains("line"), "{}", e.allowed);
    assert!(e.allowed.contains("column"), "{}", e.allowed);
}

#[test]
fn duplicate_flow_name() {
    let second = "\n[[flows]]\nname = \"download\"\nsrc = \"server\"\ndst = \"gateway\"\napp = { kind = \"ftp\" }\n";
    let e = err(parse(&format!("{}{}", GEO, second)));
    assert_eq!(e.path, "flows.1.name");
    assert_eq!(e.value, "\"download\"");
    assert!(e.allowed.contains("flows.0"), "{}", e.allowed);
}

#[test]
fn rwnd_needs_window_scaling() {
    let e = err(edited("rwnd = 65535", "rwnd = \"128KB\", window_scaling = false"));
    assert_eq!(e.path, "flows.download.tcp.rwnd");
    assert_eq!(e.value, "\"128KB\"");
    assert!(e.allowed.contains("65535") && e.allowed.contains("window_scaling"), "{}", e.allowed);
    // With scaling it is fine.
    let s = edited("rwnd = 65535", "rwnd = \"128KB\"").unwrap();
    assert_eq!(s.flows[0].tcp.rwnd_bytes, 128_000);
}

#[test]
fn initial_rto_above_max_rto_is_refused_not_clamped() {
    let e = err(edited("rwnd = 65535", "rwnd = 65535, initial_rto = \"90s\""));
    assert_eq!(e.path, "flows.download.tcp.initial_rto");
    assert_eq!(e.value, "\"90s\"");
    assert!(e.allowed.contains("max_rto"), "{}", e.allowed);
    let s = edited("rwnd = 65535", "rwnd = 65535, initial_rto = \"90s\", max_rto = \"120s\"").unwrap();
    assert_eq!(s.flows[0].tcp.initial_rto_ns, 90_000_000_000);
}

#[test]
fn sack_recovery_needs_sack() {
    let e = err(edited("variant = \"sack\"", "variant = \"sack\", sack = false"));
    assert_eq!(e.path, "flows.download.tcp.sack");
    assert_eq!(e.value, "false");
    assert!(e.allowed.contains("recovery"), "{}", e.allowed);
    let e = err(edited("variant = \"sack\"", "recovery = \"sack\", sack = false"));
    assert_eq!(e.path, "flows.download.tcp.sack");
}

#[test]
fn missing_app() {
    let e = err(edited("app = { kind = \"ftp\", size = \"50MB\" }", ""));
    assert_eq!(e.path, "flows.download.app");
    assert!(e.allowed.contains("missing") && e.allowed.contains("ftp"), "{}", e.allowed);
}

#[test]
fn type_errors() {
    let e = err(edited("delayed_ack = true", "delayed_ack = \"yes\""));
    assert_eq!(e.path, "flows.download.tcp.delayed_ack");
    assert_eq!(e.value, "\"yes\"");
    assert!(e.allowed.contains("boolean") && e.allowed.contains("string"), "{}", e.allowed);
    let e = err(edited("mss = 1460", "mss = 1460.5"));
    assert_eq!(e.path, "flows.download.tcp.mss");
    assert_eq!(e.value, "1460.5");
    assert!(e.allowed.contains("integer"), "{}", e.allowed);
}

#[test]
fn stop_required_when_unlimited() {
    let text = GEO.replace("stop = \"2000s\"", "").replace("size = \"50MB\"", "request = 0");
    let e = err(parse(&text));
    assert_eq!(e.path, "run.stop");
    assert!(e.allowed.contains("required"), "{}", e.allowed);
    // A finite flow is enough.
    parse(&GEO.replace("stop = \"2000s\"", "")).unwrap();
}

#[test]
fn first_error_in_order() {
    // Errors in a link and in a flow: the link (earlier) is reported.
    let text = GEO.replace("delay = \"5ms\"", "delay = \"-5ms\"").replace("variant = \"sack\"", "variant = \"x\"");
    assert_eq!(err(parse(&text)).path, "links.0.delay");
}

const GEO_JSON: &str = r#"{
  "run": {"seed": 1, "stop": "2000s"},
  "nodes": {"server": {}, "gateway": {}, "client": {}},
  "links": [
    {"a": "server", "b": "gateway", "rate": "10Mbps", "delay": "5ms"},
    {"a": "gateway", "b": "client", "rate_ab": "2048kbps", "rate_ba": "256kbps", "delay": "250ms",
     "queue_ab": {"kind": "droptail", "packets": 100}, "errors_ab": {"ber": 1e-7}}
  ],
  "flows": [
    {"name": "download", "src": "server", "dst": "client",
     "tcp": {"variant": "sack", "mss": 1460, "initial_window": 2, "rwnd": 65535, "delayed_ack": true},
     "app": {"kind": "ftp", "size": "50MB"}}
  ]
}"#;

#[test]
fn json_same_as_toml() {
    assert_eq!(parse_json(GEO_JSON, &[]).unwrap(), parse(GEO).unwrap());
}

#[test]
fn json_null() {
    let e = err(parse_json(&GEO_JSON.replace("\"variant\": \"sack\"", "\"variant\": null"), &[]));
    assert_eq!(e.path, "flows.download.tcp.variant");
    assert_eq!(e.value, "null");
    let e = err(parse_json(&GEO_JSON.replace("\"delay\": \"5ms\"", "\"delay\": null"), &[]));
    assert_eq!(e.path, "links.0.delay");
}

#[test]
fn malformed_json() {
    let e = err(parse_json("{\"run\": ", &[]));
    assert_eq!(e.path, "<json>");
    assert!(e.allowed.contains("line"), "{}", e.allowed);
}

/// The GEO flow's tcp table with `extra` appended.
fn tcp_with(extra: &str) -> Result<Scenario, ScenarioError> {
    edited("delayed_ack = true }", &format!("delayed_ack = true, {extra} }}"))
}

#[test]
fn recovery_presets_and_parts() {
    for (variant, rec, sack) in [
        ("tahoe", Recovery::Tahoe, false),
        ("reno", Recovery::Reno, false),
        ("newreno", Recovery::NewReno, false),
        ("sack", Recovery::Sack, true),
        ("fack", Recovery::Fack, true),
    ] {
        let s = edited("variant = \"sack\"", &format!("variant = \"{variant}\"")).unwrap();
        let t = &s.flows[0].tcp;
        assert_eq!((t.recovery, t.sack), (rec, sack), "{variant}");
        assert!(!t.limited_transmit && t.daass_segments.is_none() && t.max_burst.is_none() && !t.frto);
        let s = edited("variant = \"sack\"", &format!("recovery = \"{variant}\"")).unwrap();
        assert_eq!(s.flows[0].tcp.recovery, rec);
    }
    // the preset's recovery can be overridden by parts
    let s = edited("variant = \"sack\"", "variant = \"fack\", recovery = \"reno\", sack = false").unwrap();
    assert_eq!((s.flows[0].tcp.recovery, s.flows[0].tcp.sack), (Recovery::Reno, false));
    let e = err(edited("variant = \"sack\"", "variant = \"fack\", sack = false"));
    assert_eq!(e.path, "flows.download.tcp.sack");
    assert!(e.allowed.contains("\"fack\""), "{}", e.allowed);
    let e = err(edited("variant = \"sack\"", "recovery = \"vegas\""));
    assert_eq!(e.path, "flows.download.tcp.recovery");
    assert!(e.allowed.contains("\"tahoe\"") && e.allowed.contains("\"fack\""), "{}", e.allowed);
}

/// TRANSAT's "Enhanced TCP": SACK + IW 4 + DAASS (10) + Limited Transmit;
/// each part can still be set by hand.
#[test]
fn enhanced_preset() {
    let s = parse(&GEO.replace("variant = \"sack\"", "variant = \"enhanced\"").replace("initial_window = 2, ", "")).unwrap();
    let t = &s.flows[0].tcp;
    assert_eq!(t.variant, "enhanced");
    assert_eq!((t.recovery, t.sack, t.initial_window), (Recovery::Sack, true, InitialWindow::Segments(4)));
    assert_eq!((t.daass_segments, t.limited_transmit), (Some(10), true));
    let s = edited("variant = \"sack\"", "variant = \"enhanced\", limited_transmit = false, daass_segments = 6").unwrap();
    let t = &s.flows[0].tcp;
    assert_eq!((t.daass_segments, t.limited_transmit, t.initial_window), (Some(6), false, InitialWindow::Segments(2)));
}

#[test]
fn tcp_options_parse() {
    let s = tcp_with("daass = true, limited_transmit = true, max_burst = 4, frto = true").unwrap();
    let t = &s.flows[0].tcp;
    assert_eq!((t.daass_segments, t.limited_transmit, t.max_burst, t.frto), (Some(10), true, Some(4), true));
    assert_eq!(t.partial_ack_timer, PartialAckTimer::Impatient);
    let s = tcp_with("daass = true, daass_segments = 3, partial_ack_timer = \"slow_but_steady\"").unwrap();
    assert_eq!(s.flows[0].tcp.daass_segments, Some(3));
    assert_eq!(s.flows[0].tcp.partial_ack_timer, PartialAckTimer::SlowButSteady);
    let s = edited("variant = \"sack\"", "variant = \"fack\", fack_rampdown = true, fack_overdamping = true").unwrap();
    assert!(s.flows[0].tcp.fack_rampdown && s.flows[0].tcp.fack_overdamping);
}

#[test]
fn tcp_option_errors() {
    let e = err(tcp_with("daass_segments = 5"));
    assert_eq!((e.path.as_str(), e.value.as_str()), ("flows.download.tcp.daass_segments", "5"));
    assert!(e.allowed.contains("daass = true"), "{}", e.allowed);
    let e = err(tcp_with("daass = true, daass_segments = 0"));
    assert_eq!(e.path, "flows.download.tcp.daass_segments");
    assert!(e.allowed.contains("1..="), "{}", e.allowed);
    let e = err(edited("delayed_ack = true", "delayed_ack = false, daass = true"));
    assert_eq!((e.path.as_str(), e.value.as_str()), ("flows.download.tcp.daass", "true"));
    assert!(e.allowed.contains("delayed_ack"), "{}", e.allowed);
    let e = err(tcp_with("max_burst = 0"));
    assert_eq!((e.path.as_str(), e.value.as_str()), ("flows.download.tcp.max_burst", "0"));
    assert!(e.allowed.contains("1..="), "{}", e.allowed);
    let e = err(tcp_with("limited_transmit = \"yes\""));
    assert_eq!(e.path, "flows.download.tcp.limited_transmit");
    assert!(e.allowed.contains("boolean"), "{}", e.allowed);
    let e = err(tcp_with("frto = 1"));
    assert_eq!(e.path, "flows.download.tcp.frto");
    let e = err(tcp_with("rearm_rto_on_retransmit = \"always\""));
    assert_eq!(e.path, "flows.download.tcp.rearm_rto_on_retransmit");
    assert!(e.allowed.contains("boolean"), "{}", e.allowed);
    let e = err(tcp_with("fack_rampdown = true"));
    assert_eq!((e.path.as_str(), e.value.as_str()), ("flows.download.tcp.fack_rampdown", "true"));
    assert!(e.allowed.contains("\"fack\""), "{}", e.allowed);
    let e = err(tcp_with("fack_overdamping = false"));
    assert_eq!(e.path, "flows.download.tcp.fack_overdamping");
    let e = err(tcp_with("partial_ack_timer = \"lazy\""));
    assert_eq!(e.path, "flows.download.tcp.partial_ack_timer");
    assert!(e.allowed.contains("\"slow_but_steady\""), "{}", e.allowed);
}

/// A key of another controller's is refused, naming its owner; of two,
/// the one the registry lists first is named, whatever the file's order.
#[test]
fn another_controllers_key_is_refused() {
    let e = err(tcp_with("hybla_rtt0 = \"25ms\""));
    assert_eq!((e.path.as_str(), e.value.as_str()), ("flows.download.tcp.hybla_rtt0", "\"25ms\""));
    assert!(e.allowed.contains("a key used only with cc = \"hybla\""), "{}", e.allowed);
    let e = err(tcp_with("hybla_rtt0 = \"25ms\", vegas_alpha = 1"));
    assert_eq!(e.path, "flows.download.tcp.vegas_alpha");
    assert!(e.allowed.contains("cc = \"vegas\""), "{}", e.allowed);
    // the controller's own keys pass
    let hybla = GEO.replace("variant = \"sack\"", "variant = \"hybla\"");
    assert!(parse(&hybla.replace("delayed_ack = true }", "delayed_ack = true, hybla_rtt0 = \"25ms\" }")).is_ok());
}

#[test]
fn http_first_page_parsed_and_checked() {
    let app = "app = { kind = \"ftp\", size = \"50MB\" }";
    let s = edited(app, "app = { kind = \"http\", pages = 1, first_page = \"1s\" }").unwrap();
    match &s.flows[0].app {
        AppCfg::Http(h) => assert_eq!((h.first_page_ns, h.pages), (1_000_000_000, Some(1))),
        other => panic!("{other:?}"),
    }
    let e = err(edited(app, "app = { kind = \"http\", first_page = \"-1s\" }"));
    assert_eq!(e.path, "flows.download.app.first_page");
    assert_eq!(e.value, "\"-1s\"");
    assert!(e.allowed.contains("duration"), "{}", e.allowed);
    let e = err(edited(app, "app = { kind = \"http\", first_page = true }"));
    assert_eq!(e.path, "flows.download.app.first_page");
    assert!(e.allowed.contains("boolean"), "{}", e.allowed);
}

#[test]
fn an_empty_key_is_named_quoted() {
    let e = satcp_core::scenario::parse_toml("\"\" = 1\n", &[]).unwrap_err();
    assert_eq!(e.path, "\"\"");
    assert!(e.allowed.contains("unknown key"), "{e}");
}

#[test]
fn sample_interval_too_fine_for_memory() {
    // the reference scenario: 2000 s, one TCP flow and two links (four
    // directions): 5 rows a sample. Below 1us: refused whatever the run.
    let at = |iv: &str| parse_toml(GEO, &[format!("run.sample_interval=\"{iv}\"")]);
    let e = err(at("999ns"));
    assert_eq!(e.path, "run.sample_interval");
    assert!(e.value.contains("9.99e-7") || e.value.contains("0.000000999"), "{e}");
    assert!(e.allowed.contains("at least 1us"), "{e}");
    // 2000 s / 100 us x 5 = 1e8 rows: the limit, allowed; a hair finer is not
    assert_eq!(at("100us").unwrap().run.sample_interval_ns, Some(100_000));
    let e = err(at("99us"));
    assert_eq!(e.path, "run.sample_interval");
    assert!(e.allowed.contains("at least 0.0001 s") && e.allowed.contains("1 TCP flows + 4 link directions"), "{e}");
    // without a stop only the floor applies (the run's length is not known)
    let no_stop = GEO.replace("stop = \"2000s\"", "");
    assert_ne!(no_stop, GEO);
    assert!(parse_toml(&no_stop, &["run.sample_interval=\"10us\"".to_string()]).is_ok());
}

/// The integration tests' two-node builder (`common::TwoNodes`) writes
/// the scenario a test would write by hand.
#[test]
fn the_two_node_builder_writes_the_scenario_by_hand() {
    let by_hand = r#"
[run]
seed = 1
stop = "300s"
[nodes]
a = {}
b = {}
[[links]]
a = "a"
b = "b"
rate = "10Mbps"
delay = "300ms"
queue_ab = { kind = "droptail", packets = 500 }
[[flows]]
name = "f"
src = "a"
dst = "b"
tcp = { variant = "sack", rwnd = "64MiB" }
app = { kind = "ftp", size = "30MB" }
[[flows]]
src = "a"
dst = "b"
app = { kind = "cbr", rate = "1Mbps" }
[[agents]]
node = "b"
kind = "monitor"
"#;
    let built = common::TwoNodes::new("10Mbps", "300ms")
        .seed(1)
        .stop("300s")
        .link("queue_ab = { kind = \"droptail\", packets = 500 }")
        .flow(Some("f"), "variant = \"sack\", rwnd = \"64MiB\"", "kind = \"ftp\", size = \"30MB\"")
        .flow(None, "", "kind = \"cbr\", rate = \"1Mbps\"")
        .then("[[agents]]\nnode = \"b\"\nkind = \"monitor\"\n")
        .toml();
    assert_eq!(parse_toml(&built, &[]).unwrap(), parse_toml(by_hand, &[]).unwrap());
}

/// `[[paths]]` trace routes through a constellation; on a fixed network
/// they are refused, not silently ignored.
#[test]
fn paths_without_a_constellation_are_refused() {
    let text = "[run]\nstop = \"10s\"\n[nodes]\na = {}\nb = {}\n[[links]]\na = \"a\"\nb = \"b\"\nrate = \"1Mbps\"\ndelay = \"10ms\"\n\
                [[flows]]\nsrc = \"a\"\ndst = \"b\"\napp = { kind = \"ftp\", size = \"1MB\" }\n[[paths]]\nsrc = \"a\"\ndst = \"b\"\n";
    let e = satcp_core::scenario::parse_toml(text, &[]).unwrap_err();
    assert_eq!(e.path, "paths", "{e}");
    assert!(e.to_string().contains("constellations"), "{e}");
}
