use super::ScenarioError;
pub fn apply_override(_root: &mut toml::Value, _spec: &str) -> Result<(), ScenarioError> { unimplemented!() }
