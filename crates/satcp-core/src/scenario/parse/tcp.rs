//! A flow's `tcp` table: the variant preset, loss recovery, the window
//! controller and its parameters, and the TCP options.

use super::*;
const TCP_KEYS: &[&str] = &[
    "variant", "recovery", "cc", "sack", "mss", "initial_window", "rwnd", "window_scaling", "initial_ssthresh",
    "delayed_ack", "delayed_ack_timeout", "delayed_ack_segments", "dupthresh", "min_rto", "max_rto", "initial_rto",
    "clock_granularity", "rtt_sampling", "full_ack_cwnd", "abc_limit", "iss", "max_retransmissions",
    "rescue_retransmission", "rearm_rto_on_retransmit", "daass", "daass_segments", "limited_transmit", "max_burst", "frto",
    "fack_overdamping", "fack_rampdown", "partial_ack_timer",
    // window-controller parameters (CC_PARAMS)
    "vegas_alpha", "vegas_beta", "vegas_gamma", "westwood_filter_gain", "hybla_rtt0", "hybla_rtt", "cubic_c",
    "cubic_beta", "cubic_fast_convergence", "cubic_hystart", "bbr_cwnd_gain", "bbr_probe_rtt_interval",
    "bbr_probe_rtt_duration", "pacing", "accept_beyond_window", "adalr_rtt_dev_gain", "adalr_rho_break",
    "adalr_initial_rho", "adalr_rho_source", "adalr_rwnd_boost", "adalr_boost_check", "adalr_increments", "adalr_ca_gate", "adalr_fr_guard",
    "adalr_at_ssthresh", "adalr_rto_offset", "adalr_retx_limit",
];

/// Preset names for `variant`. "enhanced" is TRANSAT's "Enhanced TCP" (spec
/// 001 section 3.3): SACK + IW 4 + DAASS + Limited Transmit.
const VARIANTS: &[&str] = &[
    "newreno", "sack", "tahoe", "reno", "fack", "enhanced", "vegas", "westwood", "hybla", "cubic", "bbr", "adalr-sack",
    "adalr-newreno",
];
const RECOVERIES: &[&str] = &["newreno", "sack", "tahoe", "reno", "fack"];

fn recovery_named(name: &str) -> Recovery {
    match name {
        "sack" => Recovery::Sack,
        "tahoe" => Recovery::Tahoe,
        "reno" => Recovery::Reno,
        "fack" => Recovery::Fack,
        _ => Recovery::NewReno,
    }
}

/// Largest window with window scaling: 65535 * 2^14 (RFC 7323).
const MAX_SCALED_WINDOW: u64 = 65535 << 14;

