//! One direction of the emulated link: a FIFO transmitter at a fixed rate
//! with a drop-tail queue, a propagation delay and independent packet
//! errors, in the same terms as satcp's link direction: a packet is
//! accepted if fewer than `limit` packets wait (the one being serialised is
//! not counted, ns-2's and satcp's convention), starts when the previous
//! one has left, takes bits / rate to serialise, and arrives `delay` after
//! its last bit; an erred packet is dropped at the far end.
//!
//! A `Chain` is several such hops in series (an access link before the
//! bottleneck, each with its own queue). A hop's packets reach the next in
//! the order it accepted them, so the next hop's admission can be decided
//! at once, for the instant the packet will reach it (as satcp cuts
//! through a relay): only the last hop holds packets.
//!
//! A hop may replay traces instead of its rate and delay, and a loss series
//! besides its PER (`traces.rs`): its capacity then comes from Mahimahi
//! delivery opportunities, its delay from a series (a packet may then
//! overtake one sent before it: the pipe is kept in release order), as in
//! a satcp run.

use std::collections::VecDeque;

use crate::traces::HopTraces;

/// Nanoseconds on CLOCK_MONOTONIC.
pub type Ns = u64;

#[derive(Clone, Copy, Debug)]
pub struct DirCfg {
    pub rate_bps: u64,
    pub delay_ns: Ns,
    pub limit: usize,
    pub per: f64,
}

impl Default for DirCfg {
    fn default() -> Self {
        DirCfg { rate_bps: 10_000_000, delay_ns: 0, limit: 1000, per: 0.0 }
    }
}

/// A packet on its way: when it leaves the far end, and whether it is lost.
#[derive(Debug)]
pub struct InFlight {
    pub release: Ns,
    pub lost: bool,
    pub bytes: Vec<u8>,
}

#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct DirStats {
    pub accepted: u64,
    pub delivered: u64,
    pub drops_queue: u64,
    pub drops_errors: u64,
}

pub struct Dir {
    cfg: DirCfg,
    traces: Option<Box<HopTraces>>,
    busy_until: Ns,
    /// Transmission starts of the packets accepted, in order (the queue's
    /// accounting; the pipe is in release order).
    starts: VecDeque<Ns>,
    /// Packets in release order (ties in the order accepted).
    pub pipe: VecDeque<InFlight>,
    rng: u64,
    pub stats: DirStats,
}

impl Dir {
    pub fn new(cfg: DirCfg, seed: u64) -> Self {
        Dir { cfg, traces: None, busy_until: 0, starts: VecDeque::new(), pipe: VecDeque::new(), rng: seed.max(1), stats: DirStats::default() }
    }

    /// The same, replaying `traces`.
    pub fn with_traces(cfg: DirCfg, seed: u64, traces: HopTraces) -> Self {
        Dir { traces: Some(Box::new(traces)), ..Dir::new(cfg, seed) }
    }

    /// Its configuration (rate, delay, limit, PER).
    pub fn cfg(&self) -> DirCfg {
        self.cfg
    }

    /// Packets accepted whose transmission has not started at `now`.
    pub fn waiting(&self, now: Ns) -> usize {
        self.starts.iter().rev().take_while(|&&s| s > now).count()
    }

    fn uniform(&mut self) -> f64 {
        // xorshift64*: a seeded stream, so an emulator run is reproducible
        self.rng ^= self.rng >> 12;
        self.rng ^= self.rng << 25;
        self.rng ^= self.rng >> 27;
        (self.rng.wrapping_mul(0x2545_F491_4F6C_DD1D) >> 11) as f64 / (1u64 << 53) as f64
    }

    /// A packet of `bytes` arrives at `now`: queue it or drop it.
    pub fn offer(&mut self, now: Ns, bytes: Vec<u8>) -> bool {
        let len = bytes.len();
        self.enqueue(now, len, bytes)
    }

    /// [`Dir::offer`] of a packet of `len` bytes (`bytes` may be empty: a
    /// hop that only keeps the queue's accounting).
    fn enqueue(&mut self, now: Ns, len: usize, bytes: Vec<u8>) -> bool {
        self.enqueue_at(now, len, bytes).is_some()
    }

