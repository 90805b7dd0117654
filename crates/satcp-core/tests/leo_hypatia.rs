//! Hypatia's conventions in runs: its visibility rule (a satellite just
//! inside and just outside the range), its shared ground-link device (two
//! stations on one satellite share its rate and queue), path-only
//! scenarios and `run.end = "stop"`, determinism. The new keys' bad
//! values are among the others' in `tests/leo_run.rs`. The
//! comparison with Hypatia's own paths is `satcp.crosscheck_hypatia`
//! (`docs/validation-hypatia.md`).

mod common;

use common::run_text;
use satcp_core::leo::frames::{C_KM_S, WGS84_A};
use satcp_core::leo::visibility::Station;
use satcp_core::scenario::parse_toml;
use satcp_core::RunOutput;

/// One satellite on an equatorial orbit at 630 km, over the prime meridian
/// at t = 0 (Walker: a single plane's node on the ECI x axis, which the
/// epoch puts on the prime meridian), no ISLs; stations on the equator at
/// the longitudes given; `gsl` the ground links' table.
fn one_satellite(gsl: &str, stations: &[(&str, f64)], rest: &str) -> String {
    let mut s = format!(
        "[run]\nstop = \"100ms\"\n[[constellations]]\nname = \"s\"\n\
         walker = {{ kind = \"delta\", planes = 1, per_plane = 1, altitude = \"630km\", inclination = 0.0 }}\n\
         isls = \"none\"\ngsl = {gsl}\n"
    );
    for (name, lon) in stations {
        s += &format!("[[ground_stations]]\nname = \"{name}\"\nlat = 0.0\nlon = {lon}\n");
    }
    s + rest
}

/// The longitude (degrees) of an equatorial station at `km` from the
/// satellite at t = 0: the law of cosines in the equatorial plane, the
/// station at the WGS84 equatorial radius, the satellite at 6371 + 630 km.
fn longitude_at(km: f64) -> f64 {
    let (a, r) = (WGS84_A, 6371.0 + 630.0);
    ((a * a + r * r - km * km) / (2.0 * a * r)).acos().to_degrees()
}

fn seen(out: &RunOutput, station: usize) -> bool {
    out.summary.ground_stations[station].steps_without_satellite == 0
}

/// Hypatia's rule for 630 km at 30 degrees: within 630 / sin 30 = 1,260
/// km. An equatorial station at 9.40175 degrees of longitude is 1,260 km
/// from the satellite; 0.0001 degrees either side moves it 10 m in or out.
#[test]
fn hypatia_s_range_takes_a_satellite_just_inside_and_not_just_outside() {
    let edge = longitude_at(1260.0);
    assert!((edge - 9.40175).abs() < 1e-5, "{edge}");
    let path = "[[paths]]\nsrc = \"under\"\ndst = \"edge\"\n";
    for (lon, inside) in [(edge - 1e-4, true), (edge + 1e-4, false)] {
        for gsl in ["{ rate = \"10Mbps\", min_elevation = 30, visibility = \"hypatia\" }", "{ rate = \"10Mbps\", max_range = \"1260km\" }"] {
            let out = run_text(&one_satellite(gsl, &[("under", 0.0), ("edge", lon)], path), &[]);
            assert!(seen(&out, 0), "the station under the satellite sees it");
            assert_eq!(seen(&out, 1), inside, "{gsl} at {lon} degrees");
            let p = &out.summary.paths[0];
            assert_eq!(p.steps_without_path, if inside { 0 } else { 1 });
            if inside {
                // the RTT: twice (under -> satellite -> edge) over c
                let km = (6371.0 + 630.0 - WGS84_A) + (1260.0 - 0.0101);
                assert!((p.min_rtt_s.unwrap() - 2.0 * km / C_KM_S).abs() < 2e-9, "{:?}", p.min_rtt_s);
            }
        }
    }
    // the same satellite is 24.8 degrees above that station's horizon: the
    // geodetic rule at 30 degrees does not take it (a flat Earth's cone is
    // wider than a round one's)
    let e = Station::new(0.0, edge, 0.0).elevation_deg(satcp_core::leo::frames::Vec3::new(7001.0, 0.0, 0.0));
    assert!((e - 24.82).abs() < 0.01, "{e}");
    let out = run_text(&one_satellite("{ rate = \"10Mbps\", min_elevation = 30 }", &[("under", 0.0), ("edge", edge - 1e-4)], path), &[]);
    assert!(!seen(&out, 1));
}

