//! Measurements.
pub mod output;
pub mod store_rows;
