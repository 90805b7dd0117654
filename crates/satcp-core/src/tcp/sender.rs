//! The sending half's state: sequence pointers, windows, RTT bookkeeping,
//! the SACK scoreboard, the window controller and the loss-recovery state
//! (phase and the scheme's own). The logic that uses it lives in `endpoint`
//! (sending, ACK processing, RTO) and `recovery` (the schemes).
//!
//! Sequence pointers are absolute offsets (see `seq`): `una` = oldest
//! unacknowledged, `nxt` = next to send (below `max` only after an RTO's
//! go-back-N), `max` = one past the highest ever sent. FlightSize (RFC 5681)
//! is `max - una`.

use std::collections::VecDeque;

use super::cc::{AckCtx, Action, Capabilities, Cc, Env, Window};
use super::recovery::frto::Frto;
use super::recovery::rack::Rack;
use super::recovery::{Phase, Scheme};
use super::delivery_rate::{DeliveryRate, LostSegment};
use super::limits::SendLimits;
use super::rtt::RttEstimator;
use super::scoreboard::Scoreboard;
use crate::scenario::{RecoverRule, RtoEstimator, RttSampling, SsthreshBasis, TcpCfg};
use crate::sim::{Rng, Time};

/// ssthresh before any loss when none is configured: RFC 5681's
/// "arbitrarily high" (far above any window, with room to add to it).
pub const SSTHRESH_INFINITE: u64 = u64::MAX / 4;

#[derive(Clone, Copy, Debug)]
struct SentSeg {
    end: u64,
    /// First transmission.
    sent_at: Time,
    /// Latest transmission (RACK).
    xmit_at: Time,
    retx: bool,
    /// SACKed: a later cumulative ACK gives neither an RTT sample nor news
    /// for RACK.
    sacked: bool,
}

