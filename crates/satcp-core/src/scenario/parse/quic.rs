//! A flow's `transport = "quic"` and its `quic = { ... }` table (`quic/`,
//! docs/models/quic.md). Every key issue 41 names is read; a value quinn
//! cannot honour (e.g. `pacing = false`) is refused with the reason. The
//! ftp application's `response_end` is taken whole: `"fin"` is the client's
//! read of the response stream to its end (the FIN bit), `"last_ack"` the
//! server's news that the client acknowledged all of it, FIN included
//! (`quic/mod.rs`).

use super::*;

const QUIC_EXPECTED: &str = "an inline table of QUIC settings, e.g. { cc = \"quinn-cubic\" }";
const KEYS: &[&str] = &[
    "cc", "initial_window", "initial_rtt", "stream_window", "connection_window", "crypto", "max_ack_delay", "ack_frequency",
    "variant", "profile", "pacing", "zero_rtt", "careful_resume",
];
/// quinn's own controllers, then satcp's through the adapter
/// (`quic/cc_adapter.rs`: window controllers, and BBR with delivery-rate
/// samples from `quic/rate_sampler.rs`).
const CCS: &[&str] = &["quinn-newreno", "quinn-cubic", "aimd", "cubic", "hybla", "bbr", "bbr3"];
const SATCP_CCS: &[&str] = &["aimd", "cubic", "hybla", "bbr", "bbr3"];
const CAREFUL_RESUME_EXPECTED: &str = "an inline table of the saved path state, e.g. { saved_cwnd = \"200kB\", saved_rtt = \"520ms\" }";
const CAREFUL_RESUME_KEYS: &[&str] = &["saved_cwnd", "saved_rtt"];

