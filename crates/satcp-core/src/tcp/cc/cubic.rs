//! CUBIC congestion control, RFC 9438.
//!
//! * Window function (section 4.2): W_cubic(t) = C (t - K)^3 + W_max, in
//!   segments with t in seconds since the congestion-avoidance epoch began;
//!   K = cbrt((W_max - cwnd_epoch) / C), cwnd_epoch = cwnd when the epoch
//!   began. With no earlier loss, or cwnd already above W_max, K = 0 and
//!   W_max = cwnd_epoch.
//! * Per ACK in congestion avoidance (4.3-4.5): target = W_cubic(t + RTT)
//!   clamped to [cwnd, 1.5 cwnd]; Reno-friendly estimate W_est += alpha x
//!   acked / cwnd with alpha = 3 (1 - beta) / (1 + beta) until W_est reaches
//!   cwnd_prior, then 1. If W_cubic(t) < W_est, cwnd = W_est (Reno-friendly
//!   region); otherwise cwnd += (target - cwnd) / cwnd per segment acked
//!   (concave and convex regions).
//! * On loss (4.6-4.7): cwnd_prior = cwnd; W_max = cwnd, or cwnd (1 +
//!   beta) / 2 with fast convergence if cwnd < the previous W_max; ssthresh =
//!   FlightSize x beta (rounded to the byte, floor 2 SMSS); a new epoch starts with the next ACK
//!   in congestion avoidance.
//! * On RTO (4.8): the same reduction on the first expiry, cwnd = 1 SMSS,
//!   slow start back to ssthresh, then a new epoch.
//! * Slow start: RFC 5681's, or with `cubic_hystart = true` HyStart in the
//!   initial slow start: HyStart++ (RFC 9406, `hystart.rs`) or Linux's own
//!   HyStart (`hystart_linux.rs`: ACK train and delay, leaving slow start at
//!   once), chosen by `cubic_hystart_style` ("rfc9406" | "linux"; the
//!   profile's by default: "linux" under `linux`, "rfc9406" elsewhere).
//!
//! * With `cubic_style = "linux"` (the `linux` profile's default) the
//!   window follows Linux's `tcp_cubic.c` instead (`cubic_linux.rs`: the
//!   curve one minimum RTT ahead, 5% a round trip before the first loss,
//!   ssthresh from cwnd, whole segments, a timeout forgets everything).
//!
//! Choices:
//! * Windows are bytes (u64) with the fraction of a byte carried between
//!   ACKs; W_cubic and W_est are computed in f64 bytes (C x SMSS per s^3).
//!   Times are integer ns, converted to seconds only inside the formula.
//! * RTT in the target is the smoothed RTT (the RFC's choice).
//! * Increments scale with the bytes acknowledged (a delayed ACK of two
//!   segments counts two, as Linux's per-segment counting does).
//! * In the Reno-friendly region cwnd = W_est but never decreases (W_est can
//!   trail cwnd only after the clamp at the epoch's start).
//! * ssthresh uses FlightSize, as RFC 9438 says (Linux uses cwnd; they
//!   differ only when the receiver's window limits the sender).

use super::hystart::{HyStart, Phase};
use super::cubic_linux::{LinuxCubic, LinuxCubicParams};
use super::hystart_linux::LinuxHyStart;
use super::{AckCtx, Action, CcParams, Env, Window, WindowController};
use crate::scenario::reader::{Res, Tbl};
use crate::tcp::profile::Profile;
use crate::sim::Time;

/// CUBIC's parameters: C (`cubic_c`, 0.4 segments/s^3), beta (`cubic_beta`,
/// 0.7), fast convergence and HyStart in the initial slow start
/// (`cubic_fast_convergence`, `cubic_hystart`, both on; which HyStart,
/// `cubic_hystart_style`), and whose window function (`cubic_style`:
/// "rfc9438" or "linux"; under "linux", C and beta become the module's
/// `bic_scale` and `beta` in its fixed point).
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct CubicCfg {
    pub c: f64,
    pub beta: f64,
    pub fast_convergence: bool,
    pub hystart: bool,
    /// Linux's HyStart instead of HyStart++ (`cubic_hystart_style`).
    pub hystart_linux: bool,
    /// Linux's window function instead of RFC 9438's (`cubic_style`).
    pub linux_window: bool,
}

