//! What a run hands back: `output` (the summary, serialised to JSON, and
//! the columnar time series: per flow, per link direction, per HTTP page,
//! per traced path) and `store_rows` (a summary flattened into the rows of
//! the sweep store's tables, made in Rust so that no Python code touches a
//! cell; `docs/sweeps.md`).
pub mod output;
pub mod store_rows;
