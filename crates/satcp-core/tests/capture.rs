//! `[[captures]]`: the scenario keys and their errors, and what the engine
//! writes (one record per packet a link direction accepts, in timestamp
//! order, bit-identical across runs). tshark's reading of the files is
//! checked in tests/python/test_pcap.py.

use satcp_core::scenario::*;

/// GEO bent pipe, a 300 KB download, the downlink lossy and with a small
/// queue so that both drop kinds occur; `{captures}` is replaced.
const BASE: &str = r#"
[run]
seed = 4
[nodes]
server = {}
gateway = {}
client = {}
[[links]]
a = "server"
b = "gateway"
rate = "10Mbps"
delay = "5ms"
[[links]]
name = "sat"
a = "gateway"
b = "client"
rate_ab = "2048kbps"
rate_ba = "256kbps"
delay = "250ms"
queue_ab = { kind = "droptail", packets = 5 }
errors_ab = { ber = 3e-7 }
[[flows]]
name = "download"
src = "server"
dst = "client"
tcp = { variant = "sack", initial_window = 4, rwnd = "1MB" }
app = { kind = "ftp", size = "300KB" }
"#;

fn scn(captures: &str) -> Result<Scenario, ScenarioError> {
    parse_toml(&format!("{}{}", BASE, captures), &[])
}

fn err(captures: &str) -> ScenarioError {
    scn(captures).expect_err("expected an error")
}

