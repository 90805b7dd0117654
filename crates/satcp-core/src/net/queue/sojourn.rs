//! Sojourn times of the packets a queue hands to its transmitter (from
//! enqueue to dequeue, dropped packets not counted), kept as a log-linear
//! histogram so that a run of any length takes a fixed 4 KiB and no
//! allocation per packet.
//!
//! Buckets: values below 64 ns are exact; above, each power of two is
//! split into 32 equal buckets, so a bucket spans at most 1/32 of its lower
//! bound. A percentile is reported as the upper bound of the bucket holding
//! the sample of rank ceil(p x n) (nearest-rank definition), so it is never
//! below the true value and at most 3.2% above it (exact below 64 ns).

use crate::sim::Time;

const SUB_BITS: u32 = 5;
const SUB: u64 = 1 << SUB_BITS;
/// Exact values 0..2 SUB, then 32 buckets per octave from 2^6 to 2^64.
const BUCKETS: usize = (2 * SUB + (64 - SUB_BITS as u64 - 1) * SUB) as usize;

#[derive(Clone, Debug)]
pub struct Sojourns {
    counts: Box<[u64; BUCKETS]>,
    n: u64,
}

impl Default for Sojourns {
    fn default() -> Self {
        Sojourns { counts: Box::new([0; BUCKETS]), n: 0 }
    }
}

fn bucket(v: u64) -> usize {
    if v < 2 * SUB {
        return v as usize;
    }
    let e = 63 - v.leading_zeros(); // v in [2^e, 2^(e+1)), e >= SUB_BITS + 1
    let sub = (v >> (e - SUB_BITS)) - SUB; // 0..SUB
    (2 * SUB + (e as u64 - SUB_BITS as u64 - 1) * SUB + sub) as usize
}

/// The largest value in bucket `b`.
fn upper(b: usize) -> u64 {
    let b = b as u64;
    if b < 2 * SUB {
        return b;
    }
    let k = b - 2 * SUB;
    let e = k / SUB + SUB_BITS as u64 + 1;
    let sub = k % SUB;
    let lo = (SUB + sub) << (e - SUB_BITS as u64);
    lo + ((1u64 << (e - SUB_BITS as u64)) - 1)
}

impl Sojourns {
    pub fn record(&mut self, ns: Time) {
        self.counts[bucket(ns)] += 1;
        self.n += 1;
    }

    pub fn count(&self) -> u64 {
        self.n
    }

    /// The nearest-rank `p`-quantile (p in (0, 1]) in ns, as the upper bound of
    /// its bucket; None with no sample.
    pub fn percentile(&self, p: f64) -> Option<Time> {
        if self.n == 0 {
            return None;
        }
        let rank = ((p * self.n as f64).ceil() as u64).clamp(1, self.n);
        let mut seen = 0;
        for (b, &c) in self.counts.iter().enumerate() {
            seen += c;
            if seen >= rank {
                return Some(upper(b));
            }
        }
        unreachable!("the counts sum to n")
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn buckets_tile_the_line_and_bound_the_error() {
        for v in [0u64, 1, 63, 64, 65, 127, 128, 1_000, 5_000_000, 123_456_789, u64::MAX / 3, u64::MAX] {
            let b = bucket(v);
            assert!(upper(b) >= v, "{v}");
            assert!(b == 0 || upper(b - 1) < v, "{v}: the bucket below ends before it");
            assert!((upper(b) - v) as f64 <= v as f64 / 32.0, "{v}: within 1/32");
        }
        assert_eq!(bucket(u64::MAX), BUCKETS - 1);
    }

    #[test]
    fn nearest_rank_percentiles_of_small_exact_values() {
        let mut s = Sojourns::default();
        assert_eq!(s.percentile(0.5), None);
        for v in 1..=20 {
            s.record(v);
        }
        // ranks ceil(10) = 10, ceil(19) = 19, ceil(19.8) = 20
        assert_eq!((s.percentile(0.5), s.percentile(0.95), s.percentile(0.99)), (Some(10), Some(19), Some(20)));
        s.record(10_000); // bucket [9984, 10239]
        assert_eq!(s.percentile(1.0), Some(10_239));
    }
}
