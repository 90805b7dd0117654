//! Constellations in runs: the issue's scenario as written, attachment
//! policies checked against the geometry, delivery across handovers on
//! random small constellations (with Hypatia's device and rule or not), determinism, a station that sees nothing,
//! GEO and LEO side by side, and bad input.

mod common;

use common::{run_file, run_text};
use proptest::prelude::*;
use satcp_core::leo::frames::C_KM_S;
use satcp_core::leo::visibility::Station;
use satcp_core::leo::walker::{WalkerKind, WalkerShell};
use satcp_core::scenario::parse_toml;
use satcp_core::RunOutput;

/// Great-circle distance (km) on the mean sphere.
fn great_circle_km(a: (f64, f64), b: (f64, f64)) -> f64 {
    let (la, lb) = (a.0.to_radians(), b.0.to_radians());
    let dl = (b.1 - a.1).to_radians();
    let c = la.sin() * lb.sin() + la.cos() * lb.cos() * dl.cos();
    6371.0 * c.clamp(-1.0, 1.0).acos()
}

#[test]
fn the_issue_scenario_runs_as_written() {
    let scn = parse_toml(&std::fs::read_to_string(common::repo_root().join("scenarios/leo/starlink-paris-new-york.toml")).unwrap(), &[]).unwrap();
    assert_eq!(scn.nodes.iter().filter(|n| n.name.starts_with("starlink-")).count(), 1584);
    assert!(scn.nodes.iter().any(|n| n.name == "starlink-1583"));
    assert_eq!(scn.links.len(), 3168, "+Grid: two links a satellite");
    let out = run_file("leo/starlink-paris-new-york.toml", &[]);
    let f = &out.summary.flows[0];
    assert!(f.completed && f.bytes_delivered == 100_000_000, "{f:?}");
    let p = &out.summary.paths[0];
    // no path beats light along the ground; the ISL detour stays modest
    let bound = 2.0 * great_circle_km((48.8566, 2.3522), (40.7128, -74.0060)) / C_KM_S;
    let (lo, hi) = (p.min_rtt_s.unwrap(), p.max_rtt_s.unwrap());
    assert!(lo > bound && hi < 1.4 * bound, "RTT {lo}..{hi} against the great-circle bound {bound}");
    // the series: one row a step; each RTT is twice the light time along
    // the path it names, recomputed here from the orbits and the stations
    let s = &out.path_series;
    assert_eq!(s.time_s.len() as u64, (out.summary.sim_time_s / 0.1).floor() as u64 + 1);
    let starlink = WalkerShell { kind: WalkerKind::Delta, planes: 72, per_plane: 22, altitude_km: 550.0, inclination_deg: 53.0, phasing: 1 };
    let place = |name: &str, t: f64| match name {
        "paris" => Station::new(48.8566, 2.3522, 0.0).pos,
        "new-york" => Station::new(40.7128, -74.0060, 0.0).pos,
        sat => starlink.ecef(sat.trim_start_matches("starlink-").parse().unwrap(), t),
    };
    for i in 0..s.time_s.len() {
        let nodes: Vec<&str> = p.routes[s.route[i] as usize].split(' ').collect();
        assert_eq!(s.hops[i] as usize, nodes.len() - 1);
        let km: f64 = nodes.windows(2).map(|w| place(w[0], s.time_s[i]).dist(place(w[1], s.time_s[i]))).sum();
        let want = 2.0 * km / C_KM_S;
        assert!((s.rtt_s[i] - want).abs() < 2e-9 * nodes.len() as f64, "step {i}: {} s against {want} s", s.rtt_s[i]);
    }
    assert!(f.final_srtt_s.unwrap() >= lo);
}

const SHELL: WalkerShell =
    WalkerShell { kind: WalkerKind::Delta, planes: 12, per_plane: 12, altitude_km: 1000.0, inclination_deg: 55.0, phasing: 1 };

fn shell_scenario(attach: &str, stop: &str, extra: &str) -> String {
    common::leo_shell(attach, stop) + "[[flows]]\nname = \"f\"\nsrc = \"a\"\ndst = \"b\"\napp = { kind = \"ftp\", size = \"400kB\" }\n" + extra
}

/// The satellite a station's traced path starts with at each step.
fn first_sats(out: &RunOutput) -> Vec<(f64, u32)> {
    let p = &out.summary.paths[0];
    let s = &out.path_series;
    (0..s.time_s.len())
        .filter(|&i| s.route[i] != u32::MAX)
        .map(|i| {
            let nodes: Vec<&str> = p.routes[s.route[i] as usize].split(' ').collect();
            (s.time_s[i], nodes[1].trim_start_matches("s-").parse().unwrap())
        })
        .collect()
}

