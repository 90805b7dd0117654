//! HyStart as Linux's CUBIC runs it (`tcp_cubic.c`, `hystart_update`; Ha
//! and Rhee, "Taming the elephants", 2008), with `cubic_hystart_style =
//! "linux"`. Unlike HyStart++ (`hystart.rs`) it leaves slow start at once
//! (ssthresh = cwnd) on either signal:
//!
//! * ACK train: ACKs that arrive within 2 ms of each other
//!   (`hystart_ack_delta_us`) extend the round's train; once the train
//!   spans more than (min RTT + 1 ms) / 2 since the round began, the pipe
//!   is judged full. (Linux adds `hystart_ack_delay`, min(1 ms, 64 KB at
//!   the pacing rate), 1 ms at the rates of a satellite path, and halves
//!   the sum when the flow is not paced by fq.)
//! * Delay: the lowest of the round's first 8 RTT samples
//!   (`HYSTART_MIN_SAMPLES`) exceeds the connection's lowest RTT by
//!   clamp(min RTT / 8, 4 ms, 16 ms) (`HYSTART_DELAY_THRESH`).
//!
//! Both look only while cwnd >= 16 segments (`hystart_low_window`) and in
//! slow start; a round begins when snd_una passes the snd_nxt of the last
//! round's start (`bictcp_hystart_reset`), counted from the first ACK
//! whatever the window. Linux runs the check on every
//! ACK with an RTT sample (`cubictcp_acked`), whether or not cwnd may grow
//! on it; so does this. Only the initial slow start uses it: a loss ends
//! it for good, as Linux's `found` stays set until the connection restarts.
//!
//! The `linux` profile's default. Measured against the kernel
//! (docs/validation-linux.md, captures of both ends): on 10 Mb/s, 250 ms
//! one way, a 400-packet queue, the ACK train ends slow start at cwnd 529,
//! before any loss, in the kernel and here (7.15 s for 5 MB, no
//! retransmission); at 300 ms with 500 packets, at 893 (IW 10) and 764
//! (IW 2) in both. The train exists because Linux's receiver ACKs every
//! segment while its window opens, and opens it in a step at the start of
//! each round trip (`tcp/receive_buffer.rs`); a round whose step is too
//! small for half a round trip of ACKs leaves the train short. The delay
//! signal alone would fire late on such a path (the first 8 samples of a
//! round are of packets sent at the start of a burst, which find the queue
//! empty until it stands across rounds).

use super::{AckCtx, Window};
use crate::sim::Time;

const ACK_DELTA: Time = 2_000_000;
const ACK_DELAY: Time = 1_000_000;
const MIN_SAMPLES: u32 = 8;
const LOW_WINDOW_SEGMENTS: u64 = 16;
const DELAY_MIN_THRESH: Time = 4_000_000;
const DELAY_MAX_THRESH: Time = 16_000_000;

/// Which signal ended slow start.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Found {
    AckTrain,
    Delay,
    /// A loss ended slow start first.
    Loss,
}

#[derive(Clone, Debug, Default)]
pub struct LinuxHyStart {
    pub found: Option<Found>,
    started: bool,
    round_start: Time,
    last_ack: Time,
    end_seq: u64,
    curr_rtt: Option<Time>,
    sample_cnt: u32,
    delay_min: Option<Time>,
}

impl LinuxHyStart {
    fn reset(&mut self, now: Time, snd_max: u64) {
        self.round_start = now;
        self.last_ack = now;
        self.end_seq = snd_max;
        self.curr_rtt = None;
        self.sample_cnt = 0;
    }

    /// Every ACK (Linux's `pkts_acked` hook).
    pub fn on_ack(&mut self, w: &mut Window, a: &AckCtx) {
        if self.found.is_some() {
            return;
        }
        if !self.started {
            self.started = true;
            self.reset(a.now, a.snd_max);
        }
        let Some(delay) = a.rtt.filter(|&r| r > 0) else { return };
        let delay_min = self.delay_min.map_or(delay, |m| m.min(delay));
        self.delay_min = Some(delay_min);
        if w.cwnd >= w.ssthresh {
            return;
        }
        // rounds are counted from the start; the checks wait for 16 segments
        if a.una > self.end_seq {
            self.reset(a.now, a.snd_max);
        }
        if w.cwnd < LOW_WINDOW_SEGMENTS * w.smss {
            return;
        }
        if a.now - self.last_ack <= ACK_DELTA {
            self.last_ack = a.now;
            if a.now - self.round_start > (delay_min + ACK_DELAY) / 2 {
                return self.exit(w, Found::AckTrain);
            }
        }
        self.curr_rtt = Some(self.curr_rtt.map_or(delay, |c| c.min(delay)));
        if self.sample_cnt < MIN_SAMPLES {
            self.sample_cnt += 1;
        } else if self.curr_rtt.unwrap() > delay_min + (delay_min / 8).clamp(DELAY_MIN_THRESH, DELAY_MAX_THRESH) {
            self.exit(w, Found::Delay);
        }
    }

