//! CETEN-R's sender and receiver (Carroll, AFIT thesis 2004, chapter III
//! and Appendix A; spec 002 sections 1.5-1.9), on Reno or NewReno recovery
//! (`variant = "ceten-reno"` / `"ceten-newreno"`, `cc = "ceten"`); the
//! routers' estimator is the `ceten` router agent (`router/ceten.rs`).
//!
//! * Every segment after the handshake carries the CETEN option
//!   (`net/packet/ceten_option.rs`: status 1, alpha, forward survival 1.0, forward
//!   congestion `ceten_initial_congestion`); routers multiply their
//!   estimates into the forward fields.
//! * The receiver puts the forward ratios of the last segment it received
//!   into the backward fields of what it sends; the sender keeps the
//!   backward ratios of the last ACK that carried the option: S_err and
//!   S_cong (1 and the initial congestion ratio before any).
//! * On a duplicate ACK (in the recovery scheme's sense) the sender draws
//!   U ~ Uniform(0, 1) and judges the loss corruption if U < (1 - S_err) /
//!   ((1 - S_err) + (1 - S_cong)) (never when the denominator is 0):
//!   the segment at snd_una is resent once and cwnd, ssthresh, snd_nxt and
//!   the recovery state stay as they are (`Verdict::Corruption`); otherwise
//!   the scheme's fast retransmit and recovery run. Timeouts are the
//!   scheme's. Window growth is RFC 5681's.
//!
//! Choices (spec 002 section 7) and their keys:
//! * `ceten_alpha`: the EWMA gain the routers use, carried in the option
//!   (the thesis never gives its value): 0.1. Under the study's
//!   calibrated reading (per-packet estimators from 0, congestion ratio
//!   0) P(corruption) = (1 - alpha^k) / (2 - alpha^k) over k hops, about
//!   1/2 whatever alpha (`docs/models/ceten-r.md`).
//! * A corruption verdict counts its duplicate ACK (the printed code
//!   increments `dup_ack_cnt` before the check; the endpoint does it).
//! * `ceten_coin` (A9): `"loss_event"` (the prose: one coin per loss event,
//!   at the DupThresh-th duplicate ACK; after a corruption verdict the
//!   event's further duplicate ACKs are ignored, `Verdict::Ignore`, until an
//!   ACK of new data or a timeout) or `"every_dupack"` (the printed code:
//!   a coin on every duplicate ACK, each corruption verdict resending the
//!   head).
//! * `ceten_initial_congestion` (A6): the forward congestion ratio a sender
//!   starts with: 1.0 (the survival reading: routers multiply their
//!   congestion survival estimates into it; with no drops on the path every
//!   loss is judged corruption) or 0.0 (the printed code: the product stays
//!   0 and P(corruption) = (1 - S_err) / (2 - S_err) <= 1/2).
//! * The option's 32 bytes count on the wire unless the flow's
//!   `options_on_wire` is false (the thesis' bottleneck arithmetic suggests
//!   its OPNET did not count them).

use super::aimd::Aimd;
use super::{AckCtx, Capabilities, CcParams, DupAck, Env, Verdict, Window, WindowController};
use crate::net::packet::ceten_option::Ceten as CetenOpt;
use crate::net::packet::{Kind, ResearchOption};
use crate::scenario::reader::{Res, Tbl};
use crate::sim::Rng;
use crate::tcp::profile::Profile;

/// When the sender draws its coin (`ceten_coin`).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Coin {
    LossEvent,
    EveryDupack,
}

#[derive(Clone, Copy, Debug, PartialEq)]
pub struct CetenCfg {
    pub alpha: f64,
    pub coin: Coin,
    pub initial_congestion: f64,
    /// Congestion avoidance's exact increment (the ns-2 profiles).
    pub exact_ca: bool,
}

impl CcParams for CetenCfg {
    const KEYS: &'static [&'static str] = &["ceten_alpha", "ceten_coin", "ceten_initial_congestion"];

    fn parse(t: &Tbl, profile: Profile) -> Res<Self> {
        let d = CetenCfg::default();
        let alpha = t.number("ceten_alpha", |x| x > 0.0 && x <= 1.0, "a gain in (0, 1], e.g. 0.1")?.unwrap_or(d.alpha);
        let coin = match t.choice("ceten_coin", &["loss_event", "every_dupack"])? {
            Some("every_dupack") => Coin::EveryDupack,
            Some(_) => Coin::LossEvent,
            None => d.coin,
        };
        let initial_congestion = t.prob_closed("ceten_initial_congestion")?.unwrap_or(d.initial_congestion);
        let exact_ca = matches!(profile, Profile::Ns2 | Profile::Ns2_2003);
        Ok(CetenCfg { alpha, coin, initial_congestion, exact_ca })
    }
}

