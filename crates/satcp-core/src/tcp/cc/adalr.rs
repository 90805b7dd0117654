//! TCP-ADaLR, "TCP with Adaptive Delay and Loss Response" (M. O. Omueti,
//! M.A.Sc. thesis, Simon Fraser University, 2007, chapter 5; spec 000
//! section 1). A sender-side change on top of TCP SACK or TCP NewReno
//! recovery (`variant = "adalr-sack"` / `"adalr-newreno"`).
//!
//! * Scaling component (Eq. 5.1): rho = clamp(60 x sampleRTT [s], 1, 60)
//!   from every Karn-valid raw RTT sample (not SRTT); breakpoint rho >= 15
//!   (sampleRTT >= 250 ms, `adalr_rho_break`).
//! * Slow start (Algorithms 5.1, 5.2): the four sub-phases reduce to one
//!   condition, accel = (flightsize < rwnd/4 and cwnd <= ssthresh/2) or
//!   (cwnd > ssthresh/4 and rwnd/4 <= flightsize < rwnd/2). While no loss has
//!   happened (snd_recover == 0) and rho >= 15, an accelerated ACK adds
//!   max(1, sqrt(rho)/4) SMSS; every other slow-start ACK adds the standard
//!   min(acked, L x SMSS) (RFC 5681 with the flow's ABC limit L).
//! * Congestion avoidance (Algorithm 5.2): the standard SMSS^2/cwnd per ACK
//!   while "in fast recovery" (a loss has happened, snd_una has not passed
//!   snd_recover, rho >= 15) or flightsize >= rwnd/2; otherwise
//!   max(1, sqrt(rho)/2) x SMSS^2/cwnd.
//! * Receive window (Algorithm 5.3, `Adalr::rwnd_boost`): with rho >= 15
//!   and flightsize <= rwnd, the sender obeys rwnd + gain x rho x SMSS
//!   (gain = `adalr_rtt_dev_gain`, 0.25) while no loss has happened, rwnd +
//!   SMSS while snd_una has not passed snd_recover after one, else rwnd.
//! * Loss recovery (Algorithm 5.4): on a NewReno partial ACK cwnd = cwnd -
//!   acked + 2 SMSS, or 2 SMSS if cwnd <= acked (NewReno adds 1 SMSS); the
//!   retransmission timer re-armed by an expiry gets `adalr_rto_offset`
//!   (200 ms, the largest ACK delay) added; at most `adalr_retx_limit` (3)
//!   segments are retransmitted per send opportunity (hooks of the
//!   controller contract, `tcp/cc/mod.rs`, that the endpoint and the
//!   recovery schemes ask: `partial_ack_cwnd`, `partial_ack_credit`,
//!   `recovery_exit_cwnd`, `rto_offset`, `retx_limit`, `rwnd_boost`).
//! * Everything else (fast retransmit at 3 duplicate ACKs, ssthresh =
//!   max(FlightSize/2, 2 SMSS), cwnd = 1 SMSS after an RTO) is the base
//!   variant's (spec ambiguity 18: the thesis names no other change).
//!
//! snd_recover: the sender's `recover` (RFC 6582 "recover", RFC 6675
//! RecoveryPoint), an exclusive end that is 0 until the first fast recovery
//! or RTO and never reset, so "snd_recover != 0" is "a loss has happened"
//! and the thesis' inclusive "snd_una <= snd_recover" is `una < recover`.
//! The SACK variant keeps the same variable (ambiguity 11), and an RTO sets
//! it as RFC 6582 does.
//!
//! Readings of the thesis' open points (spec 000 section 6), each a
//! parameter; the defaults are those that reproduce the thesis best (docs/
//! validation.md, ADaLR section, has the measurements):
//! * rho before the first data RTT sample (ambiguity 1, `adalr_initial_rho`):
//!   from the handshake's sample ("handshake", the default: OPNET's RTT
//!   update runs on it), or a fixed number in [1, 60].
//! * Sample source (2): every Karn-valid sample the sender takes
//!   (`rtt_sampling` decides how many), and what "sampleRTT" is
//!   (`adalr_rho_source`): "sample_ticks" (default) measures it in ticks of
//!   the TCP clock (`clock_granularity`, 0.5 s in the thesis' Table 7.4),
//!   rounded up, as a coarse-timer TCP counts it; "sample" takes it exact;
//!   "rto" uses the RTO the same update computes. On the thesis' 556 ms path
//!   the tick reading gives rho = 60 and reproduces Table 7.5 (the exact
//!   sample gives rho = 33, 16% slow); with a 1 ms clock the first two
//!   differ by under 1 ms.
//! * Increments (4, `adalr_increments`): "fractional" (default; carried to
//!   the next ACK so no growth is lost) or "whole" (sqrt(rho)/4 and
//!   sqrt(rho)/2 rounded to the nearest whole SMSS, at least 1).
//! * Congestion-avoidance gate (7, `adalr_ca_gate`): "literal" (default,
//!   Algorithm 5.2 as printed: the scaled increase whenever flightsize <
//!   rwnd/2, whatever rho) or "rho" (only when rho >= 15).
//! * "Immediately after fast recovery" and flightsize timing (8, 10):
//!   snd_una and flightsize after the ACK being processed.
//! * cwnd == ssthresh (9, `adalr_at_ssthresh`): "avoidance" (default, as
//!   RFC 5681 and the AIMD controller) or "slow_start"; the receive-window
//!   rule follows the same choice.
//! * rwnd boost persistence (13, `adalr_rwnd_boost`): "once" (default: the
//!   latest advertised window plus the boost, recomputed at each send
//!   opportunity) or "cumulative" (the boost is added on each ACK to an
//!   extra window that advertisements do not reset). `adalr_boost_check`
//!   says which window "flightsize > rwnd" compares with, in both readings:
//!   the increased one (default) or the advertised one.
//! * Receiver acceptance beyond the advertised window (14): the receiver's
//!   `accept_beyond_window` (a general TCP key; the ADaLR presets turn it
//!   on, see docs/models/adalr.md).
//! * Fast-recovery guard (15, `adalr_fr_guard`): "partial" (default, the
//!   prose: NewReno's partial-ACK step with +2 SMSS) or "full" (the printed
//!   guard: the formula applied to the ACK that ends recovery). For SACK
//!   recovery, which sends by pipe and does not deflate cwnd (RFC 6675),
//!   "partial" lets each partial ACK send one segment beyond cwnd - pipe:
//!   the same one extra segment that +2 instead of +1 SMSS gives NewReno.
//! * RTO offset (16): added to every timer re-armed by an expiry, after the
//!   backoff and its 64 s cap.
//! * Retransmission limit (17): per send opportunity (each ACK or timer),
//!   counting go-back-N and SACK hole retransmissions.

