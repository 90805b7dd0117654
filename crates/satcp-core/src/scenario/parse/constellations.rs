//! `[[constellations]]`, `[[ground_stations]]`, `[[paths]]` and the run's
//! `topology_step` and `epoch`: the moving part of a scenario
//! (`docs/models/constellations.md`).
//!
//! Ground stations and satellites become nodes, appended after `[nodes]`
//! (stations first, then each constellation's satellites "name-0",
//! "name-1", ...); inter-satellite links become links appended after
//! `[[links]]`, their delay at t = 0 from the geometry. Ground-to-satellite
//! links are made by the run.
//!
//! Choices where a user leaves a key out (each written in the model doc):
//! * ISL and GSL queues: drop-tail, 100 packets (Hypatia's default device
//!   queue), not unlimited as on `[[links]]`: a constellation's links are
//!   routers' interfaces.
//! * `gsl.min_elevation` 25 degrees (Starlink's user terminals), under
//!   the elevation rule unless `gsl.max_range` is given (the range rule)
//!   or `gsl.visibility` says otherwise; `gsl.visibility = "hypatia"`
//!   takes a Walker shell's `altitude` (a TLE set has none: refused);
//!   `gsl.device` "per-link"; `gsl.handover` "lost"; `attach`
//!   "shortest-path".
//! * `gsl.device = "shared"` takes drop-tail queues only (Hypatia's
//!   device queue; RED is refused).
//! * `[[flows]]` may be left out when `[[paths]]` are traced (a path-only
//!   scenario); `run.stop` is then required.
//! * `isl.min_grazing` 80 km (a beam through the mesosphere is absorbed);
//!   no maximum range.
//! * TLE shells have no plane structure: `isls` must be a list of pairs or
//!   "none".
//! * `reassign_pick` "nearest": an epoch picks the nearest satellite in
//!   view, which may be the one it had ("another" forces a new one).
//! * `run.epoch` (the UTC instant of t = 0) defaults to the latest TLE
//!   epoch of the scenario, so no satellite is propagated backwards.
//! * Constellation links take drop-tail or RED queues and per, ber or
//!   Gilbert-Elliott errors: the disciplines whose packets a handover can
//!   lose as they come off the wire.
//! * A station is fixed (`lat`, `lon`), follows a `track` file or a
//!   great-circle `route` (exactly one); a track's lines are `t, lat, lon`
//!   or `t, lat, lon, alt` with `t` in seconds (or a duration with unit),
//!   never decreasing, and `alt` in metres (GPS logs write metres; a
//!   3-field line takes the station's `alt`); longitudes in [-180, 360] as
//!   the station's `lon`; a route's `speed` in km/h, m/s or kn (a plain
//!   number is m/s), `depart` 0 by default. `mask_azimuth` "north"
//!   (`"heading"` refused on a fixed station); mask sectors need both
//!   `azimuth` and `elevation` (`leo/motion.rs`, `leo/obstruction.rs`).

use super::links::{parse_errors, parse_queue};
use super::*;
use crate::leo::frames::light_ns;
use crate::leo::tle::parse_three_line_sets;
use crate::leo::walker::{WalkerKind, WalkerShell};
use crate::leo::motion::{distance_km as great_circle_km, leg_ok, Fix, Motion};
use crate::leo::obstruction::{MaskAzimuth, Obstructions, Sector};
use crate::leo::{isl::plus_grid, positions::ShellGeometry};
use sgp4::chrono::NaiveDateTime;

const SHELL_KEYS: &[&str] = &["name", "walker", "tle_file", "tle", "isls", "cross_seam", "isl", "gsl", "attach", "reassign_offset", "reassign_pick"];
const WALKER_EXPECTED: &str =
    "an inline table { kind = \"delta\" | \"star\", planes, per_plane, altitude = \"550km\", inclination = 53.0, phasing }";
const ISLS_EXPECTED: &str = "\"plus-grid\", \"none\" or a list of satellite index pairs, e.g. [[0, 1], [0, 22]]";
const ATTACH: &[&str] = &["shortest-path", "nearest", "longest-visible", "reassign-15s"];
const DISTANCE_ALLOWED: &str = "a distance: a number of km or a string such as \"550km\" or \"300m\"";

/// The run keys that belong to constellations.
pub(super) struct LeoRunKeys {
    pub step_ns: Option<u64>,
    pub epoch: Option<NaiveDateTime>,
    /// `run.topology_threads`: 1 or 2.
    pub threads: Option<u32>,
}

