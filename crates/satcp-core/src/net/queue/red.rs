//! Random Early Detection (Floyd & Jacobson, "Random Early Detection
//! Gateways for Congestion Avoidance", IEEE/ACM ToN 1993) as ns-2's
//! `Queue/RED` implements it, with ns-2's defaults of 2003 (ns-2.26/2.27).
//!
//! On every arrival (also one that finds the transmitter idle, which ns-2
//! enqueues and dequeues at once):
//! 1. avg <- (1 - w_q)^m avg when the queue has been idle, with m = floor(idle
//!    time x ptc), ptc = rate / (8 x mean_pktsize) the packets of mean size
//!    the link could have sent (the paper's section 4 "m = f(time - q_time)");
//! 2. avg <- (1 - w_q) avg + w_q q, q = packets waiting (not the one being
//!    sent, as drop-tail counts them);
//! 3. count += 1;
//! 4. if avg >= min_th and q > 1 (ns-2 never drops early when at most one
//!    packet waits): avg >= max_th (2 max_th when gentle) is a forced drop;
//!    the first arrival after avg crossed min_th only sets count = 1;
//!    otherwise p_b = max_p (avg - min_th) / (max_th - min_th), or in the
//!    gentle region max_p + (1 - max_p)(avg - max_th) / max_th, and the
//!    uniformised p_a = p_b / (2 - count p_b) with `wait` (0 while count p_b
//!    < 1, 1 from count p_b >= 2), or p_b / (1 - count p_b) without; the
//!    packet is dropped when u <= p_a and count restarts at 0. Below min_th
//!    (or q <= 1) the "old" flag is cleared;
//! 5. q >= limit is a forced drop (overflow), also when step 4 chose an early
//!    drop (ns-2 then reports it as forced). Any drop resets count.
//!
//! Ambiguities and the choices made:
//! * Automatic parameters (ns-2 `thresh_ 0`, `maxthresh_ 0`, `q_weight_ -1`,
//!   the defaults in `ns-default.tcl` of May 2003): min_th = max(5,
//!   targetdelay x ptc / 2), max_th = 3 min_th, w_q = 1 - exp(-1 / (10 x RTT
//!   x ptc)) with RTT = max(0.1 s, 3 (delay + 1/ptc)). With ns-2's
//!   mean_pktsize 500 B and targetdelay 5 ms on TRANSAT's 2 Mb/s, 255 ms link:
//!   min_th 5, max_th 15, w_q 2.594e-4 (spec 001 section 6 item 28).
//! * Byte mode (ns-2 `bytes_`): count is count_bytes / mean_pktsize in
//!   integer division, as ns-2 computes it, and p_a is scaled by size /
//!   mean_pktsize. The queue itself is measured in packets.
//! * Idle decay uses (1 - w_q)^m in one `powi` rather than ns-2's loop of m
//!   multiplications (equal to rounding).
//! * ECN (`ecn = true`, RFC 3168 section 5, ns-2's `setbit_`): an early
//!   (probabilistic) decision on an ECN-capable arrival marks it CE and
//!   queues it; the mark resets count as a drop does. Forced drops (the
//!   average at or above max_th, 2 max_th gentle) and overflows drop even
//!   ECN-capable packets (ns-2 marks only unforced decisions; Linux's
//!   `sch_red` would mark forced ones too unless `harddrop` is set: the
//!   choice is ns-2's). Without ECN (or on a Not-ECT arrival) an early
//!   "mark" is a drop of the arriving packet; forced drops also take the
//!   arriving packet (ns-2 `drop_tail_ true`).

use crate::scenario::RedCfg;
use crate::sim::{Rng, Time, NS_PER_S};

/// ns-2 defaults of 2003 (documented in docs/models/red.md).
pub const DEFAULT_MAX_P: f64 = 0.1;
pub const DEFAULT_MEAN_PKTSIZE: u32 = 500;
pub const DEFAULT_TARGET_DELAY_NS: u64 = 5_000_000;

