//! A test-only controller that uses the hooks beyond the window, whose real
//! users (TCP Peach's dummy segments, CETEN-R's loss verdicts and research
//! option) come later. Compiled only for tests; registered through the same
//! registry line as the others (`cc = "probe"`, no keys, every behaviour
//! off), and configured by the tests directly (`tcp/tests/hook_traces.rs`).
//!
//! * Dummies: after the first ACK of data, `dummies` dummy segments, one
//!   every `spacing_ns` on the controller's own timer, each a copy of the
//!   last data segment sent (or of `range`); each DummyAck is counted and
//!   adds `dummy_ack_growth` bytes to cwnd.
//! * Growth: RFC 5681's (`Aimd`) if `aimd`, else none.
//! * Verdicts: every duplicate ACK is counted; with `corruption` every loss
//!   is corruption.
//! * Research option: with `research`, data segments carry experiment
//!   `FORWARD` with words [`MARK`, n] (n counts the data segments sent);
//!   an endpoint that has received one echoes its words on its pure ACKs as
//!   experiment `ECHO`; what arrives is kept.

use super::aimd::Aimd;
use super::{AckCtx, Action, Capabilities, CcParams, DupAck, Env, Verdict, Window, WindowController};
use crate::net::packet::{Kind, ResearchOption, MAX_RESEARCH_WORDS};
use crate::scenario::reader::{Res, Tbl};
use crate::tcp::profile::Profile;
use crate::sim::Time;

pub const FORWARD: u16 = 0xF0F0;
pub const ECHO: u16 = 0xEC40;
pub const MARK: u32 = 0xA1;
/// Wire length of the option: kind, length, experiment id and two words.
pub const WIRE_LEN: u8 = 12;

#[derive(Clone, Copy, Debug, Default, PartialEq)]
pub struct ProbeCfg {
    pub dummies: u32,
    pub spacing_ns: u64,
    pub range: Option<(u64, u64)>,
    pub dummy_ack_growth: u64,
    pub aimd: bool,
    pub corruption: bool,
    pub research: bool,
}

impl CcParams for ProbeCfg {
    const KEYS: &'static [&'static str] = &[];

    fn parse(_t: &Tbl, _profile: Profile) -> Res<Self> {
        Ok(ProbeCfg::default())
    }
}

#[derive(Clone, Debug)]
pub struct Probe {
    cfg: ProbeCfg,
    aimd: Aimd,
    started: bool,
    pub dummies_asked: u32,
    pub dummy_acks: u32,
    /// The verdicts asked for, in order.
    pub verdicts: Vec<DupAck>,
    forward: u32,
    /// The last `FORWARD` option received.
    pub received: Option<ResearchOption>,
    /// The last `ECHO` option received.
    pub echoed: Option<ResearchOption>,
}

impl WindowController for Probe {
    type Params = ProbeCfg;

    fn new(p: &ProbeCfg, env: Env) -> Self {
        Probe {
            cfg: *p,
            aimd: Aimd { abc_limit: env.abc_limit, carry: None, per_byte: false },
            started: false,
            dummies_asked: 0,
            dummy_acks: 0,
            verdicts: Vec::new(),
            forward: 0,
            received: None,
            echoed: None,
        }
    }

    fn on_ack(&mut self, _w: &mut Window, a: &AckCtx, acts: &mut Vec<Action>) {
        if !self.started && a.acked > 0 && self.cfg.dummies > 0 {
            self.started = true;
            acts.push(Action::WakeAt(a.now));
        }
    }

    fn grow(&mut self, w: &mut Window, a: &AckCtx) {
        if self.cfg.aimd {
            self.aimd.on_ack(w, a.acked);
        }
    }

    fn loss_verdict(&mut self, _w: &Window, _a: &AckCtx, d: DupAck) -> Verdict {
        self.verdicts.push(d);
        if self.cfg.corruption {
            Verdict::Corruption
        } else {
            Verdict::Congestion
        }
    }

    fn on_timer(&mut self, _w: &mut Window, now: Time, acts: &mut Vec<Action>) {
        acts.push(Action::Dummy { range: self.cfg.range, max_len: None });
        self.dummies_asked += 1;
        if self.dummies_asked < self.cfg.dummies {
            acts.push(Action::WakeAt(now + self.cfg.spacing_ns));
        }
    }

    fn on_dummy_ack(&mut self, w: &mut Window, _now: Time, _acts: &mut Vec<Action>) {
        self.dummy_acks += 1;
        w.cwnd += self.cfg.dummy_ack_growth;
    }

    fn capabilities(&self) -> Capabilities {
        Capabilities { research_option: self.cfg.research, ..Capabilities::DEFAULT }
    }

    fn research_option(&mut self, kind: Kind) -> Option<ResearchOption> {
        match kind {
            Kind::Data => {
                self.forward += 1;
                let mut words = [0; MAX_RESEARCH_WORDS];
                words[..2].copy_from_slice(&[MARK, self.forward]);
                Some(ResearchOption { exid: FORWARD, wire_len: WIRE_LEN, words })
            }
            Kind::Ack => self.received.map(|r| ResearchOption { exid: ECHO, ..r }),
            _ => None,
        }
    }

    fn on_research_option(&mut self, r: &ResearchOption, _kind: Kind) {
        match r.exid {
            FORWARD => self.received = Some(*r),
            ECHO => self.echoed = Some(*r),
            _ => {}
        }
    }
}
