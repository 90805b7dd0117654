//! Scenario keys of the window controllers: presets, `cc` by parts, every
//! parameter's default, and an error naming the path, the value and what is
//! allowed for each kind of mistake.

use satcp_core::scenario::*;

const GEO: &str = include_str!("../../../scenarios/geo_bent_pipe.toml");
const TCP: &str = "tcp = { variant = \"sack\", mss = 1460, initial_window = 2, rwnd = 65535, delayed_ack = true }";

/// GEO with the flow's tcp table replaced by `tcp`.
fn with_tcp(tcp: &str) -> Result<Scenario, ScenarioError> {
    assert_eq!(GEO.matches(TCP).count(), 1);
    parse_toml(&GEO.replace(TCP, &format!("tcp = {{ {tcp} }}")), &[])
}

fn tcp(t: &str) -> TcpCfg {
    with_tcp(t).unwrap_or_else(|e| panic!("{e}")).flows[0].tcp.clone()
}

fn err(t: &str) -> ScenarioError {
    match with_tcp(t) {
        Ok(_) => panic!("expected an error for {t}"),
        Err(e) => e,
    }
}

#[test]
fn presets_pick_recovery_controller_and_defaults() {
    let v = tcp("variant = \"vegas\"");
    assert_eq!((v.recovery, v.sack), (Recovery::NewReno, false));
    assert_eq!(v.controller, Controller::Vegas(VegasCfg { alpha: 1, beta: 3, gamma: 1, late_iw: false, fine_timeout: false, rto_backoff: false }));
    // ns-2's Agent/TCP/Vegas under the ns2 profiles: late initial window,
    // fine-grained retransmission, RTO backed off at a fast retransmit
    let vn = tcp("variant = \"vegas\", profile = \"ns2\"");
    assert_eq!(vn.controller, Controller::Vegas(VegasCfg { alpha: 1, beta: 3, gamma: 1, late_iw: true, fine_timeout: true, rto_backoff: true }));
    let w = tcp("variant = \"westwood\"");
    let rfc = AimdCfg { exact_ca: false, per_byte: false };
    assert_eq!((w.recovery, w.controller), (Recovery::NewReno, Controller::Westwood(WestwoodCfg { filter_gain: 0.9, growth: rfc })));
    // Linux's tcp_westwood grows by tcp_reno_cong_avoid: byte counting
    let bytes = AimdCfg { exact_ca: true, per_byte: true };
    let wl = tcp("variant = \"westwood\", profile = \"linux\"");
    assert_eq!(wl.controller, Controller::Westwood(WestwoodCfg { filter_gain: 0.9, growth: bytes }));
    let wn = tcp("variant = \"westwood\", profile = \"ns2\"");
    assert_eq!(wn.controller, Controller::Westwood(WestwoodCfg { filter_gain: 0.9, growth: rfc }));
    let we = tcp("variant = \"westwood\", ca_increment = \"exact\"");
    assert_eq!(we.controller, Controller::Westwood(WestwoodCfg { filter_gain: 0.9, growth: AimdCfg { exact_ca: true, per_byte: false } }));
    assert_eq!(with_tcp("variant = \"westwood\", ca_increment = \"fast\"").unwrap_err().path, "flows.download.tcp.ca_increment");
    let h = tcp("variant = \"hybla\"");
    // the paper's Hybla: SACK, pacing, Hoe's initial ssthresh
    let paper = HyblaCfg { rtt0_ns: 25_000_000, rho_rtt: HyblaRtt::MinSrtt, style: HyblaStyle::Paper, ssthresh_estimate: true };
    assert_eq!((h.recovery, h.sack, h.pacing, h.controller), (Recovery::Sack, true, true, Controller::Hybla(paper)));
    // under the linux profile, tcp_hybla.c: no estimate, no pacing
    let l = tcp("variant = \"hybla\", profile = \"linux\"");
    let linux = HyblaCfg { style: HyblaStyle::Linux, ssthresh_estimate: false, ..paper };
    assert_eq!((l.recovery, l.pacing, l.controller), (Recovery::Sack, false, Controller::Hybla(linux)));
    let e = with_tcp("variant = \"hybla\", hybla_style = \"linux\", hybla_ssthresh_estimate = true").unwrap_err();
    assert_eq!(e.path, "flows.download.tcp.hybla_ssthresh_estimate");
    let c = tcp("variant = \"cubic\"");
    assert_eq!((c.recovery, c.sack), (Recovery::Sack, true));
    assert_eq!(c.controller, Controller::Cubic(CubicCfg { c: 0.4, beta: 0.7, fast_convergence: true, hystart: true, hystart_linux: false, linux_window: false }));
    let cl = tcp("variant = \"cubic\", cubic_hystart_style = \"linux\"");
    assert_eq!(cl.controller, Controller::Cubic(CubicCfg { c: 0.4, beta: 0.7, fast_convergence: true, hystart: true, hystart_linux: true, linux_window: false }));
    let e = with_tcp("variant = \"cubic\", cubic_hystart_style = \"kernel\"").unwrap_err();
    assert_eq!(e.path, "flows.download.tcp.cubic_hystart_style");
    // under the linux profile, tcp_cubic.c's window and HyStart; either
    // can be had alone
    let k = tcp("variant = \"cubic\", profile = \"linux\"");
    assert_eq!(k.controller, Controller::Cubic(CubicCfg { c: 0.4, beta: 0.7, fast_convergence: true, hystart: true, hystart_linux: true, linux_window: true }));
    let r = tcp("variant = \"cubic\", profile = \"linux\", cubic_style = \"rfc9438\"");
    assert_eq!(r.controller, Controller::Cubic(CubicCfg { linux_window: false, ..CubicCfg { c: 0.4, beta: 0.7, fast_convergence: true, hystart: true, hystart_linux: true, linux_window: true } }));
    let e = with_tcp("variant = \"cubic\", cubic_style = \"bic\"").unwrap_err();
    assert_eq!(e.path, "flows.download.tcp.cubic_style");
    let b = tcp("variant = \"bbr\"");
    assert_eq!((b.recovery, b.sack), (Recovery::Sack, true));
    assert_eq!(b.controller, Controller::Bbr(BbrCfg { cwnd_gain: 2.0, probe_rtt_interval_ns: 10_000_000_000, probe_rtt_duration_ns: 200_000_000 }));
    assert_eq!(b.variant, "bbr");
    assert_eq!(tcp("variant = \"sack\"").controller, Controller::Aimd(AimdCfg { exact_ca: false, per_byte: false }));
    // congestion avoidance counts bytes in the linux profile (Linux's
    // tcp_cong_avoid_ai), or where asked
    let linux = Controller::Aimd(AimdCfg { exact_ca: true, per_byte: true });
    assert_eq!(tcp("variant = \"sack\", profile = \"linux\"").controller, linux);
    assert_eq!(tcp("variant = \"sack\", ca_increment = \"bytes\"").controller, linux);
    assert_eq!(tcp("variant = \"sack\", profile = \"ns2\"").controller, Controller::Aimd(AimdCfg { exact_ca: true, per_byte: false }));
}

