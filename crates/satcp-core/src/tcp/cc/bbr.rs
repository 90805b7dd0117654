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
//! Policers (Linux's long-term bandwidth, `bbr_lt_bw_sampling`): from the
//! first loss, BBR samples the delivery rate over intervals of 4 to 16
//! round trips that end on a loss; an interval that lost at least 50/256
//! of what it delivered is "lossy". Two lossy intervals in a row whose
//! rates differ by at most 1/8 or 4 kb/s mean a token-bucket policer: BBR
//! then uses their mean as its bandwidth, with pacing gain 1, for 48 round
//! trips of ProbeBW, and starts sampling afresh. An app-limited sample or
//! an interval over 16 round trips restarts the sampling; a timeout counts
//! as a loss and as the end of a round (and clears Startup's full-bandwidth
//! reference, `bbr_set_state`).
//!
//! Loss: BBR does not react to loss by rate reduction. Every ACK that
//! delivers data first takes what it marked lost off cwnd (an ACK of P
//! segments releases at most 2P). On entering fast recovery it saves cwnd
//! and applies packet conservation for one round (cwnd = max(cwnd,
//! inflight + delivered)); on leaving recovery the saved cwnd is restored. An RTO sets cwnd to 1 SMSS (saving cwnd), grows as
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
//! * When the connection opens (`on_open`, Linux's `bbr_init`) RTprop is
//!   the handshake's RTT, timed from then, and the initial window leaves
//!   paced at the high gain over it. Timing RTprop from the first data
//!   ACK instead put ProbeRTT half a second later than the kernel's on its
//!   cross-check path without SACK, late enough for a repair of one hole
//!   per round trip to age the bandwidth filter out before the timeout
//!   (docs/validation-linux.md).
//! * No idle-restart handling, and no pacing margin (Linux paces 1% below
//!   the rate).
//! * The policer detection counts bytes where Linux counts packets, and
//!   reads the losses marked up to this ACK: without SACK, NewReno marks
//!   its head lost after the controller has seen the ACK, so BBR learns of
//!   it one ACK later than Linux's (which runs after the marking).
//! * RTprop is replaced by a strictly lower sample or when expired (Linux);
//!   the draft's "<=" would let a path whose minimum recurs exactly (a
//!   clean simulated path) never enter ProbeRTT.
//! * The ssthresh BBR returns on a loss is the conservation window; BBR does
//!   not otherwise use ssthresh.

use super::{AckCtx, Action, Capabilities, CcParams, Env, Window, WindowController};
use crate::scenario::reader::{Res, Tbl};
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
pub(super) const FULL_BW_GROWTH: f64 = 1.25;
pub(super) const FULL_BW_ROUNDS: u32 = 3;
pub(super) const MIN_CWND_SEGMENTS: u64 = 4;
const QUANTA_SEGMENTS: u64 = 3;
/// Policer detection (`bbr_lt_*` in tcp_bbr.c): an interval lasts at least
/// this many round trips, at most 4 times as many.
const LT_INTERVAL_MIN_ROUNDS: u32 = 4;
/// An interval is lossy when lost / delivered >= 50/256.
const LT_LOSS_THRESH: f64 = 50.0 / 256.0;
/// Two rates are consistent within 1/8 of the first or 4 kb/s.
const LT_BW_RATIO: f64 = 1.0 / 8.0;
const LT_BW_DIFF_BPS: f64 = 4000.0;
/// The policed rate is used for this many round trips.
const LT_BW_MAX_ROUNDS: u32 = 48;

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
    /// Bytes marked lost up to the last ACK (this ACK's losses are the
    /// difference).
    lost_seen: u64,
    /// Repairing after an RTO: restore `prior_cwnd` when it ends.
    rto_repair: bool,
    initial_cwnd: Option<u64>,
    delivered: u64,
    last_inflight: u64,
    last_delivered_now: u64,
    lt: LongTermBw,
}