use super::{AckCtx, Action, CcParams, Env, Window, WindowController};
use crate::scenario::reader::{Res, Tbl};
use crate::tcp::profile::Profile;
use crate::sim::Time;
use toml::Value;

pub const RHO_MIN: f64 = 1.0;
pub const RHO_MAX: f64 = 60.0;

/// TCP-ADaLR's parameters and the reading chosen for each of the thesis'
/// open points (spec 000 section 6; the header of this file explains each).
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct AdalrCfg {
    /// "RTT deviation gain" of Algorithm 5.3 (Table 7.4's 0.25).
    pub rtt_dev_gain: f64,
    /// rho at and above which the adaptive increases apply (15 = 250 ms).
    pub rho_break: f64,
    pub initial_rho: AdalrInitialRho,
    pub rho_source: AdalrRhoSource,
    pub rwnd_boost: AdalrRwndBoost,
    /// Algorithm 5.3's "flightsize > rwnd: do nothing" compares with the
    /// advertised window (true) or with the increased one (false).
    pub boost_check_advertised: bool,
    pub increments: AdalrIncrements,
    pub ca_gate: AdalrCaGate,
    pub fr_guard: AdalrFrGuard,
    /// cwnd == ssthresh counts as slow start (true) or congestion
    /// avoidance (false).
    pub equal_is_slow_start: bool,
    /// Added to the retransmission timer re-armed by an expiry.
    pub rto_offset_ns: u64,
    /// Most segments retransmitted per send opportunity; None = no limit.
    pub retx_limit: Option<u32>,
}

/// rho before the connection's first Karn-valid data RTT sample.
#[derive(Clone, Copy, Debug, PartialEq)]
pub enum AdalrInitialRho {
    /// From the handshake's RTT sample (OPNET's RTT update runs on it too).
    Handshake,
    Fixed(f64),
}

/// What Eq. 5.1's sampleRTT is taken to be.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum AdalrRhoSource {
    /// The raw sample, exact.
    Sample,
    /// The raw sample measured in ticks of the TCP clock
    /// (`clock_granularity`): rounded up to a whole number of ticks.
    SampleTicks,
    /// The RTO the same update computes (at least `min_rto`).
    Rto,
}

/// How Algorithm 5.3's "rwnd += boost" persists.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum AdalrRwndBoost {
    /// Added to the latest advertised window at each send opportunity.
    Once,
    /// Added on every ACK that meets Algorithm 5.3's conditions to an
    /// extra window that the advertisements do not reset.
    Cumulative,
}

/// Whether sqrt(rho)/4 and sqrt(rho)/2 are used as they are or rounded to
/// whole segments ("integral multiples of the SMSS").
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum AdalrIncrements {
    Fractional,
    Whole,
}

/// Which congestion-avoidance ACKs get the sqrt(rho)/2 increase.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum AdalrCaGate {
    /// Algorithm 5.2 as printed: whenever flightsize < rwnd/2 (any rho).
    Literal,
    /// Only when rho >= rho_break (the stated intent of section 5.1).
    Rho,
}

