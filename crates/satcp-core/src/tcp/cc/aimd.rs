//! RFC 5681 slow start and congestion avoidance (AIMD).
//!
//! * Slow start while cwnd < ssthresh: cwnd += min(N, L x SMSS) per ACK,
//!   N = bytes newly acknowledged, L = `abc_limit` (1 is RFC 5681; 2 is RFC
//!   3465's recommended limit).
//! * Congestion avoidance while cwnd >= ssthresh (RFC 5681 lets cwnd ==
//!   ssthresh be either; we take CA): cwnd += max(1, SMSS*SMSS/cwnd) per ACK,
//!   RFC 5681 Eq. 3 in integer bytes (as ns-3 does), or, with
//!   `ca_increment = "exact"` (the `ns2` profiles' default), the same with
//!   the remainder carried to the next ACK, so that cwnd grows by exactly
//!   one SMSS per cwnd of bytes acknowledged, as ns-2's floating-point
//!   `cwnd_ += 1 / cwnd_` does (the integer formula falls behind as cwnd
//!   grows: at 150 segments it adds 6 bytes where 6.67 are due); or, with
//!   `ca_increment = "bytes"` (the `linux` profile's default), by SMSS x
//!   N / cwnd, the remainder carried: one SMSS per cwnd of bytes
//!   acknowledged whatever each ACK covers (RFC 3465's byte counting;
//!   Linux's `tcp_cong_avoid_ai` counts the packets each ACK acknowledges),
//!   so a receiver that delays its ACKs does not halve the growth. Measured:
//!   the kernel's reno grew one segment a round trip in congestion
//!   avoidance behind delayed ACKs, satcp's per-ACK formula half a segment
//!   (docs/validation-linux.md). satcp counts bytes newly acknowledged,
//!   the kernel packets acknowledged or SACKed: the same outside recovery.
//!   `cc = "aimd"` and Westwood+ read it (Linux's `tcp_westwood` grows by
//!   `tcp_reno_cong_avoid`; its default there is "bytes" under `linux`
//!   only); Hybla's Reno phases keep the integer formula (Linux's Hybla
//!   increments per ACK too).
//! * After a loss: ssthresh = max(FlightSize / 2, 2 x SMSS) (RFC 5681 Eq. 4).
//! * Whether cwnd may grow while the sender is limited by the receiver's
//!   window or the application is the endpoint's `cwnd_validation` (on in
//!   the `rfc` and `linux` profiles, off in `ns2`), not the controller's.
//! * No parameters of its own (`cc = "aimd"`); the ABC limit is the general
//!   `abc_limit` key.

use super::{AckCtx, CcParams, Env, Window, WindowController};
use crate::scenario::reader::{Res, Tbl};
use crate::tcp::profile::Profile;

/// AIMD's one parameter: how congestion avoidance rounds
/// (`ca_increment`).
#[derive(Clone, Copy, Debug, Default, PartialEq)]
pub struct AimdCfg {
    pub exact_ca: bool,
    /// Congestion avoidance counts the bytes each ACK acknowledges.
    pub per_byte: bool,
}

impl CcParams for AimdCfg {
    const KEYS: &'static [&'static str] = &["ca_increment"];

    fn parse(t: &Tbl, profile: Profile) -> Res<Self> {
        let (exact_ca, per_byte) = match t.choice("ca_increment", &["rfc5681", "exact", "bytes"])? {
            Some(v) => (v != "rfc5681", v == "bytes"),
            None => match profile {
                Profile::Ns2 | Profile::Ns2_2003 => (true, false),
                Profile::Linux => (true, true),
                _ => (false, false),
            },
        };
        Ok(AimdCfg { exact_ca, per_byte })
    }
}

#[derive(Clone, Debug)]
pub struct Aimd {
    pub abc_limit: u32,
    /// The remainder of SMSS^2 / cwnd carried between ACKs, when exact.
    pub carry: Option<u64>,
    /// Congestion avoidance grows by SMSS x acked / cwnd (with `carry`).
    pub per_byte: bool,
}

impl WindowController for Aimd {
    type Params = AimdCfg;

    fn new(p: &AimdCfg, env: Env) -> Self {
        Aimd { abc_limit: env.abc_limit, carry: p.exact_ca.then_some(0), per_byte: p.per_byte }
    }

    fn grow(&mut self, w: &mut Window, a: &AckCtx) {
        Aimd::on_ack(self, w, a.acked);
    }
}

