//! satcp's window controllers inside quinn: an adapter from
//! `tcp::cc::WindowController` (through the `Cc` dispatch) to
//! `quinn_proto::congestion::Controller`, so `quic.cc = "aimd" | "cubic" |
//! "hybla"` run the same code, with the same keys, as on TCP.
//!
//! quinn owns loss detection (RFC 9002: packet and time thresholds, PTO)
//! and pacing; the controller only sets the window. The hooks map as
//! follows; every line that is not one-to-one says what was chosen:
//! * quinn's `on_ack(now, sent, bytes, app_limited, rtt)` comes once per
//!   newly acknowledged packet; satcp's controllers expect one call per ACK.
//!   The adapter sums the bytes of the packets an ACK frame acknowledges
//!   and calls the controller once, at quinn's `on_end_acks`, with an
//!   `AckCtx` of: `acked` the sum, `rtt` = now - the latest send time among
//!   them (RFC 9002's latest_rtt: ack delay not removed), `srtt` and
//!   `min_rtt` from quinn's estimator, `flight` and `pipe` = quinn's bytes
//!   in flight, `una` = bytes acknowledged or declared lost so far and
//!   `snd_max` = bytes sent so far (byte counters standing for TCP's
//!   sequence numbers: HyStart's round ends when `una` passes the `snd_max`
//!   of the round's start), `recovering` = the ACK acknowledges only
//!   packets sent before the current recovery began.
//! * Growth: the controller's `on_ack` on every such ACK, then `grow`
//!   unless recovering or quinn says the sender is application-limited
//!   (quinn's own controllers skip growth in both cases too; TCP's cwnd
//!   validation is the satcp counterpart).
//! * quinn's `on_congestion_event(now, sent, persistent, lost_bytes)`: a
//!   loss of a packet sent after the current recovery began starts a new
//!   one (RFC 9002 section 7.3.2, as quinn's controllers do): ssthresh =
//!   the controller's `ssthresh_after_loss` with the flight before the
//!   loss, cwnd = ssthresh (RFC 9002's "enter recovery": no fast-recovery
//!   inflation, no PRR: QUIC has neither). A loss of a packet sent before
//!   is part of the same event and changes nothing.
//! * Persistent congestion (RFC 9002 section 7.6) is TCP's timeout: the
//!   controller's `on_rto` (first expiry), then cwnd at least RFC 9002's
//!   minimum window of 2 datagrams (TCP's RTO leaves 1 SMSS).
//! * Recovery ends at the first ACK of a packet sent after it began: the
//!   controller's `on_recovery_exit`.
//! * SMSS = quinn's current maximum UDP payload (`current_mtu`: 1,200
//!   bytes until path-MTU discovery raises it; `on_mtu_update`).
//! * The initial window: `quic.initial_window` bytes if given, else
//!   quinn's default (14,720 bytes clamped to [2, 10] x 1,200: 12,000),
//!   then the controller's `initial_cwnd`.
//! * `Env`: ABC limit 2 (RFC 3465's L), dupthresh 3 (quinn's packet
//!   threshold), no TCP clock tick (1 ms, used by no adapted controller),
//!   `pacing` false (quinn paces every flow from cwnd and srtt; Hybla's own
//!   pacing rate is not used: quinn's pacer applies), the endpoint's own
//!   random stream.
//! * Controllers that need more than the window (BBR's delivery-rate
//!   samples, per-packet losses, dummy segments, research options) are not
//!   adapted yet: the parser refuses them by name.

use crate::sim::{Rng, Time};
use crate::tcp::cc::{AckCtx, Action, Cc, Controller, Env, Window, CWND_MAX};
use quinn_proto::congestion::{Controller as QController, ControllerFactory, ControllerMetrics};
use quinn_proto::RttEstimator;
use std::any::Any;
use std::sync::Arc;
use std::time::Instant;

/// quinn's default initial window before clamping (`congestion.rs`).
const QUINN_IW: u64 = 14_720;

/// Builds the adapter for each connection (quinn asks once per connection).
pub struct SatcpCcFactory {
    pub controller: Controller,
    pub initial_window: Option<u64>,
    /// The run's time base (`quic/mod.rs`): instants become ns through it.
    pub base: Instant,
    pub rng: Rng,
}

impl ControllerFactory for SatcpCcFactory {
    fn build(self: Arc<Self>, now: Instant, current_mtu: u16) -> Box<dyn QController> {
        let smss = current_mtu as u64;
        let env = Env { abc_limit: 2, tick_ns: 1_000_000, pacing: false, rng: self.rng.clone(), dupthresh: 3 };
        let mut cc = Cc::new(&self.controller, env);
        let iw = self.initial_window.unwrap_or(QUINN_IW.clamp(2 * smss, 10 * smss));
        let iw = cc.initial_cwnd(iw, smss).max(2 * smss);
        let mut w = Window::new(iw, CWND_MAX, smss);
        cc.on_open(&mut w, ns(self.base, now), None);
        Box::new(SatcpCc {
            cc,
            w,
            iw,
            base: self.base,
            recovery_start: None,
            in_recovery: false,
            batch_bytes: 0,
            batch_latest_sent: None,
            batch_new: false,
            sent_total: 0,
            acked_total: 0,
            flight: 0,
            srtt: None,
            min_rtt: None,
            acts: Vec::new(),
        })
    }
}