    fn exit(&mut self, w: &mut Window, why: Found) {
        self.found = Some(why);
        w.ssthresh = w.cwnd;
    }

    /// A loss or timeout: slow start is over without HyStart.
    pub fn on_loss(&mut self) {
        self.found.get_or_insert(Found::Loss);
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    const MS: u64 = 1_000_000;

    fn ack(now: Time, una: u64, snd_max: u64, rtt_ms: u64) -> AckCtx {
        AckCtx { now, acked: 1000, rtt: Some(rtt_ms * MS), una, snd_max, ..Default::default() }
    }

    /// 100 ms path: a round's first 8 samples at 100 ms, the next round's
    /// at 117 ms (threshold clamp(100 / 8, 4, 16) = 12.5 ms): slow start ends on
    /// the ninth sample of that round (the first eight only collect).
    #[test]
    fn delay_signal_hand_worked() {
        let mut h = LinuxHyStart::default();
        let mut w = Window::new(20_000, u64::MAX / 4, 1000);
        // round 1: ACKs 10 ms apart (no train), end_seq = 40_000
        for i in 0..10u64 {
            h.on_ack(&mut w, &ack(i * 10 * MS, i * 1000, 40_000, 100));
        }
        assert_eq!(h.found, None);
        // round 2 begins when una passes 40_000; samples of 117 ms
        for i in 0..8u64 {
            h.on_ack(&mut w, &ack(200 * MS + i * 10 * MS, 41_000 + i * 1000, 80_000, 117));
            assert_eq!(h.found, None, "sample {i}");
        }
        h.on_ack(&mut w, &ack(300 * MS, 51_000, 80_000, 117));
        assert_eq!(h.found, Some(Found::Delay));
        assert_eq!(w.ssthresh, w.cwnd);
        // 112 ms would not have done it (100 + 12.5 is not exceeded)
        let mut h = LinuxHyStart::default();
        for i in 0..10u64 {
            h.on_ack(&mut w_fresh(), &ack(i * 10 * MS, i * 1000, 40_000, 100));
        }
        let mut w2 = w_fresh();
        for i in 0..20u64 {
            h.on_ack(&mut w2, &ack(200 * MS + i * 10 * MS, 41_000 + i * 1000, 80_000, 112));
        }
        assert_eq!(h.found, None);
    }

    fn w_fresh() -> Window {
        Window::new(20_000, u64::MAX / 4, 1000)
    }

    /// 100 ms path: ACKs 1 ms apart form a train; it ends slow start once
    /// it spans more than (100 + 1) / 2 = 50.5 ms from the round's start.
    #[test]
    fn ack_train_hand_worked() {
        let mut h = LinuxHyStart::default();
        let mut w = w_fresh();
        h.on_ack(&mut w, &ack(0, 0, 100_000, 100));
        for i in 1..=50u64 {
            h.on_ack(&mut w, &ack(i * MS, i * 1000, 100_000, 100));
            assert_eq!(h.found, None, "ack {i}");
        }
        h.on_ack(&mut w, &ack(51 * MS, 51_000, 100_000, 100));
        assert_eq!(h.found, Some(Found::AckTrain));
        // a gap of more than 2 ms breaks the train: no exit
        let mut h = LinuxHyStart::default();
        let mut w = w_fresh();
        for i in 0..60u64 {
            h.on_ack(&mut w, &ack(i * 3 * MS, i * 1000, 100_000, 100));
        }
        assert_eq!(h.found, None);
    }

    #[test]
    fn below_sixteen_segments_nothing_is_checked() {
        let mut h = LinuxHyStart::default();
        let mut w = Window::new(15_000, u64::MAX / 4, 1000);
        for i in 0..100u64 {
            h.on_ack(&mut w, &ack(i * MS, i * 1000, 200_000, 100 + i));
        }
        assert_eq!(h.found, None);
    }
}
