//! The SACK scoreboard of RFC 6675: which bytes above snd_una the receiver
//! has reported holding, and the IsLost / SetPipe / NextSeg queries on it.
//!
//! Kept as sorted, disjoint, coalesced byte intervals (absolute offsets), so
//! every query costs O(blocks), not O(window). Queries work at byte
//! granularity exactly as the RFC words them ("more than (DupThresh - 1) *
//! SMSS bytes ... SACKed").

use super::intervals::IntervalSet;

#[derive(Clone, Debug, Default)]
pub struct Scoreboard {
    sacked: IntervalSet,
}

impl Scoreboard {
    pub fn blocks(&self) -> &[(u64, u64)] {
        self.sacked.as_slice()
    }

    /// Record a SACK block [s, e), clipped to [una, max). Returns the bytes
    /// that were not SACKed before.
    pub fn insert(&mut self, una: u64, max: u64, s: u64, e: u64) -> u64 {
        let s = s.max(una);
        let e = e.min(max);
        if s >= e {
            return 0;
        }
        let before = self.sacked.measure_in(s, e);
        self.sacked.insert(s, e);
        (e - s) - before
    }

    /// Forget everything (ns-2's `ClearScoreBoard` after a timeout).
    pub fn clear(&mut self) {
        self.sacked.drop_below(u64::MAX);
    }

    /// Forget everything below the new cumulative ACK.
    pub fn advance(&mut self, una: u64) {
        self.sacked.drop_below(una);
    }

    /// SACKed bytes inside [a, b).
    pub fn sacked_in(&self, a: u64, b: u64) -> u64 {
        self.sacked.measure_in(a, b)
    }

    /// End of the highest SACKed byte (exclusive), if any.
    pub fn highest(&self) -> Option<u64> {
        self.sacked.last().map(|b| b.1)
    }

    /// The smallest x' >= x that is not SACKed.
    pub fn first_unsacked_from(&self, x: u64) -> u64 {
        self.sacked.first_gap_from(x)
    }

    /// The largest y <= x whose byte y - 1 is not SACKed (the end of the
    /// highest unSACKed stretch below x).
    pub fn unsacked_end_below(&self, x: u64) -> u64 {
        // blocks are coalesced: below a block's start lies an unSACKed byte
        match self.blocks().iter().rev().find(|b| b.0 < x) {
            Some(&(s, e)) if e >= x => s,
            _ => x,
        }
    }

    /// Start of the first SACKed block strictly above x, if any.
    pub fn next_sacked_after(&self, x: u64) -> Option<u64> {
        self.sacked.next_start_after(x)
    }

    /// IsLost boundary: every unSACKed byte below the returned offset is lost
    /// (DupThresh discontiguous SACKed blocks above it, or more than
    /// (DupThresh - 1) x SMSS SACKed bytes above it); none above it is.
    /// Returns `una` when nothing is lost.
    pub fn lost_below(&self, una: u64, dupthresh: u32, smss: u32) -> u64 {
        let byte_limit = (dupthresh.saturating_sub(1)) as u64 * smss as u64;
        let mut bytes = 0;
        for (k, &(s, e)) in self.blocks().iter().rev().enumerate() {
            bytes += e - s;
            if k as u32 + 1 >= dupthresh || bytes > byte_limit {
                return s.max(una);
            }
        }
        una
    }

    /// RFC 6675 SetPipe(): unSACKed bytes not deemed lost, plus unSACKed
    /// bytes that have been retransmitted (below `high_rxt`).
    pub fn pipe(&self, una: u64, max: u64, high_rxt: u64, dupthresh: u32, smss: u32) -> u64 {
        self.pipe_with_lost(una, max, high_rxt, self.lost_below(una, dupthresh, smss))
    }

    /// SetPipe() with the lost boundary given (IsLost's, or RACK's if higher).
    pub fn pipe_with_lost(&self, una: u64, max: u64, high_rxt: u64, lost: u64) -> u64 {
        let lost = lost.clamp(una, max);
        let not_lost = (max - lost) - self.sacked_in(lost, max);
        let rxt_end = high_rxt.clamp(una, max);
        let retransmitted = (rxt_end - una) - self.sacked_in(una, rxt_end);
        not_lost + retransmitted
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn insert_merges_and_counts_new_bytes() {
        let mut b = Scoreboard::default();
        assert_eq!(b.insert(0, 100, 10, 20), 10);
        assert_eq!(b.insert(0, 100, 30, 40), 10);
        assert_eq!(b.insert(0, 100, 15, 35), 10);
        assert_eq!(b.blocks(), &[(10, 40)]);
        assert_eq!(b.insert(0, 100, 40, 50), 10); // adjacent coalesces
        assert_eq!(b.blocks(), &[(10, 50)]);
        assert_eq!(b.insert(0, 100, 90, 200), 10); // clipped to max
        assert_eq!(b.insert(20, 100, 0, 5), 0); // below una
        b.advance(45);
        assert_eq!(b.blocks(), &[(45, 50), (90, 100)]);
        assert_eq!(b.sacked_in(0, 95), 10);
        assert_eq!(b.first_unsacked_from(46), 50);
        assert_eq!(b.first_unsacked_from(60), 60);
        assert_eq!(b.next_sacked_after(50), Some(90));
        // [45, 50) and [90, 100) SACKed
        assert_eq!(b.unsacked_end_below(100), 90);
        assert_eq!(b.unsacked_end_below(95), 90);
        assert_eq!(b.unsacked_end_below(90), 90);
        assert_eq!(b.unsacked_end_below(60), 60);
        assert_eq!(b.unsacked_end_below(50), 45);
    }

    /// RFC 6675 with SMSS = 10, DupThresh = 3: segments 0..10 lost, 10..20
    /// lost, 20..30 SACKed, 30..40 not, 40..70 SACKed.
    #[test]
    fn is_lost_and_pipe_hand_worked() {
        let mut b = Scoreboard::default();
        b.insert(0, 80, 20, 30);
        b.insert(0, 80, 40, 70);
        // bytes above 30: 30 > 2*10 -> anything below 40 is lost
        assert_eq!(b.lost_below(0, 3, 10), 40);
        // pipe: not lost & unsacked = [70,80) = 10; nothing retransmitted
        assert_eq!(b.pipe(0, 80, 0, 3, 10), 10);
        // after retransmitting [0,10): +10
        assert_eq!(b.pipe(0, 80, 10, 3, 10), 20);
        // one 10-byte block above: nothing lost (needs > 20 bytes or 3 blocks)
        let mut c = Scoreboard::default();
        c.insert(0, 40, 20, 30);
        assert_eq!(c.lost_below(0, 3, 10), 0);
        assert_eq!(c.pipe(0, 40, 0, 3, 10), 30);
    }

    #[test]
    fn three_small_discontiguous_blocks_make_a_loss() {
        let mut b = Scoreboard::default();
        for s in [10, 30, 50] {
            b.insert(0, 100, s, s + 1);
        }
        assert_eq!(b.lost_below(0, 3, 1000), 10);
    }
}
