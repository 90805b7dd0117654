//! Scenario keys of the network models (RED queues, burst / Gilbert-Elliott /
//! trace error models, reordering, UDP cross traffic): what they resolve to,
//! and an error naming the dotted path, the value and what is allowed for
//! each kind of mistake.

mod common;

use common::TwoNodes;
use satcp_core::scenario::*;

/// `sat`: more keys of the one link; `app`: the flow's app table (braced).
fn scenario(sat: &str, app: &str) -> String {
    let app = app.trim().strip_prefix('{').and_then(|a| a.strip_suffix('}')).expect("an inline table");
    TwoNodes::new("2Mbps", "255ms").link(sat).flow(Some("f"), "", app.trim()).toml()
}

const FTP: &str = "{ kind = \"ftp\", size = 1000 }";

fn link(sat: &str) -> Result<Scenario, ScenarioError> {
    parse_toml(&scenario(sat, FTP), &[])
}

fn err(sat: &str) -> ScenarioError {
    link(sat).expect_err("must be refused")
}

#[test]
fn red_defaults_are_ns2_2003_and_resolve_per_direction() {
    let s = link("queue_ab = { kind = \"red\", packets = 50 }").unwrap();
    let QueueCfg::Red(r) = s.links[0].dirs[0].queue else { panic!() };
    assert_eq!(
        r,
        RedCfg {
            ecn: false,
            limit_packets: Some(50),
            min_th: None,
            max_th: None,
            max_p: 0.1,
            w_q: None,
            gentle: true,
            wait: true,
            mean_pktsize: 500,
            byte_mode: false,
            target_delay_ns: 5_000_000,
        }
    );
    let p = satcp_core::net::queue::red::RedParams::resolve(&r, 2_000_000, 255_000_000);
    assert_eq!((p.min_th, p.max_th), (5.0, 15.0));
    let s = link("queue = { kind = \"red\", min_th = 10, max_th = 30.5, max_p = 0.02, w_q = 0.002, gentle = false, wait = false, mean_pktsize = 1000, byte_mode = true, target_delay = \"20ms\" }").unwrap();
    let QueueCfg::Red(r) = s.links[0].dirs[1].queue else { panic!() };
    assert_eq!((r.min_th, r.max_th, r.max_p, r.w_q), (Some(10.0), Some(30.5), 0.02, Some(0.002)));
    assert!(!r.gentle && !r.wait && r.byte_mode && r.limit_packets.is_none());
    assert_eq!((r.mean_pktsize, r.target_delay_ns), (1000, 20_000_000));
}

#[test]
fn red_mistakes() {
    let e = err("queue_ab = { kind = \"red\", bytes = \"64KB\" }");
    assert_eq!(e.path, "links.0.queue_ab.bytes");
    assert!(e.allowed.contains("unknown key") && e.allowed.contains("min_th"), "{}", e.allowed);
    let e = err("queue_ab = { kind = \"red\", max_p = 1.5 }");
    assert_eq!((e.path.as_str(), e.value.as_str()), ("links.0.queue_ab.max_p", "1.5"));
    assert!(e.allowed.contains("(0, 1]"));
    // automatic min_th is 5 on this link: a max_th of 4 is refused
    let e = err("queue_ab = { kind = \"red\", max_th = 4 }");
    assert_eq!((e.path.as_str(), e.value.as_str()), ("links.0.queue_ab.max_th", "4"));
    assert!(e.allowed.contains("min_th < max_th") && e.allowed.contains("min_th = 5"), "{}", e.allowed);
    // written once for both directions: the path names the key as written
    let e = err("queue = { kind = \"red\", min_th = 20, max_th = 10 }");
    assert_eq!(e.path, "links.0.queue.max_th");
    let e = err("queue_ab = { kind = \"red\", w_q = 0 }");
    assert_eq!(e.path, "links.0.queue_ab.w_q");
    let e = err("queue_ab = { kind = \"fq\" }");
    assert!(e.allowed.contains("\"red\"") && e.allowed.contains("\"droptail\""), "{}", e.allowed);
}

