//! The CETEN-R router estimator (`kind = "ceten"`; Carroll's thesis,
//! `ip_rte_central_cpu_packet_arrival`, spec 002 sections 1.4 and 1.9).
//!
//! * Corruption: per interface of the router it sits on (each link
//!   direction arriving at the node), a survival estimate P, an EWMA with
//!   gain alpha over the TCP packets arriving there that carry the CETEN
//!   option with status 1: P <- alpha X + (1 - alpha) P, X = 0 for a packet
//!   that arrived with bit errors (the link's error model decides; the
//!   agent sees it before the node discards it) and 1 otherwise. An intact
//!   packet's forward survival ratio is multiplied by the updated P of its
//!   arrival interface, so the ratio a receiver sees is the product over
//!   the routers on the path (with an agent at the receiver's node, its
//!   last hop counts too).
//! * Congestion: per interface the router sends on, a survival estimate C
//!   with the same gain: a packet offered to the interface's queue and
//!   dropped gives X = 0, one accepted X = 1; every packet leaving carries
//!   its forward congestion ratio multiplied by C. (The acceptance of a
//!   packet is learnt when the next one is offered or a drop is reported,
//!   so a packet carries C as it stood before its own outcome.)
//! * `overflow_decays_survival` (the printed code's reading): a queue drop
//!   also decays the arrival interface's P, P <- (1 - alpha) P, the same
//!   variable; off by default (a drop is congestion, not corruption).
//! * `estimator = "per_packet"` (a reading of the printed code, whose P
//!   lives in each packet's interface control information and is never
//!   shown to persist): every packet starts from `initial`, so an intact
//!   packet's P is alpha + (1 - alpha) initial; with `initial = 0`, alpha,
//!   whatever the link does. The congestion estimate still persists.
//! * State persists across packets and flows; alpha comes from each
//!   packet's option, as in the thesis' code. The thesis' code applies
//!   the survival update to a copy of the segment it then destroys and
//!   multiplies a congestion ratio of 0 (spec 002 section 1.8): satcp
//!   implements the stated intent (the forwarded segment carries the
//!   product; the congestion estimate is a survival EWMA starting at 1).
//!   The sender decides what its own congestion ratio starts at
//!   (`ceten_initial_congestion`: 0, the printed value, keeps every
//!   product at 0).

use std::collections::BTreeMap;

use super::{AgentEnv, AgentParams, AgentPlugin, AgentSite, RouterAgent};
use crate::net::packet::ceten_option::Ceten;
use crate::net::Packet;
use crate::scenario::reader::{Res, Tbl};
use crate::sim::Time;

/// `initial` is both estimates' starting value (1); with
/// `overflow_decays_survival` (false) a queue drop also decays the dropped
/// packet's arrival estimate (the printed code); with `per_packet`
/// (`estimator = "per_packet"`; "persistent" by default) no survival
/// estimate persists: each packet's starts from `initial`.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct CetenRouterCfg {
    pub initial: f64,
    pub overflow_decays_survival: bool,
    pub per_packet: bool,
}

impl AgentParams for CetenRouterCfg {
    const KEYS: &'static [&'static str] = &["initial", "overflow_decays_survival", "estimator"];

    fn parse(t: &Tbl, _site: &AgentSite) -> Res<Self> {
        Ok(CetenRouterCfg {
            initial: t.prob_closed("initial")?.unwrap_or(1.0),
            overflow_decays_survival: t.bool("overflow_decays_survival")?.unwrap_or(false),
            per_packet: t.choice("estimator", &["persistent", "per_packet"])? == Some("per_packet"),
        })
    }
}

impl AgentPlugin for CetenRouter {
    type Params = CetenRouterCfg;

    fn new(p: &CetenRouterCfg, _env: AgentEnv) -> Self {
        CetenRouter::new(p.initial, p.overflow_decays_survival).per_packet(p.per_packet)
    }
}

pub struct CetenRouter {
    /// Per link direction arriving at the node: P.
    survival: BTreeMap<u32, f64>,
    /// Per link direction leaving the node: C, and the last packet offered
    /// there while it awaits its outcome (its alpha and arrival interface).
    congestion: BTreeMap<u32, (f64, Option<(f64, Option<u32>)>)>,
    /// The last packet that arrived intact (its source, destination and
    /// sequence number) and its arrival interface: the forwarding that
    /// follows at once is that packet's, and a packet that started here (or
    /// follows one delivered here) does not match.
    last_in: Option<((u32, u32, u32), u32)>,
    initial: f64,
    overflow_decays_survival: bool,
    /// No survival state across packets (`estimator = "per_packet"`).
    per_packet: bool,
    updates: u64,
    corrupted: u64,
    queue_drops: u64,
}

