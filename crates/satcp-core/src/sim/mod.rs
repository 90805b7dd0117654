//! The discrete-event core: an integer-nanosecond clock, an event queue whose
//! ties break by insertion order, lazily cancelled timers and seeded random
//! streams.

pub mod prefetch;
pub mod queue;
pub mod rng;
pub mod timer;

pub use queue::{Event, EventQueue};
pub use rng::Rng;
pub use timer::Timer;

/// Simulated time in integer nanoseconds since the start of the run.
pub type Time = u64;

pub const NS_PER_S: u64 = 1_000_000_000;

/// Seconds as f64, for reports only (never for model decisions).
pub fn secs(t: Time) -> f64 {
    t as f64 / NS_PER_S as f64
}
