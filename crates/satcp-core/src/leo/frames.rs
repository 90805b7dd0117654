//! Frames and constants for constellations: vectors in km, Earth-centred
//! inertial (ECI) and Earth-centred Earth-fixed (ECEF) frames, geodetic
//! coordinates on the WGS84 ellipsoid.
//!
//! * ECI -> ECEF: a rotation about z by the Earth rotation angle theta(t) =
//!   `OMEGA_EARTH` x t, with theta(0) = 0 (the run's epoch puts the prime
//!   meridian on the ECI x axis; a constellation's absolute orientation at
//!   the epoch is its RAANs). No precession, nutation or polar motion: over
//!   a run of minutes to hours they move a satellite by metres.
//! * Ground stations: geodetic latitude, longitude and height on WGS84 ->
//!   ECEF (the standard closed form); "up" is the ellipsoid's normal.
//! * Light travels at c in vacuum on every satellite link.

/// Earth's gravitational parameter (km^3/s^2, WGS84).
pub const GM_EARTH: f64 = 398_600.4418;
/// Earth's rotation rate (rad/s, sidereal).
pub const OMEGA_EARTH: f64 = 7.292_115_9e-5;
/// WGS84 equatorial radius (km) and flattening.
pub const WGS84_A: f64 = 6378.137;
pub const WGS84_F: f64 = 1.0 / 298.257_223_563;
/// Mean Earth radius (km): orbit altitudes are above it for circular
/// Walker shells, as constellation filings give them.
pub const EARTH_RADIUS: f64 = 6371.0;
/// Speed of light (km/s).
pub const C_KM_S: f64 = 299_792.458;

#[derive(Clone, Copy, Debug, PartialEq)]
pub struct Vec3 {
    pub x: f64,
    pub y: f64,
    pub z: f64,
}

impl Vec3 {
    pub const fn new(x: f64, y: f64, z: f64) -> Self {
        Vec3 { x, y, z }
    }

    pub fn dot(self, o: Vec3) -> f64 {
        self.x * o.x + self.y * o.y + self.z * o.z
    }

    pub fn norm(self) -> f64 {
        self.dot(self).sqrt()
    }

    pub fn sub(self, o: Vec3) -> Vec3 {
        Vec3::new(self.x - o.x, self.y - o.y, self.z - o.z)
    }

    pub fn scale(self, k: f64) -> Vec3 {
        Vec3::new(self.x * k, self.y * k, self.z * k)
    }

    pub fn dist(self, o: Vec3) -> f64 {
        self.sub(o).norm()
    }

    /// Rotated about z by `angle` (rad).
    pub fn rot_z(self, angle: f64) -> Vec3 {
        let (s, c) = angle.sin_cos();
        Vec3::new(c * self.x - s * self.y, s * self.x + c * self.y, self.z)
    }
}

/// ECI -> ECEF at `t` seconds after the epoch.
pub fn eci_to_ecef(p: Vec3, t: f64) -> Vec3 {
    p.rot_z(-OMEGA_EARTH * t)
}

/// Geodetic latitude and longitude (degrees) and height (km) on WGS84 ->
/// ECEF (km).
pub fn geodetic_to_ecef(lat_deg: f64, lon_deg: f64, h_km: f64) -> Vec3 {
    let (lat, lon) = (lat_deg.to_radians(), lon_deg.to_radians());
    let e2 = WGS84_F * (2.0 - WGS84_F);
    let n = WGS84_A / (1.0 - e2 * lat.sin().powi(2)).sqrt();
    Vec3::new((n + h_km) * lat.cos() * lon.cos(), (n + h_km) * lat.cos() * lon.sin(), (n * (1.0 - e2) + h_km) * lat.sin())
}

/// The local "up" at a geodetic latitude and longitude: the ellipsoid's
/// outward normal, a unit vector in ECEF.
pub fn up(lat_deg: f64, lon_deg: f64) -> Vec3 {
    let (lat, lon) = (lat_deg.to_radians(), lon_deg.to_radians());
    Vec3::new(lat.cos() * lon.cos(), lat.cos() * lon.sin(), lat.sin())
}

/// The light time (ns) over `km`.
pub fn light_ns(km: f64) -> u64 {
    (km / C_KM_S * 1e9).round() as u64
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn geodetic_closed_forms() {
        // the equator at the prime meridian: the equatorial radius on x
        let p = geodetic_to_ecef(0.0, 0.0, 0.0);
        assert!((p.x - WGS84_A).abs() < 1e-9 && p.y.abs() < 1e-9 && p.z.abs() < 1e-9);
        // the pole: the polar radius b = a (1 - f) on z
        let n = geodetic_to_ecef(90.0, 0.0, 0.0);
        assert!((n.z - WGS84_A * (1.0 - WGS84_F)).abs() < 1e-6, "{n:?}");
        // height adds along the normal
        let h = geodetic_to_ecef(45.0, 30.0, 1.0).sub(geodetic_to_ecef(45.0, 30.0, 0.0));
        assert!((h.norm() - 1.0).abs() < 1e-9);
        assert!((h.scale(1.0 / h.norm()).dot(up(45.0, 30.0)) - 1.0).abs() < 1e-12);
    }

    #[test]
    fn the_earth_turns_once_a_sidereal_day() {
        let p = Vec3::new(7000.0, 0.0, 100.0);
        // a quarter of a sidereal day later the ECEF frame has turned 90 degrees east
        let q = eci_to_ecef(p, std::f64::consts::FRAC_PI_2 / OMEGA_EARTH);
        assert!((q.x).abs() < 1e-6 && (q.y + 7000.0).abs() < 1e-6 && q.z == 100.0, "{q:?}");
        assert_eq!(light_ns(C_KM_S), 1_000_000_000);
    }
}