#[test]
fn any_controller_with_any_recovery_by_parts() {
    let t = tcp("variant = \"newreno\", cc = \"cubic\", cubic_hystart = false, cubic_c = 1");
    assert_eq!(t.recovery, Recovery::NewReno);
    assert_eq!(t.controller, Controller::Cubic(CubicCfg { c: 1.0, beta: 0.7, fast_convergence: true, hystart: false, hystart_linux: false, linux_window: false }));
    let t = tcp("variant = \"bbr\", recovery = \"newreno\", sack = false");
    assert_eq!((t.recovery, t.sack), (Recovery::NewReno, false));
    let t = tcp("cc = \"vegas\", recovery = \"sack\", vegas_alpha = 2, vegas_beta = 4, vegas_gamma = 2");
    assert_eq!((t.recovery, t.controller), (Recovery::Sack, Controller::Vegas(VegasCfg { alpha: 2, beta: 4, gamma: 2, late_iw: false, fine_timeout: false, rto_backoff: false })));
    let t = tcp("variant = \"hybla\", hybla_rtt0 = \"50ms\", hybla_rtt = \"srtt\"");
    let want = HyblaCfg { rtt0_ns: 50_000_000, rho_rtt: HyblaRtt::Srtt, style: HyblaStyle::Paper, ssthresh_estimate: true };
    assert_eq!(t.controller, Controller::Hybla(want));
    let t = tcp("variant = \"bbr\", bbr_cwnd_gain = 2.5, bbr_probe_rtt_interval = \"5s\", bbr_probe_rtt_duration = \"100ms\"");
    assert_eq!(t.controller, Controller::Bbr(BbrCfg { cwnd_gain: 2.5, probe_rtt_interval_ns: 5_000_000_000, probe_rtt_duration_ns: 100_000_000 }));
    // BBRv3 by preset or by cc, Google's v3 constants unless the draft's
    // are asked for
    let t = tcp("variant = \"bbr3\"");
    assert_eq!((t.recovery, t.sack, t.controller), (Recovery::Sack, true, Controller::Bbr3(Bbr3Cfg::of(Bbr3Source::Linux))));
    let t = tcp("variant = \"newreno\", cc = \"bbr3\", bbr3_variant = \"draft\", bbr3_beta = 0.8, bbr3_ecn = true, bbr3_ecn_max_rtt = \"20ms\"");
    let want = Bbr3Cfg { beta: 0.8, ecn: true, ecn_max_rtt_ns: 20_000_000, ..Bbr3Cfg::of(Bbr3Source::Draft) };
    assert_eq!((t.recovery, t.controller), (Recovery::NewReno, Controller::Bbr3(want)));
    let e = err("variant = \"bbr\", bbr3_beta = 0.7");
    assert_eq!(e.path, "flows.download.tcp.bbr3_beta");
    assert!(e.allowed.contains("cc = \"bbr3\""), "{}", e.allowed);
    let t = tcp("variant = \"westwood\", westwood_filter_gain = 0.875");
    assert_eq!(t.controller, Controller::Westwood(WestwoodCfg { filter_gain: 0.875, growth: AimdCfg::default() }));
}