#[derive(Clone, Debug)]
pub struct Sender {
    pub(in crate::tcp) una: u64,
    pub(in crate::tcp) nxt: u64,
    pub(in crate::tcp) max: u64,
    /// One past the last byte the application has written (absolute).
    pub(in crate::tcp) data_end: u64,
    /// The application has closed: a FIN follows `data_end`.
    pub(in crate::tcp) fin_queued: bool,
    pub(in crate::tcp) w: Window,
    pub(in crate::tcp) cc: Cc,
    /// What the controller does beyond its hooks' defaults (asked once).
    pub(in crate::tcp) caps: Capabilities,
    /// Actions the controller's hooks push; the endpoint carries them out
    /// after the hook and keeps the buffer.
    pub(in crate::tcp) acts: Vec<Action>,
    /// The peer's latest advertised window, scaled (bytes).
    pub(in crate::tcp) peer_wnd: u64,
    /// Where loss recovery stands, and the duplicate ACKs in a row.
    pub(in crate::tcp) phase: Phase,
    /// The recovery scheme's own state.
    pub(in crate::tcp) scheme: Scheme,
    /// RFC 6582 "recover" / RFC 6675 RecoveryPoint, as an exclusive end:
    /// max at the time recovery (or the last RTO) began.
    pub(in crate::tcp) recover: u64,
    pub(in crate::tcp) board: Scoreboard,
    /// The last segment with data sent: (absolute start, length), what a
    /// controller's `Action::Dummy { range: None, .. }` copies.
    pub(in crate::tcp) last_data: Option<(u64, u64)>,
    pub(in crate::tcp) rtt: RttEstimator,
    sampling: RttSampling,
    /// RFC 7323 timestamps: an ACK of a retransmission still gives a sample.
    timestamps: bool,
    /// Duplicate ACKs for a fast retransmit (the pipe's IsLost).
    dupthresh: u32,
    segs: VecDeque<SentSeg>,
    /// The timed segment (start, end, sent at), one-per-RTT sampling.
    timed: Option<(u64, u64, Time)>,
    /// Consecutive RTO expiries without the cumulative ACK moving.
    pub(in crate::tcp) rto_streak: u32,
    /// Bytes sent by Limited Transmit since the cumulative ACK last moved;
    /// left out of FlightSize when ssthresh is computed (RFC 5681 3.2).
    pub(in crate::tcp) lt_bytes: u64,
    pub(in crate::tcp) frto: Frto,
    /// Delivery-rate sampling, kept only for controllers that use it.
    pub(in crate::tcp) rate: Option<DeliveryRate>,
    /// With pacing (`w.pacing_bps > 0`), the earliest time the next segment
    /// may leave.
    pub(in crate::tcp) next_send_at: Time,
    /// What stopped the sender, over time, and the cwnd-validation state.
    pub(in crate::tcp) limits: SendLimits,
    /// What the ACK being processed told the controller (recovery schemes
    /// reach the controller's growth through `Endpoint::grow_window`).
    pub(in crate::tcp) ack: AckCtx,
    /// What a loss response halves.
    pub(in crate::tcp) ssthresh_basis: SsthreshBasis,
    /// When a new fast retransmit is allowed.
    pub(in crate::tcp) recover_rule: RecoverRule,
    rearm_on_fast_retransmit: bool,
    /// A timeout clears the scoreboard (`rto_clears_sack`).
    pub(in crate::tcp) rto_clears_sack: bool,
    /// ns-2 FACK: retransmissions of this recovery (start, end, snd_max when
    /// sent), to find those lost again (`fack_style = "ns2"`).
    pub(in crate::tcp) rtx_log: VecDeque<(u64, u64, u64)>,
    /// ns-2 FACK found a retransmission lost again and sends nothing more
    /// until the retransmission timer expires.
    pub(in crate::tcp) rtx_lost_stall: bool,
    /// When the segment whose arrival last moved snd.una was sent (its
    /// latest copy): the timestamp an RFC 7323 receiver echoes on duplicate
    /// ACKs (ns-2's FACK samples it).
    pub(in crate::tcp) una_moved_by_sent_at: Option<Time>,
    /// RACK loss detection (`rack`, SACK recovery only).
    pub(in crate::tcp) rack: Option<Rack>,
    /// RACK: unSACKed data below this is lost (snd_una when none).
    pub(in crate::tcp) rack_lost_below: u64,
    /// RACK: retransmissions lost again lie in [from, to): resend the
    /// unSACKed data there before anything else.
    pub(in crate::tcp) rack_relost: Option<(u64, u64)>,
    /// RACK: when the last segment sent before the reference and not yet
    /// lost or SACKed will be lost, if no ACK comes first (the reordering
    /// timer's deadline, before its slack).
    pub(in crate::tcp) rack_reo_at: Option<Time>,
    /// The outstanding tail loss probe: snd_max when it was sent (Linux's
    /// `tlp_high_seq`) and whether it was a retransmission.
    pub(in crate::tcp) tlp_high: Option<(u64, bool)>,
    /// Bytes marked lost so far (Linux's `tp->lost`, read by BBR's policer
    /// detection; kept only with delivery-rate sampling): unSACKed data as
    /// the lost boundary (IsLost, RACK) or, without SACK, the head resent
    /// by NewReno passes it, and at a timeout everything outstanding not yet
    /// counted plus retransmissions (lost again).
    pub(in crate::tcp) lost: u64,
    /// Data below this has been counted in `lost`.
    lost_marked_to: u64,
    /// The segments being told to the controller as lost (a buffer reused
    /// for the run; only with `Capabilities::sees_losses`).
    lost_segs: Vec<LostSegment>,
    /// The next retransmission is a fast retransmit that restarts the timer.
    pub(in crate::tcp) rearm_pending: bool,
    /// Without SACK, the segments duplicate ACKs say have left the network
    /// (Linux's Reno emulation of SACK, `tcp_add_reno_sack`): one per
    /// duplicate ACK, at most all outstanding but one; a cumulative ACK of
    /// n segments takes n - 1 back (one was the hole,
    /// `tcp_remove_reno_sacks`); none once recovery is over or at a
    /// timeout. `pipe` leaves them out.
    pub(in crate::tcp) reno_sacked: u64,
    /// NewReno owes the retransmission of the segment at snd_una
    /// (`newreno_within_cwnd` held it back).
    pub(in crate::tcp) head_rtx_owed: bool,
    /// The end of the one-octet window probe sent into a closed window
    /// (`tcp/window_probe.rs`); it is outstanding while it equals snd.max
    /// above snd.una.
    pub(in crate::tcp) zero_window_probe: Option<u64>,
}

