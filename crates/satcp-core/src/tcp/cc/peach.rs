//! TCP Peach (Akyildiz, Morabito, Palazzo, "TCP-Peach: a new congestion
//! control scheme for satellite IP networks", IEEE/ACM ToN 9(3), 2001) and
//! Modified Peach (Sarkar, Shukla, Dasgupta, "Modified TCP Peach Protocol
//! for Satellite based Networks", section 3; spec 003), on NewReno recovery
//! (`variant = "peach"` / `"modified-peach"`, `cc = "peach"`).
//!
//! * Dummy segments: low-priority copies of the last data segment sent
//!   (`Action::Dummy`, `Kind::Dummy` on the wire, answered by a
//!   `Kind::DummyAck`; see `Endpoint` for what they cost and what they
//!   don't). Each DummyAck adds one SMSS to cwnd, up to the peer's window.
//! * Sudden Start (section 3.1): cwnd starts at one segment
//!   (`initial_window` 1 in the presets); when the first data segment
//!   leaves, rwnd - 1 dummies follow, one every tau = RTT / rwnd (rwnd in
//!   segments, RTT the smoothed RTT, i.e. the handshake's sample), on the
//!   controller's timer. Data ACKs then grow cwnd as in congestion
//!   avoidance (Sudden Start replaces slow start: ssthresh = cwnd).
//! * Congestion avoidance and fast retransmit: RFC 5681 growth, the third
//!   duplicate ACK retransmits (NewReno's).
//! * Rapid Recovery (section 3.2): on the fast retransmit cwnd is halved
//!   (ssthresh = min(cwnd, rwnd) / 2, at least 2 SMSS) and the sender sends
//!   W/2 dummies, one per duplicate ACK, before NewReno's inflated window
//!   lets any new data out (Reno needs W/2 duplicate ACKs before it sends
//!   new data, so the dummies take exactly those slots). Rapid Recovery
//!   ends when NewReno's recovery does, with cwnd = ssthresh = W/2 (not
//!   RFC 6582's min(ssthresh, FlightSize + SMSS): a sender the peer's
//!   window limited would leave with almost nothing). DummyAcks that arrive during it
//!   raise ssthresh (the window recovery ends at) and cwnd alike; those
//!   that arrive later raise cwnd. Dummies that come back restore the
//!   window W (a loss to corruption); dummies a congested router drops
//!   leave it halved.
//! * A timeout (section 3.3): ssthresh and cwnd as RFC 5681 (cwnd = 1
//!   SMSS, go-back-N), then Sudden Start again when the first segment
//!   leaves.
//! * The original Peach's repeated halving ("goes on decreasing the
//!   congestion window each time it receives three duplicate ACKs",
//!   section 3.3): in Rapid Recovery, a further run of DupThresh duplicate
//!   ACKs halves the window again (ssthresh halved, cwnd lowered by as
//!   much, a new set of dummies to probe back). Modified Peach's state
//!   variable (`peach_latch`) blocks that from the fast retransmit until it
//!   is cleared.
//!
//! Public descriptions of [26] confirm: the four algorithms (Sudden Start,
//! Congestion Avoidance, Fast Retransmit, Rapid Recovery), that dummies are
//! copies of the last data segment sent, carry no new information and go
//! in low-priority IP packets, and that their ACKs are read as available
//! bandwidth. Not confirmed, and choices here (spec 003 section 10): the
//! rwnd - 1 count, the +1 SMSS per DummyAck, W/2 Rapid-Recovery dummies
//! clocked by duplicate ACKs, RTT from the handshake.
//!
//! Choices and their keys (spec 003 section 10):
//! * `peach_latch` (A1): "none" (the original Peach, `variant = "peach"`),
//!   "recover" (cleared when everything outstanding at the fast retransmit
//!   is acknowledged, i.e. with NewReno's recovery; `variant =
//!   "modified-peach"`), or "retransmission" (cleared by the first ACK that
//!   covers the retransmitted segment). With NewReno underneath and
//!   `peach_rehalve = "new_run"`, "retransmission" halves exactly as "none"
//!   does: a new run needs a partial ACK, which clears that latch.
//! * `peach_rehalve` (A4): what "three duplicate ACKs" means for the
//!   unlatched Peach in Rapid Recovery: "new_run" (DupThresh duplicate ACKs
//!   after an ACK of new data, i.e. once per further hole in the window;
//!   NewReno has already resent that hole on the partial ACK) or
//!   "every_dupthresh" (every DupThresh duplicate ACKs in a row: 3, 6, 9).
//!   No re-halving resends anything (A2: later holes are resent by NewReno's
//!   partial ACKs, latched or not).
//! * `peach_sudden_dummies` (B8): "rwnd-1" or a count; rwnd is the peer's
//!   window when Sudden Start begins.
//! * `peach_recovery_dummies` (B9): the Rapid-Recovery dummies as a
//!   fraction of the window before the loss (0.5: W/2, what restores W);
//!   `peach_recovery_clock` (B9): "dupack" (one per duplicate ACK) or
//!   "timer" (one every tau).
//! * `peach_dummy_size` (B10): bytes copied into a dummy (default: the
//!   whole last segment); the size decides what a dummy costs on a link.
//! * `peach_inflation` (A5): NewReno's +1 SMSS per duplicate ACK in Rapid
//!   Recovery (true) or none (false: no data until an ACK of new data).
//! * `peach_rto` (A7): "sudden_start" or "slow_start" (RFC 5681 only).
//! * `peach_data_slow_start` (A6): data ACKs during and after Sudden Start
//!   grow cwnd in congestion avoidance (false, the paper's "moves to the
//!   Congestion Avoidance phase") or in slow start up to ssthresh (true).
//! * Fixed choices: a DummyAck never lifts cwnd above the peer's window
//!   (B12); a fast retransmit during Sudden Start cancels its remaining
//!   dummies; when Rapid Recovery ends, unsent Rapid-Recovery dummies are
//!   dropped; without an RTT sample when Sudden Start begins (a
//!   retransmitted SYN) its dummies wait for the first sample (B13).