#[test]
fn dsn_burst_defaults_and_keys() {
    let s = link("errors_ab = { model = \"dsn_burst\" }").unwrap();
    let ErrorCfg::DsnBurst(d) = &s.links[0].dirs[0].errors else { panic!() };
    assert_eq!(d.burst, BoundedExp { mean_ns: 300_000_000, min_ns: 100_000_000, max_ns: 500_000_000, bounding: Bounding::Truncate });
    assert_eq!(d.gap, BoundedExp { mean_ns: 5_500_000_000, min_ns: 1_000_000_000, max_ns: 10_000_000_000, bounding: Bounding::Truncate });
    assert_eq!((d.gap_from, d.per_burst, d.per_good, d.clock), (GapFrom::Start, 1.0, 0.0, ErrorClock::TxStart));
    assert_eq!((d.burst_delay_ns, d.burst_delay_order), (0, DelayOrder::InOrder));
    assert_eq!(s.links[0].dirs[1].errors, ErrorCfg::None);
    let s = link("errors_ab = { model = \"dsn_burst\", gap_max = \"30s\", per_burst = 0.25, burst_delay = \"550ms\", burst_delay_order = \"overtake\", bounding = \"clamp\", gap_from = \"end\", clock = \"arrival\" }").unwrap();
    let ErrorCfg::DsnBurst(d) = &s.links[0].dirs[0].errors else { panic!() };
    assert_eq!((d.gap.max_ns, d.per_burst, d.burst_delay_ns), (30_000_000_000, 0.25, 550_000_000));
    assert_eq!((d.burst_delay_order, d.gap.bounding, d.gap_from, d.clock), (DelayOrder::Overtake, Bounding::Clamp, GapFrom::End, ErrorClock::Arrival));
    // uniform gaps: the bursts keep their exponential
    let s = link("errors_ab = { model = \"dsn_burst\", gap_law = \"uniform\" }").unwrap();
    let ErrorCfg::DsnBurst(d) = &s.links[0].dirs[0].errors else { panic!() };
    assert_eq!((d.gap.bounding, d.burst.bounding), (Bounding::Uniform, Bounding::Truncate));
    assert_eq!(link("errors_ab = { model = \"dsn_burst\", gap_law = \"pareto\" }").unwrap_err().path, "links.0.errors_ab.gap_law");
}

#[test]
fn dsn_burst_mistakes() {
    let e = err("errors_ab = { model = \"dsn_burst\", per_burst = 1.5 }");
    assert_eq!((e.path.as_str(), e.value.as_str()), ("links.0.errors_ab.per_burst", "1.5"));
    assert!(e.allowed.contains("[0, 1]"));
    let e = err("errors_ab = { model = \"dsn_burst\", burst_min = \"600ms\" }");
    assert_eq!(e.path, "links.0.errors_ab.burst_min");
    assert!(e.allowed.contains("burst_min <= burst_max"), "{}", e.allowed);
    // start-to-start gaps shorter than a burst could overlap it
    let e = err("errors_ab = { model = \"dsn_burst\", gap_min = \"200ms\" }");
    assert_eq!(e.path, "links.0.errors_ab.gap_min");
    assert!(e.allowed.contains("gap_from = \"end\""), "{}", e.allowed);
    assert!(link("errors_ab = { model = \"dsn_burst\", gap_min = \"200ms\", gap_from = \"end\" }").is_ok());
    let e = err("errors_ab = { model = \"dsn_burst\", per = 0.1 }");
    assert!(e.allowed.contains("unknown key") && e.allowed.contains("per_burst"), "{}", e.allowed);
    let e = err("errors_ab = { model = \"dsn_burst\", burst_delay_order = \"fifo\" }");
    assert!(e.allowed.contains("\"in_order\", \"overtake\""), "{}", e.allowed);
    let e = err("errors_ab = { model = \"markov\" }");
    assert_eq!(e.path, "links.0.errors_ab.model");
    assert!(e.allowed.contains("\"gilbert_elliott\""), "{}", e.allowed);
}

