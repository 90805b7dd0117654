//! Where a ground station is at a run's instant: fixed, along a track of
//! timed fixes, or along a great-circle route at a constant speed; and
//! which way it is heading (for obstruction masks turned with the vehicle,
//! `leo/obstruction.rs`).
//!
//! * Great circles on the normal sphere. A point is its n-vector, the unit
//!   normal of the WGS84 ellipsoid at its geodetic latitude and longitude
//!   (the station's "up", `frames::up`); between two points the station
//!   moves along the great circle of their n-vectors (spherical linear
//!   interpolation), the standard way of interpolating geodetic positions
//!   without a singularity at the poles or the antimeridian (Gade, "A
//!   non-singular horizontal position representation", J. Navigation 63,
//!   2010). Each interpolated n-vector is turned back into a geodetic
//!   latitude and longitude and placed on the ellipsoid as a fixed station
//!   is (`frames::geodetic_to_ecef`). The normal sphere's great circle and
//!   the ellipsoid's geodesic differ by at most a few hundred metres over
//!   an ocean crossing (the flattening); a track's fixes are close enough
//!   that the difference is centimetres.
//! * Tracks: at a fix's instant the station is exactly at the fix (its
//!   latitude, longitude and height as written); between two fixes the
//!   fraction of the way along the great circle is the fraction of the time
//!   between them (constant speed along each leg), and the height is
//!   linear in time. Before the first fix the station holds at the first;
//!   after the last, at the last. Two fixes at the same instant are a jump:
//!   from that instant on the later one holds.
//! * Routes: `from` to `to` at `speed`, leaving at `depart`: the distance
//!   covered is speed x time on the mean sphere (6,371 km, the radius
//!   great-circle distances are quoted on; the ellipsoid's differs by under
//!   0.5%). Before departure it holds at `from`, after arrival at `to`.
//! * Heading: the azimuth of the direction of travel at the station's
//!   position, degrees clockwise from true north in [0, 360). While a
//!   station holds (before departure or the first fix, after arrival or the
//!   last, on a leg between two equal fixes) its heading is that of the
//!   nearest leg on which it moves: the last one before, else the first one
//!   after; a station that never moves heads north (0).
//! * Two antipodal points have no single great circle between them: a leg
//!   or route whose ends are within 0.01 degrees of antipodal is refused
//!   when the scenario is read (`leg_ok`).

use super::frames::{up, Vec3, EARTH_RADIUS};
use crate::sim::Time;

/// A timed fix of a track.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct Fix {
    /// Run time (ns).
    pub t: Time,
    pub lat_deg: f64,
    pub lon_deg: f64,
    pub alt_km: f64,
}

/// How a station moves.
#[derive(Clone, Debug, PartialEq)]
pub enum Motion {
    Fixed { lat_deg: f64, lon_deg: f64, alt_km: f64 },
    /// At least one fix, times non-decreasing.
    Track(Vec<Fix>),
    /// A great circle from `from` to `to` (latitude, longitude in degrees)
    /// at `speed_km_s`, leaving at `depart`.
    Route { from: (f64, f64), to: (f64, f64), alt_km: f64, speed_km_s: f64, depart: Time },
}

/// Where a station is and which way it heads.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct Pose {
    pub lat_deg: f64,
    pub lon_deg: f64,
    pub alt_km: f64,
    /// Degrees clockwise from true north, in [0, 360).
    pub heading_deg: f64,
}

/// The smallest angle (rad) between two unit vectors (atan2: exact near 0
/// and pi, where acos is not).
fn angle(a: Vec3, b: Vec3) -> f64 {
    cross(a, b).norm().atan2(a.dot(b))
}

fn cross(a: Vec3, b: Vec3) -> Vec3 {
    Vec3::new(a.y * b.z - a.z * b.y, a.z * b.x - a.x * b.z, a.x * b.y - a.y * b.x)
}

/// The n-vector a fraction `f` of the way from `a` to `b` along their
/// great circle (`a` when they coincide).
fn slerp(a: Vec3, b: Vec3, f: f64) -> Vec3 {
    let w = angle(a, b);
    if w < 1e-15 {
        return a;
    }
    let (ka, kb) = (((1.0 - f) * w).sin() / w.sin(), (f * w).sin() / w.sin());
    Vec3::new(ka * a.x + kb * b.x, ka * a.y + kb * b.y, ka * a.z + kb * b.z)
}

