use super::{ScenarioError, Scenario};
pub fn parse_toml(_text: &str, _overrides: &[String]) -> Result<Scenario, ScenarioError> { unimplemented!() }
pub fn parse_json(_text: &str, _overrides: &[String]) -> Result<Scenario, ScenarioError> { unimplemented!() }
pub fn from_value(_v: toml::Value) -> Result<Scenario, ScenarioError> { unimplemented!() }