#[test]
fn nearest_attaches_to_the_nearest_satellite_in_view() {
    let out = run_text(&shell_scenario("nearest", "600s", "").replace("size = \"400kB\"", "size = \"1GB\""), &[]);
    let a = Station::new(35.0, 10.0, 0.0);
    let firsts = first_sats(&out);
    assert!(firsts.len() > 3000, "{}", firsts.len());
    for &(t, k) in &firsts {
        let nearest = (0..SHELL.satellites())
            .filter(|&j| a.elevation_deg(SHELL.ecef(j, t)) >= 20.0)
            .min_by(|&i, &j| a.pos.dist(SHELL.ecef(i, t)).total_cmp(&a.pos.dist(SHELL.ecef(j, t))))
            .unwrap();
        assert_eq!(k, nearest, "at {t} s");
    }
    let g = &out.summary.ground_stations[0];
    assert!(g.handovers >= 2, "{g:?}");
    assert_eq!(g.handovers as usize, g.handover_times_s.len());
}

#[test]
fn reassignments_happen_at_the_epochs_or_when_the_satellite_leaves_view() {
    let out = run_text(&shell_scenario("reassign-15s", "600s", "").replace("size = \"400kB\"", "size = \"1GB\""), &[]);
    let a = Station::new(35.0, 10.0, 0.0);
    let firsts = first_sats(&out);
    let mut at_epochs = 0;
    for w in firsts.windows(2) {
        let ((_, before), (t, after)) = (w[0], w[1]);
        if before == after {
            continue;
        }
        let epoch = ((t.round() as u64) % 60) % 15 == 12 && (t - t.round()).abs() < 1e-9;
        let left = a.elevation_deg(SHELL.ecef(before, t)) < 20.0;
        assert!(epoch || left, "moved from {before} to {after} at {t} s");
        at_epochs += epoch as u32;
    }
    assert!(at_epochs >= 1, "{at_epochs}");
    for &t in &out.summary.ground_stations[0].handover_times_s {
        assert!(t > 0.0);
    }
}

#[test]
fn longest_visible_keeps_its_satellite_while_in_view() {
    let out = run_text(&shell_scenario("longest-visible", "600s", "").replace("size = \"400kB\"", "size = \"1GB\""), &[]);
    let a = Station::new(35.0, 10.0, 0.0);
    for w in first_sats(&out).windows(2) {
        let ((_, before), (t, after)) = (w[0], w[1]);
        if before != after {
            assert!(a.elevation_deg(SHELL.ecef(before, t)) < 20.0, "left {before} for {after} at {t} s while in view");
        }
    }
}

#[test]
fn a_station_that_sees_no_satellite_gets_no_route_and_the_run_ends() {
    // 80 degrees north, a 55-degree shell at 1000 km: never in view at 20
    // degrees of elevation
    let text = shell_scenario("shortest-path", "120s", "").replace("lat = 35.0", "lat = 80.0");
    // (run.end = "flows": the flow's end ends the run, its path traced
    // until then; by default a path is traced to run.stop)
    let out = run_text(&text, &["flows.f.tcp.max_retransmissions=4", "run.end=\"flows\""]);
    let g = &out.summary.ground_stations[0];
    assert_eq!(g.steps_without_satellite, out.path_series.time_s.len() as u64);
    assert_eq!(g.links_up, 0);
    let f = &out.summary.flows[0];
    assert!(f.aborted && f.bytes_delivered == 0, "{f:?}");
    assert_eq!(out.summary.ended_by, "aborted");
    assert!(out.summary.nodes.iter().any(|n| n.drops_no_route > 0));
    assert_eq!(out.summary.paths[0].steps_without_path, out.path_series.time_s.len() as u64);
}

#[test]
fn same_scenario_and_seed_same_bits() {
    let text = shell_scenario("reassign-15s", "200s", "").replace("400kB", "20MB");
    let a = run_text(&text, &["constellations.0.gsl.handover=\"lost\""]);
    let b = run_text(&text, &["constellations.0.gsl.handover=\"lost\""]);
    let strip = |o: &RunOutput| {
        let mut s = o.summary.clone();
        s.wall_s = 0.0;
        serde_json::to_string(&s).unwrap()
    };
    assert_eq!(strip(&a), strip(&b));
    assert_eq!(a.path_series.rtt_s.iter().map(|x| x.to_bits()).collect::<Vec<_>>(), b.path_series.rtt_s.iter().map(|x| x.to_bits()).collect::<Vec<_>>());
    assert!(a.summary.flows[0].retransmissions > 0, "handovers cost something");
}

