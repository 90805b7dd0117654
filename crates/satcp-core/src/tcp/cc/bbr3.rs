//! BBRv3 congestion control: Google's `net/ipv4/tcp_bbr.c` on the `v3`
//! branch of github.com/google/bbr (BBR_VERSION 3, the code Google runs),
//! and draft-ietf-ccwg-bbr-06 (July 2026), which specifies the same
//! algorithm with a few different constants. satcp's BBR v1 is `bbr.rs`.
//!
//! The model (the draft's names, then the code's):
//! * max_bw (`bw_hi`): the highest delivery rate of the current and the
//!   previous ProbeBW cycle (a two-slot filter that advances when the
//!   feedback of a bandwidth probe ends, not a 10-round window as in v1);
//! * min_rtt over 10 s, and probe_rtt_min_delay over 5 s, whose expiry
//!   schedules ProbeRTT (every 5 s instead of v1's 10);
//! * the long-term bound inflight_longterm (`inflight_hi`): the inflight
//!   at which a bandwidth probe saw more than 2% loss (or, with ECN, more
//!   than 50% CE marks), raised while probing finds more room;
//! * the short-term bounds bw_shortterm / inflight_shortterm (`bw_lo`,
//!   `inflight_lo`): cut once per round trip with loss outside bandwidth
//!   probing, to max(latest round's delivery, 0.7 x bound), and reset when
//!   the next probe starts;
//! * extra_acked: the ACK aggregation estimate added to cwnd.
//!
//! The states: Startup (pacing gain 2.77, cwnd gain 2) ends on a bandwidth
//! plateau (3 rounds without 25% growth of the delivery-rate sample), or
//! after a round of fast recovery with at least 6 lossy ACKs and a loss
//! rate above 2%, or (ECN) 2 rounds with a CE ratio above 50%; on a loss
//! or ECN exit inflight_hi = max(BDP, the last round's delivered volume).
//! Drain paces below the estimate until inflight <= BDP. ProbeBW cycles
//! DOWN (pacing 0.91, until inflight is below both the BDP and
//! inflight_hi less 15% headroom) -> CRUISE (pacing 1, cwnd <= inflight_hi
//! less headroom, short-term bounds active) -> REFILL (pacing 1, one round
//! with the short-term bounds reset) -> UP (pacing 1.25, cwnd gain 2.25,
//! inflight_hi grows by 1, 2, 4... segments per round while cwnd-limited
//! by it; ends on a plateau, on more than 2% loss, or, after a probe that
//! went too high, as soon as inflight reaches inflight_hi) -> DOWN. The
//! next probe starts after a random 2-3 s of wall clock or min(63, target
//! inflight in segments) less a random 0 or 1 rounds, whichever comes
//! first (the Reno-coexistence bound). ProbeRTT holds cwnd to max(4 SMSS, BDP / 2)
//! for 200 ms and one round, then returns to CRUISE (or Startup).
//!
//! Loss: no packet conservation and no cwnd deduction (both v1's are gone
//! in v3). Each segment marked lost is checked as it is marked (Linux's
//! `skb_marked_lost`, the draft's HandleLostPacket, through the controller
//! hook `on_lost`): while the samples reflect a bandwidth probe, a loss
//! rate above the threshold over the flight the segment left in sets
//! inflight_hi at the exact prefix where it crossed, and ends ProbeBW_UP.
//! A timeout sets cwnd to 1 SMSS (saved) and restores it when the repair
//! ends, as v1 does; it also clears the plateau detector and seeds
//! inflight_lo with the saved cwnd outside probing (`bbr_set_state`).
//!
//! ECN (Google's code: `bbr_ecn_*`): a CE-ratio EWMA (gain 1/16, start 1)
//! updated once per round; inflight_lo cut by alpha/3 in a round with ECE
//! outside probing; a probe ends above a 50% CE ratio; a cycle with marks
//! and no loss reprobes sooner. The kernel uses it only when the route is
//! marked as a shallow-threshold ECN one (`ecn_low`) and min_rtt <= 5 ms,
//! so a deployed BBRv3 ignores ECN on a satellite path: `bbr3_ecn = false`
//! by default. Its inputs are `AckCtx::delivered_ce` and `ece` and
//! `RateSample::delivered_ce`, which satcp's TCP does not feed yet (no ECN
//! in the endpoint); the logic is exercised by synthetic samples in the
//! tests and works unchanged once the endpoint counts CE-marked bytes.
//!
//! Where the code and the draft differ (`bbr3_variant = "linux"`, the
//! default, or `"draft"`):
//! * gains: Linux stores them in 1/256 units, so Startup paces at
//!   710/256 = 2.7734, Drain at 88/256 = 0.34375 (1000/2885 truncated),
//!   ProbeBW_DOWN at 232/256 = 0.90625 (91/100 truncated); the draft says
//!   2.77, Drain 0.5, DOWN 0.90;
//! * loss threshold 5/256 = 1.95% (draft 2%), beta: cut to 180/256 =
//!   0.703 (draft 0.7), headroom 38/256 = 14.8% (draft 15%);
//! * the plateau detector: Linux compares every ACK's sample with 1.25 x
//!   full_bw (a higher sample restarts the count at once) and counts only
//!   at round starts; the draft compares only at round starts;
//! * Drain: the draft also leaves Drain 3 rounds after entering it;
//! * CRUISE: Linux clamps inflight_lo to inflight_hi on entry;
//! * min_rtt takes the 5-s minimum when it is <= (Linux) or < (draft) it;
//! * extra_acked window: 5 rounds (Linux) or 10 (draft), 1 in Startup.
//! Both pace 1% below the rate and probe after 2-3 s or 62-63 rounds. The
//! draft specifies no ECN response (section 3.7: CE must count as
//! congestion if the connection uses ECN, the response is left to future
//! work): with `bbr3_ecn = true` both sources run Google's.
//!
//! Choices (both variants):
//! * Bytes where Linux counts packets (the draft's recommendation): loss
//!   rate over bytes in flight, inflight_hi raised in SMSS steps.
//! * The send quantum is one segment (no TSO): the cwnd floor is 4 SMSS
//!   (`bbr_quantization_budget` takes max(cwnd, 3 x TSO goal, 4)), plus 2
//!   SMSS in ProbeBW_UP.
//! * The pacer has no queue of paced segments (no EDT): the inflight "at
//!   the earliest departure time" is the inflight.
//! * C.is_cwnd_limited (Linux's `tp->is_cwnd_limited`): some ACK of this
//!   or the previous round found the data in flight before it (the pipe
//!   plus what it delivered and marked lost) within one SMSS of cwnd.
//! * Inflight is the pipe, as in v1; RS.prior_in_flight is the pipe before
//!   the ACK (the pipe after it plus what it delivered and marked lost).
//! * Not modelled: ProbeRTT's marking of the sender app-limited (v1 does
//!   not either), the undo of a spurious recovery (`bbr_undo_cwnd`: satcp
//!   has no undo), the TLP loss-probe recovery hook, idle restart, PLB, the
//!   app-limited fast path (an optimisation), delayed-ACK RTT samples being
//!   kept out of the 5-s filter on expiry (satcp does not flag them), and
//!   the draft's Startup exit on any loss in recovery for a connection
//!   without SACK (the controller is not told whether SACK is on; both
//!   sources use the 6-lossy-ACK rule, as Google's code does).
//! * The segments a timeout marks lost are reported one by one (Linux's
//!   `tcp_enter_loss` marks them through `tcp_mark_skb_lost` too);
//!   retransmissions lost again at a timeout are counted, not reported.
//! * cwnd on entering fast recovery is left as it is (the ssthresh handed
//!   to the recovery scheme is cwnd), as Linux's `cong_control` modules
//!   keep theirs; ssthresh is otherwise only exported (set to the BDP on
//!   leaving Startup, as the kernel does for monitoring).

use super::bbr::{FULL_BW_GROWTH, FULL_BW_ROUNDS, MIN_CWND_SEGMENTS};
use super::{AckCtx, Action, Capabilities, CcParams, Env, Window, WindowController};
use crate::scenario::reader::{Res, Tbl};
use crate::sim::{Rng, Time};
use crate::tcp::delivery_rate::{LostSegment, RateSample};
use crate::tcp::profile::Profile;

const MS: u64 = 1_000_000;
const SEC: u64 = 1_000_000_000;
/// `bbr_min_rtt_win_sec`, `bbr_probe_rtt_win_ms`, `bbr_probe_rtt_mode_ms`.
const MIN_RTT_WINDOW: Time = 10 * SEC;
const PROBE_RTT_INTERVAL: Time = 5 * SEC;
const PROBE_RTT_DURATION: Time = 200 * MS;
/// ProbeRTT's cwnd: half the BDP (`bbr_probe_rtt_cwnd_gain`).
const PROBE_RTT_CWND_GAIN: f64 = 0.5;
const CWND_GAIN: f64 = 2.0;
/// ProbeBW_UP's cwnd gain increment (`bbr_bw_probe_cwnd_gain` = 1/4).
const UP_CWND_GAIN_EXTRA: f64 = 0.25;
const UP_PACING_GAIN: f64 = 1.25;
const PACING_MARGIN: f64 = 0.01;
/// Startup ends on loss after this many lossy ACKs in a round of recovery.
const FULL_LOSS_COUNT: u32 = 6;
/// ... or after this many rounds with a CE ratio above the threshold.
const FULL_ECN_ROUNDS: u32 = 2;
const ECN_ALPHA_GAIN: f64 = 1.0 / 16.0;
const ECN_THRESH: f64 = 0.5;
const ECN_REPROBE_GAIN: f64 = 0.5;
/// Reno-coexistence bound on the rounds between probes, and its random
/// extra rounds (`bbr_bw_probe_max_rounds`, `bbr_bw_probe_rand_rounds`).
const PROBE_MAX_ROUNDS: u64 = 63;
const PROBE_RAND_ROUNDS: u64 = 2;
/// Wall-clock wait between probes: 2 s plus up to 1 s, drawn in
/// microseconds as the kernel does.
const PROBE_BASE: Time = 2 * SEC;
const PROBE_RAND_US: u64 = 1_000_000;
/// ACK aggregation: gain 1, window in rounds, at most 100 ms of bandwidth.
const EXTRA_ACKED_MAX: Time = 100 * MS;
/// Above any cwnd: "unset" for inflight_hi and inflight_lo.
const UNSET: u64 = u64::MAX;

