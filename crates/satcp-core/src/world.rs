//! Placeholder world (replaced by the engine).
use crate::scenario::Scenario;
use crate::stats::output::RunOutput;
pub struct World { out: RunOutput }
impl World {
    pub fn build(_s: &Scenario) -> Self { World { out: RunOutput::default() } }
    pub fn run(&mut self) {}
    pub fn into_output(self) -> RunOutput { self.out }
}