impl CcParams for CubicCfg {
    const KEYS: &'static [&'static str] =
        &["cubic_c", "cubic_beta", "cubic_fast_convergence", "cubic_hystart", "cubic_hystart_style", "cubic_style"];

    fn parse(t: &Tbl, profile: Profile) -> Res<Self> {
        let linux_window = match t.choice("cubic_style", &["rfc9438", "linux"])? {
            Some(style) => style == "linux",
            None => profile == Profile::Linux,
        };
        Ok(CubicCfg {
            c: t.number("cubic_c", |x| x > 0.0 && x <= 100.0, "a number in (0, 100], e.g. 0.4")?.unwrap_or(0.4),
            beta: t.number("cubic_beta", |x| x > 0.0 && x < 1.0, "a number in (0, 1), e.g. 0.7")?.unwrap_or(0.7),
            fast_convergence: t.bool("cubic_fast_convergence")?.unwrap_or(true),
            hystart: t.bool("cubic_hystart")?.unwrap_or(true),
            // the kernel's own HyStart under `linux`, HyStart++ elsewhere
            hystart_linux: match t.choice("cubic_hystart_style", &["rfc9406", "linux"])? {
                Some(style) => style == "linux",
                None => profile == Profile::Linux,
            },
            linux_window,
        })
    }
}

#[derive(Clone, Debug)]
pub struct Cubic {
    pub c: f64,
    pub beta: f64,
    fast_convergence: bool,
    abc_limit: u32,
    pub hystart: Option<HyStart>,
    pub hystart_linux: Option<LinuxHyStart>,
    /// Linux's window function (`cubic_style = "linux"`), which then
    /// replaces everything below but HyStart.
    pub linux: Option<LinuxCubic>,
    /// W_max in bytes (0 = no congestion event yet).
    pub w_max: f64,
    /// cwnd before the last reduction (bytes).
    cwnd_prior: f64,
    /// K in seconds.
    pub k: f64,
    epoch_start: Option<Time>,
    /// W_est in bytes.
    pub w_est: f64,
    carry: f64,
    srtt: Option<f64>,
    /// Whether the last congestion-avoidance ACK was in the Reno-friendly
    /// region.
    pub reno_friendly: bool,
}

impl Cubic {
    pub fn new(c: f64, beta: f64, fast_convergence: bool, hystart: bool, abc_limit: u32) -> Self {
        Cubic {
            c,
            beta,
            fast_convergence,
            abc_limit,
            hystart: hystart.then(HyStart::default),
            hystart_linux: None,
            linux: None,
            w_max: 0.0,
            cwnd_prior: 0.0,
            k: 0.0,
            epoch_start: None,
            w_est: 0.0,
            carry: 0.0,
            srtt: None,
            reno_friendly: false,
        }
    }

    /// W_cubic(t) in bytes, t in seconds since the epoch began.
    pub fn w_cubic(&self, t: f64, smss: u64) -> f64 {
        let d = t - self.k;
        self.c * smss as f64 * d * d * d + self.w_max
    }

    pub fn on_ack(&mut self, w: &mut Window, a: &AckCtx) {
        if a.srtt.is_some() {
            self.srtt = a.srtt;
        }
        if let (Some(l), Some(rtt)) = (&mut self.linux, a.rtt) {
            l.on_rtt(a.now, rtt);
        }
        if let Some(h) = &mut self.hystart_linux {
            if a.acked > 0 {
                h.on_ack(w, a);
            }
        }
    }

    pub fn grow(&mut self, w: &mut Window, a: &AckCtx) {
        if a.acked == 0 {
            return;
        }
        let hystart_pp = self.hystart.as_ref().is_some_and(|h| h.phase != Phase::Done);
        if let Some(l) = &mut self.linux {
            if !(hystart_pp && w.cwnd < w.ssthresh) {
                return l.grow(w, a);
            }
        }
        if w.cwnd < w.ssthresh {
            let growth = a.acked.min(self.abc_limit as u64 * w.smss);
            match &mut self.hystart {
                Some(h) if h.phase != Phase::Done => h.on_ack(w, a, growth),
                _ => w.cwnd += growth,
            }
            return;
        }
        let smss = w.smss as f64;
        let cwnd = w.cwnd as f64;
        let start = *self.epoch_start.get_or_insert_with(|| {
            if self.w_max <= cwnd {
                self.k = 0.0;
                self.w_max = cwnd;
            } else {
                self.k = ((self.w_max - cwnd) / (self.c * smss)).cbrt();
            }
            self.w_est = cwnd;
            a.now
        });
        let t = (a.now - start) as f64 / 1e9;
        let rtt = self.srtt.unwrap_or(0.0) / 1e9;
        let target = self.w_cubic(t + rtt, w.smss).clamp(cwnd, 1.5 * cwnd);
        let alpha = if self.w_est >= self.cwnd_prior { 1.0 } else { 3.0 * (1.0 - self.beta) / (1.0 + self.beta) };
        self.w_est += alpha * smss * a.acked as f64 / cwnd;
        self.reno_friendly = self.w_cubic(t, w.smss) < self.w_est;
        if self.reno_friendly {
            if self.w_est > cwnd {
                w.cwnd = self.w_est as u64;
                self.carry = self.w_est - w.cwnd as f64;
            }
        } else {
            let total = self.carry + (target - cwnd) * a.acked as f64 / cwnd;
            let whole = total.floor();
            self.carry = total - whole;
            w.cwnd += whole as u64;
        }
    }