/// Which source's constants (see the module doc).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Bbr3Source {
    /// Google's tcp_bbr.c v3, its fixed-point values.
    Linux,
    /// draft-ietf-ccwg-bbr-06.
    Draft,
}

/// BBRv3's parameters: the source whose constants it runs, the loss
/// threshold, beta (the factor bounds are cut to), the headroom fraction
/// and the ECN switch with its RTT bound.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct Bbr3Cfg {
    pub source: Bbr3Source,
    pub loss_thresh: f64,
    pub beta: f64,
    pub headroom: f64,
    pub ecn: bool,
    pub ecn_max_rtt_ns: u64,
}

impl Bbr3Cfg {
    /// The defaults of a source.
    pub fn of(source: Bbr3Source) -> Self {
        let (loss_thresh, beta, headroom) = match source {
            Bbr3Source::Linux => (5.0 / 256.0, 180.0 / 256.0, 38.0 / 256.0),
            Bbr3Source::Draft => (0.02, 0.7, 0.15),
        };
        Bbr3Cfg { source, loss_thresh, beta, headroom, ecn: false, ecn_max_rtt_ns: 5 * MS }
    }
}

impl CcParams for Bbr3Cfg {
    const KEYS: &'static [&'static str] =
        &["bbr3_variant", "bbr3_loss_thresh", "bbr3_beta", "bbr3_headroom", "bbr3_ecn", "bbr3_ecn_max_rtt"];

    fn parse(t: &Tbl, _profile: Profile) -> Res<Self> {
        let source = match t.choice("bbr3_variant", &["linux", "draft"])? {
            Some("draft") => Bbr3Source::Draft,
            _ => Bbr3Source::Linux,
        };
        let d = Bbr3Cfg::of(source);
        let frac = |key: &str, lo: f64, hi: f64, eg: &str| {
            t.number(key, |x| x > lo && x < hi, &format!("a number in ({lo}, {hi}), e.g. {eg}"))
        };
        let ecn = t.bool("bbr3_ecn")?.unwrap_or(false);
        let ecn_max_rtt_ns = match t.get("bbr3_ecn_max_rtt") {
            None => d.ecn_max_rtt_ns,
            Some(_) if !ecn => return Err(t.bad("bbr3_ecn_max_rtt", "only with bbr3_ecn = true")),
            Some(_) => t.duration_pos("bbr3_ecn_max_rtt")?.unwrap_or(d.ecn_max_rtt_ns),
        };
        Ok(Bbr3Cfg {
            source,
            loss_thresh: frac("bbr3_loss_thresh", 0.0, 1.0, "0.02")?.unwrap_or(d.loss_thresh),
            beta: frac("bbr3_beta", 0.0, 1.0, "0.7")?.unwrap_or(d.beta),
            headroom: t
                .number("bbr3_headroom", |x| (0.0..1.0).contains(&x), "a number in [0, 1), e.g. 0.15")?
                .unwrap_or(d.headroom),
            ecn,
            ecn_max_rtt_ns,
        })
    }
}

#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Mode {
    Startup,
    Drain,
    ProbeBw(Phase),
    ProbeRtt,
}

/// The ProbeBW phases.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Phase {
    Up,
    Down,
    Cruise,
    Refill,
}

/// What the ACK stream says about bandwidth probing (`bbr_ack_phase`).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum AckPhase {
    Init,
    Refilling,
    ProbeStarting,
    ProbeFeedback,
    ProbeStopping,
}

/// The source's gains and windows, fixed at construction.
#[derive(Clone, Copy, Debug)]
struct Consts {
    startup_pacing_gain: f64,
    drain_gain: f64,
    down_gain: f64,
    extra_acked_rounds: u32,
    /// The plateau detector compares only at round starts (draft).
    plateau_at_round_start: bool,
    /// Drain ends after 3 rounds at the latest (draft).
    drain_rounds_limit: bool,
    /// CRUISE clamps inflight_lo to inflight_hi (Linux).
    cruise_clamps_lo: bool,
    /// min_rtt takes the 5-s minimum when equal (Linux).
    min_rtt_on_equal: bool,
    /// ECN: ecn_factor (inflight_lo cut by alpha x factor).
    ecn_factor: f64,
}

impl Consts {
    fn of(s: Bbr3Source) -> Self {
        match s {
            Bbr3Source::Linux => Consts {
                startup_pacing_gain: 710.0 / 256.0,
                drain_gain: 88.0 / 256.0,
                down_gain: 232.0 / 256.0,
                extra_acked_rounds: 5,
                plateau_at_round_start: false,
                drain_rounds_limit: false,
                cruise_clamps_lo: true,
                min_rtt_on_equal: true,
                ecn_factor: 85.0 / 256.0,
            },
            Bbr3Source::Draft => Consts {
                startup_pacing_gain: 2.77,
                drain_gain: 0.5,
                down_gain: 0.90,
                extra_acked_rounds: 10,
                plateau_at_round_start: true,
                drain_rounds_limit: true,
                cruise_clamps_lo: false,
                min_rtt_on_equal: false,
                // the draft specifies no ECN response (its section 3.7):
                // Google's, as with "linux"
                ecn_factor: 85.0 / 256.0,
            },
        }
    }
}

/// One ACK's rate sample as BBRv3 reads it (an ACK without a valid sample
/// gives the empty one, Linux's `interval_us <= 0`).
#[derive(Clone, Copy, Debug, Default)]
struct Sample {
    valid: bool,
    bw: f64,
    rs: RateSample,
}

#[derive(Clone, Debug)]
pub struct Bbr3 {
    cfg: Bbr3Cfg,
    k: Consts,
    rng: Rng,
    pub mode: Mode,
    pub pacing_gain: f64,
    pub cwnd_gain: f64,
    // rounds
    pub round_count: u64,
    next_round_delivered: u64,
    round_start: bool,
    delivered: u64,
    lost_seen: u64,
    // the model, bit/s and bytes
    bw_hi: [f64; 2],
    bw_lo: f64,
    bw_latest: f64,
    pub inflight_hi: u64,
    pub inflight_lo: u64,
    inflight_latest: u64,
    pub min_rtt: Option<Time>,
    min_rtt_stamp: Time,
    probe_rtt_min: Option<Time>,
    probe_rtt_min_stamp: Time,
    probe_rtt_done: Option<Time>,
    probe_rtt_round_done: bool,
    // Startup and the plateau detector
    full_bw: f64,
    full_bw_count: u32,
    full_bw_now: bool,
    pub full_bw_reached: bool,
    drain_start_round: u64,
    loss_events_in_round: u32,
    startup_ecn_rounds: u32,
    // ProbeBW
    cycle_stamp: Time,
    ack_phase: AckPhase,
    bw_probe_samples: bool,
    prev_probe_too_high: bool,
    stopped_risky_probe: bool,
    rounds_since_probe: u64,
    probe_wait: Time,
    bw_probe_up_rounds: u32,
    bw_probe_up_cnt: u64,
    bw_probe_up_acks: u64,
    // congestion signals
    loss_round_delivered: u64,
    loss_round_start: bool,
    loss_in_round: bool,
    loss_in_cycle: bool,
    ecn_in_round: bool,
    ecn_in_cycle: bool,
    ecn_eligible: bool,
    pub ecn_alpha: f64,
    alpha_last_delivered: u64,
    alpha_last_delivered_ce: u64,
    // ACK aggregation
    ack_epoch_stamp: Time,
    ack_epoch_acked: u64,
    extra_acked: [u64; 2],
    extra_acked_win_rtts: u32,
    extra_acked_win_idx: usize,
    // cwnd
    init_cwnd: Option<u64>,
    prior_cwnd: u64,
    recovering: bool,
    rto_repair: bool,
    cwnd_limited_now: bool,
    cwnd_limited_before: bool,
}

impl Bbr3 {
    pub fn new(cfg: Bbr3Cfg, rng: Rng) -> Self {
        let k = Consts::of(cfg.source);
        Bbr3 {
            cfg,
            k,
            rng,
            mode: Mode::Startup,
            pacing_gain: k.startup_pacing_gain,
            cwnd_gain: CWND_GAIN,
            round_count: 0,
            next_round_delivered: 0,
            round_start: false,
            delivered: 0,
            lost_seen: 0,
            bw_hi: [0.0; 2],
            bw_lo: f64::INFINITY,
            bw_latest: 0.0,
            inflight_hi: UNSET,
            inflight_lo: UNSET,
            inflight_latest: 0,
            min_rtt: None,
            min_rtt_stamp: 0,
            probe_rtt_min: None,
            probe_rtt_min_stamp: 0,
            probe_rtt_done: None,
            probe_rtt_round_done: false,
            full_bw: 0.0,
            full_bw_count: 0,
            full_bw_now: false,
            full_bw_reached: false,
            drain_start_round: 0,
            loss_events_in_round: 0,
            startup_ecn_rounds: 0,
            cycle_stamp: 0,
            ack_phase: AckPhase::Init,
            bw_probe_samples: false,
            prev_probe_too_high: false,
            stopped_risky_probe: false,
            rounds_since_probe: 0,
            probe_wait: 0,
            bw_probe_up_rounds: 0,
            bw_probe_up_cnt: UNSET,
            bw_probe_up_acks: 0,
            // ECN and loss rounds start after the first flight (`bbr_init`)
            loss_round_delivered: 1,
            loss_round_start: false,
            loss_in_round: false,
            loss_in_cycle: false,
            ecn_in_round: false,
            ecn_in_cycle: false,
            ecn_eligible: false,
            ecn_alpha: 1.0,
            alpha_last_delivered: 0,
            alpha_last_delivered_ce: 0,
            ack_epoch_stamp: 0,
            ack_epoch_acked: 0,
            extra_acked: [0; 2],
            extra_acked_win_rtts: 0,
            extra_acked_win_idx: 0,
            init_cwnd: None,
            prior_cwnd: 0,
            recovering: false,
            rto_repair: false,
            cwnd_limited_now: false,
            cwnd_limited_before: false,
        }
    }

