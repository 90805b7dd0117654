//! On/off UDP source with ns-2's Exponential and Pareto traffic semantics
//! (`Application/Traffic/Exponential`, `.../Pareto`; ns-2 manual, "Traffic
//! Generators"; the Pareto source models the self-similar aggregate of
//! Willinger et al.).
//!
//! During an "on" burst packets leave at the peak rate, one every interval =
//! packet_size x 8 / rate. As in ns-2, a burst is drawn as a number of
//! packets: with mean mean_on / interval, exponential or Pareto(shape),
//! rounded to the nearest integer and at least 1; an idle time (mean
//! `mean_off`, same family) is added to the interval after the last packet of
//! each burst. The first packet leaves at `start` and, because ns-2 draws
//! the first burst only after it, is followed by an idle time (kept: it is
//! the reference behaviour). Pareto draws use ns-2's parameterisation:
//! scale = mean (shape - 1) / shape, x = scale / U^(1/shape).
//!
//! `transport = "tcp"`: the source opens a TCP connection at `start` and
//! each "packet" is a write of `packet_size` bytes into it (ns-2's traffic
//! generators attached to a TCP agent: web-like ON-OFF TCP sources, the
//! XFWA paper's section V-D); at `stop` it writes nothing more and closes.
//! TCP sends what is written as its window allows.

use super::udp::UdpStats;
use super::{Action, Side};
use crate::scenario::{OnOffCfg, OnOffDist};
use crate::sim::{Rng, Time, NS_PER_S};

pub struct OnOff {
    pub cfg: OnOffCfg,
    pub stats: UdpStats,
    rng: Rng,
    /// Packets left in the current burst.
    rem: u64,
    interval_s: f64,
    /// Over TCP: the connection is open.
    opened: bool,
}

impl OnOff {
    pub fn new(cfg: OnOffCfg, rng: Rng) -> Self {
        let interval_s = 8.0 * cfg.packet_bytes as f64 / cfg.peak_rate_bps as f64;
        OnOff { cfg, stats: UdpStats::default(), rng, rem: 0, interval_s, opened: false }
    }

    fn draw(&mut self, mean: f64) -> f64 {
        match self.cfg.dist {
            OnOffDist::Exponential => self.rng.exponential(mean),
            OnOffDist::Pareto { shape } => {
                let scale = mean * (shape - 1.0) / shape;
                scale / (1.0 - self.rng.uniform()).powf(1.0 / shape)
            }
        }
    }

    /// Seconds to the next packet (ns-2's `next_interval`).
    fn next_interval_s(&mut self) -> f64 {
        let mut t = self.interval_s;
        if self.rem == 0 {
            let mean_burst = self.cfg.mean_on_ns as f64 / NS_PER_S as f64 / self.interval_s;
            self.rem = ((self.draw(mean_burst) + 0.5) as u64).max(1);
            t += self.draw(self.cfg.mean_off_ns as f64 / NS_PER_S as f64);
        }
        self.rem -= 1;
        t
    }

    pub fn on_wakeup(&mut self, now: Time, out: &mut Vec<Action>) {
        if self.cfg.stop_ns.is_some_and(|s| now >= s) {
            if self.cfg.tcp {
                out.push(Action::StopWriting(Side::Server));
            }
            return;
        }
        if self.cfg.tcp {
            if !self.opened {
                self.opened = true;
                out.push(Action::Listen(Side::Client));
                out.push(Action::Connect(Side::Server));
            }
            out.push(Action::Write(Side::Server, self.cfg.packet_bytes as u64));
        } else {
            out.push(Action::Datagram(self.cfg.packet_bytes));
            self.stats.sent(self.cfg.packet_bytes);
        }
        let next = now + ((self.next_interval_s() * NS_PER_S as f64).round() as u64).max(1);
        match self.cfg.stop_ns {
            Some(s) if next >= s => {
                // the TCP source closes at stop
                if self.cfg.tcp {
                    out.push(Action::WakeAt(s));
                }
            }
            _ => out.push(Action::WakeAt(next)),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn cfg(dist: OnOffDist) -> OnOffCfg {
        OnOffCfg {
            dist,
            peak_rate_bps: 1_000_000,
            packet_bytes: 1000,
            mean_on_ns: 80_000_000,
            mean_off_ns: 120_000_000,
            start_ns: 0,
            stop_ns: None,
            tcp: false,
        }
    }

    fn run(o: &mut OnOff, until: Time) -> Vec<Time> {
        let (mut t, mut out, mut times) = (0, vec![], vec![]);
        loop {
            o.on_wakeup(t, &mut out);
            let mut next = None;
            for a in out.drain(..) {
                match a {
                    Action::Datagram(_) => times.push(t),
                    Action::WakeAt(n) => next = Some(n),
                    _ => unreachable!(),
                }
            }
            match next {
                Some(n) if n < until => t = n,
                _ => return times,
            }
        }
    }

    #[test]
    fn first_packet_then_idle_then_bursts_at_the_peak_rate() {
        // Replay ns-2's sequence by hand from the same stream: after the
        // first packet, burst length n = round(Exp(10 packets)) >= 1 and an
        // Exp(0.12 s) idle; then n packets 8 ms apart.
        let mut o = OnOff::new(cfg(OnOffDist::Exponential), Rng::new(4, 4));
        let t = run(&mut o, 2_000_000_000);
        let mut r = Rng::new(4, 4);
        let n = ((r.exponential(10.0) + 0.5) as u64).max(1);
        let idle = r.exponential(0.12);
        let second = ((0.008 + idle) * 1e9).round() as u64;
        assert_eq!(t[0], 0);
        assert_eq!(t[1], second);
        for k in 1..n as usize {
            assert_eq!(t[k + 1] - t[k], 8_000_000, "packet {k} of the burst");
        }
        assert!(t[n as usize + 1] - t[n as usize] > 8_000_000, "idle after the burst");
    }

    #[test]
    fn long_run_rate_is_peak_times_on_fraction() {
        // Exponential: mean rate ~ peak x E[on] / (E[on] + E[off]) =
        // 1 Mb/s x 0.4 (with packets counted as whole intervals:
        // E[burst] = E[round(Exp(10))] ~ 10 packets = 80 ms).
        for dist in [OnOffDist::Exponential, OnOffDist::Pareto { shape: 2.5 }] {
            let mut o = OnOff::new(cfg(dist), Rng::new(2, 9));
            let secs = 4000.0;
            let n = run(&mut o, (secs * 1e9) as u64).len() as f64;
            let rate = n * 8000.0 / secs;
            let tol = if matches!(dist, OnOffDist::Exponential) { 0.03 } else { 0.05 };
            assert!((rate / 400_000.0 - 1.0).abs() < tol, "{dist:?}: {rate}");
        }
    }
}