/// RED parameters with the automatic ones worked out for one link direction.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct RedParams {
    pub limit_packets: Option<u32>,
    pub min_th: f64,
    pub max_th: f64,
    pub max_p: f64,
    pub w_q: f64,
    pub gentle: bool,
    pub wait: bool,
    pub mean_pktsize: u32,
    pub byte_mode: bool,
    /// Mark ECN-capable arrivals instead of an early drop.
    pub ecn: bool,
    /// Packets of mean size per second the link can send.
    pub ptc: f64,
}

impl RedParams {
    pub fn resolve(cfg: &RedCfg, rate_bps: u64, delay_ns: u64) -> Self {
        let ptc = rate_bps as f64 / (8.0 * cfg.mean_pktsize as f64);
        let min_th = cfg.min_th.unwrap_or_else(|| {
            let target_queue = cfg.target_delay_ns as f64 / NS_PER_S as f64 * ptc;
            (target_queue / 2.0).max(5.0)
        });
        let max_th = cfg.max_th.unwrap_or(3.0 * min_th);
        let w_q = cfg.w_q.unwrap_or_else(|| {
            let rtt = (3.0 * (delay_ns as f64 / NS_PER_S as f64 + 1.0 / ptc)).max(0.1);
            -(-1.0 / (10.0 * rtt * ptc)).exp_m1()
        });
        RedParams {
            limit_packets: cfg.limit_packets,
            min_th,
            max_th,
            max_p: cfg.max_p,
            w_q,
            gentle: cfg.gentle,
            wait: cfg.wait,
            mean_pktsize: cfg.mean_pktsize,
            byte_mode: cfg.byte_mode,
            ecn: cfg.ecn,
            ptc,
        }
    }

    /// The drop probability p_b before uniformisation (ns-2's
    /// `calculate_p_new`), capped at 1.
    pub fn p_b(&self, avg: f64) -> f64 {
        let p = if avg >= self.max_th {
            if self.gentle {
                self.max_p + (1.0 - self.max_p) * (avg - self.max_th) / self.max_th
            } else {
                1.0
            }
        } else {
            self.max_p * (avg - self.min_th) / (self.max_th - self.min_th)
        };
        p.min(1.0)
    }

    /// p_a from p_b and the packets (or mean-size packets in byte mode)
    /// since the last drop (ns-2's `modify_p`).
    pub fn p_a(&self, p_b: f64, count: u64, count_bytes: u64, size: u32) -> f64 {
        let c = if self.byte_mode { (count_bytes / self.mean_pktsize as u64) as f64 } else { count as f64 };
        let cp = c * p_b;
        let mut p = if self.wait {
            if cp < 1.0 {
                0.0
            } else if cp < 2.0 {
                p_b / (2.0 - cp)
            } else {
                1.0
            }
        } else if cp < 1.0 {
            p_b / (1.0 - cp)
        } else {
            1.0
        };
        if self.byte_mode && p < 1.0 {
            p = p * size as f64 / self.mean_pktsize as f64;
        }
        p.min(1.0)
    }
}

/// What RED decided for an arriving packet.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum RedVerdict {
    Accept,
    /// Probabilistic ("unforced") early drop.
    EarlyDrop,
    /// The early decision on an ECN-capable arrival with `ecn`: queued,
    /// marked CE.
    Mark,
    /// avg at or above max_th (2 max_th when gentle).
    ForcedDrop,
    /// The hard limit: `limit_packets` already waiting.
    Overflow,
}

pub struct Red {
    pub params: RedParams,
    avg: f64,
    count: u64,
    count_bytes: u64,
    /// avg was already at or above min_th at the previous arrival.
    old: bool,
    rng: Rng,
}

impl Red {
    pub fn new(params: RedParams, rng: Rng) -> Self {
        Red { params, avg: 0.0, count: 0, count_bytes: 0, old: false, rng }
    }

    /// The average queue in packets, as of the last arrival.
    pub fn avg(&self) -> f64 {
        self.avg
    }

