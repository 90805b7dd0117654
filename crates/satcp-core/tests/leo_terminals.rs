//! Moving ground stations and obstructions in runs: a track file followed
//! (each traced RTT against the station placed here by the spherical
//! destination-point formula), an obstruction window that drops a flow's
//! packets and the flow's recovery, the example scenario, determinism and
//! bad input. The mask's exact-loss check against an independent
//! computation is `world/leo.rs`'s `mask_tests` (it reads each step's
//! attachments).

mod common;

use common::{leo_shell, run_text};
use satcp_core::leo::frames::C_KM_S;
use satcp_core::leo::visibility::Station;
use satcp_core::leo::walker::{WalkerKind, WalkerShell};
use satcp_core::scenario::{parse_toml, parse_toml_in};
use satcp_core::RunOutput;
use std::path::PathBuf;

const SHELL: WalkerShell = WalkerShell { kind: WalkerKind::Delta, planes: 12, per_plane: 12, altitude_km: 1000.0, inclination_deg: 55.0, phasing: 1 };

/// A fresh directory for this test's files.
fn scratch(name: &str) -> PathBuf {
    let d = std::env::temp_dir().join(format!("satcp-terminals-{}-{}", std::process::id(), name));
    std::fs::create_dir_all(&d).unwrap();
    d
}

fn run_in(dir: &std::path::Path, text: &str, sets: &[&str]) -> RunOutput {
    let sets: Vec<String> = sets.iter().map(|s| s.to_string()).collect();
    let scn = parse_toml_in(text, &sets, Some(dir)).unwrap_or_else(|e| panic!("scenario: {e}"));
    satcp_core::run(&scn)
}

/// (t s, lat, lon, alt m)
const FIXES: [(f64, f64, f64, f64); 4] = [(10.0, 35.0, 10.0, 10_000.0), (100.0, 40.0, 30.0, 11_000.0), (150.0, 38.0, 35.0, 11_000.0), (150.0, 38.5, 35.5, 11_000.0)];

/// Where the track puts the station at `t`: held before the first fix and
/// after the last; between two, the destination point at the time's
/// fraction of their angular distance along the initial course (the
/// textbook spherical formulas, not the engine's n-vector interpolation).
fn track_place(t: f64) -> (f64, f64, f64) {
    let last = FIXES[FIXES.len() - 1];
    if t <= FIXES[0].0 {
        return (FIXES[0].1, FIXES[0].2, FIXES[0].3);
    }
    if t >= last.0 {
        return (last.1, last.2, last.3);
    }
    let i = FIXES.iter().rposition(|f| f.0 <= t).unwrap();
    let (a, b) = (FIXES[i], FIXES[i + 1]);
    let f = (t - a.0) / (b.0 - a.0);
    let (p1, l1, p2, l2) = (a.1.to_radians(), a.2.to_radians(), b.1.to_radians(), b.2.to_radians());
    let total = (p1.sin() * p2.sin() + p1.cos() * p2.cos() * (l2 - l1).cos()).acos();
    let th = ((l2 - l1).sin() * p2.cos()).atan2(p1.cos() * p2.sin() - p1.sin() * p2.cos() * (l2 - l1).cos());
    let d = f * total;
    let p = (p1.sin() * d.cos() + p1.cos() * d.sin() * th.cos()).asin();
    let l = l1 + (th.sin() * d.sin() * p1.cos()).atan2(d.cos() - p1.sin() * p.sin());
    (p.to_degrees(), l.to_degrees(), a.3 + f * (b.3 - a.3))
}

const TRACK_SCENARIO: &str = r#"
[run]
stop = "200s"
[[constellations]]
name = "s"
walker = { kind = "delta", planes = 12, per_plane = 12, altitude = "1000km", inclination = 55.0, phasing = 1 }
isl = { rate = "100Mbps" }
gsl = { rate = "20Mbps", min_elevation = 20 }
[[ground_stations]]
name = "plane"
track = "plane.csv"
[[ground_stations]]
name = "b"
lat = 45.0
lon = 40.0
[[paths]]
src = "plane"
dst = "b"
"#;

