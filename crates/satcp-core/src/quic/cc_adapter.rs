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
//!   the controller's `ssthresh_after_loss`, cwnd = ssthresh (RFC 9002's
//!   "enter recovery": no fast-recovery inflation, no PRR: QUIC has
//!   neither). A loss of a packet sent before is part of the same event
//!   and changes nothing.
//! * The flight a loss response reduces from (the `flight` argument that
//!   is RFC 5681's FlightSize on TCP, snd.max - snd.una) is cwnd, RFC 9002
//!   section 7.3.2 and Appendix B.6's basis ("congestion_window *=
//!   kLossReductionFactor"; quinn's controllers too). Ambiguity: quinn's
//!   bytes in flight at the event is no FlightSize: quinn calls the event
//!   after the ACK frame's packets left the flight, so the packets
//!   acknowledged above the lost one (3 or more under the packet
//!   threshold) are out of it (it is RFC 6675's pipe plus the lost
//!   packet). Halving it collapsed a 6-datagram window to the 2-datagram
//!   floor (aimd, PER 1e-2 on the GEO path, docs/models/quic.md
//!   "Spurious PTOs of the receiver"). A sender that does not fill cwnd
//!   does not grow it either (growth skips application-limited ACKs,
//!   below), so cwnd stays near the flight it had. BBR v1 and v3 do not
//!   read the argument (their recovery uses their own inflight counts).
//! * Persistent congestion (RFC 9002 section 7.6) is TCP's timeout: the
//!   controller's `on_rto` (first expiry, the same cwnd basis), then cwnd
//!   at least RFC 9002's minimum window of 2 datagrams (TCP's RTO leaves
//!   1 SMSS).
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
//! * BBR v1 and BBRv3 (`quic.cc = "bbr" | "bbr3"`), the controllers whose
//!   capabilities ask for delivery-rate samples, get them from a sampler
//!   fed by the same hooks (`rate_sampler.rs`, which documents how
//!   packets known only by their send time are matched): `on_sent` records
//!   each datagram with the flight before it, `on_ack` matches each
//!   acknowledged packet, `on_end_acks` takes the frame's sample into
//!   `AckCtx::rate`, with `delivered` and `lost` the sampler's byte counts
//!   and `pipe` quinn's bytes in flight (quinn removes packets declared
//!   lost from it: RFC 6675's pipe). A congestion event first takes the
//!   lost packets' records: BBRv3 (`sees_losses`) hears of each through
//!   `on_lost`, as on TCP, before the recovery logic above; a persistent
//!   congestion's `on_rto` gets the counts with the batch's losses in.
//!   App-limited samples come from quinn's `app_limited` flag. BBR's
//!   recovery hooks keep their TCP meaning: `ssthresh_after_loss` gives
//!   the window recovery starts from (v1: packet conservation, inflight +
//!   what the ACK delivered; v3: cwnd unchanged) and cwnd is set to it;
//!   the growth step (`grow`) is a no-op for BBR, which sets cwnd in
//!   `on_ack`. ECN: `delivered_ce` 0, `ece` false (satcp's QUIC flows do
//!   not negotiate ECN; BBRv3's ECN logic is off by default anyway).
//! * Pacing: quinn paces every flow from its window and smoothed RTT
//!   (`connection/pacing.rs`: 1.25 x window / srtt, in bursts of 2 ms'
//!   worth, 10 to 256 datagrams); a controller's pacing rate is not read
//!   (it only reaches qlog), so
//!   BBR's pacing rate (`Window::pacing_bps`, kept and reported in
//!   `metrics`) shapes nothing: the window BBR sets (cwnd_gain x BDP plus
//!   quanta) is what quinn sees, and quinn spreads it over 0.8 smoothed
//!   RTT. BBR's pacing-gain cycle (1.25, 0.75 probing) therefore acts only
//!   through the flight it lets the window hold, Startup's 2.89 pacing gain
//!   becomes a window doubling per round (cwnd gain 2.89), and Drain
//!   drains only as far as its window asks. quinn's own BBR has the same
//!   limit (its pacing rate is not read either).
//! * Careful Resume (`quic.careful_resume`, `careful_resume.rs`) sits
//!   over whichever controller runs: it sees each datagram sent, each ACK
//!   frame after the controller and each congestion event after the
//!   controller's reaction, and sets or bounds cwnd at its phase changes.
//! * Controllers that need more than the window and the samples (dummy
//!   segments, research options, corruption verdicts) are not adapted yet:
//!   the parser refuses them by name.

