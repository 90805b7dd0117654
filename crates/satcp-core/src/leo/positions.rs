//! Where a shell's satellites are at a run's second t, in ECEF (km): the
//! closed form for Walker shells, SGP4 for TLE sets (each from its own
//! epoch to the run's `epoch` + t).
//!
//! A TLE satellite SGP4 cannot propagate to an instant (it has decayed,
//! or its elements went out of range) is nowhere: its position is NaN, so
//! no station sees it and no ISL reaches it (every comparison with NaN is
//! false).

use super::frames::Vec3;
use super::tle::{parse_three_line_sets, TleSatellite};
use super::walker::WalkerShell;
use crate::scenario::OrbitsCfg;
use sgp4::chrono::NaiveDateTime;

pub enum ShellGeometry {
    Walker(WalkerShell),
    Tle { sats: Vec<TleSatellite>, epoch: NaiveDateTime },
}

const NOWHERE: Vec3 = Vec3 { x: f64::NAN, y: f64::NAN, z: f64::NAN };

impl ShellGeometry {
    /// The geometry of a shell as the scenario gives it; TLE sets need the
    /// run's epoch.
    pub fn new(orbits: &OrbitsCfg, epoch: Option<NaiveDateTime>) -> Result<Self, String> {
        Ok(match orbits {
            OrbitsCfg::Walker(w) => ShellGeometry::Walker(*w),
            OrbitsCfg::Tle(text) => {
                let sats = parse_three_line_sets(text).map_err(|e| e.to_string())?;
                let epoch = epoch.ok_or("TLE sets need an epoch")?;
                if let Some((s, e)) = sats.iter().find_map(|s| s.ecef(&epoch, 0.0).err().map(|e| (s, e))) {
                    return Err(format!("satellites SGP4 can propagate to run.epoch {}: {:?} cannot ({})", epoch, s.name, e));
                }
                ShellGeometry::Tle { sats, epoch }
            }
        })
    }

    pub fn len(&self) -> usize {
        match self {
            ShellGeometry::Walker(w) => w.satellites() as usize,
            ShellGeometry::Tle { sats, .. } => sats.len(),
        }
    }

    /// Satellite `k` at `t` seconds (NaN if SGP4 cannot place it).
    pub fn position(&self, k: usize, t: f64) -> Vec3 {
        match self {
            ShellGeometry::Walker(w) => w.ecef(k as u32, t),
            ShellGeometry::Tle { sats, epoch } => sats[k].ecef(epoch, t).unwrap_or(NOWHERE),
        }
    }

    /// Every satellite at `t`, written into `out` (of length `len()`).
    pub fn positions_into(&self, t: f64, out: &mut [Vec3]) {
        for (k, p) in out.iter_mut().enumerate() {
            *p = self.position(k, t);
        }
    }

    pub fn positions(&self, t: f64) -> Vec<Vec3> {
        let mut out = vec![NOWHERE; self.len()];
        self.positions_into(t, &mut out);
        out
    }
}
