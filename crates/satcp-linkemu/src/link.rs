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

use std::collections::VecDeque;

/// Nanoseconds on CLOCK_MONOTONIC.
pub type Ns = u64;

#[derive(Clone, Copy, Debug)]
pub struct DirCfg {
    pub rate_bps: u64,
    pub delay_ns: Ns,
    pub limit: usize,
    pub per: f64,
}

/// A packet on its way: when it leaves the far end, and whether it is lost.
#[derive(Debug)]
pub struct InFlight {
    pub start: Ns,
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
    busy_until: Ns,
    pub pipe: VecDeque<InFlight>,
    rng: u64,
    pub stats: DirStats,
}

impl Dir {
    pub fn new(cfg: DirCfg, seed: u64) -> Self {
        Dir { cfg, busy_until: 0, pipe: VecDeque::new(), rng: seed.max(1), stats: DirStats::default() }
    }

    /// Packets accepted whose transmission has not started at `now`.
    pub fn waiting(&self, now: Ns) -> usize {
        self.pipe.iter().rev().take_while(|p| p.start > now).count()
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
        if self.waiting(now) >= self.cfg.limit {
            self.stats.drops_queue += 1;
            return false;
        }
        let start = now.max(self.busy_until);
        let tx = (len as u128 * 8 * 1_000_000_000).div_ceil(self.cfg.rate_bps as u128) as Ns;
        self.busy_until = start + tx;
        let lost = self.cfg.per > 0.0 && self.uniform() < self.cfg.per;
        self.pipe.push_back(InFlight { start, release: self.busy_until + self.cfg.delay_ns, lost, bytes });
        self.stats.accepted += 1;
        true
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
        if !self.enqueue(at, len, Vec::new()) {
            return None;
        }
        let p = self.pipe.back().expect("just accepted");
        // a lost packet is sent, and counted when it would have left
        (!p.lost).then_some(p.release)
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
