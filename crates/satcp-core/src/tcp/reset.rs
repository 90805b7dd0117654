//! Resets (RFC 9293 3.10.7.4 and 3.5.3): an endpoint tears its connection
//! down at once with a segment carrying RST, and an endpoint that receives
//! one aborts.
//!
//! satcp's endpoints never send one on their own (a connection that gives
//! up after `max_retransmissions` ends silently, as before); a relay does
//! (`pep/`): when one of its legs fails it resets the other, and a proxy
//! that lost its state answers a segment of a connection it no longer
//! knows with a reset (RFC 9293 3.10.7.1's reply to a segment for a
//! closed connection).
//!
//! Choices:
//! * The reset carries ACK, its sequence number is snd.nxt and its
//!   acknowledgement rcv.nxt (what an established endpoint's abort sends,
//!   RFC 9293 3.10.5 ABORT).
//! * A received RST aborts the connection in every state but Idle, Listen
//!   and Aborted (a listener ignores it, RFC 9293 3.10.7.2), whatever its
//!   sequence number: RFC 5961's check against blind resets guards against
//!   an attacker, and the simulated network has none.
//! * Aborting stops every timer of the endpoint; the application hears
//!   `Note::Aborted`, as after `max_retransmissions`.

use super::{Ctx, Endpoint, Note, State};
use crate::net::packet::{TcpHeader, FLAG_ACK, FLAG_RST};

/// Which way the reset went.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum ResetSide {
    Sent,
    Received,
}

impl Endpoint {
    /// Abort the connection and tell the peer with a reset. Nothing happens
    /// to an endpoint that has no connection (idle, listening, aborted) or
    /// whose connection is over.
    pub fn reset(&mut self, ctx: &mut Ctx) {
        if matches!(self.state, State::Idle | State::Listen | State::Aborted) || self.is_finished() {
            return;
        }
        let h = TcpHeader {
            seq: super::seq::wire(self.iss, self.snd.nxt),
            ack: super::seq::wire(self.irs, self.rcv.nxt),
            flags: FLAG_RST | FLAG_ACK,
            ..Default::default()
        };
        ctx.out.push(self.tcp_packet(ctx.now, h, 0, 0, false));
        self.abort(ctx, ResetSide::Sent);
    }

    /// A segment with RST arrived.
    pub(in crate::tcp) fn on_reset(&mut self, ctx: &mut Ctx, _h: &TcpHeader) {
        if matches!(self.state, State::Idle | State::Listen | State::Aborted) || self.is_finished() {
            return;
        }
        self.abort(ctx, ResetSide::Received);
    }

    fn abort(&mut self, ctx: &mut Ctx, side: ResetSide) {
        self.state = State::Aborted;
        self.reset = Some(side);
        self.rto_timer.stop();
        self.delack.stop();
        self.pace_timer.stop();
        self.cc_timer.stop();
        self.rack_tlp_timer.stop();
        self.snd.limits.finish(ctx.now);
        ctx.notes.push(Note::Aborted { ep: self.id });
    }

    /// The host lost the connection's state (a crash): the endpoint stops
    /// at once, sends nothing and tells nobody; what it held is gone.
    pub fn lose_state(&mut self) {
        self.state = State::Aborted;
        self.rto_timer.stop();
        self.delack.stop();
        self.pace_timer.stop();
        self.cc_timer.stop();
        self.rack_tlp_timer.stop();
    }

    /// How the connection was reset, if it was.
    pub fn reset_side(&self) -> Option<ResetSide> {
        self.reset
    }
}
