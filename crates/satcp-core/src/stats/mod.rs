//! Measurements.
pub mod output;
