//! Constellations' geometry: where satellites and ground stations are and
//! what sees what. Pure functions of time and configuration; the run's use
//! of them (a topology step every `run.topology_step`: links whose delay
//! follows the geometry, stations' attachments and handovers, routes
//! recomputed, traced paths) is `world/leo.rs`, and the scenario keys are
//! read in `scenario/parse/constellations.rs`.
//!
//! * `frames`: constants, ECI and ECEF, WGS84 geodetic positions.
//! * `walker`: Walker delta and star shells, circular orbits.
//! * `visibility`: elevation from a ground station, inter-satellite line
//!   of sight above a grazing altitude, coverage cones.
//! * `isl`: +Grid inter-satellite link layouts.
//! * `tle`: satellites from TLE sets, SGP4 (the `sgp4` crate), TEME to ECEF.
//! * `positions`: a shell's satellites at any second of a run.
//! * `motion`: where a ground station is at any instant: fixed, a track of
//!   fixes or a great-circle route, and its heading.
//! * `obstruction`: obstruction masks (azimuth/elevation sectors) and
//!   schedules (windows when a station sees nothing).
//!
//! The frames, the orbit model and every choice: `docs/models/constellations.md`.

pub mod frames;
pub mod isl;
pub mod motion;
pub mod obstruction;
pub mod positions;
pub mod tle;
pub mod visibility;
pub mod walker;
