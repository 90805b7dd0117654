//! The TRANSAT/DSN burst error channel (Astuti & Kojo, "Simulation Study of
//! TCP Performance in TRANSAT Satellite Architecture", section 2.2; spec 001
//! section 2.3): a two-state channel, error-free between bursts, with PER
//! `per_burst` (100 % by default; 25 % or 1 % for the paper's S-LACP runs)
//! inside a burst. "Bursts duration is from 100ms to 500ms with an
//! exponential distribution and the inter-arrival time between two
//! consecutive bursts is from 1 to 30 seconds ... In our test cases, the
//! inter-arrival time is from 1 to 10 seconds."
//!
//! The state changes at times, not per packet: burst start and end times are
//! drawn ahead from the model's own random stream, so the burst timeline of a
//! seed is the same whatever traffic crosses the link. Packet losses inside a
//! burst (when 0 < PER < 1) come from a second stream.
//!
//! Ambiguities (spec 001 section 6 items 6-9, 11) and the choices made, each a
//! parameter:
//! * Distribution: exponential with mean `mean` (of the unbounded
//!   exponential) kept in [min, max] by truncation (default: the density
//!   restricted to the interval, drawn by inversion; by memorylessness the
//!   same as min + an exponential truncated at max - min) or by clamping.
//!   The paper gives no mean; the defaults are the midpoints, 300 ms for
//!   bursts and 5.5 s for gaps, which give bounded means of 256.8 ms and
//!   4.324 s (docs/models/error-models.md works them out).
//! * Gaps are start-to-start ("inter-arrival", default) or end-to-start.
//!   Start-to-start needs gap min >= burst max so bursts cannot overlap (the
//!   parser checks it).
//! * The first burst starts one gap draw after time 0.
//! * A packet is in a burst if the channel is bad at its transmission start
//!   (default) or at its arrival at the far end (`clock`), or, with the
//!   error model at the link's head (`loss_placement = "head"`, ns-2's
//!   `lossmodel`), when it reaches the link.
//! * S-LACP delay: packets sent in a burst and not lost can be delayed by
//!   `burst_delay` (550 ms in the paper), either in order (later packets wait
//!   behind them, as S-LACP delivers in sequence) or overtakable (an ns-2
//!   change of link delay). Handled by the link (`net/link/mod.rs`).

use crate::scenario::{BoundedExp, Bounding, DsnBurstCfg, GapFrom};
use crate::sim::{Rng, Time};

/// One draw of `d` from `rng`, in ns.
pub fn draw_bounded(d: &BoundedExp, rng: &mut Rng) -> u64 {
    let (lo, hi, mean) = (d.min_ns as f64, d.max_ns as f64, d.mean_ns as f64);
    let x = match d.bounding {
        Bounding::Truncate => {
            // Inverse CDF of Exp(mean) restricted to [lo, hi].
            let span = -(-(hi - lo) / mean).exp_m1(); // 1 - e^{-(hi-lo)/mean}
            lo - mean * (-rng.uniform() * span).ln_1p()
        }
        Bounding::Clamp => rng.exponential(mean).clamp(lo, hi),
        Bounding::Uniform => lo + (hi - lo) * rng.uniform(),
    };
    (x.round() as u64).clamp(d.min_ns, d.max_ns)
}

/// Mean of a bounded exponential, worked out analytically (for reports and
/// tests): truncation gives lo + mean - (hi - lo) e^{-r} / (1 - e^{-r}) with
/// r = (hi - lo) / mean; clamping gives E[min(max(X, lo), hi)].
pub fn bounded_mean_s(d: &BoundedExp) -> f64 {
    let (lo, hi, m) = (d.min_ns as f64 / 1e9, d.max_ns as f64 / 1e9, d.mean_ns as f64 / 1e9);
    if hi == lo {
        return lo;
    }
    match d.bounding {
        Bounding::Truncate => {
            let r = (hi - lo) / m;
            lo + m - (hi - lo) * (-r).exp() / -(-r).exp_m1()
        }
        // E = lo P(X<lo) + integral_lo^hi x f + hi P(X>hi)
        //   = lo + m (e^{-lo/m} - e^{-hi/m}).
        Bounding::Clamp => lo + m * ((-lo / m).exp() - (-hi / m).exp()),
        Bounding::Uniform => (lo + hi) / 2.0,
    }
}