pub(super) fn parse_tcp(mut t: Tbl) -> Res<TcpCfg> {
    t.only(TCP_KEYS)?;
    let variant = t.choice("variant", VARIANTS)?.unwrap_or("newreno");
    let enhanced = variant == "enhanced";
    let adalr_preset = variant.starts_with("adalr-");
    let (preset, preset_cc) = preset_parts(variant);
    let recovery = t.choice("recovery", RECOVERIES)?.map_or(preset, recovery_named);
    let cc = t.choice("cc", &["aimd", "vegas", "westwood", "hybla", "cubic", "bbr", "adalr"])?.unwrap_or(preset_cc);
    let controller = parse_controller(&t, cc)?;
    let needs_sack = matches!(recovery, Recovery::Sack | Recovery::Fack);
    let sack = t.bool("sack")?.unwrap_or(needs_sack || matches!(preset, Recovery::Sack | Recovery::Fack));
    if needs_sack && !sack {
        let name = if recovery == Recovery::Sack { "sack" } else { "fack" };
        return Err(t.bad(
            "sack",
            format!("true when recovery is \"{name}\" (it needs SACK blocks), or set recovery = \"newreno\""),
        ));
    }
    let mss = t.u32_in("mss", 64, 65495)?.unwrap_or(1460);
    let initial_window = match t.get("initial_window") {
        None if enhanced => InitialWindow::Segments(4),
        None if adalr_preset => InitialWindow::Segments(2),
        None => InitialWindow::Rfc3390,
        Some(Value::String(s)) if s == "rfc3390" => InitialWindow::Rfc3390,
        Some(Value::Integer(i)) if (1..=i64::from(u32::MAX)).contains(i) => InitialWindow::Segments(*i as u32),
        Some(_) => return Err(t.bad("initial_window", "an integer >= 1 (segments) or \"rfc3390\"")),
    };
    let window_scaling = t.bool("window_scaling")?.unwrap_or(true);
    let rwnd = t.size("rwnd")?.unwrap_or(65535);
    if rwnd < u64::from(mss) {
        return Err(t.bad("rwnd", format!("a size >= mss ({} bytes)", mss)));
    }
    if !window_scaling && rwnd > 65535 {
        return Err(t.bad("rwnd", "at most 65535 bytes without window scaling: enable window_scaling or lower rwnd"));
    }
    if rwnd > MAX_SCALED_WINDOW {
        return Err(t.bad("rwnd", format!("at most {} bytes (65535 * 2^14, the largest scaled window)", MAX_SCALED_WINDOW)));
    }
    let initial_ssthresh = match t.get("initial_ssthresh") {
        Some(Value::String(s)) if s == "inf" => None,
        Some(_) => match t.size("initial_ssthresh") {
            Ok(Some(0)) | Err(_) => {
                return Err(t.bad("initial_ssthresh", format!("\"inf\" or {}", positive(units::SIZE_ALLOWED))))
            }
            Ok(s) => s,
        },
        None => None,
    };
    let delayed_ack = t.bool("delayed_ack")?.unwrap_or(true);
    let delayed_ack_timeout = t.duration_pos("delayed_ack_timeout")?.unwrap_or(200_000_000);
    if delayed_ack_timeout > 1_000_000_000 {
        return Err(t.bad("delayed_ack_timeout", "a duration in (0, 1s] (RFC 1122: at most 500 ms is usual)"));
    }
    let delayed_ack_segments = t.u32_in("delayed_ack_segments", 1, u32::MAX)?.unwrap_or(2);
    let dupthresh = t.u32_in("dupthresh", 1, u32::MAX)?.unwrap_or(3);
    let min_rto = t.duration_pos("min_rto")?.unwrap_or(1_000_000_000);
    let max_rto_set = t.duration_pos("max_rto")?;
    let max_rto = max_rto_set.unwrap_or(60_000_000_000);
    if max_rto < min_rto {
        return Err(if max_rto_set.is_some() {
            t.bad("max_rto", format!("a duration >= min_rto ({} ns)", min_rto))
        } else {
            t.bad("min_rto", "a duration <= max_rto (default 60s)")
        });
    }
    let initial_rto = t.duration_pos("initial_rto")?.unwrap_or(1_000_000_000);
    if initial_rto > max_rto {
        return Err(t.bad("initial_rto", format!("a duration > 0 and <= max_rto ({} ns)", max_rto)));
    }
    let clock_granularity = t.duration("clock_granularity")?.unwrap_or(1_000_000);
    let rtt_sampling = match t.choice("rtt_sampling", &["every_ack", "one_per_rtt"])? {
        Some("one_per_rtt") => RttSampling::OnePerRtt,
        _ => RttSampling::EveryAck,
    };
    let full_ack_cwnd = match t.choice("full_ack_cwnd", &["flightsize", "ssthresh"])? {
        Some("ssthresh") => FullAckCwnd::Ssthresh,
        _ => FullAckCwnd::FlightSize,
    };
    let abc_limit = t.u32_in("abc_limit", 1, u32::MAX)?.unwrap_or(1);
    let iss = t.u32_in("iss", 0, u32::MAX)?.unwrap_or(0);
    let max_retransmissions = t.u32_in("max_retransmissions", 1, u32::MAX)?;
    let rescue_retransmission = t.bool("rescue_retransmission")?.unwrap_or(false);
    let rearm_rto_on_retransmit = t.bool("rearm_rto_on_retransmit")?.unwrap_or(false);
    let daass = t.bool("daass")?.unwrap_or(enhanced);
    let daass_n = t.u32_in("daass_segments", 1, u32::MAX)?;
    if daass_n.is_some() && !daass {
        return Err(t.bad("daass_segments", "only with daass = true (the number of segments ACKed at once)"));
    }
    if daass && !delayed_ack {
        return Err(t.bad("daass", "false when delayed_ack = false (DAASS only changes when a delayed-ACK receiver ACKs)"));
    }
    let daass_segments = daass.then(|| daass_n.unwrap_or(10));
    let limited_transmit = t.bool("limited_transmit")?.unwrap_or(enhanced);
    let max_burst = t.u32_in("max_burst", 1, u32::MAX)?;
    let frto = t.bool("frto")?.unwrap_or(false);
    let fack_overdamping = t.bool("fack_overdamping")?.unwrap_or(false);
    let fack_rampdown = t.bool("fack_rampdown")?.unwrap_or(false);
    for key in ["fack_overdamping", "fack_rampdown"] {
        if t.get(key).is_some() && recovery != Recovery::Fack {
            return Err(t.bad(key, "only with recovery = \"fack\" (or variant = \"fack\")"));
        }
    }
    let partial_ack_timer = match t.choice("partial_ack_timer", &["impatient", "slow_but_steady"])? {
        Some("slow_but_steady") => PartialAckTimer::SlowButSteady,
        _ => PartialAckTimer::Impatient,
    };
    let pacing = t.bool("pacing")?.unwrap_or(false);
    let accept_beyond_window = t.bool("accept_beyond_window")?.unwrap_or(adalr_preset);
    Ok(TcpCfg {
        variant: variant.to_string(),
        recovery,
        controller,
        sack,
        mss,
        initial_window,
        rwnd_bytes: rwnd,
        window_scaling,
        initial_ssthresh_bytes: initial_ssthresh,
        delayed_ack,
        delayed_ack_timeout_ns: delayed_ack_timeout,
        delayed_ack_segments,
        dupthresh,
        min_rto_ns: min_rto,
        max_rto_ns: max_rto,
        initial_rto_ns: initial_rto,
        clock_granularity_ns: clock_granularity,
        rtt_sampling,
        full_ack_cwnd,
        abc_limit,
        iss,
        max_retransmissions,
        rescue_retransmission,
        rearm_rto_on_retransmit,
        daass_segments,
        limited_transmit,
        max_burst,
        frto,
        fack_overdamping,
        fack_rampdown,
        partial_ack_timer,
        pacing,
        accept_beyond_window,
    })
}

