//! Constant bit rate UDP source, as ns-2's `Application/Traffic/CBR` (ns-2
//! manual, "Traffic Generators"): one packet of `packet_size` IP bytes every
//! interval = packet_size x 8 / rate, the first at `start`, none at or after
//! `stop`, at most `max_packets` (ns-2 `maxpkts_`).
//!
//! Choices: send times are start + k x interval computed exactly in integer
//! nanoseconds (no drift over long runs; ns-2 accumulates doubles). With
//! `jitter` (ns-2 `random_ 1`) each interval is interval x (1 + U(-0.5,
//! 0.5)), drawn from the application's own stream.

use super::udp::UdpStats;
use super::Action;
use crate::scenario::CbrCfg;
use crate::sim::{Rng, Time, NS_PER_S};

pub struct Cbr {
    pub cfg: CbrCfg,
    pub stats: UdpStats,
    rng: Rng,
    /// With jitter: the time of the next packet.
    next_jittered: Time,
}

impl Cbr {
    pub fn new(cfg: CbrCfg, rng: Rng) -> Self {
        let next_jittered = cfg.start_ns;
        Cbr { cfg, stats: UdpStats::default(), rng, next_jittered }
    }

    /// Exact nanoseconds between packets (x 1e9 scaled, as a fraction).
    fn interval_ns_f64(&self) -> f64 {
        8.0 * self.cfg.packet_bytes as f64 * NS_PER_S as f64 / self.cfg.rate_bps as f64
    }

    /// Send time of packet `k` (0-based) without jitter.
    fn time_of(&self, k: u64) -> Time {
        let bits = 8 * self.cfg.packet_bytes as u128;
        self.cfg.start_ns + ((k as u128 * bits * NS_PER_S as u128) / self.cfg.rate_bps as u128) as u64
    }

    pub fn on_wakeup(&mut self, now: Time, out: &mut Vec<Action>) {
        if self.cfg.stop_ns.is_some_and(|s| now >= s) {
            return;
        }
        out.push(Action::Datagram(self.cfg.packet_bytes));
        self.stats.sent(self.cfg.packet_bytes);
        let k = self.stats.packets_sent;
        if self.cfg.max_packets.is_some_and(|m| k >= m) {
            return;
        }
        let next = if self.cfg.jitter {
            let iv = self.interval_ns_f64() * (1.0 + self.rng.uniform() - 0.5);
            self.next_jittered = now + (iv.round() as u64).max(1);
            self.next_jittered
        } else {
            self.time_of(k)
        };
        if self.cfg.stop_ns.is_none_or(|s| next < s) {
            out.push(Action::WakeAt(next));
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn cfg(rate: u64, size: u32, stop: Option<u64>) -> CbrCfg {
        CbrCfg { rate_bps: rate, packet_bytes: size, start_ns: 1_000, stop_ns: stop, jitter: false, max_packets: None }
    }

    /// Run the wake-ups the source asks for; return the send times.
    fn sends(c: &mut Cbr, until: Time) -> Vec<Time> {
        let mut t = c.cfg.start_ns;
        let mut times = vec![];
        let mut out = vec![];
        loop {
            c.on_wakeup(t, &mut out);
            let mut next = None;
            for a in out.drain(..) {
                match a {
                    Action::Datagram(_) => times.push(t),
                    Action::WakeAt(n) => next = Some(n),
                    _ => panic!("{a:?}"),
                }
            }
            match next {
                Some(n) if n < until => t = n,
                _ => return times,
            }
        }
    }

    #[test]
    fn packets_every_size_times_8_over_rate() {
        // 1000 B at 0.8 Mb/s: one packet per 10 ms from start = 1 us.
        let mut c = Cbr::new(cfg(800_000, 1000, None), Rng::new(1, 1));
        let t = sends(&mut c, 1_000_000_000);
        assert_eq!(t.len(), 100);
        assert_eq!(&t[..3], &[1_000, 10_001_000, 20_001_000]);
        // 1.7 Mb/s: 8000/1.7e6 s = 4705882.35 ns; packet k at start +
        // floor(k x 4705882.35): 4705882, 9411764, 14117647, 18823529
        let mut c = Cbr::new(cfg(1_700_000, 1000, None), Rng::new(1, 1));
        let t = sends(&mut c, 20_000_000);
        assert_eq!(t, vec![1_000, 4_706_882, 9_412_764, 14_118_647, 18_824_529]);
    }

    #[test]
    fn stop_and_max_packets() {
        // stop at 30.001 ms: packets at 1 us, 10.001 ms, 20.001 ms only
        let mut c = Cbr::new(cfg(800_000, 1000, Some(30_001_000)), Rng::new(1, 1));
        assert_eq!(sends(&mut c, u64::MAX).len(), 3);
        let mut c = Cbr::new(CbrCfg { max_packets: Some(5), ..cfg(800_000, 1000, None) }, Rng::new(1, 1));
        assert_eq!(sends(&mut c, u64::MAX).len(), 5);
        assert_eq!(c.stats.bytes_sent, 5000);
    }

    #[test]
    fn jitter_keeps_the_mean_rate() {
        let mut c = Cbr::new(CbrCfg { jitter: true, ..cfg(800_000, 1000, None) }, Rng::new(1, 1));
        let t = sends(&mut c, 100_000_000_000);
        // 100 s at 100 pkt/s; the sum of 10,000 uniform jitters has sd ~ 2.9 intervals
        assert!((t.len() as i64 - 10_000).abs() < 30, "{}", t.len());
        assert!(t.windows(2).all(|w| w[1] - w[0] >= 5_000_000 && w[1] - w[0] <= 15_000_000));
    }
}
