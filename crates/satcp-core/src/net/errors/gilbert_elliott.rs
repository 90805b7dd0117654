//! Gilbert-Elliott two-state channel (E. N. Gilbert, "Capacity of a
//! burst-noise channel", 1960; E. O. Elliott, "Estimates of error rates for
//! codes on burst-noise channels", 1963): a good and a bad state, each with
//! its own packet error rate.
//!
//! Two ways to move between the states, both common in the literature:
//! * per packet: a Markov chain stepped once for every packet, with
//!   P(good -> bad) = p_gb and P(bad -> good) = p_bg. Mean sojourns are
//!   1/p_gb and 1/p_bg packets; the stationary probability of bad is
//!   p_gb / (p_gb + p_bg) and the stationary loss rate
//!   (p_bg per_good + p_gb per_bad) / (p_gb + p_bg);
//! * time-driven: exponential sojourn times with given means (a
//!   continuous-time chain), so the state does not depend on traffic; the
//!   fraction of time bad is mean_bad / (mean_good + mean_bad).
//!
//! Choices: in per-packet mode each packet first steps the chain, then is
//! judged in the new state (so the first packet already sees a transition
//! from the initial state). The initial state is good by default, or bad,
//! or drawn from the stationary distribution. Time-driven mode looks at the
//! channel at the packet's transmission start or arrival (`clock`). The
//! state process and the per-packet loss draws use separate random streams.

use crate::scenario::{GeInitial, GeTransitions, GilbertElliottCfg};
use crate::sim::{Rng, Time};

pub struct GilbertElliott {
    pub cfg: GilbertElliottCfg,
    states: Rng,
    losses: Rng,
    bad: bool,
    /// Time-driven: when the current sojourn ends.
    until: Time,
}

impl GilbertElliott {
    pub fn new(cfg: GilbertElliottCfg, mut states: Rng, losses: Rng) -> Self {
        let p_bad = match cfg.transitions {
            GeTransitions::PerPacket { p_gb, p_bg } => p_gb / (p_gb + p_bg),
            GeTransitions::Time { mean_good_ns, mean_bad_ns } => {
                mean_bad_ns as f64 / (mean_good_ns + mean_bad_ns) as f64
            }
        };
        let bad = match cfg.initial {
            GeInitial::Good => false,
            GeInitial::Bad => true,
            GeInitial::Stationary => states.bernoulli(p_bad),
        };
        let mut m = GilbertElliott { cfg, states, losses, bad, until: 0 };
        if let GeTransitions::Time { .. } = cfg.transitions {
            m.until = m.sojourn();
        }
        m
    }

    /// The stationary probability of a packet loss (per-packet mode), or the
    /// time-average PER (time-driven mode).
    pub fn stationary_loss(&self) -> f64 {
        let (w_good, w_bad) = match self.cfg.transitions {
            GeTransitions::PerPacket { p_gb, p_bg } => (p_bg, p_gb),
            GeTransitions::Time { mean_good_ns, mean_bad_ns } => (mean_good_ns as f64, mean_bad_ns as f64),
        };
        (w_good * self.cfg.per_good + w_bad * self.cfg.per_bad) / (w_good + w_bad)
    }

    fn sojourn(&mut self) -> u64 {
        let GeTransitions::Time { mean_good_ns, mean_bad_ns } = self.cfg.transitions else { unreachable!() };
        let mean = if self.bad { mean_bad_ns } else { mean_good_ns };
        (self.states.exponential(mean as f64).round() as u64).max(1)
    }

    /// Whether the channel is bad for a packet looked at `t` (time-driven:
    /// `t` must not decrease from call to call).
    pub fn step(&mut self, t: Time) -> bool {
        match self.cfg.transitions {
            GeTransitions::PerPacket { p_gb, p_bg } => {
                let flip = if self.bad { p_bg } else { p_gb };
                if self.states.bernoulli(flip) {
                    self.bad = !self.bad;
                }
            }
            GeTransitions::Time { .. } => {
                while t >= self.until {
                    self.bad = !self.bad;
                    self.until += self.sojourn();
                }
            }
        }
        self.bad
    }

