//! CUBIC's window as Linux computes it (`tcp_cubic.c`: `bictcp_update`,
//! `cubictcp_recalc_ssthresh`, `cubictcp_acked`, `cubictcp_state`; and
//! `tcp_slow_start`, `tcp_cong_avoid_ai` of `tcp_cong.c`), with
//! `cubic_style = "linux"` (the `linux` profile's default). RFC 9438
//! (`cubic.rs`) describes the same curve; the kernel differs from it where
//! it matters for a long path:
//!
//! * the curve is evaluated one minimum RTT ahead (`delay_min`), not one
//!   smoothed RTT: behind a standing queue the RFC looks further ahead and
//!   grows faster;
//! * until the first loss (`last_max_cwnd` = 0: after HyStart, or after a
//!   timeout, which forgets everything) the window grows at least 5% per
//!   round trip (`cnt` at most 20);
//! * the Reno-friendly estimate grows by one segment per 1.875 windows
//!   acknowledged (`beta_scale` = 15, i.e. alpha = 0.53 for good, never 1);
//! * ssthresh = 717/1024 of cwnd (not of FlightSize), in whole segments,
//!   at least 2;
//! * it counts in whole segments: `cnt` ACKed segments per segment of
//!   growth, credits carried in `snd_cwnd_cnt`; slow start stops at
//!   ssthresh and hands what is left of the ACK to congestion avoidance;
//! * time is in jiffies: `cnt` is recomputed at most once a jiffy, and
//!   only when cwnd changed or 1/32 s passed;
//! * a timeout resets all of it (`bictcp_reset` from `cubictcp_state`),
//!   the minimum RTT and W_max included, and HyStart looks again;
//! * RTT samples in the first second of an epoch (right after a window
//!   reduction) are not used for the minimum.
//!
//! Choices:
//! * A jiffy is 4 ms: HZ = 250, the cross-check kernel's (`CONFIG_HZ`);
//!   distributions build 100 to 1000.
//! * K comes from a floating-point cube root where Linux uses a table and
//!   a Newton step (within 0.2% of each other).
//! * The idle restart (`CA_EVENT_TX_START` shifting the epoch) is not
//!   modelled: satcp's applications that go idle restart from the
//!   profile's idle rules, and bulk transfers are never idle.

use super::{AckCtx, Window};
use crate::sim::Time;

/// A jiffy (HZ = 250).
const JIFFY: Time = 4_000_000;
const HZ: u64 = 1_000_000_000 / JIFFY;
/// beta's fixed point (`BICTCP_BETA_SCALE`).
const BETA_SCALE: u64 = 1024;

/// The module's parameters in its fixed point.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct LinuxCubicParams {
    /// beta x 1024 (`beta`, 717).
    pub beta: u64,
    /// C x 1024 / 10 (`bic_scale`, 41: C = 0.4).
    pub bic_scale: u64,
    pub fast_convergence: bool,
}

impl LinuxCubicParams {
    /// From C and beta as numbers (rounded to the module's fixed point).
    pub fn new(c: f64, beta: f64, fast_convergence: bool) -> Self {
        LinuxCubicParams {
            beta: ((beta * BETA_SCALE as f64).round() as u64).clamp(1, BETA_SCALE - 1),
            bic_scale: ((c * 102.4).round() as u64).max(1),
            fast_convergence,
        }
    }

    /// `cube_rtt_scale`.
    fn cube_rtt_scale(&self) -> u64 {
        self.bic_scale * 10
    }

    /// `beta_scale`: the Reno-friendly estimate's ACKs per segment, x 8 /
    /// cwnd (15 for beta 717: one segment per 1.875 windows).
    fn friendly_scale(&self) -> u64 {
        8 * (BETA_SCALE + self.beta) / 3 / (BETA_SCALE - self.beta)
    }
}

impl Default for LinuxCubicParams {
    fn default() -> Self {
        LinuxCubicParams { beta: 717, bic_scale: 41, fast_convergence: true }
    }
}

#[derive(Clone, Debug, Default)]
pub struct LinuxCubic {
    p: LinuxCubicParams,
    /// ACKed segments per segment of growth (`cnt`).
    cnt: u64,
    /// W_max in segments; 0 before any loss (`last_max_cwnd`).
    last_max: u64,
    last_cwnd: u64,
    last_time: u64,
    origin: u64,
    /// K in 1/1024 s.
    k: u64,
    /// The lowest RTT sample (ns); 0 = none.
    delay_min: Time,
    /// In jiffies; None between epochs.
    epoch_start: Option<u64>,
    ack_cnt: u64,
    /// The Reno-friendly estimate, segments.
    tcp_cwnd: u64,
    /// Growth credit (`snd_cwnd_cnt`).
    cwnd_cnt: u64,
    /// Bytes acknowledged short of a whole segment.
    acked_carry: u64,
}

fn jiffies(t: Time) -> u64 {
    t / JIFFY
}