impl Sender {
    /// `rng` is the controller's random stream.
    pub fn new(cfg: &TcpCfg, rng: Rng) -> Self {
        let smss = cfg.mss as u64;
        let cc = Cc::new(&cfg.controller, Env { abc_limit: cfg.abc_limit, tick_ns: cfg.clock_granularity_ns, pacing: cfg.pacing, rng, dupthresh: cfg.dupthresh });
        Sender {
            una: 0,
            nxt: 0,
            max: 0,
            data_end: 1,
            fin_queued: false,
            w: Window::new(smss, cfg.initial_ssthresh_bytes.unwrap_or(SSTHRESH_INFINITE), smss),
            rate: cc.capabilities().rate_samples.then(DeliveryRate::default),
            caps: cc.capabilities(),
            cc,
            acts: Vec::new(),
            peer_wnd: 0,
            phase: Phase::Open,
            scheme: Scheme::with_sack_pipe(cfg.recovery, cfg.sack_pipe),
            recover: 0,
            board: Scoreboard::default(),
            last_data: None,
            rtt: match cfg.rto_estimator {
                RtoEstimator::Rfc6298 => RttEstimator::new(cfg.initial_rto_ns, cfg.min_rto_ns, cfg.max_rto_ns, cfg.clock_granularity_ns),
                RtoEstimator::Ns2 => RttEstimator::ns2(cfg.initial_rto_ns, cfg.min_rto_ns, cfg.max_rto_ns, cfg.clock_granularity_ns),
                RtoEstimator::Linux => RttEstimator::linux(cfg.initial_rto_ns, cfg.min_rto_ns, cfg.max_rto_ns),
            },
            sampling: cfg.rtt_sampling,
            timestamps: cfg.timestamps,
            dupthresh: cfg.dupthresh,
            segs: VecDeque::new(),
            timed: None,
            rto_streak: 0,
            lt_bytes: 0,
            frto: Frto::default(),
            next_send_at: 0,
            ack: AckCtx::default(),
            limits: SendLimits::default(),
            ssthresh_basis: cfg.ssthresh_basis,
            recover_rule: cfg.recover_rule,
            rearm_on_fast_retransmit: cfg.rearm_rto_on_fast_retransmit,
            rto_clears_sack: cfg.rto_clears_sack,
            rearm_pending: false,
            reno_sacked: 0,
            head_rtx_owed: false,
            rtx_log: VecDeque::new(),
            rack: (cfg.rack && cfg.recovery == crate::scenario::Recovery::Sack).then(Rack::default),
            rack_lost_below: 0,
            rack_relost: None,
            rack_reo_at: None,
            tlp_high: None,
            lost: 0,
            lost_marked_to: 0,
            lost_segs: Vec::new(),
            rtx_lost_stall: false,
            una_moved_by_sent_at: None,
            zero_window_probe: None,
        }
    }

    pub fn smss(&self) -> u64 {
        self.w.smss
    }

    pub fn flight(&self) -> u64 {
        self.max - self.una
    }

    /// FlightSize for the ssthresh computation at a loss: Limited Transmit
    /// segments are not counted (RFC 5681 3.2 step 2).
    /// Under `ssthresh_basis = "window"`, ns-2's `window()` instead: the
    /// usable window min(cwnd, rwnd) in whole segments; under `"pipe"`, the
    /// pipe.
    pub fn flight_for_ssthresh(&self) -> u64 {
        match self.ssthresh_basis {
            SsthreshBasis::Flight => self.flight().saturating_sub(self.lt_bytes),
            SsthreshBasis::Pipe => self.pipe(self.dupthresh),
            // the deflated window in recovery, as under Window
            SsthreshBasis::Cwnd if self.phase.in_recovery() => self.w.cwnd.min(self.w.ssthresh),
            SsthreshBasis::Cwnd => self.w.cwnd,
            SsthreshBasis::Window => {
                // ns-2's Reno agents inflate a separate dupwnd_, which a
                // timeout clears first: the window at an RTO in fast
                // recovery is the deflated one, ssthresh
                let mut cwnd = self.w.cwnd;
                if self.phase.in_recovery() {
                    cwnd = cwnd.min(self.w.ssthresh);
                }
                let smss = self.smss();
                cwnd.min(self.peer_wnd) / smss * smss
            }
        }
    }

    /// ssthresh for a loss detected by duplicate ACKs: the controller's
    /// response to `flight_for_ssthresh()`, in whole segments under the
    /// `window` basis (ns-2 halves a whole number of packets).
    pub fn loss_ssthresh(&mut self) -> u64 {
        let basis = self.flight_for_ssthresh();
        let t = self.cc.ssthresh_after_loss(&self.w, basis, &mut self.acts);
        self.whole_segments(t)
    }