#[test]
fn unknown_controller() {
    let e = err("cc = \"reno\"");
    assert_eq!(e.path, "flows.download.tcp.cc");
    assert_eq!(e.value, "\"reno\"");
    assert!(e.allowed.contains("\"aimd\"") && e.allowed.contains("\"bbr\""), "{}", e.allowed);
}

#[test]
fn parameter_of_another_controller() {
    let e = err("variant = \"cubic\", vegas_alpha = 2");
    assert_eq!(e.path, "flows.download.tcp.vegas_alpha");
    assert_eq!(e.value, "2");
    assert!(e.allowed.contains("cc = \"vegas\"") && e.allowed.contains("\"cubic\""), "{}", e.allowed);
    let e = err("variant = \"sack\", hybla_rtt0 = \"25ms\"");
    assert_eq!(e.path, "flows.download.tcp.hybla_rtt0");
    assert!(e.allowed.contains("\"aimd\""), "{}", e.allowed);
    // a key two controllers read names both
    let e = err("variant = \"cubic\", ca_increment = \"bytes\"");
    assert_eq!(e.path, "flows.download.tcp.ca_increment");
    assert!(e.allowed.contains("cc = \"aimd\" or cc = \"westwood\""), "{}", e.allowed);
}

#[test]
fn out_of_range_parameters() {
    let cases: &[(&str, &str, &str, &str)] = &[
        ("variant = \"vegas\", vegas_alpha = 4", "vegas_alpha", "4", "vegas_alpha <= vegas_beta"),
        ("variant = \"vegas\", vegas_alpha = 2, vegas_beta = 1", "vegas_beta", "1", "vegas_alpha <= vegas_beta"),
        ("variant = \"vegas\", vegas_gamma = -1", "vegas_gamma", "-1", "0..=1000"),
        ("variant = \"westwood\", westwood_filter_gain = 1.0", "westwood_filter_gain", "1.0", "[0, 1)"),
        ("variant = \"westwood\", westwood_filter_gain = \"high\"", "westwood_filter_gain", "\"high\"", "[0, 1)"),
        ("variant = \"hybla\", hybla_rtt0 = \"0ms\"", "hybla_rtt0", "\"0ms\"", "> 0"),
        ("variant = \"hybla\", hybla_rtt = \"mean\"", "hybla_rtt", "\"mean\"", "\"min_srtt\""),
        ("variant = \"cubic\", cubic_c = 0", "cubic_c", "0", "(0, 100]"),
        ("variant = \"cubic\", cubic_beta = 1", "cubic_beta", "1", "(0, 1)"),
        ("variant = \"cubic\", cubic_hystart = 1", "cubic_hystart", "1", "boolean"),
        ("variant = \"cubic\", cubic_fast_convergence = \"no\"", "cubic_fast_convergence", "\"no\"", "boolean"),
        ("variant = \"bbr\", bbr_cwnd_gain = 0.5", "bbr_cwnd_gain", "0.5", "[1, 16]"),
        ("variant = \"bbr\", bbr_probe_rtt_interval = \"0s\"", "bbr_probe_rtt_interval", "\"0s\"", "> 0"),
        ("variant = \"bbr\", bbr_probe_rtt_duration = \"20s\"", "bbr_probe_rtt_duration", "\"20s\"", "bbr_probe_rtt_interval"),
        ("variant = \"bbr3\", bbr3_variant = \"v2\"", "bbr3_variant", "\"v2\"", "\"linux\""),
        ("variant = \"bbr3\", bbr3_loss_thresh = 0", "bbr3_loss_thresh", "0", "(0, 1)"),
        ("variant = \"bbr3\", bbr3_beta = 1.5", "bbr3_beta", "1.5", "(0, 1)"),
        ("variant = \"bbr3\", bbr3_headroom = 1", "bbr3_headroom", "1", "[0, 1)"),
        ("variant = \"bbr3\", bbr3_ecn = \"yes\"", "bbr3_ecn", "\"yes\"", "boolean"),
        ("variant = \"bbr3\", bbr3_ecn_max_rtt = \"10ms\"", "bbr3_ecn_max_rtt", "\"10ms\"", "bbr3_ecn = true"),
        ("variant = \"bbr3\", bbr3_ecn = true, bbr3_ecn_max_rtt = \"0s\"", "bbr3_ecn_max_rtt", "\"0s\"", "> 0"),
    ];
    for &(t, key, value, allowed) in cases {
        let e = err(t);
        assert_eq!(e.path, format!("flows.download.tcp.{key}"), "{t}");
        assert_eq!(e.value, value, "{t}");
        assert!(e.allowed.contains(allowed), "{t}: {}", e.allowed);
    }
}

