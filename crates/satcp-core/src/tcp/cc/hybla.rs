//! TCP Hybla (Caini and Firrincieli, "TCP Hybla: a TCP enhancement for
//! heterogeneous networks", Int. J. Satell. Commun. Network. 22, 2004).
//!
//! Hybla makes window growth per unit time independent of the RTT by
//! scaling Reno's increments with rho = RTT / RTT0 (RTT0 = `hybla_rtt0`,
//! 25 ms in the paper):
//! * slow start: cwnd += (2^rho - 1) SMSS per ACK of one segment;
//! * congestion avoidance: cwnd += rho^2 SMSS^2 / cwnd per ACK;
//! * losses and timeouts as Reno (RFC 5681).
//!
//! Choices:
//! * rho = max(RTT / RTT0, 1) (the paper's rho >= 1 requirement, Linux's
//!   clamp), where RTT is the lowest SRTT seen so far (`hybla_rtt =
//!   "min_srtt"`, what Linux does: it recomputes rho only when SRTT reaches
//!   a new minimum) or the current SRTT (`"srtt"`, queueing delay
//!   included). Before any RTT sample rho = 1.
//! * In slow start the increment scales the bytes acknowledged as RFC 5681
//!   counts them (min(acked, L x SMSS)), so with rho = 1 Hybla is exactly
//!   Reno; in congestion avoidance it is per ACK, as Reno's.
//! * Increments are fractional: the fraction of a byte left over is carried
//!   to the next ACK, so no growth is lost to rounding and the result is
//!   deterministic.
//! * Linux's initial cwnd = rho and its cap of rho at 16 for the shift are
//!   not applied (rho is used as a real number); cwnd stops at `CWND_MAX`
//!   (2^48 bytes, far above any receive window), which slow start with a
//!   large rho reaches in one ACK (2^rho overflows at RTT > 1.6 s).

use super::{AckCtx, CcParams, Env, Window, WindowController, CWND_MAX};
use crate::scenario::parse::{Res, Tbl};

/// Which RTT Hybla's rho = RTT / RTT0 is computed from (`hybla_rtt`).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum HyblaRtt {
    /// The lowest smoothed RTT seen so far (what Linux does: rho is only
    /// recomputed when SRTT reaches a new minimum).
    MinSrtt,
    /// The current smoothed RTT (the paper's RTT, queueing included).
    Srtt,
}

/// Hybla's parameters: RTT0 (`hybla_rtt0`, 25 ms) and `hybla_rtt`.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct HyblaCfg {
    pub rtt0_ns: u64,
    pub rho_rtt: HyblaRtt,
}

impl CcParams for HyblaCfg {
    const KEYS: &'static [&'static str] = &["hybla_rtt0", "hybla_rtt"];

    fn parse(t: &Tbl) -> Res<Self> {
        Ok(HyblaCfg {
            rtt0_ns: t.duration_pos("hybla_rtt0")?.unwrap_or(25_000_000),
            rho_rtt: match t.choice("hybla_rtt", &["min_srtt", "srtt"])? {
                Some("srtt") => HyblaRtt::Srtt,
                _ => HyblaRtt::MinSrtt,
            },
        })
    }
}

#[derive(Clone, Debug)]
pub struct Hybla {
    rtt0_ns: f64,
    rho_rtt: HyblaRtt,
    abc_limit: u32,
    min_srtt: Option<f64>,
    /// Fraction of a byte carried between ACKs, in [0, 1).
    carry: f64,
}

impl Hybla {
    pub fn new(rtt0_ns: u64, rho_rtt: HyblaRtt, abc_limit: u32) -> Self {
        Hybla { rtt0_ns: rtt0_ns as f64, rho_rtt, abc_limit, min_srtt: None, carry: 0.0 }
    }

    /// rho for this ACK.
    pub fn rho(&mut self, a: &AckCtx) -> f64 {
        let Some(srtt) = a.srtt else { return 1.0 };
        let rtt = match self.rho_rtt {
            HyblaRtt::Srtt => srtt,
            HyblaRtt::MinSrtt => {
                let m = self.min_srtt.map_or(srtt, |m| m.min(srtt));
                self.min_srtt = Some(m);
                m
            }
        };
        (rtt / self.rtt0_ns).max(1.0)
    }

    pub fn grow(&mut self, w: &mut Window, a: &AckCtx) {
        if a.acked == 0 {
            return;
        }
        let rho = self.rho(a);
        let inc = if w.cwnd < w.ssthresh {
            (rho.exp2() - 1.0) * a.acked.min(self.abc_limit as u64 * w.smss) as f64
        } else {
            rho * rho * (w.smss * w.smss) as f64 / w.cwnd as f64
        };
        let total = self.carry + inc.min(CWND_MAX as f64);
        let whole = total.floor();
        self.carry = total - whole;
        w.cwnd = (w.cwnd + whole as u64).min(CWND_MAX);
    }
}

