//! A link direction's rate, propagation delay and up/down state as
//! functions of simulated time, built from the changes a scenario lists
//! (`[[links]] changes = [...]`) or a model computes before the run.
//!
//! Because the whole schedule is known before the run starts (every change
//! in satcp comes from the scenario or from a deterministic model of time,
//! such as an orbit), the FIFO transmitter stays exact on the fast path: when
//! it accepts a packet it looks up the rate in force when the packet's
//! transmission starts, the delay in force when its last bit leaves, and
//! whether the link goes down before the packet has arrived. No event has to
//! revisit packets already committed.
//!
//! Choices:
//! * A rate change applies to packets whose transmission starts at or after
//!   the change; a packet being serialised finishes at the rate it started
//!   with (a modem switches its modulation between frames).
//! * The propagation delay of a packet is the delay in force when its last
//!   bit leaves the transmitter (the distance at the moment it is sent).
//!   The FIFO keeps arrivals in order, so when the delay shrinks later
//!   packets wait behind earlier ones (a shorter path cannot deliver a later
//!   bit first: the path cannot shrink faster than light travels it).
//! * Down is an interval [down, up): a packet is lost if the link goes down
//!   after it was accepted and before it has arrived (queued, being sent or
//!   in flight), and refused while the link is down. An arrival exactly at
//!   the instant the link goes down still arrives.

use crate::scenario::DirChange;
use crate::sim::Time;

/// Piecewise-constant values: `(from, value)` in increasing `from`, the
/// first from 0.
#[derive(Clone, Debug, Default, PartialEq)]
struct Steps(Vec<(Time, u64)>);

impl Steps {
    #[inline]
    fn at(&self, t: Time) -> u64 {
        let i = self.0.partition_point(|&(from, _)| from <= t);
        self.0[i - 1].1
    }
}

/// The schedule of one link direction.
#[derive(Clone, Debug, Default, PartialEq)]
pub struct DirSchedule {
    rate: Steps,
    delay: Steps,
    /// [down, up) intervals in increasing order; up = Time::MAX if the link
    /// never comes back.
    down: Vec<(Time, Time)>,
    /// Nothing ever changes: the rate and delay are the initial ones.
    fixed: bool,
}

impl DirSchedule {
    /// A direction that never changes.
    pub fn fixed(rate_bps: u64, delay_ns: u64) -> Self {
        DirSchedule { rate: Steps(vec![(0, rate_bps)]), delay: Steps(vec![(0, delay_ns)]), down: Vec::new(), fixed: true }
    }

    /// From the initial values and `(at, this direction's change, up)`
    /// changes in increasing time order (None = unchanged).
    pub fn new(rate_bps: u64, delay_ns: u64, changes: &[(Time, DirChange, Option<bool>)]) -> Self {
        let mut s = DirSchedule::fixed(rate_bps, delay_ns);
        let mut down_since: Option<Time> = None;
        for &(at, c, up) in changes {
            if let Some(r) = c.rate_bps {
                s.rate.0.push((at, r));
            }
            if let Some(d) = c.delay_ns {
                s.delay.0.push((at, d));
            }
            match (up, down_since) {
                (Some(false), None) => down_since = Some(at),
                (Some(true), Some(since)) => {
                    s.down.push((since, at));
                    down_since = None;
                }
                _ => {}
            }
        }
        if let Some(since) = down_since {
            s.down.push((since, Time::MAX));
        }
        s.fixed = changes.is_empty();
        s
    }

    /// Nothing changes during the run (the fast path's test).
    #[inline]
    pub fn is_fixed(&self) -> bool {
        self.fixed
    }

    #[inline]
    pub fn rate_at(&self, t: Time) -> u64 {
        self.rate.at(t)
    }

    #[inline]
    pub fn delay_at(&self, t: Time) -> u64 {
        self.delay.at(t)
    }

    /// The link is down at `t`.
    pub fn down_at(&self, t: Time) -> bool {
        let i = self.down.partition_point(|&(d, _)| d <= t);
        i > 0 && t < self.down[i - 1].1
    }

    /// The first instant at or after `t` at which the link goes down.
    pub fn next_down_from(&self, t: Time) -> Option<Time> {
        let i = self.down.partition_point(|&(d, _)| d < t);
        self.down.get(i).map(|&(d, _)| d)
    }

    /// Bits the direction can carry in [0, end]: the rate integrated over
    /// the time it is up.
    pub fn capacity_bits(&self, end: Time) -> f64 {
        let mut cuts: Vec<Time> = self.rate.0.iter().map(|&(t, _)| t).filter(|&t| t < end).collect();
        for &(d, u) in &self.down {
            cuts.extend([d, u].into_iter().filter(|&t| t < end));
        }
        cuts.push(end);
        cuts.sort_unstable();
        cuts.dedup();
        let mut bits = 0.0;
        for w in cuts.windows(2) {
            if !self.down_at(w[0]) {
                bits += self.rate_at(w[0]) as f64 * (w[1] - w[0]) as f64 / 1e9;
            }
        }
        bits
    }

    /// A packet on the link from `since` (accepted, or leaving the
    /// transmitter) that would arrive at `arrival` is lost to an outage.
    #[inline]
    pub fn lost_in_outage(&self, since: Time, arrival: Time) -> bool {
        !self.down.is_empty() && self.next_down_from(since).is_some_and(|d| d < arrival)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    const S: u64 = 1_000_000_000;

    #[test]
    fn values_step_at_their_times() {
        let rate = DirChange { rate_bps: Some(1_024_000), delay_ns: None };
        let delay = DirChange { rate_bps: None, delay_ns: Some(300_000_000) };
        let s = DirSchedule::new(2_048_000, 250_000_000, &[(40 * S, rate, None), (60 * S, delay, None)]);
        assert!(!s.is_fixed());
        assert_eq!(s.rate_at(0), 2_048_000);
        assert_eq!(s.rate_at(40 * S - 1), 2_048_000);
        assert_eq!(s.rate_at(40 * S), 1_024_000);
        assert_eq!(s.delay_at(60 * S - 1), 250_000_000);
        assert_eq!(s.delay_at(60 * S), 300_000_000);
        assert!(DirSchedule::fixed(1, 2).is_fixed());
    }

    #[test]
    fn outages_are_half_open_and_lose_what_is_on_the_link() {
        let none = DirChange::default();
        let s = DirSchedule::new(1, 1, &[(20 * S, none, Some(false)), (22 * S, none, Some(true)), (30 * S, none, Some(false))]);
        assert!(!s.down_at(20 * S - 1));
        assert!(s.down_at(20 * S));
        assert!(s.down_at(22 * S - 1));
        assert!(!s.down_at(22 * S));
        assert!(s.down_at(1000 * S), "down for good from 30 s");
        assert_eq!(s.next_down_from(0), Some(20 * S));
        assert_eq!(s.next_down_from(20 * S), Some(20 * S));
        assert_eq!(s.next_down_from(21 * S), Some(30 * S));
        // accepted at 19 s: lost if it would arrive after 20 s, not at 20 s
        assert!(s.lost_in_outage(19 * S, 20 * S + 1));
        assert!(!s.lost_in_outage(19 * S, 20 * S));
        assert!(!s.lost_in_outage(23 * S, 29 * S));
        // 20 s up, 8 s up, then down for good: 28 s at 1 bit/s
        assert_eq!(s.capacity_bits(100 * S), 28.0);
    }
}