fn write_track(dir: &std::path::Path) {
    let mut text = String::from("# an aircraft\nt,lat,lon,alt\n\n");
    for (t, lat, lon, alt) in FIXES {
        text += &format!("{t}, {lat}, {lon}, {alt}\n");
    }
    std::fs::write(dir.join("plane.csv"), text).unwrap();
}

#[test]
fn a_track_file_is_followed() {
    let dir = scratch("track");
    write_track(&dir);
    let out = run_in(&dir, TRACK_SCENARIO, &[]);
    let s = &out.path_series;
    let p = &out.summary.paths[0];
    assert_eq!(s.time_s.len(), 2000);
    let place = |name: &str, t: f64| match name {
        "plane" => {
            let (lat, lon, alt) = track_place(t);
            Station::new(lat, lon, alt / 1000.0).pos
        }
        "b" => Station::new(45.0, 40.0, 0.0).pos,
        sat => SHELL.ecef(sat.trim_start_matches("s-").parse().unwrap(), t),
    };
    let (mut checked, mut at_fixes, mut mid_legs) = (0, 0, 0);
    for i in 0..s.time_s.len() {
        if s.route[i] == u32::MAX {
            continue;
        }
        let t = s.time_s[i];
        let nodes: Vec<&str> = p.routes[s.route[i] as usize].split(' ').collect();
        let km: f64 = nodes.windows(2).map(|w| place(w[0], t).dist(place(w[1], t))).sum();
        let want = 2.0 * km / C_KM_S;
        assert!((s.rtt_s[i] - want).abs() < 2e-9 * nodes.len() as f64, "at {t} s: {} s against {want} s", s.rtt_s[i]);
        checked += 1;
        at_fixes += FIXES.iter().any(|f| (f.0 - t).abs() < 1e-9) as u32;
        mid_legs += [55.0, 125.0].iter().any(|m| (m - t).abs() < 1e-9) as u32;
    }
    assert!(checked > 1000, "{checked} steps with a path");
    assert!(at_fixes >= 2 && mid_legs >= 1, "fixes {at_fixes}, midpoints {mid_legs}");
    // the station moved: the first hop's distance changes more than a
    // fixed station's would allow, and it sees satellites after the jump
    assert!(p.routes.len() > 3, "{:?}", p.routes);
}

/// A CBR flow a -> b over the 12 x 12 shell, and the same with a's sky
/// hidden from 20 s to 23 s.
fn cbr(window: bool) -> RunOutput {
    let mut text = leo_shell("shortest-path", "40s")
        + "[[flows]]\nname = \"cbr\"\nsrc = \"a\"\ndst = \"b\"\napp = { kind = \"cbr\", rate = \"1Mbps\", packet_size = 1000 }\n";
    if window {
        text = text.replacen("lon = 10.0\n", "lon = 10.0\nobstructions = [{ from = \"20s\", to = \"23s\" }]\n", 1);
    }
    run_text(&text, &[])
}

#[test]
fn an_obstruction_window_drops_what_is_sent_in_it() {
    let (clear, hidden) = (cbr(false), cbr(true));
    let udp = |o: &RunOutput| o.summary.flows[0].udp.unwrap();
    let (c, h) = (udp(&clear), udp(&hidden));
    assert_eq!(c.packets_sent, h.packets_sent);
    // the clear run has a path throughout the window
    let s = &clear.path_series;
    assert!((0..s.time_s.len()).filter(|&i| s.time_s[i] >= 19.9 && s.time_s[i] < 23.1).all(|i| s.route[i] != u32::MAX));
    // 1 Mb/s of 1,000-byte packets: 125 a second, 3 s of them lost, plus
    // at most the one or two on the uplink when the sky went
    let extra = c.packets_received - h.packets_received;
    assert!((375..=377).contains(&extra), "{extra} more lost with the window ({c:?} against {h:?})");
    assert_eq!(h.packets_lost - c.packets_lost, extra, "counted as lost");
    // the station counts the window's 30 steps without a satellite
    assert_eq!(hidden.summary.ground_stations[0].steps_without_satellite - clear.summary.ground_stations[0].steps_without_satellite, 30);
    // what a sent during the window found no route
    let a = |o: &RunOutput| o.summary.nodes.iter().find(|n| n.name == "a").unwrap().drops_no_route;
    assert!(a(&hidden) >= a(&clear) + 360, "{} against {}", a(&hidden), a(&clear));
    // the path: none during the window, back at 23 s
    let s = &hidden.path_series;
    for i in 0..s.time_s.len() {
        let t = s.time_s[i];
        if (20.0..23.0 - 1e-9).contains(&t) {
            assert_eq!(s.route[i], u32::MAX, "a path at {t} s");
        }
    }
    let back = (0..s.time_s.len()).find(|&i| s.time_s[i] >= 23.0 - 1e-9).unwrap();
    assert!((s.time_s[back] - 23.0).abs() < 1e-9 && s.route[back] != u32::MAX);
}