/// Three stations under the satellite: c sends 8 Mb/s of UDP to each of a
/// and b; the satellite's downlinks run at 10 Mb/s. Per link each
/// downlink carries its 8 Mb/s; with Hypatia's device the satellite has
/// one 10 Mb/s transmitter for both, busy without a break from the first
/// packet's arrival (1000 bytes at 100 Mb/s, 80 us, then 622.863 km up,
/// 2.0776 ms) to the stop at 1 s, and its one queue drops the rest.
#[test]
fn two_stations_on_one_satellite_share_its_device() {
    let flows = "[[flows]]\nsrc = \"c\"\ndst = \"a\"\napp = { kind = \"cbr\", rate = \"8Mbps\" }\n\
                 [[flows]]\nsrc = \"c\"\ndst = \"b\"\napp = { kind = \"cbr\", rate = \"8Mbps\" }\n";
    let text = |device: &str| {
        one_satellite(&format!("{{ rate_up = \"100Mbps\", rate_down = \"10Mbps\", max_range = \"1260km\", device = \"{device}\" }}"), &[("a", 1.0), ("b", -1.0), ("c", 0.0)], flows)
            .replace("stop = \"100ms\"", "stop = \"1s\"")
    };
    let down = |o: &RunOutput| -> Vec<(f64, u64)> {
        ["a", "b"].iter().map(|st| o.summary.links.iter().find(|l| l.from == "s-0" && l.to == *st).map(|l| (l.utilization, l.drops.queue)).unwrap()).collect()
    };
    let first_arrival = 80e-6 + (6371.0 + 630.0 - WGS84_A) / C_KM_S;
    let per_link = run_text(&text("per-link"), &[]);
    let shared = run_text(&text("shared"), &[]);
    let (p, s) = (down(&per_link), down(&shared));
    for (u, drops) in &p {
        assert!((u - 0.8 * (1.0 - first_arrival)).abs() < 1e-3, "per link: {p:?}");
        assert_eq!(*drops, 0);
    }
    let busy = s[0].0 + s[1].0;
    assert!((busy - (1.0 - first_arrival)).abs() < 1e-5, "shared: busy {busy}, want {}", 1.0 - first_arrival);
    // which flow a full queue refuses follows the phase of the two CBR
    // trains against the device's departures (here b's, 80 us behind a's,
    // mostly): both get through, not evenly
    assert!(s[0].0 > 0.1 && s[1].0 > 0.1, "{s:?}");
    // offered 2 packets a ms, sent 1.25: about 0.75 a ms dropped, less the
    // 100 the queue ends with
    let dropped = s[0].1 + s[1].1;
    assert!((dropped as f64 - (0.75 * 997.8 - 100.0)).abs() <= 5.0, "{dropped}");
    // delivered: what the device sent and got down to a by the stop (b is
    // as far)
    let (a, r) = (WGS84_A, 6371.0 + 630.0);
    let down_s = (a * a + r * r - 2.0 * a * r * 1f64.to_radians().cos()).sqrt() / C_KM_S;
    let got: u64 = shared.summary.flows.iter().map(|f| f.udp.as_ref().unwrap().bytes_received).sum();
    let want = 10e6 / 8.0 * (1.0 - first_arrival - down_s);
    assert!((got as f64 - want).abs() <= 2000.0, "{got} bytes, want {want}");
    // determinism: same scenario and seed, same bits
    let again = run_text(&text("shared"), &[]);
    assert_eq!(strip(&shared), strip(&again));
}

fn strip(o: &RunOutput) -> String {
    let mut s = o.summary.clone();
    s.wall_s = 0.0;
    serde_json::to_string(&s).unwrap() + &format!("{:?}", o.path_series.rtt_s.iter().map(|x| x.to_bits()).collect::<Vec<_>>())
}

