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
//!
//! Trace-driven values (`rate_trace`, `delay_trace`; [`DirSchedule::apply_traces`])
//! are kept here too, known before the run as the changes are:
//! * a rate series replaces the rate's steps (the rate when a transmission
//!   starts applies to the whole packet, as for `changes`); its last rate
//!   holds after its last time (a series does not repeat: written out as
//!   `changes` would be);
//! * a delay series (one value per fixed interval, repeated with the period
//!   of its length, LeoReplayer's `DelayQueue::read_packet`:
//!   `(now - base) / interval % size`) replaces the delay, looked up in
//!   O(1) (or `t,delay` pairs, the last value holding, looked up by binary
//!   search: the other form). Source: SpaceNetLab/LeoCC `leoreplayer/replayer/src/frontend/
//!   delay_queue.cc`. Choices, each LeoReplayer's where it has one:
//!   - when the delay is read: LeoReplayer reads it as a packet enters its
//!     delay queue; here that is when its last bit leaves the transmitter
//!     (the rule above; on LeoReplayer's uplink, where the delay shell is
//!     outside the link shell, the same instant);
//!   - a falling delay lets later packets overtake earlier ones
//!     (`order = "overtake"`, the default): LeoReplayer releases packets
//!     from a priority queue keyed by their due time, so a packet sent after
//!     a drop arrives before one sent just before it. `order = "in_order"`
//!     keeps the FIFO's rule instead: a packet waits behind the one sent
//!     before it;
//!   - packets due at the same instant: LeoReplayer's `std::priority_queue`
//!     leaves their order unspecified; here they arrive in the order they
//!     were sent;
//!   - a `down` interval: a packet whose last bit leaves in it is lost
//!     (`drops_down`), the loss that follows a measured outage (a ping
//!     trace has no delay there). Packets already on the wire when it
//!     begins still arrive, as under LeoReplayer, which reads a packet's
//!     delay once.
//!
//! Links between moving ends (a constellation's, `leo/topology.rs`) are
//! the exception: what they do is decided as the run goes, one topology
//! step at a time. Their delay is a ramp between the distances at the
//! step's two ends, set at each step ([`DirSchedule::set_ramp`]): over a
//! 100 ms step a straight line is within 1.5 ns of distance / c (whole
//! nanoseconds at the ends and in between, plus the distance's curvature,
//! at most v^2 / d: under 0.1 km/s^2 for satellites 550 km apart at 7.6
//! km/s, 13 cm or 0.4 ns over the step). Their outages are
//! recorded when they begin and end ([`DirSchedule::go_down`],
//! [`DirSchedule::come_up`]); the link then loses what it had accepted
//! (`LinkDir::go_down_now`), as it cannot know at acceptance.

use std::sync::Arc;

use crate::scenario::{CapacityTrace, DelayOrder, DirChange, DirTraces};
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
    /// `down`'s last interval (None while it is empty), kept beside it: a
    /// moving link records its outages as they happen, so every query is
    /// at or after the last one's start and is answered here without
    /// reading `down`'s heap buffer (a cache miss per packet on the
    /// thousands of directions of a constellation).
    last_down: Option<(Time, Time)>,
    /// Nothing ever changes: the rate and delay are the initial ones.
    fixed: bool,
    /// A delay that follows moving ends, replacing `delay` (None otherwise).
    ramp: Option<Ramp>,
    /// The rate when it never changes: read without `rate`'s heap buffer,
    /// cold on the thousands of directions of a constellation.
    const_rate: Option<u64>,
    /// A delay per interval from a trace, replacing `delay` (None
    /// otherwise); out of line, as it is rare.
    series: Option<Box<DelaySeries>>,
    /// Changes from the scenario's `changes` or a moving link's steps
    /// (not only traces) change it during the run.
    scheduled: bool,
}