#[test]
fn a_tcp_flow_stalls_under_the_window_and_recovers() {
    let text = leo_shell("shortest-path", "60s")
        .replacen("lon = 10.0\n", "lon = 10.0\nobstructions = [{ from = \"20s\", to = \"23s\" }]\n", 1)
        .replacen("[run]\n", "[run]\nsample_interval = \"100ms\"\n", 1)
        + "[[flows]]\nname = \"f\"\nsrc = \"a\"\ndst = \"b\"\napp = { kind = \"ftp\", size = \"60MB\" }\n";
    let out = run_text(&text, &["run.end=\"flows\""]);
    let fs = &out.flow_series;
    let at = |t: f64| (0..fs.time_s.len()).find(|&i| fs.time_s[i] >= t - 1e-9).map(|i| fs.delivered_bytes[i]).unwrap();
    // packets already past the uplink arrive within a few tens of ms;
    // then nothing until the sky is back
    assert!(at(20.0) > 1e6, "the flow is going before the window: {}", at(20.0));
    assert_eq!(at(20.2), at(23.0), "nothing delivered under the bridge");
    let f = &out.summary.flows[0];
    assert!(f.completed && f.bytes_delivered == 60_000_000 && f.completion_s.unwrap() > 23.0, "{f:?}");
    assert!(at(f.completion_s.unwrap() - 1.0) > at(23.0), "delivery resumes after the window");
    assert!(f.timeouts > 0, "the window costs a retransmission timeout: {f:?}");
}

#[test]
fn the_example_scenario_runs() {
    let dir = common::repo_root().join("scenarios/leo");
    let text = std::fs::read_to_string(dir.join("ship-dish-mask.toml")).unwrap();
    let started = std::time::Instant::now();
    let out = run_in(&dir, &text, &[]);
    let wall = started.elapsed().as_secs_f64();
    let f = &out.summary.flows[0];
    assert!(f.bytes_delivered > 10_000_000, "{f:?}");
    let ship = out.summary.ground_stations.iter().find(|g| g.name == "ship").unwrap();
    assert!(ship.steps_without_satellite >= 30, "{ship:?}");
    let s = &out.path_series;
    assert!((0..s.time_s.len()).filter(|&i| (29.0..32.0 - 1e-9).contains(&s.time_s[i])).all(|i| s.route[i] == u32::MAX));
    // without the mask the ship may use more satellites: more links made
    let o = run_in(&dir, &text, &["ground_stations.1.mask=[]"]);
    let clear = o.summary.ground_stations.iter().find(|g| g.name == "ship").unwrap();
    assert!(clear.links_up > ship.links_up && clear.handover_times_s != ship.handover_times_s, "{clear:?} against {ship:?}");
    assert!(wall < 30.0, "{wall} s");
}

#[test]
fn same_scenario_same_bits() {
    let dir = scratch("bits");
    write_track(&dir);
    let text = TRACK_SCENARIO.replace("track = \"plane.csv\"", "track = \"plane.csv\"\nmask_azimuth = \"heading\"\nmask = [{ azimuth = [300, 60], elevation = [0, 60] }]\nobstructions = [{ from = \"30.05s\", to = \"31s\" }]")
        + "[[flows]]\nsrc = \"plane\"\ndst = \"b\"\napp = { kind = \"ftp\", size = \"20MB\" }\n";
    let a = run_in(&dir, &text, &[]);
    let b = run_in(&dir, &text, &[]);
    let strip = |o: &RunOutput| {
        let mut s = o.summary.clone();
        s.wall_s = 0.0;
        serde_json::to_string(&s).unwrap()
    };
    assert_eq!(strip(&a), strip(&b));
    let bits = |o: &RunOutput| o.path_series.rtt_s.iter().map(|x| x.to_bits()).collect::<Vec<_>>();
    assert_eq!(bits(&a), bits(&b));
    // a window edge off the 100 ms grid is a step of its own
    assert!(a.path_series.time_s.iter().any(|&t| (t - 30.05).abs() < 1e-9));
}