    /// `x` rounded down to whole segments (at least two) under the
    /// `window` basis; unchanged under `flight`.
    pub fn whole_segments(&self, x: u64) -> u64 {
        match self.ssthresh_basis {
            SsthreshBasis::Flight | SsthreshBasis::Pipe | SsthreshBasis::Cwnd => x,
            SsthreshBasis::Window => {
                let smss = self.smss();
                (x / smss * smss).max(2 * smss)
            }
        }
    }

    /// The cumulative ACK allows a new fast retransmit: it has reached
    /// `recover` (RFC 6582 3.2 step 1, `recover_rule = "at"`) or passed it
    /// (ns-2's `bugFix_`: highest_ack_ > recover_, `"beyond"`), so that
    /// the duplicates a go-back-N provokes at `recover` start no recovery.
    pub fn past_recover(&self) -> bool {
        match self.recover_rule {
            RecoverRule::At => self.una >= self.recover,
            RecoverRule::Beyond => self.una > self.recover,
        }
    }

    /// SACK blocks are recorded: always, except in the go-back-N after a
    /// timeout under `rto_clears_sack` (ns-2 ignores them until then).
    pub fn records_sack(&self) -> bool {
        !(matches!(self.phase, Phase::Loss(_)) && self.rto_clears_sack)
    }

    /// Bytes sent below `x` and neither acknowledged nor SACKed.
    pub fn outstanding_below(&self, x: u64) -> u64 {
        (x - self.una) - self.board.sacked_in(self.una, x)
    }

    /// The receive window the sender obeys: the peer's advertisement, plus
    /// what the controller adds (`rwnd_boost`: TCP-ADaLR's Algorithm 5.3).
    pub fn send_window(&self) -> u64 {
        self.peer_wnd + self.cc.rwnd_boost(&self.w, self.una, self.max, self.recover, self.peer_wnd)
    }

    /// Most segments to retransmit per send opportunity (the controller's
    /// limit; u32::MAX for all but TCP-ADaLR).
    pub fn retx_limit(&self) -> u32 {
        self.cc.retx_limit()
    }

    /// Nothing to send, nothing outstanding, and the limit clock already
    /// says so: an attempt to send would change nothing (the receiving half
    /// of a one-way transfer, on every data segment). Senders that sample
    /// delivery rates are excluded: each attempt marks them app-limited.
    #[inline]
    pub fn idle_and_noted(&self) -> bool {
        self.nxt >= self.seq_end()
            && self.una == self.max
            && self.phase == Phase::Open
            && self.rate.is_none()
            && self.limits.settled_app(self.una, self.nxt)
    }

    /// End of the sequence space the sender will use (data, then FIN).
    pub fn seq_end(&self) -> u64 {
        self.data_end + self.fin_queued as u64
    }

    pub fn fin_acked(&self) -> bool {
        self.fin_queued && self.una > self.data_end
    }

    /// Note a transmission of [start, end) for RTT sampling (Karn's rule:
    /// retransmitted ranges never give samples).
    /// With one timed segment per RTT (BSD, ns-2), a retransmission stops
    /// the timing only if it resends the timed segment; the fast retransmit
    /// and the RTO stop it outright (`clear_timing`, `fast_retransmit_timing`).
    pub fn record_send(&mut self, start: u64, end: u64, now: Time, retx: bool) {
        if retx {
            if matches!(self.timed, Some((s, e, _)) if start < e && s < end) {
                self.timed = None;
            }
            let i = self.segs.partition_point(|s| s.end <= start);
            for s in self.segs.range_mut(i..) {
                s.retx = true;
                s.xmit_at = now;
                if s.end >= end {
                    break;
                }
            }
            return;
        }
        // every segment is recorded for the controller's per-ACK samples
        self.segs.push_back(SentSeg { end, sent_at: now, xmit_at: now, retx: false, sacked: false });
        if self.sampling == RttSampling::OnePerRtt && self.timed.is_none() {
            self.timed = Some((start, end, now));
        }
    }

