//! What sees what: whether a ground station may use a satellite, and
//! whether two satellites have a line of sight above a grazing altitude.
//!
//! * Elevation (the default rule): the angle between the
//!   station-to-satellite vector and the station's local horizontal plane,
//!   "up" being the WGS84 normal (geodetic elevation, as ground-station
//!   software reports it). A satellite is in view at or above the minimum
//!   elevation.
//! * Range (Hypatia's rule, satgenpy's `generate_dynamic_state`): a
//!   satellite is usable when its straight distance from the station is at
//!   most the maximum range; Hypatia sets it to altitude / sin(min
//!   elevation), the slant range at that elevation over a flat Earth. The
//!   Earth's limb is not checked, as Hypatia does not: a range beyond the
//!   distance to the horizon (2,900 km from a 630 km shell) lets a station
//!   use satellites below its horizon.
//! * Inter-satellite line of sight: the segment between the two must pass
//!   at least `min_grazing_km` above the mean Earth sphere (the
//!   atmosphere's refraction and absorption rule out a beam through it);
//!   and the two must be within `max_range_km`.
//! * Azimuth and elevation (for obstruction masks, `leo/obstruction.rs`):
//!   the station-to-satellite vector in the station's local east-north-up
//!   frame (geodetic: up the WGS84 normal, north towards the pole along
//!   the meridian, east along the parallel); azimuth clockwise from true
//!   north in [0, 360), elevation as above.

use super::frames::{geodetic_to_ecef, up, Vec3, EARTH_RADIUS};
use super::motion::{east_north, wrap_360};

/// Which satellites a ground station may use.
#[derive(Clone, Copy, Debug, PartialEq)]
pub enum Visibility {
    /// Geodetic elevation at least this many degrees.
    MinElevation(f64),
    /// Distance from the station at most this many km.
    MaxRange(f64),
}

impl Visibility {
    /// The central angle (degrees) of the coverage cone of a station on the
    /// mean sphere for satellites at `altitude_km`.
    pub fn coverage_angle_deg(self, altitude_km: f64) -> f64 {
        match self {
            Visibility::MinElevation(e) => coverage_angle_deg(altitude_km, e),
            Visibility::MaxRange(r) => range_coverage_angle_deg(altitude_km, r),
        }
    }
}

/// A ground station: where it is, in ECEF, and its local frame.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct Station {
    pub pos: Vec3,
    pub up: Vec3,
    pub east: Vec3,
    pub north: Vec3,
}

impl Station {
    pub fn new(lat_deg: f64, lon_deg: f64, alt_km: f64) -> Self {
        let (east, north) = east_north(lat_deg, lon_deg);
        Station { pos: geodetic_to_ecef(lat_deg, lon_deg, alt_km), up: up(lat_deg, lon_deg), east, north }
    }

    /// Azimuth (degrees clockwise from true north, in [0, 360)) and
    /// elevation (degrees) of a point given in ECEF.
    pub fn azimuth_elevation_deg(&self, sat: Vec3) -> (f64, f64) {
        let d = sat.sub(self.pos);
        (wrap_360(d.dot(self.east).atan2(d.dot(self.north)).to_degrees()), self.elevation_deg(sat))
    }

    /// Elevation (degrees) of a point given in ECEF.
    pub fn elevation_deg(&self, sat: Vec3) -> f64 {
        let d = sat.sub(self.pos);
        (d.dot(self.up) / d.norm()).clamp(-1.0, 1.0).asin().to_degrees()
    }

    /// Whether the station may use a satellite at `sat` (ECEF; never one
    /// at NaN, where SGP4 cannot place it).
    pub fn sees(&self, rule: Visibility, sat: Vec3) -> bool {
        match rule {
            Visibility::MinElevation(e) => self.elevation_deg(sat) >= e,
            Visibility::MaxRange(r) => self.pos.dist(sat) <= r,
        }
    }
}

/// The lowest altitude (km above the mean sphere) of the segment a-b.
pub fn grazing_altitude(a: Vec3, b: Vec3) -> f64 {
    let d = b.sub(a);
    let len2 = d.dot(d);
    let t = if len2 == 0.0 { 0.0 } else { (-a.dot(d) / len2).clamp(0.0, 1.0) };
    a.sub(d.scale(-t)).norm() - EARTH_RADIUS
}