/// `run.epoch`: "2024-06-01T00:00:00" (UTC; a trailing Z and fractions of a
/// second allowed), as a string or a TOML date-time.
pub(super) fn parse_epoch(t: &Tbl) -> Res<Option<NaiveDateTime>> {
    let text = match t.get("epoch") {
        None => return Ok(None),
        Some(Value::String(s)) => s.clone(),
        Some(Value::Datetime(d)) => d.to_string(),
        Some(v) => return Err(type_error(&t.at("epoch"), v, "a UTC date-time such as \"2024-06-01T00:00:00\"")),
    };
    let trimmed = text.trim_end_matches('Z').replace(' ', "T");
    NaiveDateTime::parse_from_str(&trimmed, "%Y-%m-%dT%H:%M:%S%.f")
        .map(Some)
        .map_err(|_| t.bad("epoch", "a UTC date-time such as \"2024-06-01T00:00:00\""))
}

/// A distance in km.
fn distance_km(t: &Tbl, key: &str) -> Res<Option<f64>> {
    let bad = || t.bad(key, DISTANCE_ALLOWED);
    let km = match t.get(key) {
        None => return Ok(None),
        Some(Value::Integer(i)) => *i as f64,
        Some(Value::Float(x)) => *x,
        Some(Value::String(s)) => {
            let s = s.trim();
            let (num, scale) = if let Some(n) = s.strip_suffix("km") {
                (n, 1.0)
            } else if let Some(n) = s.strip_suffix('m') {
                (n, 1e-3)
            } else {
                return Err(bad());
            };
            num.trim().parse::<f64>().map_err(|_| bad())? * scale
        }
        Some(v) => return Err(type_error(&t.at(key), v, DISTANCE_ALLOWED)),
    };
    if km.is_finite() && km >= 0.0 {
        Ok(Some(km))
    } else {
        Err(bad())
    }
}

/// Node names in use, for clashes.
fn taken(nodes: &[NodeCfg], name: &str) -> bool {
    nodes.iter().any(|n| n.name == name)
}

const STATION_KEYS: &[&str] = &["name", "lat", "lon", "alt", "relay", "track", "route", "mask", "mask_azimuth", "obstructions"];
const LAT_ALLOWED: &str = "a geodetic latitude in degrees in [-90, 90]";
const LON_ALLOWED: &str = "a longitude in degrees in [-180, 360], east positive";
const ROUTE_EXPECTED: &str = "an inline table { from = [lat, lon], to = [lat, lon], speed = \"900km/h\", depart = \"0s\" }";
const SPEED_ALLOWED: &str = "a speed > 0 with unit km/h, m/s or kn (plain numbers are m/s), e.g. \"900km/h\"";
const MASK_EXPECTED: &str = "an array of sectors [{ azimuth = [30, 90], elevation = [0, 40] }, ...] (degrees; azimuth clockwise from from to to, wrapping through 360 when from > to)";
const WINDOWS_EXPECTED: &str = "an array of windows [{ from = \"20s\", to = \"23s\" }, ...]";

/// `[[ground_stations]]`: appended to `nodes`; track files are read from
/// `base_dir`.
pub(super) fn parse_ground_stations(root: &Tbl, nodes: &mut Vec<NodeCfg>, base_dir: Option<&Path>) -> Res<Vec<StationCfg>> {
    let Some(v) = root.get("ground_stations") else { return Ok(Vec::new()) };
    let what = "an array of ground-station tables ([[ground_stations]] with name, lat, lon)";
    let Value::Array(arr) = v else { return Err(type_error("ground_stations", v, what)) };
    let mut out = Vec::with_capacity(arr.len());
    for (i, sv) in arr.iter().enumerate() {
        let mut t = Tbl::new(format!("ground_stations.{}", i), sv, what)?;
        t.only(STATION_KEYS)?;
        let name = t.require("name", t.str("name")?, "a node name for the station, e.g. \"paris\"")?;
        check_name(&t, "name", name)?;
        if taken(nodes, name) {
            return Err(t.bad("name", "a name no other node (or station) has"));
        }
        let alt = distance_km(&t, "alt")?.unwrap_or(0.0);
        if alt > 100.0 {
            return Err(t.bad("alt", "a height above the WGS84 ellipsoid of at most 100 km"));
        }
        let motion = parse_motion(&t, alt, base_dir)?;
        let obstructions = parse_obstructions(&t, &motion)?;
        out.push(StationCfg { node: nodes.len(), motion, obstructions, relay: t.bool("relay")?.unwrap_or(false) });
        nodes.push(NodeCfg { name: name.to_string() });
    }
    Ok(out)
}