/// A delay per fixed interval, repeated, or from given instants, the last
/// holding (`delay_trace`).
#[derive(Clone, Debug, PartialEq)]
struct DelaySeries {
    interval: u64,
    /// Pairs: the instant each value applies from (the first 0).
    from: Option<Arc<[u64]>>,
    /// ns per interval; a `down` interval holds the delay before it (or
    /// the first delay), so that `delay_at` always has a value for routing.
    delays: Arc<[u64]>,
    /// The intervals marked `down`; None when there are none.
    down: Option<Arc<[bool]>>,
    overtake: bool,
}

impl DelaySeries {
    #[inline]
    fn index(&self, t: Time) -> usize {
        match &self.from {
            None => ((t / self.interval) % self.delays.len() as u64) as usize,
            Some(from) => from.partition_point(|&f| f <= t) - 1,
        }
    }
}

/// A delay linear in time: `d0` at `t0`, `d1` at `t1` (ns), extrapolated
/// on either side.
#[derive(Clone, Copy, Debug, PartialEq)]
struct Ramp {
    t0: Time,
    d0: u64,
    t1: Time,
    d1: u64,
}

impl Ramp {
    /// The delay at `t`, rounded to the nearest ns, halves away from zero.
    /// In 64 bits when nothing overflows (a step of 100 ms changes a delay
    /// by microseconds: always, in a constellation), else in 128 bits: the
    /// same value either way (`Ramp::at_wide`), and a 128-bit division per
    /// packet was 1% of a constellation's run.
    #[inline]
    fn at(&self, t: Time) -> u64 {
        self.at_narrow(t).unwrap_or_else(|| self.at_wide(t))
    }

    #[inline]
    fn at_narrow(&self, t: Time) -> Option<u64> {
        let i = |x: u64| i64::try_from(x).ok();
        let span = i(self.t1 - self.t0)?;
        let dt = i(t)?.checked_sub(i(self.t0)?)?;
        let num = i(self.d1)?.checked_sub(i(self.d0)?)?.checked_mul(dt)?;
        let step = num.checked_mul(2)?.checked_add(num.signum() * span)? / span.checked_mul(2)?;
        Some(i(self.d0)?.checked_add(step)?.max(0) as u64)
    }

    fn at_wide(&self, t: Time) -> u64 {
        let span = (self.t1 - self.t0) as i128;
        let dt = t as i128 - self.t0 as i128;
        let num = (self.d1 as i128 - self.d0 as i128) * dt;
        let step = (2 * num + num.signum() * span) / (2 * span);
        (self.d0 as i128 + step).max(0) as u64
    }
}

impl DirSchedule {
    /// A direction that never changes.
    pub fn fixed(rate_bps: u64, delay_ns: u64) -> Self {
        DirSchedule {
            rate: Steps(vec![(0, rate_bps)]),
            delay: Steps(vec![(0, delay_ns)]),
            down: Vec::new(),
            last_down: None,
            fixed: true,
            ramp: None,
            const_rate: Some(rate_bps),
            series: None,
            scheduled: false,
        }
    }

    /// Take a direction's trace-driven values: a rate series replaces the
    /// rate's steps, a delay series the delay (the parser refuses `changes`
    /// of a value a trace gives). Opportunity traces are the service
    /// model's (`service.rs`), not the schedule's.
    pub fn apply_traces(&mut self, t: &DirTraces) {
        if let Some(CapacityTrace::Rates { steps, .. }) = &t.capacity {
            self.rate = Steps(steps.to_vec());
            self.const_rate = (steps.len() == 1).then(|| steps[0].1);
        }
        if let Some(d) = &t.delay {
            let first = d.delays_ns.iter().flatten().next().copied().expect("a delay series with a delay");
            let mut last = first;
            let delays = d.delays_ns.iter().map(|v| {
                last = v.unwrap_or(last);
                last
            });
            let down = d.delays_ns.iter().any(Option::is_none).then(|| d.delays_ns.iter().map(Option::is_none).collect());
            self.series = Some(Box::new(DelaySeries {
                interval: d.interval_ns,
                from: d.from_ns.clone(),
                delays: delays.collect(),
                down,
                overtake: d.order == DelayOrder::Overtake,
            }));
        }
        self.fixed = false;
    }