#[test]
fn bad_terminal_keys_name_the_field() {
    let base = leo_shell("nearest", "10s");
    let cases: &[(&str, &str)] = &[
        ("ground_stations.0.route={from=[0, 0], to=[1, 1], speed=\"900km/h\"}", "ground_stations.0.lat"),
        ("ground_stations.0.mask=[{azimuth=[30, 30], elevation=[0, 40]}]", "ground_stations.0.mask.0.azimuth"),
        ("ground_stations.0.mask=[{azimuth=[30, 400], elevation=[0, 40]}]", "ground_stations.0.mask.0.azimuth"),
        ("ground_stations.0.mask=[{azimuth=[30, 90], elevation=[40, 0]}]", "ground_stations.0.mask.0.elevation"),
        ("ground_stations.0.mask=[{azimuth=[30, 90]}]", "ground_stations.0.mask.0.elevation"),
        ("ground_stations.0.mask=[{azimuth=[30, 90], elevation=[0, 40], range=3}]", "ground_stations.0.mask.0.range"),
        ("ground_stations.0.mask={azimuth=[30, 90]}", "ground_stations.0.mask"),
        ("ground_stations.0.mask_azimuth=\"heading\"", "ground_stations.0.mask_azimuth"),
        ("ground_stations.0.mask_azimuth=\"magnetic\"", "ground_stations.0.mask_azimuth"),
        ("ground_stations.0.obstructions=[{from=\"23s\", to=\"20s\"}]", "ground_stations.0.obstructions.0.to"),
        ("ground_stations.0.obstructions=[{from=\"20s\"}]", "ground_stations.0.obstructions.0.to"),
        ("ground_stations.0.obstructions=[{from=\"-1s\", to=\"2s\"}]", "ground_stations.0.obstructions.0.from"),
    ];
    for (set, field) in cases {
        let e = parse_toml(&base, &[set.to_string()]).expect_err(set);
        assert_eq!(e.path, *field, "{set}: {e}");
        assert!(!e.allowed.is_empty(), "{set}: {e}");
    }
    // routes: on a station without lat and lon
    let moving = base.replacen("lat = 35.0\nlon = 10.0\n", "route = { from = [35, 10], to = [40, 20], speed = \"900km/h\" }\n", 1);
    parse_toml(&moving, &[]).unwrap();
    let route_cases: &[(&str, &str)] = &[
        ("ground_stations.0.route.speed=\"0km/h\"", "ground_stations.0.route.speed"),
        ("ground_stations.0.route.speed=\"fast\"", "ground_stations.0.route.speed"),
        ("ground_stations.0.route.speed=\"-3m/s\"", "ground_stations.0.route.speed"),
        ("ground_stations.0.route.from=[95, 10]", "ground_stations.0.route.from"),
        ("ground_stations.0.route.to=[40, 400]", "ground_stations.0.route.to"),
        ("ground_stations.0.route.to=[35, 10]", "ground_stations.0.route.to"),
        ("ground_stations.0.route.to=[-35, -170]", "ground_stations.0.route.to"),
        ("ground_stations.0.route.depart=\"soon\"", "ground_stations.0.route.depart"),
        ("ground_stations.0.route.via=[1, 2]", "ground_stations.0.route.via"),
        ("ground_stations.0.track=\"x.csv\"", "ground_stations.0.route"),
    ];
    for (set, field) in route_cases {
        let e = parse_toml(&moving, &[set.to_string()]).expect_err(set);
        assert_eq!(e.path, *field, "{set}: {e}");
    }
    let e = parse_toml(&moving.replace("speed = \"900km/h\" ", ""), &[]).unwrap_err();
    assert_eq!(e.path, "ground_stations.0.route.speed");
    // the units: 900 km/h = 250 m/s = 485.96 kn
    for speed in ["\"900km/h\"", "\"250m/s\"", "250", "\"485.9611231kn\""] {
        let scn = parse_toml(&moving, &[format!("ground_stations.0.route.speed={speed}")]).unwrap();
        match &scn.leo.unwrap().stations[0].motion {
            satcp_core::leo::motion::Motion::Route { speed_km_s, .. } => assert!((speed_km_s - 0.25).abs() < 1e-9, "{speed}: {speed_km_s}"),
            m => panic!("{m:?}"),
        }
    }
}