/// `lat` and `lon`, a `track` file or a `route`: exactly one.
fn parse_motion(t: &Tbl, alt: f64, base_dir: Option<&Path>) -> Res<Motion> {
    let moving: Vec<&str> = ["track", "route"].into_iter().filter(|k| t.get(k).is_some()).collect();
    if moving.len() > 1 {
        return Err(t.bad("route", "no route with track: one of lat and lon, track or route"));
    }
    if let Some(&key) = moving.first() {
        if let Some(k) = ["lat", "lon"].into_iter().find(|k| t.get(k).is_some()) {
            return Err(t.bad(k, format!("no {k} with {key} (the {key} gives the position)")));
        }
        return if key == "track" { parse_track(t, alt, base_dir) } else { parse_route(t, alt) };
    }
    let lat = t.number("lat", |x| (-90.0..=90.0).contains(&x), LAT_ALLOWED)?;
    let lat = t.require("lat", lat, "a geodetic latitude in degrees in [-90, 90] (or a track or route)")?;
    let lon = t.number("lon", |x| (-180.0..=360.0).contains(&x), LON_ALLOWED)?;
    let lon = t.require("lon", lon, "a longitude in degrees in [-180, 360], east positive (or a track or route)")?;
    Ok(Motion::Fixed { lat_deg: lat, lon_deg: lon, alt_km: alt })
}

/// `track = "file.csv"`: lines `t, lat, lon[, alt]` (t in seconds or a
/// duration with unit, alt in metres); '#' comments, blank lines and a
/// first line of column names skipped.
fn parse_track(t: &Tbl, alt: f64, base_dir: Option<&Path>) -> Res<Motion> {
    let file = t.str("track")?.ok_or_else(|| t.bad("track", "a path to a CSV file of lines t, lat, lon[, alt]"))?;
    let path = base_dir.map_or_else(|| Path::new(file).to_path_buf(), |b| b.join(file));
    let text = std::fs::read_to_string(&path).map_err(|e| t.bad("track", format!("a readable CSV file of lines t, lat, lon[, alt] ({}: {})", path.display(), e)))?;
    let at = |line: usize, what: String| t.bad("track", format!("{}, line {}: {}", path.display(), line, what));
    let mut fixes: Vec<Fix> = Vec::new();
    let mut first = true;
    for (n, raw) in text.lines().enumerate() {
        let line = raw.trim();
        if line.is_empty() || line.starts_with('#') {
            continue;
        }
        let fields: Vec<&str> = line.split(',').map(str::trim).collect();
        if std::mem::take(&mut first) && fields[0].starts_with(|c: char| c.is_ascii_alphabetic()) {
            continue; // column names
        }
        if !(3..=4).contains(&fields.len()) {
            return Err(at(n + 1, format!("{line:?}: 3 or 4 comma-separated fields, t, lat, lon[, alt]")));
        }
        let number = |k: usize, name: &str, ok: &dyn Fn(f64) -> bool, allowed: &str| -> Res<f64> {
            match fields[k].parse::<f64>() {
                Ok(x) if x.is_finite() && ok(x) => Ok(x),
                _ => Err(at(n + 1, format!("{name} {:?}: {allowed}", fields[k]))),
            }
        };
        let ft = crate::scenario::units::parse_duration(fields[0])
            .map_err(|_| at(n + 1, format!("t {:?}: a time >= 0 in seconds (or a duration with unit, e.g. \"250ms\")", fields[0])))?;
        let lat = number(1, "lat", &|x| (-90.0..=90.0).contains(&x), LAT_ALLOWED)?;
        let lon = number(2, "lon", &|x| (-180.0..=360.0).contains(&x), LON_ALLOWED)?;
        let alt_km = if fields.len() == 4 {
            number(3, "alt", &|x| (0.0..=100_000.0).contains(&x), "a height above the WGS84 ellipsoid in metres in [0, 100000]")? / 1000.0
        } else {
            alt
        };
        if let Some(prev) = fixes.last() {
            if ft < prev.t {
                return Err(at(n + 1, format!("t {:?}: a time at or after the previous fix's ({} s): times must not decrease", fields[0], crate::sim::secs(prev.t))));
            }
            if !leg_ok((prev.lat_deg, prev.lon_deg), (lat, lon)) {
                return Err(at(n + 1, format!("lat, lon {lat}, {lon}: a point not antipodal to the previous fix (no single great circle joins them)")));
            }
        }
        fixes.push(Fix { t: ft, lat_deg: lat, lon_deg: lon, alt_km });
    }
    if fixes.is_empty() {
        return Err(t.bad("track", format!("{}: at least one fix (a line t, lat, lon[, alt])", path.display())));
    }
    Ok(Motion::Track(fixes))
}

