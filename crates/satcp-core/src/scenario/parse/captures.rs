//! `[[captures]]`: pcap files of chosen link directions.

use super::*;

/// `[[captures]]`: pcap files of chosen link directions. `link` is a link's
/// index or name; one file per entry, no file named twice.
pub(super) fn parse_captures(root: &Tbl) -> Res<Vec<CaptureCfg>> {
    let Some(v) = root.get("captures") else { return Ok(Vec::new()) };
    let what = "an array of capture tables ([[captures]] with link, dir, file, snaplen, timestamp)";
    let Value::Array(arr) = v else { return Err(type_error("captures", v, what)) };
    let mut caps: Vec<CaptureCfg> = Vec::new();
    for (i, cv) in arr.iter().enumerate() {
        let mut t = Tbl::new(format!("captures.{}", i), cv, "a capture table ([[captures]])")?;
        t.only(&["link", "dir", "file", "snaplen", "timestamp"])?;
        let link = link_ref(root, &t, "link")?.ok_or_else(|| missing(&t.at("link"), &links_expected(root)))?;
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
        let snaplen = t.u32_in("snaplen", 1, crate::net::capture::pcap::MAX_SNAPLEN)?.unwrap_or(crate::net::capture::pcap::MAX_SNAPLEN);
        let timestamp = match t.choice("timestamp", &["transmit", "accept"])? {
            None | Some("transmit") => CaptureTime::Transmit,
            _ => CaptureTime::Accept,
        };
        caps.push(CaptureCfg { link, dirs, file: file.to_string(), snaplen, timestamp });
    }
    Ok(caps)
}