use super::aimd::Aimd;
use super::{AckCtx, Action, Capabilities, CcParams, Env, SendCtx, Window, WindowController};
use crate::scenario::reader::{Res, Tbl};
use crate::sim::Time;
use crate::tcp::profile::Profile;
use toml::Value;

/// When Modified Peach's state variable is cleared (`peach_latch`).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Latch {
    /// No latch: the original Peach.
    None,
    /// The first ACK covering the retransmitted segment (reading A).
    Retransmission,
    /// Everything outstanding at the fast retransmit acknowledged (B).
    Recover,
}

/// What makes the unlatched Peach halve again (`peach_rehalve`).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Rehalve {
    NewRun,
    EveryDupthresh,
}

#[derive(Clone, Copy, Debug, PartialEq)]
pub struct PeachCfg {
    pub latch: Latch,
    pub rehalve: Rehalve,
    /// Sudden-Start dummies; None = rwnd - 1.
    pub sudden_dummies: Option<u32>,
    /// Rapid-Recovery dummies as a fraction of the window before the loss.
    pub recovery_dummies: f64,
    /// Rapid-Recovery dummies on the timer (every tau), not per duplicate ACK.
    pub recovery_timer: bool,
    /// Bytes copied into a dummy; None = the whole last segment.
    pub dummy_size: Option<u32>,
    pub inflation: bool,
    /// A timeout starts Sudden Start again.
    pub rto_sudden_start: bool,
    pub data_slow_start: bool,
    /// Congestion avoidance's exact increment (the ns-2 profiles).
    pub exact_ca: bool,
}