/// `[lat, lon]` of a route.
fn route_point(r: &Tbl, key: &str) -> Res<(f64, f64)> {
    let allowed = "a point [lat, lon] in degrees, lat in [-90, 90], lon in [-180, 360]";
    let v = r.get(key).ok_or_else(|| missing(&r.at(key), allowed))?;
    let num = |x: &Value| match x {
        Value::Float(f) => Some(*f),
        Value::Integer(i) => Some(*i as f64),
        _ => None,
    };
    match v.as_array().map(|a| a.as_slice()) {
        Some([a, b]) => match (num(a), num(b)) {
            (Some(lat), Some(lon)) if (-90.0..=90.0).contains(&lat) && (-180.0..=360.0).contains(&lon) => Ok((lat, lon)),
            _ => Err(r.bad(key, allowed)),
        },
        _ => Err(r.bad(key, allowed)),
    }
}

/// A speed in km/s: "900km/h", "250m/s", "20kn", or a plain number of m/s.
fn speed_km_s(r: &Tbl, key: &str) -> Res<Option<f64>> {
    let m_s = match r.get(key) {
        None => return Ok(None),
        Some(Value::Integer(i)) => *i as f64,
        Some(Value::Float(x)) => *x,
        Some(Value::String(s)) => {
            let s = s.trim();
            let (num, scale) = if let Some(n) = s.strip_suffix("km/h") {
                (n, 1.0 / 3.6)
            } else if let Some(n) = s.strip_suffix("m/s") {
                (n, 1.0)
            } else if let Some(n) = s.strip_suffix("kn") {
                (n, 1852.0 / 3600.0)
            } else {
                return Err(r.bad(key, SPEED_ALLOWED));
            };
            num.trim().parse::<f64>().map_err(|_| r.bad(key, SPEED_ALLOWED))? * scale
        }
        Some(v) => return Err(type_error(&r.at(key), v, SPEED_ALLOWED)),
    };
    if m_s.is_finite() && m_s > 0.0 {
        Ok(Some(m_s / 1000.0))
    } else {
        Err(r.bad(key, SPEED_ALLOWED))
    }
}

/// `route = { from, to, speed, depart }`.
fn parse_route(t: &Tbl, alt: f64) -> Res<Motion> {
    let mut r = t.table("route", ROUTE_EXPECTED)?.expect("present");
    r.only(&["from", "to", "speed", "depart"])?;
    let from = route_point(&r, "from")?;
    let to = route_point(&r, "to")?;
    if great_circle_km(from, to) < 1e-3 {
        return Err(r.bad("to", "a point at least 1 m from `from` (a station that does not move takes lat and lon)"));
    }
    if !leg_ok(from, to) {
        return Err(r.bad("to", "a point not antipodal to `from` (no single great circle joins them)"));
    }
    let speed_km_s = r.require("speed", speed_km_s(&r, "speed")?, SPEED_ALLOWED)?;
    let depart = r.duration("depart")?.unwrap_or(0);
    Ok(Motion::Route { from, to, alt_km: alt, speed_km_s, depart })
}

/// Two numbers `[lo, hi]` in `range`, `lo <= hi` unless `wraps`.
fn pair_in(s: &Tbl, key: &str, range: (f64, f64), wraps: bool, allowed: &str) -> Res<(f64, f64)> {
    let v = s.get(key).ok_or_else(|| missing(&s.at(key), allowed))?;
    let num = |x: &Value| match x {
        Value::Float(f) => Some(*f),
        Value::Integer(i) => Some(*i as f64),
        _ => None,
    };
    let ok = |x: f64| x >= range.0 && x <= range.1;
    match v.as_array().map(|a| a.as_slice()) {
        Some([a, b]) => match (num(a), num(b)) {
            (Some(a), Some(b)) if ok(a) && ok(b) && (if wraps { a != b } else { a <= b }) => Ok((a, b)),
            _ => Err(s.bad(key, allowed)),
        },
        _ => Err(s.bad(key, allowed)),
    }
}

/// `mask`, `mask_azimuth` and `obstructions`.
fn parse_obstructions(t: &Tbl, motion: &Motion) -> Res<Obstructions> {
    let mut o = Obstructions::default();
    if let Some(v) = t.get("mask") {
        let Value::Array(arr) = v else { return Err(type_error(&t.at("mask"), v, MASK_EXPECTED)) };
        for (j, sv) in arr.iter().enumerate() {
            let mut s = Tbl::new(format!("{}.{}", t.at("mask"), j), sv, MASK_EXPECTED)?;
            s.only(&["azimuth", "elevation"])?;
            let azimuth = pair_in(&s, "azimuth", (0.0, 360.0), true, "[from, to]: two different azimuths in degrees in [0, 360], clockwise from true north (or the heading) from `from` to `to`, wrapping through 360 when from > to ([0, 360]: all round)")?;
            let elevation = pair_in(&s, "elevation", (-90.0, 90.0), false, "[low, high]: elevations in degrees in [-90, 90], low <= high")?;
            o.mask.push(Sector { azimuth, elevation });
        }
    }
    if t.choice("mask_azimuth", &["north", "heading"])? == Some("heading") {
        if motion.is_fixed() {
            return Err(t.bad("mask_azimuth", "\"north\": a station with lat and lon has no heading (heading goes with track or route)"));
        }
        o.mask_azimuth = MaskAzimuth::Heading;
    }
    if let Some(v) = t.get("obstructions") {
        let Value::Array(arr) = v else { return Err(type_error(&t.at("obstructions"), v, WINDOWS_EXPECTED)) };
        for (j, wv) in arr.iter().enumerate() {
            let mut w = Tbl::new(format!("{}.{}", t.at("obstructions"), j), wv, WINDOWS_EXPECTED)?;
            w.only(&["from", "to"])?;
            let from = w.require("from", w.duration("from")?, "the run time the sky is lost at, e.g. \"20s\"")?;
            let to = w.require("to", w.duration("to")?, "the run time the sky comes back at, e.g. \"23s\"")?;
            if to <= from {
                return Err(w.bad("to", "a time after `from`"));
            }
            o.windows.push((from, to));
        }
    }
    Ok(o)
}

