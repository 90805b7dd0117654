//! TCP Westwood+ (Grieco and Mascolo, "Performance evaluation and comparison
//! of Westwood+, New Reno, and Vegas TCP congestion control", ACM CCR 34(2),
//! 2004; Mascolo et al., MobiCom 2001 for Westwood).
//!
//! * Bandwidth estimate: once per RTT, the bytes acknowledged since the last
//!   sample over the time since then, b_k = d_k / Delta_k, low-pass filtered
//!   BWE_k = a x BWE_{k-1} + (1 - a) x b_k (a = `westwood_filter_gain`,
//!   0.9 in the paper; Linux uses 7/8). The first sample initialises BWE.
//! * Acknowledged bytes are counted from the ACK stream as Westwood does: a
//!   duplicate ACK counts one SMSS (a segment left the network), and the next
//!   cumulative ACK counts only what the duplicates have not already counted.
//! * After a loss detected by duplicate ACKs: ssthresh = max(BWE x RTTmin,
//!   2 SMSS); the recovery scheme then sets cwnd (NewReno: ssthresh + 3 SMSS,
//!   inflated, and at most ssthresh on exit; "cwnd = ssthresh if cwnd >
//!   ssthresh" in the paper's words).
//! * After an RTO: ssthresh = max(BWE x RTTmin, 2 SMSS), cwnd = 1 SMSS.
//! * Growth: Reno's (RFC 5681, `aimd`), congestion avoidance rounding as
//!   `ca_increment` says: by default RFC 5681's per-ACK formula, and under
//!   the `linux` profile byte counting, since Linux's `tcp_westwood` grows
//!   by `tcp_reno_cong_avoid` (one segment per window of segments
//!   acknowledged, whatever each ACK covers: behind delayed ACKs twice the
//!   per-ACK formula's growth).
//!
//! Choices:
//! * The sampling interval is the smoothed RTT at the time (the paper says
//!   "every RTT"; Linux uses the latest RTT sample with a 50 ms floor that
//!   only matters at jiffy resolution).
//! * RTTmin is the connection's lowest RTT sample, the handshake included.
//! * BWE x RTTmin is rounded to the byte.
//! * Until the first bandwidth sample, losses are handled as by Reno
//!   (ssthresh = FlightSize / 2).

use super::aimd::{Aimd, AimdCfg};
use super::{AckCtx, Action, CcParams, Env, Window, WindowController};
use crate::scenario::reader::{Res, Tbl};
use crate::tcp::profile::Profile;
use crate::sim::Time;

/// `westwood_filter_gain`: the weight of the previous estimate (0.9);
/// `ca_increment`: the Reno growth's rounding (as `aimd`'s).
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct WestwoodCfg {
    pub filter_gain: f64,
    pub growth: AimdCfg,
}

impl CcParams for WestwoodCfg {
    const KEYS: &'static [&'static str] = &["westwood_filter_gain", "ca_increment"];

    fn parse(t: &Tbl, profile: Profile) -> Res<Self> {
        let g = t.number("westwood_filter_gain", |x| (0.0..1.0).contains(&x), "a number in [0, 1), e.g. 0.9")?;
        // the default: byte counting under `linux` as Linux grows Westwood+;
        // elsewhere the integer per-ACK formula (ns-3's TcpWestwoodPlus too)
        let growth = match (t.get("ca_increment"), profile) {
            (None, Profile::Linux) => AimdCfg { exact_ca: true, per_byte: true },
            (None, _) => AimdCfg::default(),
            _ => AimdCfg::parse(t, profile)?,
        };
        Ok(WestwoodCfg { filter_gain: g.unwrap_or(0.9), growth })
    }
}

#[derive(Clone, Debug)]
pub struct Westwood {
    filter_gain: f64,
    aimd: Aimd,
    /// Bandwidth estimate, bytes per second.
    pub bwe: Option<f64>,
    bytes: u64,
    accounted: u64,
    interval_start: Option<Time>,
    rtt_min: Option<Time>,
}

impl Westwood {
    pub fn new(filter_gain: f64, aimd: Aimd) -> Self {
        Westwood { filter_gain, aimd, bwe: None, bytes: 0, accounted: 0, interval_start: None, rtt_min: None }
    }

    pub fn on_ack(&mut self, w: &Window, a: &AckCtx) {
        self.rtt_min = a.min_rtt;
        let Some(start) = self.interval_start else {
            self.interval_start = Some(a.now);
            return;
        };
        if a.dupack {
            self.bytes += w.smss;
            self.accounted += w.smss;
        } else {
            self.bytes += a.acked.saturating_sub(self.accounted);
            self.accounted = self.accounted.saturating_sub(a.acked);
        }
        let elapsed = a.now - start;
        if let Some(srtt) = a.srtt {
            if elapsed > 0 && elapsed as f64 >= srtt {
                let sample = self.bytes as f64 * 1e9 / elapsed as f64;
                let g = self.filter_gain;
                self.bwe = Some(self.bwe.map_or(sample, |b| g * b + (1.0 - g) * sample));
                self.bytes = 0;
                self.interval_start = Some(a.now);
            }
        }
    }

    pub fn grow(&mut self, w: &mut Window, a: &AckCtx) {
        self.aimd.on_ack(w, a.acked);
    }

    /// BWE x RTTmin, floor 2 SMSS; None before the first estimate.
    fn bdp_ssthresh(&self, w: &Window) -> Option<u64> {
        let (bwe, rtt) = (self.bwe?, self.rtt_min?);
        Some(((bwe * rtt as f64 / 1e9).round() as u64).max(2 * w.smss))
    }

    pub fn ssthresh_after_loss(&self, w: &Window, flight: u64) -> u64 {
        self.bdp_ssthresh(w).unwrap_or_else(|| Aimd::ssthresh_after_loss(w, flight))
    }