    /// [s, e) was SACKed at `now`: a later cumulative ACK says nothing
    /// about when those segments arrived, so they give no RTT sample
    /// (Linux's `tcp_clean_rtx_queue` skips SACKed skbs; without this, the
    /// ACK that ends a recovery measured the whole recovery as one round
    /// trip); RACK learns of their delivery now.
    pub fn note_sacked(&mut self, s: u64, e: u64, now: Time) {
        let min_rtt = self.rtt.min_rtt;
        // a block never covers the FIN: the last segment counts as SACKed
        // when its data is
        let e = if self.fin_queued && e + 1 == self.seq_end() { e + 1 } else { e };
        let i = self.segs.partition_point(|x| x.end <= s);
        for seg in self.segs.range_mut(i..) {
            if seg.end > e {
                break;
            }
            if !seg.sacked {
                seg.sacked = true;
                if let Some(r) = &mut self.rack {
                    r.delivered(seg.xmit_at, seg.end, seg.retx, now, min_rtt);
                }
            }
        }
    }

    /// RACK's verdict after an ACK (`rack_lost_below`,
    /// `rack_relost`; see `recovery/rack.rs`).
    pub fn rack_detect(&mut self, now: Time, in_recovery: bool, dupthresh: u32) {
        let Some(r) = self.rack else { return };
        self.rack_lost_below = self.una;
        self.rack_relost = None;
        self.rack_reo_at = None;
        // Linux's tcp_rack_reo_wnd without reordering seen: none in
        // recovery or once DupThresh segments are SACKed
        let sacked_enough = self.board.sacked_in(self.una, self.max) >= dupthresh as u64 * self.smss();
        let reo = if in_recovery || sacked_enough { 0 } else { self.rtt.min_rtt.unwrap_or(0) / 4 };
        let Some(t) = r.lost_sent_by(now, reo) else { return };
        // first transmissions leave in sequence order: the lost ones are a
        // prefix (sent before the reference, and long enough ago)
        let k = self.segs.partition_point(|s| s.sent_at < t || (s.sent_at == t && (t < r.xmit || s.end < r.end)));
        if k > 0 {
            self.rack_lost_below = self.segs[k - 1].end.max(self.una);
        }
        // the reordering timer waits for the latest segment sent before the
        // reference that is not lost yet (Linux keeps the longest wait)
        let before_ref = self.segs.partition_point(|s| s.sent_at < r.xmit || (s.sent_at == r.xmit && s.end < r.end));
        if before_ref > k {
            let y = self.board.unsacked_end_below(self.segs[before_ref - 1].end);
            let i = self.segs.partition_point(|s| s.end < y);
            if y > self.una && i >= k && i < before_ref {
                self.rack_reo_at = Some(self.segs[i].sent_at + r.rtt + reo);
            }
        }
        // retransmissions are sent in sequence order too: the ones lost
        // again form a run from the first to the last such segment. Only
        // segments first sent by t can be (a retransmission is sent after
        // its original), and only those below HighRxt have been resent by
        // SACK recovery, or below snd_nxt by the go-back-N after a timeout
        // (Linux's RACK runs in CA_Loss too: `tcp_identify_packet_loss`):
        // the scan stays within the repair, not the window.
        let repaired = match self.phase {
            Phase::Loss(_) => self.scheme.high_rxt().max(self.nxt.min(self.recover)),
            _ => self.scheme.high_rxt(),
        };
        let rxt = self.segs.partition_point(|s| s.end <= repaired);
        let mut start = self.una;
        for s in self.segs.range(..k.min(rxt)) {
            if s.retx && !s.sacked && s.xmit_at != s.sent_at && r.is_lost(s.xmit_at, s.end, now, reo) {
                let (from, _) = self.rack_relost.unwrap_or((start, s.end));
                self.rack_relost = Some((from, s.end));
            }
            start = s.end;
        }
    }

    /// Count the unSACKed data below `to` not counted yet as lost.
    pub fn mark_lost_to(&mut self, to: u64, now: Time) {
        let from = self.lost_marked_to.max(self.una);
        if self.rate.is_some() && to > from {
            if self.caps.sees_losses {
                self.tell_lost(from, to, now);
            }
            self.lost += (to - from) - self.board.sacked_in(from, to);
            self.lost_marked_to = to;
        }
    }

    /// The controller hears of each segment in [from, to) being marked
    /// lost (`WindowController::on_lost`), in sequence order.
    fn tell_lost(&mut self, from: u64, to: u64, now: Time) {
        let Some(r) = &self.rate else { return };
        let mut segs = std::mem::take(&mut self.lost_segs);
        segs.clear();
        r.lost_in(from, to, self.lost, &mut segs);
        let delivered = r.delivered;
        for l in &segs {
            self.cc.on_lost(&mut self.w, l, now, delivered);
        }
        self.lost_segs = segs;
    }