/// The keys a `quic` table may hold with satcp controller `cc`: QUIC's own
/// and the controller's (its `tcp` keys), made once per controller.
fn keys_with(cc: &str) -> &'static [&'static str] {
    use std::sync::OnceLock;
    static LISTS: OnceLock<Vec<(&'static str, &'static [&'static str])>> = OnceLock::new();
    let lists = LISTS.get_or_init(|| {
        SATCP_CCS
            .iter()
            .map(|&name| {
                let e = crate::tcp::cc::entry(name).expect("a registered controller");
                let all: Vec<&'static str> = KEYS.iter().chain(e.keys).copied().collect();
                (name, &*Box::leak(all.into_boxed_slice()))
            })
            .collect()
    });
    lists.iter().find(|(n, _)| *n == cc).map_or(KEYS, |(_, k)| k)
}

/// The `quic` table of flow table `t` whose application is `app`.
pub(super) fn parse_quic(t: &Tbl, app: &AppCfg) -> Res<QuicCfg> {
    if t.get("tcp").is_some() {
        return Err(t.bad("tcp", "no tcp table: a QUIC flow takes its settings in quic = { ... }"));
    }
    match app {
        // every `response_end`: its QUIC meaning is in quic/mod.rs
        AppCfg::Ftp(_) | AppCfg::Http(_) => {}
        _ => {
            return Err(t.bad("transport", "\"tcp\" for this application: QUIC flows run the ftp and http applications"));
        }
    }
    let empty = Value::Table(toml::Table::new());
    let mut q = Tbl::new(t.at("quic"), t.get("quic").unwrap_or(&empty), QUIC_EXPECTED)?;
    let cc_name = match lookup(q.map, "cc") {
        Some(Value::String(s)) => s.clone(),
        _ => String::new(),
    };
    if cc_name == "quinn-bbr" || crate::tcp::cc::entry(&cc_name).is_some() && !SATCP_CCS.contains(&cc_name.as_str()) {
        let why = if cc_name == "quinn-bbr" {
            "quinn's BBR seeds its pacing-gain cycle from the operating system, so its runs would not be reproducible"
        } else {
            "the adapter takes window controllers and BBR only so far (this one needs packets, verdicts or options of its own)"
        };
        return Err(q.bad("cc", format!("one of {}: {why}", quoted_list(CCS))));
    }
    let variant_cc = variant(&q, &cc_name)?;
    let cc_name = variant_cc.map_or(cc_name, str::to_string);
    q.only(keys_with(&cc_name))?;
    let profile = profile(&q, &cc_name)?;
    if q.bool("pacing")? == Some(false) {
        // quinn-proto 0.11.19 paces every connection (connection/pacing.rs:
        // a token bucket from the window and the smoothed RTT), no setting
        return Err(q.bad("pacing", "true (or left out): quinn always paces, from the window and the smoothed RTT, and offers no way to stop it"));
    }
    let crypto = match q.choice("crypto", &["null", "tls"])? {
        Some("tls") if cfg!(feature = "tls") => QuicCrypto::Tls,
        Some("tls") => {
            return Err(q.bad("crypto", "\"null\": this satcp was built without real TLS 1.3 (cargo feature `tls` of satcp-core)"));
        }
        _ => QuicCrypto::Null,
    };
    let zero_rtt = q.bool("zero_rtt")?.unwrap_or(false);
    let cc = match q.choice("cc", CCS)?.or(variant_cc) {
        Some("quinn-newreno") => QuicCc::QuinnNewReno,
        Some(name) if SATCP_CCS.contains(&name) => {
            let e = crate::tcp::cc::entry(name).expect("a registered controller");
            let name = SATCP_CCS.iter().find(|n| **n == name).expect("listed");
            let mut c = (e.parse)(&q, profile)?;
            // RFC 9002's NewReno (Appendix B.5) grows by bytes acknowledged
            // in congestion avoidance: AIMD's "bytes", whatever the profile,
            // unless the table says (docs/models/quic.md)
            if let crate::tcp::cc::Controller::Aimd(a) = &mut c {
                if lookup(q.map, "ca_increment").is_none() {
                    (a.exact_ca, a.per_byte) = (true, true);
                }
            }
            QuicCc::Satcp(name, c)
        }
        _ => QuicCc::QuinnCubic,
    };
    const VARINT_MAX: u64 = (1 << 62) - 1;
    let window = |key: &str| -> Res<Option<u64>> {
        let v = q.size_pos(key)?;
        if v.is_some_and(|w| w > VARINT_MAX) {
            return Err(q.bad(key, "a window below 2^62 bytes (a QUIC variable-length integer)"));
        }
        Ok(v)
    };
    let careful_resume = match q.table("careful_resume", CAREFUL_RESUME_EXPECTED)? {
        None => None,
        Some(_) if !matches!(cc, QuicCc::Satcp(..)) => {
            return Err(q.bad("careful_resume", format!("a satcp controller in cc (one of {}): Careful Resume runs over the adapter", quoted_list(SATCP_CCS))));
        }
        Some(mut c) => {
            c.only(CAREFUL_RESUME_KEYS)?;
            let cwnd = c.size_pos("saved_cwnd")?;
            let rtt = c.duration_pos("saved_rtt")?;
            Some(crate::quic::careful_resume::SavedPath {
                cwnd: c.require("saved_cwnd", cwnd, "a positive size in bytes, e.g. \"200kB\"")?,
                rtt_ns: c.require("saved_rtt", rtt, "a positive duration, e.g. \"520ms\"")?,
            })
        }
    };
    Ok(QuicCfg {
        careful_resume,
        cc,
        initial_window: q.size_pos("initial_window")?,
        initial_rtt_ns: q.duration_pos("initial_rtt")?,
        stream_window: window("stream_window")?,
        connection_window: window("connection_window")?,
        crypto,
        ack_frequency: ack_frequency(&q)?,
        zero_rtt,
    })
}

/// `variant` names that are not their controller's `cc` name, with the
/// controller they select on QUIC (`variant` otherwise takes a preset
/// named after its controller: "cubic", "hybla", ...). RFC 9002's own
/// controller is NewReno's window (Appendix B): satcp's "aimd".
const VARIANT_ALIASES: &[(&str, &str)] = &[("newreno", "aimd")];

/// The `variant`s a QUIC flow takes: the aliases, then the presets named
/// after a controller the adapter takes.
fn quic_variants() -> Vec<&'static str> {
    let named = SATCP_CCS.iter().filter(|&&c| crate::tcp::cc::preset(c).is_some_and(|(_, cc)| cc == c));
    VARIANT_ALIASES.iter().map(|(v, _)| *v).chain(named.copied()).collect()
}

/// The satcp controller `variant` selects (None without the key); with
/// `cc` (`cc_name`, "" if absent) too, the two must agree. A `tcp` variant
/// that names a TCP loss-recovery scheme, or a controller the adapter does
/// not take, is refused with the reason.
fn variant(q: &Tbl, cc_name: &str) -> Res<Option<&'static str>> {
    let Some(v) = lookup(q.map, "variant") else { return Ok(None) };
    let allowed = || quoted_list(&quic_variants());
    let Value::String(name) = v else { return Err(q.bad("variant", format!("one of {}", allowed()))) };
    let Some((preset, preset_cc)) = crate::tcp::cc::preset(name) else {
        return Err(q.bad("variant", format!("one of {}", allowed())));
    };
    let named = VARIANT_ALIASES.iter().find(|(a, _)| *a == name.as_str()).map(|(_, c)| *c);
    let cc = match named.or((preset.name == preset_cc).then_some(preset_cc)) {
        Some(cc) if SATCP_CCS.contains(&cc) => cc,
        _ if !SATCP_CCS.contains(&preset_cc) => {
            return Err(q.bad("variant", format!(
                "one of {}: the adapter takes window controllers only so far (this one needs delivery-rate samples, per-packet losses or packets of its own)",
                allowed()
            )));
        }
        _ => {
            // a preset of an adapted controller that adds TCP's recovery
            return Err(q.bad("variant", format!(
                "one of {}: \"{name}\" names a TCP loss-recovery scheme, and QUIC's recovery is always RFC 9002's (\"newreno\" selects RFC 9002's own NewReno window)",
                allowed()
            )));
        }
    };
    if !cc_name.is_empty() && cc_name != cc {
        return Err(q.bad("variant", format!("a variant of the controller cc names, or one of the two left out (variant = \"{name}\" runs cc = \"{cc}\")")));
    }
    Ok(Some(cc))
}