#[test]
fn handover_losses_follow_the_scenario() {
    let text = shell_scenario("reassign-15s", "200s", "").replace("400kB", "200MB");
    let lost = run_text(&text, &[]);
    let kept = run_text(&text, &["constellations.0.gsl.handover=\"delivered\""]);
    let down = |o: &RunOutput| o.summary.links.iter().map(|l| l.drops.down).sum::<u64>();
    assert!(down(&lost) > 0, "packets on a link that went away are lost");
    assert_eq!(down(&kept), 0, "delivered: nothing lost to a handover");
}

#[test]
fn geo_and_leo_in_one_run() {
    let out = run_file("leo/leo-vs-geo.toml", &["run.stop=120s"]);
    let by = |n: &str| out.summary.flows.iter().find(|f| f.name == n).unwrap().clone();
    let (leo, geo) = (by("over-leo"), by("over-geo"));
    assert!(leo.completed && geo.completed, "{leo:?} {geo:?}");
    assert!(geo.final_srtt_s.unwrap() > 0.5 && leo.final_srtt_s.unwrap() < 0.1);
    assert!(leo.completion_s.unwrap() < geo.completion_s.unwrap());
}

// ---------------------------------------------------------------------------
// Random small constellations: every byte delivered once, in order, across
// handovers and route changes.