    // ----- the model -----------------------------------------------------

    /// max_bw, bit/s (`bbr_max_bw`).
    pub fn max_bw(&self) -> f64 {
        self.bw_hi[0].max(self.bw_hi[1])
    }

    /// The bandwidth BBR runs at: max_bw bounded by bw_lo (`bbr_bw`).
    pub fn bw(&self) -> f64 {
        self.max_bw().min(self.bw_lo)
    }

    /// The ProbeBW phase, if in ProbeBW.
    pub fn phase(&self) -> Option<Phase> {
        match self.mode {
            Mode::ProbeBw(p) => Some(p),
            _ => None,
        }
    }

    fn in_phase(&self, p: Phase) -> bool {
        self.mode == Mode::ProbeBw(p)
    }

    /// gain x bw x min_rtt rounded up, bytes (`bbr_bdp`); the initial
    /// window before any RTT sample.
    fn bdp(&self, w: &Window, bw: f64, gain: f64) -> u64 {
        match self.min_rtt {
            Some(rt) => (bw * rt as f64 * gain / 8e9).ceil() as u64,
            None => self.init_cwnd.unwrap_or(w.cwnd),
        }
    }

    /// `bbr_quantization_budget`: at least 4 SMSS, 2 more in ProbeBW_UP.
    fn quantization_budget(&self, w: &Window, cwnd: u64) -> u64 {
        let mut c = cwnd.max(MIN_CWND_SEGMENTS * w.smss);
        if self.in_phase(Phase::Up) {
            c += 2 * w.smss;
        }
        c
    }

    /// `bbr_inflight`: BDP at `bw` and `gain` with the quantization budget.
    fn inflight(&self, w: &Window, bw: f64, gain: f64) -> u64 {
        self.quantization_budget(w, self.bdp(w, bw, gain))
    }

    /// How much BBR wants in flight: its BDP unless congestion cut cwnd.
    fn target_inflight(&self, w: &Window) -> u64 {
        self.inflight(w, self.bw(), 1.0).min(w.cwnd)
    }

    fn is_probing_bandwidth(&self) -> bool {
        self.mode == Mode::Startup || self.in_phase(Phase::Refill) || self.in_phase(Phase::Up)
    }

    fn is_cwnd_limited(&self) -> bool {
        self.cwnd_limited_now || self.cwnd_limited_before
    }

    fn extra_acked(&self) -> u64 {
        self.extra_acked[0].max(self.extra_acked[1])
    }

    // ----- opening -------------------------------------------------------

    /// `bbr_init`: min_rtt and the 5-s minimum are the handshake's RTT,
    /// timed from now; the initial window is paced at the Startup gain
    /// over it.
    pub fn on_open(&mut self, w: &mut Window, now: Time, rtt: Option<Time>) {
        self.init_cwnd = Some(w.cwnd);
        self.min_rtt_stamp = now;
        self.probe_rtt_min_stamp = now;
        self.ack_epoch_stamp = now;
        if let Some(r) = rtt.filter(|&r| r > 0) {
            self.min_rtt = Some(r);
            self.probe_rtt_min = Some(r);
            let bps = w.cwnd as f64 * 8e9 / r as f64;
            w.pacing_bps = self.pacing_rate(bps, self.k.startup_pacing_gain).max(1);
        }
    }

    fn pacing_rate(&self, bw: f64, gain: f64) -> u64 {
        (gain * bw * (1.0 - PACING_MARGIN)) as u64
    }

    // ----- per ACK (`bbr_main`) ------------------------------------------

    pub fn on_ack(&mut self, w: &mut Window, a: &AckCtx) {
        self.init_cwnd.get_or_insert(w.cwnd);
        let newly = a.delivered - self.delivered;
        self.delivered = a.delivered;
        let losses = a.lost - self.lost_seen;
        self.lost_seen = a.lost;
        if self.rto_repair && !a.recovering {
            // `bbr_exit_loss_recovery`
            self.rto_repair = false;
            w.cwnd = w.cwnd.max(self.prior_cwnd);
        }
        let s = match a.rate {
            Some(rs) if rs.interval > 0 => Sample { valid: true, bw: rs.bps(), rs },
            _ => Sample::default(),
        };
        let prior_in_flight = a.pipe + newly + losses;
        self.update_round_start(a, &s);
        if prior_in_flight + w.smss > w.cwnd {
            self.cwnd_limited_now = true;
        }
        if self.round_start {
            self.rounds_since_probe = (self.rounds_since_probe + 1).min(255);
            self.update_ecn_alpha(w, a);
        }
        self.ecn_in_round |= self.ecn_eligible && a.ece;
        self.update_latest_delivery_signals(a, &s, newly);

        // the model
        self.update_congestion_signals(w, &s, newly, losses);
        self.update_ack_aggregation(w, a, &s, newly);
        self.check_loss_too_high_in_startup(w, a, &s, losses);
        self.check_full_bw_reached(&s);
        self.check_drain(w, a);
        self.update_cycle_phase(w, a, &s, newly, prior_in_flight);
        self.update_min_rtt(w, a);

        // the control
        self.update_gains();
        let bw = self.bw();
        self.set_pacing_rate(w, a, bw);
        self.set_cwnd(w, newly, bw);
        self.bound_cwnd_for_inflight_model(w);

        if self.loss_round_start {
            // `bbr_advance_latest_delivery_signals`
            self.bw_latest = s.bw;
            self.inflight_latest = s.rs.delivered;
        }
        self.recovering = a.recovering;
        self.loss_in_cycle |= s.rs.lost > 0;
        self.ecn_in_cycle |= s.rs.delivered_ce > 0;
    }

    fn update_round_start(&mut self, a: &AckCtx, s: &Sample) {
        self.round_start = false;
        if s.valid && s.rs.prior_delivered >= self.next_round_delivered {
            self.next_round_delivered = a.delivered;
            self.round_count += 1;
            self.round_start = true;
            self.cwnd_limited_before = self.cwnd_limited_now;
            self.cwnd_limited_now = false;
        }
    }

    /// Start a round now (the draft's StartRound).
    fn start_round(&mut self) {
        self.next_round_delivered = self.delivered;
    }

    /// The CE-ratio EWMA, once per round (`bbr_update_ecn_alpha`).
    fn update_ecn_alpha(&mut self, w: &Window, a: &AckCtx) {
        if !self.ecn_eligible && self.cfg.ecn && self.min_rtt.is_some_and(|m| m <= self.cfg.ecn_max_rtt_ns) {
            self.ecn_eligible = true;
        }
        if !self.ecn_eligible {
            return;
        }
        let delivered = a.delivered - self.alpha_last_delivered;
        let ce = a.delivered_ce - self.alpha_last_delivered_ce;
        if delivered == 0 {
            return;
        }
        let ratio = ce as f64 / delivered as f64;
        self.ecn_alpha = ((1.0 - ECN_ALPHA_GAIN) * self.ecn_alpha + ECN_ALPHA_GAIN * ratio).min(1.0);
        self.alpha_last_delivered = a.delivered;
        self.alpha_last_delivered_ce = a.delivered_ce;
        // Startup ends after 2 rounds above the threshold
        if !self.full_bw_reached {
            if ratio >= ECN_THRESH {
                self.startup_ecn_rounds += 1;
            } else {
                self.startup_ecn_rounds = 0;
            }
            if self.startup_ecn_rounds >= FULL_ECN_ROUNDS {
                self.handle_queue_too_high_in_startup(w);
            }
        }
    }

    fn update_latest_delivery_signals(&mut self, a: &AckCtx, s: &Sample, newly: u64) {
        self.loss_round_start = false;
        if !s.valid || newly == 0 {
            return;
        }
        self.bw_latest = self.bw_latest.max(s.bw);
        self.inflight_latest = self.inflight_latest.max(s.rs.delivered);
        if s.rs.prior_delivered >= self.loss_round_delivered {
            self.loss_round_delivered = a.delivered;
            self.loss_round_start = true;
        }
    }

    fn update_congestion_signals(&mut self, w: &Window, s: &Sample, newly: u64, losses: u64) {
        if !s.valid || newly == 0 {
            return;
        }
        if !s.rs.app_limited || s.bw >= self.max_bw() {
            self.bw_hi[1] = self.bw_hi[1].max(s.bw);
        }
        self.loss_in_round |= losses > 0;
        if !self.loss_round_start {
            return;
        }
        self.adapt_lower_bounds(w);
        self.loss_in_round = false;
        self.ecn_in_round = false;
    }

    /// Once per round with loss or ECE outside bandwidth probing: cut the
    /// short-term bounds (`bbr_adapt_lower_bounds`).
    fn adapt_lower_bounds(&mut self, w: &Window) {
        if self.is_probing_bandwidth() {
            return;
        }
        let mut ecn_inflight_lo = UNSET;
        if self.ecn_in_round && self.k.ecn_factor > 0.0 {
            self.init_lower_bounds(w, false);
            ecn_inflight_lo = (self.inflight_lo as f64 * (1.0 - self.ecn_alpha * self.k.ecn_factor)) as u64;
        }
        if self.loss_in_round {
            self.init_lower_bounds(w, true);
            self.bw_lo = self.bw_latest.max(self.bw_lo * self.cfg.beta);
            self.inflight_lo = self.inflight_latest.max((self.inflight_lo as f64 * self.cfg.beta) as u64);
        }
        self.inflight_lo = self.inflight_lo.min(ecn_inflight_lo);
        self.bw_lo = self.bw_lo.max(1.0);
    }

    fn init_lower_bounds(&mut self, w: &Window, init_bw: bool) {
        if init_bw && self.bw_lo.is_infinite() {
            self.bw_lo = self.max_bw();
        }
        if self.inflight_lo == UNSET {
            self.inflight_lo = w.cwnd;
        }
    }