fn ns(base: Instant, t: Instant) -> Time {
    t.saturating_duration_since(base).as_nanos() as Time
}

#[derive(Clone)]
struct SatcpCc {
    cc: Cc,
    w: Window,
    iw: u64,
    base: Instant,
    /// When the current recovery began (quinn's `recovery_start_time`).
    recovery_start: Option<Instant>,
    in_recovery: bool,
    /// The ACK frame being processed: bytes, latest send time, whether it
    /// acknowledged a packet sent after the recovery began.
    batch_bytes: u64,
    batch_latest_sent: Option<Instant>,
    batch_new: bool,
    sent_total: u64,
    /// Bytes acknowledged or declared lost.
    acked_total: u64,
    /// quinn's bytes in flight at the last ACK, plus what was sent since.
    flight: u64,
    /// quinn's smoothed and minimum RTT at the last acknowledged packet.
    srtt: Option<f64>,
    min_rtt: Option<Time>,
    /// Actions the adapted controllers do not push (checked in debug runs).
    acts: Vec<Action>,
}

impl SatcpCc {
    fn sent_in_recovery(&self, sent: Instant) -> bool {
        self.recovery_start.is_some_and(|r| sent <= r)
    }
}

impl QController for SatcpCc {
    fn on_sent(&mut self, _now: Instant, bytes: u64, _last_packet_number: u64) {
        self.sent_total += bytes;
        self.flight += bytes;
    }

    fn on_ack(&mut self, _now: Instant, sent: Instant, bytes: u64, _app_limited: bool, rtt: &RttEstimator) {
        self.srtt = Some(rtt.get().as_nanos() as f64);
        self.min_rtt = Some(rtt.min().as_nanos() as Time);
        self.batch_bytes += bytes;
        self.acked_total += bytes;
        if self.batch_latest_sent.is_none_or(|s| sent > s) {
            self.batch_latest_sent = Some(sent);
        }
        if !self.sent_in_recovery(sent) {
            self.batch_new = true;
        }
    }

    fn on_end_acks(&mut self, now: Instant, in_flight: u64, app_limited: bool, _largest: Option<u64>) {
        self.flight = in_flight;
        if self.batch_bytes == 0 {
            return;
        }
        if self.in_recovery && self.batch_new {
            self.in_recovery = false;
            self.cc.on_recovery_exit(&mut self.w);
        }
        let t = ns(self.base, now);
        let a = AckCtx {
            now: t,
            acked: self.batch_bytes,
            rtt: self.batch_latest_sent.map(|s| ns(self.base, now) - ns(self.base, s)),
            srtt: None,
            min_rtt: None,
            una: self.acked_total,
            snd_max: self.sent_total,
            flight: in_flight,
            pipe: in_flight,
            recovering: self.in_recovery,
            peer_wnd: u64::MAX,
            ..AckCtx::default()
        };
        let a = AckCtx { srtt: self.srtt, min_rtt: self.min_rtt, ..a };
        self.cc.on_ack(&mut self.w, &a, &mut self.acts);
        if !self.in_recovery && !app_limited {
            self.cc.grow(&mut self.w, &a);
        }
        debug_assert!(self.acts.is_empty(), "an adapted controller asked for an action");
        self.acts.clear();
        self.batch_bytes = 0;
        self.batch_latest_sent = None;
        self.batch_new = false;
    }

    fn on_congestion_event(&mut self, now: Instant, sent: Instant, persistent: bool, lost_bytes: u64) {
        self.acked_total += lost_bytes;
        let flight = self.flight;
        self.flight = self.flight.saturating_sub(lost_bytes);
        if self.sent_in_recovery(sent) && !persistent {
            return;
        }
        self.recovery_start = Some(now);
        self.in_recovery = true;
        if persistent {
            let last = AckCtx { now: ns(self.base, now), flight, ..AckCtx::default() };
            self.cc.on_rto(&mut self.w, flight, true, &last, &mut self.acts);
            self.w.cwnd = self.w.cwnd.max(2 * self.w.smss);
        } else {
            self.w.ssthresh = self.cc.ssthresh_after_loss(&self.w, flight, &mut self.acts);
            self.w.cwnd = self.w.ssthresh.max(2 * self.w.smss);
        }
        self.acts.clear();
    }

    fn on_mtu_update(&mut self, new_mtu: u16) {
        self.w.smss = new_mtu as u64;
        self.w.cwnd = self.w.cwnd.max(2 * self.w.smss);
    }

    fn window(&self) -> u64 {
        self.w.cwnd
    }

    fn metrics(&self) -> ControllerMetrics {
        let mut m = ControllerMetrics::default();
        m.congestion_window = self.w.cwnd;
        m.ssthresh = (self.w.ssthresh < CWND_MAX).then_some(self.w.ssthresh);
        m.pacing_rate = (self.w.pacing_bps > 0).then_some(self.w.pacing_bps);
        m
    }

    fn clone_box(&self) -> Box<dyn QController> {
        Box::new(self.clone())
    }

    fn initial_window(&self) -> u64 {
        self.iw
    }

    fn into_any(self: Box<Self>) -> Box<dyn Any> {
        self
    }
}
