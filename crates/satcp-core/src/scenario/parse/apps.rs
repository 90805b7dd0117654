//! A flow's `app` table: FTP, HTTP, and UDP cross traffic (CBR, on/off).

use super::*;
pub(super) const APP_EXPECTED: &str =
    "an inline table such as { kind = \"ftp\", size = \"50MB\" } or { kind = \"http\", pages = 10 }";

pub(super) fn parse_app(mut t: Tbl) -> Res<AppCfg> {
    t.allowed = &["kind"];
    let kind = t.choice("kind", &["ftp", "http", "cbr", "onoff"])?;
    let kind = t.require("kind", kind, "one of \"ftp\", \"http\", \"cbr\", \"onoff\"")?;
    if kind == "cbr" || kind == "onoff" {
        return parse_udp_app(t, kind);
    }
    if kind == "ftp" {
        t.only(&["kind", "size", "start", "stop", "request", "response_end"])?;
        let response_end = match t.choice("response_end", &["last_byte", "fin", "last_ack"])? {
            Some("fin") => ResponseEnd::Fin,
            Some("last_ack") => ResponseEnd::LastAck,
            _ => ResponseEnd::LastByte,
        };
        let start_ns = t.duration("start")?.unwrap_or(0);
        let stop_ns = t.duration("stop")?;
        if stop_ns.is_some_and(|s| s <= start_ns) {
            return Err(t.bad("stop", format!("a time after start ({} ns)", start_ns)));
        }
        Ok(AppCfg::Ftp(FtpCfg {
            size_bytes: t.size_pos("size")?,
            start_ns,
            stop_ns,
            request_bytes: t.size("request")?.unwrap_or(0),
            response_end,
        }))
    } else {
        t.only(&[
            "kind", "start", "page_interval", "pages", "main_object", "embedded_objects", "embedded_object",
            "request", "pipelining", "first_page",
        ])?;
        Ok(AppCfg::Http(HttpCfg {
            start_ns: t.duration("start")?.unwrap_or(0),
            page_interval_ns: t.duration_pos("page_interval")?.unwrap_or(30_000_000_000),
            pages: t.u32_in("pages", 1, u32::MAX)?,
            main_object_bytes: t.size_pos("main_object")?.unwrap_or(10_710),
            embedded_objects: t.u32_in("embedded_objects", 0, u32::MAX)?.unwrap_or(15),
            embedded_object_bytes: t.size_pos("embedded_object")?.unwrap_or(7_758),
            request_bytes: t.size_pos("request")?.unwrap_or(350),
            pipelining: t.bool("pipelining")?.unwrap_or(false),
            first_page_ns: t.duration("first_page")?.unwrap_or(0),
        }))
    }
}

/// IPv4 + UDP headers: the smallest packet_size.
const UDP_HEADERS: u32 = 28;

fn parse_udp_app(mut t: Tbl, kind: &str) -> Res<AppCfg> {
    const CBR_KEYS: &[&str] = &["kind", "rate", "packet_size", "start", "stop", "jitter", "max_packets"];
    const ONOFF_KEYS: &[&str] =
        &["kind", "dist", "shape", "rate", "packet_size", "mean_on", "mean_off", "start", "stop", "transport"];
    t.only(if kind == "cbr" { CBR_KEYS } else { ONOFF_KEYS })?;
    let rate = t.rate("rate")?;
    let rate_bps = t.require("rate", rate, units::RATE_ALLOWED)?;
    if rate_bps == 0 {
        return Err(t.bad("rate", positive(units::RATE_ALLOWED)));
    }
    let tcp = kind == "onoff" && t.choice("transport", &["udp", "tcp"])? == Some("tcp");
    // over TCP a "packet" is a write of that many bytes
    let packet_bytes = t.u32_in("packet_size", if tcp { 1 } else { UDP_HEADERS + 1 }, 65535)?.unwrap_or(1000);
    let start_ns = t.duration("start")?.unwrap_or(0);
    let stop_ns = t.duration("stop")?;
    if stop_ns.is_some_and(|s| s <= start_ns) {
        return Err(t.bad("stop", format!("a time after start ({} ns)", start_ns)));
    }
    if kind == "cbr" {
        return Ok(AppCfg::Cbr(CbrCfg {
            rate_bps,
            packet_bytes,
            start_ns,
            stop_ns,
            jitter: t.bool("jitter")?.unwrap_or(false),
            max_packets: t.int("max_packets", 1, i64::MAX)?.map(|n| n as u64),
        }));
    }
    let dist = match t.choice("dist", &["exponential", "pareto"])? {
        Some("pareto") => {
            let shape = t.number("shape", |x| x > 1.0, "a number > 1 (a Pareto with shape <= 1 has no mean)")?;
            OnOffDist::Pareto { shape: shape.unwrap_or(1.5) }
        }
        _ => {
            if t.map.contains_key("shape") {
                return Err(t.bad("shape", "shape only goes with dist = \"pareto\""));
            }
            OnOffDist::Exponential
        }
    };
    Ok(AppCfg::OnOff(OnOffCfg {
        dist,
        peak_rate_bps: rate_bps,
        packet_bytes,
        mean_on_ns: t.duration_pos("mean_on")?.unwrap_or(500_000_000),
        mean_off_ns: t.duration_pos("mean_off")?.unwrap_or(500_000_000),
        start_ns,
        stop_ns,
        tcp,
    }))
}