impl CetenRouter {
    pub fn new(initial: f64, overflow_decays_survival: bool) -> Self {
        CetenRouter {
            survival: BTreeMap::new(),
            congestion: BTreeMap::new(),
            last_in: None,
            initial,
            overflow_decays_survival,
            per_packet: false,
            updates: 0,
            corrupted: 0,
            queue_drops: 0,
        }
    }

    /// Start every packet's survival estimate afresh from `initial`.
    pub fn per_packet(mut self, on: bool) -> Self {
        self.per_packet = on;
        self
    }

    /// The survival estimate of arrival interface `dir`.
    pub fn survival(&self, dir: u32) -> f64 {
        self.survival.get(&dir).copied().unwrap_or(self.initial)
    }

    /// The congestion (survival) estimate of sending interface `dir`.
    pub fn congestion(&self, dir: u32) -> f64 {
        self.congestion.get(&dir).map_or(self.initial, |c| c.0)
    }

    fn option(p: &Packet) -> Option<Ceten> {
        if !p.kind.is_tcp() {
            return None;
        }
        p.tcp.research().and_then(|r| Ceten::from_option(&r)).filter(|c| c.status == 1)
    }

    fn id(p: &Packet) -> (u32, u32, u32) {
        (p.src_node, p.dst_node, p.tcp.seq)
    }

    fn update_survival(&mut self, dir: u32, alpha: f64, intact: bool) -> f64 {
        self.updates += 1;
        let x = if intact { 1.0 } else { 0.0 };
        if self.per_packet {
            return alpha * x + (1.0 - alpha) * self.initial;
        }
        let p = self.survival.entry(dir).or_insert(self.initial);
        *p = alpha * x + (1.0 - alpha) * *p;
        *p
    }
}

impl RouterAgent for CetenRouter {
    fn on_arrival(&mut self, _now: Time, dir: u32, p: &mut Packet) {
        self.last_in = Some((Self::id(p), dir));
        let Some(mut c) = Self::option(p) else { return };
        let s = self.update_survival(dir, c.alpha as f64, true);
        c.fwd_survival = (c.fwd_survival as f64 * s) as f32;
        p.tcp.update_research(&c.words());
    }

    fn on_corrupted(&mut self, _now: Time, dir: u32, p: &Packet) {
        self.corrupted += 1;
        if let Some(c) = Self::option(p) {
            self.update_survival(dir, c.alpha as f64, false);
        }
    }

    fn on_forward(&mut self, _now: Time, dir: u32, p: &mut Packet) {
        let arrived_on = self.last_in.take().filter(|(id, _)| *id == Self::id(p)).map(|(_, d)| d);
        let Some(mut c) = Self::option(p) else { return };
        let initial = self.initial;
        let e = self.congestion.entry(dir).or_insert((initial, None));
        // the previous packet offered here was accepted
        if let Some((a, _)) = e.1.take() {
            e.0 = a + (1.0 - a) * e.0;
        }
        c.fwd_congestion = (c.fwd_congestion as f64 * e.0) as f32;
        e.1 = Some((c.alpha as f64, arrived_on));
        p.tcp.update_research(&c.words());
    }

    fn on_queue_drop(&mut self, _now: Time, dir: u32, p: &Packet) {
        self.queue_drops += 1;
        let Some(c) = Self::option(p) else { return };
        let alpha = c.alpha as f64;
        let initial = self.initial;
        let e = self.congestion.entry(dir).or_insert((initial, None));
        // the packet just offered (a priority queue's push-out drops only
        // dummies, which carry no CETEN option and never get here)
        let arrived_on = e.1.take().and_then(|(_, d)| d);
        e.0 *= 1.0 - alpha;
        if let (true, Some(d)) = (self.overflow_decays_survival, arrived_on) {
            let s = self.survival.entry(d).or_insert(initial);
            *s *= 1.0 - alpha;
        }
    }

    fn wants_corrupted(&self) -> bool {
        true
    }

    fn wants_arrivals(&self) -> bool {
        true
    }

    fn counters(&self) -> BTreeMap<String, u64> {
        let mut m = BTreeMap::new();
        m.insert("survival_updates".to_string(), self.updates);
        m.insert("corrupted_arrivals".to_string(), self.corrupted);
        m.insert("queue_drops".to_string(), self.queue_drops);
        for (d, s) in &self.survival {
            // estimates in parts per million, for the summary
            m.insert(format!("survival_ppm_dir{d}"), (s * 1e6).round() as u64);
        }
        for (d, c) in &self.congestion {
            m.insert(format!("congestion_ppm_dir{d}"), (c.0 * 1e6).round() as u64);
        }
        m
    }
}
