//! A flow's `tcp` table: the variant preset, loss recovery, the window
//! controller and its parameters, and the TCP options. The presets, the
//! controllers' names and their keys come from the controller registry
//! (`tcp/cc/mod.rs`); each controller reads its own keys in its own file.

use super::*;
use crate::tcp::cc;
use crate::tcp::ecn::EcnSetting;
use crate::tcp::profile::{self, CwndValidation, Profile, RecoverRule, RtoEstimator, RwndDefault, SackPipe, SsthreshBasis};
use std::sync::OnceLock;

/// Consecutive retransmission timeouts without progress before a
/// connection is aborted, unless `max_retransmissions` says otherwise:
/// Linux's `tcp_retries2`.
pub const DEFAULT_MAX_RETRANSMISSIONS: u32 = 15;

/// The keys every flow's `tcp` table may hold; each registered controller's
/// own keys follow them (`tcp_keys`).
const GENERAL_KEYS: &[&str] = &[
    "profile", "variant", "recovery", "cc", "sack", "mss", "initial_window", "rwnd", "rwnd_autotune", "window_scaling", "initial_ssthresh",
    "delayed_ack", "delayed_ack_timeout", "delayed_ack_segments", "dupthresh", "min_rto", "max_rto", "initial_rto",
    "clock_granularity", "rtt_sampling", "full_ack_cwnd", "abc_limit", "iss", "max_retransmissions",
    "rescue_retransmission", "rearm_rto_on_retransmit", "daass", "daass_segments", "limited_transmit", "max_burst", "frto",
    "fack_overdamping", "fack_rampdown", "partial_ack_timer", "pacing", "accept_beyond_window",
    "cwnd_validation", "handshake", "fin", "ssthresh_basis", "recover_rule", "rto_estimator",
    "rearm_rto_on_fast_retransmit", "sack_pipe", "rto_clears_sack", "exit_opens_cwnd", "delay_duplicate_ack", "fack_style", "rack", "prr", "tlp", "newreno_within_cwnd", "app_limited",
    "timestamps", "options_on_wire", "limited_transmit_style", "partial_window_deflation", "ooo_takes_buffer", "rto_timer",
    "ack_out_of_order", "ecn",
];

/// The general keys, then each controller's, in registry order.
fn tcp_keys() -> &'static [&'static str] {
    static KEYS: OnceLock<Vec<&'static str>> = OnceLock::new();
    KEYS.get_or_init(|| {
        // a key two controllers share (`ca_increment`) is listed once
        let mut keys: Vec<&'static str> = GENERAL_KEYS.to_vec();
        for &k in cc::REGISTRY.iter().flat_map(|e| e.keys) {
            if !keys.contains(&k) {
                keys.push(k);
            }
        }
        keys
    })
}

/// Preset names for `variant`, in registry order.
pub fn variants() -> &'static [&'static str] {
    static NAMES: OnceLock<Vec<&'static str>> = OnceLock::new();
    NAMES.get_or_init(|| cc::REGISTRY.iter().flat_map(|e| e.presets.iter().map(|p| p.name)).collect())
}

/// Controller names for `cc`, in registry order.
fn controllers() -> &'static [&'static str] {
    static NAMES: OnceLock<Vec<&'static str>> = OnceLock::new();
    NAMES.get_or_init(|| cc::REGISTRY.iter().map(|e| e.name).collect())
}

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

/// Most an autotuned receive window opens to: the window share of Linux's
/// default `tcp_rmem[2]` (32 MiB since 6.17; `tcp/receive_buffer.rs`).
pub const AUTOTUNE_MAX: u64 = crate::tcp::receive_buffer::MAX_BUFFER * crate::tcp::receive_buffer::WINDOW_RATIO.0
    / crate::tcp::receive_buffer::WINDOW_RATIO.1;

/// Largest window with window scaling: 65535 * 2^14 (RFC 7323).
const MAX_SCALED_WINDOW: u64 = 65535 << 14;

