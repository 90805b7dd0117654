//! BBR v1 congestion control (Cardwell et al., "BBR: Congestion-Based
//! Congestion Control", ACM Queue 14(5), 2016;
//! draft-cardwell-iccrg-bbr-congestion-control-00; Linux tcp_bbr.c v1).
//!
//! The model: BtlBw = windowed maximum of delivery-rate samples over the
//! last 10 round trips; RTprop = minimum RTT, refreshed when older than
//! `bbr_probe_rtt_interval` (10 s). Round trips are counted by delivered
//! bytes (a round ends when a segment sent after the previous round ended is
//! delivered). BDP = BtlBw x RTprop.
//!
//! The states:
//! * Startup: pacing and cwnd gain 2/ln 2; the pipe is full when BtlBw grew
//!   by less than 25% in 3 consecutive non-app-limited rounds.
//! * Drain: pacing gain ln 2 / 2 (cwnd gain 2/ln 2) until inflight <= BDP.
//! * ProbeBW: cwnd gain `bbr_cwnd_gain` (2); pacing gain cycles through
//!   [5/4, 3/4, 1, 1, 1, 1, 1, 1], each phase lasting RTprop; the 5/4 phase
//!   also waits until inflight reaches 5/4 BDP, the 3/4 phase ends early once
//!   inflight <= BDP. The first phase is drawn at random from all but 3/4.
//! * ProbeRTT: entered when RTprop has not been refreshed for the interval;
//!   cwnd = 4 SMSS until inflight <= 4 SMSS, then held for
//!   `bbr_probe_rtt_duration` (200 ms) and at least one round; then RTprop's
//!   timestamp is refreshed, the cwnd saved on entry restored, and BBR
//!   returns to ProbeBW (or Startup if the pipe was never filled).
//!
//! Control: pacing rate = pacing_gain x BtlBw (before the first bandwidth
//! sample: 2/ln 2 x cwnd / SRTT; in Startup it never decreases); cwnd target
//! = cwnd_gain x BDP + 3 SMSS; cwnd grows by the bytes delivered up to the
//! target (unbounded before the pipe is full while below target or before an
//! initial window has been delivered), never below 4 SMSS.
//!
//! Loss: BBR does not react to loss by rate reduction. On entering fast
//! recovery it saves cwnd and applies packet conservation for one round
//! (cwnd = max(cwnd, inflight + delivered)); on leaving recovery the saved
//! cwnd is restored. An RTO sets cwnd to 1 SMSS (saving cwnd), grows as
//! above, and restores the saved cwnd when the repair ends.
//!
//! Choices:
//! * The bandwidth filter is an exact sliding-window maximum over rounds
//!   (Linux approximates it with Nichols' three-sample min-max). As in
//!   Linux, it ages only when a sample enters it: app-limited samples below
//!   the maximum are left out and leave the estimate as it was (a repair
//!   after all data has been sent keeps the bandwidth measured before).
//! * "Inflight" is the pipe, as Linux's BBR reads `tcp_packets_in_flight`:
//!   bytes sent less those SACKed and those deemed lost (RFC 6675's pipe,
//!   RACK's marks included); without SACK, less the segments duplicate
//!   ACKs reported (Linux's Reno emulation, `Sender::reno_sacked`); after a
//!   timeout, less what the go-back-N has not resent yet. With un-SACKed
//!   bytes instead, a burst of losses (Startup's overshoot at PER 1e-2 in
//!   the ns-3 cross-check) kept ProbeRTT's 4-segment window until every
//!   hole was repaired, 200 s, and without SACK ProbeRTT never ended. The
//!   ProbeBW phase checks use it after the ACK, and the 5/4 phase does not
//!   end on losses.
//! * The send quantum is one segment (no TSO), so the cwnd quanta are 3 SMSS.
//! * The controller first runs on the first ACK of data, so the initial
//!   window leaves unpaced (Linux paces it from the handshake RTT).
//! * No idle-restart handling and no long-term (policer) bandwidth mode, and
//!   no pacing margin (Linux paces 1% below the rate).
//! * RTprop is replaced by a strictly lower sample or when expired (Linux);
//!   the draft's "<=" would let a path whose minimum recurs exactly (a
//!   clean simulated path) never enter ProbeRTT.
//! * The ssthresh BBR returns on a loss is the conservation window; BBR does
//!   not otherwise use ssthresh.