#[test]
fn gilbert_elliott_keys_and_mistakes() {
    let s = link("errors_ab = { model = \"gilbert_elliott\", p_gb = 0.01, p_bg = 0.3, per_good = 0.001, per_bad = 0.5, initial = \"stationary\" }").unwrap();
    let ErrorCfg::GilbertElliott(g) = &s.links[0].dirs[0].errors else { panic!() };
    assert_eq!(g.transitions, GeTransitions::PerPacket { p_gb: 0.01, p_bg: 0.3 });
    assert_eq!((g.per_good, g.per_bad, g.initial), (0.001, 0.5, GeInitial::Stationary));
    let s = link("errors_ab = { model = \"gilbert_elliott\", mean_good = \"10s\", mean_bad = \"300ms\" }").unwrap();
    let ErrorCfg::GilbertElliott(g) = &s.links[0].dirs[0].errors else { panic!() };
    assert_eq!(g.transitions, GeTransitions::Time { mean_good_ns: 10_000_000_000, mean_bad_ns: 300_000_000 });
    assert_eq!((g.per_good, g.per_bad, g.initial), (0.0, 1.0, GeInitial::Good));
    let e = err("errors_ab = { model = \"gilbert_elliott\", p_gb = 0.01 }");
    assert_eq!(e.path, "links.0.errors_ab.p_bg");
    assert!(e.allowed.contains("missing"), "{}", e.allowed);
    let e = err("errors_ab = { model = \"gilbert_elliott\", p_gb = 0.01, p_bg = 0.1, mean_bad = \"1s\" }");
    assert_eq!(e.path, "links.0.errors_ab.mean_bad");
    assert!(e.allowed.contains("not both"), "{}", e.allowed);
    let e = err("errors_ab = { model = \"gilbert_elliott\", p_gb = 0, p_bg = 0.1 }");
    assert_eq!((e.path.as_str(), e.allowed.as_str()), ("links.0.errors_ab.p_gb", "a transition probability in (0, 1]"));
    let e = err("errors_ab = { model = \"gilbert_elliott\" }");
    assert_eq!(e.path, "links.0.errors_ab.p_gb");
}

