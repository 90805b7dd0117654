//! satcp-core: the engine and every model of satcp. Pure Rust, no Python.
//!
//! One call runs one scenario: [`run`] takes a validated [`Scenario`] and
//! returns a [`RunOutput`] (summary plus columnar time series). Parsing and
//! validating scenario files lives in [`scenario`]; nothing in the engine
//! re-checks or clamps input.

pub mod app;
pub mod net;
pub mod scenario;
pub mod sim;
pub mod stats;
pub mod tcp;
pub mod world;

pub use scenario::{Scenario, ScenarioError};
pub use stats::output::RunOutput;

/// The version that keys stored results: same scenario + seed + version give
/// bit-identical output.
pub const VERSION: &str = env!("CARGO_PKG_VERSION");

/// Build the world for `scn`, run it to the end and collect the results.
pub fn run(scn: &Scenario) -> RunOutput {
    run_observed(scn, u64::MAX, &mut |_| true)
}

/// [`run`], calling `observe(simulated seconds)` every `every` events; the
/// run stops early (`ended_by` "interrupted") when `observe` returns false.
/// Observing does not change the results.
pub fn run_observed(scn: &Scenario, every: u64, observe: &mut dyn FnMut(f64) -> bool) -> RunOutput {
    let t0 = std::time::Instant::now();
    let mut w = world::World::build(scn);
    w.run_observed(every, &mut |t| observe(sim::secs(t)));
    let mut out = w.into_output();
    out.summary.wall_s = t0.elapsed().as_secs_f64();
    out
}