impl LinuxCubic {
    pub fn new(p: LinuxCubicParams) -> Self {
        LinuxCubic { p, ..Default::default() }
    }

    /// An RTT sample (`cubictcp_acked`): the minimum, except in an epoch's
    /// first second (right after a reduction).
    pub fn on_rtt(&mut self, now: Time, rtt: Time) {
        if self.epoch_start.is_some_and(|e| jiffies(now).saturating_sub(e) < HZ) {
            return;
        }
        let rtt = rtt.max(1);
        if self.delay_min == 0 || rtt < self.delay_min {
            self.delay_min = rtt;
        }
    }

    /// An ACK that may grow the window (`cubictcp_cong_avoid`): slow start
    /// up to ssthresh, the rest in congestion avoidance.
    pub fn grow(&mut self, w: &mut Window, a: &AckCtx) {
        let bytes = a.acked + self.acked_carry;
        let mut acked = bytes / w.smss;
        self.acked_carry = bytes % w.smss;
        if acked == 0 {
            return;
        }
        if w.cwnd < w.ssthresh {
            let room = (w.ssthresh - w.cwnd).div_ceil(w.smss);
            let n = acked.min(room);
            w.cwnd = (w.cwnd + n * w.smss).min(w.ssthresh.max(w.cwnd));
            acked -= n;
            if acked == 0 {
                return;
            }
        }
        let cwnd = w.cwnd / w.smss;
        self.update(cwnd, acked, jiffies(a.now));
        w.cwnd += self.cong_avoid_ai(acked) * w.smss;
    }

    /// `bictcp_update`: the segments ACKed per segment of growth.
    fn update(&mut self, cwnd: u64, acked: u64, now: u64) {
        self.ack_cnt += acked;
        if self.last_cwnd == cwnd && now - self.last_time <= HZ / 32 {
            return;
        }
        if !(self.epoch_start.is_some() && now == self.last_time) {
            self.last_cwnd = cwnd;
            self.last_time = now;
            let epoch = *self.epoch_start.get_or_insert_with(|| {
                self.ack_cnt = acked;
                self.tcp_cwnd = cwnd;
                if self.last_max <= cwnd {
                    self.k = 0;
                    self.origin = cwnd;
                } else {
                    // cube_factor = 2^40 / cube_rtt_scale: K in 1/1024 s
                    let cube_factor = (1u64 << 40) as f64 / self.p.cube_rtt_scale() as f64;
                    self.k = (((self.last_max - cwnd) as f64 * cube_factor).cbrt()) as u64;
                    self.origin = self.last_max;
                }
                now
            });
            let t = ((now - epoch + self.delay_min.div_ceil(JIFFY)) << 10) / HZ;
            let offs = t.abs_diff(self.k);
            let delta = ((self.p.cube_rtt_scale() as u128 * (offs as u128).pow(3)) >> 40) as u64;
            let target = if t < self.k { self.origin.saturating_sub(delta) } else { self.origin + delta };
            self.cnt = if target > cwnd { cwnd / (target - cwnd) } else { 100 * cwnd };
            if self.last_max == 0 && self.cnt > 20 {
                self.cnt = 20;
            }
        }
        // the Reno-friendly estimate
        let per = ((cwnd * self.p.friendly_scale()) >> 3).max(1);
        while self.ack_cnt > per {
            self.ack_cnt -= per;
            self.tcp_cwnd += 1;
        }
        if self.tcp_cwnd > cwnd {
            self.cnt = self.cnt.min(cwnd / (self.tcp_cwnd - cwnd));
        }
        self.cnt = self.cnt.max(2);
    }

    /// `tcp_cong_avoid_ai`: whole segments of growth for `acked` more.
    fn cong_avoid_ai(&mut self, acked: u64) -> u64 {
        let mut grown = 0;
        if self.cwnd_cnt >= self.cnt {
            self.cwnd_cnt = 0;
            grown += 1;
        }
        self.cwnd_cnt += acked;
        if self.cwnd_cnt >= self.cnt {
            let d = self.cwnd_cnt / self.cnt;
            self.cwnd_cnt -= d * self.cnt;
            grown += d;
        }
        grown
    }

    /// A loss (`cubictcp_recalc_ssthresh`): W_max, with fast convergence,
    /// and the new ssthresh in bytes.
    pub fn ssthresh(&mut self, w: &Window) -> u64 {
        let cwnd = w.cwnd / w.smss;
        self.epoch_start = None;
        self.cwnd_cnt = 0;
        let beta = self.p.beta;
        self.last_max =
            if cwnd < self.last_max && self.p.fast_convergence { cwnd * (BETA_SCALE + beta) / (2 * BETA_SCALE) } else { cwnd };
        (cwnd * beta / BETA_SCALE).max(2) * w.smss
    }