    /// A timeout marks every unSACKed byte outstanding lost: what was not
    /// counted yet, and retransmissions, which are lost again
    /// (`tcp_enter_loss`, `tcp_mark_skb_lost`).
    pub fn mark_lost_at_rto(&mut self, now: Time) {
        if self.rate.is_none() {
            return;
        }
        let from = self.lost_marked_to.max(self.una);
        let mut start = self.una;
        for s in &self.segs {
            if s.end > from {
                break;
            }
            if s.retx && !s.sacked {
                self.lost += s.end - start;
            }
            start = s.end;
        }
        self.mark_lost_to(self.max, now);
    }

    /// The highest outstanding segment, [start, end).
    pub fn last_segment(&self) -> Option<(u64, u64)> {
        let n = self.segs.len();
        let last = self.segs.back()?;
        let start = if n >= 2 { self.segs[n - 2].end } else { self.una };
        Some((start.max(self.una), last.end))
    }

    /// When the segment at snd_una was last sent, if it is outstanding.
    pub fn head_sent_at(&self) -> Option<Time> {
        self.segs.front().map(|s| s.xmit_at)
    }

    /// The lost boundary of SACK recovery: RFC 6675's IsLost, or RACK's if
    /// it reaches higher.
    pub fn lost_boundary(&self, dupthresh: u32) -> u64 {
        self.board.lost_below(self.una, dupthresh, self.smss() as u32).max(self.rack_lost_below)
    }

    /// RFC 6675 SetPipe() with that boundary; without SACK, the flight
    /// less the segments duplicate ACKs reported (`reno_sacked`). In the
    /// go-back-N after a timeout, what has not been resent yet ([snd_nxt,
    /// recover), unSACKed) is lost, not in flight, as Linux's
    /// `tcp_enter_loss` marks it.
    pub fn pipe(&self, dupthresh: u32) -> u64 {
        let mut pipe = self.board.pipe_with_lost(self.una, self.max, self.scheme.high_rxt(), self.lost_boundary(dupthresh));
        if matches!(self.phase, Phase::Loss(_)) && self.nxt < self.recover {
            let (a, b) = (self.nxt.max(self.una), self.recover.min(self.max));
            if a < b {
                pipe = pipe.saturating_sub((b - a) - self.board.sacked_in(a, b));
            }
        }
        pipe.saturating_sub(self.reno_sacked * self.smss())
    }

    /// Segments outstanding, a partial last one counted whole.
    fn outstanding_segments(&self) -> u64 {
        self.flight().div_ceil(self.smss())
    }

    /// A duplicate ACK without SACK: one more segment has left the network
    /// (delivery-rate sampling counts it delivered).
    pub fn reno_sack_dupack(&mut self, now: Time) {
        let before = self.reno_sacked;
        self.reno_sacked = (self.reno_sacked + 1).min(self.outstanding_segments().saturating_sub(1));
        if let (Some(r), true) = (&mut self.rate, self.reno_sacked > before) {
            r.on_reno_dupack(self.w.smss, now);
        }
    }

    /// The cumulative ACK moved by `acked` bytes without SACK: of the
    /// segments it covers, all but the hole were counted by duplicate ACKs.
    /// Returns the bytes they had counted.
    pub fn reno_sack_acked(&mut self, acked: u64) -> u64 {
        let n = acked.div_ceil(self.smss());
        let eaten = self.reno_sacked.min(n.saturating_sub(1));
        self.reno_sacked -= eaten;
        self.reno_sacked = self.reno_sacked.min(self.outstanding_segments().saturating_sub(1));
        eaten * self.smss()
    }

    /// When the first unacknowledged segment was last sent: the timestamp
    /// a receiver echoes when that segment arrives and moves its window.
    pub fn head_last_sent(&self) -> Option<Time> {
        self.segs.front().map(|s| s.xmit_at)
    }