/// `walker = {...}`.
fn parse_walker(t: &Tbl) -> Res<WalkerShell> {
    let mut w = t.table("walker", WALKER_EXPECTED)?.expect("present");
    w.only(&["kind", "planes", "per_plane", "altitude", "inclination", "phasing"])?;
    let kind = match w.choice("kind", &["delta", "star"])? {
        Some("star") => WalkerKind::Star,
        _ => WalkerKind::Delta,
    };
    let planes = w.require("planes", w.u32_in("planes", 1, 10_000)?, "the number of orbital planes, >= 1")?;
    let per_plane = w.require("per_plane", w.u32_in("per_plane", 1, 10_000)?, "satellites per plane, >= 1")?;
    if planes as u64 * per_plane as u64 > 100_000 {
        return Err(w.bad("per_plane", "at most 100,000 satellites in a shell (planes x per_plane)"));
    }
    let altitude = w.require("altitude", distance_km(&w, "altitude")?, DISTANCE_ALLOWED)?;
    if !(100.0..=100_000.0).contains(&altitude) {
        return Err(w.bad("altitude", "an altitude between 100 km and 100,000 km"));
    }
    let inc = w.number("inclination", |x| (0.0..=180.0).contains(&x), "an inclination in degrees in [0, 180]")?;
    let inclination_deg = w.require("inclination", inc, "an inclination in degrees in [0, 180]")?;
    let phasing = w.u32_in("phasing", 0, planes.saturating_sub(1))?.unwrap_or(0);
    Ok(WalkerShell { kind, planes, per_plane, altitude_km: altitude, inclination_deg, phasing })
}

/// `isls`: the pairs of satellite indices linked.
fn parse_isls(t: &Tbl, count: u32, walker: Option<&WalkerShell>, cross_seam: bool) -> Res<Vec<(u32, u32)>> {
    match t.get("isls") {
        None if walker.is_some() => Ok(plus_grid(walker.unwrap(), cross_seam)),
        None => Err(missing(&t.at("isls"), &format!("with TLE sets, which have no planes: {}", ISLS_EXPECTED.replacen("\"plus-grid\", ", "", 1)))),
        Some(Value::String(s)) if s == "none" => Ok(Vec::new()),
        Some(Value::String(s)) if s == "plus-grid" => match walker {
            Some(w) => Ok(plus_grid(w, cross_seam)),
            None => Err(t.bad("isls", "\"none\" or a list of pairs: \"plus-grid\" needs a Walker shell's planes")),
        },
        Some(Value::Array(pairs)) => {
            let mut out = Vec::with_capacity(pairs.len());
            let mut seen = std::collections::HashSet::new();
            for (j, pv) in pairs.iter().enumerate() {
                let path = format!("{}.{}", t.at("isls"), j);
                let pair = match pv.as_array().map(|a| a.as_slice()) {
                    Some([Value::Integer(a), Value::Integer(b)]) => (*a, *b),
                    _ => return Err(ScenarioError::new(path, show(pv), "a pair of satellite indices, e.g. [0, 1]")),
                };
                let ok = |k: i64| (0..count as i64).contains(&k);
                if !ok(pair.0) || !ok(pair.1) || pair.0 == pair.1 {
                    return Err(ScenarioError::new(path, show(pv), format!("two different satellite indices in 0..={}", count - 1)));
                }
                let (a, b) = (pair.0.min(pair.1) as u32, pair.0.max(pair.1) as u32);
                if !seen.insert((a, b)) {
                    return Err(ScenarioError::new(path, show(pv), "a pair not listed before"));
                }
                out.push((a, b));
            }
            Ok(out)
        }
        Some(v) => Err(type_error(&t.at("isls"), v, ISLS_EXPECTED)),
    }
}