    /// An arrival of `size` bytes at `now` with `waiting` packets queued
    /// (not counting one in transmission); `idle_since` is when the queue
    /// last went idle (transmitter free, nothing waiting), if it still is.
    /// `ect`: the arrival is ECN-capable.
    pub fn on_arrival(&mut self, now: Time, waiting: usize, idle_since: Option<Time>, size: u32, ect: bool) -> RedVerdict {
        let p = &self.params;
        let keep = 1.0 - p.w_q;
        if let Some(t0) = idle_since {
            let m = (p.ptc * (now.saturating_sub(t0)) as f64 / NS_PER_S as f64).floor();
            self.avg *= if m < i32::MAX as f64 { keep.powi(m as i32) } else { 0.0 };
        }
        self.avg = keep * self.avg + p.w_q * waiting as f64;
        self.count += 1;
        self.count_bytes += size as u64;
        let mut verdict = RedVerdict::Accept;
        if self.avg >= p.min_th && waiting > 1 {
            let forced_at = if p.gentle { 2.0 * p.max_th } else { p.max_th };
            if self.avg >= forced_at {
                verdict = RedVerdict::ForcedDrop;
            } else if !self.old {
                self.count = 1;
                self.count_bytes = size as u64;
                self.old = true;
            } else {
                let pa = p.p_a(p.p_b(self.avg), self.count, self.count_bytes, size);
                if pa > 0.0 && self.rng.uniform() <= pa {
                    verdict = if p.ecn && ect { RedVerdict::Mark } else { RedVerdict::EarlyDrop };
                }
            }
        } else {
            self.old = false;
        }
        if p.limit_packets.is_some_and(|l| waiting >= l as usize) {
            verdict = RedVerdict::Overflow;
        }
        if verdict != RedVerdict::Accept {
            self.count = 0;
            self.count_bytes = 0;
        }
        verdict
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn cfg() -> RedCfg {
        RedCfg {
            limit_packets: Some(50),
            min_th: None,
            max_th: None,
            max_p: DEFAULT_MAX_P,
            w_q: None,
            gentle: true,
            wait: true,
            mean_pktsize: DEFAULT_MEAN_PKTSIZE,
            byte_mode: false,
            target_delay_ns: DEFAULT_TARGET_DELAY_NS,
            ecn: false,
        }
    }

    #[test]
    fn automatic_parameters_on_the_transat_link() {
        // 2 Mb/s, 500 B: ptc = 500 pkt/s; target queue 2.5 -> min_th 5;
        // RTT = 3 (0.255 + 0.002) = 0.771 s; w_q = 1 - exp(-1/3855).
        let p = RedParams::resolve(&cfg(), 2_000_000, 255_000_000);
        assert_eq!(p.ptc, 500.0);
        assert_eq!((p.min_th, p.max_th), (5.0, 15.0));
        assert!((p.w_q - 2.5937e-4).abs() < 1e-8, "{}", p.w_q);
        // 1 Gb/s, 1 ms: target queue 1250 -> min_th 625; RTT floor 0.1 s.
        let p = RedParams::resolve(&cfg(), 1_000_000_000, 1_000_000);
        assert_eq!((p.min_th, p.max_th), (625.0, 1875.0));
        assert!((p.w_q - (1.0 - (-1.0f64 / (10.0 * 0.1 * 250_000.0)).exp())).abs() < 1e-15);
    }

    fn red(min_th: f64, max_th: f64, w_q: f64, gentle: bool, wait: bool) -> Red {
        let c = RedCfg { min_th: Some(min_th), max_th: Some(max_th), w_q: Some(w_q), gentle, wait, ..cfg() };
        Red::new(RedParams::resolve(&c, 8_000_000, 0), Rng::new(1, 1))
    }

    #[test]
    fn average_is_the_ewma_of_the_queue_seen_by_arrivals() {
        // w_q = 0.5, busy queue (no idle): queue lengths 0, 2, 4, 4
        // avg: 0 -> 0; 0.5*0 + 0.5*2 = 1; 0.5 + 2 = 2.5; 1.25 + 2 = 3.25.
        let mut r = red(100.0, 200.0, 0.5, true, true);
        for (q, want) in [(0, 0.0), (2, 1.0), (4, 2.5), (4, 3.25)] {
            assert_eq!(r.on_arrival(0, q, None, 500, false), RedVerdict::Accept);
            assert_eq!(r.avg(), want);
        }
    }

    #[test]
    fn idle_time_decays_the_average_by_the_packets_the_link_could_have_sent() {
        // 8 Mb/s and 500 B: ptc = 2000 pkt/s. avg 3.25 (as above), then the
        // queue idles for 1.6 ms = 3.2 packet times -> m = 3:
        // 3.25 * 0.5^3 = 0.40625, then the arrival's own update with q = 0:
        // 0.203125.
        let mut r = red(100.0, 200.0, 0.5, true, true);
        for q in [0, 2, 4, 4] {
            r.on_arrival(0, q, None, 500, false);
        }
        r.on_arrival(10_000_000 + 1_600_000, 0, Some(10_000_000), 500, false);
        assert_eq!(r.avg(), 0.203125);
    }

    #[test]
    fn drop_probability_between_thresholds_with_count_uniformisation() {
        let p = RedParams::resolve(
            &RedCfg { min_th: Some(5.0), max_th: Some(15.0), ..cfg() },
            2_000_000,
            255_000_000,
        );
        // avg 10: p_b = 0.1 * 5/10 = 0.05.
        assert!((p.p_b(10.0) - 0.05).abs() < 1e-15);
        // wait: count p_b < 1 -> 0 (count 19); count 20 -> 0.05/(2-1) = 0.05;
        // count 30 -> 0.05 / 0.5 = 0.1; count 40 -> 1.
        assert_eq!(p.p_a(0.05, 19, 0, 1000), 0.0);
        assert!((p.p_a(0.05, 20, 0, 1000) - 0.05).abs() < 1e-15);
        assert!((p.p_a(0.05, 30, 0, 1000) - 0.1).abs() < 1e-15);
        assert_eq!(p.p_a(0.05, 40, 0, 1000), 1.0);
        // without wait: 0.05 / (1 - 10 * 0.05) = 0.1; count 20 -> 1.
        let nw = RedParams { wait: false, ..p };
        assert!((nw.p_a(0.05, 10, 0, 1000) - 0.1).abs() < 1e-15);
        assert_eq!(nw.p_a(0.05, 20, 0, 1000), 1.0);
        // byte mode: count = 2999 bytes / 500 = 5 (integer), p_b 0.1:
        // 0.1/(1 - 0.5) = 0.2, scaled by 250/500 -> 0.1.
        let b = RedParams { wait: false, byte_mode: true, ..p };
        assert!((b.p_a(0.1, 99, 2999, 250) - 0.1).abs() < 1e-15);
    }

    #[test]
    fn gentle_region_rises_from_max_p_to_one_at_twice_max_th() {
        let p = RedParams::resolve(&RedCfg { min_th: Some(5.0), max_th: Some(15.0), ..cfg() }, 2_000_000, 0);
        assert!((p.p_b(15.0) - 0.1).abs() < 1e-15);
        // avg 22.5: 0.1 + 0.9 * 7.5/15 = 0.55
        assert!((p.p_b(22.5) - 0.55).abs() < 1e-15);
        assert_eq!(p.p_b(30.0), 1.0);
        let harsh = RedParams { gentle: false, ..p };
        assert_eq!(harsh.p_b(15.0), 1.0);
    }

    #[test]
    fn forced_drops_above_the_average_limit_and_the_hard_limit() {
        // w_q = 1: avg = the queue seen. Gentle: forced at avg >= 2 max_th.
        let mut r = red(2.0, 4.0, 1.0, true, true);
        assert_eq!(r.on_arrival(0, 8, None, 500, false), RedVerdict::ForcedDrop);
        let mut r = red(2.0, 4.0, 1.0, false, true);
        assert_eq!(r.on_arrival(0, 4, None, 500, false), RedVerdict::ForcedDrop);
        // hard limit 50 with thresholds far above: overflow
        let mut r = red(100.0, 200.0, 0.002, true, true);
        assert_eq!(r.on_arrival(0, 49, None, 500, false), RedVerdict::Accept);
        assert_eq!(r.on_arrival(0, 50, None, 500, false), RedVerdict::Overflow);
    }

    #[test]
    fn first_arrival_above_min_th_only_starts_the_count_and_small_queues_are_spared() {
        // w_q = 1, min_th 2, max_th 100: avg = q.
        let mut r = red(2.0, 100.0, 1.0, true, false);
        // q = 1 -> avg 1 < min_th.
        assert_eq!(r.on_arrival(0, 1, None, 500, false), RedVerdict::Accept);
        assert!(!r.old);
        // q = 40: crosses min_th: count := 1, no drop possible.
        assert_eq!(r.on_arrival(0, 40, None, 500, false), RedVerdict::Accept);
        assert_eq!(r.count, 1);
        assert!(r.old);
        // next arrivals draw; p_b = 0.1 * 38/98 = 0.0388; without wait p_a
        // = p_b / (1 - count p_b) reaches 1 at count 26 (the 25th draw)
        let mut n = 0;
        while r.on_arrival(0, 40, None, 500, false) == RedVerdict::Accept {
            n += 1;
            assert!(n < 25, "p_a reaches 1 by count 26");
        }
        assert_eq!(r.count, 0);
        // q <= 1 never drops early, whatever the average
        let mut r = red(0.5, 1.0, 0.5, true, false);
        for _ in 0..100 {
            assert_eq!(r.on_arrival(0, 1, None, 500, false), RedVerdict::Accept);
        }
    }

    #[test]
    fn same_seed_same_drops() {
        let run = |seed| {
            let c = RedCfg { min_th: Some(2.0), max_th: Some(20.0), w_q: Some(0.2), ..cfg() };
            let mut r = Red::new(RedParams::resolve(&c, 8_000_000, 0), Rng::new(seed, 7));
            (0..2000).map(|i| r.on_arrival(i, (i % 25) as usize, None, 500, false)).collect::<Vec<_>>()
        };
        assert_eq!(run(3), run(3));
        assert!(run(3).contains(&RedVerdict::EarlyDrop));
        assert_ne!(run(3), run(4));
    }

    /// ECN: the same seed and arrivals give the same decisions, with every
    /// early drop of an ECT arrival turned into a mark (the count restarts
    /// as after a drop, so the sequences stay aligned); Not-ECT arrivals
    /// are still dropped; forced drops and overflows still drop ECT ones.
    #[test]
    fn ecn_marks_ect_arrivals_instead_of_early_drops_only() {
        let c = RedCfg { min_th: Some(2.0), max_th: Some(20.0), w_q: Some(0.2), ..cfg() };
        let run = |ecn: bool, ect: bool| {
            let mut r = Red::new(RedParams::resolve(&RedCfg { ecn, ..c }, 8_000_000, 0), Rng::new(3, 7));
            (0..2000).map(|i| r.on_arrival(i, (i % 25) as usize, None, 500, ect)).collect::<Vec<_>>()
        };
        let plain = run(false, true);
        let marked = run(true, true);
        let early = plain.iter().filter(|v| **v == RedVerdict::EarlyDrop).count();
        assert!(early > 0);
        assert_eq!(marked.iter().filter(|v| **v == RedVerdict::Mark).count(), early);
        assert!(!marked.contains(&RedVerdict::EarlyDrop));
        for (a, b) in plain.iter().zip(&marked) {
            let a = if *a == RedVerdict::EarlyDrop { RedVerdict::Mark } else { *a };
            assert_eq!(a, *b);
        }
        assert_eq!(run(true, false), plain, "Not-ECT arrivals are dropped as without ECN");
        // forced and overflow decisions drop an ECT arrival
        let mut r = Red::new(RedParams::resolve(&RedCfg { min_th: Some(2.0), max_th: Some(4.0), w_q: Some(1.0), ecn: true, ..cfg() }, 8_000_000, 0), Rng::new(1, 1));
        assert_eq!(r.on_arrival(0, 8, None, 500, true), RedVerdict::ForcedDrop);
        let mut r = Red::new(RedParams::resolve(&RedCfg { min_th: Some(100.0), max_th: Some(200.0), w_q: Some(0.002), ecn: true, ..cfg() }, 8_000_000, 0), Rng::new(1, 1));
        assert_eq!(r.on_arrival(0, 50, None, 500, true), RedVerdict::Overflow);
    }
}