/// Which ACK Algorithm 5.4's "cwnd - acked + 2 SMSS" applies to.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum AdalrFrGuard {
    /// Partial ACKs during fast recovery (the prose's reading).
    Partial,
    /// The ACK that ends fast recovery (the printed guard snd_una >
    /// snd_recover).
    Full,
}

impl CcParams for AdalrCfg {
    const KEYS: &'static [&'static str] = &[
        "adalr_rtt_dev_gain", "adalr_rho_break", "adalr_initial_rho", "adalr_rwnd_boost", "adalr_rho_source",
        "adalr_boost_check", "adalr_increments", "adalr_ca_gate", "adalr_fr_guard", "adalr_at_ssthresh",
        "adalr_rto_offset", "adalr_retx_limit",
    ];

    fn parse(t: &Tbl, _profile: Profile) -> Res<Self> {
        let initial_rho = match t.get("adalr_initial_rho") {
            None => AdalrInitialRho::Handshake,
            Some(Value::String(s)) if s == "handshake" => AdalrInitialRho::Handshake,
            Some(_) => AdalrInitialRho::Fixed(
                t.number("adalr_initial_rho", |x| (1.0..=60.0).contains(&x), "\"handshake\" or a number in [1, 60]")?
                    .unwrap_or(1.0),
            ),
        };
        Ok(AdalrCfg {
            rtt_dev_gain: t
                .number("adalr_rtt_dev_gain", |x| (0.0..=60.0).contains(&x), "a number in [0, 60], e.g. 0.25")?
                .unwrap_or(0.25),
            rho_break: t.number("adalr_rho_break", |x| (1.0..=60.0).contains(&x), "a number in [1, 60], e.g. 15")?.unwrap_or(15.0),
            initial_rho,
            rho_source: match t.choice("adalr_rho_source", &["sample", "sample_ticks", "rto"])? {
                Some("sample") => AdalrRhoSource::Sample,
                Some("rto") => AdalrRhoSource::Rto,
                _ => AdalrRhoSource::SampleTicks,
            },
            rwnd_boost: match t.choice("adalr_rwnd_boost", &["once", "cumulative"])? {
                Some("cumulative") => AdalrRwndBoost::Cumulative,
                _ => AdalrRwndBoost::Once,
            },
            boost_check_advertised: t.choice("adalr_boost_check", &["increased", "advertised"])? == Some("advertised"),
            increments: match t.choice("adalr_increments", &["fractional", "whole"])? {
                Some("whole") => AdalrIncrements::Whole,
                _ => AdalrIncrements::Fractional,
            },
            ca_gate: match t.choice("adalr_ca_gate", &["literal", "rho"])? {
                Some("rho") => AdalrCaGate::Rho,
                _ => AdalrCaGate::Literal,
            },
            fr_guard: match t.choice("adalr_fr_guard", &["partial", "full"])? {
                Some("full") => AdalrFrGuard::Full,
                _ => AdalrFrGuard::Partial,
            },
            equal_is_slow_start: t.choice("adalr_at_ssthresh", &["avoidance", "slow_start"])? == Some("slow_start"),
            rto_offset_ns: t.duration("adalr_rto_offset")?.unwrap_or(200_000_000),
            retx_limit: match t.u32_in("adalr_retx_limit", 0, u32::MAX)?.unwrap_or(3) {
                0 => None,
                n => Some(n),
            },
        })
    }
}

#[derive(Clone, Debug)]
pub struct Adalr {
    pub cfg: AdalrCfg,
    abc_limit: u32,
    /// Latest rho; None before any RTT sample (handshake included).
    rho: Option<f64>,
    /// Fraction of a byte of cwnd growth carried between ACKs, in [0, 1).
    carry: f64,
    /// The "cumulative" reading's extra receive window (bytes).
    extra_wnd: u64,
    /// The TCP clock tick (`clock_granularity`, at least 1 ns).
    pub tick_ns: u64,
}

/// Eq. 5.1: rho from one RTT sample in ns.
pub fn rho_of(rtt_ns: f64) -> f64 {
    (60.0 * rtt_ns / 1e9).clamp(RHO_MIN, RHO_MAX)
}

/// Whether slow start's accelerated increase may apply to this state
/// (the union of the four sub-phases of Algorithms 5.1 and 5.2).
pub fn in_sub_phase(cwnd: u64, ssthresh: u64, flight: u64, rwnd: u64) -> bool {
    let (c, s, f, r) = (cwnd as f64, ssthresh as f64, flight as f64, rwnd as f64);
    (f < r / 4.0 && c <= s / 2.0) || (c > s / 4.0 && f >= r / 4.0 && f < r / 2.0)
}