use super::{AckCtx, Action, CcParams, Env, Window, WindowController};
use crate::scenario::parse::{Res, Tbl};
use crate::tcp::profile::Profile;
use crate::sim::{Rng, Time};
use std::collections::VecDeque;

/// BBR's parameters: the ProbeBW cwnd gain (`bbr_cwnd_gain`, 2), how long
/// an RTprop lasts (`bbr_probe_rtt_interval`, 10 s) and how long ProbeRTT
/// holds (`bbr_probe_rtt_duration`, 200 ms).
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct BbrCfg {
    pub cwnd_gain: f64,
    pub probe_rtt_interval_ns: u64,
    pub probe_rtt_duration_ns: u64,
}

impl CcParams for BbrCfg {
    const KEYS: &'static [&'static str] = &["bbr_cwnd_gain", "bbr_probe_rtt_interval", "bbr_probe_rtt_duration"];

    fn parse(t: &Tbl, _profile: Profile) -> Res<Self> {
        let interval = t.duration_pos("bbr_probe_rtt_interval")?.unwrap_or(10_000_000_000);
        let duration = t.duration_pos("bbr_probe_rtt_duration")?.unwrap_or(200_000_000);
        if duration >= interval {
            return Err(t.bad(
                "bbr_probe_rtt_duration",
                format!("a duration > 0 and shorter than bbr_probe_rtt_interval ({} ns)", interval),
            ));
        }
        Ok(BbrCfg {
            cwnd_gain: t.number("bbr_cwnd_gain", |x| (1.0..=16.0).contains(&x), "a number in [1, 16], e.g. 2")?.unwrap_or(2.0),
            probe_rtt_interval_ns: interval,
            probe_rtt_duration_ns: duration,
        })
    }
}

/// 2 / ln 2: the smallest gain that doubles the delivery rate each round.
pub const HIGH_GAIN: f64 = 2.885_390_081_777_927;
const PACING_GAIN_CYCLE: [f64; 8] = [1.25, 0.75, 1.0, 1.0, 1.0, 1.0, 1.0, 1.0];
const BTLBW_FILTER_ROUNDS: u64 = 10;
const FULL_BW_GROWTH: f64 = 1.25;
const FULL_BW_ROUNDS: u32 = 3;
const MIN_CWND_SEGMENTS: u64 = 4;
const QUANTA_SEGMENTS: u64 = 3;

#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Mode {
    Startup,
    Drain,
    ProbeBw,
    ProbeRtt,
}

/// Sliding-window maximum of (round, bit/s) samples.
#[derive(Clone, Debug, Default)]
struct MaxFilter {
    q: VecDeque<(u64, f64)>,
}

impl MaxFilter {
    fn update(&mut self, round: u64, v: f64) {
        while self.q.back().is_some_and(|&(_, b)| b <= v) {
            self.q.pop_back();
        }
        self.q.push_back((round, v));
        while self.q.front().is_some_and(|&(r, _)| r + BTLBW_FILTER_ROUNDS <= round) {
            self.q.pop_front();
        }
    }

    fn max(&self) -> f64 {
        self.q.front().map_or(0.0, |&(_, v)| v)
    }
}

#[derive(Clone, Debug)]
pub struct Bbr {
    pub mode: Mode,
    probe_bw_cwnd_gain: f64,
    probe_rtt_interval: Time,
    probe_rtt_duration: Time,
    rng: Rng,
    btl_bw: MaxFilter,
    pub rt_prop: Option<Time>,
    rt_prop_stamp: Time,
    pub round_count: u64,
    next_round_delivered: u64,
    round_start: bool,
    pub filled_pipe: bool,
    full_bw: f64,
    full_bw_count: u32,
    pub pacing_gain: f64,
    pub cwnd_gain: f64,
    pub cycle_index: usize,
    cycle_stamp: Time,
    probe_rtt_done: Option<Time>,
    probe_rtt_round_done: bool,
    prior_cwnd: u64,
    packet_conservation: bool,
    /// Repairing after an RTO: restore `prior_cwnd` when it ends.
    rto_repair: bool,
    initial_cwnd: Option<u64>,
    delivered: u64,
    last_inflight: u64,
    last_delivered_now: u64,
}