#[test]
fn pacing_option() {
    assert!(!tcp("variant = \"cubic\"").pacing);
    assert!(tcp("variant = \"cubic\", pacing = true").pacing);
    // the hybla preset paces (its paper's packet spacing); a key turns it off
    assert!(tcp("variant = \"hybla\"").pacing);
    assert!(!tcp("variant = \"hybla\", pacing = false").pacing);
    let e = err("variant = \"cubic\", pacing = \"on\"");
    assert_eq!(e.path, "flows.download.tcp.pacing");
    assert_eq!(e.value, "\"on\"");
    assert!(e.allowed.contains("boolean"), "{}", e.allowed);
}

#[test]
fn adalr_presets_and_readings() {
    let s = tcp("variant = \"adalr-sack\"");
    assert_eq!((s.recovery, s.sack), (Recovery::Sack, true));
    // the thesis' IW of 2 SMSS and a receiver that keeps data beyond its window
    assert_eq!(s.initial_window, InitialWindow::Segments(2));
    assert!(s.accept_beyond_window);
    let Controller::Adalr(a) = s.controller else { panic!("{:?}", s.controller) };
    assert_eq!(
        a,
        AdalrCfg {
            rtt_dev_gain: 0.25,
            rho_break: 15.0,
            initial_rho: AdalrInitialRho::Handshake,
            rho_source: AdalrRhoSource::SampleTicks,
            rwnd_boost: AdalrRwndBoost::Once,
            boost_check_advertised: false,
            increments: AdalrIncrements::Fractional,
            ca_gate: AdalrCaGate::Literal,
            fr_guard: AdalrFrGuard::Partial,
            equal_is_slow_start: false,
            rto_offset_ns: 200_000_000,
            retx_limit: Some(3),
        }
    );
    let n = tcp("variant = \"adalr-newreno\"");
    assert_eq!((n.recovery, n.sack), (Recovery::NewReno, false));
    // every other reading by its key
    let o = tcp(
        "variant = \"adalr-newreno\", adalr_initial_rho = 60, adalr_rho_source = \"rto\", adalr_rwnd_boost = \"cumulative\", \
         adalr_boost_check = \"advertised\", adalr_increments = \"whole\", adalr_ca_gate = \"rho\", adalr_fr_guard = \"full\", \
         adalr_at_ssthresh = \"slow_start\", adalr_rto_offset = \"0s\", adalr_retx_limit = 0, adalr_rtt_dev_gain = 4, \
         adalr_rho_break = 30, accept_beyond_window = false",
    );
    assert!(!o.accept_beyond_window);
    assert_eq!(
        o.controller,
        Controller::Adalr(AdalrCfg {
            rtt_dev_gain: 4.0,
            rho_break: 30.0,
            initial_rho: AdalrInitialRho::Fixed(60.0),
            rho_source: AdalrRhoSource::Rto,
            rwnd_boost: AdalrRwndBoost::Cumulative,
            boost_check_advertised: true,
            increments: AdalrIncrements::Whole,
            ca_gate: AdalrCaGate::Rho,
            fr_guard: AdalrFrGuard::Full,
            equal_is_slow_start: true,
            rto_offset_ns: 0,
            retx_limit: None,
        })
    );
    // ADaLR on any recovery by parts; other presets keep the RFC receiver
    assert_eq!(tcp("recovery = \"fack\", cc = \"adalr\"").recovery, Recovery::Fack);
    assert!(!tcp("variant = \"sack\"").accept_beyond_window);
}

