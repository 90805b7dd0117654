//! Satellites from two-line element sets, propagated by SGP4 (the
//! maintained `sgp4` crate, a port of Vallado's reference implementation).
//!
//! * Input: three-line sets (a name line, then TLE lines 1 and 2); lines
//!   starting with '#' and blank lines are skipped. Each line's checksum is
//!   verified (the crate refuses a bad one), and an error names the set and
//!   the line.
//! * Time: the run's second t is the UTC instant `epoch` + t; each
//!   satellite is propagated from its own TLE epoch (minutes since it).
//! * Frames: SGP4 gives TEME (true equator, mean equinox of date);
//!   ECEF = TEME rotated about z by minus the Greenwich mean sidereal time
//!   of the instant (IAU 1982 GMST, the crate's `iau_epoch_to_sidereal_time`;
//!   polar motion and the equation of the equinoxes are left out: metres).

use sgp4::chrono::{Duration, NaiveDateTime};
use sgp4::{Constants, Elements, MinutesSinceEpoch};

use super::frames::Vec3;

pub struct TleSatellite {
    pub name: String,
    elements: Elements,
    constants: Constants,
}

/// A problem with a TLE set: which set (0-based, in the file) and why.
#[derive(Clone, Debug, PartialEq)]
pub struct TleError {
    pub set: usize,
    pub name: String,
    pub what: String,
}

impl std::fmt::Display for TleError {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(f, "TLE set {} ({:?}): {}", self.set, self.name, self.what)
    }
}

/// Parse three-line sets.
pub fn parse_three_line_sets(text: &str) -> Result<Vec<TleSatellite>, TleError> {
    let lines: Vec<&str> = text.lines().map(str::trim_end).filter(|l| !l.trim().is_empty() && !l.starts_with('#')).collect();
    if lines.len() % 3 != 0 {
        return Err(TleError { set: lines.len() / 3, name: String::new(), what: format!("{} lines: three-line sets need a multiple of 3", lines.len()) });
    }
    lines
        .chunks(3)
        .enumerate()
        .map(|(i, c)| {
            let name = c[0].trim().to_string();
            let err = |what: String| TleError { set: i, name: name.clone(), what };
            if !c[1].starts_with("1 ") || !c[2].starts_with("2 ") {
                return Err(err("a name line, then lines starting \"1 \" and \"2 \"".into()));
            }
            let elements = Elements::from_tle(Some(name.clone()), c[1].as_bytes(), c[2].as_bytes()).map_err(|e| err(e.to_string()))?;
            let constants = Constants::from_elements(&elements).map_err(|e| err(e.to_string()))?;
            Ok(TleSatellite { name, elements, constants })
        })
        .collect()
}

/// Greenwich mean sidereal time (rad) at a UTC instant.
pub fn gmst(at: &NaiveDateTime) -> f64 {
    sgp4::iau_epoch_to_sidereal_time(sgp4::julian_years_since_j2000(at))
}

impl TleSatellite {
    /// The TLE's epoch (UTC).
    pub fn epoch(&self) -> NaiveDateTime {
        self.elements.datetime
    }

    /// Position in TEME (km) `minutes` after the TLE's epoch.
    pub fn teme(&self, minutes: f64) -> Result<Vec3, String> {
        let p = self.constants.propagate(MinutesSinceEpoch(minutes)).map_err(|e| e.to_string())?;
        Ok(Vec3::new(p.position[0], p.position[1], p.position[2]))
    }

    /// Position in ECEF (km) `t` seconds after the run's `epoch`.
    pub fn ecef(&self, epoch: &NaiveDateTime, t: f64) -> Result<Vec3, String> {
        let at = *epoch + Duration::nanoseconds((t * 1e9).round() as i64);
        let minutes = (at - self.elements.datetime).num_nanoseconds().ok_or("epoch out of range")? as f64 / 60e9;
        Ok(self.teme(minutes)?.rot_z(-gmst(&at)))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    const ISS_LIKE: &str = "VANGUARD 1\n1 00005U 58002B   00179.78495062  .00000023  00000-0  28098-4 0  4753\n2 00005  34.2682 348.7242 1859667 331.7664  19.3264 10.82419157413667\n";

    #[test]
    fn gmst_at_j2000_is_the_standard_value() {
        // 2000-01-01 12:00 UT: 280.46061837 degrees (IAU 1982)
        let j2000 = NaiveDateTime::parse_from_str("2000-01-01 12:00:00", "%Y-%m-%d %H:%M:%S").unwrap();
        assert!((gmst(&j2000).to_degrees() - 280.460_618_37).abs() < 1e-6);
    }

    #[test]
    fn checksums_and_shape_are_checked() {
        let sats = parse_three_line_sets(ISS_LIKE).unwrap();
        assert_eq!(sats[0].name, "VANGUARD 1");
        // one digit changed: the checksum no longer matches
        let bad = ISS_LIKE.replace("348.7242", "348.7243");
        let e = parse_three_line_sets(&bad).err().expect("bad checksum");
        assert_eq!((e.set, e.name.as_str()), (0, "VANGUARD 1"));
        assert!(e.what.to_lowercase().contains("checksum"), "{e}");
        assert!(parse_three_line_sets(&ISS_LIKE[..ISS_LIKE.len() - 70]).is_err());
    }

    #[test]
    fn ecef_is_teme_turned_by_gmst() {
        let s = &parse_three_line_sets(ISS_LIKE).unwrap()[0];
        let epoch = s.epoch();
        let (teme, ecef) = (s.teme(10.0).unwrap(), s.ecef(&epoch, 600.0).unwrap());
        assert!((teme.norm() - ecef.norm()).abs() < 1e-6);
        let at = epoch + Duration::seconds(600);
        assert!(ecef.rot_z(gmst(&at)).dist(teme) < 1e-6);
    }
}
