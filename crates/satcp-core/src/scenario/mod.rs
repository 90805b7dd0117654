//! Scenario files: TOML (or a JSON/Python dict) in, a validated [`Scenario`]
//! out, or a [`ScenarioError`] that names the field, the value and what is
//! allowed. Nothing runs until the whole scenario has been accepted.

mod error;
pub mod model;
mod overrides;
pub(crate) mod parse;
pub(crate) mod reader;
pub mod units;

pub use error::ScenarioError;
pub use model::*;
pub use parse::{from_value, from_value_in, parse_json, parse_json_in, parse_json_reseeded, parse_toml, parse_toml_in, variant_names, ReseedCache};
pub use overrides::apply_override;