/// The link keys a constellation's `isl` and `gsl` tables share: a
/// direction's rate, queue and errors.
fn link_dir(t: &Tbl, rate_key: &str) -> Res<LinkDirCfg> {
    let rate = t.require(rate_key, t.rate(rate_key)?, units::RATE_ALLOWED)?;
    let queue = parse_queue(t, "queue")?.unwrap_or(QueueCfg::DropTail { limit: QueueLimit::Packets(100) });
    if queue.holds_packets() {
        return Err(t.bad("queue", "a drop-tail or RED queue (kind = \"droptail\" or \"red\") on a constellation's links"));
    }
    let errors = parse_errors(t, "errors", None)?.unwrap_or(ErrorCfg::None);
    if matches!(errors, ErrorCfg::DsnBurst(_) | ErrorCfg::Trace(_)) {
        return Err(t.bad("errors", "{ per = x }, { ber = x } or { model = \"gilbert_elliott\", ... } on a constellation's links"));
    }
    Ok(LinkDirCfg { rate_bps: rate, delay_ns: 0, queue, errors, overhead_bytes: 0, reorder: None, loss_placement: LossPlacement::Link, traces: None })
}

struct Isl {
    dir: LinkDirCfg,
    max_range_km: f64,
    min_grazing_km: f64,
}

fn parse_isl(t: &Tbl, needed: bool) -> Res<Isl> {
    let what = "an inline table { rate = \"10Gbps\", queue = {...}, errors = {...}, max_range = \"5000km\", min_grazing = \"80km\" }";
    let Some(mut i) = t.table("isl", what)? else {
        if needed {
            return Err(missing(&t.at("isl"), what));
        }
        return Ok(Isl { dir: LinkDirCfg { rate_bps: 1, delay_ns: 0, queue: QueueCfg::DropTail { limit: QueueLimit::Packets(100) }, errors: ErrorCfg::None, overhead_bytes: 0, reorder: None, loss_placement: LossPlacement::Link, traces: None }, max_range_km: f64::INFINITY, min_grazing_km: 0.0 });
    };
    i.only(&["rate", "queue", "errors", "max_range", "min_grazing"])?;
    let dir = link_dir(&i, "rate")?;
    let max_range_km = match distance_km(&i, "max_range")? {
        Some(r) if r <= 0.0 => return Err(i.bad("max_range", "a range > 0")),
        Some(r) => r,
        None => f64::INFINITY,
    };
    let min_grazing_km = distance_km(&i, "min_grazing")?.unwrap_or(80.0);
    Ok(Isl { dir, max_range_km, min_grazing_km })
}

struct Gsl {
    up: LinkDirCfg,
    down: LinkDirCfg,
    visibility: Visibility,
    device: GslDevice,
    handover: HandoverLoss,
}

const GSL_KEYS: &[&str] = &["rate", "rate_up", "rate_down", "queue", "errors", "min_elevation", "max_range", "visibility", "device", "handover"];

fn parse_gsl(t: &Tbl, walker: Option<&WalkerShell>) -> Res<Gsl> {
    let what = "an inline table { rate = \"500Mbps\" (or rate_up and rate_down), min_elevation = 25 or max_range = \"1260km\", visibility = \"elevation\" | \"range\" | \"hypatia\", device = \"per-link\" | \"shared\", queue = {...}, errors = {...}, handover = \"lost\" | \"delivered\" }";
    let mut g = t.table("gsl", what)?.ok_or_else(|| missing(&t.at("gsl"), what))?;
    g.only(GSL_KEYS)?;
    let key = |k: &str| if g.get(k).is_some() { k.to_string() } else { "rate".to_string() };
    let (ku, kd) = (key("rate_up"), key("rate_down"));
    let up = link_dir(&g, &ku)?;
    let down = link_dir(&g, &kd)?;
    let visibility = parse_visibility(&g, walker)?;
    let device = match g.choice("device", &["per-link", "shared"])? {
        Some("shared") => GslDevice::Shared,
        _ => GslDevice::PerLink,
    };
    if device == GslDevice::Shared && [&up, &down].iter().any(|d| !matches!(d.queue, QueueCfg::DropTail { .. })) {
        return Err(g.bad("queue", "a drop-tail queue with device = \"shared\" (Hypatia's device queue)"));
    }
    let handover = match g.choice("handover", &["lost", "delivered"])? {
        Some("delivered") => HandoverLoss::Delivered,
        _ => HandoverLoss::Lost,
    };
    Ok(Gsl { up, down, visibility, device, handover })
}

