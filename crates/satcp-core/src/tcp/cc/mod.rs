//! Window controllers: how cwnd grows on ACKs and what ssthresh becomes on a
//! congestion signal. Loss detection and repair (recovery) live in
//! `tcp::recovery`; a variant is a recovery x controller pair.

pub mod aimd;

use crate::scenario::Controller;

/// The window state a controller acts on (bytes).
#[derive(Clone, Copy, Debug)]
pub struct Window {
    pub cwnd: u64,
    pub ssthresh: u64,
    pub smss: u64,
}

/// Closed set of controllers, dispatched by `match` on the hot path.
#[derive(Clone, Debug)]
pub enum Cc {
    Aimd(aimd::Aimd),
}

impl Cc {
    pub fn new(kind: Controller, abc_limit: u32) -> Self {
        match kind {
            Controller::Aimd => Cc::Aimd(aimd::Aimd { abc_limit }),
        }
    }

    /// An ACK newly acknowledged `acked` bytes outside loss recovery.
    #[inline]
    pub fn on_ack(&mut self, w: &mut Window, acked: u64) {
        match self {
            Cc::Aimd(a) => a.on_ack(w, acked),
        }
    }

    /// ssthresh after a loss is detected with `flight` bytes outstanding.
    #[inline]
    pub fn ssthresh_after_loss(&self, w: &Window, flight: u64) -> u64 {
        match self {
            Cc::Aimd(_) => aimd::Aimd::ssthresh_after_loss(w, flight),
        }
    }
}
