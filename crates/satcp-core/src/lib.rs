//! satcp-core: the engine and every model of satcp. Pure Rust, no Python.
//!
//! One call runs one scenario: [`run`] takes a validated [`Scenario`] and
//! returns a [`RunOutput`] (summary plus columnar time series). Parsing and
//! validating scenario files lives in [`scenario`]; nothing in the engine
//! re-checks or clamps input.

pub mod app;
#[doc(hidden)]
pub mod fuzzing;
pub mod ids;
pub mod leo;
pub mod net;
pub mod pep;
pub mod quic;
pub mod router;
pub mod scenario;
pub mod sim;
pub mod stats;
pub mod tcp;
pub mod world;

#[cfg(test)]
mod queue_tests;
#[cfg(test)]
mod ecn_tests;
#[cfg(test)]
mod seams_tests;

pub use scenario::{Scenario, ScenarioError};
pub use stats::output::RunOutput;

/// The version that keys stored results: same scenario + seed + version give
/// bit-identical output.
pub const VERSION: &str = env!("CARGO_PKG_VERSION");

/// How the engine was compiled: "profile-guided", "plain" or
/// "instrumented" (`build.rs`). Speed only: results are the same bits.
pub const BUILD: &str = env!("SATCP_BUILD_KIND");

/// Build the world for `scn`, run it to the end and collect the results.
/// Panics only if a capture file (`[[captures]]`) cannot be written; use
/// [`try_run`] to get that as an error.
pub fn run(scn: &Scenario) -> RunOutput {
    try_run(scn).unwrap_or_else(|e| panic!("{}", e))
}

/// [`run`], with failures to create or write capture files returned (a run
/// without captures cannot fail).
pub fn try_run(scn: &Scenario) -> std::io::Result<RunOutput> {
    run_observed(scn, u64::MAX, &mut |_| true)
}

/// [`try_run`], calling `observe(simulated seconds)` every `every` events;
/// the run stops early (`ended_by` "interrupted") when `observe` returns
/// false. Observing does not change the results.
pub fn run_observed(scn: &Scenario, every: u64, observe: &mut dyn FnMut(f64) -> bool) -> std::io::Result<RunOutput> {
    run_with(scn, every, observe, true)
}

/// [`try_run`] with an arrival event at every hop: relay nodes are not cut
/// through (`world/cut_through.rs`). The same results but for `events`;
/// to measure the cut or check it (`satcp-run --no-cut-through`).
pub fn try_run_every_hop(scn: &Scenario) -> std::io::Result<RunOutput> {
    run_with(scn, u64::MAX, &mut |_| true, false)
}

fn run_with(scn: &Scenario, every: u64, observe: &mut dyn FnMut(f64) -> bool, cut_through: bool) -> std::io::Result<RunOutput> {
    let t0 = std::time::Instant::now();
    let mut w = world::World::build(scn);
    if !cut_through {
        w.without_cut_through();
    }
    w.capture = net::capture::Capture::create(scn)?;
    w.run_observed(every, &mut |t| observe(sim::secs(t)));
    if let Some(c) = w.capture.take() {
        c.finish()?;
    }
    let mut out = w.into_output();
    out.summary.wall_s = t0.elapsed().as_secs_f64();
    Ok(out)
}