/// A preset's recovery scheme and window controller: NewReno for the
/// delay- and rate-based controllers of the satellite papers (Vegas,
/// Westwood+, Hybla, as ns-2 and Linux pair them with Reno-style recovery),
/// SACK for CUBIC and BBR (as deployed in Linux).
fn preset_parts(variant: &str) -> (Recovery, &'static str) {
    match variant {
        "sack" | "enhanced" => (Recovery::Sack, "aimd"),
        "tahoe" => (Recovery::Tahoe, "aimd"),
        "reno" => (Recovery::Reno, "aimd"),
        "fack" => (Recovery::Fack, "aimd"),
        "cubic" => (Recovery::Sack, "cubic"),
        "bbr" => (Recovery::Sack, "bbr"),
        "vegas" => (Recovery::NewReno, "vegas"),
        "westwood" => (Recovery::NewReno, "westwood"),
        "hybla" => (Recovery::NewReno, "hybla"),
        "adalr-sack" => (Recovery::Sack, "adalr"),
        "adalr-newreno" => (Recovery::NewReno, "adalr"),
        _ => (Recovery::NewReno, "aimd"),
    }
}

/// Each controller parameter and the controller it belongs to.
const CC_PARAMS: &[(&str, &str)] = &[
    ("vegas_alpha", "vegas"),
    ("vegas_beta", "vegas"),
    ("vegas_gamma", "vegas"),
    ("westwood_filter_gain", "westwood"),
    ("hybla_rtt0", "hybla"),
    ("hybla_rtt", "hybla"),
    ("cubic_c", "cubic"),
    ("cubic_beta", "cubic"),
    ("cubic_fast_convergence", "cubic"),
    ("cubic_hystart", "cubic"),
    ("bbr_cwnd_gain", "bbr"),
    ("bbr_probe_rtt_interval", "bbr"),
    ("bbr_probe_rtt_duration", "bbr"),
    ("adalr_rtt_dev_gain", "adalr"),
    ("adalr_rho_break", "adalr"),
    ("adalr_initial_rho", "adalr"),
    ("adalr_rwnd_boost", "adalr"),
    ("adalr_rho_source", "adalr"),
    ("adalr_boost_check", "adalr"),
    ("adalr_increments", "adalr"),
    ("adalr_ca_gate", "adalr"),
    ("adalr_fr_guard", "adalr"),
    ("adalr_at_ssthresh", "adalr"),
    ("adalr_rto_offset", "adalr"),
    ("adalr_retx_limit", "adalr"),
];