    /// (lost, bad) for a packet looked at `t`.
    pub fn judge(&mut self, t: Time) -> (bool, bool) {
        let bad = self.step(t);
        let per = if bad { self.cfg.per_bad } else { self.cfg.per_good };
        let lost = per >= 1.0 || (per > 0.0 && self.losses.bernoulli(per));
        (lost, bad)
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::scenario::ErrorClock;

    fn per_packet(p_gb: f64, p_bg: f64, per_good: f64, per_bad: f64) -> GilbertElliottCfg {
        GilbertElliottCfg {
            transitions: GeTransitions::PerPacket { p_gb, p_bg },
            per_good,
            per_bad,
            initial: GeInitial::Good,
            clock: ErrorClock::TxStart,
        }
    }

    #[test]
    fn per_packet_chain_follows_its_stream_by_hand() {
        // Replay the state stream: each packet flips with p_gb (good) or
        // p_bg (bad); PER 1 in bad, 0 in good, so loss == bad.
        let cfg = per_packet(0.3, 0.4, 0.0, 1.0);
        let mut m = GilbertElliott::new(cfg, Rng::new(11, 1), Rng::new(11, 2));
        let mut r = Rng::new(11, 1);
        let mut bad = false;
        for _ in 0..200 {
            let u = r.uniform();
            if u < if bad { 0.4 } else { 0.3 } {
                bad = !bad;
            }
            assert_eq!(m.judge(0), (bad, bad));
        }
    }

    #[test]
    fn certain_transitions_alternate() {
        // p_gb = p_bg = 1: bad, good, bad, ... from a good start.
        let mut m = GilbertElliott::new(per_packet(1.0, 1.0, 0.0, 1.0), Rng::new(1, 1), Rng::new(1, 2));
        let seq: Vec<bool> = (0..6).map(|_| m.judge(0).0).collect();
        assert_eq!(seq, [true, false, true, false, true, false]);
    }

    #[test]
    fn stationary_loss_rate_per_packet() {
        // p_gb 0.01, p_bg 0.1: P(bad) = 1/11; PER 0.001 / 0.5:
        // (0.1 * 0.001 + 0.01 * 0.5) / 0.11 = 0.046364.
        let cfg = per_packet(0.01, 0.1, 0.001, 0.5);
        let mut m = GilbertElliott::new(cfg, Rng::new(3, 1), Rng::new(3, 2));
        assert!((m.stationary_loss() - 0.0463636).abs() < 1e-6);
        let n = 2_000_000;
        let lost = (0..n).filter(|_| m.judge(0).0).count() as f64 / n as f64;
        assert!((lost - 0.0463636).abs() < 0.002, "{lost}");
    }

    #[test]
    fn time_driven_fraction_and_mean_sojourns() {
        // mean good 900 ms, bad 100 ms: 10 % of the time bad, and about
        // one bad period per second.
        let cfg = GilbertElliottCfg {
            transitions: GeTransitions::Time { mean_good_ns: 900_000_000, mean_bad_ns: 100_000_000 },
            per_good: 0.0,
            per_bad: 1.0,
            initial: GeInitial::Good,
            clock: ErrorClock::TxStart,
        };
        let mut m = GilbertElliott::new(cfg, Rng::new(8, 1), Rng::new(8, 2));
        let n = 2_000_000u64;
        let (mut bad, mut periods, mut prev) = (0u64, 0u64, false);
        for i in 0..n {
            let b = m.step(i * 1_000_000); // 1 ms steps, 2000 s
            bad += b as u64;
            periods += (b && !prev) as u64;
            prev = b;
        }
        let frac = bad as f64 / n as f64;
        assert!((frac - 0.1).abs() < 0.005, "{frac}");
        assert!((periods as f64 / 2000.0 - 1.0).abs() < 0.06, "{periods}");
        assert!((m.stationary_loss() - 0.1).abs() < 1e-12);
    }

    #[test]
    fn stationary_start_is_drawn() {
        let cfg = GilbertElliottCfg { initial: GeInitial::Stationary, ..per_packet(0.5, 0.5, 0.0, 1.0) };
        let starts: Vec<bool> =
            (0..400).map(|s| GilbertElliott::new(cfg, Rng::new(s, 1), Rng::new(s, 2)).bad).collect();
        let bad = starts.iter().filter(|b| **b).count();
        assert!((150..250).contains(&bad), "{bad}");
    }
}