    fn reset_lower_bounds(&mut self) {
        self.bw_lo = f64::INFINITY;
        self.inflight_lo = UNSET;
    }

    fn reset_congestion_signals(&mut self) {
        self.loss_in_round = false;
        self.ecn_in_round = false;
        self.loss_in_cycle = false;
        self.ecn_in_cycle = false;
        self.bw_latest = 0.0;
        self.inflight_latest = 0;
    }

    /// The windowed maximum of data ACKed beyond what max_bw explains
    /// (`bbr_update_ack_aggregation`).
    fn update_ack_aggregation(&mut self, w: &Window, a: &AckCtx, s: &Sample, newly: u64) {
        if !s.valid || newly == 0 {
            return;
        }
        if self.round_start {
            self.extra_acked_win_rtts = (self.extra_acked_win_rtts + 1).min(31);
            let thresh = if self.full_bw_reached { self.k.extra_acked_rounds } else { 1 };
            if self.extra_acked_win_rtts >= thresh {
                self.extra_acked_win_rtts = 0;
                self.extra_acked_win_idx ^= 1;
                self.extra_acked[self.extra_acked_win_idx] = 0;
            }
        }
        let epoch = a.now.saturating_sub(self.ack_epoch_stamp);
        let mut expected = (self.bw() * epoch as f64 / 8e9) as u64;
        if self.ack_epoch_acked <= expected {
            self.ack_epoch_acked = 0;
            self.ack_epoch_stamp = a.now;
            expected = 0;
        }
        self.ack_epoch_acked += newly;
        let extra = (self.ack_epoch_acked - expected).min(w.cwnd);
        let slot = &mut self.extra_acked[self.extra_acked_win_idx];
        *slot = (*slot).max(extra);
    }

    /// Loss or ECN says inflight is too high (`bbr_is_inflight_too_high`).
    fn is_inflight_too_high(&self, lost: u64, tx_in_flight: u64, delivered_ce: u64, delivered: u64) -> bool {
        if lost > 0 && tx_in_flight > 0 && lost as f64 > tx_in_flight as f64 * self.cfg.loss_thresh {
            return true;
        }
        delivered_ce > 0 && delivered > 0 && self.ecn_eligible && delivered_ce as f64 > delivered as f64 * ECN_THRESH
    }

    fn sample_too_high(&self, s: &Sample) -> bool {
        self.is_inflight_too_high(s.rs.lost, s.rs.tx_in_flight, s.rs.delivered_ce, s.rs.delivered)
    }

    fn handle_queue_too_high_in_startup(&mut self, w: &Window) {
        self.full_bw_reached = true;
        self.inflight_hi = self.inflight(w, self.max_bw(), 1.0).max(self.inflight_latest);
    }

    /// Startup ends on loss at the end of a round of recovery with at
    /// least 6 lossy ACKs and a loss rate above the threshold.
    fn check_loss_too_high_in_startup(&mut self, w: &Window, a: &AckCtx, s: &Sample, losses: u64) {
        if self.full_bw_reached {
            return;
        }
        if losses > 0 && self.loss_events_in_round < 15 {
            self.loss_events_in_round += 1;
        }
        if self.loss_round_start && a.recovering && self.loss_events_in_round >= FULL_LOSS_COUNT && self.sample_too_high(s) {
            self.handle_queue_too_high_in_startup(w);
            return;
        }
        if self.loss_round_start {
            self.loss_events_in_round = 0;
        }
    }

    fn reset_full_bw(&mut self) {
        self.full_bw = 0.0;
        self.full_bw_count = 0;
        self.full_bw_now = false;
    }

    /// The plateau detector (`bbr_check_full_bw_reached`).
    fn check_full_bw_reached(&mut self, s: &Sample) {
        if self.full_bw_now || !s.valid || s.rs.app_limited {
            return;
        }
        if self.k.plateau_at_round_start && !self.round_start {
            return;
        }
        if s.bw >= self.full_bw * FULL_BW_GROWTH {
            self.reset_full_bw();
            self.full_bw = s.bw;
            return;
        }
        if !self.round_start {
            return;
        }
        self.full_bw_count += 1;
        self.full_bw_now = self.full_bw_count >= FULL_BW_ROUNDS;
        self.full_bw_reached |= self.full_bw_now;
    }

    fn check_drain(&mut self, w: &mut Window, a: &AckCtx) {
        if self.mode == Mode::Startup && self.full_bw_reached {
            self.mode = Mode::Drain;
            self.drain_start_round = self.round_count;
            // exported for monitoring only, as the kernel does
            w.ssthresh = self.inflight(w, self.max_bw(), 1.0);
            self.reset_congestion_signals();
        }
        if self.mode == Mode::Drain {
            let drained = a.pipe <= self.inflight(w, self.max_bw(), 1.0);
            let timed_out = self.k.drain_rounds_limit && self.round_count > self.drain_start_round + 3;
            if drained || timed_out {
                self.start_probe_down(a.now);
            }
        }
    }

    // ----- ProbeBW ---------------------------------------------------------

    fn pick_probe_wait(&mut self) {
        self.rounds_since_probe = self.rng.next_u64() % PROBE_RAND_ROUNDS;
        self.probe_wait = PROBE_BASE + (self.rng.next_u64() % PROBE_RAND_US) * 1000;
    }

    fn start_probe_down(&mut self, now: Time) {
        self.reset_congestion_signals();
        self.bw_probe_up_cnt = UNSET;
        self.pick_probe_wait();
        self.cycle_stamp = now;
        self.ack_phase = AckPhase::ProbeStopping;
        self.start_round();
        self.mode = Mode::ProbeBw(Phase::Down);
    }

    fn start_probe_cruise(&mut self) {
        if self.k.cruise_clamps_lo && self.inflight_lo != UNSET {
            self.inflight_lo = self.inflight_lo.min(self.inflight_hi);
        }
        self.mode = Mode::ProbeBw(Phase::Cruise);
    }

    fn start_probe_refill(&mut self, up_rounds: u32) {
        self.reset_lower_bounds();
        self.bw_probe_up_rounds = up_rounds;
        self.bw_probe_up_acks = 0;
        self.stopped_risky_probe = false;
        self.ack_phase = AckPhase::Refilling;
        self.start_round();
        self.mode = Mode::ProbeBw(Phase::Refill);
    }

    fn start_probe_up(&mut self, w: &Window, now: Time, sample_bw: f64) {
        self.ack_phase = AckPhase::ProbeStarting;
        self.start_round();
        self.cycle_stamp = now;
        self.reset_full_bw();
        self.full_bw = sample_bw;
        self.mode = Mode::ProbeBw(Phase::Up);
        self.raise_inflight_hi_slope(w);
    }

    /// Each round of ProbeBW_UP doubles the growth of inflight_hi.
    fn raise_inflight_hi_slope(&mut self, w: &Window) {
        let growth = 1u64 << self.bw_probe_up_rounds;
        self.bw_probe_up_rounds = (self.bw_probe_up_rounds + 1).min(30);
        self.bw_probe_up_cnt = (w.cwnd / growth).max(w.smss);
    }

    fn probe_inflight_hi_upward(&mut self, w: &Window, newly: u64) {
        if !self.is_cwnd_limited() || w.cwnd < self.inflight_hi {
            return;
        }
        self.bw_probe_up_acks += newly;
        if self.bw_probe_up_acks >= self.bw_probe_up_cnt {
            let delta = self.bw_probe_up_acks / self.bw_probe_up_cnt;
            self.bw_probe_up_acks -= delta * self.bw_probe_up_cnt;
            self.inflight_hi += delta * w.smss;
        }
        if self.round_start {
            self.raise_inflight_hi_slope(w);
        }
    }

    /// A probe went too high: inflight_hi = max(the flight that lost too
    /// much, beta x target inflight), once per probe; UP ends.
    fn handle_inflight_too_high(&mut self, w: &Window, now: Time, app_limited: bool, tx_in_flight: u64) {
        self.prev_probe_too_high = true;
        self.bw_probe_samples = false;
        if !app_limited {
            self.inflight_hi = tx_in_flight.max((self.target_inflight(w) as f64 * self.cfg.beta) as u64);
        }
        if self.in_phase(Phase::Up) {
            self.start_probe_down(now);
        }
    }

    /// Adapt inflight_hi to the probe's feedback (`bbr_adapt_upper_bounds`);
    /// true if it decided a state transition.
    fn adapt_upper_bounds(&mut self, w: &Window, a: &AckCtx, s: &Sample, newly: u64) -> bool {
        if self.ack_phase == AckPhase::ProbeStarting && self.round_start {
            self.ack_phase = AckPhase::ProbeFeedback;
        }
        if self.ack_phase == AckPhase::ProbeStopping && self.round_start {
            // the feedback of the probe is over: the best time to forget
            // the previous cycle's bandwidth
            self.bw_probe_samples = false;
            self.ack_phase = AckPhase::Init;
            let probe_bw = matches!(self.mode, Mode::ProbeBw(_));
            if probe_bw && !s.rs.app_limited && self.bw_hi[1] > 0.0 {
                self.bw_hi[0] = self.bw_hi[1];
                self.bw_hi[1] = 0.0;
            }
            if probe_bw && self.stopped_risky_probe && !self.prev_probe_too_high {
                self.start_probe_refill(0);
                return true;
            }
        }
        if self.sample_too_high(s) {
            if self.bw_probe_samples {
                self.handle_inflight_too_high(w, a.now, s.rs.app_limited, s.rs.tx_in_flight);
            }
        } else {
            if self.inflight_hi == UNSET {
                return false;
            }
            // random loss must not ratchet it down: any safe level raises it
            if s.rs.tx_in_flight > self.inflight_hi {
                self.inflight_hi = s.rs.tx_in_flight;
            }
            if self.in_phase(Phase::Up) {
                self.probe_inflight_hi_upward(w, newly);
            }
        }
        false
    }