impl Bbr {
    pub fn new(cwnd_gain: f64, probe_rtt_interval: Time, probe_rtt_duration: Time, rng: Rng) -> Self {
        Bbr {
            mode: Mode::Startup,
            probe_bw_cwnd_gain: cwnd_gain,
            probe_rtt_interval,
            probe_rtt_duration,
            rng,
            btl_bw: MaxFilter::default(),
            rt_prop: None,
            rt_prop_stamp: 0,
            round_count: 0,
            next_round_delivered: 0,
            round_start: false,
            filled_pipe: false,
            full_bw: 0.0,
            full_bw_count: 0,
            pacing_gain: HIGH_GAIN,
            cwnd_gain: HIGH_GAIN,
            cycle_index: 0,
            cycle_stamp: 0,
            probe_rtt_done: None,
            probe_rtt_round_done: false,
            prior_cwnd: 0,
            packet_conservation: false,
            rto_repair: false,
            initial_cwnd: None,
            delivered: 0,
            last_inflight: 0,
            last_delivered_now: 0,
        }
    }

    pub fn set_rng(&mut self, rng: Rng) {
        self.rng = rng;
    }

    /// The bottleneck bandwidth estimate, bit/s.
    pub fn btl_bw(&self) -> f64 {
        self.btl_bw.max()
    }

    /// gain x BDP + quanta, bytes (the initial window before any estimate).
    fn inflight(&self, gain: f64, w: &Window) -> u64 {
        match self.rt_prop {
            Some(rt) if self.btl_bw() > 0.0 => {
                let bdp = self.btl_bw() * rt as f64 / 8e9;
                (gain * bdp) as u64 + QUANTA_SEGMENTS * w.smss
            }
            _ => self.initial_cwnd.unwrap_or(w.cwnd),
        }
    }

    pub fn on_ack(&mut self, w: &mut Window, a: &AckCtx) {
        self.initial_cwnd.get_or_insert(w.cwnd);
        let newly = a.delivered - self.delivered;
        self.delivered = a.delivered;
        self.last_inflight = a.pipe;
        self.last_delivered_now = newly;
        if self.rto_repair && !a.recovering {
            self.rto_repair = false;
            w.cwnd = w.cwnd.max(self.prior_cwnd);
        }
        self.update_round_and_bw(a);
        if self.mode == Mode::ProbeBw && self.should_advance_cycle(w, a) {
            self.advance_cycle(a.now);
        }
        self.check_full_pipe(a);
        self.check_drain(w, a);
        self.update_rt_prop(w, a);
        self.set_pacing_rate(w, a);
        self.set_cwnd(w, a, newly);
    }

    fn update_round_and_bw(&mut self, a: &AckCtx) {
        self.round_start = false;
        let Some(rs) = a.rate else { return };
        if rs.prior_delivered >= self.next_round_delivered {
            self.next_round_delivered = a.delivered;
            self.round_count += 1;
            self.round_start = true;
            self.packet_conservation = false;
        }
        let bw = rs.bps();
        if !rs.app_limited || bw >= self.btl_bw() {
            self.btl_bw.update(self.round_count, bw);
        }
    }

    fn should_advance_cycle(&self, w: &Window, a: &AckCtx) -> bool {
        let full_length = self.rt_prop.is_some_and(|rt| a.now - self.cycle_stamp > rt);
        if self.pacing_gain > 1.0 {
            full_length && a.pipe >= self.inflight(self.pacing_gain, w)
        } else if self.pacing_gain < 1.0 {
            full_length || a.pipe <= self.inflight(1.0, w)
        } else {
            full_length
        }
    }

    fn advance_cycle(&mut self, now: Time) {
        self.cycle_index = (self.cycle_index + 1) % PACING_GAIN_CYCLE.len();
        self.cycle_stamp = now;
        self.pacing_gain = PACING_GAIN_CYCLE[self.cycle_index];
    }

    fn enter_probe_bw(&mut self, now: Time) {
        self.mode = Mode::ProbeBw;
        self.pacing_gain = 1.0;
        self.cwnd_gain = self.probe_bw_cwnd_gain;
        // a random phase other than the 3/4 one: index 1..=7 then advance
        let r = (self.rng.next_u64() % 7) as usize;
        self.cycle_index = PACING_GAIN_CYCLE.len() - 1 - r;
        self.advance_cycle(now);
    }