    /// [`Dir::enqueue`], returning the packet's release and whether it is
    /// lost if it was accepted.
    fn enqueue_at(&mut self, now: Ns, len: usize, bytes: Vec<u8>) -> Option<(Ns, bool)> {
        if self.waiting(now) >= self.cfg.limit {
            self.stats.drops_queue += 1;
            return None;
        }
        let (start, end) = match self.traces.as_mut().and_then(|t| t.serve(now, len)) {
            Some(se) => se,
            None => {
                let start = now.max(self.busy_until);
                (start, start + (len as u128 * 8 * 1_000_000_000).div_ceil(self.cfg.rate_bps as u128) as Ns)
            }
        };
        self.busy_until = end;
        let mut lost = self.cfg.per > 0.0 && self.uniform() < self.cfg.per;
        let p = self.traces.as_deref().map_or(0.0, |t| t.loss(start));
        lost |= p >= 1.0 || (p > 0.0 && self.uniform() < p);
        let (delay, overtake) = match self.traces.as_deref() {
            Some(t) => {
                match t.delay(end) {
                    Some(Some(d)) => (d, t.overtake),
                    // the series says the path is down: lost
                    Some(None) => {
                        lost = true;
                        (self.cfg.delay_ns, t.overtake)
                    }
                    None => (self.cfg.delay_ns, false),
                }
            }
            None => (self.cfg.delay_ns, false),
        };
        let mut release = end + delay;
        while self.starts.front().is_some_and(|&s| s <= now) {
            self.starts.pop_front();
        }
        self.starts.push_back(start);
        if overtake {
            let at = self.pipe.partition_point(|p| p.release <= release);
            self.pipe.insert(at, InFlight { release, lost, bytes });
        } else {
            release = release.max(self.pipe.back().map_or(0, |p| p.release));
            self.pipe.push_back(InFlight { release, lost, bytes });
        }
        self.stats.accepted += 1;
        Some((release, lost))
    }

    /// The next packet due at or before `now`, if any (lost ones are
    /// counted and skipped).
    pub fn due(&mut self, now: Ns) -> Option<InFlight> {
        while self.pipe.front().is_some_and(|p| p.release <= now) {
            let p = self.pipe.pop_front().unwrap();
            if p.lost {
                self.stats.drops_errors += 1;
                continue;
            }
            self.stats.delivered += 1;
            return Some(p);
        }
        None
    }

    pub fn next_release(&self) -> Option<Ns> {
        self.pipe.front().map(|p| p.release)
    }

    /// A packet of `len` bytes reaches this hop at `at` on its way to the
    /// next: when it will leave it for the next hop, or None if the queue
    /// dropped it or it is lost (counted). Only the accounting of the
    /// queue is kept (`at` never goes back: the hop before is FIFO).
    fn pass(&mut self, at: Ns, len: usize) -> Option<Ns> {
        while self.pipe.front().is_some_and(|p| p.release <= at) {
            let p = self.pipe.pop_front().expect("a packet");
            if p.lost {
                self.stats.drops_errors += 1;
            } else {
                self.stats.delivered += 1;
            }
        }
        let (release, lost) = self.enqueue_at(at, len, Vec::new())?;
        // a lost packet is sent, and counted when it would have left
        (!lost).then_some(release)
    }
}

/// Hops in series, the last one holding the packets until they leave.
pub struct Chain {
    pub hops: Vec<Dir>,
}

impl Chain {
    /// A packet read at `now` enters the first hop.
    pub fn offer(&mut self, now: Ns, bytes: Vec<u8>) -> bool {
        let last = self.hops.len() - 1;
        let mut at = now;
        for h in &mut self.hops[..last] {
            match h.pass(at, bytes.len()) {
                Some(t) => at = t,
                None => return false,
            }
        }
        self.hops[last].offer(at, bytes)
    }

    pub fn due(&mut self, now: Ns) -> Option<InFlight> {
        self.hops.last_mut().expect("a hop").due(now)
    }

    pub fn next_release(&self) -> Option<Ns> {
        self.hops.last().expect("a hop").next_release()
    }