#[derive(Debug, Clone)]
struct Case {
    star: bool,
    planes: u32,
    per_plane: u32,
    altitude: u32,
    inclination: f64,
    step_ms: u32,
    attach: &'static str,
    handover: &'static str,
    /// Hypatia's shared ground-link devices; Hypatia's range rule.
    hypatia: (bool, bool),
    stations: Vec<(f64, f64)>,
    flows: Vec<(usize, usize, u32, &'static str)>,
    seed: u64,
}

fn case() -> impl Strategy<Value = Case> {
    (
        any::<bool>(),
        3u32..8,
        4u32..12,
        500u32..2000,
        40.0f64..100.0,
        prop_oneof![Just(50u32), Just(100), Just(500)],
        prop_oneof![Just("shortest-path"), Just("nearest"), Just("longest-visible"), Just("reassign-15s")],
        prop_oneof![Just("lost"), Just("delivered")],
        (any::<bool>(), any::<bool>()),
        prop::collection::vec((-50.0f64..50.0, -180.0f64..180.0), 2..4),
        prop::collection::vec((0usize..4, 0usize..4, 20u32..2000, prop_oneof![Just("newreno"), Just("sack"), Just("cubic"), Just("bbr")]), 1..4),
        0u64..1000,
    )
        .prop_map(|(star, planes, per_plane, altitude, inclination, step_ms, attach, handover, hypatia, stations, flows, seed)| {
            let n = stations.len();
            let flows = flows.into_iter().map(|(a, b, kb, v)| (a % n, (a % n + 1 + b % (n - 1)) % n, kb, v)).collect();
            Case { star, planes, per_plane, altitude, inclination, step_ms, attach, handover, hypatia, stations, flows, seed }
        })
}

fn case_toml(c: &Case) -> String {
    let mut t = format!(
        "[run]\nseed = {}\nstop = \"200s\"\ntopology_step = \"{}ms\"\n[[constellations]]\nname = \"c\"\nwalker = {{ kind = \"{}\", planes = {}, per_plane = {}, altitude = \"{}km\", inclination = {}, phasing = 1 }}\nisl = {{ rate = \"50Mbps\", queue = {{ packets = 30 }} }}\ngsl = {{ rate = \"10Mbps\", min_elevation = 10, handover = \"{}\", device = \"{}\", visibility = \"{}\" }}\nattach = \"{}\"\n",
        c.seed,
        c.step_ms,
        if c.star { "star" } else { "delta" },
        c.planes,
        c.per_plane,
        c.altitude,
        c.inclination,
        c.handover,
        if c.hypatia.0 { "shared" } else { "per-link" },
        if c.hypatia.1 { "hypatia" } else { "elevation" },
        c.attach
    );
    for (i, (lat, lon)) in c.stations.iter().enumerate() {
        t += &format!("[[ground_stations]]\nname = \"g{i}\"\nlat = {lat}\nlon = {lon}\n");
    }
    for (i, (a, b, kb, v)) in c.flows.iter().enumerate() {
        t += &format!(
            "[[flows]]\nname = \"f{i}\"\nsrc = \"g{a}\"\ndst = \"g{b}\"\ntcp = {{ variant = \"{v}\", max_retransmissions = 0 }}\napp = {{ kind = \"ftp\", size = \"{kb}kB\" }}\n"
        );
    }
    t
}

proptest! {
    #![proptest_config(ProptestConfig { cases: 32, failure_persistence: None, .. ProptestConfig::default() })]

    #[test]
    fn every_byte_arrives_once_in_order_across_handovers(c in case()) {
        let text = case_toml(&c);
        let out = run_text(&text, &[]);
        for (f, spec) in out.summary.flows.iter().zip(&c.flows) {
            let size = spec.2 as u64 * 1000;
            prop_assert_eq!(f.integrity_errors, 0, "{}", text);
            prop_assert!(f.bytes_delivered <= size, "{}", text);
            if f.completed {
                prop_assert_eq!(f.bytes_delivered, size, "{}", text);
            }
        }
        let mut device_busy = std::collections::BTreeMap::new();
        for l in &out.summary.links {
            prop_assert!(l.bytes_ok <= l.bytes_tx, "{:?}", l);
            prop_assert!(l.utilization <= 1.0 + 1e-9);
            if l.from.starts_with('g') || l.to.starts_with('g') {
                *device_busy.entry(l.from.clone()).or_insert(0.0) += l.utilization;
            }
        }
        // a shared device's directions take turns on its one transmitter
        if c.hypatia.0 {
            prop_assert!(device_busy.values().all(|&u| u <= 1.0 + 1e-9), "{:?}", device_busy);
        }
    }
}

// ---------------------------------------------------------------------------
// Bad input names the field and what is allowed.

#[test]
fn bad_constellation_keys_name_the_field() {
    let base = shell_scenario("nearest", "10s", "");
    let cases: &[(&str, &str)] = &[
        ("constellations.0.walker.planes=0", "constellations.0.walker.planes"),
        ("constellations.0.walker.altitude=\"5 parsecs\"", "constellations.0.walker.altitude"),
        ("constellations.0.walker.inclination=200", "constellations.0.walker.inclination"),
        ("constellations.0.walker.phasing=12", "constellations.0.walker.phasing"),
        ("constellations.0.attach=\"closest\"", "constellations.0.attach"),
        ("constellations.0.isls=[[0, 0]]", "constellations.0.isls.0"),
        ("constellations.0.isls=[[0, 144]]", "constellations.0.isls.0"),
        ("constellations.0.isls=\"mesh\"", "constellations.0.isls"),
        ("constellations.0.gsl.min_elevation=95", "constellations.0.gsl.min_elevation"),
        ("constellations.0.gsl.handover=\"dropped\"", "constellations.0.gsl.handover"),
        ("constellations.0.gsl.queue={kind=\"priority\"}", "constellations.0.gsl.queue"),
        ("constellations.0.isl.max_range=\"-3km\"", "constellations.0.isl.max_range"),
        ("constellations.0.cross_seam=true", "constellations.0.cross_seam"),
        ("constellations.0.reassign_offset=\"75s\"", "constellations.0.reassign_offset"),
        ("constellations.0.tle=\"x\"", "constellations.0.walker"),
        ("ground_stations.0.lat=91", "ground_stations.0.lat"),
        ("ground_stations.1.name=\"a\"", "ground_stations.1.name"),
        ("ground_stations.0.colour=\"red\"", "ground_stations.0.colour"),
        // a station named as one of the shell's satellites
        ("ground_stations.0.name=\"s-3\"", "constellations.0.name"),
        ("paths.0.src=\"nowhere\"", "paths.0.src"),
        ("run.topology_step=\"0.5ms\"", "run.topology_step"),
        ("run.epoch=\"yesterday\"", "run.epoch"),
        // Hypatia's rule and device (`tests/leo_hypatia.rs`)
        ("constellations.0.gsl.max_range=0", "constellations.0.gsl.max_range"),
        ("constellations.0.gsl.max_range=\"far\"", "constellations.0.gsl.max_range"),
        // a range replaces the elevation rule: both would leave one unused
        ("constellations.0.gsl.max_range=\"1000km\"", "constellations.0.gsl.min_elevation"),
        ("constellations.0.gsl.visibility=\"line-of-sight\"", "constellations.0.gsl.visibility"),
        ("constellations.0.gsl.visibility=\"range\"", "constellations.0.gsl.max_range"),
        ("constellations.0.gsl={rate=\"1Mbps\", visibility=\"hypatia\", max_range=\"1km\"}", "constellations.0.gsl.max_range"),
        ("constellations.0.gsl={rate=\"1Mbps\", visibility=\"elevation\", max_range=\"1km\"}", "constellations.0.gsl.max_range"),
        ("constellations.0.gsl={rate=\"1Mbps\", visibility=\"hypatia\", min_elevation=0}", "constellations.0.gsl.min_elevation"),
        ("constellations.0.gsl.device=\"pooled\"", "constellations.0.gsl.device"),
        ("constellations.0.gsl={rate=\"1Mbps\", device=\"shared\", queue={kind=\"red\"}}", "constellations.0.gsl.queue"),
        ("run.end=\"never\"", "run.end"),
    ];
    for (set, field) in cases {
        let e = parse_toml(&base, &[set.to_string()]).expect_err(set);
        assert_eq!(e.path, *field, "{set}: {e}");
        assert!(!e.allowed.is_empty(), "{set}: {e}");
    }
    let e = parse_toml(&base.replace("isl = { rate = \"100Mbps\" }", ""), &[]).unwrap_err();
    assert_eq!(e.path, "constellations.0.isl");
    let e = parse_toml(&base.replace("gsl = { rate = \"20Mbps\", min_elevation = 20 }", ""), &[]).unwrap_err();
    assert_eq!(e.path, "constellations.0.gsl");
}

#[test]
fn tle_sets_run_and_are_checked() {
    let tle = std::fs::read_to_string(common::repo_root().join("crates/satcp-core/tests/data/tle/verification.tle")).unwrap();
    let text = format!(
        "[run]\nstop = \"5s\"\n[[constellations]]\nname = \"v\"\ntle = \"\"\"\n{tle}\"\"\"\nisls = \"none\"\ngsl = {{ rate = \"10Mbps\", min_elevation = 0 }}\n[[ground_stations]]\nname = \"a\"\nlat = 0.0\nlon = 0.0\n[[ground_stations]]\nname = \"b\"\nlat = 10.0\nlon = 10.0\n[[flows]]\nsrc = \"a\"\ndst = \"b\"\napp = {{ kind = \"ftp\", size = \"10kB\" }}\n"
    );
    let scn = parse_toml(&text, &[]).unwrap();
    let leo = scn.leo.as_ref().unwrap();
    assert!(leo.epoch.is_some(), "the epoch defaults to the latest TLE epoch");
    run_text(&text, &[]);
    let e = parse_toml(&text.replace("isls = \"none\"", "isls = \"plus-grid\""), &[]).unwrap_err();
    assert_eq!(e.path, "constellations.0.isls");
    let e = parse_toml(&text.replace("isls = \"none\"\n", ""), &[]).unwrap_err();
    assert_eq!(e.path, "constellations.0.isls");
    // a corrupted checksum digit
    let bad = text.replacen("1 ", "1 ", 1).replacen(" 4753", " 4754", 1);
    if bad != text {
        let e = parse_toml(&bad, &[]).unwrap_err();
        assert_eq!(e.path, "constellations.0.tle", "{e}");
    }
}

#[test]
fn two_shells_and_a_tle_file_in_one_scenario() {
    let dir = std::env::temp_dir().join(format!("satcp-leo-{}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    let tle = std::fs::read_to_string(common::repo_root().join("crates/satcp-core/tests/data/tle/verification.tle")).unwrap();
    std::fs::write(dir.join("sats.tle"), tle).unwrap();
    let text = shell_scenario("nearest", "60s", "").replace(
        "[[ground_stations]]\nname = \"a\"",
        "[[constellations]]\nname = \"high\"\nwalker = { kind = \"star\", planes = 4, per_plane = 6, altitude = \"1200km\", inclination = 87.0 }\ncross_seam = true\nisl = { rate = \"100Mbps\" }\ngsl = { rate = \"20Mbps\" }\n[[constellations]]\nname = \"old\"\ntle_file = \"sats.tle\"\nisls = \"none\"\ngsl = { rate = \"1Mbps\", min_elevation = 10 }\n[[ground_stations]]\nname = \"a\"",
    );
    let scn = satcp_core::scenario::parse_toml_in(&text, &[], Some(&dir)).unwrap();
    let leo = scn.leo.as_ref().unwrap();
    assert_eq!(leo.shells.len(), 3);
    assert_eq!(leo.shells[1].isls.len(), 4 * 6 * 2, "a star shell with its seam: two links a satellite");
    assert!(scn.nodes.iter().any(|n| n.name == "high-23") && scn.nodes.iter().any(|n| n.name == "old-0"));
    let out = satcp_core::run(&scn);
    assert!(out.summary.flows[0].completed, "{:?}", out.summary.flows[0]);
    let e = satcp_core::scenario::parse_toml_in(&text.replace("sats.tle", "missing.tle"), &[], Some(&dir)).unwrap_err();
    assert_eq!(e.path, "constellations.2.tle_file");
    std::fs::remove_dir_all(&dir).ok();
}