impl Adalr {
    pub fn new(cfg: AdalrCfg, abc_limit: u32, tick_ns: u64) -> Self {
        Adalr { cfg, abc_limit, rho: None, carry: 0.0, extra_wnd: 0, tick_ns: tick_ns.max(1) }
    }

    /// The rho in force now.
    pub fn rho(&self) -> f64 {
        match (self.rho, self.cfg.initial_rho) {
            (Some(r), _) => r,
            (None, AdalrInitialRho::Fixed(r)) => r,
            (None, AdalrInitialRho::Handshake) => RHO_MIN,
        }
    }

    fn fast(&self) -> bool {
        self.rho() >= self.cfg.rho_break
    }

    fn factor(&self, x: f64) -> f64 {
        let x = match self.cfg.increments {
            AdalrIncrements::Fractional => x,
            AdalrIncrements::Whole => x.round(),
        };
        x.max(1.0)
    }

    /// max(1, sqrt(rho)/4): slow start's accelerated increment in SMSS.
    pub fn ss_factor(&self) -> f64 {
        self.factor(self.rho().sqrt() / 4.0)
    }

    /// max(1, sqrt(rho)/2): congestion avoidance's scale.
    pub fn ca_factor(&self) -> f64 {
        self.factor(self.rho().sqrt() / 2.0)
    }

    fn slow_start(&self, w: &Window) -> bool {
        w.cwnd < w.ssthresh || (w.cwnd == w.ssthresh && self.cfg.equal_is_slow_start)
    }

    /// Every ACK: rho from its RTT sample; the cumulative boost grows.
    pub fn on_ack(&mut self, w: &Window, a: &AckCtx) {
        if self.rho.is_none() && self.cfg.initial_rho == AdalrInitialRho::Handshake {
            self.rho = a.min_rtt.map(|r| rho_of(r as f64));
        }
        if let Some(r) = a.rtt {
            let x = match self.cfg.rho_source {
                AdalrRhoSource::Sample => r,
                AdalrRhoSource::SampleTicks => r.div_ceil(self.tick_ns).max(1) * self.tick_ns,
                AdalrRhoSource::Rto => a.rto,
            };
            self.rho = Some(rho_of(x as f64));
        }
        if self.cfg.rwnd_boost == AdalrRwndBoost::Cumulative && a.acked > 0 {
            // the window "flightsize > rwnd" compares with: the advertised
            // one, or the advertised one with what has been added so far
            let rwnd = if self.cfg.boost_check_advertised { a.peer_wnd } else { a.peer_wnd + self.extra_wnd };
            let b = self.boost(w, a.una, a.snd_max, a.recover, rwnd);
            self.extra_wnd += b;
        }
    }

    /// Algorithm 5.3's increase for this state; `rwnd` is the window it
    /// is added to.
    fn boost(&self, w: &Window, una: u64, max: u64, recover: u64, rwnd: u64) -> u64 {
        if !self.fast() {
            return 0;
        }
        let b = self.raw_boost(w, una, recover);
        let limit = if self.cfg.boost_check_advertised { rwnd } else { rwnd + b };
        if max - una > limit {
            0
        } else {
            b
        }
    }

    fn raw_boost(&self, w: &Window, una: u64, recover: u64) -> u64 {
        if w.cwnd == w.ssthresh && !self.cfg.equal_is_slow_start {
            // literal Algorithm 5.3: neither slow start nor avoidance
            return 0;
        }
        if recover == 0 {
            (self.cfg.rtt_dev_gain * self.rho() * w.smss as f64) as u64
        } else if una < recover {
            w.smss
        } else {
            0
        }
    }

    /// Bytes the sender may send beyond the advertised window `peer_wnd`.
    pub fn rwnd_boost(&self, w: &Window, una: u64, max: u64, recover: u64, peer_wnd: u64) -> u64 {
        match self.cfg.rwnd_boost {
            AdalrRwndBoost::Once => self.boost(w, una, max, recover, peer_wnd),
            AdalrRwndBoost::Cumulative => self.extra_wnd,
        }
    }

    fn add(&mut self, w: &mut Window, bytes: f64) {
        let total = bytes + self.carry;
        let whole = total.floor();
        self.carry = total - whole;
        w.cwnd += whole as u64;
    }

    /// The recovery scheme lets the window grow on this ACK.
    pub fn grow(&mut self, w: &mut Window, a: &AckCtx) {
        if a.acked == 0 {
            return;
        }
        let smss = w.smss as f64;
        let flight = a.flight as f64;
        let rwnd = a.peer_wnd as f64;
        if self.slow_start(w) {
            let accel = a.recover == 0 && self.fast() && in_sub_phase(w.cwnd, w.ssthresh, a.flight, a.peer_wnd);
            if accel {
                let inc = self.ss_factor() * smss;
                self.add(w, inc);
            } else {
                w.cwnd += a.acked.min(self.abc_limit as u64 * w.smss);
            }
            return;
        }
        let std = smss * smss / w.cwnd as f64;
        let in_recovery_phase = a.recover != 0 && a.una < a.recover && self.fast();
        let gated = self.cfg.ca_gate == AdalrCaGate::Rho && !self.fast();
        let inc = if in_recovery_phase || flight >= rwnd / 2.0 || gated { std } else { self.ca_factor() * std };
        self.add(w, inc.max(1.0));
    }