impl WindowController for Hybla {
    type Params = HyblaCfg;

    fn new(p: &HyblaCfg, env: Env) -> Self {
        Hybla::new(p.rtt0_ns, p.rho_rtt, env.abc_limit)
    }

    fn grow(&mut self, w: &mut Window, a: &AckCtx) {
        Hybla::grow(self, w, a);
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    const MS: f64 = 1e6;

    fn ack(srtt_ms: f64) -> AckCtx {
        AckCtx { acked: 1000, srtt: Some(srtt_ms * MS), ..Default::default() }
    }

    #[test]
    fn rho_is_rtt_over_rtt0_at_least_one() {
        let mut h = Hybla::new(25_000_000, HyblaRtt::Srtt, 1);
        assert_eq!(h.rho(&ack(250.0)), 10.0);
        assert_eq!(h.rho(&ack(60.0)), 2.4);
        assert_eq!(h.rho(&ack(10.0)), 1.0);
        assert_eq!(h.rho(&AckCtx::default()), 1.0);
        // min_srtt keeps the lowest SRTT: 600 then 300 then 450 ms
        let mut m = Hybla::new(25_000_000, HyblaRtt::MinSrtt, 1);
        assert_eq!(m.rho(&ack(600.0)), 24.0);
        assert_eq!(m.rho(&ack(300.0)), 12.0);
        assert_eq!(m.rho(&ack(450.0)), 12.0);
    }

    #[test]
    fn slow_start_adds_two_to_the_rho_minus_one_segments_per_ack() {
        // rho = 10: each ACK of one 1000-byte segment adds 1023 segments
        let mut h = Hybla::new(25_000_000, HyblaRtt::Srtt, 1);
        let mut w = Window::new(4000, u64::MAX / 4, 1000);
        h.grow(&mut w, &ack(250.0));
        assert_eq!(w.cwnd, 4000 + 1_023_000);
        // rho = 2.4: 2^2.4 - 1 = 4.27803... segments = 4278.03 bytes; the
        // 0.03 byte is carried
        let mut h = Hybla::new(25_000_000, HyblaRtt::Srtt, 1);
        let mut w = Window::new(4000, u64::MAX / 4, 1000);
        h.grow(&mut w, &ack(60.0));
        assert_eq!(w.cwnd, 4000 + 4278);
        assert!((h.carry - (2f64.powf(2.4) - 1.0) * 1000.0 + 4278.0).abs() < 1e-9);
    }

    #[test]
    fn congestion_avoidance_rho_squared_with_exact_carry() {
        // rho = 10, SMSS 1000, cwnd 300000: 100 x 10^6 / cwnd per ACK
        // ACK 1: 333.333 -> +333 (carry .333)
        // ACK 2: 10^8 / 300333 = 332.960 + .333 = 333.294 -> +333
        // ACK 3: 10^8 / 300666 = 332.595 + .294 = 332.889 -> +332
        let mut h = Hybla::new(25_000_000, HyblaRtt::Srtt, 1);
        let mut w = Window::new(300_000, 100_000, 1000);
        let mut exact = 0.0;
        for expect in [300_333u64, 300_666, 300_998] {
            exact += 1e8 / w.cwnd as f64;
            h.grow(&mut w, &ack(250.0));
            assert_eq!(w.cwnd, expect);
        }
        assert!(((w.cwnd - 300_000) as f64 + h.carry - exact).abs() < 1e-9);
    }

    #[test]
    fn huge_rho_saturates_at_the_cwnd_ceiling() {
        // RTT 1.4 s: rho = 56, 2^56 x 200 bytes overflows nothing but the
        // ceiling; RTT 60 s: 2^2400 is infinite in f64
        for srtt in [1400.0, 60_000.0] {
            let mut h = Hybla::new(25_000_000, HyblaRtt::Srtt, 1);
            let mut w = Window::new(200, u64::MAX / 4, 200);
            h.grow(&mut w, &AckCtx { acked: 200, srtt: Some(srtt * MS), ..Default::default() });
            assert_eq!(w.cwnd, CWND_MAX);
            h.grow(&mut w, &AckCtx { acked: 200, srtt: Some(srtt * MS), ..Default::default() });
            assert_eq!(w.cwnd, CWND_MAX);
            assert!(h.carry.is_finite());
        }
    }

    #[test]
    fn rho_one_is_reno() {
        let mut h = Hybla::new(25_000_000, HyblaRtt::Srtt, 1);
        let mut w = Window::new(2000, u64::MAX / 4, 1000);
        h.grow(&mut w, &AckCtx { acked: 2000, srtt: Some(20.0 * MS), ..Default::default() });
        assert_eq!(w.cwnd, 3000);
    }
}