pub struct DsnBurst {
    pub cfg: DsnBurstCfg,
    /// Draws burst and gap lengths.
    timeline: Rng,
    /// Draws packet losses inside a burst.
    losses: Rng,
    /// The current or next burst, [start, end).
    start: Time,
    end: Time,
    /// Bursts started so far (for reports).
    pub bursts: u64,
}

impl DsnBurst {
    pub fn new(cfg: DsnBurstCfg, timeline: Rng, losses: Rng) -> Self {
        let mut m = DsnBurst { cfg, timeline, losses, start: 0, end: 0, bursts: 0 };
        m.start = draw_bounded(&m.cfg.gap, &mut m.timeline);
        m.end = m.start + draw_bounded(&m.cfg.burst, &mut m.timeline);
        m
    }

    /// Whether the channel is in a burst at `t`. Queries must come in
    /// non-decreasing time (they do: per direction, transmission starts and
    /// arrivals are ordered).
    pub fn in_burst(&mut self, t: Time) -> bool {
        while t >= self.end {
            let gap = draw_bounded(&self.cfg.gap, &mut self.timeline);
            self.start = match self.cfg.gap_from {
                GapFrom::Start => self.start + gap,
                GapFrom::End => self.end + gap,
            };
            self.end = self.start + draw_bounded(&self.cfg.burst, &mut self.timeline);
            self.bursts += 1;
        }
        t >= self.start
    }