    /// Algorithm 5.4: cwnd after an ACK of `acked` bytes in fast recovery.
    pub fn deflate(w: &Window, acked: u64) -> u64 {
        if w.cwnd <= acked {
            2 * w.smss
        } else {
            w.cwnd - acked + 2 * w.smss
        }
    }
}

/// TCP-ADaLR's rules beyond the window are hooks of the controller
/// contract; the endpoint and the recovery schemes ask them.
impl WindowController for Adalr {
    type Params = AdalrCfg;

    fn new(p: &AdalrCfg, env: Env) -> Self {
        Adalr::new(*p, env.abc_limit, env.tick_ns)
    }

    fn on_ack(&mut self, w: &mut Window, a: &AckCtx, _acts: &mut Vec<Action>) {
        Adalr::on_ack(self, w, a);
    }

    fn grow(&mut self, w: &mut Window, a: &AckCtx) {
        Adalr::grow(self, w, a);
    }

    /// Algorithm 5.3.
    fn rwnd_boost(&self, w: &Window, una: u64, max: u64, recover: u64, peer_wnd: u64) -> u64 {
        Adalr::rwnd_boost(self, w, una, max, recover, peer_wnd)
    }

    /// Open point 17.
    fn retx_limit(&self) -> u32 {
        self.cfg.retx_limit.unwrap_or(u32::MAX)
    }

    /// Open point 16: the re-armed timer waits out a delayed ACK too.
    fn rto_offset(&self) -> Time {
        self.cfg.rto_offset_ns
    }

    /// Algorithm 5.4 on NewReno's partial ACKs (guard "partial").
    fn partial_ack_cwnd(&mut self, w: &Window, acked: u64, deflated: u64) -> u64 {
        match self.cfg.fr_guard {
            AdalrFrGuard::Partial => Adalr::deflate(w, acked),
            AdalrFrGuard::Full => deflated,
        }
    }

    /// SACK recovery (guard "partial"): one segment beyond cwnd - pipe per
    /// partial ACK, the extra segment +2 instead of +1 SMSS gives NewReno.
    fn partial_ack_credit(&mut self, _w: &Window, _acked: u64) -> u32 {
        (self.cfg.fr_guard == AdalrFrGuard::Partial) as u32
    }

