//! RTT estimation and the retransmission timeout, RFC 6298, ns-2's
//! estimator (`rto_estimator = "ns2"`) or Linux's (`"linux"`).
//!
//! Linux (`tcp_rtt_estimator`, `tcp_set_rto`; the `linux` profile's): in
//! integers, SRTT with gain 1/8 and the mean deviation with gain 1/4, but
//! a sample below SRTT moves the deviation by only a 32nd, so an RTT that
//! falls (a queue draining) barely raises the timeout where RFC 6298's
//! RTTVAR grows with |SRTT - R|. The deviation's largest value over a
//! round trip (`mdev_max`, at least `rto_min`) raises RTTVAR at once and,
//! once snd_una passes the round's end, lowers it by a quarter of the
//! difference. RTO = SRTT + RTTVAR, rounded up to the jiffy (4 ms: HZ =
//! 250, the cross-check kernel's), at most `max_rto`. On the kernel
//! cross-check's BBR path without SACK the difference was 0.9 s against
//! 2.1 s from the last ACK to the timeout (docs/validation-linux.md).
//!
//! RFC 6298: SRTT/RTTVAR in f64 nanoseconds (the same operations in the same
//! order give the same bits on every run). RTO = SRTT + max(G, 4 RTTVAR),
//! then clamped to [min_rto, max_rto]. Each expiry doubles the RTO (capped
//! at max_rto); the backed-off value is kept until a new valid sample
//! arrives (Karn).
//!
//! ns-2 (`TcpAgent::rtt_update`, `rtt_timeout`, `rtt_backoff`, without the
//! timestamp option): a sample is the number of clock ticks (`tcpTick_` =
//! G) that began between the send and the ACK, at least one, on a clock
//! whose phase is random (`boot_time_`, uniform within a tick, drawn from
//! the flow's random stream: it decides races between the RTO and an ACK
//! even on a loss-free path, in ns-2 and here); SRTT and
//! RTTVAR are integers in ticks with 3 and 2 fraction bits, updated with
//! shifts (gains 1/8 and 1/4), and RTO = floor(SRTT + 4 RTTVAR) ticks with
//! no granularity term, at least min_rto and two ticks. The tick counting
//! keeps RTTVAR near a tick when the RTT is steady (samples alternate
//! between two tick counts), so ns-2's RTO stays a few ticks above SRTT where
//! RFC 6298's falls to SRTT + G. Not modelled: Newreno's and FACK's reset
//! of the backoff by a partial ACK that covers the timed segment without
//! taking its sample (`partialnewack`, `oldack`). More than three backoffs in a row clear
//! SRTT into RTTVAR (the next sample starts afresh), as ns-2 does.

use crate::sim::Time;

#[derive(Clone, Debug)]
pub struct RttEstimator {
    pub srtt: Option<f64>,
    /// The lowest sample so far (ns).
    pub min_rtt: Option<Time>,
    pub rttvar: f64,
    rto: u64,
    min_rto: u64,
    max_rto: u64,
    granularity: u64,
    /// ns-2's integer state, when that estimator is chosen.
    ns2: Option<Ns2State>,
    /// Linux's integer state, when that estimator is chosen.
    linux: Option<LinuxState>,
    /// ns-2's `boot_time_`: where between ticks the sender's clock began
    /// (ns-2 draws it uniformly in [0, tcpTick_) per agent).
    boot: u64,
}

/// Linux's `srtt_us` (x 8), `mdev_us`, `mdev_max_us` and `rttvar_us` (x 4),
/// in ns, and `rtt_seq`.
#[derive(Clone, Copy, Debug, Default)]
struct LinuxState {
    srtt8: i64,
    mdev4: i64,
    mdev_max4: i64,
    rttvar4: i64,
    rtt_seq: u64,
}

/// A jiffy of the Linux estimator's timer (HZ = 250).
const LINUX_JIFFY: u64 = 4_000_000;

/// ns-2's `t_srtt_` (ticks x 8), `t_rttvar_` (ticks x 4) and `t_backoff_`.
#[derive(Clone, Copy, Debug, Default)]
struct Ns2State {
    srtt8: i64,
    rttvar4: i64,
    backoff: u32,
}