impl CcParams for PeachCfg {
    const KEYS: &'static [&'static str] = &[
        "peach_latch", "peach_rehalve", "peach_sudden_dummies", "peach_recovery_dummies", "peach_recovery_clock",
        "peach_dummy_size", "peach_inflation", "peach_rto", "peach_data_slow_start",
    ];

    fn parse(t: &Tbl, profile: Profile) -> Res<Self> {
        let d = PeachCfg::default();
        let latch = match t.choice("peach_latch", &["none", "retransmission", "recover"])? {
            Some("recover") => Latch::Recover,
            Some("retransmission") => Latch::Retransmission,
            Some(_) => Latch::None,
            None => d.latch,
        };
        let rehalve = match t.choice("peach_rehalve", &["new_run", "every_dupthresh"])? {
            Some("every_dupthresh") => Rehalve::EveryDupthresh,
            Some(_) => Rehalve::NewRun,
            None => d.rehalve,
        };
        let sudden_dummies = match t.get("peach_sudden_dummies") {
            None => d.sudden_dummies,
            Some(Value::String(s)) if s == "rwnd-1" => None,
            Some(Value::Integer(i)) if (0..=i64::from(u32::MAX)).contains(i) => Some(*i as u32),
            Some(_) => return Err(t.bad("peach_sudden_dummies", "\"rwnd-1\" or an integer >= 0 (dummies)")),
        };
        let recovery_dummies = t
            .number("peach_recovery_dummies", |x| (0.0..=1.0).contains(&x), "a fraction of the window in [0, 1], e.g. 0.5")?
            .unwrap_or(d.recovery_dummies);
        let recovery_timer = t.choice("peach_recovery_clock", &["dupack", "timer"])?.map_or(d.recovery_timer, |c| c == "timer");
        let dummy_size = t.u32_in("peach_dummy_size", 1, 65495)?.or(d.dummy_size);
        let inflation = t.bool("peach_inflation")?.unwrap_or(d.inflation);
        let rto_sudden_start = t.choice("peach_rto", &["sudden_start", "slow_start"])?.map_or(d.rto_sudden_start, |c| c == "sudden_start");
        let data_slow_start = t.bool("peach_data_slow_start")?.unwrap_or(d.data_slow_start);
        let exact_ca = matches!(profile, Profile::Ns2 | Profile::Ns2_2003);
        Ok(PeachCfg {
            latch,
            rehalve,
            sudden_dummies,
            recovery_dummies,
            recovery_timer,
            dummy_size,
            inflation,
            rto_sudden_start,
            data_slow_start,
            exact_ca,
        })
    }
}

/// The original Peach with every key left out (the `rfc` profile).
impl Default for PeachCfg {
    fn default() -> Self {
        PeachCfg {
            latch: Latch::None,
            rehalve: Rehalve::NewRun,
            sudden_dummies: None,
            recovery_dummies: 0.5,
            recovery_timer: false,
            dummy_size: None,
            inflation: true,
            rto_sudden_start: true,
            data_slow_start: false,
            exact_ca: false,
        }
    }
}

/// Rapid Recovery under way.
#[derive(Clone, Copy, Debug)]
struct Rapid {
    /// One past the segment the fast retransmit resent.
    retx_end: u64,
    /// Modified Peach's state variable: no further halving while set.
    latched: bool,
    /// Duplicate ACKs in a row since the last halving or ACK of new data.
    run: u32,
    /// An ACK of new data came since the last halving.
    acked_since_halving: bool,
}

#[derive(Clone, Debug)]
pub struct Peach {
    cfg: PeachCfg,
    aimd: Aimd,
    dupthresh: u32,
    /// The next data segment sent begins Sudden Start.
    start_pending: bool,
    /// Sudden Start waits for an RTT sample to space its dummies.
    await_rtt: bool,
    /// Sudden-Start dummies still to send.
    sudden_left: u32,
    /// Rapid-Recovery dummies still to send.
    rapid_left: u32,
    /// Dummy spacing, RTT / rwnd (ns).
    tau: Time,
    rapid: Option<Rapid>,
    una: u64,
    now: Time,
    peer_wnd: u64,
    /// Sudden Starts begun, Rapid Recoveries entered, further halvings in
    /// Rapid Recovery (the original Peach's), dummies asked for, DummyAcks.
    pub sudden_starts: u32,
    pub rapid_recoveries: u32,
    pub rehalvings: u32,
    pub dummies_asked: u64,
    pub dummy_acks: u64,
}