fn tmp(name: &str) -> String {
    let dir = std::env::temp_dir().join(format!("satcp-capture-test-{}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    dir.join(name).to_str().unwrap().to_string()
}

#[test]
fn keys_resolve() {
    let s = scn("[[captures]]\nlink = \"sat\"\ndir = \"ab\"\nfile = \"a.pcap\"\nsnaplen = 96\ntimestamp = \"accept\"\n\
                 [[captures]]\nlink = 0\nfile = \"b.pcap\"\n")
        .unwrap();
    assert_eq!(
        s.captures,
        vec![
            CaptureCfg { link: 1, dirs: [true, false], file: "a.pcap".into(), snaplen: 96, timestamp: CaptureTime::Accept },
            CaptureCfg { link: 0, dirs: [true, true], file: "b.pcap".into(), snaplen: 262_144, timestamp: CaptureTime::Transmit },
        ]
    );
    assert!(scn("").unwrap().captures.is_empty());
}

#[test]
fn errors_name_the_field() {
    let e = err("[[captures]]\nlink = 2\nfile = \"x\"\n");
    assert_eq!((e.path.as_str(), e.value.as_str()), ("captures.0.link", "2"));
    assert_eq!(e.allowed, "a link index 0..=1 or a link name: \"sat\"");
    let e = err("[[captures]]\nlink = \"up\"\nfile = \"x\"\n");
    assert_eq!((e.path.as_str(), e.value.as_str()), ("captures.0.link", "\"up\""));
    let e = err("[[captures]]\nlink = 1.5\nfile = \"x\"\n");
    assert_eq!(e.path, "captures.0.link");
    assert!(e.allowed.starts_with("expected a link index"), "{}", e.allowed);
    let e = err("[[captures]]\nlink = 1\n");
    assert_eq!(e.path, "captures.0.file");
    assert!(e.allowed.starts_with("missing"), "{}", e.allowed);
    let e = err("[[captures]]\nlink = 1\nfile = \"\"\n");
    assert_eq!((e.path.as_str(), e.allowed.as_str()), ("captures.0.file", "a file path (a non-empty string)"));
    let e = err("[[captures]]\nlink = 1\nfile = \"x\"\ndir = \"up\"\n");
    assert_eq!((e.path.as_str(), e.value.as_str()), ("captures.0.dir", "\"up\""));
    assert_eq!(e.allowed, "one of \"ab\", \"ba\", \"both\"");
    let e = err("[[captures]]\nlink = 1\nfile = \"x\"\nsnaplen = 0\n");
    assert_eq!((e.path.as_str(), e.allowed.as_str()), ("captures.0.snaplen", "an integer in 1..=262144"));
    let e = err("[[captures]]\nlink = 1\nfile = \"x\"\ntimestamp = \"end\"\n");
    assert_eq!(e.allowed, "one of \"transmit\", \"accept\"");
    let e = err("[[captures]]\nlink = 1\nfile = \"x\"\n[[captures]]\nlink = 0\nfile = \"x\"\n");
    assert_eq!((e.path.as_str(), e.value.as_str()), ("captures.1.file", "\"x\""));
    assert_eq!(e.allowed, "a file not written by another capture (captures.0 writes it)");
    let e = err("[[captures]]\nlink = 1\nfile = \"x\"\nport = 1\n");
    assert_eq!(e.path, "captures.0.port");
    let e = parse_toml(&format!("captures = 3\n{}", BASE), &[]).expect_err("captures must be an array");
    assert_eq!(e.path, "captures");
}

#[test]
fn override_reaches_capture_fields() {
    let s = parse_toml(&format!("{}[[captures]]\nlink = 1\nfile = \"x\"\n", BASE), &["captures.0.dir=\"ba\"".to_string()]).unwrap();
    assert_eq!(s.captures[0].dirs, [false, true]);
}

/// Records of a classic ns pcap: (timestamp ns, captured length, original length).
fn records(path: &str) -> Vec<(u64, u32, u32)> {
    let b = std::fs::read(path).unwrap();
    assert_eq!(&b[0..4], &[0x4D, 0x3C, 0xB2, 0xA1]);
    let mut out = Vec::new();
    let mut i = 24;
    let u32_at = |i: usize| u32::from_le_bytes(b[i..i + 4].try_into().unwrap());
    while i < b.len() {
        let t = u32_at(i) as u64 * 1_000_000_000 + u32_at(i + 4) as u64;
        let (incl, orig) = (u32_at(i + 8), u32_at(i + 12));
        out.push((t, incl, orig));
        i += 16 + incl as usize;
    }
    assert_eq!(i, b.len(), "file ends on a record boundary");
    out
}

#[test]
fn one_record_per_accepted_packet_in_time_order() {
    let (sat, up, acc) = (tmp("sat.pcap"), tmp("up.pcap"), tmp("sat_accept.pcap"));
    let s = scn(&format!(
        "[[captures]]\nlink = 1\nfile = \"{sat}\"\nsnaplen = 80\n\
         [[captures]]\nlink = 0\ndir = \"ab\"\nfile = \"{up}\"\n\
         [[captures]]\nlink = 1\nfile = \"{acc}\"\ntimestamp = \"accept\"\n"
    ))
    .unwrap();
    let out = satcp_core::try_run(&s).unwrap();
    let l = &out.summary.links;
    // the scenario exercises both kinds of loss on the downlink
    assert!(l[2].drops.queue > 0 && l[2].drops.errors > 0, "{:?}", l[2].drops);
    let sat_recs = records(&sat);
    // packets_tx counts accepted packets (queue drops excluded, corrupted included)
    assert_eq!(sat_recs.len() as u64, l[2].packets_tx + l[3].packets_tx);
    let frame_bytes: u64 = sat_recs.iter().map(|r| r.2 as u64).sum();
    assert_eq!(frame_bytes, l[2].bytes_tx + l[3].bytes_tx + 14 * (l[2].packets_tx + l[3].packets_tx));
    assert!(sat_recs.iter().all(|r| r.1 == r.2.min(80)));
    assert!(sat_recs.windows(2).all(|w| w[0].0 <= w[1].0), "timestamps never go back");
    let up_recs = records(&up);
    assert_eq!(up_recs.len() as u64, l[0].packets_tx);
    assert!(up_recs.iter().all(|r| r.1 == r.2), "full frames by default");
    // "accept" stamps: same packets, never later than the transmission stamps
    let acc_recs = records(&acc);
    assert_eq!(acc_recs.len(), sat_recs.len());
    assert!(acc_recs.windows(2).all(|w| w[0].0 <= w[1].0));
    let sum = |r: &[(u64, u32, u32)]| r.iter().map(|x| x.0 as u128).sum::<u128>();
    assert!(sum(&acc_recs) < sum(&sat_recs), "queueing delay lies between accept and transmit");
    // the same scenario writes the same bytes; captures do not change results
    let first = std::fs::read(&sat).unwrap();
    let again = satcp_core::try_run(&s).unwrap();
    assert_eq!(std::fs::read(&sat).unwrap(), first);
    assert_eq!(again.summary.events, out.summary.events);
    let plain = satcp_core::run(&scn("").unwrap());
    assert_eq!(plain.summary.events, out.summary.events);
    assert_eq!(plain.summary.flows[0].segments_sent, out.summary.flows[0].segments_sent);
    assert_eq!(plain.summary.flows[0].completion_s, out.summary.flows[0].completion_s);
    std::fs::remove_dir_all(std::path::Path::new(&sat).parent().unwrap()).unwrap();
}

#[test]
fn unwritable_file_is_an_io_error_naming_it() {
    let s = scn("[[captures]]\nlink = 1\nfile = \"/nonexistent-dir/x.pcap\"\n").unwrap();
    let e = satcp_core::try_run(&s).map(|_| ()).unwrap_err();
    assert!(e.to_string().starts_with("capture file /nonexistent-dir/x.pcap:"), "{}", e);
}