    fn inflight_with_headroom(&self, w: &Window) -> u64 {
        if self.inflight_hi == UNSET {
            return UNSET;
        }
        let headroom = ((self.inflight_hi as f64 * self.cfg.headroom) as u64).max(w.smss);
        self.inflight_hi.saturating_sub(headroom).max(MIN_CWND_SEGMENTS * w.smss)
    }

    fn check_time_to_probe_bw(&mut self, w: &Window, a: &AckCtx) -> bool {
        if self.ecn_eligible && self.ecn_in_cycle && !self.loss_in_cycle && !a.recovering {
            // marks but no loss: reprobe with a first step of about half
            // inflight_hi
            let segs = ((self.inflight_hi.min(1 << 50) / w.smss) as f64 * ECN_REPROBE_GAIN).max(1.0);
            self.start_probe_refill((segs.log2().floor() as u32).min(30));
            return true;
        }
        let reno_rounds = PROBE_MAX_ROUNDS.min(self.target_inflight(w) / w.smss);
        if a.now > self.cycle_stamp + self.probe_wait || self.rounds_since_probe >= reno_rounds {
            self.start_probe_refill(0);
            return true;
        }
        false
    }

    fn update_cycle_phase(&mut self, w: &Window, a: &AckCtx, s: &Sample, newly: u64, inflight: u64) {
        if !self.full_bw_reached {
            return;
        }
        if self.adapt_upper_bounds(w, a, s, newly) {
            return;
        }
        let Mode::ProbeBw(phase) = self.mode else { return };
        match phase {
            Phase::Cruise => {
                self.check_time_to_probe_bw(w, a);
            }
            Phase::Refill => {
                if self.round_start {
                    self.bw_probe_samples = true;
                    self.start_probe_up(w, a.now, s.bw);
                }
            }
            Phase::Up => {
                let mut done = false;
                if self.prev_probe_too_high && inflight >= self.inflight_hi {
                    self.stopped_risky_probe = true;
                    done = true;
                } else if self.is_cwnd_limited() && w.cwnd >= self.inflight_hi {
                    // inflight_hi limits the probe: not a plateau
                    self.reset_full_bw();
                    self.full_bw = s.bw;
                } else if self.full_bw_now {
                    done = true;
                }
                if done {
                    self.prev_probe_too_high = false;
                    self.start_probe_down(a.now);
                }
            }
            Phase::Down => {
                if self.check_time_to_probe_bw(w, a) {
                    return;
                }
                if inflight <= self.inflight_with_headroom(w) && inflight <= self.inflight(w, self.max_bw(), 1.0) {
                    self.start_probe_cruise();
                }
            }
        }
    }

    // ----- ProbeRTT --------------------------------------------------------

    fn probe_rtt_cwnd(&self, w: &Window) -> u64 {
        self.bdp(w, self.bw(), PROBE_RTT_CWND_GAIN).max(MIN_CWND_SEGMENTS * w.smss)
    }

    fn update_min_rtt(&mut self, w: &mut Window, a: &AckCtx) {
        let now = a.now;
        let probe_rtt_expired = now > self.probe_rtt_min_stamp + PROBE_RTT_INTERVAL;
        let sample = a.rtt.or(if self.min_rtt.is_none() { a.min_rtt } else { None });
        if let Some(r) = sample {
            if self.probe_rtt_min.is_none_or(|p| r < p) || probe_rtt_expired {
                self.probe_rtt_min = Some(r);
                self.probe_rtt_min_stamp = now;
            }
        }
        let min_rtt_expired = now > self.min_rtt_stamp + MIN_RTT_WINDOW;
        if let Some(p) = self.probe_rtt_min {
            let lower = match self.min_rtt {
                None => true,
                Some(m) => p < m || (self.k.min_rtt_on_equal && p == m),
            };
            if lower || min_rtt_expired {
                self.min_rtt = Some(p);
                self.min_rtt_stamp = self.probe_rtt_min_stamp;
            }
        }
        if probe_rtt_expired && self.mode != Mode::ProbeRtt {
            self.mode = Mode::ProbeRtt;
            self.save_cwnd(w);
            self.probe_rtt_done = None;
            self.ack_phase = AckPhase::ProbeStopping;
            self.start_round();
        }
        if self.mode == Mode::ProbeRtt {
            match self.probe_rtt_done {
                None if a.pipe <= self.probe_rtt_cwnd(w) => {
                    self.probe_rtt_done = Some(now + PROBE_RTT_DURATION);
                    self.probe_rtt_round_done = false;
                    self.start_round();
                }
                None => {}
                Some(done) => {
                    if self.round_start {
                        self.probe_rtt_round_done = true;
                    }
                    if self.probe_rtt_round_done && now > done {
                        self.probe_rtt_min_stamp = now;
                        w.cwnd = w.cwnd.max(self.prior_cwnd);
                        self.exit_probe_rtt(now);
                    }
                }
            }
        }
    }

    fn exit_probe_rtt(&mut self, now: Time) {
        self.reset_lower_bounds();
        if self.full_bw_reached {
            self.start_probe_down(now);
            self.start_probe_cruise();
        } else {
            self.mode = Mode::Startup;
        }
    }

    // ----- the control -----------------------------------------------------

    fn update_gains(&mut self) {
        let (p, c) = match self.mode {
            Mode::Startup => (self.k.startup_pacing_gain, CWND_GAIN),
            Mode::Drain => (self.k.drain_gain, CWND_GAIN),
            Mode::ProbeBw(Phase::Up) => (UP_PACING_GAIN, CWND_GAIN + UP_CWND_GAIN_EXTRA),
            Mode::ProbeBw(Phase::Down) => (self.k.down_gain, CWND_GAIN),
            Mode::ProbeBw(_) => (1.0, CWND_GAIN),
            Mode::ProbeRtt => (1.0, 1.0),
        };
        self.pacing_gain = p;
        self.cwnd_gain = c;
    }

    fn set_pacing_rate(&mut self, w: &mut Window, a: &AckCtx, bw: f64) {
        if bw <= 0.0 {
            if w.pacing_bps == 0 {
                let rtt = a.srtt.or(a.min_rtt.map(|m| m as f64)).unwrap_or(1e6).max(1.0);
                w.pacing_bps = self.pacing_rate(w.cwnd as f64 * 8e9 / rtt, self.k.startup_pacing_gain).max(1);
            }
            return;
        }
        let rate = self.pacing_rate(bw, self.pacing_gain);
        if self.full_bw_reached || rate > w.pacing_bps {
            w.pacing_bps = rate.max(1);
        }
    }

    fn set_cwnd(&mut self, w: &mut Window, newly: u64, bw: f64) {
        if newly > 0 {
            let aggr_cap = (bw * EXTRA_ACKED_MAX as f64 / 8e9) as u64;
            let target = self.quantization_budget(w, self.bdp(w, bw, self.cwnd_gain) + self.extra_acked().min(aggr_cap));
            let mut cwnd = w.cwnd;
            if self.full_bw_reached {
                cwnd = (cwnd + newly).min(target);
            } else if cwnd < target || cwnd < 2 * self.init_cwnd.unwrap_or(0) {
                cwnd += newly;
            }
            w.cwnd = cwnd.max(MIN_CWND_SEGMENTS * w.smss);
        }
        if self.mode == Mode::ProbeRtt {
            w.cwnd = w.cwnd.min(self.probe_rtt_cwnd(w));
        }
    }

    /// cwnd within inflight_hi (less headroom in CRUISE and ProbeRTT) and
    /// inflight_lo (`bbr_bound_cwnd_for_inflight_model`).
    fn bound_cwnd_for_inflight_model(&self, w: &mut Window) {
        let mut cap = match self.mode {
            Mode::ProbeBw(Phase::Cruise) | Mode::ProbeRtt => self.inflight_with_headroom(w),
            Mode::ProbeBw(_) => self.inflight_hi,
            _ => UNSET,
        };
        cap = cap.min(self.inflight_lo).max(MIN_CWND_SEGMENTS * w.smss);
        w.cwnd = w.cwnd.min(cap);
    }

    fn save_cwnd(&mut self, w: &Window) {
        self.prior_cwnd = if !self.recovering && !self.rto_repair && self.mode != Mode::ProbeRtt {
            w.cwnd
        } else {
            self.prior_cwnd.max(w.cwnd)
        };
    }

    // ----- losses ----------------------------------------------------------

    /// A segment was marked lost (`bbr_skb_marked_lost`, the draft's
    /// HandleLostPacket): a loss round starts; while probing, the loss
    /// rate over the flight it left in is checked, and if above the
    /// threshold inflight_hi is set where the rate crossed it.
    pub fn on_lost(&mut self, w: &Window, l: &LostSegment, now: Time, delivered: u64) {
        if !self.loss_in_round {
            self.loss_round_delivered = delivered;
        }
        self.loss_in_round = true;
        self.loss_in_cycle = true;
        if !self.bw_probe_samples {
            return;
        }
        if self.is_inflight_too_high(l.lost, l.tx_in_flight, 0, 0) {
            let tx = self.inflight_hi_from_lost(l);
            self.handle_inflight_too_high(w, now, l.app_limited, tx);
        }
    }

    /// The prefix of the lost segment at which the loss rate crossed the
    /// threshold: solve (lost_prev + x) / (inflight_prev + x) = thresh
    /// for x (`bbr_inflight_hi_from_lost_skb`).
    fn inflight_hi_from_lost(&self, l: &LostSegment) -> u64 {
        let inflight_prev = l.tx_in_flight.saturating_sub(l.len);
        let lost_prev = l.lost.saturating_sub(l.len);
        let budget = (inflight_prev as f64 * self.cfg.loss_thresh).ceil();
        let prefix = if lost_prev as f64 >= budget { 0.0 } else { (budget - lost_prev as f64) / (1.0 - self.cfg.loss_thresh) };
        inflight_prev + prefix as u64
    }

    /// Entering fast recovery (`bbr_ssthresh`): cwnd is saved and left as
    /// it is.
    pub fn ssthresh_after_loss(&mut self, w: &Window) -> u64 {
        self.save_cwnd(w);
        w.cwnd
    }