/// `gsl.min_elevation`, `gsl.max_range` and `gsl.visibility`: the geodetic
/// elevation rule (the default), a maximum distance, or Hypatia's maximum
/// distance, altitude / sin(min elevation) (a flat-Earth cone: 1,260 km
/// for 630 km at 30 degrees), from a Walker shell's altitude.
fn parse_visibility(g: &Tbl, walker: Option<&WalkerShell>) -> Res<Visibility> {
    const ELEVATION: &str = "a minimum elevation angle in degrees in [0, 90)";
    let min_elevation = g.number("min_elevation", |x| (0.0..90.0).contains(&x), ELEVATION)?;
    let max_range = match distance_km(g, "max_range")? {
        Some(r) if r <= 0.0 => return Err(g.bad("max_range", "a range > 0")),
        r => r,
    };
    let rule = g.choice("visibility", &["elevation", "range", "hypatia"])?;
    match (rule, max_range) {
        (None | Some("range"), Some(r)) => match min_elevation {
            Some(_) => Err(g.bad("min_elevation", "no min_elevation with max_range: a satellite within max_range is usable whatever its elevation")),
            None => Ok(Visibility::MaxRange(r)),
        },
        (Some("range"), None) => Err(missing(&g.at("max_range"), "the distance within which a station may use a satellite, with visibility = \"range\", e.g. \"1260km\"")),
        (Some(rule), Some(_)) => Err(g.bad("max_range", format!("no max_range with visibility = \"{rule}\" (it is computed from min_elevation)"))),
        (Some("hypatia"), None) => {
            let e = min_elevation.unwrap_or(25.0);
            let Some(w) = walker else {
                return Err(g.bad("visibility", "\"elevation\" or \"range\" with TLE sets: Hypatia's rule takes a Walker shell's altitude (give max_range = altitude / sin(min_elevation), e.g. \"1260km\" for 630 km at 30 degrees)"));
            };
            if e <= 0.0 {
                return Err(g.bad("min_elevation", "a minimum elevation above 0 with visibility = \"hypatia\" (the range is altitude / sin(min_elevation))"));
            }
            Ok(Visibility::MaxRange(w.altitude_km / e.to_radians().sin()))
        }
        _ => Ok(Visibility::MinElevation(min_elevation.unwrap_or(25.0))),
    }
}