use super::careful_resume::{CarefulResume, Frame, SavedPath, Set};
use super::rate_sampler::QuicRateSampler;
use crate::sim::{Rng, Time};
use crate::tcp::cc::{AckCtx, Action, Cc, Controller, Env, Window, CWND_MAX};
use crate::tcp::delivery_rate::LostSegment;
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
    /// Careful Resume's saved path state, if the flow gives one.
    pub careful_resume: Option<SavedPath>,
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
        let caps = cc.capabilities();
        Box::new(SatcpCc {
            rate: caps.rate_samples.then(QuicRateSampler::default),
            sees_losses: caps.sees_losses,
            lost_segs: Vec::new(),
            cr: self.careful_resume.map(|saved| CarefulResume::new(saved, iw, smss)),
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
pub(crate) struct SatcpCc {
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
    /// Delivery-rate samples, for a controller that asks for them (BBR).
    rate: Option<QuicRateSampler>,
    /// The controller hears of each lost packet (BBRv3's `on_lost`).
    sees_losses: bool,
    lost_segs: Vec<LostSegment>,
    cr: Option<CarefulResume>,
}

impl SatcpCc {
    fn sent_in_recovery(&self, sent: Instant) -> bool {
        self.recovery_start.is_some_and(|r| sent <= r)
    }

    /// Careful Resume's window changes, then its hold over the
    /// controller's window.
    fn apply(&mut self, set: Set) {
        let Some(cr) = &self.cr else { return };
        if let Some(c) = set.cwnd {
            self.w.cwnd = c;
        }
        if let Some(t) = set.ssthresh_at_most {
            self.w.ssthresh = self.w.ssthresh.min(t);
        }
        self.w.cwnd = cr.hold(self.w.cwnd).max(2 * self.w.smss);
    }

    /// A congestion event, after the controller's reaction.
    fn react_careful_resume(&mut self, t: Time, persistent: bool) {
        if let Some(cr) = &mut self.cr {
            let set = cr.on_congestion(t, persistent);
            self.apply(set);
        }
    }

    /// Careful Resume's phase log (tests).
    #[cfg(test)]
    pub fn careful_resume(&self) -> Option<&CarefulResume> {
        self.cr.as_ref()
    }

    /// The delivery-rate sampler (tests).
    #[cfg(test)]
    pub fn rate_sampler(&self) -> Option<&QuicRateSampler> {
        self.rate.as_ref()
    }

    /// The controller (tests).
    #[cfg(test)]
    pub fn controller(&self) -> &Cc {
        &self.cc
    }
}

impl QController for SatcpCc {
    fn on_sent(&mut self, now: Instant, bytes: u64, _last_packet_number: u64) {
        let t = ns(self.base, now);
        if let Some(r) = &mut self.rate {
            r.on_sent(t, bytes, self.flight);
        }
        self.sent_total += bytes;
        self.flight += bytes;
        if let Some(cr) = &mut self.cr {
            let set = cr.on_sent(t, self.flight, self.w.cwnd);
            self.apply(set);
        }
    }

    fn on_ack(&mut self, _now: Instant, sent: Instant, bytes: u64, app_limited: bool, rtt: &RttEstimator) {
        if let Some(r) = &mut self.rate {
            r.on_acked(ns(self.base, sent), bytes, app_limited, self.flight);
        }
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
        let (rate, delivered, lost) = match &mut self.rate {
            Some(r) => (r.on_end_acks(t, self.min_rtt, self.srtt), r.delivered, r.lost),
            None => (None, 0, 0),
        };
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
            delivered,
            rate,
            lost,
            ..AckCtx::default()
        };
        let a = AckCtx { srtt: self.srtt, min_rtt: self.min_rtt, ..a };
        self.cc.on_ack(&mut self.w, &a, &mut self.acts);
        if !self.in_recovery && !app_limited {
            self.cc.grow(&mut self.w, &a);
        }
        debug_assert!(self.acts.is_empty(), "an adapted controller asked for an action");
        self.acts.clear();
        if let Some(cr) = &mut self.cr {
            let f = Frame {
                now: t,
                acked: self.batch_bytes,
                newest_sent: self.batch_latest_sent.map_or(0, |s| ns(self.base, s)),
                flight: in_flight,
                app_limited,
                acked_total: self.acked_total,
                min_rtt: self.min_rtt,
                rtt: a.rtt,
                srtt: self.srtt.map(|s| s as Time),
                cwnd: self.w.cwnd,
            };
            let set = cr.on_ack_frame(&f);
            self.apply(set);
        }
        self.batch_bytes = 0;
        self.batch_latest_sent = None;
        self.batch_new = false;
    }

    fn on_congestion_event(&mut self, now: Instant, sent: Instant, persistent: bool, lost_bytes: u64) {
        self.acked_total += lost_bytes;
        let flight = self.flight;
        self.flight = self.flight.saturating_sub(lost_bytes);
        let t = ns(self.base, now);
        let (mut delivered, mut lost) = (0, 0);
        if let Some(r) = &mut self.rate {
            r.on_lost(ns(self.base, sent), lost_bytes, &mut self.lost_segs);
            (delivered, lost) = (r.delivered, r.lost);
            if self.sees_losses {
                for l in &self.lost_segs {
                    self.cc.on_lost(&mut self.w, l, t, delivered);
                }
            }
        }
        if self.sent_in_recovery(sent) && !persistent {
            self.react_careful_resume(t, persistent);
            return;
        }
        self.recovery_start = Some(now);
        self.in_recovery = true;
        // RFC 9002's basis for the reduction (header): cwnd, not quinn's flight
        let basis = self.w.cwnd;
        if persistent {
            let last = AckCtx { now: t, flight, delivered, lost, ..AckCtx::default() };
            self.cc.on_rto(&mut self.w, basis, true, &last, &mut self.acts);
            self.w.cwnd = self.w.cwnd.max(2 * self.w.smss);
        } else {
            self.w.ssthresh = self.cc.ssthresh_after_loss(&self.w, basis, &mut self.acts);
            self.w.cwnd = self.w.ssthresh.max(2 * self.w.smss);
        }
        self.acts.clear();
        self.react_careful_resume(t, persistent);
    }

    fn on_mtu_update(&mut self, new_mtu: u16) {
        self.w.smss = new_mtu as u64;
        if let Some(cr) = &mut self.cr {
            cr.set_smss(new_mtu as u64);
        }
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