#[test]
fn adalr_errors_name_the_key_and_what_is_allowed() {
    let cases: &[(&str, &str, &str, &str)] = &[
        ("variant = \"adalr-sack\", adalr_initial_rho = 0.5", "adalr_initial_rho", "0.5", "\"handshake\" or a number in [1, 60]"),
        ("variant = \"adalr-sack\", adalr_initial_rho = \"first\"", "adalr_initial_rho", "\"first\"", "\"handshake\""),
        ("variant = \"adalr-sack\", adalr_rho_source = \"srtt\"", "adalr_rho_source", "\"srtt\"", "\"sample_ticks\""),
        ("variant = \"adalr-sack\", adalr_rwnd_boost = \"twice\"", "adalr_rwnd_boost", "\"twice\"", "\"cumulative\""),
        ("variant = \"adalr-sack\", adalr_boost_check = \"none\"", "adalr_boost_check", "\"none\"", "\"advertised\""),
        ("variant = \"adalr-sack\", adalr_increments = \"ceil\"", "adalr_increments", "\"ceil\"", "\"whole\""),
        ("variant = \"adalr-sack\", adalr_ca_gate = \"none\"", "adalr_ca_gate", "\"none\"", "\"literal\""),
        ("variant = \"adalr-sack\", adalr_fr_guard = \"both\"", "adalr_fr_guard", "\"both\"", "\"partial\""),
        ("variant = \"adalr-sack\", adalr_at_ssthresh = \"either\"", "adalr_at_ssthresh", "\"either\"", "\"slow_start\""),
        ("variant = \"adalr-sack\", adalr_rto_offset = \"soon\"", "adalr_rto_offset", "\"soon\"", "ms"),
        ("variant = \"adalr-sack\", adalr_retx_limit = -1", "adalr_retx_limit", "-1", "0..="),
        ("variant = \"adalr-sack\", adalr_rtt_dev_gain = -0.25", "adalr_rtt_dev_gain", "-0.25", "[0, 60]"),
        ("variant = \"adalr-sack\", adalr_rho_break = 0", "adalr_rho_break", "0", "[1, 60]"),
        ("variant = \"sack\", adalr_retx_limit = 3", "adalr_retx_limit", "3", "cc = \"adalr\""),
        ("variant = \"adalr-sack\", accept_beyond_window = \"yes\"", "accept_beyond_window", "\"yes\"", "boolean"),
        ("variant = \"adalr-vegas\"", "variant", "\"adalr-vegas\"", "\"adalr-newreno\""),
    ];
    for &(t, key, value, allowed) in cases {
        let e = err(t);
        assert_eq!(e.path, format!("flows.download.tcp.{key}"), "{t}");
        assert_eq!(e.value, value, "{t}");
        assert!(e.allowed.contains(allowed), "{t}: {}", e.allowed);
    }
}

