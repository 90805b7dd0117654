//! Counting quinn's probe timeouts (PTOs, RFC 9002 section 6.2) exactly,
//! for a QUIC flow's summary (`quic.ptos`, docs/models/quic.md).
//!
//! quinn-proto 0.11.19 keeps its PTO counter private (`Connection::
//! pto_count`, reset to 0 by every acknowledgement, so even a sampled copy
//! would not give the number of expiries) and offers no hook at the
//! expiry. What it does offer is one `tracing` event at exactly that
//! point: `on_loss_detection_timeout` logs "PTO fired" (fields
//! `in_flight`, `count`, `space`) once per PTO expiry, after the
//! time-threshold branch has returned and before the probes are armed.
//! `counted` runs a call into quinn (the connection's `handle_timeout`, the
//! only path to that function) under a scoped `tracing` subscriber that is
//! interested in that one call site and counts its events; every other
//! call site of quinn is "never" to it, so tracing costs nothing elsewhere.
//!
//! * Exact and deterministic: an event per expiry, counted on the thread
//!   that runs the flow (a thread-local count; runs on other threads do
//!   not see it).
//! * Ambiguity: the event is matched by its target, level, field names
//!   and message text, which are quinn's, not an API. quinn-proto is pinned
//!   exactly (Cargo.toml) and `quic/tests.rs` forces a PTO and expects a
//!   count above 0, so an upgrade that changes the event fails a test
//!   instead of reading 0.
//! * The alternative, quinn's `qlog` feature, reports `pto_count` in its
//!   recovery-metrics events only when the metrics are emitted (a 0 -> 1 ->
//!   0 between two emissions is missed) and serialises every event: neither
//!   exact nor cheap.

use std::cell::Cell;
use std::sync::OnceLock;
use tracing_core::field::{Field, Visit};
use tracing_core::span::{Attributes, Id, Record};
use tracing_core::subscriber::{Interest, Subscriber};
use tracing_core::{dispatcher, Dispatch, Event, Level, Metadata};

/// quinn's event at a PTO expiry: target, message, and the fields it logs.
const TARGET: &str = "quinn_proto::connection";
const MESSAGE: &str = "PTO fired";
const FIELDS: [&str; 4] = ["in_flight", "count", "space", "message"];

thread_local! {
    static PTOS: Cell<u64> = const { Cell::new(0) };
}

/// The subscriber: interested in quinn's PTO event only.
struct PtoCounter;

fn is_pto_site(m: &Metadata<'_>) -> bool {
    m.is_event()
        && *m.level() == Level::TRACE
        && m.target() == TARGET
        && m.fields().len() == FIELDS.len()
        && FIELDS.iter().all(|f| m.fields().field(f).is_some())
}

/// Whether the event's message is `MESSAGE`.
struct MessageIs(bool);

impl Visit for MessageIs {
    fn record_debug(&mut self, field: &Field, value: &dyn std::fmt::Debug) {
        if field.name() == "message" {
            self.0 = format!("{value:?}") == MESSAGE;
        }
    }
}

impl Subscriber for PtoCounter {
    fn register_callsite(&self, m: &'static Metadata<'static>) -> Interest {
        if is_pto_site(m) {
            Interest::always()
        } else {
            Interest::never()
        }
    }

    fn enabled(&self, m: &Metadata<'_>) -> bool {
        is_pto_site(m)
    }

    fn new_span(&self, _: &Attributes<'_>) -> Id {
        Id::from_u64(1)
    }

    fn record(&self, _: &Id, _: &Record<'_>) {}

    fn record_follows_from(&self, _: &Id, _: &Id) {}

    fn event(&self, e: &Event<'_>) {
        let mut m = MessageIs(false);
        e.record(&mut m);
        if m.0 {
            PTOS.with(|c| c.set(c.get() + 1));
        }
    }

    fn enter(&self, _: &Id) {}

    fn exit(&self, _: &Id) {}
}

/// Run `f` (a call into quinn) and return its result and the PTOs that
/// expired in it.
pub fn counted<T>(f: impl FnOnce() -> T) -> (T, u64) {
    static DISPATCH: OnceLock<Dispatch> = OnceLock::new();
    let d = DISPATCH.get_or_init(|| Dispatch::new(PtoCounter));
    let before = PTOS.with(Cell::get);
    let out = dispatcher::with_default(d, f);
    (out, PTOS.with(Cell::get) - before)
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Events of the PTO's shape are counted only with its message, and
    /// only inside `counted`.
    #[test]
    fn only_the_pto_event_is_counted_and_only_inside() {
        fn fire(message: &str) {
            // the same target, level and fields as quinn's event
            tracing::trace!(target: "quinn_proto::connection", in_flight = 1u64, count = 0u32, space = ?(), "{}", message);
        }
        let ((), n) = counted(|| {
            fire("PTO fired");
            fire("PTO fired");
            fire("something else");
            tracing::trace!(target: "quinn_proto::connection", "PTO fired");
        });
        assert_eq!(n, 2);
        fire("PTO fired");
        assert_eq!(counted(|| ()).1, 0);
    }
}