#[test]
fn bad_track_files_name_the_file_the_line_and_the_value() {
    let dir = scratch("bad-tracks");
    let text = leo_shell("nearest", "10s").replacen("lat = 35.0\nlon = 10.0\n", "track = \"t.csv\"\n", 1);
    let cases: &[(&str, &str, &str)] = &[
        ("0, 35, 10\n5, 95, 10\n", "line 2", "lat \"95\""),
        ("0, 35, 10\n5, 35, -190\n", "line 2", "lon \"-190\""),
        ("# c\n\n0, 35, 10\n5, 36, 10\n3, 37, 10\n", "line 5", "t \"3\""),
        ("0, 35, 10\nsoon, 36, 10\n", "line 2", "t \"soon\""),
        ("0, 35, 10\n-1, 36, 10\n", "line 2", "t \"-1\""),
        ("0, 35\n", "line 1", "3 or 4"),
        ("0, 35, 10, 200000\n", "line 1", "alt \"200000\""),
        ("0, 35, 10\n10, -35, -170\n", "line 2", "antipodal"),
        ("# nothing\n", "t.csv", "at least one fix"),
    ];
    for (file, line, what) in cases {
        std::fs::write(dir.join("t.csv"), file).unwrap();
        let e = parse_toml_in(&text, &[], Some(&dir)).expect_err(file);
        assert_eq!(e.path, "ground_stations.0.track", "{file:?}: {e}");
        assert_eq!(e.value, "\"t.csv\"", "{file:?}: {e}");
        assert!(e.allowed.contains("t.csv") && e.allowed.contains(line) && e.allowed.contains(what), "{file:?}: {e}");
    }
    // a file that is not there
    let e = parse_toml_in(&text.replace("t.csv", "missing.csv"), &[], Some(&dir)).unwrap_err();
    assert!(e.path == "ground_stations.0.track" && e.allowed.contains("missing.csv"), "{e}");
    // fine: times equal (a jump), 3 or 4 fields, a header, units on t
    std::fs::write(dir.join("t.csv"), "t, lat, lon\n0, 35, 10\n500ms, 35.1, 10, 30\n0.5, 36, 11\n").unwrap();
    parse_toml_in(&text, &[], Some(&dir)).unwrap();
    // lat and lon with a track
    let e = parse_toml_in(&text.replacen("track = \"t.csv\"\n", "track = \"t.csv\"\nlat = 3\n", 1), &[], Some(&dir)).unwrap_err();
    assert_eq!(e.path, "ground_stations.0.lat");
}

// ---------------------------------------------------------------------------
// Random moving stations with masks and windows: every byte delivered at
// most once and in order across the outages they make.

use proptest::prelude::*;