#[test]
fn peach_presets_and_keys() {
    let p = tcp("variant = \"peach\"");
    assert_eq!((p.recovery, p.sack, p.initial_window), (Recovery::NewReno, false, InitialWindow::Segments(1)));
    let Controller::Peach(c) = p.controller else { panic!("{:?}", p.controller) };
    let original = PeachCfg {
        latch: PeachLatch::None,
        rehalve: PeachRehalve::NewRun,
        sudden_dummies: None,
        recovery_dummies: 0.5,
        recovery_timer: false,
        dummy_size: None,
        inflation: true,
        rto_sudden_start: true,
        data_slow_start: false,
        exact_ca: false,
    };
    assert_eq!(c, original);
    // Modified Peach: the preset's default for the latch, which a key overrides
    let m = tcp("variant = \"modified-peach\"");
    assert_eq!(m.controller, Controller::Peach(PeachCfg { latch: PeachLatch::Recover, ..original }));
    let a = tcp("variant = \"modified-peach\", peach_latch = \"retransmission\", profile = \"ns2\"");
    assert_eq!(a.controller, Controller::Peach(PeachCfg { latch: PeachLatch::Retransmission, exact_ca: true, ..original }));
    // every key, and Peach on SACK recovery by parts
    let k = tcp("variant = \"sack\", cc = \"peach\", peach_rehalve = \"every_dupthresh\", peach_sudden_dummies = 10, \
                 peach_recovery_dummies = 0.25, peach_recovery_clock = \"timer\", peach_dummy_size = 40, \
                 peach_inflation = false, peach_rto = \"slow_start\", peach_data_slow_start = true");
    assert_eq!(k.recovery, Recovery::Sack);
    assert_eq!(
        k.controller,
        Controller::Peach(PeachCfg {
            rehalve: PeachRehalve::EveryDupthresh,
            sudden_dummies: Some(10),
            recovery_dummies: 0.25,
            recovery_timer: true,
            dummy_size: Some(40),
            inflation: false,
            rto_sudden_start: false,
            data_slow_start: true,
            ..original
        })
    );
    assert_eq!(tcp("variant = \"peach\", peach_sudden_dummies = \"rwnd-1\"").controller, Controller::Peach(original));
    for (bad, key, allowed) in [
        ("peach_latch = \"always\"", "peach_latch", "\"none\", \"retransmission\", \"recover\""),
        ("peach_sudden_dummies = -1", "peach_sudden_dummies", "\"rwnd-1\" or an integer >= 0"),
        ("peach_recovery_dummies = 2", "peach_recovery_dummies", "[0, 1]"),
        ("peach_dummy_size = 0", "peach_dummy_size", "1..=65495"),
    ] {
        let e = err(&format!("variant = \"peach\", {bad}"));
        assert_eq!(e.path, format!("flows.download.tcp.{key}"), "{bad}");
        assert!(e.to_string().contains(allowed), "{bad}: {e}");
    }
    // a Peach key with another controller names the controller it needs
    let e = err("variant = \"newreno\", peach_latch = \"recover\"");
    assert!(e.to_string().contains("cc = \"peach\""), "{e}");
}

#[test]
fn ceten_presets_and_keys() {
    let r = tcp("variant = \"ceten-reno\"");
    assert_eq!((r.recovery, r.sack), (Recovery::Reno, false));
    let intent = CetenCfg { alpha: 0.1, coin: CetenCoin::LossEvent, initial_congestion: 1.0, exact_ca: false };
    assert_eq!(r.controller, Controller::Ceten(intent));
    let n = tcp("variant = \"ceten-newreno\", ceten_alpha = 0.25, ceten_coin = \"every_dupack\", ceten_initial_congestion = 0");
    assert_eq!(n.recovery, Recovery::NewReno);
    assert_eq!(n.controller, Controller::Ceten(CetenCfg { alpha: 0.25, coin: CetenCoin::EveryDupack, initial_congestion: 0.0, ..intent }));
    for (bad, key) in [("ceten_alpha = 0", "ceten_alpha"), ("ceten_coin = \"sometimes\"", "ceten_coin"), ("ceten_initial_congestion = 2", "ceten_initial_congestion")] {
        let e = err(&format!("variant = \"ceten-reno\", {bad}"));
        assert_eq!(e.path, format!("flows.download.tcp.{key}"), "{bad}");
    }
    let e = err("variant = \"reno\", ceten_alpha = 0.2");
    assert!(e.to_string().contains("cc = \"ceten\""), "{e}");
}
