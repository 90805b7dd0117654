//! What hides the sky from a ground station: an obstruction mask (sectors
//! of azimuth and elevation where the sky is blocked, as a dish's
//! obstruction map draws them: trees, a building, a ship's mast) and an
//! obstruction schedule (time windows when the station sees nothing: a
//! bridge, a tunnel). A satellite behind the mask, or any satellite during
//! a window, is not in view: the station's links and outages then follow
//! from the geometry (`world/leo.rs`).
//!
//! * A sector is `azimuth = [from, to]` clockwise from `from` to `to`
//!   (degrees in [0, 360]; `from` > `to` wraps through north, so
//!   [330, 30] is the 60 degrees about north; [0, 360] the whole circle)
//!   and `elevation = [low, high]` (degrees in [-90, 90], low <= high).
//!   Sectors are closed: a satellite exactly on an edge is blocked.
//! * Azimuth is from true north (the default) or, with `mask_azimuth =
//!   "heading"`, from the station's heading (a mask fixed to a moving
//!   vehicle: a mast astern stays astern as the ship turns); the heading is
//!   `leo/motion.rs`'s.
//! * Elevation is the geodetic elevation of the visibility rule
//!   (`leo/visibility.rs`), whichever rule the shell uses: under the
//!   range rule a mask still blocks by direction.
//! * A window [from, to) hides everything from `from` up to, not
//!   including, `to`; both instants are topology steps of their own, so a
//!   window starts and ends exactly whatever `run.topology_step` is.

use super::motion::wrap_360;
use crate::sim::Time;

/// One blocked sector (degrees).
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct Sector {
    pub azimuth: (f64, f64),
    pub elevation: (f64, f64),
}

impl Sector {
    /// Whether a direction (azimuth in [0, 360), elevation) is inside.
    pub fn covers(&self, azimuth_deg: f64, elevation_deg: f64) -> bool {
        let (a0, a1) = self.azimuth;
        let in_azimuth = if a0 <= a1 { azimuth_deg >= a0 && azimuth_deg <= a1 } else { azimuth_deg >= a0 || azimuth_deg <= a1 };
        in_azimuth && elevation_deg >= self.elevation.0 && elevation_deg <= self.elevation.1
    }
}

/// What a mask's azimuths are measured from.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum MaskAzimuth {
    TrueNorth,
    Heading,
}

/// A station's obstructions (empty: a clear sky).
#[derive(Clone, Debug, PartialEq)]
pub struct Obstructions {
    pub mask: Vec<Sector>,
    pub mask_azimuth: MaskAzimuth,
    /// Windows [from, to) of run time (ns), as given (they may overlap).
    pub windows: Vec<(Time, Time)>,
}

impl Default for Obstructions {
    fn default() -> Self {
        Obstructions { mask: Vec::new(), mask_azimuth: MaskAzimuth::TrueNorth, windows: Vec::new() }
    }
}

impl Obstructions {
    pub fn is_clear(&self) -> bool {
        self.mask.is_empty() && self.windows.is_empty()
    }

    /// Whether the mask blocks a direction seen from a station heading
    /// `heading_deg`.
    pub fn blocks(&self, azimuth_deg: f64, elevation_deg: f64, heading_deg: f64) -> bool {
        if self.mask.is_empty() {
            return false;
        }
        let az = match self.mask_azimuth {
            MaskAzimuth::TrueNorth => azimuth_deg,
            MaskAzimuth::Heading => wrap_360(azimuth_deg - heading_deg),
        };
        self.mask.iter().any(|s| s.covers(az, elevation_deg))
    }

    /// Whether a window hides the whole sky at `t`.
    pub fn hidden_at(&self, t: Time) -> bool {
        self.windows.iter().any(|&(a, b)| a <= t && t < b)
    }

    /// The first window edge after `t`, if any.
    pub fn next_edge(&self, t: Time) -> Option<Time> {
        self.windows.iter().flat_map(|&(a, b)| [a, b]).filter(|&e| e > t).min()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn sector(a: (f64, f64), e: (f64, f64)) -> Sector {
        Sector { azimuth: a, elevation: e }
    }

    #[test]
    fn inside_outside_and_on_the_edges() {
        let s = sector((30.0, 90.0), (0.0, 40.0));
        assert!(s.covers(60.0, 20.0));
        // the edges are blocked
        assert!(s.covers(30.0, 20.0) && s.covers(90.0, 20.0) && s.covers(60.0, 0.0) && s.covers(60.0, 40.0));
        // just outside each edge
        assert!(!s.covers(29.999, 20.0) && !s.covers(90.001, 20.0) && !s.covers(60.0, -0.001) && !s.covers(60.0, 40.001));
        assert!(!s.covers(200.0, 20.0));
    }

    #[test]
    fn a_sector_through_north_wraps() {
        let s = sector((330.0, 30.0), (10.0, 90.0));
        for az in [330.0, 345.0, 359.999, 0.0, 15.0, 30.0] {
            assert!(s.covers(az, 45.0), "{az}");
        }
        for az in [329.9, 30.1, 90.0, 180.0, 270.0] {
            assert!(!s.covers(az, 45.0), "{az}");
        }
        // the whole circle
        let all = sector((0.0, 360.0), (0.0, 90.0));
        assert!([0.0, 90.0, 359.999].iter().all(|&a| all.covers(a, 10.0)));
    }

    #[test]
    fn a_mask_turns_with_the_heading_when_asked() {
        // blocked astern: 150-210 degrees from the bow
        let mut o = Obstructions { mask: vec![sector((150.0, 210.0), (0.0, 90.0))], ..Default::default() };
        // true north: due south blocked whatever the heading
        assert!(o.blocks(180.0, 30.0, 90.0) && !o.blocks(270.0, 30.0, 90.0));
        o.mask_azimuth = MaskAzimuth::Heading;
        // heading east: astern is west (270), south is on the starboard beam
        assert!(o.blocks(270.0, 30.0, 90.0) && !o.blocks(180.0, 30.0, 90.0));
        // heading 300: astern is 120; 100 is 160 from the bow (blocked),
        // 60 is 120 from it (not)
        assert!(o.blocks(100.0, 30.0, 300.0) && !o.blocks(60.0, 30.0, 300.0));
    }

    #[test]
    fn windows_are_half_open() {
        let s = 1_000_000_000;
        let o = Obstructions { windows: vec![(20 * s, 23 * s), (40 * s, 41 * s)], ..Default::default() };
        assert!(!o.hidden_at(20 * s - 1) && o.hidden_at(20 * s) && o.hidden_at(23 * s - 1) && !o.hidden_at(23 * s));
        assert_eq!(o.next_edge(0), Some(20 * s));
        assert_eq!(o.next_edge(20 * s), Some(23 * s));
        assert_eq!(o.next_edge(23 * s), Some(40 * s));
        assert_eq!(o.next_edge(41 * s), None);
        assert!(!o.blocks(0.0, 10.0, 0.0) && !o.is_clear() && Obstructions::default().is_clear());
    }
}