    /// A delay series marks the path down at `t` (a packet whose last bit
    /// leaves then is lost).
    #[inline]
    pub fn series_down_at(&self, t: Time) -> bool {
        match self.series.as_deref() {
            Some(s @ DelaySeries { down: Some(down), .. }) => down[s.index(t)],
            _ => false,
        }
    }

    /// Nothing but traces changes it: its values are functions of time
    /// known before the run, and it never goes down.
    #[inline]
    pub fn only_traces(&self) -> bool {
        !self.scheduled
    }

    /// A delay series lets later packets overtake earlier ones.
    #[inline]
    pub fn delay_overtakes(&self) -> bool {
        self.series.as_ref().is_some_and(|s| s.overtake)
    }

    /// A direction between moving ends: a fixed rate, a delay set step by
    /// step with [`DirSchedule::set_ramp`], outages recorded as they happen.
    pub fn moving(rate_bps: u64, delay_ns: u64) -> Self {
        let mut s = DirSchedule::fixed(rate_bps, delay_ns);
        s.fixed = false;
        s.scheduled = true;
        s.ramp = Some(Ramp { t0: 0, d0: delay_ns, t1: 1, d1: delay_ns });
        s
    }

    /// From now on the delay goes linearly from `d0` at `t0` to `d1` at
    /// `t1` (`t1 > t0`), and on at that slope until the next call.
    pub fn set_ramp(&mut self, t0: Time, d0: u64, t1: Time, d1: u64) {
        debug_assert!(self.ramp.is_some() && t1 > t0, "a moving direction's ramp");
        self.ramp = Some(Ramp { t0, d0, t1, d1 });
    }

    /// A moving direction goes down at `t` (until [`DirSchedule::come_up`]).
    pub fn go_down(&mut self, t: Time) {
        debug_assert!(self.ramp.is_some() && !self.down_at(t));
        self.down.push((t, Time::MAX));
        self.last_down = Some((t, Time::MAX));
    }

    /// A moving direction comes back up at `t`.
    pub fn come_up(&mut self, t: Time) {
        let last = self.down.last_mut().expect("it went down");
        debug_assert_eq!(last.1, Time::MAX);
        last.1 = t;
        self.last_down = Some(*last);
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
        s.last_down = s.down.last().copied();
        s.fixed = changes.is_empty();
        s.scheduled = !changes.is_empty();
        if s.rate.0.len() > 1 {
            s.const_rate = None;
        }
        s
    }

    /// Nothing changes during the run (the fast path's test).
    #[inline]
    pub fn is_fixed(&self) -> bool {
        self.fixed
    }

    #[inline]
    pub fn rate_at(&self, t: Time) -> u64 {
        match self.const_rate {
            Some(r) => {
                debug_assert_eq!(r, self.rate.at(t), "a constant rate that changed");
                r
            }
            None => self.rate.at(t),
        }
    }

    #[inline]
    pub fn delay_at(&self, t: Time) -> u64 {
        match (&self.ramp, self.series.as_deref()) {
            (Some(r), _) => r.at(t),
            (None, Some(s)) => s.delays[s.index(t)],
            (None, None) => self.delay.at(t),
        }
    }

    /// The link is down at `t`.
    pub fn down_at(&self, t: Time) -> bool {
        match self.last_down {
            None => return false,
            Some((d, u)) if d <= t => return t < u,
            Some(_) => {}
        }
        let i = self.down.partition_point(|&(d, _)| d <= t);
        i > 0 && t < self.down[i - 1].1
    }