    /// A timeout (`tcp_enter_loss`, `bbr_set_state(TCP_CA_Loss)`).
    pub fn on_rto(&mut self, w: &mut Window, last: &AckCtx) {
        self.save_cwnd(w);
        // what the timeout marked lost is not an ACK's to count
        self.lost_seen = last.lost;
        w.cwnd = w.smss;
        self.reset_full_bw();
        if !self.is_probing_bandwidth() && self.inflight_lo == UNSET {
            self.inflight_lo = w.cwnd.max(self.prior_cwnd);
        }
        self.rto_repair = true;
    }
}

impl WindowController for Bbr3 {
    type Params = Bbr3Cfg;

    fn new(p: &Bbr3Cfg, env: Env) -> Self {
        Bbr3::new(*p, env.rng)
    }

    fn on_ack(&mut self, w: &mut Window, a: &AckCtx, _acts: &mut Vec<Action>) {
        Bbr3::on_ack(self, w, a);
    }

    fn on_open(&mut self, w: &mut Window, now: Time, rtt: Option<Time>) {
        Bbr3::on_open(self, w, now, rtt);
    }

    fn ssthresh_after_loss(&mut self, w: &Window, _flight: u64, _acts: &mut Vec<Action>) -> u64 {
        Bbr3::ssthresh_after_loss(self, w)
    }

    fn on_rto(&mut self, w: &mut Window, _flight: u64, _first: bool, last: &AckCtx, _acts: &mut Vec<Action>) {
        Bbr3::on_rto(self, w, last);
    }

    fn on_lost(&mut self, w: &mut Window, l: &LostSegment, now: Time, delivered: u64) {
        Bbr3::on_lost(self, w, l, now, delivered);
    }