/// `profile`: the defaults satcp's controller `cc_name` takes for the keys
/// the table leaves out (`rfc`, the default, or `linux`: e.g. CUBIC's
/// window and HyStart in Linux's style). The `ns2` profiles describe ns-2's
/// TCP agents, which have no QUIC; quinn's controllers take no profile.
fn profile(q: &Tbl, cc_name: &str) -> Res<crate::tcp::profile::Profile> {
    use crate::tcp::profile::Profile;
    let Some(v) = lookup(q.map, "profile") else { return Ok(Profile::Rfc) };
    if v.as_str().is_some_and(|s| s.starts_with("ns2")) {
        return Err(q.bad("profile", "\"rfc\" or \"linux\": the ns2 profiles are ns-2's TCP agents' defaults, and ns-2 has no QUIC"));
    }
    let p = q.choice("profile", &["rfc", "linux"])?.map_or(Profile::Rfc, |n| Profile::named(n).expect("a profile"));
    if !SATCP_CCS.contains(&cc_name) {
        return Err(q.bad("profile", format!(
            "no profile with quinn's controllers (it sets satcp's controllers' defaults): cc = {} or a variant",
            quoted_list(SATCP_CCS)
        )));
    }
    Ok(p)
}

/// The largest `max_ack_delay` a transport parameter can carry (2^14 ms,
/// RFC 9000 section 18.2): requests are kept within what an endpoint could
/// advertise as its own.
const MAX_ACK_DELAY_NS: u64 = ((1 << 14) - 1) * 1_000_000;

/// `max_ack_delay` and `ack_frequency = { threshold, reordering }`: either
/// turns on the ACK-frequency extension (quinn can only ask the peer for
/// an ACK delay through it; docs/models/quic.md), quinn's defaults for the
/// rest.
fn ack_frequency(q: &Tbl) -> Res<Option<QuicAckFrequency>> {
    let max_ack_delay_ns = match q.duration("max_ack_delay")? {
        Some(d) if !(1_000_000..=MAX_ACK_DELAY_NS).contains(&d) => {
            return Err(q.bad(
                "max_ack_delay",
                "a duration from 1ms (quinn's min_ack_delay, its timer granularity: a peer refuses less) to 16383ms (the transport parameter's limit)",
            ));
        }
        d => d,
    };
    let table = q.table("ack_frequency", "an inline table { threshold = N, reordering = N }")?;
    if table.is_none() && max_ack_delay_ns.is_none() {
        return Ok(None);
    }
    let (mut threshold, mut reordering) = (1, 2);
    if let Some(mut a) = table {
        a.only(&["threshold", "reordering"])?;
        const LIMIT: i64 = (1 << 62) - 1; // a QUIC variable-length integer
        threshold = a.int("threshold", 0, LIMIT)?.map_or(threshold, |v| v as u64);
        reordering = a.int("reordering", 0, LIMIT)?.map_or(reordering, |v| v as u64);
    }
    Ok(Some(QuicAckFrequency { threshold, reordering, max_ack_delay_ns }))
}

#[cfg(test)]
mod tests {
    /// A variant accepted on QUIC selects its controller and nothing
    /// else: no preset among them sets controller keys or an initial
    /// window that `variant` on QUIC would have to carry over (one that
    /// does must be handled before it is accepted here).
    #[test]
    fn quic_variants_carry_no_preset_settings() {
        let names = super::quic_variants();
        assert!(names.starts_with(&["newreno", "cubic", "hybla"]), "{names:?}");
        for v in names {
            let (p, _) = crate::tcp::cc::preset(v).expect("a preset");
            assert!(p.cc_keys.is_empty() && p.initial_window.is_none(), "{v}");
        }
    }
}