impl Peach {
    fn dummy(&mut self, acts: &mut Vec<Action>) {
        acts.push(Action::Dummy { range: None, max_len: self.cfg.dummy_size });
        self.dummies_asked += 1;
    }

    /// The peer's window in whole segments (at least one).
    fn rwnd_segments(&self, smss: u64) -> u64 {
        (self.peer_wnd / smss).max(1)
    }

    fn set_tau(&mut self, srtt: f64, smss: u64) {
        self.tau = (srtt / self.rwnd_segments(smss) as f64).round().max(1.0) as Time;
    }

    fn begin_sudden_start(&mut self, w: &mut Window, now: Time, srtt: Option<f64>, acts: &mut Vec<Action>) {
        self.sudden_starts += 1;
        if !self.cfg.data_slow_start {
            // at least 2 SMSS (RFC 5681's floor): after a timeout cwnd is
            // one segment, and at one or two segments slow start and
            // congestion avoidance grow alike
            w.ssthresh = w.cwnd.max(2 * w.smss);
        }
        self.sudden_left = self.cfg.sudden_dummies.unwrap_or(self.rwnd_segments(w.smss) as u32 - 1);
        match srtt {
            Some(r) => {
                self.set_tau(r, w.smss);
                if self.sudden_left > 0 {
                    acts.push(Action::WakeAt(now + self.tau));
                }
            }
            None => self.await_rtt = true,
        }
    }

    /// The DupThresh-th duplicate ACK of a new run (or every DupThresh-th)
    /// in Rapid Recovery: the original Peach halves the window again.
    fn halve_again(&mut self, w: &mut Window, acts: &mut Vec<Action>) {
        let before = w.ssthresh;
        let after = (before / 2).max(2 * w.smss);
        if after < before {
            w.ssthresh = after;
            w.cwnd = w.cwnd.saturating_sub(before - after).max(after);
            self.rehalvings += 1;
            self.arm_rapid_dummies(before, w.smss, acts);
        }
    }

    /// The dummies that probe whether the window `before` a halving can
    /// come back.
    fn arm_rapid_dummies(&mut self, before: u64, smss: u64, acts: &mut Vec<Action>) {
        self.rapid_left = (self.cfg.recovery_dummies * before as f64 / smss as f64).round() as u32;
        if self.cfg.recovery_timer && self.rapid_left > 0 {
            acts.push(Action::WakeAt(self.now + self.tau));
        }
    }
}

impl WindowController for Peach {
    type Params = PeachCfg;

    fn new(p: &PeachCfg, env: Env) -> Self {
        Peach {
            cfg: *p,
            aimd: Aimd { abc_limit: env.abc_limit, carry: p.exact_ca.then_some(0), per_byte: false },
            dupthresh: env.dupthresh,
            start_pending: true,
            await_rtt: false,
            sudden_left: 0,
            rapid_left: 0,
            tau: 0,
            rapid: None,
            una: 0,
            now: 0,
            peer_wnd: 0,
            sudden_starts: 0,
            rapid_recoveries: 0,
            rehalvings: 0,
            dummies_asked: 0,
            dummy_acks: 0,
        }
    }

    fn capabilities(&self) -> Capabilities {
        Capabilities { sees_sends: true, recovery_inflation: self.cfg.inflation, ..Capabilities::DEFAULT }
    }

    fn on_data_sent(&mut self, w: &mut Window, s: &SendCtx, acts: &mut Vec<Action>) {
        self.now = s.now;
        self.peer_wnd = s.peer_wnd;
        if self.start_pending {
            self.start_pending = false;
            self.begin_sudden_start(w, s.now, s.srtt, acts);
        }
    }