impl Aimd {
    pub fn on_ack(&mut self, w: &mut Window, acked: u64) {
        if acked == 0 {
            return;
        }
        if w.cwnd < w.ssthresh {
            w.cwnd += acked.min(self.abc_limit as u64 * w.smss);
        } else if let Some(carry) = &mut self.carry {
            let num = w.smss * if self.per_byte { acked } else { w.smss } + *carry;
            *carry = num % w.cwnd;
            w.cwnd += num / w.cwnd;
        } else {
            w.cwnd += (w.smss * w.smss / w.cwnd).max(1);
        }
    }

    pub fn ssthresh_after_loss(w: &Window, flight: u64) -> u64 {
        (flight / 2).max(2 * w.smss)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn slow_start_one_smss_per_ack_even_for_delayed_acks() {
        let mut a = Aimd { abc_limit: 1, carry: None, per_byte: false };
        let mut w = Window::new(2920, 65535, 1460);
        a.on_ack(&mut w, 2920); // a delayed ACK of two segments
        assert_eq!(w.cwnd, 4380);
        let mut b = Aimd { abc_limit: 2, carry: None, per_byte: false };
        let mut w2 = Window::new(2920, 65535, 1460);
        b.on_ack(&mut w2, 2920);
        assert_eq!(w2.cwnd, 5840);
    }

    #[test]
    fn congestion_avoidance_about_one_smss_per_window() {
        let mut a = Aimd { abc_limit: 1, carry: None, per_byte: false };
        let mut w = Window::new(14600, 14600, 1460);
        for _ in 0..10 {
            a.on_ack(&mut w, 1460);
        }
        // ten ACKs of 146 bytes each, slightly fewer as cwnd grows
        assert!(w.cwnd > 14600 + 1350 && w.cwnd <= 14600 + 1460, "{}", w.cwnd);
        assert_eq!(w.cwnd, 14600 + 146 + 144 + 143 + 141 + 140 + 139 + 137 + 136 + 135 + 134);
    }

    /// cwnd 150,000 bytes, SMSS 1000: SMSS^2 / cwnd = 6.67 bytes per ACK.
    /// RFC 5681 in integers adds 6 per ACK (18 after three); exact carries
    /// the remainder: 6 (carry 100,000), 1,100,000 / 150,006 = 7 (carry
    /// 49,958), 1,049,958 / 150,013 = 6: 19 after three, and one SMSS after
    /// 150 ACKs less what the growing cwnd takes.
    #[test]
    fn exact_increment_carries_the_remainder() {
        let mut a = Aimd { abc_limit: 1, carry: Some(0), per_byte: false };
        let mut w = Window::new(150_000, 100_000, 1000);
        for _ in 0..3 {
            a.on_ack(&mut w, 1000);
        }
        assert_eq!(w.cwnd, 150_019);
        let mut r = Aimd { abc_limit: 1, carry: None, per_byte: false };
        let mut v = Window::new(150_000, 100_000, 1000);
        for _ in 0..3 {
            r.on_ack(&mut v, 1000);
        }
        assert_eq!(v.cwnd, 150_018);
        let mut w = Window::new(150_000, 100_000, 1000);
        a.carry = Some(0);
        for _ in 0..150 {
            a.on_ack(&mut w, 1000);
        }
        assert!((150_990..=151_000).contains(&w.cwnd), "{}", w.cwnd);
    }

    #[test]
    fn ssthresh_half_flight_floor_two_smss() {
        let w = Window::new(100_000, 1 << 40, 1000);
        assert_eq!(Aimd::ssthresh_after_loss(&w, 50_000), 25_000);
        assert_eq!(Aimd::ssthresh_after_loss(&w, 3_000), 2_000);
    }

    /// Byte counting: one SMSS per cwnd of bytes acknowledged, whether the
    /// receiver ACKs every segment or every second one; the per-ACK
    /// formula grows half as fast behind delayed ACKs.
    #[test]
    fn byte_counting_grows_one_smss_per_window_behind_delayed_acks() {
        let grow = |per_byte: bool, carry: Option<u64>, ack: u64| {
            let mut a = Aimd { abc_limit: 1, carry, per_byte };
            let mut w = Window::new(100_000, 50_000, 1000);
            for _ in 0..100_000 / ack {
                a.on_ack(&mut w, ack);
            }
            w.cwnd - 100_000
        };
        // a window of 100 segments acknowledged (the window grows a little
        // on the way, so slightly under one SMSS)
        assert_eq!(grow(true, Some(0), 1000), grow(true, Some(0), 2000));
        assert!((990..=1000).contains(&grow(true, Some(0), 2000)), "{}", grow(true, Some(0), 2000));
        assert!((495..=500).contains(&grow(false, Some(0), 2000)), "{}", grow(false, Some(0), 2000));
    }
}
