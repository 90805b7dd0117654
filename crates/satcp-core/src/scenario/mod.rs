//! Scenario files: TOML (or a JSON/Python dict) in, a validated [`Scenario`]
//! out, or a [`ScenarioError`] that names the field, the value and what is
//! allowed. Nothing runs until the whole scenario has been accepted.
//!
//! * `reader.rs`: the table walker every parser reads keys through (a leaf:
//!   window controllers and router agents read their own keys with it);
//! * `parse/`: the parser, one file per section of a scenario, and the
//!   expansions written in a paper's notation (`[multihop]`);
//! * `model.rs`: the typed scenario the engine consumes;
//! * `units.rs`: rates, durations and sizes with their units;
//! * `overrides.rs`: `--set dotted.path=value`.

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