    pub fn on_rto(&mut self, w: &mut Window, flight: u64, first: bool) {
        match self.bdp_ssthresh(w) {
            Some(s) => w.ssthresh = s,
            None if first => w.ssthresh = Aimd::ssthresh_after_loss(w, flight),
            None => {}
        }
        w.cwnd = w.smss;
    }
}

impl WindowController for Westwood {
    type Params = WestwoodCfg;

    fn new(p: &WestwoodCfg, env: Env) -> Self {
        Westwood::new(p.filter_gain, <Aimd as WindowController>::new(&p.growth, env))
    }

    fn on_ack(&mut self, w: &mut Window, a: &AckCtx, _acts: &mut Vec<Action>) {
        Westwood::on_ack(self, w, a);
    }

    fn grow(&mut self, w: &mut Window, a: &AckCtx) {
        Westwood::grow(self, w, a);
    }

    fn ssthresh_after_loss(&mut self, w: &Window, flight: u64, _acts: &mut Vec<Action>) -> u64 {
        Westwood::ssthresh_after_loss(self, w, flight)
    }

    fn on_rto(&mut self, w: &mut Window, flight: u64, first: bool, _last: &AckCtx, _acts: &mut Vec<Action>) {
        Westwood::on_rto(self, w, flight, first);
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    const MS: u64 = 1_000_000;

    fn ack(now_ms: u64, acked: u64, dupack: bool) -> AckCtx {
        AckCtx { now: now_ms * MS, acked, dupack, srtt: Some(100.0 * MS as f64), min_rtt: Some(80 * MS), ..Default::default() }
    }

    /// SMSS 1000, SRTT 100 ms, RTTmin 80 ms.
    /// 0-100 ms: ten ACKs of 2000 bytes -> b1 = 20000 B / 0.1 s = 200 kB/s
    /// (the first sample sets BWE).
    /// 100-200 ms: ten ACKs of 1000 bytes -> b2 = 100 kB/s,
    /// BWE = 0.9 x 200k + 0.1 x 100k = 190 kB/s.
    /// 200-300 ms: five duplicate ACKs (5000 counted), then one cumulative
    /// ACK of 8000 bytes of which 3000 are new, then ACKs of 1000 bytes at
    /// 290 and 300 ms -> 10000 B -> b3 = 100 kB/s, BWE = 181 kB/s.
    /// ssthresh after a loss = 181000 x 0.08 = 14480 bytes.
    #[test]
    fn ssthresh_after_loss_from_a_known_ack_stream() {
        let mut ww = Westwood::new(0.9, Aimd { abc_limit: 1, carry: None, per_byte: false });
        let w = Window::new(30_000, 1 << 40, 1000);
        ww.on_ack(&w, &ack(0, 1000, false)); // starts the first interval
        for k in 1..=10 {
            ww.on_ack(&w, &ack(10 * k, 2000, false));
        }
        assert_eq!(ww.bwe, Some(200_000.0));
        for k in 11..=20 {
            ww.on_ack(&w, &ack(10 * k, 1000, false));
        }
        assert!((ww.bwe.unwrap() - 190_000.0).abs() < 1e-6);
        for k in 21..=25 {
            ww.on_ack(&w, &ack(10 * k, 0, true));
        }
        ww.on_ack(&w, &ack(280, 8000, false));
        ww.on_ack(&w, &ack(290, 1000, false));
        ww.on_ack(&w, &ack(300, 1000, false));
        assert!((ww.bwe.unwrap() - 181_000.0).abs() < 1e-6);
        assert_eq!(ww.ssthresh_after_loss(&w, 30_000), 14_480);
        let mut w2 = w;
        ww.on_rto(&mut w2, 30_000, true);
        assert_eq!((w2.ssthresh, w2.cwnd), (14_480, 1000));
    }

    /// In congestion avoidance behind delayed ACKs (2 SMSS each): the
    /// `linux` profile's byte counting adds one SMSS per window
    /// acknowledged, the per-ACK formula half of one.
    #[test]
    fn linux_growth_counts_bytes_behind_delayed_acks() {
        let grow = |growth: AimdCfg| {
            let env = Env { abc_limit: 1, tick_ns: 1, pacing: false, rng: crate::sim::rng::Rng::new(1, 0), dupthresh: 3 };
            let mut ww = <Westwood as WindowController>::new(&WestwoodCfg { filter_gain: 0.9, growth }, env);
            let mut w = Window::new(100_000, 50_000, 1000);
            for k in 0..50 {
                WindowController::grow(&mut ww, &mut w, &ack(k, 2000, false));
            }
            w.cwnd - 100_000
        };
        let linux = grow(AimdCfg { exact_ca: true, per_byte: true });
        let rfc = grow(AimdCfg::default());
        assert!((990..=1000).contains(&linux), "{linux}");
        // (the integer formula: 10 bytes an ACK, then 9 as cwnd passes 100,000)
        assert!((440..=500).contains(&rfc), "{rfc}");
    }

    #[test]
    fn before_any_estimate_reno_halving_and_floor() {
        let ww = Westwood::new(0.9, Aimd { abc_limit: 1, carry: None, per_byte: false });
        let w = Window::new(30_000, 1 << 40, 1000);
        assert_eq!(ww.ssthresh_after_loss(&w, 30_000), 15_000);
        let mut tiny = Westwood::new(0.9, Aimd { abc_limit: 1, carry: None, per_byte: false });
        tiny.bwe = Some(1000.0);
        tiny.rtt_min = Some(80 * MS);
        assert_eq!(tiny.ssthresh_after_loss(&w, 30_000), 2000);
    }
}