/// The shared shell with a third station, c (40 N, 5 W), and the path b-c.
fn shell() -> String {
    common::leo_shell("shortest-path", "10s") + "[[ground_stations]]\nname = \"c\"\nlat = 40.0\nlon = -5.0\n[[paths]]\nsrc = \"b\"\ndst = \"c\"\n"
}

/// Hypatia's path analysis: stations and paths, no flows; traced at every
/// step to run.stop, one row a step and pair, the same bits every run.
#[test]
fn a_path_only_scenario_runs_to_its_stop() {
    let out = run_text(&shell(), &[]);
    assert_eq!((out.summary.ended_by.as_str(), out.summary.sim_time_s), ("stop", 10.0));
    assert!(out.summary.flows.is_empty());
    let s = &out.path_series;
    assert_eq!(s.time_s.len(), 100 * 2, "steps at 0, 0.1, ... 9.9 s, two pairs each");
    assert_eq!(s.time_s[198], 9.9);
    assert!(s.rtt_s.iter().all(|r| r.is_finite() && *r > 0.0));
    assert_eq!(strip(&out), strip(&run_text(&shell(), &[])));
    // without a stop there is nothing to end it
    let e = parse_toml(&shell().replace("stop = \"10s\"", ""), &[]).unwrap_err();
    assert_eq!(e.path, "run.stop", "{e}");
    // without paths either, a scenario needs flows
    let text = shell();
    let e = parse_toml(&text[..text.find("[[paths]]").unwrap()], &[]).unwrap_err();
    assert_eq!(e.path, "flows", "{e}");
}

/// With `[[paths]]` the run traces them to `run.stop` after a flow that
/// finishes early (the wording; `run.end = "stop"` is the default
/// then), and ends with the flow under `run.end = "flows"`.
#[test]
fn run_end_stop_traces_paths_after_the_flows_are_done() {
    let text = shell() + "[[flows]]\nsrc = \"a\"\ndst = \"b\"\napp = { kind = \"ftp\", size = \"100kB\" }\n";
    let early = run_text(&text, &["run.end=\"flows\""]);
    assert_eq!(early.summary.ended_by, "completed");
    assert!(early.summary.sim_time_s < 2.0, "{}", early.summary.sim_time_s);
    let by_default = run_text(&text, &[]);
    assert_eq!((by_default.summary.ended_by.as_str(), by_default.summary.sim_time_s), ("stop", 10.0));
    let full = run_text(&text, &["run.end=\"stop\""]);
    assert_eq!((full.summary.ended_by.as_str(), full.summary.sim_time_s), ("stop", 10.0));
    assert!(full.summary.flows[0].completed);
    assert_eq!(full.path_series.time_s.len(), 100 * 2);
    // the same transfer (the connection then closes, and its counters
    // go on to the end)
    let (a, b) = (&early.summary.flows[0], &full.summary.flows[0]);
    assert_eq!((a.completion_s, a.segments_sent, a.bytes_delivered), (b.completion_s, b.segments_sent, b.bytes_delivered));
    assert!(a.fin_done_at_s.is_none() && b.fin_done_at_s.is_some());
    let e = parse_toml(&text.replace("stop = \"10s\"", ""), &["run.end=\"stop\"".into()]).unwrap_err();
    assert_eq!(e.path, "run.stop", "{e}");
}

/// Hypatia's rule takes a Walker shell's altitude: a TLE set has none
/// (the other keys' bad values: `tests/leo_run.rs`).
#[test]
fn hypatia_s_rule_needs_a_walker_altitude() {
    let tle = std::fs::read_to_string(common::repo_root().join("crates/satcp-core/tests/data/tle/verification.tle")).unwrap();
    let text = shell()
        .replace("walker = { kind = \"delta\", planes = 12, per_plane = 12, altitude = \"1000km\", inclination = 55.0, phasing = 1 }", &format!("tle = '''{tle}'''\nisls = \"none\""))
        .replace("min_elevation = 20", "min_elevation = 20, visibility = \"hypatia\"");
    let e = parse_toml(&text, &[]).unwrap_err();
    assert_eq!(e.path, "constellations.0.gsl.visibility", "{e}");
    assert!(e.allowed.contains("max_range"), "{e}");
}
