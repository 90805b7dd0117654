//! Every output of many runs, one line each, for comparing two builds of
//! the engine (`scripts/compare_outputs.py`): a refactoring must leave
//! every line as it was.
//!
//! `output_digest [--bounded] [--set dotted.path=value ...] PATH ...`: each
//! PATH is a scenario file or a directory of them (read in name order;
//! directories recursively). For each input one line: the input's name, a
//! tab, then either `error <path> = <value>: <allowed>` or the summary
//! JSON (with `wall_s` zeroed) followed by a digest of every time series,
//! page and path column. `--bounded` runs each input as the scenario fuzz
//! target does (a fuzz corpus holds inputs that would run for ever or
//! fill memory: at most 200,000 events, constellations a tenth of that,
//! and inputs over the size caps skipped, marked `skipped`).

use satcp_core::scenario;
use satcp_core::stats::output::RunOutput;
use std::path::{Path, PathBuf};

const EVENT_CAP: u64 = 200_000;
const STEP_WORK: u64 = 1_000_000;

fn main() {
    let mut bounded = false;
    let mut sets = Vec::new();
    let mut paths = Vec::new();
    let mut args = std::env::args().skip(1);
    while let Some(a) = args.next() {
        match a.as_str() {
            "--bounded" => bounded = true,
            "--set" => sets.push(args.next().expect("--set needs dotted.path=value")),
            _ => paths.push(PathBuf::from(a)),
        }
    }
    let mut files = Vec::new();
    for p in &paths {
        collect(p, &mut files);
    }
    for f in files {
        let data = std::fs::read(&f).expect("readable input");
        let line = match std::str::from_utf8(&data) {
            Err(_) => "not utf-8".to_string(),
            Ok(text) => one(text, &sets, f.parent(), bounded),
        };
        println!("{}\t{}", f.display(), line);
    }
}

fn collect(p: &Path, out: &mut Vec<PathBuf>) {
    if p.is_dir() {
        let mut entries: Vec<PathBuf> = std::fs::read_dir(p).expect("readable dir").flatten().map(|e| e.path()).collect();
        entries.sort();
        for e in entries {
            // scenario files, and the fuzz corpus's files (no extension)
            if e.is_dir() || e.extension().is_none_or(|x| x == "toml") {
                collect(&e, out);
            }
        }
    } else {
        out.push(p.to_path_buf());
    }
}

fn one(text: &str, sets: &[String], base: Option<&Path>, bounded: bool) -> String {
    let scn = match scenario::parse_toml_in(text, sets, base) {
        Ok(s) => s,
        Err(e) => return format!("error {e}"),
    };
    let out = if bounded {
        match bounded_run(&scn) {
            Some(o) => o,
            None => return "skipped".to_string(),
        }
    } else {
        match satcp_core::try_run(&scn) {
            Ok(o) => o,
            Err(e) => return format!("io error {e}"),
        }
    };
    describe(out)
}

/// The scenario fuzz target's bounds (`fuzzing/scenario.rs`).
fn bounded_run(scn: &scenario::Scenario) -> Option<RunOutput> {
    let sats: u64 = scn.leo.as_ref().map_or(0, |l| l.shells.iter().map(|s| s.satellites as u64).sum());
    let stations = scn.leo.as_ref().map_or(0, |l| l.stations.len() as u64);
    if scn.flows.len() > 2_000 || scn.links.len() > 20_000 || sats > 5_000 || sats * stations.max(1) > 2_000 {
        return None;
    }
    if let Some(iv) = scn.run.sample_interval_ns {
        let samples = scn.run.stop_ns.map_or(EVENT_CAP, |s| (s / iv).min(EVENT_CAP));
        if samples * (scn.flows.len() + 2 * scn.links.len()) as u64 > 5_000_000 {
            return None;
        }
    }
    if !scn.captures.is_empty() {
        return None; // writes files
    }
    let (cap, every, max_t) = match &scn.leo {
        Some(leo) => {
            let steps = STEP_WORK / (sats + stations).max(1);
            (EVENT_CAP / 10, 16, leo.step_ns.saturating_mul(steps))
        }
        None => (EVENT_CAP, 1024, u64::MAX),
    };
    let mut w = satcp_core::world::World::build(scn);
    let mut seen = 0u64;
    w.run_observed(every, &mut |t| {
        seen += every;
        seen < cap && t <= max_t
    });
    Some(w.into_output())
}

fn describe(mut out: RunOutput) -> String {
    out.summary.wall_s = 0.0;
    let mut h = Fnv::default();
    let fs = &out.flow_series;
    for c in [&fs.time_s, &fs.cwnd_bytes, &fs.ssthresh_bytes, &fs.eff_window_bytes, &fs.flight_bytes, &fs.srtt_s, &fs.rto_s, &fs.rcv_high_bytes, &fs.delivered_bytes, &fs.snd_max_bytes] {
        h.f64s(c);
    }
    h.u32s(&fs.flow);
    let ls = &out.link_series;
    for c in [&ls.time_s, &ls.queue_packets, &ls.queue_bytes, &ls.rate_bps, &ls.bytes_tx, &ls.red_avg_packets] {
        h.f64s(c);
    }
    h.u32s(&ls.link);
    let pg = &out.pages;
    h.u32s(&pg.flow);
    h.u32s(&pg.page);
    for c in [&pg.start_s, &pg.end_s, &pg.response_s] {
        h.f64s(c);
    }
    let ps = &out.path_series;
    h.f64s(&ps.time_s);
    h.f64s(&ps.rtt_s);
    for c in [&ps.pair, &ps.hops, &ps.route] {
        h.u32s(c);
    }
    format!("{} series={:016x} rows={}", out.summary_json(), h.0, fs.time_s.len() + ls.time_s.len())
}

/// FNV-1a over the columns' bits (a change detector, not a checksum).
struct Fnv(u64);

impl Default for Fnv {
    fn default() -> Self {
        Fnv(0xcbf2_9ce4_8422_2325)
    }
}

impl Fnv {
    fn byte(&mut self, b: u8) {
        self.0 ^= b as u64;
        self.0 = self.0.wrapping_mul(0x100_0000_01b3);
    }
    fn f64s(&mut self, v: &[f64]) {
        for x in v {
            x.to_bits().to_le_bytes().into_iter().for_each(|b| self.byte(b));
        }
        self.byte(0xff);
    }
    fn u32s(&mut self, v: &[u32]) {
        for x in v {
            x.to_le_bytes().into_iter().for_each(|b| self.byte(b));
        }
        self.byte(0xfe);
    }
}