#[test]
fn trace_file_mistakes_name_the_line() {
    let dir = std::env::temp_dir().join(format!("satcp-trace-{}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    std::fs::write(dir.join("bad.csv"), "# bursts\n1.0,1.5\n1.2,2.0\n").unwrap();
    std::fs::write(dir.join("ok.csv"), "1.0,1.5\n3,4,0.25\n").unwrap();
    let text = |f: &str| scenario(&format!("errors_ab = {{ model = \"trace\", file = \"{f}\" }}"), FTP);
    let e = parse_toml_in(&text("bad.csv"), &[], Some(&dir)).unwrap_err();
    assert_eq!((e.path.as_str(), e.value.as_str()), ("links.0.errors_ab.file", "\"bad.csv\""));
    assert!(e.allowed.contains("line 3: interval starting at 1.2 s begins before the previous one ends"), "{}", e.allowed);
    let s = parse_toml_in(&text("ok.csv"), &[], Some(&dir)).unwrap();
    let ErrorCfg::Trace(t) = &s.links[0].dirs[0].errors else { panic!() };
    assert_eq!(t.file, "ok.csv");
    assert_eq!(t.intervals.len(), 2);
    assert_eq!(t.intervals[1], ErrorInterval { start_ns: 3_000_000_000, end_ns: 4_000_000_000, per: 0.25 });
    let e = parse_toml_in(&text("none.csv"), &[], Some(&dir)).unwrap_err();
    assert!(e.allowed.contains("cannot read"), "{}", e.allowed);
    let e = parse_toml_in(&scenario("errors_ab = { model = \"trace\" }", FTP), &[], Some(&dir)).unwrap_err();
    assert_eq!(e.path, "links.0.errors_ab.file");
    assert!(e.allowed.contains("missing"));
    std::fs::remove_dir_all(&dir).unwrap();
}

#[test]
fn reorder_keys_and_mistakes() {
    let s = link("reorder_ab = { probability = 0.01, extra_delay = \"20ms\" }").unwrap();
    assert_eq!(s.links[0].dirs[0].reorder, Some(ReorderCfg { probability: 0.01, extra_delay_ns: 20_000_000 }));
    assert_eq!(s.links[0].dirs[1].reorder, None);
    let e = err("reorder = { probability = 0.01 }");
    assert_eq!(e.path, "links.0.reorder.extra_delay");
    assert!(e.allowed.contains("missing"));
    let e = err("reorder_ba = { probability = 0, extra_delay = \"20ms\" }");
    assert_eq!((e.path.as_str(), e.value.as_str()), ("links.0.reorder_ba.probability", "0"));
    let e = err("reorder_ab = { probability = 0.1, extra_delay = \"0ms\" }");
    assert_eq!(e.path, "links.0.reorder_ab.extra_delay");
}

fn app(a: &str) -> Result<Scenario, ScenarioError> {
    parse_toml(&format!("[run]\nstop = \"10s\"\n{}", scenario("", a)), &[])
}

#[test]
fn udp_applications() {
    let s = app("{ kind = \"cbr\", rate = \"0.8Mbps\", packet_size = 1000, start = \"1s\", stop = \"5s\" }").unwrap();
    assert_eq!(
        s.flows[0].app,
        AppCfg::Cbr(CbrCfg { rate_bps: 800_000, packet_bytes: 1000, start_ns: 1_000_000_000, stop_ns: Some(5_000_000_000), jitter: false, max_packets: None })
    );
    let s = app("{ kind = \"onoff\", dist = \"pareto\", rate = \"1Mbps\", mean_on = \"1s\", mean_off = \"2s\" }").unwrap();
    let AppCfg::OnOff(o) = &s.flows[0].app else { panic!() };
    assert_eq!((o.dist, o.packet_bytes, o.mean_on_ns, o.mean_off_ns), (OnOffDist::Pareto { shape: 1.5 }, 1000, 1_000_000_000, 2_000_000_000));
    // a CBR with a stop bounds the run by itself; without one run.stop is needed
    assert!(parse_toml(&scenario("", "{ kind = \"cbr\", rate = \"1Mbps\", stop = \"2s\" }"), &[]).is_ok());
    let e = parse_toml(&scenario("", "{ kind = \"cbr\", rate = \"1Mbps\" }"), &[]).unwrap_err();
    assert_eq!(e.path, "run.stop");
}

#[test]
fn udp_application_mistakes() {
    let e = app("{ kind = \"cbr\" }").unwrap_err();
    assert_eq!(e.path, "flows.f.app.rate");
    assert!(e.allowed.contains("missing"));
    let e = app("{ kind = \"cbr\", rate = \"1Mbps\", packet_size = 20 }").unwrap_err();
    assert_eq!((e.path.as_str(), e.value.as_str()), ("flows.f.app.packet_size", "20"));
    assert!(e.allowed.contains("29..=65535"), "{}", e.allowed);
    let e = app("{ kind = \"cbr\", rate = \"1Mbps\", start = \"2s\", stop = \"1s\" }").unwrap_err();
    assert_eq!(e.path, "flows.f.app.stop");
    let e = app("{ kind = \"onoff\", rate = \"1Mbps\", shape = 1.2 }").unwrap_err();
    assert_eq!(e.path, "flows.f.app.shape");
    assert!(e.allowed.contains("pareto"));
    let e = app("{ kind = \"onoff\", dist = \"pareto\", rate = \"1Mbps\", shape = 1.0 }").unwrap_err();
    assert!(e.allowed.contains("> 1"), "{}", e.allowed);
    let e = app("{ kind = \"cbr\", rate = \"1Mbps\", size = 5 }").unwrap_err();
    assert!(e.allowed.contains("unknown key") && e.allowed.contains("packet_size"), "{}", e.allowed);
    let text = format!("[run]\nstop = \"10s\"\n{}", scenario("", "{ kind = \"cbr\", rate = \"1Mbps\" }")).replace("app =", "tcp = { variant = \"sack\" }\napp =");
    let e = parse_toml(&text, &[]).unwrap_err();
    assert_eq!(e.path, "flows.f.tcp");
    assert!(e.allowed.contains("UDP"), "{}", e.allowed);
}
