//! Walker constellations (Walker 1984): `planes` circular orbits of
//! `per_plane` satellites at one altitude and inclination.
//!
//! * Delta (i:T/P/F): the planes' ascending nodes spread over 360 degrees,
//!   RAAN_p = p x 360 / P; star (polar): over 180 degrees, RAAN_p = p x
//!   180 / P, so that adjacent planes counter-rotate only across the seam.
//! * Satellite s of plane p starts at argument of latitude u_ps = s x 360
//!   / S + p x F x 360 / T (T = P x S, F the phasing factor, 0 <= F < P)
//!   and moves at the mean motion n = sqrt(GM / a^3), a = Earth's mean
//!   radius + altitude.
//! * ECI position: a (cos Omega cos u - sin Omega sin u cos i, sin Omega cos
//!   u + cos Omega sin u cos i, sin u sin i); ECEF as `frames.rs` turns it.
//! * Satellite index k = p x S + s (as Hypatia numbers a shell), so node
//!   "name-k" is plane k / S, slot k % S.
//! * Circular, unperturbed orbits (no J2): over minutes the nodal drift of
//!   J2 (a few degrees a day at 550 km) moves a plane by metres to a few km;
//!   TLE sets (SGP4) carry the perturbations.

use super::frames::{eci_to_ecef, Vec3, EARTH_RADIUS, GM_EARTH};

#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum WalkerKind {
    Delta,
    Star,
}

#[derive(Clone, Copy, Debug, PartialEq)]
pub struct WalkerShell {
    pub kind: WalkerKind,
    pub planes: u32,
    pub per_plane: u32,
    pub altitude_km: f64,
    pub inclination_deg: f64,
    pub phasing: u32,
}

impl WalkerShell {
    pub fn satellites(&self) -> u32 {
        self.planes * self.per_plane
    }

    /// The orbit's radius (km).
    pub fn radius(&self) -> f64 {
        EARTH_RADIUS + self.altitude_km
    }

    /// Mean motion (rad/s).
    pub fn mean_motion(&self) -> f64 {
        (GM_EARTH / self.radius().powi(3)).sqrt()
    }

    /// Orbital period (s).
    pub fn period(&self) -> f64 {
        std::f64::consts::TAU / self.mean_motion()
    }

    /// (plane, slot) of satellite `k`.
    pub fn plane_slot(&self, k: u32) -> (u32, u32) {
        (k / self.per_plane, k % self.per_plane)
    }

    /// Right ascension of plane `p`'s ascending node (rad).
    pub fn raan(&self, p: u32) -> f64 {
        let spread = match self.kind {
            WalkerKind::Delta => 360.0,
            WalkerKind::Star => 180.0,
        };
        (p as f64 * spread / self.planes as f64).to_radians()
    }

    /// Satellite `k`'s argument of latitude at `t` seconds (rad).
    pub fn arg_latitude(&self, k: u32, t: f64) -> f64 {
        let (p, s) = self.plane_slot(k);
        let u0 = s as f64 * 360.0 / self.per_plane as f64 + p as f64 * self.phasing as f64 * 360.0 / self.satellites() as f64;
        u0.to_radians() + self.mean_motion() * t
    }

    /// Satellite `k` in ECI at `t` seconds (km).
    pub fn eci(&self, k: u32, t: f64) -> Vec3 {
        let (p, _) = self.plane_slot(k);
        let (so, co) = self.raan(p).sin_cos();
        let (su, cu) = self.arg_latitude(k, t).sin_cos();
        let (si, ci) = self.inclination_deg.to_radians().sin_cos();
        Vec3::new(co * cu - so * su * ci, so * cu + co * su * ci, su * si).scale(self.radius())
    }

    /// Satellite `k` in ECEF at `t` seconds (km).
    pub fn ecef(&self, k: u32, t: f64) -> Vec3 {
        eci_to_ecef(self.eci(k, t), t)
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::leo::frames::OMEGA_EARTH;

    fn starlink() -> WalkerShell {
        WalkerShell { kind: WalkerKind::Delta, planes: 72, per_plane: 22, altitude_km: 550.0, inclination_deg: 53.0, phasing: 1 }
    }

    #[test]
    fn circular_orbits_at_the_right_radius_and_period() {
        let w = starlink();
        assert_eq!(w.satellites(), 1584);
        // Kepler: 2 pi sqrt(a^3 / GM) with a = 6921 km: 95.5 minutes
        assert!((w.period() / 60.0 - 95.50).abs() < 0.01, "{}", w.period() / 60.0);
        for k in [0, 1, 21, 22, 1583] {
            for t in [0.0, 123.4, 5000.0] {
                assert!((w.eci(k, t).norm() - 6921.0).abs() < 1e-6);
                assert!((w.ecef(k, t).norm() - 6921.0).abs() < 1e-6);
            }
        }
        // one period later a satellite is back where it was, in ECI
        let (a, b) = (w.eci(5, 0.0), w.eci(5, w.period()));
        assert!(a.dist(b) < 1e-6);
    }

    #[test]
    fn slots_planes_and_phasing_in_the_closed_form() {
        let w = starlink();
        // slot 0 of plane 0 starts at the ascending node on the ECI x axis
        let p = w.eci(0, 0.0);
        assert!((p.x - 6921.0).abs() < 1e-6 && p.y.abs() < 1e-6 && p.z.abs() < 1e-6);
        // slots of a plane 360/22 degrees apart: chord 2 a sin(pi / 22)
        let chord = 2.0 * 6921.0 * (std::f64::consts::PI / 22.0).sin();
        assert!((w.eci(0, 0.0).dist(w.eci(1, 0.0)) - chord).abs() < 1e-6);
        // plane 1's node at RAAN 5 degrees; its slot 0 ahead by F x 360 / T
        assert!((w.raan(1).to_degrees() - 5.0).abs() < 1e-12);
        assert!((w.arg_latitude(22, 0.0).to_degrees() - 360.0 / 1584.0).abs() < 1e-9);
        // the highest latitude any satellite reaches is the inclination
        let zmax = (0..200).map(|i| w.eci(3, i as f64 * 30.0).z).fold(0.0f64, f64::max);
        assert!((zmax / 6921.0 - 53f64.to_radians().sin()).abs() < 1e-3);
        // star: planes over 180 degrees
        let s = WalkerShell { kind: WalkerKind::Star, planes: 6, per_plane: 11, altitude_km: 780.0, inclination_deg: 86.4, phasing: 2 };
        assert!((s.raan(5).to_degrees() - 150.0).abs() < 1e-12);
    }

    #[test]
    fn ecef_turns_against_the_earth() {
        let w = starlink();
        let t = 600.0;
        let eci = w.eci(7, t);
        let ecef = w.ecef(7, t);
        let back = ecef.rot_z(OMEGA_EARTH * t);
        assert!(back.dist(eci) < 1e-9);
    }
}