    fn check_full_pipe(&mut self, a: &AckCtx) {
        let app_limited = a.rate.is_none_or(|r| r.app_limited);
        if self.filled_pipe || !self.round_start || app_limited {
            return;
        }
        if self.btl_bw() >= self.full_bw * FULL_BW_GROWTH {
            self.full_bw = self.btl_bw();
            self.full_bw_count = 0;
            return;
        }
        self.full_bw_count += 1;
        if self.full_bw_count >= FULL_BW_ROUNDS {
            self.filled_pipe = true;
        }
    }

    fn check_drain(&mut self, w: &Window, a: &AckCtx) {
        if self.mode == Mode::Startup && self.filled_pipe {
            self.mode = Mode::Drain;
            self.pacing_gain = 1.0 / HIGH_GAIN;
            self.cwnd_gain = HIGH_GAIN;
        }
        if self.mode == Mode::Drain && a.pipe <= self.inflight(1.0, w) {
            self.enter_probe_bw(a.now);
        }
    }

    fn update_rt_prop(&mut self, w: &mut Window, a: &AckCtx) {
        let expired = a.now > self.rt_prop_stamp + self.probe_rtt_interval;
        let sample = a.rtt.or(if self.rt_prop.is_none() { a.min_rtt } else { None });
        if let Some(r) = sample {
            if self.rt_prop.is_none_or(|p| r < p) || expired {
                self.rt_prop = Some(r);
                self.rt_prop_stamp = a.now;
            }
        }
        if self.mode != Mode::ProbeRtt && expired {
            self.mode = Mode::ProbeRtt;
            self.pacing_gain = 1.0;
            self.cwnd_gain = 1.0;
            self.save_cwnd(w);
            self.probe_rtt_done = None;
        }
        if self.mode == Mode::ProbeRtt {
            self.handle_probe_rtt(w, a);
        }
    }

    fn handle_probe_rtt(&mut self, w: &mut Window, a: &AckCtx) {
        match self.probe_rtt_done {
            None if a.pipe <= MIN_CWND_SEGMENTS * w.smss => {
                self.probe_rtt_done = Some(a.now + self.probe_rtt_duration);
                self.probe_rtt_round_done = false;
                self.next_round_delivered = a.delivered;
            }
            None => {}
            Some(done) => {
                if self.round_start {
                    self.probe_rtt_round_done = true;
                }
                if self.probe_rtt_round_done && a.now >= done {
                    self.rt_prop_stamp = a.now;
                    w.cwnd = w.cwnd.max(self.prior_cwnd);
                    if self.filled_pipe {
                        self.enter_probe_bw(a.now);
                    } else {
                        self.mode = Mode::Startup;
                        self.pacing_gain = HIGH_GAIN;
                        self.cwnd_gain = HIGH_GAIN;
                    }
                }
            }
        }
    }

    fn save_cwnd(&mut self, w: &Window) {
        self.prior_cwnd = if !self.packet_conservation && !self.rto_repair && self.mode != Mode::ProbeRtt {
            w.cwnd
        } else {
            self.prior_cwnd.max(w.cwnd)
        };
    }

    fn set_pacing_rate(&mut self, w: &mut Window, a: &AckCtx) {
        let bw = self.btl_bw();
        if bw == 0.0 {
            if w.pacing_bps == 0 {
                let rtt = a.srtt.or(a.min_rtt.map(|m| m as f64)).unwrap_or(1e6).max(1.0);
                w.pacing_bps = (HIGH_GAIN * w.cwnd as f64 * 8e9 / rtt) as u64;
            }
            return;
        }
        let rate = (self.pacing_gain * bw) as u64;
        if self.filled_pipe || rate > w.pacing_bps {
            w.pacing_bps = rate.max(1);
        }
    }

    fn set_cwnd(&mut self, w: &mut Window, a: &AckCtx, newly: u64) {
        let floor = MIN_CWND_SEGMENTS * w.smss;
        if newly > 0 {
            if self.packet_conservation {
                w.cwnd = w.cwnd.max(a.pipe + newly);
            } else {
                let target = self.inflight(self.cwnd_gain, w);
                if self.filled_pipe {
                    w.cwnd = (w.cwnd + newly).min(target);
                } else if w.cwnd < target || a.delivered < self.initial_cwnd.unwrap_or(0) {
                    w.cwnd += newly;
                }
                w.cwnd = w.cwnd.max(floor);
            }
        }
        if self.mode == Mode::ProbeRtt {
            w.cwnd = w.cwnd.min(floor);
        }
    }