    /// Section 4.6/4.7: remember W_max and start a new epoch later.
    fn reduce(&mut self, w: &Window, flight: u64) -> u64 {
        let cwnd = w.cwnd as f64;
        self.w_max = if self.fast_convergence && cwnd < self.w_max { cwnd * (1.0 + self.beta) / 2.0 } else { cwnd };
        self.cwnd_prior = cwnd;
        self.epoch_start = None;
        self.carry = 0.0;
        if let Some(h) = &mut self.hystart {
            h.phase = Phase::Done;
        }
        if let Some(h) = &mut self.hystart_linux {
            h.on_loss();
        }
        if let Some(l) = &mut self.linux {
            return l.ssthresh(w);
        }
        ((flight as f64 * self.beta).round() as u64).max(2 * w.smss)
    }

    pub fn ssthresh_after_loss(&mut self, w: &Window, flight: u64) -> u64 {
        self.reduce(w, flight)
    }

    pub fn on_rto(&mut self, w: &mut Window, flight: u64, first: bool) {
        if first {
            w.ssthresh = self.reduce(w, flight);
        }
        self.epoch_start = None;
        w.cwnd = w.smss;
        if let Some(l) = &mut self.linux {
            // `cubictcp_state(TCP_CA_Loss)`: CUBIC and HyStart start over
            l.reset();
            if let Some(h) = &mut self.hystart_linux {
                *h = LinuxHyStart::default();
            }
        }
    }
}

impl WindowController for Cubic {
    type Params = CubicCfg;

    fn new(p: &CubicCfg, env: Env) -> Self {
        let mut c = Cubic::new(p.c, p.beta, p.fast_convergence, p.hystart && !p.hystart_linux, env.abc_limit);
        if p.hystart && p.hystart_linux {
            c.hystart_linux = Some(LinuxHyStart::default());
        }
        if p.linux_window {
            c.linux = Some(LinuxCubic::new(LinuxCubicParams::new(p.c, p.beta, p.fast_convergence)));
        }
        c
    }

    fn on_ack(&mut self, w: &mut Window, a: &AckCtx, _acts: &mut Vec<Action>) {
        Cubic::on_ack(self, w, a);
    }

    fn grow(&mut self, w: &mut Window, a: &AckCtx) {
        Cubic::grow(self, w, a);
    }

    fn ssthresh_after_loss(&mut self, w: &Window, flight: u64, _acts: &mut Vec<Action>) -> u64 {
        Cubic::ssthresh_after_loss(self, w, flight)
    }