impl RttEstimator {
    pub fn new(initial_rto: u64, min_rto: u64, max_rto: u64, granularity: u64) -> Self {
        debug_assert!(initial_rto <= max_rto, "the parser refuses initial_rto > max_rto");
        RttEstimator {
            srtt: None,
            min_rtt: None,
            rttvar: 0.0,
            rto: initial_rto,
            min_rto,
            max_rto,
            granularity,
            ns2: None,
            linux: None,
            boot: 0,
        }
    }

    /// Linux's estimator (`min_rto` is its `rto_min`).
    pub fn linux(initial_rto: u64, min_rto: u64, max_rto: u64) -> Self {
        let mut e = Self::new(initial_rto, min_rto, max_rto, 1);
        e.linux = Some(LinuxState::default());
        e
    }

    /// ns-2's estimator, with `granularity` as `tcpTick_`.
    pub fn ns2(initial_rto: u64, min_rto: u64, max_rto: u64, tick: u64) -> Self {
        let mut e = Self::new(initial_rto, min_rto, max_rto, tick.max(1));
        e.ns2 = Some(Ns2State { backoff: 1, ..Default::default() });
        e
    }

    /// The clock started `phase` ns (taken modulo a tick) before a tick
    /// (ns-2's `boot_time_`; 0 by default).
    pub fn set_clock_phase(&mut self, phase: u64) {
        self.boot = phase % self.granularity.max(1);
    }

    /// The current timeout, including any backoff.
    pub fn rto(&self) -> u64 {
        self.rto
    }

    /// RFC 6298 (2.2)/(2.3): fold in a measurement `r` (ns) taken at `now`;
    /// `una` and `nxt` are snd_una after the ACK and snd_nxt (Linux's
    /// estimator counts its rounds with them).
    pub fn sample(&mut self, r: Time, now: Time, una: u64, nxt: u64) {
        self.min_rtt = Some(self.min_rtt.map_or(r, |m| m.min(r)));
        if let Some(st) = self.linux.as_mut() {
            let rto_min = self.min_rto as i64;
            let r = r as i64;
            if st.srtt8 != 0 {
                let mut m = r - (st.srtt8 >> 3);
                st.srtt8 += m;
                if m < 0 {
                    m = -m - (st.mdev4 >> 2);
                    if m > 0 {
                        m >>= 3;
                    }
                } else {
                    m -= st.mdev4 >> 2;
                }
                st.mdev4 += m;
                if st.mdev4 > st.mdev_max4 {
                    st.mdev_max4 = st.mdev4;
                    st.rttvar4 = st.rttvar4.max(st.mdev_max4);
                }
                if una > st.rtt_seq {
                    if st.mdev_max4 < st.rttvar4 {
                        st.rttvar4 -= (st.rttvar4 - st.mdev_max4) >> 2;
                    }
                    st.rtt_seq = nxt;
                    st.mdev_max4 = rto_min;
                }
            } else {
                st.srtt8 = r << 3;
                st.mdev4 = r << 1;
                st.rttvar4 = st.mdev4.max(rto_min);
                st.mdev_max4 = st.rttvar4;
                st.rtt_seq = nxt;
            }
            st.srtt8 = st.srtt8.max(1);
            self.srtt = Some((st.srtt8 >> 3) as f64);
            self.rttvar = st.rttvar4 as f64 / 4.0;
            let raw = ((st.srtt8 >> 3) + st.rttvar4) as u64;
            self.rto = raw.div_ceil(LINUX_JIFFY).saturating_mul(LINUX_JIFFY).min(self.max_rto);
            return;
        }
        if let Some(st) = self.ns2.as_mut() {
            let tick = self.granularity;
            let (b, a) = (now + self.boot, now.saturating_sub(r) + self.boot);
            let ticks = ((b / tick) as i64 - (a / tick) as i64).max(1);
            if st.srtt8 != 0 {
                // ns-2 keeps delta in a short; it never comes near
                let mut delta = ticks - (st.srtt8 >> 3);
                st.srtt8 += delta;
                if st.srtt8 <= 0 {
                    st.srtt8 = 1;
                }
                delta = delta.abs() - (st.rttvar4 >> 2);
                st.rttvar4 += delta;
                if st.rttvar4 <= 0 {
                    st.rttvar4 = 1;
                }
            } else {
                st.srtt8 = ticks << 3;
                st.rttvar4 = ticks << 1;
            }
            st.backoff = 1;
            let t = tick as f64;
            self.srtt = Some((st.srtt8 as f64 / 8.0) * t);
            self.rttvar = (st.rttvar4 as f64 / 4.0) * t;
            let rtxcur = ((st.rttvar4 << 3) + st.srtt8) >> 3;
            self.rto = (rtxcur as u64 * tick).max(self.min_rto).max(2 * tick).min(self.max_rto);
            return;
        }
        let r = r as f64;
        match self.srtt {
            None => {
                self.srtt = Some(r);
                self.rttvar = r / 2.0;
            }
            Some(s) => {
                self.rttvar = 0.75 * self.rttvar + 0.25 * (s - r).abs();
                self.srtt = Some(0.875 * s + 0.125 * r);
            }
        }
        let raw = self.srtt.unwrap() + (self.granularity as f64).max(4.0 * self.rttvar);
        self.rto = (raw.ceil() as u64).clamp(self.min_rto, self.max_rto);
    }