/// The stated intent with every key left out (the `rfc` profile).
impl Default for CetenCfg {
    fn default() -> Self {
        CetenCfg { alpha: 0.1, coin: Coin::LossEvent, initial_congestion: 1.0, exact_ca: false }
    }
}

#[derive(Clone, Debug)]
pub struct Ceten {
    cfg: CetenCfg,
    aimd: Aimd,
    rng: Rng,
    /// The backward ratios of the last ACK that carried the option.
    pub s_err: f64,
    pub s_cong: f64,
    /// The forward ratios of the last segment received (echoed back).
    echo: Option<(f32, f32)>,
    /// snd_una of the loss event judged corruption (`loss_event` coin).
    repaired_at: Option<u64>,
    /// Coins drawn and corruption verdicts.
    pub coins: u64,
    pub corruptions: u64,
}

impl Ceten {
    /// P(corruption) from the ratios in force.
    pub fn p_corruption(&self) -> f64 {
        let (e, c) = (1.0 - self.s_err, 1.0 - self.s_cong);
        if e + c <= 0.0 {
            0.0
        } else {
            e / (e + c)
        }
    }

    fn draw(&mut self) -> Verdict {
        self.coins += 1;
        if self.rng.uniform() < self.p_corruption() {
            self.corruptions += 1;
            Verdict::Corruption
        } else {
            Verdict::Congestion
        }
    }

    #[cfg(test)]
    pub fn set_ratios(&mut self, s_err: f64, s_cong: f64) {
        self.s_err = s_err;
        self.s_cong = s_cong;
    }
}

impl WindowController for Ceten {
    type Params = CetenCfg;

    fn new(p: &CetenCfg, env: Env) -> Self {
        Ceten {
            cfg: *p,
            aimd: Aimd { abc_limit: env.abc_limit, carry: p.exact_ca.then_some(0), per_byte: false },
            rng: env.rng,
            s_err: 1.0,
            s_cong: p.initial_congestion,
            echo: None,
            repaired_at: None,
            coins: 0,
            corruptions: 0,
        }
    }

    fn grow(&mut self, w: &mut Window, a: &AckCtx) {
        self.aimd.on_ack(w, a.acked);
    }

    fn on_ack(&mut self, _w: &mut Window, a: &AckCtx, _acts: &mut Vec<super::Action>) {
        if a.acked > 0 {
            self.repaired_at = None;
        }
    }

    fn on_rto(&mut self, w: &mut Window, flight: u64, first: bool, _last: &AckCtx, _acts: &mut Vec<super::Action>) {
        self.repaired_at = None;
        if first {
            w.ssthresh = Aimd::ssthresh_after_loss(w, flight);
        }
        w.cwnd = w.smss;
    }

    fn loss_verdict(&mut self, _w: &Window, a: &AckCtx, d: DupAck) -> Verdict {
        match self.cfg.coin {
            Coin::EveryDupack => self.draw(),
            Coin::LossEvent if self.repaired_at == Some(a.una) => Verdict::Ignore,
            Coin::LossEvent if d.at_dupthresh => {
                let v = self.draw();
                if v == Verdict::Corruption {
                    self.repaired_at = Some(a.una);
                }
                v
            }
            Coin::LossEvent => Verdict::Congestion,
        }
    }

    fn capabilities(&self) -> Capabilities {
        Capabilities { research_option: true, ..Capabilities::DEFAULT }
    }

    fn research_option(&mut self, kind: Kind) -> Option<ResearchOption> {
        if !matches!(kind, Kind::Data | Kind::Ack) {
            return None;
        }
        let (bs, bc) = self.echo.unwrap_or((1.0, self.cfg.initial_congestion as f32));
        let c = CetenOpt {
            status: 1,
            alpha: self.cfg.alpha as f32,
            fwd_survival: 1.0,
            bwd_survival: bs,
            fwd_congestion: self.cfg.initial_congestion as f32,
            bwd_congestion: bc,
        };
        Some(c.to_option())
    }

    fn on_research_option(&mut self, r: &ResearchOption, kind: Kind) {
        let Some(c) = CetenOpt::from_option(r) else { return };
        if kind == Kind::Data {
            self.echo = Some((c.fwd_survival, c.fwd_congestion));
        }
        // every segment from the peer carries its echo of our forward
        // ratios (before it has received one of ours, its starting values,
        // which are ours too)
        self.s_err = c.bwd_survival as f64;
        self.s_cong = c.bwd_congestion as f64;
    }
}
