//! HyStart++ (RFC 9406): leave slow start on a rise in the per-round minimum
//! RTT instead of on the first loss, through a Conservative Slow Start (CSS)
//! phase. Used by CUBIC when `cubic_hystart = true`.
//!
//! Per round (a round ends when the cumulative ACK reaches the highest
//! sequence sent when it began): the round's minimum RTT over its samples.
//! In slow start, once at least N_RTT_SAMPLE (8) samples are in and both
//! this and the last round's minimum exist, a rise of at least
//! clamp(lastRoundMinRTT / 8, 4 ms, 16 ms) enters CSS. In CSS cwnd grows by
//! a quarter of slow start's increment; a round minimum below the CSS
//! baseline returns to slow start; after CSS_ROUNDS (5) rounds, ssthresh =
//! cwnd and congestion avoidance begins.
//!
//! Choices:
//! * Only the connection's initial slow start uses HyStart++ (RFC 9406
//!   section 4.3 recommends standard slow start after an RTO); a loss or RTO
//!   in either phase ends it.
//! * Slow-start growth per ACK is min(acked, L x SMSS) with the flow's
//!   `abc_limit` L (RFC 9406 uses the same L; no pacing-dependent L).

use super::{AckCtx, Window};
use crate::sim::Time;

const N_RTT_SAMPLE: u32 = 8;
const MIN_RTT_THRESH: Time = 4_000_000;
const MAX_RTT_THRESH: Time = 16_000_000;
const MIN_RTT_DIVISOR: Time = 8;
const CSS_GROWTH_DIVISOR: u64 = 4;
const CSS_ROUNDS: u32 = 5;

#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Phase {
    SlowStart,
    ConservativeSlowStart,
    /// HyStart++ has handed over to congestion avoidance (or a loss ended
    /// its slow start).
    Done,
}

#[derive(Clone, Debug)]
pub struct HyStart {
    pub phase: Phase,
    last_round_min: Option<Time>,
    round_min: Option<Time>,
    samples: u32,
    window_end: u64,
    css_baseline: Option<Time>,
    css_rounds: u32,
}

impl Default for HyStart {
    fn default() -> Self {
        HyStart {
            phase: Phase::SlowStart,
            last_round_min: None,
            round_min: None,
            samples: 0,
            window_end: 0,
            css_baseline: None,
            css_rounds: 0,
        }
    }
}

impl HyStart {
    /// A new ACK while cwnd < ssthresh and the phase is not Done: grow cwnd
    /// by `growth` bytes (slow start's increment) as the phase allows.
    pub fn on_ack(&mut self, w: &mut Window, a: &AckCtx, growth: u64) {
        if a.una >= self.window_end {
            self.last_round_min = self.round_min;
            self.round_min = None;
            self.samples = 0;
            self.window_end = a.snd_max;
            if self.phase == Phase::ConservativeSlowStart {
                self.css_rounds += 1;
                if self.css_rounds >= CSS_ROUNDS {
                    w.ssthresh = w.cwnd;
                    self.phase = Phase::Done;
                    return;
                }
            }
        }
        if let Some(r) = a.rtt {
            self.round_min = Some(self.round_min.map_or(r, |m| m.min(r)));
            self.samples += 1;
        }
        match self.phase {
            Phase::SlowStart => {
                w.cwnd += growth;
                if let (true, Some(last), Some(cur)) = (self.samples >= N_RTT_SAMPLE, self.last_round_min, self.round_min) {
                    let thresh = (last / MIN_RTT_DIVISOR).clamp(MIN_RTT_THRESH, MAX_RTT_THRESH);
                    if cur >= last + thresh {
                        self.css_baseline = Some(cur);
                        self.css_rounds = 0;
                        self.phase = Phase::ConservativeSlowStart;
                    }
                }
            }
            Phase::ConservativeSlowStart => {
                w.cwnd += growth / CSS_GROWTH_DIVISOR;
                if let (true, Some(cur), Some(base)) = (self.samples >= N_RTT_SAMPLE, self.round_min, self.css_baseline) {
                    if cur < base {
                        self.css_baseline = None;
                        self.phase = Phase::SlowStart;
                    }
                }
            }
            Phase::Done => {}
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    const MS: u64 = 1_000_000;

    /// One round of `n` ACKs of 1000 bytes with RTT `rtt_ms`; the round ends
    /// at `end` and the next one at `next_end`.
    fn round(h: &mut HyStart, w: &mut Window, end: u64, next_end: u64, n: u64, rtt_ms: u64) {
        for i in 0..n {
            let una = if i == 0 { end } else { end + i };
            h.on_ack(w, &AckCtx { acked: 1000, rtt: Some(rtt_ms * MS), una, snd_max: next_end, ..Default::default() }, 1000);
        }
    }

    #[test]
    fn delay_rise_enters_css_then_congestion_avoidance_after_five_rounds() {
        let mut h = HyStart::default();
        let mut w = Window::new(10_000, u64::MAX / 4, 1000);
        // round 1: RTT 100 ms; round 2: 104 ms (< 100 + 12.5 ms): slow start
        round(&mut h, &mut w, 0, 100, 10, 100);
        round(&mut h, &mut w, 100, 200, 10, 104);
        assert_eq!((h.phase, w.cwnd), (Phase::SlowStart, 30_000));
        // round 3: 113 ms >= 104 + 13 ms? no (117 needed); round 4: 130 ms
        // >= 113 + 14.125: CSS from the 8th sample on
        round(&mut h, &mut w, 200, 300, 10, 113);
        assert_eq!(h.phase, Phase::SlowStart);
        round(&mut h, &mut w, 300, 400, 10, 130);
        assert_eq!(h.phase, Phase::ConservativeSlowStart);
        // 8 ACKs at 1000 bytes, then 2 at 250
        assert_eq!(w.cwnd, 40_000 + 8_000 + 500);
        // five more rounds without the RTT falling: ssthresh = cwnd at the
        // start of the fifth
        for k in 0..5 {
            round(&mut h, &mut w, 400 + 100 * k, 500 + 100 * k, 10, 130);
        }
        assert_eq!(h.phase, Phase::Done);
        // 4 full CSS rounds of 10 x 250 bytes, the fifth ends at its first ACK
        assert_eq!(w.ssthresh, 48_500 + 4 * 2_500);
    }

    #[test]
    fn rtt_falling_below_the_baseline_resumes_slow_start() {
        let mut h = HyStart::default();
        let mut w = Window::new(10_000, u64::MAX / 4, 1000);
        round(&mut h, &mut w, 0, 100, 10, 100);
        round(&mut h, &mut w, 100, 200, 10, 120);
        assert_eq!(h.phase, Phase::ConservativeSlowStart);
        round(&mut h, &mut w, 200, 300, 10, 110);
        assert_eq!(h.phase, Phase::SlowStart);
    }
}