    /// The direction's account: accepted by the first hop, delivered by
    /// the last, drops of every hop.
    pub fn stats(&self) -> DirStats {
        DirStats {
            accepted: self.hops[0].stats.accepted,
            delivered: self.hops.last().expect("a hop").stats.delivered,
            drops_queue: self.hops.iter().map(|h| h.stats.drops_queue).sum(),
            drops_errors: self.hops.iter().map(|h| h.stats.drops_errors).sum(),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn dir(limit: usize, per: f64) -> Dir {
        Dir::new(DirCfg { rate_bps: 8_000_000, delay_ns: 100_000_000, limit, per }, 7)
    }

    /// 1000-byte packets at 8 Mb/s take 1 ms each: three offered at t = 0
    /// start at 0, 1 and 2 ms and leave the far end at 101, 102, 103 ms.
    #[test]
    fn serialisation_then_delay() {
        let mut d = dir(10, 0.0);
        for _ in 0..3 {
            assert!(d.offer(0, vec![0; 1000]));
        }
        let r: Vec<Ns> = d.pipe.iter().map(|p| p.release).collect();
        assert_eq!(r, [101_000_000, 102_000_000, 103_000_000]);
        assert!(d.due(100_999_999).is_none());
        assert_eq!(d.due(102_000_000).map(|p| p.release), Some(101_000_000));
        assert_eq!(d.due(102_000_000).map(|p| p.release), Some(102_000_000));
        assert!(d.due(102_000_000).is_none());
        // an idle link starts a later packet at once
        assert!(d.offer(500_000_000, vec![0; 1000]));
        assert_eq!(d.pipe.back().unwrap().release, 601_000_000);
    }

    /// A limit of 2 waiting packets: the one being sent is not counted, so
    /// the fourth packet offered at once is the first dropped; once the
    /// first has left the queue, room opens again.
    #[test]
    fn drop_tail_counts_only_waiting_packets() {
        let mut d = dir(2, 0.0);
        let took: Vec<bool> = (0..4).map(|_| d.offer(0, vec![0; 1000])).collect();
        assert_eq!(took, [true, true, true, false]);
        assert_eq!(d.stats.drops_queue, 1);
        assert_eq!(d.waiting(1_000_000), 1);
        assert!(d.offer(1_000_000, vec![0; 1000]));
    }

    /// Two hops: 1000-byte packets at 80 Mb/s (0.1 ms) and 1 ms delay, then
    /// at 8 Mb/s (1 ms) and 100 ms with a 2-packet queue. Four packets
    /// offered at once reach the second hop 0.1 ms apart, at 1.1, 1.2, 1.3
    /// and 1.4 ms; it sends the first at once and queues two, so the
    /// fourth is dropped there; the first hop's queue never fills.
    #[test]
    fn a_chain_offers_each_hop_what_leaves_the_one_before() {
        let access = Dir::new(DirCfg { rate_bps: 80_000_000, delay_ns: 1_000_000, limit: 100, per: 0.0 }, 1);
        let mut c = Chain { hops: vec![access, dir(2, 0.0)] };
        let took: Vec<bool> = (0..4).map(|_| c.offer(0, vec![0; 1000])).collect();
        assert_eq!(took, [true, true, true, false]);
        let r: Vec<Ns> = c.hops[1].pipe.iter().map(|p| p.release).collect();
        assert_eq!(r, [102_100_000, 103_100_000, 104_100_000]);
        let s = c.stats();
        assert_eq!((s.accepted, s.drops_queue, c.hops[0].stats.drops_queue, c.hops[1].stats.drops_queue), (4, 1, 0, 1));
        // the first hop's accounting empties as its packets leave
        assert!(c.offer(50_000_000, vec![0; 1000]));
        assert_eq!(c.hops[0].pipe.len(), 1);
        assert_eq!(c.hops[0].stats.delivered, 4);
    }

    use crate::traces::{HopTraces, Series};
    use satcp_core::net::link::service::Opportunities;

    const MS: Ns = 1_000_000;

    /// A hop on the trace 10, 20, 30 ms (repeating), 5 ms of delay: the
    /// departures satcp gives (`satcp-core`'s `traced_tests.rs`), trace
    /// time 0 being `base`.
    #[test]
    fn a_capacity_trace_gives_satcp_s_departures() {
        let base = 1_000 * MS;
        let traces = HopTraces { base, capacity: Some(Opportunities::new(&[10, 20, 30])), delay: None, overtake: false, loss: None };
        let mut d = Dir::with_traces(DirCfg { rate_bps: 1, delay_ns: 5 * MS, limit: 100, per: 0.0 }, 1, traces);
        for _ in 0..4 {
            assert!(d.offer(base, vec![0; 1500]));
        }
        // 40-byte packets share the opportunity at 50 ms (44 bytes each with the TUN header)
        for _ in 0..3 {
            assert!(d.offer(base, vec![0; 40]));
        }
        let r: Vec<Ns> = d.pipe.iter().map(|p| (p.release - base) / MS).collect();
        assert_eq!(r, [15, 25, 35, 45, 55, 55, 55]);
        assert_eq!(d.waiting(base + 10 * MS + 1), 6);
    }

    /// A delay series of 10-ms intervals, 24 then 18 ms: with overtake a
    /// packet leaving after the fall is released first; in order it waits.
    /// A down interval loses the packet; a loss series of 1 loses all.
    #[test]
    fn delay_and_loss_series_as_satcp_applies_them() {
        let series = |overtake, loss: Option<Series<f64>>| HopTraces {
            base: 0,
            capacity: None,
            delay: Some(Series { interval_ns: 10 * MS, values: vec![Some(24 * MS), Some(18 * MS), None] }),
            overtake,
            loss,
        };
        // 8 Gb/s: a 1-byte packet takes 1 ns
        let cfg = DirCfg { rate_bps: 8_000_000_000, delay_ns: 0, limit: 100, per: 0.0 };
        let mut d = Dir::with_traces(cfg, 1, series(true, None));
        assert!(d.offer(10 * MS - 2, vec![1]));
        assert!(d.offer(10 * MS - 1, vec![2]));
        let r: Vec<(Ns, u8)> = d.pipe.iter().map(|p| (p.release, p.bytes[0])).collect();
        assert_eq!(r, [(28 * MS, 2), (34 * MS - 1, 1)]);
        assert_eq!(d.due(40 * MS).map(|p| p.bytes[0]), Some(2), "released in order of release");
        let mut d = Dir::with_traces(cfg, 1, series(false, None));
        d.offer(10 * MS - 2, vec![1]);
        d.offer(10 * MS - 1, vec![2]);
        assert_eq!(d.pipe.iter().map(|p| p.release).collect::<Vec<_>>(), [34 * MS - 1, 34 * MS - 1]);
        // down: the third interval (and 50 ms: repeated)
        d.offer(25 * MS, vec![3]);
        d.offer(55 * MS, vec![4]);
        assert!(d.pipe.iter().skip(2).all(|p| p.lost));
        let all = Series { interval_ns: 10 * MS, values: vec![1.0] };
        let mut d = Dir::with_traces(cfg, 1, series(true, Some(all)));
        d.offer(0, vec![1]);
        assert!(d.pipe[0].lost);
    }

    /// Errors: the same seed loses the same packets; the loss rate is the
    /// PER within 3 standard deviations over 100,000 packets.
    #[test]
    fn packet_errors_are_seeded_and_at_the_rate() {
        let losses = |seed| {
            let mut d = Dir::new(DirCfg { rate_bps: u64::MAX / 16, delay_ns: 0, limit: usize::MAX, per: 0.01 }, seed);
            (0..100_000u64).map(|i| d.offer(i, vec![0; 100])).count();
            let mut lost = Vec::new();
            for i in 0..100_000u64 {
                if d.pipe[i as usize].lost {
                    lost.push(i);
                }
            }
            lost
        };
        let (a, b, c) = (losses(1), losses(1), losses(2));
        assert_eq!(a, b);
        assert_ne!(a, c);
        let sd = (100_000.0f64 * 0.01 * 0.99).sqrt();
        assert!((a.len() as f64 - 1000.0).abs() < 3.0 * sd, "{}", a.len());
    }
}