/// A number (integer or float) for which `ok` holds.
fn number(t: &Tbl, key: &str, ok: impl Fn(f64) -> bool, expected: &str) -> Res<Option<f64>> {
    let x = match t.get(key) {
        None => return Ok(None),
        Some(Value::Float(x)) => *x,
        Some(Value::Integer(i)) => *i as f64,
        Some(v) => return Err(type_error(&t.at(key), v, expected)),
    };
    if x.is_finite() && ok(x) {
        Ok(Some(x))
    } else {
        Err(t.bad(key, expected))
    }
}

/// The window controller `cc` and its parameters; a parameter of another
/// controller is an error.
fn parse_controller(t: &Tbl, cc: &str) -> Res<Controller> {
    for &(key, owner) in CC_PARAMS {
        if owner != cc && t.map.contains_key(key) {
            return Err(t.bad(key, format!("a key used only with cc = \"{}\" (this flow's controller is \"{}\")", owner, cc)));
        }
    }
    Ok(match cc {
        "vegas" => {
            let alpha = t.u32_in("vegas_alpha", 0, 1000)?.unwrap_or(1);
            let beta = t.u32_in("vegas_beta", 0, 1000)?.unwrap_or(3);
            if beta < alpha {
                return Err(t.bad(
                    if t.map.contains_key("vegas_beta") { "vegas_beta" } else { "vegas_alpha" },
                    format!("vegas_alpha <= vegas_beta (here {} > {}): Vegas holds between alpha and beta extra segments", alpha, beta),
                ));
            }
            let gamma = t.u32_in("vegas_gamma", 0, 1000)?.unwrap_or(1);
            Controller::Vegas { alpha, beta, gamma }
        }
        "westwood" => Controller::Westwood {
            filter_gain: number(t, "westwood_filter_gain", |x| (0.0..1.0).contains(&x), "a number in [0, 1), e.g. 0.9")?.unwrap_or(0.9),
        },
        "hybla" => Controller::Hybla {
            rtt0_ns: t.duration_pos("hybla_rtt0")?.unwrap_or(25_000_000),
            rho_rtt: match t.choice("hybla_rtt", &["min_srtt", "srtt"])? {
                Some("srtt") => HyblaRtt::Srtt,
                _ => HyblaRtt::MinSrtt,
            },
        },
        "cubic" => Controller::Cubic {
            c: number(t, "cubic_c", |x| x > 0.0 && x <= 100.0, "a number in (0, 100], e.g. 0.4")?.unwrap_or(0.4),
            beta: number(t, "cubic_beta", |x| x > 0.0 && x < 1.0, "a number in (0, 1), e.g. 0.7")?.unwrap_or(0.7),
            fast_convergence: t.bool("cubic_fast_convergence")?.unwrap_or(true),
            hystart: t.bool("cubic_hystart")?.unwrap_or(true),
        },
        "bbr" => {
            let interval = t.duration_pos("bbr_probe_rtt_interval")?.unwrap_or(10_000_000_000);
            let duration = t.duration_pos("bbr_probe_rtt_duration")?.unwrap_or(200_000_000);
            if duration >= interval {
                return Err(t.bad("bbr_probe_rtt_duration", format!("a duration > 0 and shorter than bbr_probe_rtt_interval ({} ns)", interval)));
            }
            Controller::Bbr {
                cwnd_gain: number(t, "bbr_cwnd_gain", |x| (1.0..=16.0).contains(&x), "a number in [1, 16], e.g. 2")?.unwrap_or(2.0),
                probe_rtt_interval_ns: interval,
                probe_rtt_duration_ns: duration,
            }
        }
        "adalr" => Controller::Adalr(parse_adalr(t)?),
        _ => Controller::Aimd,
    })
}

