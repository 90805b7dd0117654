use std::fmt;

/// A scenario that cannot run. `path` is the dotted field path in the same
/// syntax `--set` takes (`links.1.rate_ab`, `flows.download.tcp.variant`),
/// `value` the offending value as written, `allowed` what would have been
/// accepted.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct ScenarioError {
    pub path: String,
    pub value: String,
    pub allowed: String,
}

impl ScenarioError {
    pub fn new(path: impl Into<String>, value: impl Into<String>, allowed: impl Into<String>) -> Self {
        ScenarioError { path: path.into(), value: value.into(), allowed: allowed.into() }
    }
}

impl fmt::Display for ScenarioError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        if self.value.is_empty() {
            write!(f, "{}: {}", self.path, self.allowed)
        } else {
            write!(f, "{} = {}: {}", self.path, self.value, self.allowed)
        }
    }
}

impl std::error::Error for ScenarioError {}
