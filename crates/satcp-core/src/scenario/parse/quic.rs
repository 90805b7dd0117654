//! A flow's `transport = "quic"` and its `quic = { ... }` table (`quic/`,
//! docs/models/quic.md). Only what is implemented is accepted: the keys
//! issue 41 names that are not built yet are refused by name, never read
//! and ignored.

use super::*;

const QUIC_EXPECTED: &str = "an inline table of QUIC settings, e.g. { cc = \"quinn-cubic\" }";
const KEYS: &[&str] = &["cc", "initial_window", "initial_rtt", "stream_window", "connection_window", "crypto", "careful_resume"];
/// Keys of a `quic` table that are planned but not implemented yet.
const NOT_YET: &[&str] = &["variant", "profile", "max_ack_delay", "ack_frequency", "zero_rtt", "pacing"];
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
        AppCfg::Ftp(f) if f.response_end == ResponseEnd::LastByte => {}
        AppCfg::Ftp(_) => {
            let at = Tbl::new(t.at("app"), t.get("app").expect("parsed"), "an application table")?;
            return Err(at.bad("response_end", "\"last_byte\" on a QUIC flow (\"fin\" and \"last_ack\" are not implemented for QUIC yet)"));
        }
        AppCfg::Http(_) => {}
        _ => {
            return Err(t.bad("transport", "\"tcp\" for this application: QUIC flows run the ftp and http applications"));
        }
    }
    let empty = Value::Table(toml::Table::new());
    let mut q = Tbl::new(t.at("quic"), t.get("quic").unwrap_or(&empty), QUIC_EXPECTED)?;
    for k in NOT_YET {
        if lookup(q.map, k).is_some() {
            return Err(q.bad(k, format!("nothing yet: quic.{k} is not implemented (the keys implemented: {})", quoted_list(KEYS))));
        }
    }
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
    q.only(keys_with(&cc_name))?;
    let crypto = match q.choice("crypto", &["null", "tls"])? {
        Some("tls") if cfg!(feature = "tls") => QuicCrypto::Tls,
        Some("tls") => {
            return Err(q.bad("crypto", "\"null\": this satcp was built without real TLS 1.3 (cargo feature `tls` of satcp-core)"));
        }
        _ => QuicCrypto::Null,
    };
    let cc = match q.choice("cc", CCS)? {
        Some("quinn-newreno") => QuicCc::QuinnNewReno,
        Some(name) if SATCP_CCS.contains(&name) => {
            let e = crate::tcp::cc::entry(name).expect("a registered controller");
            let name = SATCP_CCS.iter().find(|n| **n == name).expect("listed");
            QuicCc::Satcp(name, (e.parse)(&q, crate::tcp::profile::Profile::Rfc)?)
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
    })
}