    /// Algorithm 5.4 on the ACK that ends recovery (guard "full").
    fn recovery_exit_cwnd(&mut self, w: &Window, acked: u64, cwnd: u64) -> u64 {
        match self.cfg.fr_guard {
            AdalrFrGuard::Full => Adalr::deflate(w, acked),
            AdalrFrGuard::Partial => cwnd,
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    const SMSS: u64 = 1460;

    fn cfg() -> AdalrCfg {
        AdalrCfg {
            rtt_dev_gain: 0.25,
            rho_break: 15.0,
            initial_rho: AdalrInitialRho::Handshake,
            rho_source: AdalrRhoSource::Sample,
            rwnd_boost: AdalrRwndBoost::Once,
            boost_check_advertised: false,
            increments: AdalrIncrements::Fractional,
            ca_gate: AdalrCaGate::Literal,
            fr_guard: AdalrFrGuard::Partial,
            equal_is_slow_start: false,
            rto_offset_ns: 200_000_000,
            retx_limit: Some(3),
        }
    }

    fn with_rtt(c: AdalrCfg, rtt_ms: u64) -> Adalr {
        let mut a = Adalr::new(c, 1, 500_000_000);
        let w = Window::new(2 * SMSS, 65535, SMSS);
        a.on_ack(&w, &AckCtx { rtt: Some(rtt_ms * 1_000_000), ..Default::default() });
        a
    }

    fn ack(acked: u64, flight: u64, recover: u64, una: u64) -> AckCtx {
        AckCtx { acked, flight, recover, una, snd_max: una + flight, peer_wnd: 65535, ..Default::default() }
    }

    #[test]
    fn rho_from_raw_samples_clamped_to_1_and_60() {
        // Eq. 5.1: 60 x RTT[s]
        assert_eq!(rho_of(10e6), 1.0); // 10 ms -> 0.6 -> 1
        assert_eq!(rho_of(250e6), 15.0);
        assert!((rho_of(556e6) - 33.36).abs() < 1e-9);
        assert_eq!(rho_of(1e9), 60.0);
        assert_eq!(rho_of(3e9), 60.0);
        // the spec's table: sqrt(rho)/4 and sqrt(rho)/2 at 500 ms and 1 s
        let a = with_rtt(cfg(), 500);
        assert!((a.ss_factor() - 30f64.sqrt() / 4.0).abs() < 1e-12); // 1.369
        assert!((a.ca_factor() - 30f64.sqrt() / 2.0).abs() < 1e-12); // 2.739
        let b = with_rtt(cfg(), 100); // rho 6: sqrt(6)/4 = 0.61 -> 1
        assert_eq!(b.ss_factor(), 1.0);
        assert!((b.ca_factor() - 6f64.sqrt() / 2.0).abs() < 1e-12); // 1.22
        // every sample replaces rho (raw, not smoothed)
        let mut c = with_rtt(cfg(), 600);
        let w = Window::new(2 * SMSS, 65535, SMSS);
        c.on_ack(&w, &AckCtx { rtt: Some(300_000_000), ..Default::default() });
        assert_eq!(c.rho(), 18.0);
    }

    #[test]
    fn rho_sources_ticks_and_rto() {
        let w = Window::new(2 * SMSS, 65535, SMSS);
        let ack = |rtt_ms: u64, rto_ms: u64| AckCtx { rtt: Some(rtt_ms * 1_000_000), rto: rto_ms * 1_000_000, ..Default::default() };
        // 0.5 s ticks: 556 ms counts as 2 ticks = 1 s (rho 60), 200 ms as
        // 1 tick = 0.5 s (rho 30), 500 ms as exactly 1 tick
        let mut t = Adalr::new(AdalrCfg { rho_source: AdalrRhoSource::SampleTicks, ..cfg() }, 1, 500_000_000);
        t.on_ack(&w, &ack(556, 3000));
        assert_eq!(t.rho(), 60.0);
        t.on_ack(&w, &ack(200, 3000));
        assert_eq!(t.rho(), 30.0);
        t.on_ack(&w, &ack(500, 3000));
        assert_eq!(t.rho(), 30.0);
        // a 1 ms clock: the sample itself, to the millisecond
        let mut f = Adalr::new(AdalrCfg { rho_source: AdalrRhoSource::SampleTicks, ..cfg() }, 1, 1_000_000);
        f.on_ack(&w, &ack(200, 3000));
        assert_eq!(f.rho(), 12.0);
        // the RTO of the same update (1.2 s -> 60; 0.2 s -> 12)
        let mut r = Adalr::new(AdalrCfg { rho_source: AdalrRhoSource::Rto, ..cfg() }, 1, 500_000_000);
        r.on_ack(&w, &ack(100, 1200));
        assert_eq!(r.rho(), 60.0);
        r.on_ack(&w, &ack(100, 200));
        assert_eq!(r.rho(), 12.0);
        // no sample on this ACK (Karn): rho stays
        r.on_ack(&w, &AckCtx { rto: 3_000_000_000, ..Default::default() });
        assert_eq!(r.rho(), 12.0);
    }

    #[test]
    fn rho_before_the_first_sample() {
        let w = Window::new(2 * SMSS, 65535, SMSS);
        // handshake reading: the SYN's RTT sample (min_rtt) sets rho
        let mut a = Adalr::new(cfg(), 1, 500_000_000);
        assert_eq!(a.rho(), 1.0);
        a.on_ack(&w, &AckCtx { min_rtt: Some(556_000_000), ..Default::default() });
        assert!((a.rho() - 33.36).abs() < 1e-9);
        // fixed reading
        let b = Adalr::new(AdalrCfg { initial_rho: AdalrInitialRho::Fixed(60.0), ..cfg() }, 1, 500_000_000);
        assert_eq!(b.rho(), 60.0);
    }

    #[test]
    fn sub_phases_of_algorithms_5_1_and_5_2() {
        // ssthresh 65535, rwnd 65535: ssthresh/4 = 16383.75, /2 = 32767.5
        let s = 65535;
        // SS-1: cwnd <= ssthresh/4, flight < rwnd/4
        assert!(in_sub_phase(8 * SMSS, s, 4 * SMSS, 65535));
        // SS-2: ssthresh/4 < cwnd <= ssthresh/2, flight < rwnd/4
        assert!(in_sub_phase(20 * SMSS, s, 10 * SMSS, 65535));
        // SS-3/4: cwnd > ssthresh/4, rwnd/4 <= flight < rwnd/2
        assert!(in_sub_phase(20 * SMSS, s, 12 * SMSS, 65535));
        assert!(in_sub_phase(40 * SMSS, s, 20 * SMSS, 65535));
        // uncovered: cwnd <= ssthresh/4 with flight >= rwnd/4
        assert!(!in_sub_phase(11 * SMSS, s, 12 * SMSS, 65535));
        // uncovered: cwnd > ssthresh/2 with flight < rwnd/4
        assert!(!in_sub_phase(23 * SMSS, s, 10 * SMSS, 65535));
        // uncovered: flight >= rwnd/2
        assert!(!in_sub_phase(40 * SMSS, s, 23 * SMSS, 65535));
    }

    #[test]
    fn slow_start_accelerates_only_loss_free_with_rho_at_least_15() {
        // RTT 600 ms: rho 36, sqrt(36)/4 = 1.5 SMSS = 2190 bytes
        let mut a = with_rtt(cfg(), 600);
        let mut w = Window::new(4 * SMSS, 65535, SMSS);
        a.grow(&mut w, &ack(2 * SMSS, 2 * SMSS, 0, 1));
        assert_eq!(w.cwnd, 4 * SMSS + 2190);
        // outside the sub-phases (flight >= rwnd/2): the standard SMSS
        let mut w = Window::new(30 * SMSS, 65535, SMSS);
        a.grow(&mut w, &ack(2 * SMSS, 25 * SMSS, 0, 1));
        assert_eq!(w.cwnd, 31 * SMSS);
        // after a loss (snd_recover != 0): standard
        let mut w = Window::new(4 * SMSS, 65535, SMSS);
        a.grow(&mut w, &ack(2 * SMSS, 2 * SMSS, 5000, 9000));
        assert_eq!(w.cwnd, 5 * SMSS);
        // rho < 15 (RTT 200 ms, rho 12): standard
        let mut b = with_rtt(cfg(), 200);
        let mut w = Window::new(4 * SMSS, 65535, SMSS);
        b.grow(&mut w, &ack(2 * SMSS, 2 * SMSS, 0, 1));
        assert_eq!(w.cwnd, 5 * SMSS);
    }

    #[test]
    fn fractional_increments_carry_and_whole_ones_round() {
        // rho 33.36 (556 ms): sqrt/4 = 1.4440 SMSS = 2108.2 bytes
        let mut a = with_rtt(cfg(), 556);
        let mut w = Window::new(4 * SMSS, 65535, SMSS);
        for _ in 0..5 {
            a.grow(&mut w, &ack(SMSS, 2 * SMSS, 0, 1));
        }
        let exact = 5.0 * (33.36f64).sqrt() / 4.0 * 1460.0;
        assert_eq!(w.cwnd, 4 * SMSS + exact.floor() as u64);
        let mut b = with_rtt(AdalrCfg { increments: AdalrIncrements::Whole, ..cfg() }, 556);
        assert_eq!(b.ss_factor(), 1.0); // 1.444 rounds to 1
        assert_eq!(b.ca_factor(), 3.0); // 2.888 rounds to 3
        let mut w = Window::new(4 * SMSS, 65535, SMSS);
        b.grow(&mut w, &ack(SMSS, 2 * SMSS, 0, 1));
        assert_eq!(w.cwnd, 5 * SMSS);
    }

    #[test]
    fn congestion_avoidance_scaled_below_half_rwnd() {
        // rho 36: sqrt(36)/2 = 3; cwnd 20 SMSS: standard SMSS^2/cwnd = 73 bytes
        let mut a = with_rtt(cfg(), 600);
        let mut w = Window::new(20 * SMSS, 10 * SMSS, SMSS);
        a.grow(&mut w, &ack(SMSS, 10 * SMSS, 0, 1));
        assert_eq!(w.cwnd, 20 * SMSS + 219); // 3 x 73
        // flight >= rwnd/2: standard
        let mut w = Window::new(20 * SMSS, 10 * SMSS, SMSS);
        a.grow(&mut w, &ack(SMSS, 23 * SMSS, 0, 1));
        assert_eq!(w.cwnd, 20 * SMSS + 73);
        // after a loss, snd_una not past snd_recover, rho >= 15: standard
        let mut w = Window::new(20 * SMSS, 10 * SMSS, SMSS);
        a.grow(&mut w, &ack(SMSS, 10 * SMSS, 50_000, 40_000));
        assert_eq!(w.cwnd, 20 * SMSS + 73);
        // ... and past it: scaled again (no snd_recover == 0 gate in CA)
        let mut w = Window::new(20 * SMSS, 10 * SMSS, SMSS);
        a.grow(&mut w, &ack(SMSS, 10 * SMSS, 50_000, 60_000));
        assert_eq!(w.cwnd, 20 * SMSS + 219);
    }

    #[test]
    fn congestion_avoidance_gate_literal_versus_rho() {
        // RTT 100 ms: rho 6, sqrt(6)/2 = 1.2247; literal scales anyway
        let mut a = with_rtt(cfg(), 100);
        let mut w = Window::new(20 * SMSS, 10 * SMSS, SMSS);
        a.grow(&mut w, &ack(SMSS, 10 * SMSS, 0, 1));
        assert_eq!(w.cwnd, 20 * SMSS + (6f64.sqrt() / 2.0 * 73.0) as u64);
        let mut b = with_rtt(AdalrCfg { ca_gate: AdalrCaGate::Rho, ..cfg() }, 100);
        let mut w = Window::new(20 * SMSS, 10 * SMSS, SMSS);
        b.grow(&mut w, &ack(SMSS, 10 * SMSS, 0, 1));
        assert_eq!(w.cwnd, 20 * SMSS + 73);
    }

    #[test]
    fn cwnd_equal_to_ssthresh() {
        let mut a = with_rtt(cfg(), 600);
        let mut w = Window::new(20 * SMSS, 20 * SMSS, SMSS);
        a.grow(&mut w, &ack(SMSS, 10 * SMSS, 0, 1));
        assert_eq!(w.cwnd, 20 * SMSS + 219); // avoidance by default
        let mut b = with_rtt(AdalrCfg { equal_is_slow_start: true, ..cfg() }, 600);
        let mut w = Window::new(20 * SMSS, 20 * SMSS, SMSS);
        b.grow(&mut w, &ack(SMSS, 12 * SMSS, 0, 1));
        assert_eq!(w.cwnd, 20 * SMSS + 2190); // slow start, sub-phase SS-3
        // the receive-window rule does nothing at equality by default
        assert_eq!(a.rwnd_boost(&w_eq(), 1, 1 + 10 * SMSS, 0, 65535), 0);
        assert_eq!(b.rwnd_boost(&w_eq(), 1, 1 + 10 * SMSS, 0, 65535), 13140);
    }

    fn w_eq() -> Window {
        Window::new(20 * SMSS, 20 * SMSS, SMSS)
    }

    #[test]
    fn receive_window_boost_of_algorithm_5_3() {
        let w = Window::new(50 * SMSS, 65535, SMSS); // avoidance
        // rho 36, loss-free: 0.25 x 36 x 1460 = 13140 bytes
        let a = with_rtt(cfg(), 600);
        assert_eq!(a.rwnd_boost(&w, 1, 1 + 40 * SMSS, 0, 65535), 13140);
        // flightsize above the increased window: nothing
        assert_eq!(a.rwnd_boost(&w, 1, 1 + 65535 + 13140, 0, 65535), 13140);
        assert_eq!(a.rwnd_boost(&w, 1, 1 + 65535 + 13141, 0, 65535), 0);
        // compared with the advertised window instead, the boost stops as
        // soon as it has been used
        let adv = with_rtt(AdalrCfg { boost_check_advertised: true, ..cfg() }, 600);
        assert_eq!(adv.rwnd_boost(&w, 1, 1 + 65535, 0, 65535), 13140);
        assert_eq!(adv.rwnd_boost(&w, 1, 1 + 65536, 0, 65535), 0);
        // after a loss, snd_una not past snd_recover: one SMSS
        assert_eq!(a.rwnd_boost(&w, 40_000, 80_000, 50_000, 65535), SMSS);
        // past it: nothing
        assert_eq!(a.rwnd_boost(&w, 60_000, 100_000, 50_000, 65535), 0);
        // rho < 15: nothing
        let b = with_rtt(cfg(), 200);
        assert_eq!(b.rwnd_boost(&w, 1, 1 + 40 * SMSS, 0, 65535), 0);
        // slow start, loss-free: the same boost
        let ws = Window::new(10 * SMSS, 65535, SMSS);
        assert_eq!(a.rwnd_boost(&ws, 1, 1 + 5 * SMSS, 0, 65535), 13140);
    }

    #[test]
    fn cumulative_boost_accumulates_per_ack() {
        let mut a = with_rtt(AdalrCfg { rwnd_boost: AdalrRwndBoost::Cumulative, ..cfg() }, 600);
        let w = Window::new(50 * SMSS, 65535, SMSS);
        let mut c = ack(2 * SMSS, 40 * SMSS, 0, 1);
        c.rtt = Some(600_000_000);
        a.on_ack(&w, &c);
        assert_eq!(a.rwnd_boost(&w, 1, 1 + 40 * SMSS, 0, 65535), 13140);
        a.on_ack(&w, &c);
        assert_eq!(a.rwnd_boost(&w, 1, 1 + 40 * SMSS, 0, 65535), 26280);
        // duplicate ACKs (acked 0) add nothing
        a.on_ack(&w, &AckCtx { acked: 0, ..c });
        assert_eq!(a.rwnd_boost(&w, 1, 1 + 40 * SMSS, 0, 65535), 26280);
    }

    #[test]
    fn fast_recovery_deflation_plus_two_smss_floor_two_smss() {
        // cwnd 30000, 8760 acked: 30000 - 8760 + 2920
        let w = Window::new(30_000, 20_000, SMSS);
        assert_eq!(Adalr::deflate(&w, 8760), 24_160);
        // acked >= cwnd: 2 SMSS, never less
        assert_eq!(Adalr::deflate(&w, 30_000), 2920);
        assert_eq!(Adalr::deflate(&w, 40_000), 2920);
    }
}