    /// The cumulative ACK moved to `ack`: the RTT sample for the RTO
    /// estimator (per `rtt_sampling`) and the one for the window controller
    /// (under one-per-RTT timing, ns-2's: its Vegas keeps per-packet send
    /// times of its own, whatever the timer samples), each if valid. The
    /// per-ACK sample runs from the
    /// sending of the latest segment the ACK covers when nothing it covers
    /// was resent or SACKed earlier. An ACK that covers a retransmission (a
    /// hole filled, a partial ACK, a go-back-N) gives none without
    /// timestamps (Karn's rule, RFC 6298 section 3; timing the segments
    /// above the hole would count the round trips they waited for it), and
    /// with them (`timestamps`, RFC 7323) the echo of the retransmission
    /// when the ACK starts with one: the sample runs from when it was
    /// resent (Linux's `tcp_ack_update_rtt` falls back to the echo exactly
    /// when Karn's rule forbids the sequence sample). An ACK that comes
    /// sooner than the minimum RTT after the resend answers an earlier
    /// copy, whose echo satcp does not keep: no sample then.
    pub fn rtt_sample_on_ack(&mut self, ack: u64, now: Time) -> (Option<Time>, Option<Time>) {
        let mut first: Option<SentSeg> = None;
        let mut last: Option<SentSeg> = None;
        let mut any_retx = false;
        let min_rtt = self.rtt.min_rtt;
        while let Some(s) = self.segs.front() {
            if s.end > ack {
                break;
            }
            let s = self.segs.pop_front().unwrap();
            if let (Some(r), false) = (&mut self.rack, s.sacked) {
                r.delivered(s.xmit_at, s.end, s.retx, now, min_rtt);
            }
            any_retx |= s.retx;
            first.get_or_insert(s);
            last = Some(s);
        }
        let every = match first {
            // an ACK sooner than the minimum RTT after the resend was sent
            // for an earlier copy (a spurious resend): no sample
            Some(f) if f.retx && self.timestamps => Some(now - f.xmit_at).filter(|&r| min_rtt.is_none_or(|m| r >= m)),
            _ if any_retx => None,
            _ => last.filter(|s| !s.sacked).map(|s| now - s.sent_at),
        };
        match self.sampling {
            RttSampling::EveryAck => (every, every),
            RttSampling::OnePerRtt => {
                let timed = match self.timed {
                    Some((_, end, at)) if ack >= end => {
                        self.timed = None;
                        Some(now - at)
                    }
                    _ => None,
                };
                // ns-2's Vegas times the latest packet an ACK covers if it
                // was sent once (`v_transmits_` == 1), whatever came before
                // it: a partial ACK measures the wait for the hole too
                (timed, last.filter(|s| !s.retx && !s.sacked).map(|s| now - s.sent_at))
            }
        }
    }

    /// A fast retransmit begins: BSD and ns-2 (`reset_rtx_timer`) stop
    /// timing the segment being timed (per-segment sampling needs nothing:
    /// Karn's rule marks the resent segment), under
    /// `rearm_rto_on_fast_retransmit` the retransmission restarts the timer,
    /// and a controller that asks for it (ns-2's Vegas) backs the RTO off
    /// first, until the next RTT sample.
    pub fn fast_retransmit_timing(&mut self) {
        if self.sampling == RttSampling::OnePerRtt {
            self.timed = None;
        }
        self.rearm_pending = self.rearm_on_fast_retransmit;
        if self.caps.rto_backoff_at_fast_retransmit {
            self.rtt.backoff();
        }
    }

    /// The probe byte sent into a closed window is outstanding alone:
    /// nothing sent since, nothing of it acknowledged.
    pub fn zero_window_probe_out(&self) -> bool {
        matches!(self.zero_window_probe, Some(e) if e == self.max && self.una < e)
    }

    /// Take back the outstanding zero-window probe (the receiver refused
    /// it): snd.nxt and snd.max return to snd.una and the records of its
    /// sending (RTT timing, delivery-rate sampling) go, so the byte is sent
    /// again later as the new data it is.
    pub fn take_back_zero_window_probe(&mut self) {
        let una = self.una;
        self.nxt = una;
        self.max = una;
        self.zero_window_probe = None;
        while self.segs.back().is_some_and(|s| s.end > una) {
            self.segs.pop_back();
        }
        if matches!(self.timed, Some((_, e, _)) if e > una) {
            self.timed = None;
        }
        if let Some(r) = &mut self.rate {
            r.forget_from(una);
        }
    }

    /// Forget timing state after an RTO (every outstanding range will be
    /// resent, so none may be timed).
    pub fn clear_timing(&mut self) {
        self.timed = None;
        for s in self.segs.iter_mut() {
            s.retx = true;
        }
    }
}