pub(super) fn parse_tcp(mut t: Tbl) -> Res<TcpCfg> {
    t.only(tcp_keys())?;
    let profile = t.choice("profile", profile::PROFILE_NAMES)?.map_or(Profile::Rfc, |n| {
        Profile::named(n).expect("every name in PROFILE_NAMES is a profile")
    });
    let d = profile.defaults();
    let variant = t.choice("variant", variants())?.unwrap_or(d.variant);
    let (preset, preset_cc) = cc::preset(variant).expect("every name in variants() is a registered preset");
    let recovery = t.choice("recovery", RECOVERIES)?.map_or(preset.recovery, recovery_named);
    let cc_name = t.choice("cc", controllers())?.unwrap_or(preset_cc);
    let controller = if cc_name == preset_cc && !preset.cc_keys.is_empty() {
        // the preset's defaults for its controller's keys the flow left out
        let mut map = t.map.clone();
        for &(k, v) in preset.cc_keys {
            map.entry(k.to_string()).or_insert_with(|| Value::String(v.to_string()));
        }
        parse_controller(&Tbl { path: t.path.clone(), map: &map, allowed: t.allowed }, cc_name, profile)?
    } else {
        parse_controller(&t, cc_name, profile)?
    };
    let needs_sack = matches!(recovery, Recovery::Sack | Recovery::Fack);
    let sack = t.bool("sack")?.unwrap_or(needs_sack || matches!(preset.recovery, Recovery::Sack | Recovery::Fack));
    if needs_sack && !sack {
        let name = if recovery == Recovery::Sack { "sack" } else { "fack" };
        return Err(t.bad(
            "sack",
            format!("true when recovery is \"{name}\" (it needs SACK blocks), or set recovery = \"newreno\""),
        ));
    }
    let mss = t.u32_in("mss", 64, 65495)?.unwrap_or(d.mss);
    let initial_window = match t.get("initial_window") {
        None => preset.initial_window.or(d.initial_window).map_or(InitialWindow::Rfc3390, InitialWindow::Segments),
        Some(Value::String(s)) if s == "rfc3390" => InitialWindow::Rfc3390,
        Some(Value::Integer(i)) if (1..=i64::from(u32::MAX)).contains(i) => InitialWindow::Segments(*i as u32),
        Some(_) => return Err(t.bad("initial_window", "an integer >= 1 (segments) or \"rfc3390\"")),
    };
    let window_scaling = t.bool("window_scaling")?.unwrap_or(true);
    // a size in the linux profile is what Linux's window opens to (a tuned
    // host's tcp_rmem[2]); autotuned unless the application set the
    // buffer (rwnd_autotune = false: SO_RCVBUF)
    let linux = profile == Profile::Linux;
    let autotune = t.bool("rwnd_autotune")?;
    let (rwnd, auto) = match t.get("rwnd") {
        Some(Value::String(s)) if s == "auto" => {
            if autotune == Some(false) {
                return Err(t.bad("rwnd_autotune", "true or left out with rwnd = \"auto\" (autotuning); false goes with a size (a buffer the application set)"));
            }
            (AUTOTUNE_MAX, true)
        }
        Some(_) => match t.size("rwnd") {
            Ok(Some(b)) => (b, autotune.unwrap_or(linux)),
            _ => return Err(t.bad("rwnd", format!("\"auto\" (Linux-style autotuning) or {}", units::SIZE_ALLOWED))),
        },
        None => match d.rwnd {
            RwndDefault::Fixed(b) => (b, autotune.unwrap_or(false)),
            RwndDefault::Segments(n) => (n * u64::from(mss), autotune.unwrap_or(false)),
            RwndDefault::Auto => {
                if autotune == Some(false) {
                    return Err(t.bad("rwnd_autotune", "true or left out unless rwnd gives the buffer's size (false: a buffer the application set)"));
                }
                (AUTOTUNE_MAX, true)
            }
        },
    };
    let rwnd_growth = match (auto, linux) {
        (true, _) => RwndGrowth::LinuxAutotuned,
        (false, true) => RwndGrowth::LinuxLocked,
        (false, false) => RwndGrowth::Fixed,
    };
    // without window scaling a default (or autotuned) window stops at the
    // largest unscaled one, as in any stack
    let rwnd = if window_scaling || t.get("rwnd").is_some_and(|v| v.as_str() != Some("auto")) {
        rwnd
    } else {
        rwnd.min(65535)
    };
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
    let delayed_ack = t.bool("delayed_ack")?.unwrap_or(d.delayed_ack);
    let delayed_ack_timeout = t.duration_pos("delayed_ack_timeout")?.unwrap_or(d.delayed_ack_timeout_ns);
    if delayed_ack_timeout > 1_000_000_000 {
        return Err(t.bad("delayed_ack_timeout", "a duration in (0, 1s] (RFC 1122: at most 500 ms is usual)"));
    }
    let delayed_ack_segments = t.u32_in("delayed_ack_segments", 1, u32::MAX)?.unwrap_or(2);
    let dupthresh = t.u32_in("dupthresh", 1, u32::MAX)?.unwrap_or(3);
    let min_rto = t.duration_pos("min_rto")?.unwrap_or(d.min_rto_ns);
    let max_rto_set = t.duration_pos("max_rto")?;
    let max_rto = max_rto_set.unwrap_or(d.max_rto_ns);
    if max_rto < min_rto {
        return Err(if max_rto_set.is_some() {
            t.bad("max_rto", format!("a duration >= min_rto ({} ns)", min_rto))
        } else {
            t.bad("min_rto", format!("a duration <= max_rto ({} ns by default)", d.max_rto_ns))
        });
    }
    let initial_rto = t.duration_pos("initial_rto")?.unwrap_or(d.initial_rto_ns);
    if initial_rto > max_rto {
        return Err(t.bad("initial_rto", format!("a duration > 0 and <= max_rto ({} ns)", max_rto)));
    }
    let clock_granularity = t.duration("clock_granularity")?.unwrap_or(d.clock_granularity_ns);
    let rtt_sampling = match t.choice("rtt_sampling", &["every_ack", "one_per_rtt"])? {
        Some("one_per_rtt") => RttSampling::OnePerRtt,
        Some(_) => RttSampling::EveryAck,
        None => d.rtt_sampling,
    };
    let full_ack_cwnd = match t.choice("full_ack_cwnd", &["flightsize", "ssthresh"])? {
        Some("ssthresh") => FullAckCwnd::Ssthresh,
        Some(_) => FullAckCwnd::FlightSize,
        None => d.full_ack_cwnd,
    };
    let abc_limit = t.u32_in("abc_limit", 1, u32::MAX)?.unwrap_or(d.abc_limit);
    let iss = t.u32_in("iss", 0, u32::MAX)?.unwrap_or(0);
    // Linux's tcp_retries2 (15 expiries, about 15 minutes): every run ends
    // even over a path that delivers nothing; 0 retries for ever
    let max_retransmissions = match t.u32_in("max_retransmissions", 0, u32::MAX)? {
        Some(0) => None,
        Some(n) => Some(n),
        None => Some(DEFAULT_MAX_RETRANSMISSIONS),
    };
    let rescue_retransmission = t.bool("rescue_retransmission")?.unwrap_or(false);
    // a preset that asks for Linux's SACK recovery (Hybla: its paced sender
    // keeps the queue full through the duplicate ACKs, and RFC 6675 never
    // sees a fast retransmission lost there) gets RACK, PRR and the RTO
    // restarted when the head is resent: PRR sends on the first ACKs of the
    // recovery, RACK finds the lost retransmission when they are SACKed, a
    // round trip after it left, before the restarted RTO; ns-2's agents
    // have none of them
    let linux_sack = preset.linux_sack_recovery && !matches!(profile, Profile::Ns2 | Profile::Ns2_2003);
    let rearm_rto_on_retransmit = t.bool("rearm_rto_on_retransmit")?.unwrap_or(d.rearm_rto_on_retransmit || linux_sack);
    // a profile's quick-ACKs at the start (Linux) are the DAASS mechanism
    let quickack = d.quickack_segments.filter(|_| delayed_ack && !preset.daass && t.get("daass").is_none());
    let daass = t.bool("daass")?.unwrap_or(preset.daass || quickack.is_some());
    let daass_n = t.u32_in("daass_segments", 1, u32::MAX)?.or(quickack.filter(|_| daass));
    if daass_n.is_some() && !daass && quickack.is_none() {
        return Err(t.bad("daass_segments", "only with daass = true (the number of segments ACKed at once)"));
    }
    if daass && !delayed_ack {
        return Err(t.bad("daass", "false when delayed_ack = false (DAASS only changes when a delayed-ACK receiver ACKs)"));
    }
    let daass_segments = daass.then(|| daass_n.unwrap_or(10));
    let limited_transmit = t.bool("limited_transmit")?.unwrap_or(preset.limited_transmit || d.limited_transmit);
    let max_burst = t.u32_in("max_burst", 1, u32::MAX)?;
    let frto = t.bool("frto")?.unwrap_or(d.frto);
    let fack_overdamping = t.bool("fack_overdamping")?.unwrap_or(false);
    let fack_rampdown = t.bool("fack_rampdown")?.unwrap_or(false);
    for key in ["fack_overdamping", "fack_rampdown"] {
        if t.get(key).is_some() && recovery != Recovery::Fack {
            return Err(t.bad(key, "only with recovery = \"fack\" (or variant = \"fack\")"));
        }
    }
    let partial_ack_timer = match t.choice("partial_ack_timer", &["impatient", "slow_but_steady"])? {
        Some("slow_but_steady") => PartialAckTimer::SlowButSteady,
        Some(_) => PartialAckTimer::Impatient,
        None => d.partial_ack_timer,
    };
    // a preset's pacing is its paper's (Hybla); Linux paces no window
    // controller (without the fq qdisc only BBR asks for pacing)
    let pacing = t.bool("pacing")?.unwrap_or(preset.pacing && profile != Profile::Linux);
    let accept_beyond_window = t.bool("accept_beyond_window")?.unwrap_or(preset.accept_beyond_window);
    let cwnd_validation = match t.choice("cwnd_validation", &["off", "linux"])? {
        Some("linux") => CwndValidation::Linux,
        Some(_) => CwndValidation::Off,
        None => d.cwnd_validation,
    };
    let handshake = t.bool("handshake")?.unwrap_or(d.handshake);
    let ecn = match t.bool("ecn")? {
        Some(true) => EcnSetting::On,
        Some(false) => EcnSetting::Off,
        // Linux's net.ipv4.tcp_ecn = 2: a server accepts, a client never asks
        None if profile == Profile::Linux => EcnSetting::Accept,
        None => EcnSetting::Off,
    };
    let fin = t.bool("fin")?.unwrap_or(d.fin);
    let ssthresh_basis = match t.choice("ssthresh_basis", &["flight", "window", "pipe", "cwnd"])? {
        Some("window") => SsthreshBasis::Window,
        Some("cwnd") => SsthreshBasis::Cwnd,
        Some("pipe") => SsthreshBasis::Pipe,
        Some(_) => SsthreshBasis::Flight,
        None => d.rules.ssthresh_basis,
    };
    let recover_rule = match t.choice("recover_rule", &["at", "beyond"])? {
        Some("beyond") => RecoverRule::Beyond,
        Some(_) => RecoverRule::At,
        None => d.rules.recover_rule,
    };
    let rto_estimator = match t.choice("rto_estimator", &["rfc6298", "ns2", "linux"])? {
        Some("ns2") => RtoEstimator::Ns2,
        Some("linux") => RtoEstimator::Linux,
        Some(_) => RtoEstimator::Rfc6298,
        None => d.rules.rto_estimator,
    };
    let sack_pipe = match t.choice("sack_pipe", &["rfc6675", "ns2"])? {
        Some("ns2") => SackPipe::Ns2,
        Some(_) => SackPipe::Rfc6675,
        None => d.rules.sack_pipe,
    };
    let rto_clears_sack = t.bool("rto_clears_sack")?.unwrap_or(d.rules.rto_clears_sack);
    let exit_opens_cwnd = t.bool("exit_opens_cwnd")?.unwrap_or(d.rules.exit_opens_cwnd);
    let delay_duplicate_ack = t.bool("delay_duplicate_ack")?.unwrap_or(d.rules.delay_duplicate_ack);
    let fack_ns2 = match t.choice("fack_style", &["mathis", "ns2"])? {
        Some(v) if recovery != Recovery::Fack => {
            return Err(t.bad("fack_style", format!("\"{v}\" only with recovery = \"fack\" (or variant = \"fack\")")));
        }
        Some(v) => v == "ns2",
        None => d.rules.fack_ns2,
    };
    // ns-2's Agent/TCP/Fack sends nothing on the duplicate ACKs before its
    // fast retransmit (its recv() never calls send_one), whatever
    // singledup_ gives the other agents
    let limited_transmit = match t.get("limited_transmit") {
        None if fack_ns2 && recovery == Recovery::Fack => false,
        _ => limited_transmit,
    };
    let rack = t.bool("rack")?.unwrap_or(d.rack || linux_sack);
    let prr = t.bool("prr")?.unwrap_or(d.prr || linux_sack);
    let tlp = t.bool("tlp")?.unwrap_or(d.tlp);
    let newreno_within_cwnd = t.bool("newreno_within_cwnd")?.unwrap_or(d.newreno_within_cwnd);
    let timestamps = t.bool("timestamps")?.unwrap_or(d.timestamps);
    let app_limited_on_write = match t.choice("app_limited", &["idle", "on_write"])? {
        Some(v) => v == "on_write",
        None => d.app_limited_on_write,
    };
    let lt_resends = match t.choice("limited_transmit_style", &["rfc3042", "ns2"])? {
        Some(v) => v == "ns2",
        None => d.rules.lt_resends,
    };
    let options_on_wire = t.bool("options_on_wire")?.unwrap_or(d.options_on_wire);
    let partial_window_deflation = t.bool("partial_window_deflation")?.unwrap_or(d.partial_window_deflation);
    let ooo_takes_buffer = t.bool("ooo_takes_buffer")?.unwrap_or(d.ooo_takes_buffer);
    let rto_on_ticks = t.choice("rto_timer", &["exact", "ticks"])? == Some("ticks");
    let delay_out_of_order_ack = t.choice("ack_out_of_order", &["immediate", "delayed"])? == Some("delayed");
    let rearm_rto_on_fast_retransmit = t.bool("rearm_rto_on_fast_retransmit")?.unwrap_or(d.rules.rearm_rto_on_fast_retransmit);
    Ok(TcpCfg {
        handshake,
        ecn,
        fin,
        profile,
        variant: variant.to_string(),
        recovery,
        controller,
        sack,
        mss,
        initial_window,
        rwnd_bytes: rwnd,
        rwnd_growth,
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
        cwnd_validation,
        ssthresh_basis,
        recover_rule,
        rto_estimator,
        rearm_rto_on_fast_retransmit,
        sack_pipe,
        rto_clears_sack,
        exit_opens_cwnd,
        delay_duplicate_ack,
        fack_ns2,
        rack,
        prr,
        tlp,
        newreno_within_cwnd,
        app_limited_on_write,
        timestamps,
        options_on_wire,
        lt_resends,
        partial_window_deflation,
        ooo_takes_buffer,
        rto_on_ticks,
        delay_out_of_order_ack,
    })
}