    fn capabilities(&self) -> Capabilities {
        Capabilities {
            paces: true,
            sets_recovery_cwnd: true,
            rate_samples: true,
            reads_pipe: true,
            sees_losses: true,
            ..Capabilities::DEFAULT
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    const SMSS: u64 = 1000;

    /// A hand-fed ACK stream: each `ack` delivers `bytes` with a rate
    /// sample of `bps`, marks `lost` more bytes lost, at `now`.
    struct Feed {
        now: Time,
        delivered: u64,
        lost: u64,
        delivered_ce: u64,
        /// The delivered count a segment sent now would carry.
        sent_mark: u64,
        pipe: u64,
        rtt: Time,
        recovering: bool,
    }

    impl Feed {
        fn new() -> Self {
            Feed { now: 0, delivered: 0, lost: 0, delivered_ce: 0, sent_mark: 0, pipe: 50 * SMSS, rtt: 100 * MS, recovering: false }
        }

        /// One ACK `dt` after the previous; `round`: it acknowledges a
        /// segment sent after the previous round start (a round ends).
        fn ack(&mut self, b: &mut Bbr3, w: &mut Window, dt: Time, bytes: u64, bps: f64, round: bool, rs_extra: RateSample) -> AckCtx {
            self.now += dt;
            let prior = if round { self.delivered } else { self.sent_mark.saturating_sub(1) };
            self.delivered += bytes;
            let interval = (bytes as f64 * 8e9 / bps) as Time;
            let rs = RateSample { delivered: bytes, interval, prior_delivered: prior, ..rs_extra };
            let a = AckCtx {
                now: self.now,
                acked: bytes,
                rtt: Some(self.rtt),
                min_rtt: Some(self.rtt),
                delivered: self.delivered,
                lost: self.lost,
                delivered_ce: self.delivered_ce,
                pipe: self.pipe,
                recovering: self.recovering,
                rate: Some(rs),
                ..Default::default()
            };
            if round {
                self.sent_mark = self.delivered;
            }
            b.on_ack(w, &a);
            a
        }
    }

    fn opened(source: Bbr3Source) -> (Bbr3, Window, Feed) {
        let mut cfg = Bbr3Cfg::of(source);
        cfg.ecn = false;
        let mut b = Bbr3::new(cfg, Rng::new(1, 3));
        let mut w = Window::new(10 * SMSS, u64::MAX, SMSS);
        b.on_open(&mut w, 0, Some(100 * MS));
        (b, w, Feed::new())
    }

    /// Startup on a plateau (both sources): samples of 1, 2, 4 Mb/s each
    /// grow by >= 25% and restart the count; 4.5, 4.6, 4.7 do not (below
    /// 1.25 x 4 = 5): the third such round start ends Startup, with the
    /// exported ssthresh the BDP at 4.7 Mb/s x 100 ms = 58,750 bytes (the
    /// sample's interval is whole nanoseconds: 58,751 rounded up).
    #[test]
    fn startup_ends_after_three_rounds_without_25_percent_growth() {
        for source in [Bbr3Source::Linux, Bbr3Source::Draft] {
            let (mut b, mut w, mut f) = opened(source);
            f.pipe = 200 * SMSS; // stays in Drain once there
            for (k, mbps) in [1.0, 2.0, 4.0, 4.5, 4.6].into_iter().enumerate() {
                f.ack(&mut b, &mut w, 100 * MS, 10 * SMSS, mbps * 1e6, true, RateSample::default());
                assert_eq!(b.mode, Mode::Startup, "{source:?} ACK {k}");
            }
            assert_eq!((b.full_bw, b.full_bw_count), (4e6, 2), "{source:?}");
            f.ack(&mut b, &mut w, 100 * MS, 10 * SMSS, 4.7e6, true, RateSample::default());
            assert_eq!(b.mode, Mode::Drain, "{source:?}");
            assert!(b.full_bw_reached && b.full_bw_now);
            assert!((58_750..=58_751).contains(&w.ssthresh), "{}", w.ssthresh);
            let drain = if source == Bbr3Source::Linux { 88.0 / 256.0 } else { 0.5 };
            assert_eq!(b.pacing_gain, drain);
        }
    }

    /// Where the sources differ: after two rounds without growth, an ACK
    /// within a round with 6 Mb/s (>= 5) restarts Linux's count at once
    /// (full_bw = 6), while the draft looks only at round starts; the next
    /// round start at 4.7 Mb/s then ends the draft's Startup and counts 1
    /// for Linux's.
    #[test]
    fn linux_restarts_the_plateau_count_within_a_round_the_draft_does_not() {
        for (source, ends) in [(Bbr3Source::Linux, false), (Bbr3Source::Draft, true)] {
            let (mut b, mut w, mut f) = opened(source);
            f.pipe = 200 * SMSS;
            for mbps in [1.0, 2.0, 4.0, 4.5, 4.6] {
                f.ack(&mut b, &mut w, 100 * MS, 10 * SMSS, mbps * 1e6, true, RateSample::default());
            }
            f.ack(&mut b, &mut w, 10 * MS, SMSS, 6e6, false, RateSample::default());
            f.ack(&mut b, &mut w, 90 * MS, 10 * SMSS, 4.7e6, true, RateSample::default());
            assert_eq!(b.full_bw_reached, ends, "{source:?}");
            if !ends {
                assert!((b.full_bw - 6e6).abs() < 10.0 && b.full_bw_count == 1, "{} {}", b.full_bw, b.full_bw_count);
            }
        }
    }

    /// Startup on loss (`bbr_check_loss_too_high_in_startup`): in fast
    /// recovery, 6 ACKs of one loss round each mark a segment lost; at the
    /// next loss-round start the sample lost 3 segments of the 100 in
    /// flight when it was sent (3% > 1.95%): Startup ends, inflight_hi =
    /// max(BDP + budget, the round's largest delivered volume). With only
    /// 5 lossy ACKs it does not.
    #[test]
    fn startup_ends_on_a_round_of_recovery_with_six_lossy_acks_above_two_percent() {
        for (lossy, ends) in [(6, true), (5, false)] {
            let (mut b, mut w, mut f) = opened(Bbr3Source::Linux);
            f.pipe = 300 * SMSS;
            for mbps in [1.0, 2.0, 4.0] {
                f.ack(&mut b, &mut w, 100 * MS, 10 * SMSS, mbps * 1e6, true, RateSample::default());
            }
            // the first loss round starts on the first round's ACK
            // (loss_round_delivered = 1 at open)
            f.recovering = true;
            for k in 0..lossy {
                f.lost += SMSS;
                f.ack(&mut b, &mut w, MS, SMSS, 6e6, false, RateSample::default());
                assert!(!b.full_bw_reached, "ACK {k}");
            }
            let lossy_rs = RateSample { tx_in_flight: 100 * SMSS, lost: 3 * SMSS, ..Default::default() };
            f.ack(&mut b, &mut w, 100 * MS, 20 * SMSS, 8e6, true, lossy_rs);
            assert_eq!(b.full_bw_reached, ends, "{lossy} lossy ACKs");
            if ends {
                assert_eq!(b.mode, Mode::Drain);
                // max_bw 8 Mb/s x 100 ms = 100,000 bytes; delivered volumes
                // of the round: 20,000 at most
                assert_eq!(b.inflight_hi, 100_000);
            } else {
                assert_eq!(b.inflight_hi, UNSET);
            }
        }
    }

    /// Drain (8 Mb/s, min_rtt 100 ms: BDP 100 kB): it holds while the
    /// pipe (150 kB) is above the BDP and
    /// ends when it is not, into ProbeBW_DOWN (and at once CRUISE, the
    /// queue being gone). The draft also ends it 3 rounds after it began,
    /// whatever the pipe: on the 4th round start; Linux waits.
    #[test]
    fn drain_ends_at_the_bdp_or_after_three_rounds_in_the_draft() {
        for source in [Bbr3Source::Linux, Bbr3Source::Draft] {
            let (mut b, mut w, mut f) = opened(source);
            b.full_bw_reached = true;
            b.bw_hi = [8e6, 0.0];
            f.pipe = 150 * SMSS;
            f.ack(&mut b, &mut w, MS, SMSS, 8e6, true, RateSample::default());
            assert_eq!(b.mode, Mode::Drain, "{source:?}");
            let start = b.round_count;
            for k in 1..=3 {
                f.ack(&mut b, &mut w, 100 * MS, SMSS, 8e6, true, RateSample::default());
                assert_eq!((b.mode, b.round_count), (Mode::Drain, start + k), "{source:?} round {k}");
            }
            f.ack(&mut b, &mut w, 100 * MS, SMSS, 8e6, true, RateSample::default());
            let want = if source == Bbr3Source::Draft { Mode::ProbeBw(Phase::Down) } else { Mode::Drain };
            assert_eq!(b.mode, want, "{source:?} after 4 rounds");
            f.pipe = 100 * SMSS;
            f.ack(&mut b, &mut w, MS, SMSS, 8e6, false, RateSample::default());
            assert_ne!(b.mode, Mode::Drain, "{source:?}: pipe at the BDP");
        }
    }

    /// In ProbeBW at 8 Mb/s, min_rtt 100 ms (BDP 100 kB), cwnd 200 kB.
    fn cruising(source: Bbr3Source) -> (Bbr3, Window, Feed) {
        let (mut b, mut w, mut f) = opened(source);
        b.full_bw_reached = true;
        b.full_bw_now = true;
        b.bw_hi = [8e6, 0.0];
        w.cwnd = 200 * SMSS;
        f.pipe = 90 * SMSS;
        b.mode = Mode::Drain;
        f.ack(&mut b, &mut w, MS, SMSS, 8e6, false, RateSample::default());
        assert_eq!(b.mode, Mode::ProbeBw(Phase::Cruise), "Drain -> DOWN -> CRUISE at once: inflight 90 kB <= BDP");
        (b, w, f)
    }

    /// The ProbeBW cycle on the wall clock: from DOWN the next probe is
    /// drawn as 2 s + U[0, 1 s) (in microseconds) and 0 or 1 rounds
    /// already counted; with no round ending the clock wins: REFILL begins
    /// on the first ACK past cycle_stamp + wait, UP at the next round
    /// start (pacing 1.25, cwnd gain 2.25), DOWN when the delivery rate
    /// has plateaued for 3 rounds (pacing 232/256), CRUISE once inflight
    /// is under the BDP.
    #[test]
    fn probe_bw_cycle_down_cruise_refill_up_on_the_wall_clock() {
        let (mut b, mut w, mut f) = cruising(Bbr3Source::Linux);
        // the draws made on entering DOWN, replayed
        let mut r = Rng::new(1, 3);
        let rounds0 = r.next_u64() % 2;
        let wait = 2 * SEC + (r.next_u64() % 1_000_000) * 1000;
        assert_eq!((b.rounds_since_probe, b.probe_wait), (rounds0, wait));
        let start = b.cycle_stamp;
        let mut refill_at = None;
        while refill_at.is_none() {
            f.ack(&mut b, &mut w, 10 * MS, SMSS, 8e6, false, RateSample::default());
            if b.phase() == Some(Phase::Refill) {
                refill_at = Some(f.now);
            } else {
                assert_eq!(b.phase(), Some(Phase::Cruise));
            }
        }
        let at = refill_at.unwrap();
        assert!(at > start + wait && at <= start + wait + 10 * MS, "REFILL at {at}, wait {wait}");
        assert_eq!(b.pacing_gain, 1.0);
        f.ack(&mut b, &mut w, 10 * MS, SMSS, 8e6, false, RateSample::default());
        assert_eq!(b.phase(), Some(Phase::Refill), "REFILL lasts a round");
        f.ack(&mut b, &mut w, 300 * MS, SMSS, 8e6, true, RateSample::default());
        assert_eq!(b.phase(), Some(Phase::Up));
        assert_eq!((b.pacing_gain, b.cwnd_gain), (1.25, 2.25));
        for k in 0..3 {
            assert_eq!(b.phase(), Some(Phase::Up), "round {k}");
            f.ack(&mut b, &mut w, 300 * MS, SMSS, 8.1e6, true, RateSample::default());
        }
        assert_eq!(b.phase(), Some(Phase::Down));
        assert_eq!(b.pacing_gain, 232.0 / 256.0);
        f.pipe = 150 * SMSS;
        f.ack(&mut b, &mut w, 10 * MS, SMSS, 8e6, false, RateSample::default());
        assert_eq!(b.phase(), Some(Phase::Down), "inflight 150 kB above the BDP");
        f.pipe = 100 * SMSS;
        f.ack(&mut b, &mut w, 10 * MS, SMSS, 8e6, false, RateSample::default());
        assert_eq!(b.phase(), Some(Phase::Cruise));
    }

    /// The Reno-coexistence bound: with a target inflight of 20 segments
    /// (cwnd 20 kB) the next probe comes after 20 rounds less the 0 or 1
    /// drawn, long before the 2-3 s of wall clock (rounds of 50 ms).
    #[test]
    fn probe_bw_refill_after_min_63_target_inflight_rounds() {
        let (mut b, mut w, mut f) = cruising(Bbr3Source::Linux);
        b.inflight_lo = 20 * SMSS; // holds cwnd at 20 segments
        f.pipe = 10 * SMSS;
        let drawn = b.rounds_since_probe;
        let mut rounds = 0;
        while b.phase() == Some(Phase::Cruise) {
            assert!(rounds == 0 || w.cwnd == 20 * SMSS, "{}", w.cwnd);
            f.ack(&mut b, &mut w, 50 * MS, SMSS, 8e6, true, RateSample::default());
            rounds += 1;
            assert!(rounds <= 20, "still cruising after {rounds} rounds");
        }
        assert_eq!(b.phase(), Some(Phase::Refill));
        assert_eq!(rounds, 20 - drawn, "drawn {drawn}");
        assert!(f.now < 2 * SEC);
    }

    /// ProbeRTT every 5 s: min_rtt (100 ms) never gets strictly lower, so
    /// 5 s after it was taken BBRv3 enters ProbeRTT, cwnd = max(4 SMSS,
    /// BDP / 2) = 50 kB; once inflight is there it holds 200 ms and a
    /// round, then restores cwnd and cruises, the next ProbeRTT 5 s later.
    #[test]
    fn probe_rtt_every_five_seconds_at_half_the_bdp() {
        let (mut b, mut w, mut f) = cruising(Bbr3Source::Linux);
        b.probe_wait = 100 * SEC; // no bandwidth probe in the way
        b.rounds_since_probe = 0;
        f.pipe = 100 * SMSS;
        let mut entered = None;
        let mut before = 0;
        while entered.is_none() {
            before = w.cwnd;
            f.ack(&mut b, &mut w, 100 * MS, SMSS, 8e6, false, RateSample::default());
            if b.mode == Mode::ProbeRtt {
                entered = Some(f.now);
            }
        }
        assert_eq!(entered, Some(5_001 * MS), "5 s after the handshake's sample at 0: the first ACK past it");
        assert_eq!(w.cwnd, 50 * SMSS);
        assert_eq!(b.prior_cwnd, before);
        f.pipe = 50 * SMSS;
        f.ack(&mut b, &mut w, 10 * MS, SMSS, 8e6, false, RateSample::default());
        assert_eq!(b.probe_rtt_done, Some(5_211 * MS));
        f.ack(&mut b, &mut w, 250 * MS, SMSS, 8e6, false, RateSample::default());
        assert_eq!(b.mode, Mode::ProbeRtt, "200 ms passed but no round yet");
        f.ack(&mut b, &mut w, 10 * MS, SMSS, 8e6, true, RateSample::default());
        assert_eq!(b.mode, Mode::ProbeBw(Phase::Cruise));
        assert_eq!(w.cwnd, before);
        let exit = f.now;
        while b.mode != Mode::ProbeRtt {
            f.ack(&mut b, &mut w, 100 * MS, SMSS, 8e6, false, RateSample::default());
        }
        assert!(f.now > exit + 5 * SEC && f.now <= exit + 5 * SEC + 100 * MS, "{} {}", f.now, exit);
    }

    /// A lossy probe (`bbr_skb_marked_lost`): in UP with probe samples, a
    /// segment of 1000 bytes marked lost that left with 100,000 in flight,
    /// 2,000 lost since (itself included): 2% > 5/256. The rate crossed
    /// the threshold within this segment: the budget over the 99,000
    /// before it is ceil(99,000 x 5/256) = 1,934, of which 1,000 were
    /// lost, so the prefix is (1,934 - 1,000) / (1 - 5/256) = 952 bytes:
    /// inflight_hi = 99,952, and UP ends. With 5,000 lost, the previous
    /// losses had crossed it already: inflight_hi = 99,000.
    #[test]
    fn inflight_hi_is_set_where_a_probe_crossed_the_loss_threshold() {
        for (lost, hi) in [(2 * SMSS, 99_952), (5 * SMSS, 99_000)] {
            let (mut b, mut w, _) = cruising(Bbr3Source::Linux);
            b.mode = Mode::ProbeBw(Phase::Up);
            b.bw_probe_samples = true;
            w.cwnd = 100 * SMSS; // target inflight x 0.703 below both
            let l = LostSegment { len: SMSS, tx_in_flight: 100 * SMSS, lost, app_limited: false };
            b.on_lost(&w, &l, 7 * SEC, 12_345);
            assert_eq!(b.inflight_hi, hi, "{lost} lost");
            assert_eq!(b.phase(), Some(Phase::Down));
            assert!(b.prev_probe_too_high && !b.bw_probe_samples);
            assert_eq!(b.cycle_stamp, 7 * SEC);
            // the loss round started here; DOWN then reset the signals
            assert_eq!(b.loss_round_delivered, 12_345);
            assert!(!b.loss_in_round);
        }
        // below the threshold (1 of 100 segments): nothing but the loss round
        let (mut b, w, _) = cruising(Bbr3Source::Linux);
        b.mode = Mode::ProbeBw(Phase::Up);
        b.bw_probe_samples = true;
        b.on_lost(&w, &LostSegment { len: SMSS, tx_in_flight: 100 * SMSS, lost: SMSS, app_limited: false }, 7 * SEC, 0);
        assert_eq!((b.inflight_hi, b.phase()), (UNSET, Some(Phase::Up)));
        assert!(b.loss_in_round);
    }

    /// inflight_hi grows in UP while cwnd-limited by it: 1 SMSS per cwnd
    /// of data ACKed in the first round, 2 in the second, 4 in the third
    /// (`bbr_probe_inflight_hi_upward`). cwnd is held at inflight_hi =
    /// 100 kB, the pipe full.
    #[test]
    fn inflight_hi_grows_1_2_4_segments_per_round_in_probe_up() {
        let (mut b, mut w, mut f) = cruising(Bbr3Source::Linux);
        b.inflight_hi = 100 * SMSS;
        b.probe_wait = 0;
        f.pipe = 100 * SMSS;
        f.ack(&mut b, &mut w, 10 * MS, SMSS, 8e6, false, RateSample::default());
        assert_eq!(b.phase(), Some(Phase::Refill));
        f.ack(&mut b, &mut w, 10 * MS, SMSS, 8e6, true, RateSample::default());
        assert_eq!(b.phase(), Some(Phase::Up));
        assert_eq!(w.cwnd, 100 * SMSS, "held at inflight_hi");
        // first round of UP: 100 ACKs of 1 SMSS = one cwnd
        let mut grown = vec![];
        for round in 0..3 {
            let before = b.inflight_hi;
            for k in 0..100 {
                f.pipe = w.cwnd;
                f.ack(&mut b, &mut w, MS, SMSS, 8e6, k == 0 && round > 0, RateSample::default());
            }
            grown.push((b.inflight_hi - before) / SMSS);
            assert_eq!(b.phase(), Some(Phase::Up));
        }
        // a round's first ACK counts at the old slope, then raises it:
        // round 1: one increment per 100,000 bytes (cwnd / 1): +1;
        // round 2: 1,000 at the old slope, then one per 50,500 (cwnd
        // 101,000 / 2) for 100,000 bytes in all: +1, 49,500 carried;
        // round 3: 50,500 reaches the old step (+1), then one per 25,500
        // (102,000 / 4) for 99,000: +3, so +4
        assert_eq!(grown, vec![1, 1, 4]);
        assert_eq!(b.bw_probe_up_cnt, 25_500);
    }

    /// inflight_lo and bw_lo on a lossy round outside probing: in CRUISE a
    /// round with a loss, ending on an ACK that starts the next loss
    /// round, cuts inflight_lo from cwnd to max(the round's largest
    /// delivered volume, 180/256 x cwnd) and bw_lo from max_bw (8 Mb/s) to
    /// max(the round's best sample, 5 Mb/s, 180/256 x 8 Mb/s = 5.625
    /// Mb/s); cwnd follows inflight_lo. cwnd is 210 kB then: 2 x BDP plus
    /// the 10 kB the first ACK of an aggregation epoch counts as extra, so
    /// inflight_lo = 147,656 (the draft's beta of 0.7: 147,000, 5.6 Mb/s).
    #[test]
    fn a_lossy_round_in_cruise_cuts_inflight_lo_and_bw_lo_by_beta() {
        for (source, lo, bw_lo) in [(Bbr3Source::Linux, 147_656, 5.625e6), (Bbr3Source::Draft, 147_000, 5.6e6)] {
            let (mut b, mut w, mut f) = cruising(source);
            f.ack(&mut b, &mut w, 100 * MS, 10 * SMSS, 5e6, true, RateSample::default());
            assert_eq!(b.inflight_lo, UNSET);
            assert_eq!(w.cwnd, 210 * SMSS);
            f.lost += SMSS;
            f.ack(&mut b, &mut w, MS, SMSS, 5e6, false, RateSample::default());
            assert!(b.loss_in_round);
            f.ack(&mut b, &mut w, 100 * MS, 20 * SMSS, 5e6, true, RateSample::default());
            assert_eq!(b.inflight_lo, lo, "{source:?}");
            assert!((b.bw_lo - bw_lo).abs() < 1e-6, "{source:?} {}", b.bw_lo);
            assert_eq!(w.cwnd, lo.max(4 * SMSS).min(b.inflight_with_headroom(&w)));
            // a probe resets them (REFILL)
            b.start_probe_refill(0);
            assert_eq!((b.inflight_lo, b.bw_lo), (UNSET, f64::INFINITY));
        }
    }

    /// A timeout: cwnd 1 SMSS, saved cwnd restored when the repair ends;
    /// outside probing inflight_lo is seeded with the saved cwnd.
    #[test]
    fn a_timeout_cuts_cwnd_to_one_segment_and_restores_it_after_the_repair() {
        let (mut b, mut w, mut f) = cruising(Bbr3Source::Linux);
        let before = w.cwnd;
        let last = AckCtx { lost: 30 * SMSS, ..Default::default() };
        f.lost = 30 * SMSS;
        b.on_rto(&mut w, &last);
        assert_eq!(w.cwnd, SMSS);
        assert_eq!((b.prior_cwnd, b.inflight_lo), (before, before));
        f.recovering = true;
        f.ack(&mut b, &mut w, 300 * MS, SMSS, 8e6, true, RateSample::default());
        assert_eq!(w.cwnd, 4 * SMSS, "1 SMSS + the one delivered, at least 4 SMSS");
        assert!(!b.full_bw_now, "the plateau detector was cleared");
        f.recovering = false;
        f.ack(&mut b, &mut w, 300 * MS, SMSS, 8e6, false, RateSample::default());
        assert_eq!(w.cwnd, before);
    }

    /// ECN, fed synthetic samples (TCP ECN does not feed them yet). Off by
    /// default: CE marks change nothing. On, with min_rtt 2 ms <= 5 ms:
    /// alpha starts at 1 and moves 1/16 of the way to each round's CE
    /// ratio; two Startup rounds with a ratio >= 50% end Startup with
    /// inflight_hi set.
    #[test]
    fn ecn_marks_end_startup_and_update_alpha_only_when_enabled() {
        for ecn in [false, true] {
            let mut cfg = Bbr3Cfg::of(Bbr3Source::Linux);
            cfg.ecn = ecn;
            let mut b = Bbr3::new(cfg, Rng::new(1, 3));
            let mut w = Window::new(10 * SMSS, u64::MAX, SMSS);
            b.on_open(&mut w, 0, Some(2 * MS));
            let mut f = Feed::new();
            f.rtt = 2 * MS;
            f.pipe = 200 * SMSS;
            // two rounds without marks: alpha 1 -> (15/16)^2
            f.ack(&mut b, &mut w, 2 * MS, 10 * SMSS, 1e6, true, RateSample::default());
            f.ack(&mut b, &mut w, 2 * MS, 10 * SMSS, 2e6, true, RateSample::default());
            let a0 = if ecn { 225.0 / 256.0 } else { 1.0 };
            assert_eq!(b.ecn_alpha, a0);
            // two rounds with 60% of the delivered bytes CE-marked
            for k in 0..2 {
                f.delivered_ce += 6 * SMSS;
                f.ack(&mut b, &mut w, 2 * MS, 10 * SMSS, 4e6 * (k + 2) as f64, true, RateSample::default());
            }
            assert_eq!(b.full_bw_reached, ecn, "ecn {ecn}");
            if ecn {
                let a1 = a0 * 15.0 / 16.0 + 0.6 / 16.0;
                assert!((b.ecn_alpha - (a1 * 15.0 / 16.0 + 0.6 / 16.0)).abs() < 1e-12, "{}", b.ecn_alpha);
                assert_eq!(b.mode, Mode::Drain);
                assert_ne!(b.inflight_hi, UNSET);
            } else {
                assert_eq!(b.mode, Mode::Startup);
            }
        }
    }

    /// ECN outside probing: at the end of a round with ECE, inflight_lo
    /// is cut by alpha x ecn_factor (85/256): from cwnd 200 kB with alpha
    /// 1 to 200,000 x (1 - 85/256) = 133,593. A probe sample with CE on
    /// more than half of what it delivered is "too high": UP ends. With
    /// `bbr3_ecn` off the same sample is not.
    #[test]
    fn ecn_in_cruise_cuts_inflight_lo_and_a_marked_probe_ends_up() {
        for eligible in [true, false] {
            let mut cfg = Bbr3Cfg::of(Bbr3Source::Linux);
            cfg.ecn = eligible;
            let mut b = Bbr3::new(cfg, Rng::new(1, 3));
            let mut w = Window::new(200 * SMSS, u64::MAX, SMSS);
            b.on_open(&mut w, 0, Some(2 * MS));
            b.full_bw_reached = true;
            b.bw_hi = [80e6, 0.0];
            b.ecn_eligible = eligible;
            b.mode = Mode::ProbeBw(Phase::Cruise);
            b.ecn_in_round = eligible;
            b.adapt_lower_bounds(&w);
            assert_eq!(b.inflight_lo, if eligible { 133_593 } else { UNSET });
            b.mode = Mode::ProbeBw(Phase::Up);
            b.bw_probe_samples = true;
            let mut f = Feed::new();
            f.rtt = 2 * MS;
            f.pipe = 10 * SMSS;
            let marked = RateSample { delivered_ce: 6 * SMSS, ..Default::default() };
            f.ack(&mut b, &mut w, MS, 10 * SMSS, 80e6, false, marked);
            assert_eq!(b.phase() == Some(Phase::Down), eligible);
            assert_eq!(b.prev_probe_too_high, eligible);
        }
    }

    #[test]
    fn keys_and_defaults() {
        let l = Bbr3Cfg::of(Bbr3Source::Linux);
        assert_eq!((l.loss_thresh, l.beta, l.headroom, l.ecn), (5.0 / 256.0, 180.0 / 256.0, 38.0 / 256.0, false));
        let d = Bbr3Cfg::of(Bbr3Source::Draft);
        assert_eq!((d.loss_thresh, d.beta, d.headroom), (0.02, 0.7, 0.15));
        assert_eq!(Consts::of(Bbr3Source::Linux).startup_pacing_gain, 710.0 / 256.0);
    }
}