/// TCP-ADaLR's parameters (`tcp/cc/adalr.rs` explains each reading).
fn parse_adalr(t: &Tbl) -> Res<AdalrCfg> {
    let initial_rho = match t.get("adalr_initial_rho") {
        None => AdalrInitialRho::Handshake,
        Some(Value::String(s)) if s == "handshake" => AdalrInitialRho::Handshake,
        Some(_) => AdalrInitialRho::Fixed(
            number(t, "adalr_initial_rho", |x| (1.0..=60.0).contains(&x), "\"handshake\" or a number in [1, 60]")?
                .unwrap_or(1.0),
        ),
    };
    Ok(AdalrCfg {
        rtt_dev_gain: number(t, "adalr_rtt_dev_gain", |x| (0.0..=60.0).contains(&x), "a number in [0, 60], e.g. 0.25")?
            .unwrap_or(0.25),
        rho_break: number(t, "adalr_rho_break", |x| (1.0..=60.0).contains(&x), "a number in [1, 60], e.g. 15")?
            .unwrap_or(15.0),
        initial_rho,
        rho_source: match t.choice("adalr_rho_source", &["sample", "sample_ticks", "rto"])? {
            Some("sample") => AdalrRhoSource::Sample,
            Some("rto") => AdalrRhoSource::Rto,
            _ => AdalrRhoSource::SampleTicks,
        },
        rwnd_boost: match t.choice("adalr_rwnd_boost", &["once", "cumulative"])? {
            Some("cumulative") => AdalrRwndBoost::Cumulative,
            _ => AdalrRwndBoost::Once,
        },
        boost_check_advertised: t.choice("adalr_boost_check", &["increased", "advertised"])? == Some("advertised"),
        increments: match t.choice("adalr_increments", &["fractional", "whole"])? {
            Some("whole") => AdalrIncrements::Whole,
            _ => AdalrIncrements::Fractional,
        },
        ca_gate: match t.choice("adalr_ca_gate", &["literal", "rho"])? {
            Some("rho") => AdalrCaGate::Rho,
            _ => AdalrCaGate::Literal,
        },
        fr_guard: match t.choice("adalr_fr_guard", &["partial", "full"])? {
            Some("full") => AdalrFrGuard::Full,
            _ => AdalrFrGuard::Partial,
        },
        equal_is_slow_start: t.choice("adalr_at_ssthresh", &["avoidance", "slow_start"])? == Some("slow_start"),
        rto_offset_ns: t.duration("adalr_rto_offset")?.unwrap_or(200_000_000),
        retx_limit: match t.u32_in("adalr_retx_limit", 0, u32::MAX)?.unwrap_or(3) {
            0 => None,
            n => Some(n),
        },
    })
}

