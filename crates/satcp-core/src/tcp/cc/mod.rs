//! Window controllers: how cwnd (and, for BBR, the pacing rate) follows the
//! ACK stream, and what ssthresh becomes on a congestion signal. Loss
//! detection and repair (recovery) live in `tcp::recovery`; a variant is a
//! recovery x controller pair.
//!
//! The endpoint calls a controller at five points:
//! * `on_ack`: every ACK that acknowledges or SACKs new data or is a
//!   duplicate, before loss recovery handles it (measurement: RTT, bandwidth,
//!   delivery rate; BBR sets cwnd and pacing here);
//! * `grow`: when the recovery scheme lets the window grow (outside fast
//!   recovery), from `Endpoint::grow_window`;
//! * `ssthresh_after_loss`: loss detected by duplicate ACKs or SACK; the
//!   recovery scheme then sets cwnd from the returned ssthresh;
//! * `on_recovery_exit`: the ACK that ended fast recovery;
//! * `on_rto`: the retransmission timer expired (sets ssthresh and cwnd).
//!
//! What each controller sees is one `AckCtx` per ACK, built once by the
//! endpoint; nothing is dispatched through trait objects.

pub mod adalr;
pub mod aimd;
pub mod bbr;
pub mod cubic;
pub mod hybla;
pub mod hystart;
pub mod vegas;
pub mod westwood;

use crate::scenario::Controller;
use crate::sim::{Rng, Time};
use crate::tcp::delivery_rate::RateSample;

/// Largest cwnd a controller grows to (bytes): far above any receive window
/// (at most 65535 x 2^14), so it never limits a sender, and low enough that
/// window arithmetic cannot overflow. Hybla's 2^rho growth reaches it on
/// very long paths.
pub const CWND_MAX: u64 = 1 << 48;

/// The window state a controller acts on (bytes; pacing in bit/s).
#[derive(Clone, Copy, Debug)]
pub struct Window {
    pub cwnd: u64,
    pub ssthresh: u64,
    pub smss: u64,
    /// Pacing rate in bit/s; 0 = no pacing (segments leave as the windows
    /// allow).
    pub pacing_bps: u64,
}

impl Window {
    pub fn new(cwnd: u64, ssthresh: u64, smss: u64) -> Self {
        Window { cwnd, ssthresh, smss, pacing_bps: 0 }
    }
}

/// What one ACK tells the controller.
#[derive(Clone, Copy, Debug, Default)]
pub struct AckCtx {
    pub now: Time,
    /// Bytes newly acknowledged cumulatively (0 for a duplicate ACK).
    pub acked: u64,
    /// A duplicate ACK in the recovery scheme's sense.
    pub dupack: bool,
    /// RTT sample from this ACK (Karn's rule applied), ns.
    pub rtt: Option<Time>,
    /// Smoothed RTT after this ACK (ns), if any sample exists.
    pub srtt: Option<f64>,
    /// Lowest RTT sample of the connection (the handshake included), ns.
    pub min_rtt: Option<Time>,
    /// snd_una after this ACK.
    pub una: u64,
    /// One past the highest sequence sent.
    pub snd_max: u64,
    /// FlightSize (snd_max - snd_una).
    pub flight: u64,
    /// Bytes sent and neither acknowledged nor SACKed.
    pub inflight: u64,
    /// RFC 6675's pipe: `inflight` less the segments the scoreboard deems
    /// lost, plus retransmissions (equal to `inflight` without SACK blocks).
    pub pipe: u64,
    /// In fast recovery or repairing after an RTO when the ACK arrived.
    pub recovering: bool,
    /// The sender's `recover` (0 until the first loss; see `Sender`).
    pub recover: u64,
    /// The peer's latest advertised window (bytes).
    pub peer_wnd: u64,
    /// The retransmission timeout after this ACK's RTT update (ns).
    pub rto: Time,
    /// Bytes delivered so far (delivery-rate sampling only; else 0).
    pub delivered: u64,
    /// Delivery-rate sample from this ACK (delivery-rate sampling only).
    pub rate: Option<RateSample>,
}

/// Closed set of controllers, dispatched by `match` on the hot path.
#[derive(Clone, Debug)]
pub enum Cc {
    Aimd(aimd::Aimd),
    Vegas(vegas::Vegas),
    Westwood(westwood::Westwood),
    Hybla(hybla::Hybla),
    Cubic(cubic::Cubic),
    Bbr(Box<bbr::Bbr>),
    Adalr(adalr::Adalr),
}

impl Cc {
    /// `rng` is the stream of this endpoint's controller (BBR draws its
    /// initial ProbeBW phase from it).
    /// `tick_ns` is the TCP clock granularity (ADaLR may measure in ticks).
    pub fn new(kind: Controller, abc_limit: u32, tick_ns: u64, rng: Rng) -> Self {
        let aimd = aimd::Aimd { abc_limit };
        match kind {
            Controller::Aimd => Cc::Aimd(aimd),
            Controller::Vegas { alpha, beta, gamma } => Cc::Vegas(vegas::Vegas::new(alpha, beta, gamma, abc_limit)),
            Controller::Westwood { filter_gain } => Cc::Westwood(westwood::Westwood::new(filter_gain, aimd)),
            Controller::Hybla { rtt0_ns, rho_rtt } => Cc::Hybla(hybla::Hybla::new(rtt0_ns, rho_rtt, abc_limit)),
            Controller::Cubic { c, beta, fast_convergence, hystart } => {
                Cc::Cubic(cubic::Cubic::new(c, beta, fast_convergence, hystart, abc_limit))
            }
            Controller::Bbr { cwnd_gain, probe_rtt_interval_ns, probe_rtt_duration_ns } => {
                Cc::Bbr(Box::new(bbr::Bbr::new(cwnd_gain, probe_rtt_interval_ns, probe_rtt_duration_ns, rng)))
            }
            Controller::Adalr(cfg) => Cc::Adalr(adalr::Adalr::new(cfg, abc_limit, tick_ns)),
        }
    }