/// The policer detection's state (`lt_*` in tcp_bbr.c).
#[derive(Clone, Copy, Debug, Default)]
struct LongTermBw {
    /// The previous lossy interval's rate, or the policed rate in use, bit/s.
    bw: f64,
    /// BBR runs at `bw`: a policer was detected.
    use_bw: bool,
    sampling: bool,
    rounds: u32,
    /// When the interval began, and the delivered and lost counts then.
    stamp: Time,
    delivered: u64,
    lost: u64,
    /// The lost count at the previous ACK (its difference is this ACK's
    /// losses).
    last_lost: u64,
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
            lost_seen: 0,
            rto_repair: false,
            initial_cwnd: None,
            delivered: 0,
            last_inflight: 0,
            last_delivered_now: 0,
            lt: LongTermBw::default(),
        }
    }

    /// The bandwidth BBR runs at, bit/s: the policed rate when a policer
    /// was detected, else the windowed maximum (`bbr_bw`).
    pub fn btl_bw(&self) -> f64 {
        if self.lt.use_bw {
            self.lt.bw
        } else {
            self.btl_bw.max()
        }
    }

    /// Whether BBR runs at a detected policer's rate.
    pub fn policed(&self) -> bool {
        self.lt.use_bw
    }

    /// gain x BDP + quanta, bytes (the initial window before any estimate),
    /// at bandwidth `bw`.
    fn inflight_at(&self, bw: f64, gain: f64, w: &Window) -> u64 {
        match self.rt_prop {
            Some(rt) if bw > 0.0 => {
                let bdp = bw * rt as f64 / 8e9;
                (gain * bdp) as u64 + QUANTA_SEGMENTS * w.smss
            }
            _ => self.initial_cwnd.unwrap_or(w.cwnd),
        }
    }

    /// gain x BDP + quanta at the bandwidth BBR runs at.
    fn inflight(&self, gain: f64, w: &Window) -> u64 {
        self.inflight_at(self.btl_bw(), gain, w)
    }

    /// The connection opened (`bbr_init`): RTprop is the handshake's RTT,
    /// timed from now, and the initial window leaves paced at the high
    /// gain over it (`bbr_init_pacing_rate_from_rtt`).
    pub fn on_open(&mut self, w: &mut Window, now: Time, rtt: Option<Time>) {
        if let Some(r) = rtt.filter(|&r| r > 0) {
            self.rt_prop = Some(r);
            self.rt_prop_stamp = now;
            w.pacing_bps = ((HIGH_GAIN * w.cwnd as f64 * 8e9 / r as f64) as u64).max(1);
        }
    }

    pub fn on_ack(&mut self, w: &mut Window, a: &AckCtx) {
        self.initial_cwnd.get_or_insert(w.cwnd);
        let newly = a.delivered - self.delivered;
        self.delivered = a.delivered;
        let losses = a.lost - self.lost_seen;
        self.lost_seen = a.lost;
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
        self.set_cwnd(w, a, newly, losses);
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
        let losses = a.lost - self.lt.last_lost;
        self.lt.last_lost = a.lost;
        self.lt_sample(a, rs.app_limited, losses > 0);
        let bw = rs.bps();
        if !rs.app_limited || bw >= self.btl_bw() {
            self.btl_bw.update(self.round_count, bw);
        }
    }

    fn should_advance_cycle(&self, w: &Window, a: &AckCtx) -> bool {
        let full_length = self.rt_prop.is_some_and(|rt| a.now - self.cycle_stamp > rt);
        let max_bw = self.btl_bw.max();
        if self.pacing_gain > 1.0 {
            full_length && a.pipe >= self.inflight_at(max_bw, self.pacing_gain, w)
        } else if self.pacing_gain < 1.0 {
            full_length || a.pipe <= self.inflight_at(max_bw, 1.0, w)
        } else {
            full_length
        }
    }

    fn advance_cycle(&mut self, now: Time) {
        self.cycle_index = (self.cycle_index + 1) % PACING_GAIN_CYCLE.len();
        self.cycle_stamp = now;
        self.pacing_gain = if self.lt.use_bw { 1.0 } else { PACING_GAIN_CYCLE[self.cycle_index] };
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
        let max_bw = self.btl_bw.max();
        if max_bw >= self.full_bw * FULL_BW_GROWTH {
            self.full_bw = max_bw;
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
        if self.mode == Mode::Drain && a.pipe <= self.inflight_at(self.btl_bw.max(), 1.0, w) {
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

    fn set_cwnd(&mut self, w: &mut Window, a: &AckCtx, newly: u64, losses: u64) {
        let floor = MIN_CWND_SEGMENTS * w.smss;
        if newly > 0 {
            // an ACK of P segments releases at most 2P: what it marked lost
            // comes off first (`bbr_set_cwnd_to_recover_or_restore`)
            w.cwnd = w.cwnd.saturating_sub(losses).max(w.smss);
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

    /// Policer detection on an ACK with a valid rate sample
    /// (`bbr_lt_bw_sampling`); `lossy_ack`: it marked something lost.
    fn lt_sample(&mut self, a: &AckCtx, app_limited: bool, lossy_ack: bool) {
        if self.lt.use_bw {
            if self.mode == Mode::ProbeBw && self.round_start {
                self.lt.rounds += 1;
                if self.lt.rounds >= LT_BW_MAX_ROUNDS {
                    self.lt_reset(a);
                    self.enter_probe_bw(a.now); // gain cycling restarts
                }
            }
            return;
        }
        // wait for the first loss: the policer's tokens are spent
        if !self.lt.sampling {
            if !lossy_ack {
                return;
            }
            self.lt_new_interval(a);
            self.lt.sampling = true;
        }
        if app_limited {
            self.lt_reset(a);
            return;
        }
        if self.round_start {
            self.lt.rounds += 1;
        }
        if self.lt.rounds < LT_INTERVAL_MIN_ROUNDS {
            return;
        }
        if self.lt.rounds > 4 * LT_INTERVAL_MIN_ROUNDS {
            self.lt_reset(a);
            return;
        }
        // the interval ends on a loss (the tokens ran out again)
        if !lossy_ack {
            return;
        }
        let lost = (a.lost - self.lt.lost) as f64;
        let delivered = (a.delivered - self.lt.delivered) as f64;
        if delivered == 0.0 || lost < LT_LOSS_THRESH * delivered {
            return;
        }
        let t = a.now.saturating_sub(self.lt.stamp);
        if t < 1_000_000 {
            return; // under a millisecond: wait
        }
        let bw = delivered * 8e9 / t as f64;
        if self.lt.bw > 0.0 {
            let diff = (bw - self.lt.bw).abs();
            if diff <= LT_BW_RATIO * self.lt.bw || diff <= LT_BW_DIFF_BPS {
                // two consistent lossy intervals: policed
                self.lt.bw = (bw + self.lt.bw) / 2.0;
                self.lt.use_bw = true;
                self.pacing_gain = 1.0;
                self.lt.rounds = 0;
                return;
            }
        }
        self.lt.bw = bw;
        self.lt_new_interval(a);
    }

    fn lt_new_interval(&mut self, a: &AckCtx) {
        self.lt.stamp = a.now;
        self.lt.delivered = a.delivered;
        self.lt.lost = a.lost;
        self.lt.rounds = 0;
    }

    fn lt_reset(&mut self, a: &AckCtx) {
        self.lt.bw = 0.0;
        self.lt.use_bw = false;
        self.lt.sampling = false;
        self.lt_new_interval(a);
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

    /// A timeout (`bbr_set_state(TCP_CA_Loss)`): Startup's reference is
    /// cleared, and policer detection counts it as a loss ending a round.
    /// `ack` is the last ACK's context with the timeout's losses counted.
    pub fn on_rto(&mut self, w: &mut Window, ack: &AckCtx) {
        self.full_bw = 0.0;
        self.round_start = true;
        self.lt.last_lost = ack.lost;
        // what the timeout marked lost is not an ACK's to take off
        self.lost_seen = ack.lost;
        // Linux passes a sample with only `losses = 1`
        self.lt_sample(ack, false, true);
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

    fn on_open(&mut self, w: &mut Window, now: Time, rtt: Option<Time>) {
        Bbr::on_open(self, w, now, rtt);
    }

    fn ssthresh_after_loss(&mut self, w: &Window, _flight: u64, _acts: &mut Vec<Action>) -> u64 {
        Bbr::ssthresh_after_loss(self, w)
    }

    fn on_recovery_exit(&mut self, w: &mut Window) {
        Bbr::on_recovery_exit(self, w);
    }

    fn on_rto(&mut self, w: &mut Window, _flight: u64, _first: bool, last: &AckCtx, _acts: &mut Vec<Action>) {
        Bbr::on_rto(self, w, last);
    }

    fn capabilities(&self) -> Capabilities {
        Capabilities {
            paces: true,
            // tcp_bbr.c is a cong_control module: its packet conservation
            // and prior_cwnd replace PRR
            sets_recovery_cwnd: true,
            rate_samples: true,
            reads_pipe: true,
            ..Capabilities::DEFAULT
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::tcp::delivery_rate::RateSample;

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

    /// Policer detection by hand (`bbr_lt_bw_sampling`): BBR in ProbeBW
    /// with a 12 Mb/s maximum; one ACK per round trip of 100 ms, each a
    /// round start delivering 125 kB (10 Mb/s) and losing 30 kB (24% >
    /// 50/256). The first loss (ACK 1) starts an interval and counts its
    /// first round; the fourth round (ACK 4), lossy, ends it at 375 kB in
    /// 300 ms, 10 Mb/s. The next interval (ACKs 4-8) gives 10 Mb/s too:
    /// consistent, so BBR runs at their mean with pacing gain 1 for 48
    /// rounds of ProbeBW (ACKs 9-56), then samples afresh, at its windowed
    /// maximum (10 Mb/s: the 12 Mb/s sample has aged out).
    #[test]
    fn policer_detection_by_hand() {
        const MS: u64 = 1_000_000;
        let smss = 1000;
        let mut w = Window::new(100 * smss, u64::MAX, smss);
        let mut b = Bbr::new(2.0, 1_000_000 * MS, 200 * MS, Rng::new(1, 3));
        b.mode = Mode::ProbeBw;
        b.filled_pipe = true;
        b.rt_prop = Some(100 * MS);
        b.btl_bw.update(0, 12e6);
        let (mut delivered, mut lost) = (0u64, 0u64);
        let mut ack = |b: &mut Bbr, w: &mut Window, k: u64, loses: bool| {
            let prior = delivered;
            delivered += 125_000;
            if loses {
                lost += 30_000;
            }
            let rate = RateSample { delivered: 125_000, interval: 100 * MS, prior_delivered: prior, app_limited: false, ..Default::default() };
            let a = AckCtx { now: k * 100 * MS, delivered, lost, rate: Some(rate), pipe: 50 * smss, ..Default::default() };
            b.on_ack(w, &a);
        };
        ack(&mut b, &mut w, 1, true);
        assert!(b.lt.sampling && !b.policed() && b.lt.bw == 0.0);
        for k in 2..=4 {
            ack(&mut b, &mut w, k, true);
        }
        assert!((b.lt.bw - 10e6).abs() < 1.0 && !b.policed(), "{}", b.lt.bw);
        for k in 5..=7 {
            ack(&mut b, &mut w, k, true);
            assert!(!b.policed(), "ACK {k}");
        }
        ack(&mut b, &mut w, 8, true);
        assert!(b.policed());
        assert!((b.btl_bw() - 10e6).abs() < 1.0);
        assert_eq!(b.pacing_gain, 1.0);
        // the cycle's 5/4 and 3/4 phases are held at 1 while policed
        for k in 9..=55 {
            ack(&mut b, &mut w, k, false);
            assert!(b.policed() && b.pacing_gain == 1.0, "ACK {k}");
        }
        ack(&mut b, &mut w, 56, false);
        assert!(!b.policed() && !b.lt.sampling);
        assert_eq!(b.btl_bw(), 10e6);
    }

    /// A lossy interval of a different rate is not a policer: the second
    /// interval (ACKs 4-8) at 5 Mb/s, half the first, starts a third
    /// instead; the third (ACKs 8-12), at 5 Mb/s again, is consistent with
    /// it.
    #[test]
    fn inconsistent_lossy_intervals_are_not_a_policer() {
        const MS: u64 = 1_000_000;
        let mut w = Window::new(100_000, u64::MAX, 1000);
        let mut b = Bbr::new(2.0, 1_000_000 * MS, 200 * MS, Rng::new(1, 3));
        b.mode = Mode::ProbeBw;
        b.filled_pipe = true;
        b.rt_prop = Some(100 * MS);
        let (mut delivered, mut lost) = (0u64, 0u64);
        for k in 1..=11u64 {
            let d = if k <= 4 { 125_000 } else { 62_500 };
            let prior = delivered;
            delivered += d;
            lost += d / 4;
            let rate = RateSample { delivered: d, interval: 100 * MS, prior_delivered: prior, app_limited: false, ..Default::default() };
            b.on_ack(&mut w, &AckCtx { now: k * 100 * MS, delivered, lost, rate: Some(rate), ..Default::default() });
            assert!(!b.policed(), "ACK {k}");
        }
        assert!((b.lt.bw - 5e6).abs() < 1.0);
        let rate = RateSample { delivered: 62_500, interval: 100 * MS, prior_delivered: delivered, app_limited: false, ..Default::default() };
        let a = AckCtx { now: 1200 * MS, delivered: delivered + 62_500, lost: lost + 15_625, rate: Some(rate), ..Default::default() };
        b.on_ack(&mut w, &a);
        assert!(b.policed() && (b.btl_bw() - 5e6).abs() < 1.0);
    }
}