    /// (lost, in a burst) for a packet looked at `t`.
    pub fn judge(&mut self, t: Time) -> (bool, bool) {
        let bad = self.in_burst(t);
        let per = if bad { self.cfg.per_burst } else { self.cfg.per_good };
        let lost = per >= 1.0 || (per > 0.0 && self.losses.bernoulli(per));
        (lost, bad)
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::scenario::{DelayOrder, ErrorClock};

    fn bexp(mean_ms: u64, min_ms: u64, max_ms: u64, bounding: Bounding) -> BoundedExp {
        BoundedExp { mean_ns: mean_ms * 1_000_000, min_ns: min_ms * 1_000_000, max_ns: max_ms * 1_000_000, bounding }
    }

    fn transat(gap_from: GapFrom, bounding: Bounding) -> DsnBurstCfg {
        DsnBurstCfg {
            burst: bexp(300, 100, 500, bounding),
            gap: bexp(5500, 1000, 10_000, bounding),
            gap_from,
            per_burst: 1.0,
            per_good: 0.0,
            clock: ErrorClock::TxStart,
            burst_delay_ns: 0,
            burst_delay_order: DelayOrder::InOrder,
        }
    }

    #[test]
    fn timeline_follows_the_draws_of_its_own_stream() {
        // Hand-worked: replay the same stream and build the bursts by hand:
        // start0 = gap0, end0 = start0 + burst0, start1 = start0 + gap1 ...
        let cfg = transat(GapFrom::Start, Bounding::Truncate);
        let mut m = DsnBurst::new(cfg, Rng::new(5, 1), Rng::new(5, 2));
        let mut r = Rng::new(5, 1);
        let s0 = draw_bounded(&cfg.gap, &mut r);
        let e0 = s0 + draw_bounded(&cfg.burst, &mut r);
        let s1 = s0 + draw_bounded(&cfg.gap, &mut r);
        let e1 = s1 + draw_bounded(&cfg.burst, &mut r);
        assert!(!m.in_burst(0));
        assert!(!m.in_burst(s0 - 1));
        assert!(m.in_burst(s0));
        assert!(m.in_burst(e0 - 1));
        assert!(!m.in_burst(e0));
        assert!(!m.in_burst(s1 - 1));
        assert!(m.in_burst(s1));
        assert!(!m.in_burst(e1));
        assert!((1_000_000_000..=10_000_000_000).contains(&s0));
        assert!((100_000_000..=500_000_000).contains(&(e0 - s0)));
        // a full burst loses every packet, the gap none
        assert_eq!(m.judge(e1 + 1), (false, false));
    }

    #[test]
    fn end_to_start_gaps() {
        let cfg = transat(GapFrom::End, Bounding::Truncate);
        let mut m = DsnBurst::new(cfg, Rng::new(9, 1), Rng::new(9, 2));
        let mut r = Rng::new(9, 1);
        let s0 = draw_bounded(&cfg.gap, &mut r);
        let e0 = s0 + draw_bounded(&cfg.burst, &mut r);
        let s1 = e0 + draw_bounded(&cfg.gap, &mut r);
        assert!(m.in_burst(s0));
        assert!(!m.in_burst(s1 - 1));
        assert!(m.in_burst(s1));
    }

    #[test]
    fn bounded_draws_stay_in_range_and_have_the_analytic_mean() {
        for bounding in [Bounding::Truncate, Bounding::Clamp, Bounding::Uniform] {
            let d = bexp(300, 100, 500, bounding);
            let mut r = Rng::new(1, 3);
            let n = 200_000;
            let mut sum = 0.0;
            for _ in 0..n {
                let x = draw_bounded(&d, &mut r);
                assert!((100_000_000..=500_000_000).contains(&x));
                sum += x as f64 / 1e9;
            }
            let want = bounded_mean_s(&d);
            assert!((sum / n as f64 - want).abs() < 0.002, "{bounding:?}: {} vs {want}", sum / n as f64);
        }
        // truncated: 0.1 + 0.3 - 0.4 e^{-4/3} / (1 - e^{-4/3}) = 0.25682
        assert!((bounded_mean_s(&bexp(300, 100, 500, Bounding::Truncate)) - 0.256817).abs() < 1e-5);
        // clamped: 0.1 + 0.3 (e^{-1/3} - e^{-5/3}) = 0.258297
        assert!((bounded_mean_s(&bexp(300, 100, 500, Bounding::Clamp)) - 0.258297).abs() < 1e-5);
    }

    #[test]
    fn long_run_fraction_of_time_in_burst() {
        // Start-to-start: fraction = E[burst] / E[gap] (renewal reward).
        // End-to-start: E[burst] / (E[burst] + E[gap]).
        for gap_from in [GapFrom::Start, GapFrom::End] {
            let cfg = transat(gap_from, Bounding::Truncate);
            let (b, g) = (bounded_mean_s(&cfg.burst), bounded_mean_s(&cfg.gap));
            let want = match gap_from {
                GapFrom::Start => b / g,
                GapFrom::End => b / (b + g),
            };
            let mut m = DsnBurst::new(cfg, Rng::new(2, 1), Rng::new(2, 2));
            let step = 10_000_000; // 10 ms
            let n = 4_000_000u64; // 40,000 s
            let bad = (0..n).filter(|&i| m.in_burst(i * step)).count() as f64 / n as f64;
            assert!((bad - want).abs() < 0.03 * want, "{gap_from:?}: {bad} vs {want}");
        }
    }

    #[test]
    fn residual_per_inside_bursts_only() {
        let cfg = DsnBurstCfg { per_burst: 0.25, ..transat(GapFrom::Start, Bounding::Truncate) };
        let mut m = DsnBurst::new(cfg, Rng::new(4, 1), Rng::new(4, 2));
        let (mut in_b, mut lost_b, mut lost_g) = (0u64, 0u64, 0u64);
        for i in 0..2_000_000u64 {
            let (lost, bad) = m.judge(i * 1_000_000);
            if bad {
                in_b += 1;
                lost_b += lost as u64;
            } else {
                lost_g += lost as u64;
            }
        }
        assert_eq!(lost_g, 0);
        let rate = lost_b as f64 / in_b as f64;
        assert!((rate - 0.25).abs() < 0.01, "{rate}");
    }
}