    /// Replace the controller's random stream (only BBR draws).
    pub fn set_rng(&mut self, rng: Rng) {
        if let Cc::Bbr(b) = self {
            b.set_rng(rng);
        }
    }

    /// Whether the controller sets the pacing rate itself.
    pub fn paces(&self) -> bool {
        matches!(self, Cc::Bbr(_))
    }

    /// Whether the sender must keep delivery-rate samples for this
    /// controller.
    pub fn wants_rate_samples(&self) -> bool {
        matches!(self, Cc::Bbr(_))
    }

    /// TCP-ADaLR's state, for the endpoint's ADaLR-specific sending,
    /// recovery and timer rules.
    #[inline]
    pub fn adalr(&self) -> Option<&adalr::Adalr> {
        match self {
            Cc::Adalr(a) => Some(a),
            _ => None,
        }
    }

    pub fn adalr_mut(&mut self) -> Option<&mut adalr::Adalr> {
        match self {
            Cc::Adalr(a) => Some(a),
            _ => None,
        }
    }

    /// Bytes the sender may send beyond the peer's advertised window
    /// (TCP-ADaLR's Algorithm 5.3; 0 for every other controller).
    #[inline]
    pub fn rwnd_boost(&self, w: &Window, una: u64, max: u64, recover: u64, peer_wnd: u64) -> u64 {
        match self {
            Cc::Adalr(a) => a.rwnd_boost(w, una, max, recover, peer_wnd),
            _ => 0,
        }
    }

    /// Every ACK, before loss recovery handles it.
    #[inline]
    pub fn on_ack(&mut self, w: &mut Window, a: &AckCtx) {
        match self {
            Cc::Aimd(_) | Cc::Hybla(_) => {}
            Cc::Vegas(v) => v.on_ack(a),
            Cc::Westwood(c) => c.on_ack(w, a),
            Cc::Cubic(c) => c.on_ack(a),
            Cc::Bbr(b) => b.on_ack(w, a),
            Cc::Adalr(c) => c.on_ack(w, a),
        }
    }

    /// The recovery scheme lets the window grow on this ACK.
    #[inline]
    pub fn grow(&mut self, w: &mut Window, a: &AckCtx) {
        match self {
            Cc::Aimd(c) => c.on_ack(w, a.acked),
            Cc::Vegas(v) => v.grow(w, a),
            Cc::Westwood(c) => c.grow(w, a),
            Cc::Hybla(h) => h.grow(w, a),
            Cc::Cubic(c) => c.grow(w, a),
            Cc::Bbr(_) => {}
            Cc::Adalr(c) => c.grow(w, a),
        }
    }

    /// ssthresh after a loss is detected with `flight` bytes outstanding.
    #[inline]
    pub fn ssthresh_after_loss(&mut self, w: &Window, flight: u64) -> u64 {
        match self {
            Cc::Aimd(_) | Cc::Hybla(_) | Cc::Adalr(_) => aimd::Aimd::ssthresh_after_loss(w, flight),
            Cc::Vegas(_) => vegas::Vegas::ssthresh_after_loss(w, flight),
            Cc::Westwood(c) => c.ssthresh_after_loss(w, flight),
            Cc::Cubic(c) => c.ssthresh_after_loss(w, flight),
            Cc::Bbr(b) => b.ssthresh_after_loss(w),
        }
    }

    /// The ACK just processed ended fast recovery.
    #[inline]
    pub fn on_recovery_exit(&mut self, w: &mut Window) {
        match self {
            Cc::Bbr(b) => b.on_recovery_exit(w),
            Cc::Aimd(_) | Cc::Vegas(_) | Cc::Westwood(_) | Cc::Hybla(_) | Cc::Cubic(_) | Cc::Adalr(_) => {}
        }
    }

    /// The retransmission timer expired with `flight` bytes outstanding;
    /// `first` is the first expiry for this segment (RFC 5681 reduces
    /// ssthresh only then). Sets ssthresh and cwnd.
    pub fn on_rto(&mut self, w: &mut Window, flight: u64, first: bool) {
        match self {
            Cc::Westwood(c) => c.on_rto(w, flight, first),
            Cc::Cubic(c) => c.on_rto(w, flight, first),
            Cc::Bbr(b) => b.on_rto(w),
            Cc::Aimd(_) | Cc::Vegas(_) | Cc::Hybla(_) | Cc::Adalr(_) => {
                if first {
                    w.ssthresh = self.ssthresh_after_loss(w, flight);
                }
                w.cwnd = w.smss;
            }
        }
    }
}