    fn on_ack(&mut self, w: &mut Window, a: &AckCtx, acts: &mut Vec<Action>) {
        self.now = a.now;
        self.una = a.una;
        self.peer_wnd = a.peer_wnd;
        if self.await_rtt {
            if let Some(r) = a.srtt {
                self.await_rtt = false;
                self.set_tau(r, w.smss);
                if self.sudden_left > 0 {
                    acts.push(Action::WakeAt(a.now));
                }
            }
        }
        let Some(mut rr) = self.rapid else { return };
        if a.dupack {
            if !self.cfg.recovery_timer && self.rapid_left > 0 {
                self.rapid_left -= 1;
                self.dummy(acts);
            }
            rr.run += 1;
            let due = match self.cfg.rehalve {
                Rehalve::NewRun => rr.run == self.dupthresh && rr.acked_since_halving,
                Rehalve::EveryDupthresh => rr.run % self.dupthresh == 0,
            };
            if due && !rr.latched {
                self.halve_again(w, acts);
                rr.run = 0;
                rr.acked_since_halving = false;
                rr.latched = self.cfg.latch != Latch::None;
            }
        } else if a.acked > 0 {
            rr.run = 0;
            rr.acked_since_halving = true;
            if self.cfg.latch == Latch::Retransmission && a.una >= rr.retx_end {
                rr.latched = false;
            }
        }
        self.rapid = Some(rr);
    }

    fn grow(&mut self, w: &mut Window, a: &AckCtx) {
        self.aimd.on_ack(w, a.acked);
    }

    fn ssthresh_after_loss(&mut self, w: &Window, _flight: u64, acts: &mut Vec<Action>) -> u64 {
        // the window before the fast retransmit, as the sender used it
        let before = w.cwnd.min(self.peer_wnd.max(w.smss));
        self.rapid_recoveries += 1;
        self.sudden_left = 0;
        self.await_rtt = false;
        self.rapid = Some(Rapid {
            retx_end: self.una + w.smss,
            latched: self.cfg.latch != Latch::None,
            run: 0,
            acked_since_halving: false,
        });
        self.arm_rapid_dummies(before, w.smss, acts);
        (before / 2).max(2 * w.smss)
    }

    fn recovery_exit_cwnd(&mut self, w: &Window, _acked: u64, cwnd: u64) -> u64 {
        // Rapid Recovery leaves the halved window W/2 (RFC 6582's burst
        // guard, min(ssthresh, FlightSize + SMSS), would leave a sender that
        // was limited by the peer's window with almost nothing)
        cwnd.max(w.ssthresh)
    }

    fn on_recovery_exit(&mut self, _w: &mut Window) {
        self.rapid = None;
        self.rapid_left = 0;
    }

    fn on_rto(&mut self, w: &mut Window, flight: u64, first: bool, _last: &AckCtx, _acts: &mut Vec<Action>) {
        if first {
            w.ssthresh = Aimd::ssthresh_after_loss(w, flight);
        }
        w.cwnd = w.smss;
        self.rapid = None;
        self.rapid_left = 0;
        self.sudden_left = 0;
        self.await_rtt = false;
        self.start_pending = self.cfg.rto_sudden_start;
    }

    fn on_timer(&mut self, _w: &mut Window, now: Time, acts: &mut Vec<Action>) {
        self.now = now;
        let left = if self.sudden_left > 0 {
            &mut self.sudden_left
        } else if self.cfg.recovery_timer && self.rapid.is_some() && self.rapid_left > 0 {
            &mut self.rapid_left
        } else {
            return;
        };
        *left -= 1;
        let more = *left > 0;
        self.dummy(acts);
        if more {
            acts.push(Action::WakeAt(now + self.tau));
        }
    }

    fn on_dummy_ack(&mut self, w: &mut Window, _now: Time, _acts: &mut Vec<Action>) {
        self.dummy_acks += 1;
        let cap = self.peer_wnd.max(w.smss);
        if self.rapid.is_some() {
            // in Rapid Recovery: the window recovery ends at, and the
            // inflated one with it
            if w.ssthresh + w.smss <= cap {
                w.ssthresh += w.smss;
                w.cwnd += w.smss;
            }
        } else {
            w.cwnd = (w.cwnd + w.smss).min(cap.max(w.cwnd));
        }
    }
}