/// `[[constellations]]`: satellites appended to `nodes`, ISLs returned as
/// links numbered from `first_link`.
pub(super) fn parse_constellations(
    root: &Tbl,
    run: &LeoRunKeys,
    nodes: &mut Vec<NodeCfg>,
    first_link: usize,
    base_dir: Option<&Path>,
) -> Res<(Vec<ShellCfg>, Vec<LinkCfg>, Option<NaiveDateTime>)> {
    let Some(v) = root.get("constellations") else { return Ok((Vec::new(), Vec::new(), run.epoch)) };
    let what = "an array of constellation tables ([[constellations]] with name, walker or tle_file or tle, isl, gsl)";
    let Value::Array(arr) = v else { return Err(type_error("constellations", v, what)) };
    // first every shell's orbits, so that the epoch is known
    let mut shells = Vec::with_capacity(arr.len());
    let mut tables = Vec::with_capacity(arr.len());
    let mut latest_tle: Option<NaiveDateTime> = None;
    for (i, cv) in arr.iter().enumerate() {
        let mut t = Tbl::new(format!("constellations.{}", i), cv, what)?;
        t.only(SHELL_KEYS)?;
        let name = t.require("name", t.str("name")?, "a name; satellite k is then node \"name-k\"")?;
        check_name(&t, "name", name)?;
        let given: Vec<&str> = ["walker", "tle_file", "tle"].into_iter().filter(|k| t.get(k).is_some()).collect();
        if given.len() != 1 {
            return Err(ScenarioError::new(t.at("walker"), given.join(", "), "exactly one of walker, tle_file or tle"));
        }
        let orbits = match given[0] {
            "walker" => OrbitsCfg::Walker(parse_walker(&t)?),
            key => {
                let text = if key == "tle" {
                    t.str("tle")?.ok_or_else(|| t.bad("tle", "three-line sets as a string"))?.to_string()
                } else {
                    let f = t.str("tle_file")?.ok_or_else(|| t.bad("tle_file", "a path to a file of three-line sets"))?;
                    let path = base_dir.map_or_else(|| Path::new(f).to_path_buf(), |b| b.join(f));
                    std::fs::read_to_string(&path).map_err(|e| t.bad("tle_file", format!("a readable file of three-line sets ({}: {})", path.display(), e)))?
                };
                let sats = parse_three_line_sets(&text).map_err(|e| t.bad(key, format!("valid three-line sets: {}", e)))?;
                if sats.is_empty() {
                    return Err(t.bad(key, "at least one three-line set"));
                }
                for s in &sats {
                    latest_tle = latest_tle.max(Some(s.epoch()));
                }
                OrbitsCfg::Tle(text)
            }
        };
        shells.push((name.to_string(), orbits));
        tables.push(t);
    }
    let epoch = run.epoch.or(latest_tle);
    let mut out = Vec::with_capacity(shells.len());
    let mut links = Vec::new();
    for ((name, orbits), t) in shells.into_iter().zip(tables) {
        let geometry = ShellGeometry::new(&orbits, epoch).map_err(|e| t.bad(if matches!(orbits, OrbitsCfg::Walker(_)) { "walker" } else { "tle" }, e))?;
        let count = geometry.len() as u32;
        let walker = match &orbits {
            OrbitsCfg::Walker(w) => Some(*w),
            OrbitsCfg::Tle(_) => None,
        };
        let cross_seam = t.bool("cross_seam")?.unwrap_or(false);
        if cross_seam && walker.is_none_or(|w| w.kind != WalkerKind::Star) {
            return Err(t.bad("cross_seam", "false: cross-seam links are a Walker star option (a delta shell always has them)"));
        }
        let isls = parse_isls(&t, count, walker.as_ref(), cross_seam)?;
        let isl = parse_isl(&t, !isls.is_empty())?;
        let gsl = parse_gsl(&t, walker.as_ref())?;
        let attach = match t.choice("attach", ATTACH)? {
            Some("nearest") => Attach::Nearest,
            Some("longest-visible") => Attach::LongestVisible,
            Some("reassign-15s") => Attach::Reassign15s,
            _ => Attach::ShortestPath,
        };
        let reassign_offset_ns = match t.duration("reassign_offset")? {
            Some(d) if d >= 60_000_000_000 => return Err(t.bad("reassign_offset", "seconds past the minute at t = 0, in [0s, 60s)")),
            Some(d) => d,
            None => 0,
        };
        let reassign_pick = match t.choice("reassign_pick", &["nearest", "another"])? {
            Some("another") => ReassignPick::Another,
            _ => ReassignPick::Nearest,
        };
        if t.get("reassign_pick").is_some() && attach != Attach::Reassign15s {
            return Err(t.bad("reassign_pick", "no reassign_pick: it goes with attach = \"reassign-15s\""));
        }
        let first_node = nodes.len();
        // a set, not a search per satellite: a shell of 37,000 satellites
        // took the parser 1.4 s (a fuzz finding); this shell's own names
        // differ by their index
        let existing: std::collections::HashSet<&str> = nodes.iter().map(|n| n.name.as_str()).collect();
        let mut sats = Vec::with_capacity(count as usize);
        for k in 0..count {
            let n = format!("{}-{}", name, k);
            if existing.contains(n.as_str()) {
                return Err(t.bad("name", format!("a name whose satellites (\"{}\") clash with no other node", n)));
            }
            sats.push(NodeCfg { name: n });
        }
        drop(existing);
        nodes.extend(sats);
        let first = first_link + links.len();
        let at0 = geometry.positions(0.0);
        for &(a, b) in &isls {
            let mut dir = isl.dir.clone();
            dir.delay_ns = light_ns(at0[a as usize].dist(at0[b as usize]));
            links.push(LinkCfg {
                a: first_node + a as usize,
                b: first_node + b as usize,
                dirs: [dir.clone(), dir],
                changes: Vec::new(),
                arq: None,
            });
        }
        out.push(ShellCfg {
            name,
            first_node,
            satellites: count,
            orbits,
            first_link: first,
            isls,
            isl_max_range_km: isl.max_range_km,
            isl_min_grazing_km: isl.min_grazing_km,
            gsl_up: gsl.up,
            gsl_down: gsl.down,
            visibility: gsl.visibility,
            device: gsl.device,
            attach,
            handover: gsl.handover,
            reassign_offset_ns,
            reassign_pick,
        });
    }
    Ok((out, links, epoch))
}

/// `[[paths]]`: pairs of nodes whose path is traced.
pub(super) fn parse_paths(root: &Tbl, nodes: &[NodeCfg]) -> Res<Vec<(usize, usize)>> {
    let Some(v) = root.get("paths") else { return Ok(Vec::new()) };
    let what = "an array of path tables ([[paths]] with src and dst)";
    let Value::Array(arr) = v else { return Err(type_error("paths", v, what)) };
    let mut out = Vec::with_capacity(arr.len());
    for (i, pv) in arr.iter().enumerate() {
        let mut t = Tbl::new(format!("paths.{}", i), pv, what)?;
        t.only(&["src", "dst"])?;
        let src = node_ref(&t, "src", nodes)?;
        let dst = node_ref(&t, "dst", nodes)?;
        if src == dst {
            return Err(t.bad("dst", "a node other than src"));
        }
        out.push((src, dst));
    }
    Ok(out)
}
