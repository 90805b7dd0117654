//! The server's bytes in flight for the `--out` series (`flight_bytes`):
//! a `quinn_proto::congestion::Controller` that wraps the flow's controller
//! (quinn's own or satcp's adapter), forwards every call unchanged, and
//! keeps quinn's count of bytes in flight as the hooks reveal it.
//!
//! quinn-proto 0.11.19 keeps its bytes in flight private (`PathData::
//! in_flight`; `Connection::bytes_in_flight` is compiled for its own tests
//! only, `ConnectionStats` has no such field). Its controller hooks show it
//! in part, and the count here is built from them:
//! * `on_end_acks(in_flight, ..)`: quinn's exact count after an ACK
//!   frame's packets left the flight (called before that frame's loss
//!   detection): the count is set to it;
//! * `on_sent(bytes, ..)`: a datagram sent: its bytes are added;
//! * `on_congestion_event(.., lost_bytes)`: packets declared lost (after
//!   the ACK frame, or by the loss or PTO timer): their bytes are taken out.
//!
//! So the count is quinn's own at every ACK frame and follows it exactly
//! in between as long as every datagram sent is one packet that counts in
//! flight (ack-eliciting or padded: all the data sender's datagrams once
//! the handshake is over; during the handshake a datagram coalesces
//! packets of several spaces) and every loss is a congestion event. Where
//! quinn's count and this one part (until the next ACK frame sets it
//! again): a datagram that only carries ACK frames (counted here, not by
//! quinn), a lost path-MTU probe and packets of the Initial and Handshake
//! spaces dropped with their keys (taken out by quinn, not here), lost
//! ack-only packets (no congestion event; 0 bytes in quinn's count, their
//! datagram's here). Once the connection is closed (quinn answers the
//! client's CONNECTION_CLOSE with one of its own, a datagram counted here
//! by `on_sent` with no ACK frame to follow) the flow reports 0 in flight
//! (`QuicFlow::counters`): quinn stops loss detection and nothing it sent
//! will be acknowledged or sent again. The wrapper changes no decision: every call is
//! forwarded unchanged, so a run's results are the same with it.

use quinn_proto::congestion::{Controller, ControllerFactory, ControllerMetrics};
use quinn_proto::RttEstimator;
use std::any::Any;
use std::sync::Arc;
use std::time::Instant;

/// The flow's controller and the bytes in flight as its hooks show them.
pub struct FlightWatch {
    pub inner: Box<dyn Controller>,
    pub flight: u64,
}

/// Builds the flow's controller with `inner` and wraps it.
pub struct FlightWatchFactory {
    pub inner: Arc<dyn ControllerFactory + Send + Sync>,
}

impl ControllerFactory for FlightWatchFactory {
    fn build(self: Arc<Self>, now: Instant, current_mtu: u16) -> Box<dyn Controller> {
        Box::new(FlightWatch { inner: self.inner.clone().build(now, current_mtu), flight: 0 })
    }
}

impl Controller for FlightWatch {
    fn on_sent(&mut self, now: Instant, bytes: u64, last_packet_number: u64) {
        self.flight += bytes;
        self.inner.on_sent(now, bytes, last_packet_number);
    }

    fn on_ack(&mut self, now: Instant, sent: Instant, bytes: u64, app_limited: bool, rtt: &RttEstimator) {
        self.inner.on_ack(now, sent, bytes, app_limited, rtt);
    }

    fn on_end_acks(&mut self, now: Instant, in_flight: u64, app_limited: bool, largest_packet_num_acked: Option<u64>) {
        self.flight = in_flight;
        self.inner.on_end_acks(now, in_flight, app_limited, largest_packet_num_acked);
    }

    fn on_congestion_event(&mut self, now: Instant, sent: Instant, is_persistent_congestion: bool, lost_bytes: u64) {
        self.flight = self.flight.saturating_sub(lost_bytes);
        self.inner.on_congestion_event(now, sent, is_persistent_congestion, lost_bytes);
    }

    fn on_mtu_update(&mut self, new_mtu: u16) {
        self.inner.on_mtu_update(new_mtu);
    }

    fn window(&self) -> u64 {
        self.inner.window()
    }

    fn metrics(&self) -> ControllerMetrics {
        self.inner.metrics()
    }

    fn clone_box(&self) -> Box<dyn Controller> {
        Box::new(FlightWatch { inner: self.inner.clone_box(), flight: self.flight })
    }

    fn initial_window(&self) -> u64 {
        self.inner.initial_window()
    }

    fn into_any(self: Box<Self>) -> Box<dyn Any> {
        self
    }
}

/// The bytes in flight a connection's `FlightWatch` holds (None for a
/// controller that is not one).
pub fn flight_of(c: &dyn Controller) -> Option<u64> {
    c.clone_box().into_any().downcast::<FlightWatch>().ok().map(|w| w.flight)
}