    /// A timeout (`cubictcp_state(TCP_CA_Loss)`): everything forgotten but
    /// the parameters.
    pub fn reset(&mut self) {
        *self = LinuxCubic::new(self.p);
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    const MS: Time = 1_000_000;
    const SMSS: u64 = 1000;

    fn ack(now: Time, segs: u64) -> AckCtx {
        AckCtx { now, acked: segs * SMSS, ..Default::default() }
    }

    /// Slow start stops at ssthresh and the rest of the ACK counts in
    /// congestion avoidance; before any loss the window grows 5% a round
    /// trip (one segment per 20 ACKed) while the curve is still flat.
    #[test]
    fn after_slow_start_without_a_loss_the_window_grows_a_twentieth_per_round() {
        let mut c = LinuxCubic::new(LinuxCubicParams::default());
        c.on_rtt(0, 500 * MS);
        let mut w = Window::new(98 * SMSS, 100 * SMSS, SMSS);
        // 5 segments ACKed: 2 in slow start, 3 in congestion avoidance
        c.grow(&mut w, &ack(0, 5));
        assert_eq!(w.cwnd, 100 * SMSS);
        // K = 0, t = 500 ms (delay_min, 125 jiffies): 0.4 x 0.5^3 = 0.05
        // segments above 100: cnt = 100 / 0 -> 100 x 100, capped at 20
        assert_eq!(c.cnt, 20);
        assert_eq!(c.cwnd_cnt, 3);
        // 97 more, one ACK each 1 ms apart (a round): 100 / 20 = 5 segments
        for i in 1..=97 {
            c.grow(&mut w, &ack(i * MS, 1));
        }
        assert_eq!(w.cwnd, 105 * SMSS);
    }

    /// The curve from a loss: W_max = 100, ssthresh = 70 (717/1024 of
    /// 100); K = cbrt(30 / 0.4) = 4.22 s.
    #[test]
    fn the_curve_after_a_loss_is_linux_s() {
        let mut c = LinuxCubic::new(LinuxCubicParams::default());
        c.on_rtt(0, 100 * MS);
        let mut w = Window::new(100 * SMSS, 100 * SMSS, SMSS);
        let ss = c.ssthresh(&w);
        assert_eq!(ss, 70 * SMSS);
        assert_eq!(c.last_max, 100);
        w.cwnd = ss;
        w.ssthresh = ss;
        c.grow(&mut w, &ack(10_000 * MS, 1));
        // K in 1/1024 s: cbrt(30 x 2^40 / 410) = 4,316
        assert_eq!(c.k, 4316);
        assert_eq!(c.origin, 100);
        // t = 0 + 25 jiffies (the minimum RTT) = 102 / 1024 s: target 100 -
        // 0.4 x 4.12^3 = 72.1 (Linux's fixed point: 100 - 27): cnt = 70 / 3
        assert_eq!(c.cnt, 23);
        // a second reduction below W_max: fast convergence
        w.cwnd = 90 * SMSS;
        c.ssthresh(&w);
        assert_eq!(c.last_max, 90 * 1741 / 2048);
        // a timeout forgets W_max and the minimum RTT
        c.reset();
        assert_eq!((c.last_max, c.delay_min), (0, 0));
    }

    /// The Reno-friendly estimate: one segment per 1.875 windows ACKed;
    /// while it is above cwnd, cwnd follows it.
    #[test]
    fn reno_friendly_estimate_grows_a_segment_per_one_and_seven_eighths_windows() {
        assert_eq!(LinuxCubicParams::default().friendly_scale(), 15);
        assert_eq!(LinuxCubicParams::new(0.4, 0.7, true), LinuxCubicParams::default());
        let mut c = LinuxCubic::new(LinuxCubicParams::default());
        c.on_rtt(0, MS);
        let mut w = Window::new(100 * SMSS, 100 * SMSS, SMSS);
        // W_max one above: the curve stays flat (K = 1.36 s, 2 segments a
        // second at its start)
        c.last_max = 101;
        // 10 windows at a 1 ms RTT, one ACK per segment, 4 ms per window
        let mut now = 0;
        for _ in 0..1000 {
            now += 40_000;
            c.grow(&mut w, &ack(now, 1));
        }
        // tcp_cwnd gains one per 187 segments ACKed (100 x 15 / 8): 5;
        // cwnd follows it (one segment per cwnd / (tcp_cwnd - cwnd) ACKed)
        assert_eq!(c.tcp_cwnd, 105);
        assert!((104..=105).contains(&(w.cwnd / SMSS)), "cwnd {}", w.cwnd / SMSS);
    }

    /// RTT samples within a second of a reduction do not lower the minimum.
    #[test]
    fn samples_right_after_a_reduction_are_not_used() {
        let mut c = LinuxCubic::new(LinuxCubicParams::default());
        c.on_rtt(0, 100 * MS);
        let mut w = Window::new(50 * SMSS, 50 * SMSS, SMSS);
        c.grow(&mut w, &ack(2000 * MS, 1));
        c.on_rtt(2100 * MS, 50 * MS);
        assert_eq!(c.delay_min, 100 * MS);
        c.on_rtt(3100 * MS, 50 * MS);
        assert_eq!(c.delay_min, 50 * MS);
    }
}
