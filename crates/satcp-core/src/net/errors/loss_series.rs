//! A loss probability per fixed interval (`loss_trace = { file, interval }`):
//! a packet whose transmission starts in interval i is lost with the
//! probability on line i, independently of every other packet; the series
//! repeats with the period of its length, as LeoReplayer's delay series
//! does (`net/link/schedule.rs`).
//!
//! Source: LeoReplayer applies a constant loss rate with Mahimahi's
//! `mm-loss` (SpaceNetLab/LeoCC `leoreplayer/README.md`: 0.002 uplink,
//! 0.0001 downlink), an independent draw per packet as it passes; a series
//! makes that rate a function of time (measured per second from a ping
//! flow, say). Choices: the packet is judged when its transmission starts
//! (satcp's default clock; with `loss_placement = "head"`, when it is
//! offered); a probability of 1 loses every packet of the interval (an
//! outage), 0 draws nothing.

use std::sync::Arc;

use crate::sim::{Rng, Time};

pub struct LossSeries {
    interval: u64,
    probabilities: Arc<[f64]>,
    rng: Rng,
}

impl LossSeries {
    pub fn new(interval: u64, probabilities: Arc<[f64]>, rng: Rng) -> Self {
        debug_assert!(interval > 0 && !probabilities.is_empty());
        LossSeries { interval, probabilities, rng }
    }

    /// The probability in force at `t`.
    #[inline]
    pub fn at(&self, t: Time) -> f64 {
        self.probabilities[((t / self.interval) % self.probabilities.len() as u64) as usize]
    }

    /// Whether a packet judged at `t` is lost.
    #[inline]
    pub fn judge(&mut self, t: Time) -> bool {
        let p = self.at(t);
        p >= 1.0 || self.rng.bernoulli(p)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    const S: u64 = 1_000_000_000;

    /// Intervals of 1 s with 0, 0.1, 1, repeated: none lost in the first
    /// second, all in the third; in the second about 10% of 100,000
    /// packets (binomial: sd = sqrt(1e5 x 0.1 x 0.9) = 95, so within 5 sd,
    /// 9,525 .. 10,475, with a fixed seed).
    #[test]
    fn each_interval_loses_its_share_and_the_series_repeats() {
        let mut m = LossSeries::new(S, Arc::from([0.0, 0.1, 1.0]), Rng::new(3, 1));
        let n = 100_000u64;
        let lost = |m: &mut LossSeries, from: Time| (0..n).filter(|i| m.judge(from + i * (S / n))).count();
        assert_eq!(lost(&mut m, 0), 0);
        let second = lost(&mut m, S);
        assert!((9_525..=10_475).contains(&second), "{second}");
        assert_eq!(lost(&mut m, 2 * S), n as usize);
        // period 3 s: 4 s is the second interval again, 3 s the first
        assert_eq!((m.at(3 * S), m.at(4 * S), m.at(5 * S - 1)), (0.0, 0.1, 0.1));
        assert_eq!(lost(&mut m, 3 * S), 0);
    }
}
