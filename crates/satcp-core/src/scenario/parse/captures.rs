//! `[[captures]]`: pcap files of chosen link directions.

use super::*;
/// `[[captures]]`: pcap files of chosen link directions. `link` is a link's
/// index or name; one file per entry, no file named twice.
pub(super) fn parse_captures(root: &Tbl) -> Res<Vec<CaptureCfg>> {
    let Some(v) = root.get("captures") else { return Ok(Vec::new()) };
    let what = "an array of capture tables ([[captures]] with link, dir, file, snaplen, timestamp)";
    let Value::Array(arr) = v else { return Err(type_error("captures", v, what)) };
    // Link names as written (links were validated before).
    let link_names: Vec<Option<&str>> = match root.get("links") {
        Some(Value::Array(ls)) => ls.iter().map(|l| l.get("name").and_then(Value::as_str)).collect(),
        _ => Vec::new(),
    };
    let mut caps: Vec<CaptureCfg> = Vec::new();
    for (i, cv) in arr.iter().enumerate() {
        let mut t = Tbl::new(format!("captures.{}", i), cv, "a capture table ([[captures]])")?;
        t.only(&["link", "dir", "file", "snaplen", "timestamp"])?;
        let n = link_names.len();
        let named: Vec<String> = link_names.iter().flatten().map(|s| format!("\"{}\"", s)).collect();
        let link_expected = if named.is_empty() {
            format!("a link index 0..={}", n - 1)
        } else {
            format!("a link index 0..={} or a link name: {}", n - 1, named.join(", "))
        };
        let link = match t.get("link") {
            None => return Err(missing(&t.at("link"), &link_expected)),
            Some(Value::Integer(k)) if (0..n as i64).contains(k) => *k as usize,
            Some(Value::String(s)) => {
                link_names.iter().position(|l| *l == Some(s.as_str())).ok_or_else(|| t.bad("link", &link_expected))?
            }
            Some(Value::Integer(_)) => return Err(t.bad("link", link_expected)),
            Some(other) => return Err(type_error(&t.at("link"), other, &link_expected)),
        };
        let dirs = match t.choice("dir", &["ab", "ba", "both"])? {
            None | Some("both") => [true, true],
            Some("ab") => [true, false],
            _ => [false, true],
        };
        let file = t.require("file", t.str("file")?, "a file path (a non-empty string)")?;
        if file.is_empty() {
            return Err(t.bad("file", "a file path (a non-empty string)"));
        }
        if let Some(j) = caps.iter().position(|c| c.file == file) {
            return Err(t.bad("file", format!("a file not written by another capture (captures.{} writes it)", j)));
        }
        let snaplen = t.u32_in("snaplen", 1, crate::net::pcap::MAX_SNAPLEN)?.unwrap_or(crate::net::pcap::MAX_SNAPLEN);
        let timestamp = match t.choice("timestamp", &["transmit", "accept"])? {
            None | Some("transmit") => CaptureTime::Transmit,
            _ => CaptureTime::Accept,
        };
        caps.push(CaptureCfg { link, dirs, file: file.to_string(), snaplen, timestamp });
    }
    Ok(caps)
}

