//! TCP: a full-duplex connection state machine (handshake, data, FIN) with a
//! receiver (cumulative ACK, SACK, delayed ACK, window scaling) and a sender
//! whose loss recovery (`recovery`) and window controller (`cc`) are separate
//! parts, so a variant is recovery x controller x options.

pub mod cc;
pub mod delivery_rate;
pub mod ecn;
pub mod endpoint;
pub mod intervals;
pub mod limits;
pub mod profile;
pub mod receive_buffer;
pub mod receiver;
pub mod recovery;
pub mod rtt;
pub mod scoreboard;
pub mod sender;
pub mod seq;
mod deferred_read;
pub mod reset;
mod window_probe;

pub use endpoint::{Ctx, Endpoint, EndpointStats, FlowCounters, Note, ReceiveState, State};

/// Whether the endpoint takes its fast paths (an idle sender's attempt to
/// send, an ACK that moves nothing): always, except in unit tests that
/// switch them off to check that the full paths give the same trace.
#[inline(always)]
pub(crate) fn fast_paths() -> bool {
    #[cfg(test)]
    return !tests::SLOW_PATHS.with(|c| c.get());
    #[cfg(not(test))]
    true
}

/// Whether every ACK's context gets RFC 6675's pipe, whatever the
/// controller says (`WindowController::reads_pipe`): never, except in the
/// unit test that checks that no other controller is changed by it.
#[inline(always)]
pub(crate) fn always_pipe() -> bool {
    #[cfg(test)]
    return tests::ALWAYS_PIPE.with(|c| c.get());
    #[cfg(not(test))]
    false
}

#[cfg(test)]
mod tests;