/// Geodetic latitude and longitude (degrees) of an n-vector.
fn lat_lon(n: Vec3) -> (f64, f64) {
    (n.z.atan2((n.x * n.x + n.y * n.y).sqrt()).to_degrees(), n.y.atan2(n.x).to_degrees())
}

/// The local east and north unit vectors (ECEF) at a geodetic latitude and
/// longitude: the tangent plane of the n-vector.
pub fn east_north(lat_deg: f64, lon_deg: f64) -> (Vec3, Vec3) {
    let (sl, cl) = lat_deg.to_radians().sin_cos();
    let (so, co) = lon_deg.to_radians().sin_cos();
    (Vec3::new(-so, co, 0.0), Vec3::new(-sl * co, -sl * so, cl))
}

/// An angle in degrees brought into [0, 360).
pub fn wrap_360(deg: f64) -> f64 {
    let d = deg.rem_euclid(360.0);
    if d >= 360.0 {
        0.0
    } else {
        d
    }
}

/// The azimuth (degrees clockwise from north) of the direction from `p`
/// towards `b` along their great circle, or away from `a` when `p` is at
/// `b` (the end of a leg): the heading of travel from `a` to `b` at `p`.
fn course(p: Vec3, a: Vec3, b: Vec3) -> f64 {
    let toward = |q: Vec3, sign: f64| q.sub(p.scale(p.dot(q))).scale(sign);
    let mut d = toward(b, 1.0);
    if d.norm() < 1e-12 {
        d = toward(a, -1.0);
    }
    let (lat, lon) = lat_lon(p);
    let (e, n) = east_north(lat, lon);
    wrap_360(d.dot(e).atan2(d.dot(n)).to_degrees())
}

/// Whether a station can move from one point to another along a single
/// great circle (they are not within 0.01 degrees of antipodal).
pub fn leg_ok(a: (f64, f64), b: (f64, f64)) -> bool {
    angle(up(a.0, a.1), up(b.0, b.1)).to_degrees() < 179.99
}

/// The great-circle distance (km, mean sphere) between two points.
pub fn distance_km(a: (f64, f64), b: (f64, f64)) -> f64 {
    EARTH_RADIUS * angle(up(a.0, a.1), up(b.0, b.1))
}

/// A leg from `a` to `b` a fraction `f` of the way along: its latitude,
/// longitude and heading (`a` itself, exactly, at f = 0; `b` at f = 1).
fn along(a: (f64, f64), b: (f64, f64), f: f64) -> (f64, f64, f64) {
    let (na, nb) = (up(a.0, a.1), up(b.0, b.1));
    let (lat, lon) = if f <= 0.0 {
        a
    } else if f >= 1.0 {
        b
    } else {
        lat_lon(slerp(na, nb, f))
    };
    let p = if f <= 0.0 { na } else if f >= 1.0 { nb } else { up(lat, lon) };
    (lat, lon, course(p, na, nb))
}

/// Whether the leg from `a` to `b` moves at all.
fn moves(a: (f64, f64), b: (f64, f64)) -> bool {
    angle(up(a.0, a.1), up(b.0, b.1)) >= 1e-15
}

impl Motion {
    pub fn is_fixed(&self) -> bool {
        matches!(self, Motion::Fixed { .. })
    }

    /// The station at run time `t` (ns).
    pub fn at(&self, t: Time) -> Pose {
        match self {
            &Motion::Fixed { lat_deg, lon_deg, alt_km } => Pose { lat_deg, lon_deg, alt_km, heading_deg: 0.0 },
            Motion::Track(fixes) => track_at(fixes, t),
            &Motion::Route { from, to, alt_km, speed_km_s, depart } => {
                let total = distance_km(from, to);
                let gone = if t <= depart { 0.0 } else { speed_km_s * (t - depart) as f64 * 1e-9 };
                let f = if total > 0.0 { (gone / total).min(1.0) } else { 0.0 };
                let (lat_deg, lon_deg, heading_deg) = along(from, to, f);
                Pose { lat_deg, lon_deg, alt_km, heading_deg }
            }
        }
    }
}