#[derive(Debug, Clone)]
struct Moving {
    attach: &'static str,
    handover: &'static str,
    step_ms: u32,
    /// from, to, speed (m/s), depart (s)
    route: ((f64, f64), (f64, f64), u32, u32),
    /// azimuth from, to; elevation low, and high - low
    mask: Vec<(u32, u32, i32, i32)>,
    heading: bool,
    window: Option<(u32, u32)>,
    flows: Vec<(bool, u32, &'static str)>,
    seed: u64,
}

fn moving() -> impl Strategy<Value = Moving> {
    (
        prop_oneof![Just("shortest-path"), Just("nearest"), Just("longest-visible"), Just("reassign-15s")],
        prop_oneof![Just("lost"), Just("delivered")],
        prop_oneof![Just(50u32), Just(100), Just(300)],
        ((-40.0f64..40.0, -30.0f64..30.0), (-40.0f64..40.0, 30.5f64..60.0), 10u32..3000, 0u32..20),
        prop::collection::vec((0u32..360, 0u32..360, -10i32..40, 5i32..50), 0..3),
        any::<bool>(),
        prop::option::of((0u32..6, 1u32..5)),
        prop::collection::vec((any::<bool>(), 200u32..8000, prop_oneof![Just("newreno"), Just("sack"), Just("cubic"), Just("bbr")]), 1..3),
        0u64..1000,
    )
        .prop_map(|(attach, handover, step_ms, route, mask, heading, window, flows, seed)| Moving {
            attach,
            handover,
            step_ms,
            route,
            mask: mask.into_iter().filter(|m| m.0 != m.1).collect(),
            heading,
            window,
            flows,
            seed,
        })
}

fn moving_toml(c: &Moving) -> String {
    let ((a0, a1), (b0, b1), speed, depart) = c.route;
    let mut t = format!(
        "[run]\nseed = {}\nstop = \"120s\"\ntopology_step = \"{}ms\"\n[[constellations]]\nname = \"c\"\nwalker = {{ kind = \"delta\", planes = 12, per_plane = 12, altitude = \"1000km\", inclination = 55.0, phasing = 1 }}\nisl = {{ rate = \"50Mbps\", queue = {{ packets = 30 }} }}\ngsl = {{ rate = \"10Mbps\", min_elevation = 10, handover = \"{}\" }}\nattach = \"{}\"\n",
        c.seed, c.step_ms, c.handover, c.attach
    );
    t += &format!("[[ground_stations]]\nname = \"m\"\nroute = {{ from = [{a0}, {a1}], to = [{b0}, {b1}], speed = \"{speed}m/s\", depart = \"{depart}s\" }}\n");
    if !c.mask.is_empty() {
        let sectors: Vec<String> = c.mask.iter().map(|m| format!("{{ azimuth = [{}, {}], elevation = [{}, {}] }}", m.0, m.1, m.2, m.2 + m.3)).collect();
        t += &format!("mask = [{}]\nmask_azimuth = \"{}\"\n", sectors.join(", "), if c.heading { "heading" } else { "north" });
    }
    if let Some((from, len)) = c.window {
        t += &format!("obstructions = [{{ from = \"{from}.25s\", to = \"{}.25s\" }}]\n", from + len);
    }
    t += "[[ground_stations]]\nname = \"f\"\nlat = 10.0\nlon = 30.0\n";
    for (i, (up, kb, v)) in c.flows.iter().enumerate() {
        let (s, d) = if *up { ("m", "f") } else { ("f", "m") };
        t += &format!(
            "[[flows]]\nname = \"x{i}\"\nsrc = \"{s}\"\ndst = \"{d}\"\ntcp = {{ variant = \"{v}\", max_retransmissions = 0 }}\napp = {{ kind = \"ftp\", size = \"{kb}kB\" }}\n"
        );
    }
    t
}

proptest! {
    #![proptest_config(ProptestConfig { cases: 24, failure_persistence: None, .. ProptestConfig::default() })]

    #[test]
    fn every_byte_arrives_once_in_order_across_obstructions(c in moving()) {
        let text = moving_toml(&c);
        let out = run_text(&text, &[]);
        for (f, spec) in out.summary.flows.iter().zip(&c.flows) {
            let size = spec.1 as u64 * 1000;
            prop_assert_eq!(f.integrity_errors, 0, "{}", text);
            prop_assert!(f.bytes_delivered <= size, "{}", text);
            if f.completed {
                prop_assert_eq!(f.bytes_delivered, size, "{}", text);
            }
        }
        // a window of n steps is n steps without a satellite at least
        if let Some((_, len)) = c.window {
            let g = &out.summary.ground_stations[0];
            let steps = (len as u64 * 1000).div_ceil(c.step_ms as u64);
            prop_assert!(out.summary.sim_time_s < 121.0);
            if out.summary.sim_time_s > (c.window.unwrap().0 + len) as f64 + 0.25 {
                prop_assert!(g.steps_without_satellite >= steps, "{:?} {}", g, text);
            }
        }
    }
}
