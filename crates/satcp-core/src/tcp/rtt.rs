//! RTT estimation and the retransmission timeout, RFC 6298.
//!
//! SRTT/RTTVAR in f64 nanoseconds (the same operations in the same order give
//! the same bits on every run). RTO = SRTT + max(G, 4 RTTVAR), then clamped to
//! [min_rto, max_rto]. Each expiry doubles the RTO (capped at max_rto); the
//! backed-off value is kept until a new valid sample arrives (Karn).

use crate::sim::Time;

#[derive(Clone, Debug)]
pub struct RttEstimator {
    pub srtt: Option<f64>,
    /// The lowest sample so far (ns).
    pub min_rtt: Option<Time>,
    pub rttvar: f64,
    rto: u64,
    min_rto: u64,
    max_rto: u64,
    granularity: u64,
}

impl RttEstimator {
    pub fn new(initial_rto: u64, min_rto: u64, max_rto: u64, granularity: u64) -> Self {
        debug_assert!(initial_rto <= max_rto, "the parser refuses initial_rto > max_rto");
        RttEstimator { srtt: None, min_rtt: None, rttvar: 0.0, rto: initial_rto, min_rto, max_rto, granularity }
    }

    /// The current timeout, including any backoff.
    pub fn rto(&self) -> u64 {
        self.rto
    }

    /// RFC 6298 (2.2)/(2.3): fold in a measurement `r` (ns).
    pub fn sample(&mut self, r: Time) {
        self.min_rtt = Some(self.min_rtt.map_or(r, |m| m.min(r)));
        let r = r as f64;
        match self.srtt {
            None => {
                self.srtt = Some(r);
                self.rttvar = r / 2.0;
            }
            Some(s) => {
                self.rttvar = 0.75 * self.rttvar + 0.25 * (s - r).abs();
                self.srtt = Some(0.875 * s + 0.125 * r);
            }
        }
        let raw = self.srtt.unwrap() + (self.granularity as f64).max(4.0 * self.rttvar);
        self.rto = (raw.ceil() as u64).clamp(self.min_rto, self.max_rto);
    }

    /// RFC 6298 (5.5): the timer expired.
    pub fn backoff(&mut self) {
        self.rto = self.rto.saturating_mul(2).min(self.max_rto);
    }

    /// RFC 6298 (5.7): the SYN was retransmitted and no sample exists when
    /// data transfer begins: use 3 s.
    pub fn reset_after_syn_loss(&mut self) {
        if self.srtt.is_none() {
            self.rto = 3_000_000_000u64.clamp(self.min_rto, self.max_rto);
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    const MS: u64 = 1_000_000;

    #[test]
    fn first_and_second_sample_hand_worked() {
        let mut e = RttEstimator::new(1000 * MS, 200 * MS, 60_000 * MS, MS);
        e.sample(500 * MS);
        // srtt 500, rttvar 250, rto = 500 + 1000 = 1500 ms
        assert_eq!(e.rto(), 1500 * MS);
        e.sample(600 * MS);
        // rttvar = .75*250 + .25*100 = 212.5; srtt = 512.5; rto = 512.5 + 850 = 1362.5
        assert_eq!(e.rto(), 1_362_500_000);
        assert_eq!(e.srtt, Some(512.5 * MS as f64));
    }

    #[test]
    fn min_max_and_granularity() {
        let mut e = RttEstimator::new(3000 * MS, 1000 * MS, 64_000 * MS, 500 * MS);
        for _ in 0..50 {
            e.sample(100 * MS); // rttvar -> 0: rto = 100 + G(500) = 600 -> min 1000
        }
        assert_eq!(e.rto(), 1000 * MS);
        let mut f = RttEstimator::new(3000 * MS, 1000 * MS, 64_000 * MS, 500 * MS);
        f.sample(100 * MS); // 100 + max(500, 200) = 600 -> 1000
        assert_eq!(f.rto(), 1000 * MS);
    }

    #[test]
    fn backoff_doubles_to_cap_and_sample_resets() {
        let mut e = RttEstimator::new(1000 * MS, 1000 * MS, 60_000 * MS, MS);
        let seq: Vec<u64> = (0..8).map(|_| { e.backoff(); e.rto() / MS }).collect();
        assert_eq!(seq, vec![2000, 4000, 8000, 16000, 32000, 60000, 60000, 60000]);
        e.sample(500 * MS);
        assert_eq!(e.rto(), 1500 * MS);
    }
}