    /// Loss detected: start packet conservation for one round. Returns the
    /// window recovery starts from (inflight + bytes just delivered).
    pub fn ssthresh_after_loss(&mut self, w: &Window) -> u64 {
        self.save_cwnd(w);
        self.packet_conservation = true;
        self.next_round_delivered = self.delivered;
        (self.last_inflight + self.last_delivered_now).max(w.smss)
    }

    pub fn on_recovery_exit(&mut self, w: &mut Window) {
        w.cwnd = w.cwnd.max(self.prior_cwnd);
        self.packet_conservation = false;
    }

    pub fn on_rto(&mut self, w: &mut Window) {
        self.save_cwnd(w);
        self.packet_conservation = false;
        self.rto_repair = true;
        w.cwnd = w.smss;
    }
}

impl WindowController for Bbr {
    type Params = BbrCfg;

    fn new(p: &BbrCfg, env: Env) -> Self {
        Bbr::new(p.cwnd_gain, p.probe_rtt_interval_ns, p.probe_rtt_duration_ns, env.rng)
    }

    fn on_ack(&mut self, w: &mut Window, a: &AckCtx, _acts: &mut Vec<Action>) {
        Bbr::on_ack(self, w, a);
    }

    fn ssthresh_after_loss(&mut self, w: &Window, _flight: u64, _acts: &mut Vec<Action>) -> u64 {
        Bbr::ssthresh_after_loss(self, w)
    }

    fn on_recovery_exit(&mut self, w: &mut Window) {
        Bbr::on_recovery_exit(self, w);
    }

    fn on_rto(&mut self, w: &mut Window, _flight: u64, _first: bool, _acts: &mut Vec<Action>) {
        Bbr::on_rto(self, w);
    }

    fn set_rng(&mut self, rng: Rng) {
        Bbr::set_rng(self, rng);
    }

    fn paces(&self) -> bool {
        true
    }

    // tcp_bbr.c is a cong_control module: its packet conservation and
    // prior_cwnd replace PRR
    fn sets_recovery_cwnd(&self) -> bool {
        true
    }

    fn wants_rate_samples(&self) -> bool {
        true
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn max_filter_keeps_the_last_ten_rounds() {
        let mut f = MaxFilter::default();
        f.update(1, 5.0);
        f.update(2, 9.0);
        f.update(3, 7.0);
        assert_eq!(f.max(), 9.0);
        f.update(11, 1.0); // round 2's sample is still within 10 rounds
        assert_eq!(f.max(), 9.0);
        f.update(12, 2.0); // round 2 expired: max of rounds 3..12
        assert_eq!(f.max(), 7.0);
        // no sample, no ageing (Linux's minmax): round 3's 7.0 stays
        assert_eq!(f.max(), 7.0);
        f.update(14, 1.0); // rounds 3 expired: max of rounds 11..14
        assert_eq!(f.max(), 2.0);
    }

    /// ProbeRTT's 4-segment condition reads the pipe (segments deemed lost
    /// left out, however many are un-SACKed): with 3 segments in the pipe
    /// the 200 ms hold starts at once; with 10 it does not.
    #[test]
    fn probe_rtt_counts_the_pipe_not_lost_segments() {
        let smss = 1000;
        let mut w = Window::new(4 * smss, u64::MAX, smss);
        for (pipe, starts) in [(3 * smss, true), (10 * smss, false)] {
            let mut b = Bbr::new(2.0, 10_000_000_000, 200_000_000, Rng::new(1, 3));
            b.mode = Mode::ProbeRtt;
            let a = AckCtx { now: 5_000_000_000, pipe, ..Default::default() };
            b.handle_probe_rtt(&mut w, &a);
            assert_eq!(b.probe_rtt_done, starts.then_some(5_200_000_000), "pipe {pipe}");
        }
    }

    #[test]
    fn startup_gain_and_probe_bw_first_phase_is_never_the_drain_phase() {
        assert!((HIGH_GAIN - 2.0 / std::f64::consts::LN_2).abs() < 1e-15);
        for seed in 0..50 {
            let mut b = Bbr::new(2.0, 10_000_000_000, 200_000_000, Rng::new(seed, 3));
            b.enter_probe_bw(0);
            assert_ne!(b.cycle_index, 1, "seed {seed}");
            assert_eq!(b.pacing_gain, PACING_GAIN_CYCLE[b.cycle_index]);
            assert_eq!(b.cwnd_gain, 2.0);
        }
    }
}