fn track_at(fixes: &[Fix], t: Time) -> Pose {
    let ll = |f: &Fix| (f.lat_deg, f.lon_deg);
    // the leg in use: the last fix at or before t, and the next
    let i = fixes.partition_point(|f| f.t <= t);
    let (lat_deg, lon_deg, alt_km, leg) = if i == 0 {
        let f = &fixes[0];
        (f.lat_deg, f.lon_deg, f.alt_km, 0)
    } else if i == fixes.len() {
        let f = &fixes[i - 1];
        (f.lat_deg, f.lon_deg, f.alt_km, i - 1)
    } else {
        let (a, b) = (&fixes[i - 1], &fixes[i]);
        let frac = (t - a.t) as f64 / (b.t - a.t) as f64;
        if t == a.t {
            (a.lat_deg, a.lon_deg, a.alt_km, i - 1)
        } else {
            let (lat, lon, _) = along(ll(a), ll(b), frac);
            (lat, lon, a.alt_km + (b.alt_km - a.alt_km) * frac, i - 1)
        }
    };
    // the heading: this leg's if the station is on it and it moves, else
    // the nearest moving leg's: the last before (at its end), else the
    // first after (at its start); a jump (two fixes at one instant) is no
    // leg to head along
    let n = fixes.len();
    let moving = |k: usize| k + 1 < n && fixes[k + 1].t > fixes[k].t && moves(ll(&fixes[k]), ll(&fixes[k + 1]));
    let on_leg = i > 0 && i < n;
    let heading_deg = if on_leg && moving(leg) {
        course(up(lat_deg, lon_deg), up(fixes[leg].lat_deg, fixes[leg].lon_deg), up(fixes[leg + 1].lat_deg, fixes[leg + 1].lon_deg))
    } else {
        // legs wholly behind the station: before `leg`, or every leg once
        // past the last fix
        let behind = if i == n { n.saturating_sub(1) } else if i == 0 { 0 } else { leg };
        if let Some(k) = (0..behind).rev().find(|&k| moving(k)) {
            along(ll(&fixes[k]), ll(&fixes[k + 1]), 1.0).2
        } else if let Some(k) = (behind..n.saturating_sub(1)).find(|&k| moving(k)) {
            along(ll(&fixes[k]), ll(&fixes[k + 1]), 0.0).2
        } else {
            0.0
        }
    };
    Pose { lat_deg, lon_deg, alt_km, heading_deg }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::leo::frames::geodetic_to_ecef;

    const S: Time = 1_000_000_000;

    fn fix(t: u64, lat: f64, lon: f64) -> Fix {
        Fix { t: t * S, lat_deg: lat, lon_deg: lon, alt_km: 0.0 }
    }

    #[test]
    fn along_the_equator_and_a_meridian_by_hand() {
        // the equator from 0 to 90 E: a quarter of the way is 22.5 E,
        // heading east
        let (lat, lon, h) = along((0.0, 0.0), (0.0, 90.0), 0.25);
        assert!(lat.abs() < 1e-12 && (lon - 22.5).abs() < 1e-12 && (h - 90.0).abs() < 1e-9, "{lat} {lon} {h}");
        // a meridian southwards: heading 180
        let (lat, lon, h) = along((40.0, 10.0), (20.0, 10.0), 0.5);
        assert!((lat - 30.0).abs() < 1e-12 && (lon - 10.0).abs() < 1e-12 && (h - 180.0).abs() < 1e-9);
        // across the antimeridian: 170 E to 170 W the short way, through 180
        let (lat, lon, h) = along((0.0, 170.0), (0.0, -170.0), 0.5);
        assert!(lat.abs() < 1e-12 && (lon.abs() - 180.0).abs() < 1e-9 && (h - 90.0).abs() < 1e-9, "{lon}");
        // over the pole: 80 N 0 E to 80 N 180 E passes 90 N
        let (lat, _, _) = along((80.0, 0.0), (80.0, 180.0), 0.5);
        assert!((lat - 90.0).abs() < 1e-9);
    }

    #[test]
    fn a_track_is_followed_fix_to_fix() {
        // Paris to New York and back to a hold
        let track = Motion::Track(vec![fix(10, 48.8566, 2.3522), fix(100, 40.7128, -74.0060), fix(120, 40.7128, -74.0060)]);
        // at the fixes: exactly the fixes
        for (t, lat, lon) in [(10, 48.8566, 2.3522), (100, 40.7128, -74.0060), (120, 40.7128, -74.0060)] {
            let p = track.at(t * S);
            assert_eq!((p.lat_deg, p.lon_deg), (lat, lon));
        }
        // held before the first and after the last
        assert_eq!((track.at(0).lat_deg, track.at(0).lon_deg), (48.8566, 2.3522));
        assert_eq!((track.at(500 * S).lat_deg, track.at(500 * S).lon_deg), (40.7128, -74.0060));
        // the midpoint in time is on the great circle, equidistant from
        // both ends, and the two halves add up to the whole
        let (a, b) = ((48.8566, 2.3522), (40.7128, -74.0060));
        let m = track.at(55 * S);
        let mid = (m.lat_deg, m.lon_deg);
        let (da, db, dab) = (distance_km(a, mid), distance_km(mid, b), distance_km(a, b));
        assert!((da - db).abs() < 1e-6 && (da + db - dab).abs() < 1e-6, "{da} {db} {dab}");
        // the heading leaving Paris for New York: the initial great-circle
        // course by the spherical formula, 291.8 degrees
        let (p1, p2, dl) = (a.0.to_radians(), b.0.to_radians(), (b.1 - a.1).to_radians());
        let want = wrap_360((dl.sin() * p2.cos()).atan2(p1.cos() * p2.sin() - p1.sin() * p2.cos() * dl.cos()).to_degrees());
        assert!((track.at(10 * S).heading_deg - want).abs() < 1e-9 && (want - 291.8).abs() < 0.1, "{want}");
        // held before the first fix: the first leg's initial heading; after
        // the last (a leg that does not move): the first leg's final one
        assert!((track.at(0).heading_deg - want).abs() < 1e-9);
        let end = along(a, b, 1.0).2;
        assert!((track.at(110 * S).heading_deg - end).abs() < 1e-9 && (track.at(500 * S).heading_deg - end).abs() < 1e-9);
    }

    #[test]
    fn height_is_linear_and_a_jump_takes_the_later_fix() {
        let mut a = fix(0, 0.0, 0.0);
        a.alt_km = 1.0;
        let mut b = fix(10, 0.0, 1.0);
        b.alt_km = 11.0;
        let c = fix(10, 5.0, 5.0);
        let track = Motion::Track(vec![a, b, c]);
        assert!((track.at(5 * S).alt_km - 6.0).abs() < 1e-12);
        let p = track.at(10 * S);
        assert_eq!((p.lat_deg, p.lon_deg), (5.0, 5.0));
        // a single fix: a station that never moves, heading north
        let one = Motion::Track(vec![fix(3, 1.0, 2.0)]);
        assert_eq!(one.at(0), Pose { lat_deg: 1.0, lon_deg: 2.0, alt_km: 0.0, heading_deg: 0.0 });
    }

    #[test]
    fn a_route_moves_at_its_speed() {
        // 900 km/h along the equator from 0 E: after an hour 900 km east,
        // 900 / 6371 rad of longitude
        let r = Motion::Route { from: (0.0, 0.0), to: (0.0, 60.0), alt_km: 10.0, speed_km_s: 0.25, depart: 100 * S };
        assert_eq!(r.at(50 * S).lon_deg, 0.0);
        let p = r.at(3700 * S);
        assert!((p.lon_deg - (900.0f64 / EARTH_RADIUS).to_degrees()).abs() < 1e-9 && p.lat_deg.abs() < 1e-12 && p.alt_km == 10.0);
        assert!((p.heading_deg - 90.0).abs() < 1e-9);
        // arrived: held at the destination, still heading east
        let end = r.at(100_000 * S);
        assert_eq!((end.lat_deg, end.lon_deg), (0.0, 60.0));
        assert!((end.heading_deg - 90.0).abs() < 1e-9);
        // arrival: 60 degrees of the mean sphere at 0.25 km/s after 100 s
        let arrive = 100.0 + 60f64.to_radians() * EARTH_RADIUS / 0.25;
        assert!((r.at((arrive * 1e9) as Time - S).lon_deg - 60.0).abs() > 0.002);
        assert!((r.at((arrive * 1e9) as Time + 1).lon_deg - 60.0).abs() < 1e-12);
    }

    #[test]
    fn the_ellipsoid_position_of_a_pose_is_the_fixed_station_s() {
        // a moving station at a fix is placed exactly as a fixed one there
        let track = Motion::Track(vec![fix(0, 45.0, 7.0), fix(60, 46.0, 8.0)]);
        let p = track.at(0);
        assert_eq!(geodetic_to_ecef(p.lat_deg, p.lon_deg, p.alt_km), geodetic_to_ecef(45.0, 7.0, 0.0));
        assert!(leg_ok((0.0, 0.0), (0.0, 179.0)) && !leg_ok((10.0, 20.0), (-10.0, -160.0)));
    }
}