    /// The first instant at or after `t` at which the link goes down.
    pub fn next_down_from(&self, t: Time) -> Option<Time> {
        match self.last_down {
            None => return None,
            Some((d, _)) if d < t => return None,
            Some(_) => {}
        }
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

    /// Where the 64-bit path computes, it gives the 128-bit value:
    /// constellation-like ramps (ms delays, microsecond changes, 100 ms
    /// steps, extrapolated before and after), which must all take it; tiny
    /// spans (every rounding case); values up to the FIFO's horizon (2^62
    /// ns), where products overflow 64 bits. Then hand-worked values, the
    /// rounding of halves and one that needs 128 bits.
    #[test]
    fn a_ramp_in_64_bits_equals_the_128_bit_one() {
        let mut rng = crate::sim::Rng::new(5, 1);
        let mut narrow = 0;
        for i in 0..200_000u64 {
            let r = match i % 4 {
                0 | 1 => {
                    let t0 = rng.next_u64() % (1000 * S);
                    let d0 = 1_000_000 + rng.next_u64() % 40_000_000;
                    let d1 = (d0 as i64 + (rng.next_u64() % 10_001) as i64 - 5_000) as u64;
                    Ramp { t0, d0, t1: t0 + 100_000_000, d1 }
                }
                2 => {
                    // small spans: every rounding case, halves included
                    let t0 = rng.next_u64() % 1000;
                    Ramp { t0, d0: rng.next_u64() % 100, t1: t0 + 1 + rng.next_u64() % 7, d1: rng.next_u64() % 100 }
                }
                _ => {
                    // anywhere below the FIFO's horizon (2^62 ns), where
                    // products overflow 64 bits
                    let mut big = || (rng.next_u64() >> 2) >> (rng.next_u64() % 62);
                    let t0 = big();
                    let t1 = (t0 + 1 + big()).min(1 << 62).max(t0 + 1);
                    Ramp { t0, d0: big(), t1, d1: big() }
                }
            };
            let t = match i % 3 {
                0 => r.t0.saturating_sub(rng.next_u64() % (2 * S)),
                1 => r.t0 + rng.next_u64() % (r.t1 - r.t0 + 1),
                _ if i % 4 == 3 => (r.t1 + ((rng.next_u64() >> 2) >> (rng.next_u64() % 62))).min(1 << 62),
                _ => r.t1 + rng.next_u64() % (10 * S),
            };
            if let Some(d) = r.at_narrow(t) {
                assert_eq!(d, r.at_wide(t), "{r:?} at {t}");
                narrow += 1;
            } else {
                // a constellation's ramps always take the 64-bit path
                assert!(i % 4 == 3, "{r:?} at {t} needed 128 bits");
            }
        }
        assert!(narrow > 150_000, "{narrow}");
        // 10 -> 11 over 4 ns: 10.25, 10.5 (half: away from zero), 10.75
        let up = Ramp { t0: 0, d0: 10, t1: 4, d1: 11 };
        assert_eq!([1, 2, 3, 8].map(|t| up.at(t)), [10, 11, 11, 12]);
        // 11 -> 10: 10.5 rounds down, away from zero
        let down = Ramp { t0: 0, d0: 11, t1: 4, d1: 10 };
        assert_eq!([1, 2, 3].map(|t| down.at(t)), [11, 10, 10]);
        // 0 -> 2^30 over 2^40 ns read at 2^40: the product (2^70) needs 128 bits
        let wide = Ramp { t0: 0, d0: 0, t1: 1 << 40, d1: 1 << 30 };
        assert_eq!((wide.at_narrow(1 << 40), wide.at(1 << 40)), (None, 1 << 30));
    }

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
    fn a_moving_direction_ramps_and_records_its_outages() {
        let mut s = DirSchedule::moving(1_000, 5_000_000);
        assert!(!s.is_fixed());
        assert_eq!(s.delay_at(7 * S), 5_000_000);
        // 5 ms at 10 s to 4 ms at 10.1 s: 4.5 ms halfway, extrapolated after
        s.set_ramp(10 * S, 5_000_000, 10 * S + S / 10, 4_000_000);
        assert_eq!(s.delay_at(10 * S + S / 20), 4_500_000);
        assert_eq!(s.delay_at(10 * S + S / 5), 3_000_000);
        s.go_down(12 * S);
        assert!(s.down_at(12 * S) && s.down_at(20 * S));
        assert_eq!(s.next_down_from(12 * S), Some(12 * S));
        s.come_up(13 * S);
        assert!(!s.down_at(13 * S));
        assert_eq!(s.next_down_from(13 * S), None, "no outage known ahead");
        assert_eq!(s.capacity_bits(20 * S), 19_000.0);
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