    fn on_rto(&mut self, w: &mut Window, flight: u64, first: bool, _last: &AckCtx, _acts: &mut Vec<Action>) {
        Cubic::on_rto(self, w, flight, first);
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    const MS: u64 = 1_000_000;

    fn ack(now_ms: u64, acked: u64) -> AckCtx {
        AckCtx { now: now_ms * MS, acked, srtt: Some(100.0 * MS as f64), ..Default::default() }
    }

    #[test]
    fn loss_sets_w_max_ssthresh_and_k() {
        // SMSS 1000, cwnd 100 segments, FlightSize 100 segments: ssthresh =
        // 70 segments; K = cbrt((100 - 70) / 0.4) = cbrt(75) = 4.2172 s
        let mut c = Cubic::new(0.4, 0.7, true, false, 1);
        let mut w = Window::new(100_000, 50_000, 1000);
        c.on_ack(&mut w, &ack(0, 0));
        w.ssthresh = c.ssthresh_after_loss(&w, 100_000);
        assert_eq!(w.ssthresh, 70_000);
        assert_eq!(c.w_max, 100_000.0);
        w.cwnd = 70_000;
        c.grow(&mut w, &ack(1000, 1000));
        assert!((c.k - 75f64.cbrt()).abs() < 1e-12 && (c.k - 4.2172).abs() < 1e-4);
        // W(0) = cwnd_epoch, W(K) = W_max, W(K + 1 s) = W_max + 0.4 segments
        assert!((c.w_cubic(0.0, 1000) - 70_000.0).abs() < 1e-6);
        assert!((c.w_cubic(c.k, 1000) - 100_000.0).abs() < 1e-9);
        assert!((c.w_cubic(c.k + 1.0, 1000) - 100_400.0).abs() < 1e-6);
        // the first ACK of the epoch (t = 0): W_cubic(0) = 70000 is below
        // W_est = 70000 + (0.9/1.7) x 1000^2 / 70000 = 70007.563: the
        // Reno-friendly region, cwnd = 70007 (0.563 carried)
        assert!(c.reno_friendly);
        assert_eq!(w.cwnd, 70_007);
        // 50 ms later W_cubic(0.05) = 71054.5 > W_est = 70015.1: the concave
        // region; target = W(0.05 + 0.1) = 73088.69; cwnd += (73088.69 -
        // 70007) x 1000 / 70007 = 44.02, + 0.563 carried = 44.58 -> 70051
        c.grow(&mut w, &ack(1050, 1000));
        assert!(!c.reno_friendly);
        assert!((c.w_cubic(0.15, 1000) - 73_088.69).abs() < 0.01);
        assert_eq!(w.cwnd, 70_051);
    }

    #[test]
    fn fast_convergence_lowers_w_max_when_the_window_shrank() {
        let mut c = Cubic::new(0.4, 0.7, true, false, 1);
        let w = Window::new(100_000, 50_000, 1000);
        c.ssthresh_after_loss(&w, 100_000);
        // next loss at 90 segments < W_max 100: W_max = 90 x 1.7 / 2 = 76.5
        let w = Window::new(90_000, 70_000, 1000);
        assert_eq!(c.ssthresh_after_loss(&w, 90_000), 63_000);
        assert!((c.w_max - 76_500.0).abs() < 1e-9);
        // without fast convergence W_max = cwnd
        let mut d = Cubic::new(0.4, 0.7, false, false, 1);
        d.ssthresh_after_loss(&Window::new(100_000, 50_000, 1000), 100_000);
        d.ssthresh_after_loss(&w, 90_000);
        assert_eq!(d.w_max, 90_000.0);
    }

    #[test]
    fn reno_friendly_region_follows_w_est() {
        // No earlier loss: W_max = cwnd_epoch = 100 segments, K = 0, so
        // W_cubic(t) = 100 + 0.4 t^3 segments grows by only 0.4 bytes in
        // the first 100 ms, while W_est (alpha = 1 as W_est >= cwnd_prior =
        // 0) grows by SMSS^2 / cwnd = 10 bytes per ACK: Reno-friendly.
        let mut c = Cubic::new(0.4, 0.7, true, false, 1);
        let mut w = Window::new(100_000, 100_000, 1000);
        c.on_ack(&mut w, &ack(0, 0));
        for k in 0..=10 {
            c.grow(&mut w, &ack(10 * k, 1000));
            assert!(c.reno_friendly, "ACK {k}");
        }
        // eleven ACKs of ~10 bytes (9.99 as cwnd grows)
        assert_eq!(w.cwnd, 100_109);
        assert!((c.w_est - 100_109.9).abs() < 0.1);
        // after a loss alpha = 3 x 0.3 / 1.7 until W_est reaches cwnd_prior
        c.ssthresh_after_loss(&w, 100_109);
        let mut w2 = Window::new(70_076, 70_076, 1000);
        c.grow(&mut w2, &ack(2000, 1000));
        let alpha = 0.9 / 1.7;
        assert!((c.w_est - (70_076.0 + alpha * 1e6 / 70_076.0)).abs() < 1e-9);
    }

    #[test]
    fn rto_reduces_once_and_restarts_from_one_segment() {
        let mut c = Cubic::new(0.4, 0.7, true, true, 1);
        let mut w = Window::new(100_000, 1 << 40, 1000);
        c.on_rto(&mut w, 80_000, true);
        assert_eq!((w.ssthresh, w.cwnd, c.w_max), (56_000, 1000, 100_000.0));
        c.on_rto(&mut w, 80_000, false);
        assert_eq!((w.ssthresh, w.cwnd, c.w_max), (56_000, 1000, 100_000.0));
        assert_eq!(c.hystart.as_ref().unwrap().phase, Phase::Done);
    }
}
