//! A set of byte ranges kept as sorted, disjoint, coalesced half-open
//! intervals: what the receiver holds out of order, and what the sender's
//! scoreboard knows the receiver holds. Operations cost O(intervals).

#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct IntervalSet {
    v: Vec<(u64, u64)>,
}

impl IntervalSet {
    pub fn is_empty(&self) -> bool {
        self.v.is_empty()
    }

    pub fn as_slice(&self) -> &[(u64, u64)] {
        &self.v
    }

    pub fn last(&self) -> Option<(u64, u64)> {
        self.v.last().copied()
    }

    /// Add [s, e), merging with every interval it touches or overlaps.
    pub fn insert(&mut self, s: u64, e: u64) {
        if s >= e {
            return;
        }
        let i = self.v.partition_point(|&(_, ve)| ve < s);
        let mut j = i;
        let (mut ns, mut ne) = (s, e);
        while j < self.v.len() && self.v[j].0 <= e {
            ns = ns.min(self.v[j].0);
            ne = ne.max(self.v[j].1);
            j += 1;
        }
        self.v.splice(i..j, std::iter::once((ns, ne)));
    }

    /// Remove everything below `x`.
    pub fn drop_below(&mut self, x: u64) {
        let k = self.v.partition_point(|&(_, e)| e <= x);
        self.v.drain(..k);
        if let Some(first) = self.v.first_mut() {
            first.0 = first.0.max(x);
        }
    }

    /// Remove and return the first interval if it starts at or below `x`.
    pub fn pop_first_if_starts_by(&mut self, x: u64) -> Option<(u64, u64)> {
        match self.v.first() {
            Some(&(s, _)) if s <= x => Some(self.v.remove(0)),
            _ => None,
        }
    }

    /// The interval containing `x`, if any.
    pub fn containing(&self, x: u64) -> Option<(u64, u64)> {
        let i = self.v.partition_point(|&(_, e)| e <= x);
        self.v.get(i).copied().filter(|&(s, _)| s <= x)
    }

    /// [a, b) lies entirely inside one interval.
    pub fn covers(&self, a: u64, b: u64) -> bool {
        self.containing(a).is_some_and(|(_, e)| e >= b)
    }

    /// Bytes of the set inside [a, b).
    pub fn measure_in(&self, a: u64, b: u64) -> u64 {
        if a >= b {
            return 0;
        }
        let i = self.v.partition_point(|&(_, e)| e <= a);
        self.v[i..].iter().take_while(|&&(s, _)| s < b).map(|&(s, e)| e.min(b) - s.max(a)).sum()
    }

    /// The smallest x' >= x not in the set.
    pub fn first_gap_from(&self, x: u64) -> u64 {
        self.containing(x).map_or(x, |(_, e)| e)
    }

    /// Start of the first interval strictly above x, if any.
    pub fn next_start_after(&self, x: u64) -> Option<u64> {
        let i = self.v.partition_point(|&(s, _)| s <= x);
        self.v.get(i).map(|b| b.0)
    }

    pub fn total(&self) -> u64 {
        self.v.iter().map(|&(s, e)| e - s).sum()
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use proptest::prelude::*;

    #[test]
    fn merges_touching_and_overlapping() {
        let mut s = IntervalSet::default();
        s.insert(10, 20);
        s.insert(30, 40);
        s.insert(20, 25); // touches
        s.insert(35, 50); // overlaps
        assert_eq!(s.as_slice(), &[(10, 25), (30, 50)]);
        s.insert(0, 100);
        assert_eq!(s.as_slice(), &[(0, 100)]);
    }

    #[test]
    fn queries() {
        let mut s = IntervalSet::default();
        s.insert(10, 20);
        s.insert(30, 40);
        assert_eq!(s.containing(15), Some((10, 20)));
        assert_eq!(s.containing(20), None);
        assert!(s.covers(31, 40) && !s.covers(15, 31));
        assert_eq!(s.measure_in(15, 35), 10);
        assert_eq!(s.first_gap_from(12), 20);
        assert_eq!(s.next_start_after(10), Some(30));
        s.drop_below(15);
        assert_eq!(s.as_slice(), &[(15, 20), (30, 40)]);
        assert_eq!(s.pop_first_if_starts_by(14), None);
        assert_eq!(s.pop_first_if_starts_by(15), Some((15, 20)));
        assert_eq!(s.total(), 10);
    }

    proptest! {
        /// Against a byte map: the set holds exactly the bytes inserted.
        #[test]
        fn matches_a_byte_map(ranges in prop::collection::vec((0u64..200, 1u64..30), 1..30), cut in 0u64..250) {
            let mut s = IntervalSet::default();
            let mut bytes = vec![false; 256];
            for (a, len) in ranges {
                s.insert(a, a + len);
                for b in a..a + len { bytes[b as usize] = true; }
            }
            for w in s.as_slice().windows(2) {
                prop_assert!(w[0].1 < w[1].0, "disjoint and coalesced");
            }
            for x in 0..256u64 {
                prop_assert_eq!(s.containing(x).is_some(), bytes[x as usize]);
            }
            prop_assert_eq!(s.measure_in(0, cut), bytes[..cut as usize].iter().filter(|&&b| b).count() as u64);
            s.drop_below(cut);
            prop_assert_eq!(s.total(), bytes[cut as usize..].iter().filter(|&&b| b).count() as u64);
        }
    }
}