/// The window controller `cc` and its parameters; a parameter of another
/// controller is an error.
fn parse_controller(t: &Tbl, name: &str, profile: Profile) -> Res<Controller> {
    let this = cc::entry(name).expect("every name in controllers() is registered");
    // most tables hold no controller key at all: look at their few keys
    // before checking every registered one
    let foreign = |k: &str| !this.keys.contains(&k) && cc::REGISTRY.iter().any(|e| e.keys.contains(&k));
    if !t.map.keys().any(|k| foreign(k)) {
        return (this.parse)(t, profile);
    }
    for e in cc::REGISTRY {
        for &key in e.keys {
            if !this.keys.contains(&key) && super::lookup(t.map, key).is_some() {
                let owners: Vec<String> =
                    cc::REGISTRY.iter().filter(|o| o.keys.contains(&key)).map(|o| format!("cc = \"{}\"", o.name)).collect();
                let msg = format!("a key used only with {} (this flow's controller is \"{}\")", owners.join(" or "), name);
                return Err(t.bad(key, msg));
            }
        }
    }
    (this.parse)(t, profile)
}

#[cfg(test)]
mod tests {
    use super::*;

    /// The registry's names, presets and keys are what the parser lists:
    /// none twice, no controller key shadowing a general one.
    #[test]
    fn registry_names_presets_and_keys_are_distinct() {
        let distinct = |v: &[&str]| v.iter().enumerate().all(|(i, x)| !v[..i].contains(x));
        assert!(distinct(tcp_keys()), "{:?}", tcp_keys());
        assert!(distinct(variants()) && distinct(controllers()));
        // every controller key is listed, and none is a general key
        for e in cc::REGISTRY {
            for k in e.keys {
                assert!(tcp_keys().contains(k) && !GENERAL_KEYS.contains(k), "{k}");
            }
        }
        assert!(tcp_keys().len() <= GENERAL_KEYS.len() + cc::REGISTRY.iter().map(|e| e.keys.len()).sum::<usize>());
        assert!(variants().contains(&"newreno"), "the default preset is registered");
        for e in cc::REGISTRY {
            assert!(cc::entry(e.name).is_some_and(|f| std::ptr::eq(f, e)));
            for p in e.presets {
                assert_eq!(cc::preset(p.name).map(|(q, name)| (q.name, name)), Some((p.name, e.name)));
            }
        }
    }
}