/// Whether satellites at `a` and `b` can link: in range and the beam above
/// `min_grazing_km`.
pub fn isl_possible(a: Vec3, b: Vec3, max_range_km: f64, min_grazing_km: f64) -> bool {
    a.dist(b) <= max_range_km && grazing_altitude(a, b) >= min_grazing_km
}

/// The Earth central angle (degrees) between a station and the sub-point
/// of a satellite at `altitude_km` seen at `elevation_deg` (spherical
/// Earth): the radius of the station's coverage cone.
pub fn coverage_angle_deg(altitude_km: f64, elevation_deg: f64) -> f64 {
    let e = elevation_deg.to_radians();
    let nadir = (EARTH_RADIUS * e.cos() / (EARTH_RADIUS + altitude_km)).asin();
    90.0 - elevation_deg - nadir.to_degrees()
}

/// The Earth central angle (degrees) between a point on the mean sphere
/// and the sub-point of a satellite at `altitude_km` whose distance from
/// the point is `range_km` (the law of cosines; 180 when the whole shell is
/// within range).
pub fn range_coverage_angle_deg(altitude_km: f64, range_km: f64) -> f64 {
    let (r, a) = (EARTH_RADIUS, EARTH_RADIUS + altitude_km);
    ((r * r + a * a - range_km * range_km) / (2.0 * r * a)).clamp(-1.0, 1.0).acos().to_degrees()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn overhead_and_horizon() {
        let st = Station::new(48.8566, 2.3522, 0.035);
        // a point straight up the normal is at 90 degrees
        assert!((st.elevation_deg(st.pos.sub(st.up.scale(-550.0))) - 90.0).abs() < 1e-9);
        // a point along the horizontal plane is at 0
        let east = Vec3::new(-(2.3522f64).to_radians().sin(), (2.3522f64).to_radians().cos(), 0.0);
        assert!(st.elevation_deg(st.pos.sub(east.scale(-1000.0))).abs() < 1e-9);
        // below the horizon: negative
        assert!(st.elevation_deg(st.pos.sub(st.up.scale(100.0))) < -89.0);
    }

    /// Azimuth and elevation by hand, and against the textbook ECEF -> ENU
    /// rotation matrix written out here.
    #[test]
    fn azimuth_and_elevation_by_hand() {
        // on the equator at 0 E: up is +x, east +y, north +z
        let st = Station::new(0.0, 0.0, 0.0);
        let at = |dx: f64, dy: f64, dz: f64| st.azimuth_elevation_deg(st.pos.sub(Vec3::new(-dx, -dy, -dz)));
        let close = |(a, e): (f64, f64), (wa, we): (f64, f64)| (a - wa).abs() < 1e-9 && (e - we).abs() < 1e-9;
        // 500 km up and 500 km east: 45 degrees up, due east
        assert!(close(at(500.0, 500.0, 0.0), (90.0, 45.0)), "{:?}", at(500.0, 500.0, 0.0));
        // up and north: azimuth 0; up and south: 180; up and west: 270
        assert!(close(at(500.0, 0.0, 500.0), (0.0, 45.0)));
        assert!(close(at(500.0, 0.0, -500.0), (180.0, 45.0)));
        assert!(close(at(500.0, -500.0, 0.0), (270.0, 45.0)));
        // north-east at 30 degrees: up = tan 30 x the horizontal distance
        let h = 1000.0 * 30f64.to_radians().tan();
        assert!(close(at(h, 1000.0 / 2f64.sqrt(), 1000.0 / 2f64.sqrt()), (45.0, 30.0)));
        // just west of north wraps to just under 360
        let (a, _) = at(500.0, -1e-3, 500.0);
        assert!(a > 359.99 && a < 360.0, "{a}");
        // anywhere: the ENU rotation matrix
        // [-sin lon, cos lon, 0; -sin lat cos lon, -sin lat sin lon, cos lat;
        //  cos lat cos lon, cos lat sin lon, sin lat]
        for &(lat, lon, alt) in &[(48.8566f64, 2.3522f64, 0.035), (-33.9, 151.2, 0.0), (71.0, -156.8, 0.0), (0.5, 179.9, 10.0)] {
            let st = Station::new(lat, lon, alt);
            let (la, lo) = (lat.to_radians(), lon.to_radians());
            for sat in [Vec3::new(6000.0, 2000.0, 3000.0), Vec3::new(-4000.0, -1000.0, -5500.0), Vec3::new(1000.0, 6800.0, 100.0)] {
                let d = sat.sub(st.pos);
                let e = -lo.sin() * d.x + lo.cos() * d.y;
                let n = -la.sin() * lo.cos() * d.x - la.sin() * lo.sin() * d.y + la.cos() * d.z;
                let u = la.cos() * lo.cos() * d.x + la.cos() * lo.sin() * d.y + la.sin() * d.z;
                let want_az = e.atan2(n).to_degrees().rem_euclid(360.0);
                let want_el = u.atan2((e * e + n * n).sqrt()).to_degrees();
                let (az, el) = st.azimuth_elevation_deg(sat);
                assert!((az - want_az).abs() < 1e-9 && (el - want_el).abs() < 1e-9, "{lat} {lon}: {az} {el} against {want_az} {want_el}");
            }
        }
    }

    #[test]
    fn the_coverage_cone_matches_the_elevation() {
        // on a spherical Earth: a satellite at 550 km over a point at the
        // coverage angle from an equatorial station is seen at 25 degrees;
        // by hand: nadir angle asin(6371 cos 25 / 6921) = 56.54, so the
        // central angle is 90 - 25 - 56.54 = 8.46 degrees
        let lambda = coverage_angle_deg(550.0, 25.0);
        assert!((lambda - 8.46).abs() < 0.01, "{lambda}");
        let r = EARTH_RADIUS + 550.0;
        let sat = Vec3::new(r * lambda.to_radians().cos(), r * lambda.to_radians().sin(), 0.0);
        let station = Station { pos: Vec3::new(EARTH_RADIUS, 0.0, 0.0), ..Station::new(0.0, 0.0, 0.0) };
        assert!((station.elevation_deg(sat) - 25.0).abs() < 1e-9);
    }

    #[test]
    fn the_range_cone_matches_the_distance() {
        // a satellite at 630 km over a point at the range rule's coverage
        // angle from a station on the mean sphere is exactly 1,260 km away
        // (Hypatia's 30 degrees); by hand: cos = (6371^2 + 7001^2 - 1260^2)
        // / (2 x 6371 x 7001) = 0.986652, 9.372 degrees
        let rule = Visibility::MaxRange(630.0 / 30f64.to_radians().sin());
        let lambda = rule.coverage_angle_deg(630.0);
        assert!((lambda - 9.372).abs() < 0.001, "{lambda}");
        let r = EARTH_RADIUS + 630.0;
        let sat = Vec3::new(r * lambda.to_radians().cos(), r * lambda.to_radians().sin(), 0.0);
        let station = Station { pos: Vec3::new(EARTH_RADIUS, 0.0, 0.0), ..Station::new(0.0, 0.0, 0.0) };
        assert!((station.pos.dist(sat) - 1260.0).abs() < 1e-9);
        assert!(station.sees(rule, sat.scale(1.0 - 1e-9)) && !station.sees(rule, sat.scale(1.0 + 1e-6)));
        // a range past the far side of the shell: every satellite
        assert_eq!(Visibility::MaxRange(20_000.0).coverage_angle_deg(630.0), 180.0);
    }

    #[test]
    fn line_of_sight_between_satellites() {
        let r = EARTH_RADIUS + 550.0;
        let at = |deg: f64| Vec3::new(r * deg.to_radians().cos(), r * deg.to_radians().sin(), 0.0);
        // close neighbours: the beam stays near the orbit
        assert!((grazing_altitude(at(0.0), at(16.36)) - (r * (8.18f64).to_radians().cos() - EARTH_RADIUS)).abs() < 1e-6);
        assert!(isl_possible(at(0.0), at(16.36), 5016.0, 80.0));
        // 45 degrees apart: 5296 km, beyond a 5016 km range
        assert!(!isl_possible(at(0.0), at(45.0), 5016.0, 80.0));
        // 40 degrees apart (4734 km): the beam dips to 6921 cos 20 - 6371 =
        // 132.6 km: fine at 80 km, not at 200
        let g = grazing_altitude(at(0.0), at(40.0));
        assert!((g - 132.6).abs() < 0.1, "{g}");
        assert!(isl_possible(at(0.0), at(40.0), 6000.0, 80.0) && !isl_possible(at(0.0), at(40.0), 6000.0, 200.0));
    }
}