    /// RFC 6298 (5.5): the timer expired.
    pub fn backoff(&mut self) {
        self.rto = self.rto.saturating_mul(2).min(self.max_rto);
        if let Some(st) = self.ns2.as_mut() {
            st.backoff = st.backoff.saturating_mul(2);
            if st.backoff > 8 {
                st.rttvar4 += st.srtt8 >> 3;
                st.srtt8 = 0;
            }
        }
    }

    /// RFC 6298 (5.7): the SYN was retransmitted and no sample exists when
    /// data transfer begins: use 3 s.
    pub fn reset_after_syn_loss(&mut self) {
        if self.srtt.is_none() {
            self.rto = 3_000_000_000u64.clamp(self.min_rto, self.max_rto);
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    const MS: u64 = 1_000_000;

    /// Linux by hand (rto_min 200 ms): a first sample of 500 ms gives
    /// RTTVAR = max(2 x 500, 200) = 1000 and RTO 1.5 s; samples falling to
    /// 400 ms move the deviation by a 32nd, RTTVAR decays a quarter of its
    /// excess over the round's largest deviation each round.
    #[test]
    fn linux_estimator_hand_worked() {
        let mut e = RttEstimator::linux(1000 * MS, 200 * MS, 120_000 * MS);
        e.sample(500 * MS, 0, 0, 10);
        assert_eq!(e.rto(), 1500 * MS);
        // same round (una 5 <= rtt_seq 10): m = -100 ms; |m| - mdev4/4
        // (250) = -150 < 0: mdev4 = 850 ms; srtt 487.5 ms
        e.sample(400 * MS, 0, 5, 20);
        assert_eq!(e.srtt, Some(487_500_000.0));
        assert_eq!(e.rto(), 1_488 * MS, "487.5 + 1000, up to the 4 ms jiffy");
        // the next round: mdev_max (1000) < rttvar? no: equal, unchanged;
        // mdev_max resets to rto_min
        e.sample(400 * MS, 0, 11, 30);
        let st = e.linux.unwrap();
        assert_eq!((st.rttvar4, st.mdev_max4, st.rtt_seq), (1000 * MS as i64, 200 * MS as i64, 30));
        // a falling RTT: RFC 6298's RTTVAR would follow |SRTT - R|; Linux's
        // deviation shrinks and the rounds take RTTVAR down to rto_min
        for k in 0..40u64 {
            e.sample(400 * MS, 0, 31 + 10 * k, 41 + 10 * k);
        }
        let st = e.linux.unwrap();
        assert!(st.rttvar4 < 210 * MS as i64, "{}", st.rttvar4);
        assert!(e.rto() <= 620 * MS && e.rto() >= 600 * MS, "{}", e.rto());
        e.backoff();
        assert!(e.rto() >= 1200 * MS);
    }

    #[test]
    fn first_and_second_sample_hand_worked() {
        let mut e = RttEstimator::new(1000 * MS, 200 * MS, 60_000 * MS, MS);
        e.sample(500 * MS, 0, 0, 0);
        // srtt 500, rttvar 250, rto = 500 + 1000 = 1500 ms
        assert_eq!(e.rto(), 1500 * MS);
        e.sample(600 * MS, 0, 0, 0);
        // rttvar = .75*250 + .25*100 = 212.5; srtt = 512.5; rto = 512.5 + 850 = 1362.5
        assert_eq!(e.rto(), 1_362_500_000);
        assert_eq!(e.srtt, Some(512.5 * MS as f64));
    }

    #[test]
    fn min_max_and_granularity() {
        let mut e = RttEstimator::new(3000 * MS, 1000 * MS, 64_000 * MS, 500 * MS);
        for _ in 0..50 {
            e.sample(100 * MS, 0, 0, 0); // rttvar -> 0: rto = 100 + G(500) = 600 -> min 1000
        }
        assert_eq!(e.rto(), 1000 * MS);
        let mut f = RttEstimator::new(3000 * MS, 1000 * MS, 64_000 * MS, 500 * MS);
        f.sample(100 * MS, 0, 0, 0); // 100 + max(500, 200) = 600 -> 1000
        assert_eq!(f.rto(), 1000 * MS);
    }

    #[test]
    fn backoff_doubles_to_cap_and_sample_resets() {
        let mut e = RttEstimator::new(1000 * MS, 1000 * MS, 60_000 * MS, MS);
        let seq: Vec<u64> = (0..8).map(|_| { e.backoff(); e.rto() / MS }).collect();
        assert_eq!(seq, vec![2000, 4000, 8000, 16000, 32000, 60000, 60000, 60000]);
        e.sample(500 * MS, 0, 0, 0);
        assert_eq!(e.rto(), 1500 * MS);
    }

    /// ns-2 by hand (tick 10 ms, min RTO 200 ms): a 595 ms round trip sent
    /// at 1.003 s and acked at 1.598 s crosses 59 tick boundaries; the next,
    /// sent at 2.008 s and acked at 2.603 s, crosses 60.
    #[test]
    fn ns2_ticks_and_integer_estimator_hand_worked() {
        let mut e = RttEstimator::ns2(3000 * MS, 200 * MS, 60_000 * MS, 10 * MS);
        e.sample(595 * MS, 1598 * MS, 0, 0);
        // srtt8 = 59 << 3 = 472, rttvar4 = 59 << 1 = 118; rto = (118*8 + 472) >> 3 = 177 ticks
        assert_eq!(e.rto(), 1770 * MS);
        e.sample(595 * MS, 2603 * MS, 0, 0);
        // delta = 60 - 59 = 1: srtt8 = 473; |1| - (118 >> 2 = 29) = -28: rttvar4 = 90;
        // rto = (720 + 473) >> 3 = 149 ticks
        assert_eq!(e.rto(), 1490 * MS);
        assert_eq!(e.srtt, Some(473.0 / 8.0 * 10.0 * MS as f64));
        // a steady 59-60 tick RTT keeps rttvar about a tick: rto = srtt + 4 rttvar
        for i in 0..200u64 {
            let at = 10_000 * MS + i * 1000 * MS + if i % 2 == 0 { 3 * MS } else { 8 * MS };
            e.sample(595 * MS, at + 595 * MS, 0, 0);
        }
        let rto_ms = e.rto() / MS;
        assert!((620..=660).contains(&rto_ms), "{rto_ms}");
        // a backoff doubles; a fourth in a row clears srtt into rttvar
        let r = e.rto();
        e.backoff();
        assert_eq!(e.rto(), 2 * r);
        for _ in 0..3 {
            e.backoff();
        }
        e.sample(600 * MS, 900_000 * MS, 0, 0);
        // afresh: srtt 60 ticks, rttvar 30: rto = 60 + 120 = 180 ticks
        assert_eq!(e.rto(), 1800 * MS);
    }
}
